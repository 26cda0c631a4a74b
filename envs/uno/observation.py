"""Layout of the classic UNO observation, and its decoder.

The observation is what the player to act may know, and nothing else: a flat
``float32`` vector of :data:`OBS_SIZE` = 449 values, the same size for every player
count. "Relative seats" are counted *in the direction of play* from the observer:
slot 0 is the observer, slot 1 the player who acts next (unless skipped), slot n-1 the
one who acted before; slots >= n (fewer than 10 players) are 0.

=====================  ====  ===========================================================
field                  size  content
=====================  ====  ===========================================================
``hand``                 54  own hand: copies of each card type (type order of
                             ``envs.cards``: R0..R+2, Y.., G.., B.., W, W+4)
``top_card``             54  one-hot type of the discard pile's top card
``colour``                4  one-hot colour in force R, Y, G, B (all 0 while a starting
                             Wild waits for its colour)
``direction``             1  +1 (seat order) or -1
``num_players``           1  players at the table (2-10)
``hand_sizes``           10  cards held, per relative seat
``uno_declared``         10  1 where that player declared UNO and has not played since
``scores``               10  match points per relative seat, divided by ``target_score``
``draw_pile_size``        1  cards in the draw pile
``discard_pile_size``     1  cards in the discard pile
``discard_counts``       54  copies of each type in the discard pile: the cards seen
                             played since the last reshuffle (card counting)
``phase``                 6  one-hot: play, drawn, challenge, uno, colour, swap
``pending_draw``          1  stacked draw cards the player must draw unless it
                             stacks another (``stacking``, ``stack_wild_draw_four``)
``drawn_card``           54  one-hot type of the card just drawn (phase ``drawn``)
``challenge_colour``      4  one-hot colour in force before the Wild Draw Four being
                             answered (phase ``challenge``): the colour a bluffer held
``revealed_hand``        54  the hand shown to the observer by its challenge (until its
                             next decision is taken), copies per type
``revealed_seat``        10  one-hot relative seat of the revealed hand
``void_colours``         40  public history, per relative seat (4 values each, R Y G B):
                             1 where that player was seen without the colour (it drew
                             with nothing to play while the colour was in force)
``void_draws``           40  per relative seat and colour: cards that player has taken
                             since, unseen (any may be of that colour); 0 where unknown
``chosen_colours``       40  public history, per relative seat, one-hot R Y G B: the
                             colour that player last chose this hand (named for a
                             wild, or switched to with a card of another colour than
                             the one in force); all 0 before its first choice
=====================  ====  ===========================================================

:func:`decode` turns a batch of observations back into named arrays (scores in points,
counts as integers); tests and scripted policies use it instead of raw offsets.
"""

from __future__ import annotations

import numpy as np

from envs.cards import DECK, DECK_SIZE, NUM_CARD_TYPES, NUM_COLOURS, TYPE_COPIES, TYPE_VALUE
from envs.layout import Field, build_layout, entry_names, layout_bounds
from envs.uno.rules import MAX_PLAYERS, UnoRules

MOST_COPIES = int(TYPE_COPIES.max())  # copies of one card type in the deck (4)

DECK_POINTS = int(TYPE_VALUE[DECK].sum())  # 1240: every card of the deck counted

#: The phases of a turn, named once: the observation's one-hot has all but "over", the
#: kernels use the ids, positions and views the names; "over" is a finished game (no move).
PHASE_NAMES: tuple[str, ...] = ("play", "drawn", "challenge", "uno", "colour", "swap", "over")
PLAY, DRAWN, CHALLENGE, UNO, COLOUR, SWAP, OVER = range(len(PHASE_NAMES))
PHASES = PHASE_NAMES[:OVER]  # the phases a player decides in (the observation's one-hot)


FIELDS: dict[str, Field] = build_layout(
    [
        ("hand", NUM_CARD_TYPES, 4),
        ("top_card", NUM_CARD_TYPES, 1),
        ("colour", NUM_COLOURS, 1),
        ("direction", 1, 1, -1),
        ("num_players", 1, MAX_PLAYERS),
        ("hand_sizes", MAX_PLAYERS, DECK_SIZE),
        ("uno_declared", MAX_PLAYERS, 1),
        ("scores", MAX_PLAYERS, 1.0),  # scaled: see observation_bounds
        ("draw_pile_size", 1, DECK_SIZE),
        ("discard_pile_size", 1, DECK_SIZE),
        ("discard_counts", NUM_CARD_TYPES, MOST_COPIES),
        ("phase", PHASES, 1),  # one entry per phase, named
        ("pending_draw", 1, DECK_SIZE),
        ("drawn_card", NUM_CARD_TYPES, 1),
        ("challenge_colour", NUM_COLOURS, 1),
        ("revealed_hand", NUM_CARD_TYPES, MOST_COPIES),
        ("revealed_seat", MAX_PLAYERS, 1),
        ("void_colours", MAX_PLAYERS * NUM_COLOURS, 1),
        ("void_draws", MAX_PLAYERS * NUM_COLOURS, DECK_SIZE),
        ("chosen_colours", MAX_PLAYERS * NUM_COLOURS, 1),
    ]
)
OBS_SIZE: int = sum(f.size for f in FIELDS.values())
assert OBS_SIZE == 449
#: Each value's name (``phase[swap]``, ``hand[3]``): checkpoints record it, so that an agent
#: trained before an entry was added still loads (``agents.learned``).
OBS_NAMES: tuple[str, ...] = entry_names(FIELDS)
#: Entries added after the first layout (older checkpoints are fitted without them).
ADDED_OBS_NAMES: tuple[str, ...] = ("phase[swap]",) + tuple(
    name for name in OBS_NAMES if name.startswith(("void_colours[", "void_draws[", "chosen_colours["))
)

OBS_LOW, OBS_HIGH = layout_bounds(FIELDS)


def observation_bounds(rules: UnoRules) -> tuple[np.ndarray, np.ndarray]:
    """Low and high of every observation value under these rules.

    A match ends in the hand where a total reaches (passes) the target, and one hand
    adds at most the whole deck's points, so a scaled score stays below
    ``(target_score + DECK_POINTS) / target_score``.
    """
    high = OBS_HIGH.copy()
    high[FIELDS["scores"].slice] = (rules.target_score + DECK_POINTS) / rules.target_score
    return OBS_LOW.copy(), high


def decode(obs: np.ndarray, target_score: int = 500) -> dict[str, np.ndarray]:
    """Named fields of observations ``[..., 449]``.

    Counts come back as ``int64``; one-hot fields also as an index (``top_card``,
    ``colour``, ``phase``, ``drawn_card``, ``challenge_colour``, ``revealed_seat``:
    -1 where the one-hot is all zero); ``scores`` in points (pass the rules'
    ``target_score``).
    """
    obs = np.asarray(obs)
    if obs.shape[-1] != OBS_SIZE:
        raise ValueError(f"an observation has {OBS_SIZE} values, got shape {obs.shape}")
    out: dict[str, np.ndarray] = {}
    for name, field in FIELDS.items():
        out[name] = obs[..., field.slice]
    for name in ("top_card", "colour", "phase", "drawn_card", "challenge_colour", "revealed_seat"):
        onehot = out[name]
        out[name] = np.where(onehot.any(axis=-1), onehot.argmax(axis=-1), -1)
    for name in (
        "hand",
        "hand_sizes",
        "discard_counts",
        "revealed_hand",
        "uno_declared",
        "void_colours",
        "void_draws",
        "chosen_colours",
    ):
        out[name] = np.rint(out[name]).astype(np.int64)
    for name in ("void_colours", "void_draws", "chosen_colours"):  # [..., seat, colour]
        out[name] = out[name].reshape(*out[name].shape[:-1], MAX_PLAYERS, NUM_COLOURS)
    for name in ("direction", "num_players", "draw_pile_size", "discard_pile_size", "pending_draw"):
        out[name] = np.rint(out[name][..., 0]).astype(np.int64)
    out["scores"] = np.rint(out["scores"] * target_score).astype(np.int64)
    return out
