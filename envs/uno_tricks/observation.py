"""Layout of the trick game's observation, and its decoder.

``float32[161]``: what the player to act may know, nothing else. Relative seats count
from the observer in seat order: slot 0 is the observer, slot 2 its partner, slots 1
and 3 the opponents (slot 1 lays after the observer). Teams are "own" and "other".

=====================  ====  ==============================================================
field                  size  content
=====================  ====  ==============================================================
``numbers``              10  own number cards, per number 0-9
``specials``              5  own special cards: skip, reverse, +2, wild, +4
``table_laid``            4  1 where that relative seat has laid this trick
``table_number``         40  per relative seat, one-hot number of its laid card
``table_forced``          4  1 where the laid card is a forced duplicate (worth 0)
``table_added``          40  per relative seat, one-hot number of the card its Wild added
``table_value``           4  what each seat's cards are worth in this trick now
``table_specials``       20  per relative seat, the specials it laid this trick (skip,
                             reverse, +2, wild, +4); they stay with the seat
                             when a Reverse swaps the cards
``annulled``              1  a Skip was laid this trick: its points are annulled
``team_points``           2  points in the own team's and the other team's piles
``trick``                 1  trick number, from 1
``leader``                4  one-hot relative seat of this trick's leader
``numbers_out``          10  number cards in the two points piles (out of play), per number
``hand_sizes``            4  number cards held per relative seat
``special_counts``        4  special cards held per relative seat
``number_pile_size``      1  cards in the number pile
``special_pile_size``     1  cards in the special pile
``phase``                 4  one-hot: lay, draw, return, swap
``draw_limit``            1  phase draw: most number cards the +2 (2) or +4 (4) may take
``returns_left``          1  phase return: cards still to put back
=====================  ====  ==============================================================

:func:`decode` turns a batch of observations back into named arrays.
"""

from __future__ import annotations

import numpy as np

from envs.cards import (
    DECK_SIZE,
    KIND_DRAW_TWO,
    KIND_REVERSE,
    KIND_SKIP,
    KIND_WILD,
    KIND_WILD_DRAW_FOUR,
    TYPE_COPIES,
    TYPE_NUMBER,
)
from envs.layout import Field, build_layout, entry_names, layout_bounds
from envs.uno_tricks.rules import PLUS4_DRAW, TricksRules

#: The deck's number cards (76), special cards (32), and the points all number cards make (360).
NUMBER_CARDS = int(TYPE_COPIES[TYPE_NUMBER >= 0].sum())
SPECIAL_CARDS = DECK_SIZE - NUMBER_CARDS
ALL_POINTS = int((np.maximum(TYPE_NUMBER, 0) * TYPE_COPIES).sum())

#: The phases of a turn, named once (the observation's one-hot has the first four; "over":
#: a finished game with no move); the kernels use the ids.
PHASE_NAMES: tuple[str, ...] = ("lay", "draw", "return", "swap", "over")
LAY, DRAW, RETURN, SWAP, OVER = range(len(PHASE_NAMES))
PHASES = PHASE_NAMES[:OVER]
#: The special kinds (card kinds of ``envs.cards``) by name, in observation order: the order of
#: the ``specials`` and ``table_specials`` counts, which the kernel and positions index by.
SPECIALS: dict[str, int] = {
    "skip": KIND_SKIP,
    "reverse": KIND_REVERSE,
    "+2": KIND_DRAW_TWO,
    "wild": KIND_WILD,
    "+4": KIND_WILD_DRAW_FOUR,
}
SPECIAL_NAMES: tuple[str, ...] = tuple(SPECIALS)
SPECIAL_KINDS: tuple[int, ...] = tuple(SPECIALS.values())


FIELDS: dict[str, Field] = build_layout(
    [
        ("numbers", 10, NUMBER_CARDS),
        ("specials", 5, 8),
        ("table_laid", 4, 1),
        ("table_number", 40, 1),
        ("table_forced", 4, 1),
        ("table_added", 40, 1),
        ("table_value", 4, 18),
        ("table_specials", 20, 2),
        ("annulled", 1, 1),
        ("team_points", 2, ALL_POINTS),
        ("trick", 1, 1e6),  # see observation_bounds
        ("leader", 4, 1),
        ("numbers_out", 10, 8),
        ("hand_sizes", 4, NUMBER_CARDS),
        ("special_counts", 4, SPECIAL_CARDS),
        ("number_pile_size", 1, NUMBER_CARDS),
        ("special_pile_size", 1, SPECIAL_CARDS),
        ("phase", PHASES, 1),  # one entry per phase, named
        ("draw_limit", 1, PLUS4_DRAW),
        ("returns_left", 1, NUMBER_CARDS),
    ]
)
OBS_SIZE: int = sum(f.size for f in FIELDS.values())
assert OBS_SIZE == 161
OBS_NAMES: tuple[str, ...] = entry_names(FIELDS)  # each value's name (checkpoints record them)


def observation_bounds(rules: TricksRules) -> tuple[np.ndarray, np.ndarray]:
    """Low and high of every observation value (the trick count has no fixed end under the
    literal exchange rule; a large finite bound keeps Gymnasium's checker content)."""
    low, high = layout_bounds(FIELDS)
    high[FIELDS["trick"].slice] = 11 if rules.exchange_returns == "drawn" else 1e6  # 11 once the game is over
    return low, high


def decode(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Named fields of observations ``[..., 161]`` (counts as ``int64``; one-hots also as
    indices: ``leader`` and ``phase``; per-seat one-hots as ``[..., 4]`` numbers, -1 if none)."""
    obs = np.asarray(obs)
    if obs.shape[-1] != OBS_SIZE:
        raise ValueError(f"an observation has {OBS_SIZE} values, got shape {obs.shape}")
    out = {name: np.rint(obs[..., f.slice]).astype(np.int64) for name, f in FIELDS.items()}
    for name in ("leader", "phase"):
        onehot = out[name]
        out[name] = np.where(onehot.any(axis=-1), onehot.argmax(axis=-1), -1)
    for name in ("table_number", "table_added"):
        per_seat = out[name].reshape(*obs.shape[:-1], 4, 10)
        out[name] = np.where(per_seat.any(axis=-1), per_seat.argmax(axis=-1), -1)
    out["table_specials"] = out["table_specials"].reshape(*obs.shape[:-1], 4, 5)
    for name in ("annulled", "trick", "number_pile_size", "special_pile_size", "draw_limit", "returns_left"):
        out[name] = out[name][..., 0]
    return out
