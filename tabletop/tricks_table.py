"""The trick game at the table: what a seat sees, how moves are typed and told, the terminal's board.

Presentation only (``tabletop.table_game`` says who asks for each piece): the engine's
position, legal mask and rules decide everything shown here. Teams are the descriptor's
sides (``envs.games``: partners sit opposite), named A (seats 0 and 2) and B.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from envs.games import game
from envs.uno_tricks.positions import face
from envs.uno_tricks.rules import NUM_PLAYERS, TEAM_NAMES
from tabletop.moves import Choice, Move
from tabletop.table_game import Position, TableGame, View, sorted_cards
from tabletop.terminal_cards import cards_text

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tabletop.session import Event, TableSession

SEATS = NUM_PLAYERS


def team_name(seat: int) -> str:
    """``A`` for seats 0 and 2, ``B`` for 1 and 3 (the descriptor's sides)."""
    return TEAM_NAMES[game("tricks").side_of(seat, SEATS)]


# ---------------------------------------------------------------------- what a seat sees
def _table_entry(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    """A seat's cards on the table as every seat sees them: faces without colours (``face``)."""
    if entry is None:
        return None
    return {
        "card": face(entry["card"]),
        "forced": bool(entry.get("forced", False)),
        "added": face(entry["added"]) if entry.get("added") else None,
        "specials": [face(s) for s in entry.get("specials") or []],
    }


def view(pos: Position, seat: int, rules: Any, names: list[str]) -> View:
    """Seat ``seat``'s view of a trick-game position (table cards are face up)."""
    points = pos.get("points", [0, 0])
    players = [
        {
            "seat": p,
            "name": names[p],
            "team": team_name(p),
            "numbers": len(pos["hands"][p]),
            "specials": len(pos["specials"][p]),
            "table": _table_entry(pos["table"][p]),
            "you": p == seat,
            "partner": p != seat and team_name(p) == team_name(seat),
        }
        for p in range(SEATS)
    ]
    return {
        "game": "tricks",
        "seat": seat,
        "num_players": SEATS,
        "players": players,
        "hand": sorted(sorted_cards(pos["hands"][seat]), key=face),  # by number: colours never matter here
        "specials": sorted_cards(pos["specials"][seat]),
        "team": team_name(seat),
        "points": dict(zip(TEAM_NAMES, points, strict=True)),
        "trick": pos.get("trick", 1),
        "leader": pos["leader"],
        "annulled": bool(pos.get("annulled", False)),
        "number_pile": len(pos["number_pile"]),
        "special_pile": len(pos["special_pile"]),
        "current_player": pos["current_player"],
        "phase": pos["phase"],
        "draw_limit": pos.get("draw_limit", 0) if pos["current_player"] == seat else None,
        "returns_left": pos.get("returns_left", 0) if pos["current_player"] == seat else None,
        # after a Reverse: the seat each "swap k" takes the table card of (the engine's rule)
        "swap_seats": swap_seats(pos) if pos["phase"] == "swap" else None,
    }


def swap_seats(pos: Position) -> dict[str, int]:
    """After a Reverse: ``swap k`` takes the table card of the seat ``k`` places on in seat
    order (the engine's ``swap_target``)."""
    from envs.uno_tricks.kernel import KEEP_SEATS_ON, swap_target

    current = pos["current_player"]
    return {f"swap {k}": int(swap_target(current, k)) for k in range(1, KEEP_SEATS_ON)}


# ---------------------------------------------------------------------- typed moves
def label(action: str) -> str:
    return action  # every action is its own entry: no follow-up question


def follow_up(move: Move) -> Choice:
    raise ValueError(f"{move.label!r} is one action here, with no question to follow")


def forms(action: str) -> set[str]:
    """``7 +2`` for ``lay 7 +2`` (a bare number is a key, or the answer to a counted question)."""
    _, _, rest = action.partition(" ")
    return {rest.lower()} if rest and not rest.isdecimal() else set()


def explain(typed: str, hand: Sequence[str], legal: str) -> None:
    return None  # nothing to say beyond "not a legal move now"


#: The phases whose question a number answers: "2" there is ``draw 2`` / ``return 2``, not key 2.
COUNTED = ("draw", "return")
SHORTCUTS = {"k": "keep"}
WORD_MOVES = {"keep": "it answers your own Reverse: the table stays as it is"}
PHASE_TASKS = {
    "lay": "lay a number card",
    "draw": "draw number cards",
    "return": "put number cards back under the pile",
    "swap": "swap table cards or keep the table",
}
HELP = "lay 7, 7 +2, draw 2, return 5, swap 1, keep"


# ---------------------------------------------------------------------- what happened
def story(session: TableSession, event: Event, before: Position, after: Position) -> None:
    """The sentence of one move (another player's returned card stays unnamed) and the trick's end."""
    eng, p, action = session.engine, event.player, event.action
    who = session.who(p)
    verb, _, rest = action.partition(" ")
    if verb == "lay":
        number, _, special = rest.partition(" ")
        text = f"{who} laid {number}" + (f" with {special}" if special else "")
    elif verb == "draw":
        text = f"{who} drew {rest} number card{'s' if rest != '1' else ''}"
        got = session.received(before, after)
        if got:
            text += f" ({' '.join(got)})"
    elif verb == "return":
        if p == session.seat:
            text = f"You put {rest} back under the pile"
        else:
            text, event.action = f"{who} put a card back under the pile", "return a card"
    elif verb == "swap":
        other = swap_seats(before)[action]
        text = f"{who} swapped table cards with {session.who(other, 'you')}"
    else:
        text = f"{who} kept the table as it is"
    if eng.trick_ended[0]:
        winner = int(eng.trick_winner[0])
        gained = [a - b for a, b in zip(after["points"], before["points"], strict=True)]
        trick = before.get("trick", 1)
        if winner >= 0:
            text += f". Trick {trick} goes to team {TEAM_NAMES[winner]} (+{gained[winner]})"
        else:
            text += f". Trick {trick} is annulled or tied: its cards go under the pile"
        event.trick_over = {
            "trick": trick,
            "winner": TEAM_NAMES[winner] if winner >= 0 else None,
            "points": dict(zip(TEAM_NAMES, after["points"], strict=True)),
        }
    event.text = text


def opening(session: TableSession, pos: Position) -> None:
    return None  # a deal starts with nothing on the table to tell


def game_over(session: TableSession, winners: list[int], scores: list[int]) -> dict[str, Any]:
    """The winning team(s) and each team's points; the tally counts wins and sums points per team."""
    teams = sorted({team_name(s) for s in winners})
    points = dict(zip(TEAM_NAMES, scores, strict=False))
    for team in teams:
        session.tally.wins[team] = session.tally.wins.get(team, 0) + 1
    for team, value in points.items():
        session.tally.points[team] = session.tally.points.get(team, 0) + value
    return {"winners": winners, "teams": teams, "points": points}


def over_line(info: dict[str, Any]) -> str:
    pts = info["points"]
    result = f"team {' and '.join(info['teams'])} wins" if info["teams"] else "a draw"
    return f"Game over: team A {pts['A']}, team B {pts['B']}: {result}"


# ---------------------------------------------------------------------- the terminal
def board(seen: View) -> Table:
    """Each seat's team, cards left and table card, with whose turn it is."""
    pts = seen["points"]
    title = f"Trick game · trick {seen['trick']} · team A {pts['A']} · team B {pts['B']}"
    if seen["annulled"]:
        title += " · annulled by a Skip"
    table = Table(title=title, expand=False)
    for col in ("", "player", "team", "numbers", "specials", "on the table"):
        table.add_column(col)
    for p in seen["players"]:
        turn = "▶" if p["seat"] == seen["current_player"] and not seen["over"] else ""
        entry = p["table"]
        laid = "-"
        if entry:
            laid = entry["card"] + (" (duplicate: 0)" if entry["forced"] else "")
            if entry["added"]:
                laid += f" + {entry['added']} (wild)"
            if entry["specials"]:
                laid += " with " + " ".join(entry["specials"])
        table.add_row(turn, p["name"], p["team"], str(p["numbers"]), str(p["specials"]), laid)
    return table


def panel(seen: View) -> list[RenderableType]:
    numbers = " ".join(c[1:] for c in seen["hand"])
    return [board(seen), Text(f"Your numbers: {numbers}   specials: ").append_text(cards_text(seen["specials"]))]


def prompt(seen: View) -> str:
    """The question the person's phase asks."""
    phase = seen["phase"]
    if phase == "draw":
        return f"How many number cards do you draw? (type 0-{seen['draw_limit']})"
    if phase == "return":
        return f"Put a number card back under the pile: type its number ({seen['returns_left']} to go)"
    if phase == "swap":
        return "Reverse: swap your table card with another seat's, or keep"
    return "Lay a number card (with a special if you like)"


TRICKS_TABLE = TableGame(
    view=view,
    swap_seats=swap_seats,
    label=label,
    follow_up=follow_up,
    asks_for="",
    forms=forms,
    explain=explain,
    shortcuts=SHORTCUTS,
    word_moves=WORD_MOVES,
    phase_tasks=PHASE_TASKS,
    counted=COUNTED,
    help=HELP,
    story=story,
    opening=opening,
    game_over=game_over,
    panel=panel,
    prompt=prompt,
    over_line=over_line,
)
