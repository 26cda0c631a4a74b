"""A person's moves: the legal actions listed with short keys, and typed input read back.

The engine's legal mask decides what is allowed; this module only names those actions
the way a person types them (``R7``, ``W G``, ``draw``, ``7 +2``, a key such as ``3``; each
game's forms and words are its ``tabletop.table_game.TableGame``) and turns input back into
one action name, or into a follow-up question (the colour of a Wild). Bad input raises
:class:`MoveError` with a message that says what is allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tabletop.table_game import table_game


class MoveError(ValueError):
    """Input that is not a legal move now; the message says what is."""


@dataclass(frozen=True)
class Move:
    """One entry of the list a person chooses from: a key, a label, and its action(s).

    An entry may hold several actions (a Wild: one per colour): choosing it asks the game's
    follow-up question (``TableGame.follow_up``: the colour).
    """

    key: str
    label: str
    actions: tuple[str, ...]
    asks_for: str = ""  # what its follow-up question asks, as the list shows it ("colour")

    @property
    def asks(self) -> bool:
        """Choosing it asks a follow-up question (which of its actions)."""
        return len(self.actions) > 1


@dataclass(frozen=True)
class Choice:
    """A follow-up question: ``options`` maps each accepted answer to an action name."""

    prompt: str
    options: dict[str, str]
    labels: tuple[str, ...]

    def resolve(self, answer: str) -> str:
        typed = " ".join(answer.split()).lower()
        action = self.options.get(typed)
        if action is None:  # a label typed out in full, as listed ("3 G (green)"): its key
            keys = [label.split()[0].lower() for label in self.labels if label.lower() == typed and label.split()]
            action = self.options.get(keys[0]) if keys else None
        if action is None:
            raise MoveError(f"{answer.strip()!r} is not one of: {', '.join(self.labels)}")
        return action


def list_moves(game: str, legal: Sequence[str]) -> list[Move]:
    """The legal actions as numbered entries (a Wild's four colours form one entry). Where the
    game asks for a number (its ``counted`` phases: ``draw 2``, ``return 8``), that number is
    the entry's key, as typing it answers the question."""
    table = table_game(game)
    labels: dict[str, list[str]] = {}
    for action in legal:
        labels.setdefault(table.label(action), []).append(action)
    return [
        Move(_key(table.counted, k, actions), label, tuple(actions), table.asks_for if len(actions) > 1 else "")
        for k, (label, actions) in enumerate(labels.items(), start=1)
    ]


def _key(counted: Sequence[str], position: int, actions: Sequence[str]) -> str:
    """An entry's key: its position in the list, or the number a counted question takes."""
    verb, _, number = actions[0].partition(" ")
    return number if len(actions) == 1 and verb in counted and number.isdecimal() else str(position)


def _forms(game: str, action: str) -> set[str]:
    """Every way of typing ``action`` (lower case, single spaces): its name and the game's forms."""
    return {action.lower()} | table_game(game).forms(action)


def describe(moves: Sequence[Move]) -> str:
    """``1 R7, 2 W (+colour), 3 draw``: the list a prompt shows (``+`` what its question asks)."""
    return ", ".join(f"{m.key} {m.label}" + (f" (+{m.asks_for})" if m.asks else "") for m in moves)


def parse_move(
    game: str, text: str, moves: Sequence[Move], hand: Sequence[str] = (), phase: str | None = None
) -> str | Choice:
    """The action a person's input means, or the question that completes it.

    Accepted: a key from the list (``3``), an action name (``play R7``), the card
    notation (``R7``, ``W G``, ``W+4 blue``; a Wild alone asks for the colour), a word
    (``draw``) or its first letter, and in the trick game ``7 +2`` or ``lay 7``; where the
    trick game asks how many cards to draw or which number to put back, a number is that
    answer (the game's ``counted`` phases), not a key.
    """
    typed = " ".join(text.split())
    if not typed:
        raise MoveError(f"type a move: {describe(moves)}")
    table = table_game(game)
    by_key = {m.key: m for m in moves}
    if typed.isdecimal() and phase in table.counted:  # "how many do you draw?" "2": 2, not key 2
        answer = f"{phase} {int(typed)}"  # the phase is named after its move
        if any(answer in m.actions for m in moves):
            return answer
        raise MoveError(
            f"{answer!r} is not a legal move here (a number answers the question); legal: {describe(moves)}"
        )
    if typed.isdecimal():
        if typed not in by_key:
            raise MoveError(f"no move has key {typed}; keys 1-{len(moves)}: {describe(moves)}")
        move = by_key[typed]
        return table.follow_up(move) if move.asks else move.actions[0]
    lowered = typed.lower()
    word = table.shortcuts.get(lowered)
    for move in moves:
        if move.asks and lowered == move.label.lower():
            return table.follow_up(move)
        for action in move.actions:
            if lowered in _forms(game, action) or word == action:
                return action
    raise MoveError(_explain(game, typed, moves, hand, phase))


def _explain(game: str, typed: str, moves: Sequence[Move], hand: Sequence[str], phase: str | None) -> str:
    table = table_game(game)
    legal = describe(moves)
    lowered = typed.lower()
    word = table.shortcuts.get(lowered, lowered).split(" ")[0]  # "swap 2": the move "swap"
    if word in table.word_moves:  # a move of the game, just not one to make now
        task = table.phase_tasks.get(phase or "")
        now = f" Now you {task}." if task else ""
        return f"{word!r} is a move, but not now: {table.word_moves[word]}.{now} Legal: {legal}"
    return table.explain(typed, hand, legal) or f"{typed!r} is not a legal move now. Legal: {legal}"
