"""RLCard's own ``uno-rule-v1`` agent as a policy of the lab: an outside policy in a tournament.

    pip install rlcard
    python evaluate.py --config examples/rlcard_uno_rule.yaml

A policy spec may name importable code, ``{name: "examples.rlcard_uno_rule:RLCardUnoRule"}``
(``agents/registry.py``, ``outside_policy_class``): a class built as ``Class(seed=None,
**params)`` whose instances take a batch, ``policy(obs [B, 449], mask [B, 79]) -> actions [B]``
(``OBS_SIZE``, ``NUM_ACTIONS``).
This one translates each game of the batch into the raw state RLCard's
``UNORuleAgentV1`` reads (its hand and legal moves as RLCard strings, ``"r-7"``,
``"g-wild_draw_4"``, ``"draw"``), asks the agent and translates its answer back. RLCard's
agent decides one game at a time, so the adapter loops over the batch; the lab's own port
(``rlcard_rule``, ``agents/uno_policies.py``) does the same thing batched, and the
tournament in ``rlcard_uno_rule.yaml`` checks that the two play alike.

RLCard's game lacks some decisions of these rules; the adapter answers them as the port
documents: it accepts every Wild Draw Four (or stacks its own on it where the house rule
lets it, as it plays one whenever nothing else plays) and declares UNO (RLCard has neither
call), plays a playable drawn card (RLCard plays it at once), names the colour held most
for a starting Wild, swaps hands with a random seat after a 7 (``seven_zero``), and offers
``draw`` and the Wild Draw Four only where RLCard allows them (draw when nothing plays; a
Wild Draw Four when no other card, not even a Wild, does).
"""

from __future__ import annotations

import numpy as np

from envs.cards import COLOURS, IS_WILD, NUM_CARD_TYPES, TYPE_COLOUR, TYPE_KIND, WILD_DRAW_FOUR
from envs.uno import actions as A
from envs.uno.observation import decode

RLCARD_COLOUR = {"R": "r", "Y": "y", "G": "g", "B": "b"}
RLCARD_TRAIT = [str(n) for n in range(10)] + ["skip", "reverse", "draw_2", "wild", "wild_draw_4"]


def rlcard_card(card_type: int, colour: str = "r") -> str:
    """A card type in RLCard's notation (a wild takes a colour there: the one it names)."""
    if IS_WILD[card_type]:
        return f"{colour}-{RLCARD_TRAIT[TYPE_KIND[card_type]]}"
    return f"{RLCARD_COLOUR[COLOURS[TYPE_COLOUR[card_type]]]}-{RLCARD_TRAIT[TYPE_KIND[card_type]]}"


def rlcard_action(action: int) -> str:
    """A play action of the lab in RLCard's notation (``draw`` for the draw action)."""
    if action == A.DRAW:
        return "draw"
    card = int(A.ACTION_CARD[action])
    colour = int(A.ACTION_COLOUR[action])
    return rlcard_card(card, RLCARD_COLOUR[COLOURS[colour]] if colour >= 0 else "r")


class RLCardUnoRule:
    """``rlcard.models.uno_rule_models.UNORuleAgentV1`` behind the lab's batched policy interface."""

    game = "uno"

    def __init__(self, seed: int | None = None) -> None:
        from rlcard.models.uno_rule_models import UNORuleAgentV1

        self.agent = UNORuleAgentV1()
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        """RLCard's agent draws from numpy's global generator: the adapter gives it its own
        stream for each call (and puts the global one back), so seeded tournaments repeat."""
        self._state = np.random.RandomState(np.random.MT19937(seed)).get_state()

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        hands = decode(np.asarray(obs))["hand"]
        actions = np.empty(mask.shape[0], np.int64)
        outer = np.random.get_state()  # noqa: NPY002 (RLCard draws from the legacy global generator)
        np.random.set_state(self._state)  # noqa: NPY002
        try:
            for g in range(mask.shape[0]):  # RLCard's agent takes one game at a time
                actions[g] = self._decide(hands[g], mask[g])
        finally:
            self._state = np.random.get_state()  # noqa: NPY002
            np.random.set_state(outer)  # noqa: NPY002
        return actions

    def _decide(self, hand: np.ndarray, legal: np.ndarray) -> int:
        plays = np.flatnonzero(legal[: A.NUM_PLAY_ACTIONS])
        if legal[A.UNO]:  # RLCard has no UNO call and no challenge
            return A.UNO
        if legal[A.ACCEPT] and not plays.size:  # (stack_wild_draw_four: the Wild Draw Four plays)
            return A.ACCEPT
        swaps = np.flatnonzero(legal[A.SWAP :])
        if swaps.size:  # seven_zero, which RLCard lacks: a random seat, as the port does
            return A.SWAP + int(np.random.choice(swaps))  # noqa: NPY002 (the adapter's own stream, set in __call__)
        if legal[A.CHOOSE_COLOUR : A.CHOOSE_COLOUR + 4].any():  # a starting Wild: the colour held most
            held = [hand[[t for t in range(NUM_CARD_TYPES) if TYPE_COLOUR[t] == c]].sum() for c in range(4)]
            return A.CHOOSE_COLOUR + int(np.argmax(held))
        if not plays.size:  # only draw (or pass) is left
            return A.DRAW if legal[A.DRAW] else A.PASS
        cards = A.ACTION_CARD[plays]
        if (cards != WILD_DRAW_FOUR).any():  # in RLCard a Wild Draw Four plays only when nothing else does
            plays = plays[cards != WILD_DRAW_FOUR]
        by_name = {rlcard_action(int(a)): int(a) for a in plays}
        held = [rlcard_card(t, "rygb"[i % 4]) for t in range(NUM_CARD_TYPES) for i in range(int(hand[t]))]
        state = {"raw_legal_actions": list(by_name), "raw_obs": {"hand": held}}
        return by_name[self.agent.step(state)]
