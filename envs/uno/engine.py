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

from collections.abc import Sequence

import numpy as np

from envs.core import BatchedEngine, IllegalActionError
from envs.state_table import allocate, saved_names
from envs.uno import actions as A
from envs.uno import kernel
from envs.uno.observation import OBS_SIZE, PHASE_NAMES
from envs.uno.rules import UnoRules

__all__ = ["IllegalActionError", "UnoEngine"]

#: The kernels' rules record (``kernel.RULES_DTYPE``), field by field: how each value comes
#: from the rules and the table size. Checked at import against the record's fields.
RULES_RECORD = {
    "num_players": lambda r, players: players,
    "hand_size": lambda r, players: r.hand_size,
    "draw_anytime": lambda r, players: r.draw_anytime,
    "must_play_drawn": lambda r, players: r.must_play_drawn,
    "draw_until_playable": lambda r, players: r.draw_until_playable,
    "stacking": lambda r, players: r.stacking,
    "stack_wild_draw_four": lambda r, players: r.stack_wild_draw_four,
    "seven_zero": lambda r, players: r.seven_zero,
    "uno_penalty": lambda r, players: r.uno_penalty,
    "uno_catch_prob": lambda r, players: float(r.uno_catch_prob),
    "match": lambda r, players: r.match,
    "target_score": lambda r, players: r.target_score,
    "reverse_scoring": lambda r, players: r.reverse_scoring,
    "points_reward": lambda r, players: r.reward == "points",
    "winner_starts": lambda r, players: r.hand_starter == "winner",
}
if set(RULES_RECORD) != set(kernel.RULES_DTYPE.names):
    _differ = sorted(set(RULES_RECORD) ^ set(kernel.RULES_DTYPE.names))
    raise ImportError(f"RULES_RECORD and kernel.RULES_DTYPE name different fields: {_differ}")


def rules_record(rules: UnoRules, players: int) -> np.ndarray:
    """The rules as the kernels read them, built by field name."""
    record = np.zeros(1, dtype=kernel.RULES_DTYPE)
    for name, value in RULES_RECORD.items():
        record[name] = value(rules, players)
    return record


class UnoEngine(BatchedEngine):
    """``num_games`` games of classic UNO for ``num_players`` players, stepped together.

    >>> eng = UnoEngine(num_games=4096, num_players=4, rules=UnoRules(), seed=0)
    >>> obs, mask = eng.reset()          # float32 [B, 449], bool [B, 79]
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
    state_fields = saved_names(kernel.STATE)
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
        """The whole game state: the arrays of ``kernel.STATE`` (declared there once, with
        what each holds), each an attribute of the engine; ``self._state`` is all of them in
        order, what every kernel entry point takes first."""
        self._state = allocate(self, kernel.STATE)
        self._rules_record = rules_record(self.rules, self.num_players)

    # ------------------------------------------------------------------ one step
    def _begin_step(self) -> None:
        kernel.clear_last_step(*self._state)

    def _step_kernel(self, actions: np.ndarray, obs: np.ndarray, mask: np.ndarray, deal_here: bool) -> int:
        return kernel.step_and_observe(
            *self._state,
            actions,
            self._mask,
            obs,
            mask,
            self._rewards,
            self._done,
            self.game_winners,
            self.final_scores,
            self._rules_record,
            self.auto_reset,
            deal_here,
        )

    def _legal_mask(self) -> np.ndarray:
        mask = np.empty((self.num_games, A.NUM_ACTIONS), bool)
        kernel.legal_mask(*self._state, mask, self._rules_record)
        return mask

    def _observation(self, viewer: np.ndarray) -> np.ndarray:
        obs = np.empty((self.num_games, OBS_SIZE), np.float32)
        kernel.observation(*self._state, np.ascontiguousarray(viewer, np.int64), obs, self._rules_record)
        return obs

    def _observe_games(self, games: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        kernel.observe_games(*self._state, np.ascontiguousarray(games, np.int64), obs, mask, self._rules_record)

    def _new_episode(self, games: np.ndarray) -> None:
        kernel.new_games(*self._state, np.ascontiguousarray(games, np.int64), self._rules_record)
