"""Play in the terminal: a rich table, your hand, the legal moves with keys, typed moves.

Everything shown comes from :class:`tabletop.session.TableSession` views; bad input gets
a message and the prompt again, and never changes the game. ``input_fn`` and ``console``
are parameters so tests can play a whole game with scripted input.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tabletop.moves import Choice, MoveError
from tabletop.session import Event, TableSession

CARD_STYLES = {"R": "bold red", "Y": "bold yellow", "G": "bold green", "B": "bold blue", "W": "bold magenta"}
HELP = (
    "Type a key from the list or the move itself: a card (R7, GS, Y+2), a Wild with its colour (W G, W+4 blue; "
    "W alone asks for the colour), draw, pass, uno, silent, challenge, accept; trick game: lay 7, 7 +2, draw 2, "
    "return 5, swap 1, keep. Also: help, save FILE (the game record, once the game is over), quit."
)


def card_text(name: str) -> Text:
    """A card in its colour (wilds in magenta)."""
    return Text(name, style=CARD_STYLES.get(name[0], ""))


def cards_text(names: list[str]) -> Text:
    text = Text()
    for i, name in enumerate(names):
        if i:
            text.append(" ")
        text.append_text(card_text(name))
    return text


def _uno_table(view: dict[str, Any]) -> Table:
    arrow = "→ seat order" if view["direction"] == 1 else "← reverse order"
    title = f"UNO · hand {view['hand_number']} · {arrow}"
    if view["target"]:
        title += f" · match to {view['target']} ({view['scoring']} scoring)"
    table = Table(title=title, expand=False)
    for col in ("", "player", "cards", "score", "needed", ""):
        table.add_column(col)
    for p in view["players"]:
        turn = "▶" if p["seat"] == view["current_player"] and not view["over"] else ""
        needed = "" if p["needed"] is None else str(p["needed"])
        table.add_row(turn, p["name"], str(p["cards"]), str(p["score"]), needed, "UNO!" if p["uno"] else "")
    return table


def _tricks_table(view: dict[str, Any]) -> Table:
    pts = view["points"]
    title = f"Trick game · trick {view['trick']} · team A {pts['A']} · team B {pts['B']}"
    if view["annulled"]:
        title += " · annulled by a Skip"
    table = Table(title=title, expand=False)
    for col in ("", "player", "team", "numbers", "specials", "on the table"):
        table.add_column(col)
    for p in view["players"]:
        turn = "▶" if p["seat"] == view["current_player"] and not view["over"] else ""
        entry = p["table"]
        laid = "-"
        if entry:
            laid = entry["card"][1:] + (" (duplicate: 0)" if entry["forced"] else "")
            if entry["added"]:
                laid += f" + {entry['added'][1:]} (wild)"
            if entry["specials"]:
                laid += " with " + " ".join(entry["specials"])
        table.add_row(turn, p["name"], p["team"], str(p["numbers"]), str(p["specials"]), laid)
    return table


def phase_prompt(view: dict[str, Any]) -> str:
    """The question the person's phase asks."""
    phase = view["phase"]
    if view["game"] == "uno":
        if phase == "uno":
            return "You are down to one card: declare UNO? (u = uno, s = silent)"
        if phase == "challenge":
            who = view["players"][view["challenge_from"]]["name"] if view["challenge_from"] is not None else "Someone"
            return f"{who} played a Wild Draw Four on you: challenge it? (c = challenge, a = accept)"
        if phase == "colour":
            return "The starting card is a Wild: name its colour (R, Y, G, B)"
        if phase == "drawn":
            keep = any("pass" in m["actions"] for m in view.get("moves", []))
            return f"You drew {view['drawn_card']}: " + ("play it or keep it (pass)" if keep else "play it")
        if phase == "swap" and view.get("swap_seats"):
            names = [p["name"] for p in view["players"]]
            seats = ", ".join(f"{k} = {names[s]}" for k, s in view["swap_seats"].items())
            return f"You played a 7: choose whom to swap hands with ({seats})"
        if view["pending_draw"]:
            return f"A Draw Two stack of {view['pending_draw']} waits: stack a Draw Two or draw"
        return "Your move"
    if phase == "draw":
        return f"How many number cards do you draw? (type 0-{view['draw_limit']})"
    if phase == "return":
        return f"Put a number card back under the pile: type its number ({view['returns_left']} to go)"
    if phase == "swap":
        return "Reverse: swap your table card with another seat's, or keep"
    return "Lay a number card (with a special if you like)"


class TerminalGame:
    """The read-eval loop of one session in a terminal."""

    def __init__(
        self,
        session: TableSession,
        input_fn: Callable[[str], str] = input,
        console: Console | None = None,
        record_path: Path | None = None,
    ) -> None:
        self.session = session
        self.input = input_fn
        self.console = console or Console()
        self.record_path = record_path
        self._recorded = 0  # games whose record --record has saved

    def show_events(self, events: list[Event]) -> None:
        for event in events:
            style = "bold" if event.player == self.session.seat else ""
            self.console.print(Text("· " + event.text, style=style))
            if event.hand_over:
                self.show_standings(event)
            if event.game_over:
                self.show_game_over(event)

    def show_standings(self, event: Event) -> None:
        info = event.hand_over or {}
        names = self.session.names
        table = Table(title=f"Hand over: {names[info['winner']]} went out")
        for col in ("player", "this hand", "total", "needed"):
            table.add_column(col)
        order = sorted(
            range(len(names)), key=lambda s: info["scores"][s], reverse=self.session.rules.scoring == "standard"
        )
        for s in order:
            needed = "" if info["needed"] is None else str(info["needed"][s])
            table.add_row(names[s], f"+{info['points'][s]}", str(info["scores"][s]), needed)
        self.console.print(table)

    def show_game_over(self, event: Event) -> None:
        info = event.game_over or {}
        if self.session.game == "uno":
            over = "Match over" if info.get("match") else "Game over"
            self.console.print(Text(f"{over}: {', '.join(info['names'])} won", style="bold green"))
        else:
            pts = info["points"]
            teams = " and ".join(info["teams"])
            self.console.print(
                Text(f"Game over: team A {pts['A']}, team B {pts['B']} — team {teams} wins", style="bold green")
            )
        tally = self.session.tally
        wins = ", ".join(f"{k} {v}" for k, v in sorted(tally.wins.items()))
        self.console.print(f"Games played: {tally.games}; wins: {wins}")

    def show_table(self) -> None:
        view = self.session.view()
        if view["game"] == "uno":
            self.console.print(_uno_table(view))
            line = Text("Top card ")
            line.append_text(card_text(view["top"]))
            line.append(f"  colour {view['colour_name'] or 'to be named'}  draw pile {view['draw_pile']}")
            self.console.print(line)
            self.console.print(Text("Your hand: ").append_text(cards_text(view["hand"])))
            if view["revealed"]:
                shown = view["revealed"]
                self.console.print(
                    Text(f"You saw {view['players'][shown['player']]['name']}'s hand: ").append_text(
                        cards_text(shown["hand"])
                    )
                )
        else:
            self.console.print(_tricks_table(view))
            numbers = " ".join(c[1:] for c in view["hand"])
            self.console.print(Text(f"Your numbers: {numbers}   specials: ").append_text(cards_text(view["specials"])))

    def ask(self, prompt: str) -> str | None:
        try:
            return self.input(prompt)
        except EOFError:
            return None

    def read_move(self) -> str | None:
        """Prompt until the input is a legal action (None: the person quits)."""
        while True:
            view = self.session.view()
            self.console.print(Text(phase_prompt(view), style="bold"))
            self.console.print(
                "  ".join(f"[{m['key']}] {m['label']}" + ("…" if len(m["actions"]) > 1 else "") for m in view["moves"])
            )
            text = self.ask("> ")
            if text is None or text.strip().lower() in ("q", "quit", "exit"):
                return None
            command = text.strip()
            if command.lower() in ("h", "help", "?"):
                self.console.print(HELP)
                continue
            if command.lower().startswith("save"):
                self.save(command[4:].strip())
                continue
            try:
                parsed = self.session.parse(command)
                while isinstance(parsed, Choice):
                    answer = self.ask(f"{parsed.prompt} ({', '.join(parsed.labels)}) > ")
                    if answer is None:
                        return None
                    try:
                        parsed = parsed.resolve(answer)
                    except MoveError as err:
                        self.console.print(Text(str(err), style="red"))
                return parsed
            except MoveError as err:
                self.console.print(Text(str(err), style="red"))

    def numbered_record(self) -> Path:
        """Where ``--record`` keeps this game: FILE for the first, FILE-2, FILE-3... for the next."""
        path, games = self.record_path, self.session.tally.games
        return path if games <= 1 else path.with_name(f"{path.stem}-{games}{path.suffix}")

    def save(self, name: str) -> None:
        path = Path(name) if name else (self.numbered_record() if self.record_path else Path("game.jsonl"))
        try:
            self.session.save_record(path)
        except ValueError as err:  # the game is still in play
            self.console.print(Text(f"not saved: {err}", style="red"))
            return
        except OSError as err:
            self.console.print(Text(f"could not save to {path}: {err.strerror or err}", style="red"))
            return
        self.console.print(f"Game record saved to {path} (replay: python -m envs.records show {path})")

    def run(self) -> None:
        names = ", ".join(self.session.names)
        self.console.print(Text(f"{self.session.game.upper()} with {names}. Type help for help.", style="bold"))
        self.show_events(self.session.advance())
        while True:
            if self.session.over:
                if self.record_path and self._recorded != self.session.tally.games:  # once per game
                    self._recorded = self.session.tally.games
                    self.save("")
                answer = self.ask("Enter: next game · save FILE · quit > ")
                if answer is None or answer.strip().lower() in ("q", "quit", "exit"):
                    return
                if answer.strip().lower().startswith("save"):
                    self.save(answer.strip()[4:].strip())
                    continue
                self.show_events(self.session.next_game())
                continue
            self.show_table()
            action = self.read_move()
            if action is None:
                return
            self.show_events(self.session.act(action))
