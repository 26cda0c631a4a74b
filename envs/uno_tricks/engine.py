"""Batched engine of the team trick game: the state arrays and the engine interface.

Four players, partners opposite (seats 0+2 are team A, 1+3 team B). Every trick each
player in turn lays one number card (a number already on the table may not be laid,
unless nothing else is possible: a forced duplicate, worth 0), optionally with a special
card; the team with the higher sum takes the trick's cards into its points pile. The
state is a few numpy arrays with the batch first; the piles are circular queues because
cards are drawn from the top and go back *under* the pile.

Decisions, phase by phase (docs/tricks.md):

* ``lay``: ``lay N`` with no special, or with +2, +4, the +2/+4 pair, Skip, Wild or Reverse.
* ``draw``: after a +2 (+4): take 0-2 (0-4) number cards from the pile. Two or more
  zeros among them bring one special card (automatic).
* ``return``: put number cards back under the pile one at a time, as many as were drawn
  (``exchange_returns="drawn"``) or exactly two (``"two"``).
* ``swap``: after a Reverse: exchange the laid card with that of a seat that has laid,
  or ``keep``.

The rules themselves live in :mod:`envs.uno_tricks.kernel`, compiled with numba: each
hook of :class:`~envs.core.BatchedEngine` below is one kernel call that loops over the
games in compiled code, so a batch of one costs little more than the call and a large
batch costs the rules per game, nothing per numpy operation.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.core import BatchedEngine, IllegalActionError
from envs.state_table import allocate, saved_names
from envs.uno_tricks import actions as A
from envs.uno_tricks import kernel
from envs.uno_tricks.observation import OBS_SIZE, PHASE_NAMES
from envs.uno_tricks.rules import NUM_PLAYERS, TricksRules

__all__ = ["PHASE_NAMES", "IllegalActionError", "TricksEngine"]


def _indices(values: np.ndarray) -> np.ndarray:
    """Games, seats or actions as the kernels take them: a contiguous, writable int64 array
    (a read-only or strided one is another type to numba: it would compile the kernel again)."""
    values = np.ascontiguousarray(values, np.int64)
    return values if values.flags.writeable else values.copy()


class CardQueue:
    """A per-game pile drawn from the top and refilled from below, a circular buffer over three
    of the engine's state arrays (the kernels take and put cards; this side loads and lists
    them for positions)."""

    def __init__(self, cards: np.ndarray, start: np.ndarray, count: np.ndarray) -> None:
        self.cards, self.start, self.count = cards, start, count  # top card at cards[start]
        self.capacity = cards.shape[1]

    def set(self, game: int, cards: Sequence[int]) -> None:
        self.cards[game, : len(cards)] = cards
        self.start[game], self.count[game] = 0, len(cards)

    def listing(self, game: int) -> np.ndarray:
        """The cards of one game, top first."""
        return self.cards[game, (self.start[game] + np.arange(self.count[game])) % self.capacity]


#: The kernels' rules record (``kernel.RULES_DTYPE``), field by field, from the rules.
RULES_RECORD = {
    "returns_drawn": lambda r: r.exchange_returns == "drawn",
    "reward_points": lambda r: r.reward == "points",
}
if set(RULES_RECORD) != set(kernel.RULES_DTYPE.names):
    _differ = sorted(set(RULES_RECORD) ^ set(kernel.RULES_DTYPE.names))
    raise ImportError(f"RULES_RECORD and kernel.RULES_DTYPE name different fields: {_differ}")


def rules_record(rules: TricksRules) -> np.ndarray:
    """The rules as the kernels read them, built by field name."""
    record = np.zeros(1, dtype=kernel.RULES_DTYPE)
    for name, value in RULES_RECORD.items():
        record[name] = value(rules)
    return record


class TricksEngine(BatchedEngine):
    """``num_games`` games of the trick game, stepped together (always four players).

    >>> eng = TricksEngine(num_games=4096, rules=TricksRules(), seed=0)
    >>> obs, mask = eng.reset()          # float32 [B, 161], bool [B, 89]
    >>> obs, mask, rewards, done = eng.step(actions)   # rewards [B, 4]: partners share theirs

    ``trick_ended`` / ``trick_winner`` (0 team A, 1 team B, -1 tie or annulled) describe
    tricks that ended in the last step.
    """

    game = "tricks"
    obs_size = OBS_SIZE
    action_names = A.ACTION_NAMES
    phase_names = PHASE_NAMES
    positions_module = "envs.uno_tricks.positions"
    state_fields = saved_names(kernel.STATE)
    table_size = NUM_PLAYERS
    rules_type = TricksRules

    def __init__(
        self,
        num_games: int = 1,
        num_players: int = NUM_PLAYERS,
        rules: TricksRules | None = None,
        seed: int | Sequence[int] | None = None,
        auto_reset: bool = True,
    ) -> None:
        super().__init__(num_games, num_players, rules, seed, auto_reset)

    # ------------------------------------------------------------------ state
    def _allocate(self) -> None:
        """The whole game state: the arrays of ``kernel.STATE`` (declared there once, with
        what each holds), each an attribute of the engine; ``self._state`` is all of them in
        order, what every kernel entry point takes first. The piles are also seen as
        :class:`CardQueue` objects (``numbers``, ``specials``) by positions."""
        self._state = allocate(self, kernel.STATE)
        self.numbers = CardQueue(self.numbers_cards, self.numbers_start, self.numbers_count)
        self.specials = CardQueue(self.specials_cards, self.specials_start, self.specials_count)
        self._rules_record = rules_record(self.rules)

    # ------------------------------------------------------------------ hooks: one kernel each
    def _new_episode(self, games: np.ndarray) -> None:
        kernel.new_episodes(*self._state, _indices(games))

    def _begin_step(self) -> None:
        kernel.begin_step(*self._state)

    def _step_kernel(self, actions: np.ndarray, obs: np.ndarray, mask: np.ndarray, deal_here: bool) -> int:
        bad = kernel.step_and_observe(
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
        )
        if bad < 0 and deal_here and self._done.any():
            kernel.restart_games(*self._state, self._done.nonzero()[0], obs, mask)
        return bad

    def _observe_games(self, games: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        kernel.observe_games(*self._state, _indices(games), obs, mask)

    def _legal_mask(self) -> np.ndarray:
        mask = np.empty((self.num_games, A.NUM_ACTIONS), bool)
        kernel.legal_masks(*self._state, mask)
        return mask

    def _observation(self, viewer: np.ndarray) -> np.ndarray:
        obs = np.empty((self.num_games, OBS_SIZE), np.float32)
        kernel.observations(*self._state, _indices(viewer), obs)
        return obs

    # ------------------------------------------------------------------ for loading positions
    def _clear_table(self, games: np.ndarray) -> None:
        """No card on the table, no pending decision (a position fills the table next)."""
        kernel.clear_tables(*self._state, _indices(games))

    def _sync_summaries(self, games: np.ndarray) -> None:
        """Recompute the summaries of hands, points piles and table from the cards
        themselves (after a loaded position; every step keeps them in step)."""
        kernel.sync_summaries(*self._state, _indices(games))
