"""Play in the terminal: a rich table, your hand, the legal moves with keys, typed moves.

Everything shown comes from :class:`tabletop.session.TableSession` views; bad input gets
a message and the prompt again, and never changes the game. ``input_fn`` and ``console``
are parameters so tests can play a whole game with scripted input.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from tabletop.moves import Choice, MoveError
from tabletop.session import Event, TableSession
from tabletop.table_game import table_game

#: The terminal's help; ``{moves}``: how the game's moves are typed (its ``TableGame.help``).
HELP = (
    "Type a key from the list or the move itself: {moves}. "
    "Also: help, save FILE (the game record, once the game is over), quit."
)
#: Words that leave the game at any prompt (as end of input and Ctrl-C do).
QUIT_WORDS = ("q", "quit", "exit")
#: Words that leave a follow-up question (a Wild's colour) for the move prompt again ("b" is
#: blue: an answer of the question comes first).
BACK_WORDS = ("back", "cancel")


def phase_prompt(view: dict[str, Any]) -> str:
    """The question the person's phase asks (the game's ``prompt``)."""
    return table_game(view["game"]).prompt(view)


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
        standings = self.session.table.standings
        if standings is not None:
            self.console.print(standings(event.hand_over or {}, self.session.names, self.session.rules))

    def show_game_over(self, event: Event) -> None:
        self.console.print(Text((event.game_over or {})["line"], style="bold green"))
        tally = self.session.tally
        wins = ", ".join(f"{k} {v}" for k, v in sorted(tally.wins.items())) or "none yet"
        self.console.print(f"Games played: {tally.games}; wins: {wins}", markup=False)

    def show_table(self) -> None:
        for shown in self.session.table.panel(self.session.view()):
            self.console.print(shown)

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
                "  ".join(f"[{m['key']}] {m['label']}" + ("…" if len(m["actions"]) > 1 else "") for m in view["moves"]),
                markup=False,
            )
            text = self.ask("> ")
            if text is None or text.strip().lower() in QUIT_WORDS:
                return None
            command = text.strip()
            if command.lower() in ("h", "help", "?"):
                self.console.print(HELP.format(moves=self.session.table.help), markup=False)
                continue
            if command.lower().startswith("save"):
                self.save(command[4:].strip())
                continue
            try:
                parsed = self.session.parse(command)
                while isinstance(parsed, Choice):
                    answer = self.ask(f"{parsed.prompt} ({', '.join(parsed.labels)}; back, quit) > ")
                    if answer is None or answer.strip().lower() in QUIT_WORDS:
                        return None
                    if answer.strip().lower() in BACK_WORDS and answer.strip().lower() not in parsed.options:
                        break  # another move after all: the move prompt again
                    if answer.strip().lower() in ("h", "help", "?"):
                        self.console.print(f"Answer one of: {', '.join(parsed.labels)}; back: choose another move.")
                        continue
                    try:
                        parsed = parsed.resolve(answer)
                    except MoveError as err:
                        self.console.print(Text(str(err), style="red"))
                else:
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
        self.console.print(f"Game record saved to {path} (replay: python -m envs.records show {path})", markup=False)

    def run(self) -> None:
        """Play until the person quits (quit, end of input or Ctrl-C), saying so."""
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C leaves as quit does, without a traceback
            self._play()
        games = self.session.tally.games
        self.console.print(f"\nbye: {games} game{'s' * (games != 1)} finished", markup=False)

    def _play(self) -> None:
        names = ", ".join(self.session.names)
        self.console.print(Text(f"{self.session.game.upper()} with {names}. Type help for help.", style="bold"))
        self.show_events(self.session.advance())
        while True:
            if self.session.over:
                if self.record_path and self._recorded != self.session.tally.games:  # once per game
                    self._recorded = self.session.tally.games
                    self.save("")
                answer = self.ask("Enter: next game · save FILE · quit > ")
                if answer is None or answer.strip().lower() in QUIT_WORDS:
                    return
                if answer.strip().lower().startswith("save"):
                    self.save(answer.strip()[4:].strip())
                    continue
                if answer.strip():  # only Enter deals: "help" or a stray move is no next game
                    self.console.print("Enter deals the next game; or save FILE, or quit.")
                    continue
                self.show_events(self.session.next_game())
                continue
            self.show_table()
            action = self.read_move()
            if action is None:
                return
            self.show_events(self.session.act(action))
