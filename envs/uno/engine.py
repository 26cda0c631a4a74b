"""Batched classic UNO engine: the state of many games as numpy arrays, stepped by the rules' kernels.

A :class:`UnoEngine` plays ``num_games`` games of the same player count at once. The
state is a handful of dense numpy arrays with the batch first (see ``_allocate``); the
rules of game 1 live in :mod:`envs.uno.kernel`, compiled functions that apply each
game's action, deal, and write the next observations and legal-action masks, looping
over the games in compiled code. The turn structure is described there.

Rewards arrive in ``step``'s ``rewards [B, P]`` for every seat at once when a game
ends, whoever made the last move. Finished games restart at once (``auto_reset``), so
the returned observation of a finished game is the first of its next game.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

import numpy as np

from envs.cards import DECK_SIZE, NUM_CARD_TYPES
from envs.core import BatchedEngine, IllegalActionError
from envs.uno import actions as A
from envs.uno import kernel
from envs.uno.observation import OBS_SIZE, PHASES
from envs.uno.rules import UnoRules

PHASE_NAMES = PHASES + ("over",)

#: The engine's state arrays as the kernels take them (one argument, fields by name).
UnoState = namedtuple("UnoState", kernel.STATE)
#: One step's outputs: rewards, done, winners and final scores of the games that ended.
StepOutputs = namedtuple("StepOutputs", ["rewards", "done", "winners", "final_scores"])
#: The rules as the kernels read them (scalars).
KernelRules = namedtuple(
    "KernelRules",
    [
        "num_players",
        "hand_size",
        "draw_anytime",
        "must_play_drawn",
        "stacking",
        "uno_penalty",
        "uno_catch_prob",
        "match",
        "target_score",
        "reverse_scoring",
        "points_reward",
        "winner_starts",
    ],
)

__all__ = ["IllegalActionError", "UnoEngine"]


class UnoEngine(BatchedEngine):
    """``num_games`` games of classic UNO for ``num_players`` players, stepped together.

    >>> eng = UnoEngine(num_games=4096, num_players=4, rules=UnoRules(), seed=0)
    >>> obs, mask = eng.reset()          # float32 [B, 328], bool [B, 70]
    >>> obs, mask, rewards, done = eng.step(actions)

    Attributes read by wrappers and trainers (all ``[B]`` or ``[B, P]`` arrays):
    ``current_player``; ``hand_ended``, ``hand_winner`` (-1 if none) and ``hand_points``
    (score added to each seat) describe hands that ended in the last step, also inside a
    match; ``game_seeds`` holds each game's seed.
    """

    game = "uno"
    obs_size = OBS_SIZE
    action_names = A.ACTION_NAMES
    phase_names = PHASE_NAMES
    positions_module = "envs.uno.positions"
    state_fields = (
        "hands",
        "hand_size",
        "draw_pile",
        "draw_top",
        "draw_end",
        "discard",
        "discard_len",
        "discard_counts",
        "top",
        "colour",
        "direction",
        "current",
        "phase",
        "pending_draw",
        "drawn_card",
        "challenge_colour",
        "challenge_guilty",
        "uno_declared",
        "revealed_hand",
        "revealed_to",
        "revealed_from",
        "scores",
        "match_rewards",
        "hand_number",
        "hand_starter",
        "hand_ended",
        "hand_winner",
        "hand_points",
    )
    rules_type = UnoRules

    def __init__(
        self,
        num_games: int = 1,
        num_players: int = 2,
        rules: UnoRules | None = None,
        seed: int | Sequence[int] | None = None,
        auto_reset: bool = True,
    ) -> None:
        super().__init__(num_games, num_players, rules, seed, auto_reset)

    # ------------------------------------------------------------------ state
    def _allocate(self) -> None:
        """The whole game state. Piles are stacks of card type ids."""
        B, P = self.num_games, self.num_players
        self.hands = np.zeros((B, P, NUM_CARD_TYPES), np.int8)  # copies of each type held
        self.hand_size = np.zeros((B, P), np.int64)
        self.draw_pile = np.zeros((B, DECK_SIZE), np.int8)  # cards in [draw_top, draw_end)
        self.draw_top = np.zeros(B, np.int64)  # next card drawn
        self.draw_end = np.zeros(B, np.int64)
        self.discard = np.zeros((B, DECK_SIZE), np.int8)  # bottom first, top at discard_len-1
        self.discard_len = np.zeros(B, np.int64)
        self.discard_counts = np.zeros((B, NUM_CARD_TYPES), np.int8)
        self.top = np.zeros(B, np.int64)  # type of the discard pile's top card
        self.colour = np.zeros(B, np.int64)  # colour in force, -1 while a starting Wild waits
        self.direction = np.ones(B, np.int64)
        self.current = np.zeros(B, np.int64)
        self.phase = np.zeros(B, np.int64)
        self.pending_draw = np.zeros(B, np.int64)  # stacked Draw Twos
        self.drawn_card = np.full(B, -1, np.int64)
        self.challenge_colour = np.full(B, -1, np.int64)  # colour before the Wild Draw Four
        self.challenge_guilty = np.zeros(B, bool)
        self.uno_declared = np.zeros((B, P), bool)
        self.revealed_hand = np.zeros((B, NUM_CARD_TYPES), np.int8)
        self.revealed_to = np.full(B, -1, np.int64)
        self.revealed_from = np.full(B, -1, np.int64)
        self.scores = np.zeros((B, P), np.int64)
        self.match_rewards = np.zeros((B, P), np.float64)  # points reward summed over a match
        self.hand_number = np.zeros(B, np.int64)
        self.hand_starter = np.zeros(B, np.int64)  # first player of the current hand
        self.hand_ended = np.zeros(B, bool)
        self.hand_winner = np.full(B, -1, np.int64)
        self.hand_points = np.zeros((B, P), np.int64)

        self._bind_kernel_arguments()

    def _bind_kernel_arguments(self) -> None:
        """The state arrays and the rules as the kernels take them (once: arrays change in place)."""
        self._state = UnoState(*(self._state_field(name) for name in kernel.STATE))
        r = self.rules
        self._kernel_rules = KernelRules(
            num_players=self.num_players,
            hand_size=r.hand_size,
            draw_anytime=r.draw_anytime,
            must_play_drawn=r.must_play_drawn,
            stacking=r.stacking,
            uno_penalty=r.uno_penalty,
            uno_catch_prob=float(r.uno_catch_prob),
            match=r.match,
            target_score=r.target_score,
            reverse_scoring=r.scoring == "reverse",
            points_reward=r.reward == "points",
            winner_starts=r.hand_starter == "winner",
        )

    # ------------------------------------------------------------------ one step
    def _begin_step(self) -> None:
        kernel.begin_step(self._state)

    def _apply(self, actions: np.ndarray) -> None:
        out = StepOutputs(self._rewards, self._done, self.game_winners, self.final_scores)
        kernel.step_games(self._state, out, actions, self._kernel_rules)

    def _step_kernel(self, actions: np.ndarray, obs: np.ndarray, mask: np.ndarray, deal_here: bool) -> int:
        out = StepOutputs(self._rewards, self._done, self.game_winners, self.final_scores)
        return kernel.step_and_observe(
            self._state, out, actions, self._mask, obs, mask, self._kernel_rules, self.auto_reset, deal_here
        )

    def _legal_mask(self) -> np.ndarray:
        mask = np.empty((self.num_games, A.NUM_ACTIONS), bool)
        kernel.legal_mask(self._state, mask, self.rules.draw_anytime, self.rules.must_play_drawn)
        return mask

    def _observation(self, viewer: np.ndarray) -> np.ndarray:
        obs = np.empty((self.num_games, OBS_SIZE), np.float32)
        kernel.observation(self._state, viewer, obs, self.num_players, self.rules.target_score)
        return obs

    def _new_episode(self, games: np.ndarray) -> None:
        kernel.new_games(self._state, games, self.num_players, self.rules.hand_size)
