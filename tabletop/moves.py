"""A person's moves: the legal actions listed with short keys, and typed input read back.

The engine's legal mask decides what is allowed; this module only names those actions
the way a person types them (``R7``, ``W G``, ``draw``, ``7 +2``, a key such as ``3``)
and turns input back into one action name, or into a follow-up question (the colour of a
Wild). Bad input raises :class:`MoveError` with a message that says what is allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from envs.cards import COLOUR_NAMES, COLOURS, card_type

#: One-letter shortcuts for the word actions (used only when that action is legal).
SHORTCUTS = {
    "uno": {"d": "draw", "p": "pass", "c": "challenge", "a": "accept", "u": "uno", "s": "silent"},
    "tricks": {"k": "keep"},
}


#: What each word move is for, said when it is typed at a moment it is not legal.
WORD_MOVES = {
    "uno": {
        "draw": "it draws a card, or the draw cards stacked on you (with draw_anytime off, only when "
        "no card of yours can be played)",
        "pass": "it keeps a card you have just drawn",
        "challenge": "it answers a Wild Draw Four played on you",
        "accept": "it answers a Wild Draw Four played on you",
        "uno": "it is said right after you play your second-to-last card",
        "silent": "it is said right after you play your second-to-last card",
        "swap": "it follows your own 7 under the seven_zero rule: swap hands with the player that many "
        "seats on in the direction of play",
    },
    "tricks": {"keep": "it answers your own Reverse: the table stays as it is"},
}
#: What the person is asked to do in each phase (the engine's phase names).
PHASE_TASKS = {
    "uno": {
        "play": "play a card",
        "drawn": "play the card you drew (or keep it with pass, where the rules let you)",
        "challenge": "challenge or accept the Wild Draw Four played on you",
        "uno": "declare UNO (uno) or stay silent",
        "colour": "name the colour of the starting Wild",
        "swap": "choose whom to swap hands with (swap 1: the next player in the direction of play)",
    },
    "tricks": {
        "lay": "lay a number card",
        "draw": "draw number cards",
        "return": "put number cards back under the pile",
        "swap": "swap table cards or keep the table",
    },
}


class MoveError(ValueError):
    """Input that is not a legal move now; the message says what is."""


@dataclass(frozen=True)
class Move:
    """One entry of the list a person chooses from: a key, a label, and its action(s).

    A Wild is one entry with four actions (one per colour): choosing it asks for the colour.
    """

    key: str
    label: str
    actions: tuple[str, ...]

    @property
    def needs_colour(self) -> bool:
        return len(self.actions) > 1


@dataclass(frozen=True)
class Choice:
    """A follow-up question: ``options`` maps each accepted answer to an action name."""

    prompt: str
    options: dict[str, str]
    labels: tuple[str, ...]

    def resolve(self, answer: str) -> str:
        action = self.options.get(answer.strip().lower())
        if action is None:
            raise MoveError(f"{answer.strip()!r} is not one of: {', '.join(self.labels)}")
        return action


def _group(game: str, action: str) -> tuple[str, str]:
    """(label, colour suffix) of an action: ``play W G`` -> ("W", "G"); others have no suffix."""
    if game == "uno" and action.startswith("play W"):
        card, colour = action[len("play ") :].rsplit(" ", 1)
        return card, colour
    if game == "uno" and action.startswith("play "):
        return action[len("play ") :], ""
    return action, ""


def list_moves(game: str, legal: Sequence[str]) -> list[Move]:
    """The legal actions as numbered entries (a Wild's four colours form one entry)."""
    labels: dict[str, list[str]] = {}
    for action in legal:
        label, _ = _group(game, action)
        labels.setdefault(label, []).append(action)
    return [Move(str(k), label, tuple(actions)) for k, (label, actions) in enumerate(labels.items(), start=1)]


def colour_choice(move: Move) -> Choice:
    """The question that completes a Wild: which colour it names."""
    options: dict[str, str] = {}
    labels = []
    for key, action in enumerate(move.actions, start=1):
        letter = action.rsplit(" ", 1)[1]
        name = COLOUR_NAMES[COLOURS.index(letter)]
        for answer in (str(key), letter.lower(), name, name[0]):
            options[answer] = action
        labels.append(f"{key} {letter} ({name})")
    return Choice(f"Colour for {move.label}?", options, tuple(labels))


def _forms(game: str, action: str) -> set[str]:
    """Every way of typing ``action`` (lower case, single spaces)."""
    forms = {action.lower()}
    verb, _, rest = action.partition(" ")
    if game == "uno" and verb == "play":
        forms.add(rest.lower())
        if rest.startswith("W"):
            card, letter = rest.rsplit(" ", 1)
            forms.add(f"{card} {COLOUR_NAMES[COLOURS.index(letter)]}".lower())
    elif game == "uno" and verb == "colour":
        name = COLOUR_NAMES[COLOURS.index(rest)]
        forms |= {rest.lower(), name, f"colour {name}", f"color {rest.lower()}", f"color {name}"}
    elif game == "tricks" and rest and not rest.isdigit():
        forms.add(rest.lower())  # "7 +2" for "lay 7 +2" (a bare number is a key)
    return forms


#: The trick game's phases whose question a number answers: "2" there is ``draw 2`` / ``return 2``, not key 2.
COUNTED = ("draw", "return")


def describe(moves: Sequence[Move]) -> str:
    """``1 R7, 2 W (+colour), 3 draw``: the list a prompt shows."""
    return ", ".join(f"{m.key} {m.label}" + (" (+colour)" if m.needs_colour else "") for m in moves)


def parse_move(
    game: str, text: str, moves: Sequence[Move], hand: Sequence[str] = (), phase: str | None = None
) -> str | Choice:
    """The action a person's input means, or the question that completes it.

    Accepted: a key from the list (``3``), an action name (``play R7``), the card
    notation (``R7``, ``W G``, ``W+4 blue``; a Wild alone asks for the colour), a word
    (``draw``) or its first letter, and in the trick game ``7 +2`` or ``lay 7``; where the
    trick game asks how many cards to draw or which number to put back, a number is that
    answer (:data:`COUNTED`), not a key.
    """
    typed = " ".join(text.split())
    if not typed:
        raise MoveError(f"type a move: {describe(moves)}")
    by_key = {m.key: m for m in moves}
    if game == "tricks" and typed.isdigit() and phase in COUNTED:  # "how many do you draw?" "2": 2, not key 2
        answer = f"{phase} {int(typed)}"  # the phase is named after its move
        if any(answer in m.actions for m in moves):
            return answer
        raise MoveError(
            f"{answer!r} is not a legal move here (a number answers the question); legal: {describe(moves)}"
        )
    if typed.isdigit():
        if typed not in by_key:
            raise MoveError(f"no move has key {typed}; keys 1-{len(moves)}: {describe(moves)}")
        move = by_key[typed]
        return colour_choice(move) if move.needs_colour else move.actions[0]
    lowered = typed.lower()
    word = SHORTCUTS.get(game, {}).get(lowered)
    for move in moves:
        if move.needs_colour and lowered == move.label.lower():
            return colour_choice(move)
        for action in move.actions:
            if lowered in _forms(game, action) or word == action:
                return action
    raise MoveError(_explain(game, typed, moves, hand, phase))


def _explain(game: str, typed: str, moves: Sequence[Move], hand: Sequence[str], phase: str | None) -> str:
    legal = describe(moves)
    lowered = typed.lower()
    word = SHORTCUTS.get(game, {}).get(lowered, lowered).split(" ")[0]  # "swap 2": the move "swap"
    if word in WORD_MOVES.get(game, {}):  # a move of the game, just not one to make now
        task = PHASE_TASKS.get(game, {}).get(phase or "")
        now = f" Now you {task}." if task else ""
        return f"{word!r} is a move, but not now: {WORD_MOVES[game][word]}.{now} Legal: {legal}"
    if game == "uno":
        card = typed.split(" ")[0].upper()
        try:
            card_type(card)
        except ValueError:
            return f"{typed!r} is not a move (cards are written like R7, GS, BR, Y+2, W, W+4). Legal: {legal}"
        if hand and card not in hand:
            return f"you do not hold {card}. Legal: {legal}"
        return f"{card} cannot be played now. Legal: {legal}"
    return f"{typed!r} is not a legal move now. Legal: {legal}"
