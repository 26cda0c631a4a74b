"""The fixed action space of the trick game: 89 named actions.

=========  ==========================================  ===================================
ids        names                                       meaning
=========  ==========================================  ===================================
0-9        ``lay 0`` … ``lay 9``                        lay a number card alone
10-69      ``lay 7 +2``, ``lay 7 +4``, ``lay 7 +2+4``,  lay a number card with one special
           ``lay 7 skip``, ``lay 7 wild``,              card, or with the +2 and +4 pair
           ``lay 7 reverse``                            (id = 10 * combo + number)
70-74      ``draw 0`` … ``draw 4``                      after +2/+4: number cards to take
75-84      ``return 0`` … ``return 9``                  put a number card back under the pile
85-87      ``swap 1`` … ``swap 3``                      after Reverse: take the table card of
                                                       the seat 1-3 places on (2: partner)
88         ``keep``                                     after Reverse: swap nothing
=========  ==========================================  ===================================

Colours never matter: ``lay 7`` lays a 7 of the hand (the engine takes the first colour
in card order, R Y G B).
"""

from __future__ import annotations

from envs.cards import KIND_DRAW_TWO, KIND_REVERSE, KIND_SKIP, KIND_WILD, KIND_WILD_DRAW_FOUR
from envs.core import action_lookup

#: Special combinations laid with a number, in action order, and the card kinds each uses.
COMBOS: tuple[str, ...] = ("", "+2", "+4", "+2+4", "skip", "wild", "reverse")
COMBO_KINDS: tuple[tuple[int, ...], ...] = (
    (),
    (KIND_DRAW_TWO,),
    (KIND_WILD_DRAW_FOUR,),
    (KIND_DRAW_TWO, KIND_WILD_DRAW_FOUR),
    (KIND_SKIP,),
    (KIND_WILD,),
    (KIND_REVERSE,),
)
NONE, PLUS2, PLUS4, PAIR, SKIP, WILD, REVERSE = range(7)
NUM_LAY_ACTIONS = 10 * len(COMBOS)  # 70
DRAW = 70  # + cards taken (0-4)
RETURN = 75  # + number
SWAP = 85  # + seats on (1-3) - 1
KEEP = 88
NUM_ACTIONS = 89

ACTION_NAMES: tuple[str, ...] = (
    tuple(f"lay {n} {combo}".strip() for combo in COMBOS for n in range(10))
    + tuple(f"draw {k}" for k in range(5))
    + tuple(f"return {n}" for n in range(10))
    + tuple(f"swap {j}" for j in range(1, 4))
    + ("keep",)
)
assert len(ACTION_NAMES) == NUM_ACTIONS

action_id, action_name = action_lookup(
    ACTION_NAMES,
    "'lay <0-9>' optionally followed by +2, +4, +2+4, skip, wild or reverse; 'draw <0-4>'; "
    "'return <0-9>'; 'swap <1-3>'; 'keep'",
)
