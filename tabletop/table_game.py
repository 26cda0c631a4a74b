"""What the play screens know of one game, in one object per game.

The session, the move reader, the terminal and the web page are the same for every game;
what differs is presentation: what a seat sees of a position, how a person types a move,
the sentence a move makes, the terminal's table. A game's :class:`TableGame` holds those
pieces (``tabletop/uno_table.py``, ``tabletop/tricks_table.py``), and the game's descriptor
(``envs.games.Game.tabletop``) names it, so there is no second list of the games here.
None of it decides a rule: legality, swap targets and results come from the engine.

A view is a whitelist of the engine's ``position(i)``: the terminal and the web page show
only views, and the web page receives nothing else, so it cannot show (or leak) another
player's cards, the draw pile's order, whether a Wild Draw Four was a bluff, or the random
stream.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from envs.cards import card_type
from envs.games import game, resolve

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tabletop.moves import Choice, Move
    from tabletop.session import Event, TableSession

View = dict[str, Any]
Position = dict[str, Any]


@dataclass(frozen=True)
class TableGame:
    """One game's presentation at the table (each field says who asks for it)."""

    #: views: seat ``seat``'s whitelist of a position, ``view(pos, seat, rules, names)``.
    view: Callable[[Position, int, Any, list[str]], View]
    #: views: the seat each ``swap k`` of the player to act takes (the engine's rule).
    swap_seats: Callable[[Position], dict[str, int]]
    #: moves: the entry an action is listed under (``play W G`` -> ``W``: a Wild's four colours
    #: are one entry, whose choice asks the follow-up question below).
    label: Callable[[str], str]
    #: moves: the question that completes an entry of several actions (a Wild: its colour)...
    follow_up: Callable[[Move], Choice]
    #: ...and what it asks, as the list of moves shows it (``W (+colour)``).
    asks_for: str
    #: moves: the extra ways of typing an action (lower case), besides its name.
    forms: Callable[[str], set[str]]
    #: moves: why typed text that names no legal move is wrong, where the game can say more
    #: than "not a legal move" (``explain(typed, hand, legal)``; None: nothing more).
    explain: Callable[[str, Sequence[str], str], str | None]
    #: moves: one-letter shortcuts for word actions.
    shortcuts: Mapping[str, str]
    #: moves: what each word move is for, said when it is typed at a moment it is not legal.
    word_moves: Mapping[str, str]
    #: moves: what the person is asked to do in each phase (the engine's phase names).
    phase_tasks: Mapping[str, str]
    #: moves: the phases whose question a bare number answers (``draw 2``, not key 2).
    counted: tuple[str, ...]
    #: terminal: how this game's moves are typed, for ``help``.
    help: str
    #: session: the sentence of one move, filling ``event`` (text, hand_over, trick_over).
    story: Callable[[TableSession, Event, Position, Position], None]
    #: session: what a freshly dealt hand's first card did (None: nothing to tell).
    opening: Callable[[TableSession, Position], str | None]
    #: session: the finished game's result, counted into the session's tally.
    game_over: Callable[[TableSession, list[int], list[int]], dict[str, Any]]
    #: terminal: the table, the top of the board and the person's cards.
    panel: Callable[[View], list[RenderableType]]
    #: terminal: the question the person's phase asks.
    prompt: Callable[[View], str]
    #: terminal: the line that announces the finished game.
    over_line: Callable[[dict[str, Any]], str]
    #: terminal: the standings after a hand of a match (``event.hand_over``; None: no hands).
    standings: Callable[[dict[str, Any], list[str], Any], RenderableType] | None = None
    #: web page: what its setup form offers for this game beyond policies and table sizes.
    page_options: Mapping[str, Any] = field(default_factory=dict)


def table_game(name: str) -> TableGame:
    """The play screens' presentation of a game (``ValueError`` for an unknown game)."""
    table = resolve(game(name).tabletop)
    if not isinstance(table, TableGame):
        raise TypeError(f"{game(name).tabletop} is not a TableGame")
    return table


def sorted_cards(names: Sequence[str]) -> list[str]:
    """Cards in the deck's order (colour, then value): how every hand is shown."""
    return sorted(names, key=card_type)
