"""The four colours are alike in classic UNO: relabelling them maps a view to a view.

No rule of docs/uno.md names a colour: a position with red and blue swapped everywhere (the
hands, the piles, the colour in force, the history) is exactly as good for every player whose
play treats the colours alike, and the move "play R7" there is the move "play B7" here. (Some
scripted policies break ties in colour order, red first; a network that sees canonical colours
cannot exploit that, so a best response trained with them may find a little less to exploit.)
A network that sees every view with its colours put in one canonical order
(:func:`canonical_order`) learns each situation once instead of up to 24 times
(``colour_symmetry`` in ``agents.ppo_config``). The order ties where colours score alike
(about one view in seven in random play); the tie goes by colour order, so there twins may
still look different to the network.

This module states how each part of the observation and of the action space carries colours:
:data:`CARD_FIELDS` index card types, :data:`COLOUR_FIELDS` colours, :data:`SEAT_COLOUR_FIELDS`
a colour per relative seat, and :data:`COLOURLESS_FIELDS` none. Every observation field is in
exactly one of them (checked on import), so a field added to the layout must be placed here.
"""

from __future__ import annotations

import itertools

import numpy as np

from envs.cards import NUM_CARD_TYPES, NUM_COLOURED_KINDS, NUM_COLOURS, TYPE_COLOUR, TYPE_KIND
from envs.uno import actions as A
from envs.uno.observation import FIELDS, OBS_SIZE
from envs.uno.rules import MAX_PLAYERS

CARD_FIELDS = ("hand", "top_card", "discard_counts", "drawn_card", "revealed_hand")
COLOUR_FIELDS = ("colour", "challenge_colour")
SEAT_COLOUR_FIELDS = ("void_colours", "void_draws", "chosen_colours")  # [seat, colour], colour fastest
COLOURLESS_FIELDS = (
    "direction",
    "num_players",
    "hand_sizes",
    "uno_declared",
    "scores",
    "draw_pile_size",
    "discard_pile_size",
    "phase",
    "pending_draw",
    "revealed_seat",
)
_PLACED = CARD_FIELDS + COLOUR_FIELDS + SEAT_COLOUR_FIELDS + COLOURLESS_FIELDS
assert sorted(_PLACED) == sorted(FIELDS), "every observation field must be placed in one colour group"

#: The 24 relabellings: ``PERMUTATIONS[p][c]`` is the colour that colour ``c`` becomes.
PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(NUM_COLOURS)))


def card_types(perm: tuple[int, ...]) -> np.ndarray:
    """The card type each type becomes ``[54]`` (a wild stays itself)."""
    out = np.arange(NUM_CARD_TYPES)
    coloured = TYPE_COLOUR >= 0
    out[coloured] = np.asarray(perm)[TYPE_COLOUR[coloured]] * NUM_COLOURED_KINDS + TYPE_KIND[coloured]
    return out


def observation_sources(perm: tuple[int, ...]) -> np.ndarray:
    """For each observation value of the relabelled view, the value of the view it comes from
    ``[OBS_SIZE]``: ``relabelled = obs[..., observation_sources(perm)]``."""
    dest = np.arange(OBS_SIZE)
    colour = np.asarray(perm)
    for name in CARD_FIELDS:
        dest[FIELDS[name].slice] = FIELDS[name].start + card_types(perm)
    for name in COLOUR_FIELDS:
        dest[FIELDS[name].slice] = FIELDS[name].start + colour
    seat_colour = (np.arange(MAX_PLAYERS)[:, None] * NUM_COLOURS + colour).ravel()
    for name in SEAT_COLOUR_FIELDS:
        dest[FIELDS[name].slice] = FIELDS[name].start + seat_colour
    return np.argsort(dest)


def action_targets(perm: tuple[int, ...]) -> np.ndarray:
    """The action each action becomes under the relabelling ``[NUM_ACTIONS]``: a card's play
    plays the relabelled card, a named colour is the relabelled colour, the rest stay."""
    out = np.arange(A.NUM_ACTIONS)
    out[: A.PLAY_WILD] = card_types(perm)[: A.PLAY_WILD]
    for first in (A.PLAY_WILD, A.PLAY_WILD_DRAW_FOUR, A.CHOOSE_COLOUR):
        out[first : first + NUM_COLOURS] = first + np.asarray(perm)
    return out


def canonical_weights() -> np.ndarray:
    """``[OBS_SIZE, 4]``: ``obs @ canonical_weights()`` scores each colour for
    :func:`canonical_order`: the colour in force far first, then the most cards of the colour
    in the own hand, then the most of it on the discard pile (the scores stay exact in float32)."""
    w = np.zeros((OBS_SIZE, NUM_COLOURS), np.float32)
    w[FIELDS["colour"].start + np.arange(NUM_COLOURS), np.arange(NUM_COLOURS)] = 1e4
    coloured = np.flatnonzero(TYPE_COLOUR >= 0)
    w[FIELDS["hand"].start + coloured, TYPE_COLOUR[coloured]] = 10.0
    w[FIELDS["discard_counts"].start + coloured, TYPE_COLOUR[coloured]] = 0.25
    return w


def canonical_order(obs: np.ndarray) -> np.ndarray:
    """The index into :data:`PERMUTATIONS` that puts each view's colours in canonical order
    ``[B]``: by :func:`canonical_weights`' scores, the highest first, ties in colour order."""
    scores = np.asarray(obs, np.float32) @ canonical_weights()
    order = np.argsort(-scores, axis=-1, kind="stable")  # order[j]: the colour that becomes j
    return PERMUTATION_OF_ORDER[order @ ORDER_CODE]


#: ``order @ ORDER_CODE`` packs an order of the four colours in one number, and
#: ``PERMUTATION_OF_ORDER`` gives the relabelling that sends ``order[j]`` to ``j``.
ORDER_CODE = NUM_COLOURS ** np.arange(NUM_COLOURS)
PERMUTATION_OF_ORDER = np.full(NUM_COLOURS**NUM_COLOURS, -1, np.int64)
for _p, _perm in enumerate(PERMUTATIONS):
    PERMUTATION_OF_ORDER[np.argsort(_perm) @ ORDER_CODE] = _p


def symmetry_tables() -> dict[str, np.ndarray]:
    """What a network needs to see views in canonical colours (``agents.network``): the
    scores' weights, the order code and its relabelling, and per relabelling the
    observation's sources and the actions' targets."""
    return {
        "weights": canonical_weights(),
        "order_code": ORDER_CODE.astype(np.int64),
        "permutation_of_order": PERMUTATION_OF_ORDER.copy(),
        "obs_sources": np.stack([observation_sources(p) for p in PERMUTATIONS]),
        "action_targets": np.stack([action_targets(p) for p in PERMUTATIONS]),
    }
