"""The 108-card UNO deck, defined once for both games of the lab.

Every card is one of 54 *card types*: four colours times thirteen kinds (0-9, Skip,
Reverse, Draw Two), plus Wild and Wild Draw Four.  Engines store hands and piles as
type ids (small integers) and use the lookup arrays below for colour, kind, number and
point value, so a rule never needs to parse a name.

Notation (used in logs, positions, replays and human input)::

    R7  Y0  G5      number cards: colour letter + number
    GS  BR  Y+2     Skip, Reverse, Draw Two: colour letter + S / R / +2
    W   W+4         Wild, Wild Draw Four

Colour letters: R red, Y yellow, G green, B blue.  Note that ``BR`` is the *blue
Reverse* and ``RR`` the red Reverse: the first letter is always the colour.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from envs.core import read_int

COLOURS: tuple[str, ...] = ("R", "Y", "G", "B")
COLOUR_NAMES: tuple[str, ...] = ("red", "yellow", "green", "blue")
NUM_COLOURS = 4

#: Kinds 0-9 are the number cards; then the coloured action cards, then the wilds.
KIND_SKIP = 10
KIND_REVERSE = 11
KIND_DRAW_TWO = 12
KIND_WILD = 13
KIND_WILD_DRAW_FOUR = 14
KIND_SYMBOLS: tuple[str, ...] = tuple(str(n) for n in range(10)) + ("S", "R", "+2", "W", "W+4")
NUM_COLOURED_KINDS = 13

#: Type ids: colour * 13 + kind for coloured cards, then the two wild types.
NUM_COLOURED_TYPES = NUM_COLOURS * NUM_COLOURED_KINDS  # 52
WILD = 52
WILD_DRAW_FOUR = 53
NUM_CARD_TYPES = 54
DECK_SIZE = 108

#: Point values when a hand is counted (docs/uno.md, "Decisions and phases": end of a hand and scoring).
ACTION_CARD_POINTS = 20
WILD_CARD_POINTS = 50


def _build_tables() -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    names: list[str] = []
    colour, kind, number, value, copies = [], [], [], [], []
    for c, letter in enumerate(COLOURS):
        for k in range(NUM_COLOURED_KINDS):
            names.append(letter + KIND_SYMBOLS[k])
            colour.append(c)
            kind.append(k)
            number.append(k if k <= 9 else -1)
            value.append(k if k <= 9 else ACTION_CARD_POINTS)
            copies.append(1 if k == 0 else 2)
    for k in (KIND_WILD, KIND_WILD_DRAW_FOUR):
        names.append(KIND_SYMBOLS[k])
        colour.append(-1)
        kind.append(k)
        number.append(-1)
        value.append(WILD_CARD_POINTS)
        copies.append(4)
    as_array = lambda xs: np.array(xs, dtype=np.int16)  # noqa: E731
    return names, as_array(colour), as_array(kind), as_array(number), as_array(value), as_array(copies)


_names, TYPE_COLOUR, TYPE_KIND, TYPE_NUMBER, TYPE_VALUE, TYPE_COPIES = _build_tables()
#: Card name of each type id, e.g. ``TYPE_NAMES[7] == "R7"``.
TYPE_NAMES: tuple[str, ...] = tuple(_names)
for _table in (TYPE_COLOUR, TYPE_KIND, TYPE_NUMBER, TYPE_VALUE, TYPE_COPIES):
    _table.flags.writeable = False

#: The full deck as 108 type ids, in a fixed order (engines shuffle it).
DECK: np.ndarray = np.repeat(np.arange(NUM_CARD_TYPES, dtype=np.int8), TYPE_COPIES)
DECK.flags.writeable = False
assert DECK.size == DECK_SIZE

IS_NUMBER = TYPE_NUMBER >= 0
IS_WILD = TYPE_COLOUR < 0
IS_NUMBER.flags.writeable = False
IS_WILD.flags.writeable = False

_TYPE_BY_NAME = {name: t for t, name in enumerate(TYPE_NAMES)}


def card_type(name: str) -> int:
    """Type id of a card name such as ``"R7"``, ``"GS"``, ``"Y+2"``, ``"W+4"`` (case-insensitive)."""
    key = str(name).strip().upper()
    try:
        return _TYPE_BY_NAME[key]
    except KeyError:
        raise ValueError(
            f"unknown card {name!r}: a card is a colour letter (R, Y, G, B) followed by "
            "0-9, S (Skip), R (Reverse) or +2 (Draw Two), or one of W, W+4"
        ) from None


def card_name(type_id: int) -> str:
    """Card name of a type id (inverse of :func:`card_type`)."""
    return TYPE_NAMES[read_int(type_id, "a card type id", 0, NUM_CARD_TYPES - 1)]


def colour_index(letter: str) -> int:
    """Index 0-3 of a colour letter R, Y, G, B (case-insensitive)."""
    key = str(letter).strip().upper()
    if key not in COLOURS:
        raise ValueError(f"unknown colour {letter!r}: one of {', '.join(COLOURS)}")
    return COLOURS.index(key)


def counts_from_names(names: Iterable[str]) -> np.ndarray:
    """Count vector ``int64 [54]`` of a list of card names (int64: no count of a long list wraps)."""
    counts = np.zeros(NUM_CARD_TYPES, dtype=np.int64)
    for name in names:
        counts[card_type(name)] += 1
    return counts


def names_from_counts(counts: np.ndarray) -> list[str]:
    """Card names of a count vector, in type order (``["R1", "R1", "GS", "W"]``)."""
    counts = np.asarray(counts)
    return [TYPE_NAMES[t] for t in np.repeat(np.arange(NUM_CARD_TYPES), counts)]


def check_within_deck(counts: np.ndarray, what: str = "cards") -> None:
    """Raise ``ValueError`` if ``counts`` holds more copies of a card than the deck has."""
    counts = np.asarray(counts)
    excess = np.flatnonzero(counts > TYPE_COPIES)
    if excess.size:
        detail = ", ".join(f"{TYPE_NAMES[t]} x{int(counts[t])} (the deck has {int(TYPE_COPIES[t])})" for t in excess)
        raise ValueError(f"{what} hold more copies than the 108-card deck: {detail}")


def hand_points(counts: np.ndarray) -> np.ndarray:
    """Point value of hands given as counts ``[..., 54]`` (numbers face value, actions 20, wilds 50)."""
    return np.asarray(counts, dtype=np.int32) @ TYPE_VALUE.astype(np.int32)
