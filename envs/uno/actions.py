"""The fixed action space of classic UNO: 79 named actions for every player count.

=========  =====================  ==================================================
ids        names                  meaning
=========  =====================  ==================================================
0-51       ``play R0`` … ``play B+2``  play a coloured card (id = its card type id)
52-55      ``play W R`` … ``play W B``  play a Wild naming red, yellow, green, blue
56-59      ``play W+4 R`` …        play a Wild Draw Four naming a colour
60         ``draw``               draw (one card, or the pending stacked Draw Twos)
61         ``pass``               keep the card just drawn (``must_play_drawn=False``)
62, 63     ``challenge``, ``accept``  answer a Wild Draw Four
64, 65     ``uno``, ``silent``    declare UNO or not after playing the second-to-last card
66-69      ``colour R`` …         name the colour of a starting Wild
70-78      ``swap 1`` … ``swap 9``  after a 7 (``seven_zero``): swap hands with the player
                                  that many seats on in the direction of play
=========  =====================  ==================================================

The swap actions came after the first agents were trained: :data:`ADDED_ACTIONS` names
them, so that a checkpoint that records no action names is fitted to today's space.
"""

from __future__ import annotations

import numpy as np

from envs.cards import COLOURS, NUM_COLOURED_TYPES, TYPE_NAMES, WILD, WILD_DRAW_FOUR
from envs.core import action_lookup
from envs.uno.rules import MAX_PLAYERS

PLAY_WILD = NUM_COLOURED_TYPES  # 52: + colour index
PLAY_WILD_DRAW_FOUR = PLAY_WILD + 4  # 56: + colour index
NUM_PLAY_ACTIONS = PLAY_WILD_DRAW_FOUR + 4  # 60
DRAW = 60
PASS = 61
CHALLENGE = 62
ACCEPT = 63
UNO = 64
SILENT = 65
CHOOSE_COLOUR = 66  # + colour index
SWAP = 70  # + relative seat - 1: swap hands with the player 1..9 seats on
NUM_ACTIONS = SWAP + MAX_PLAYERS - 1  # 79: a swap with every other seat of the largest table

ACTION_NAMES: tuple[str, ...] = (
    tuple(f"play {TYPE_NAMES[t]}" for t in range(NUM_COLOURED_TYPES))
    + tuple(f"play W {c}" for c in COLOURS)
    + tuple(f"play W+4 {c}" for c in COLOURS)
    + ("draw", "pass", "challenge", "accept", "uno", "silent")
    + tuple(f"colour {c}" for c in COLOURS)
    + tuple(f"swap {k}" for k in range(1, MAX_PLAYERS))
)
assert len(ACTION_NAMES) == NUM_ACTIONS
#: Actions added after the first layout (``agents.learned`` fits older checkpoints by name).
ADDED_ACTIONS: tuple[str, ...] = ACTION_NAMES[SWAP:]

#: For play actions: the card type played (-1 for other actions).
ACTION_CARD = np.full(NUM_ACTIONS, -1, dtype=np.int64)
ACTION_CARD[:NUM_COLOURED_TYPES] = np.arange(NUM_COLOURED_TYPES)
ACTION_CARD[PLAY_WILD : PLAY_WILD + 4] = WILD
ACTION_CARD[PLAY_WILD_DRAW_FOUR : PLAY_WILD_DRAW_FOUR + 4] = WILD_DRAW_FOUR
#: For wild plays and colour choices: the colour named (-1 otherwise).
ACTION_COLOUR = np.full(NUM_ACTIONS, -1, dtype=np.int64)
ACTION_COLOUR[PLAY_WILD : PLAY_WILD + 4] = np.arange(4)
ACTION_COLOUR[PLAY_WILD_DRAW_FOUR : PLAY_WILD_DRAW_FOUR + 4] = np.arange(4)
ACTION_COLOUR[CHOOSE_COLOUR : CHOOSE_COLOUR + 4] = np.arange(4)
for _table in (ACTION_CARD, ACTION_COLOUR):
    _table.flags.writeable = False

action_id, action_name = action_lookup(
    ACTION_NAMES,
    "'play <card>' (e.g. 'play R7', 'play GS', 'play Y+2'), 'play W <colour>', 'play W+4 <colour>', "
    "'draw', 'pass', 'challenge', 'accept', 'uno', 'silent', 'colour <R|Y|G|B>', "
    "'swap <1-9>'",
)


def play_action(card: int, colour: int = -1) -> int:
    """Action id playing card type ``card`` (naming ``colour`` if it is a wild)."""
    if card == WILD:
        return PLAY_WILD + colour
    if card == WILD_DRAW_FOUR:
        return PLAY_WILD_DRAW_FOUR + colour
    return card
