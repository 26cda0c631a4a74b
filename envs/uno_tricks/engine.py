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

from envs.cards import NUM_CARD_TYPES
from envs.core import BatchedEngine, IllegalActionError
from envs.uno_tricks import actions as A
from envs.uno_tricks import kernel
from envs.uno_tricks.kernel import NUMBER_DECK, SPECIAL_DECK, LegalInputs, TricksState, ViewInputs
from envs.uno_tricks.observation import OBS_SIZE, PHASE_NAMES
from envs.uno_tricks.rules import NUM_PLAYERS, TricksRules

__all__ = ["PHASE_NAMES", "IllegalActionError", "TricksEngine"]


def _indices(values: np.ndarray) -> np.ndarray:
    """Games, seats or actions as the kernels take them: a contiguous, writable int64 array
    (a read-only or strided one is another type to numba: it would compile the kernel again)."""
    values = np.ascontiguousarray(values, np.int64)
    return values if values.flags.writeable else values.copy()


class CardQueue:
    """Per-game piles drawn from the top and refilled from below: circular buffers
    (the kernels take and put cards; this side loads and lists them for positions)."""

    def __init__(self, num_games: int, capacity: int) -> None:
        self.capacity = capacity
        self.cards = np.zeros((num_games, capacity), np.int8)
        self.start = np.zeros(num_games, np.int64)  # index of the top card
        self.count = np.zeros(num_games, np.int64)

    def set(self, game: int, cards: Sequence[int]) -> None:
        self.cards[game, : len(cards)] = cards
        self.start[game], self.count[game] = 0, len(cards)

    def listing(self, game: int) -> np.ndarray:
        """The cards of one game, top first."""
        return self.cards[game, (self.start[game] + np.arange(self.count[game])) % self.capacity]


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
    state_fields = (
        "hands",
        "hand_numbers",
        "hand_specials",
        "number_count",
        "special_count",
        "on_table",
        "numbers.cards",
        "numbers.start",
        "numbers.count",
        "specials.cards",
        "specials.start",
        "specials.count",
        "table_card",
        "table_forced",
        "table_laid_by",
        "table_added",
        "table_value",
        "table_specials",
        "table_special_kinds",
        "annulled",
        "points_piles",
        "points",
        "numbers_out",
        "leader",
        "current",
        "phase",
        "trick",
        "draw_limit",
        "returns_left",
        "trick_ended",
        "trick_winner",
    )
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
        self._returns_drawn = self.rules.exchange_returns == "drawn"
        self._reward_points = self.rules.reward == "points"

    # ------------------------------------------------------------------ state
    def _allocate(self) -> None:
        B = self.num_games
        P = NUM_PLAYERS
        self.hands = np.zeros((B, P, NUM_CARD_TYPES), np.int8)  # number and special cards, by type
        # Summaries of the hands that play and observation read, kept in step with them:
        self.hand_numbers = np.zeros((B, P, 10), np.int8)  # number cards per number
        self.hand_specials = np.zeros((B, P, 5), np.int8)  # special cards per kind
        self.number_count = np.zeros((B, P), np.int64)
        self.special_count = np.zeros((B, P), np.int64)
        self.on_table = np.zeros((B, 10), bool)  # numbers laid this trick (Wild-added cards not)
        self.numbers = CardQueue(B, NUMBER_DECK.size)
        self.specials = CardQueue(B, SPECIAL_DECK.size)
        self.table_card = np.full((B, NUM_PLAYERS), -1, np.int64)  # laid number card per seat
        self.table_forced = np.zeros((B, NUM_PLAYERS), bool)  # a forced duplicate, worth 0
        self.table_laid_by = np.full((B, NUM_PLAYERS), -1, np.int64)  # who laid it (a swap moves cards)
        self.table_added = np.full((B, NUM_PLAYERS), -1, np.int64)  # card a Wild added
        self.table_value = np.zeros((B, NUM_PLAYERS), np.int64)  # what each seat's cards are worth now
        self.table_specials = np.full((B, NUM_PLAYERS, 2), -1, np.int64)  # specials laid with it
        self.table_special_kinds = np.zeros((B, NUM_PLAYERS, 5), np.int8)  # the same, per kind
        self.annulled = np.zeros(B, bool)  # a Skip was laid this trick
        self.points_piles = np.zeros((B, 2, NUM_CARD_TYPES), np.int8)  # per team
        self.points = np.zeros((B, 2), np.int64)  # value of each team's points pile
        self.numbers_out = np.zeros((B, 10), np.int64)  # number cards in the points piles, per number
        self.leader = np.zeros(B, np.int64)
        self.current = np.zeros(B, np.int64)
        self.phase = np.zeros(B, np.int64)
        self.trick = np.ones(B, np.int64)
        self.draw_limit = np.zeros(B, np.int64)
        self.returns_left = np.zeros(B, np.int64)
        self.trick_ended = np.zeros(B, bool)
        self.trick_winner = np.full(B, -1, np.int64)
        # What the kernels get: the state arrays themselves (never replaced, only written in
        # place), as plain tuples because numba unpacks those quickly; the legal mask and the
        # observation get only the arrays they read.
        self._state = tuple(self._state_field(path) for path in self.state_fields)
        paths = dict(zip(TricksState._fields, self.state_fields, strict=True))
        self._legal_inputs = tuple(self._state_field(paths[name]) for name in LegalInputs._fields)
        self._view_inputs = tuple(self._state_field(paths[name]) for name in ViewInputs._fields)

    # ------------------------------------------------------------------ hooks: one kernel each
    def _new_episode(self, games: np.ndarray) -> None:
        kernel.new_episodes(self._state, self.game_seeds, self.rng_counter, _indices(games))

    def _begin_step(self) -> None:
        kernel.begin_step(self.trick_ended, self.trick_winner)

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
            self._returns_drawn,
            self._reward_points,
            self.auto_reset,
        )
        if bad < 0 and deal_here and self._done.any():
            kernel.restart_games(self._state, self.game_seeds, self.rng_counter, self._done.nonzero()[0], obs, mask)
        return bad

    def _observe_games(self, games: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        kernel.observe_games(self._state, _indices(games), obs, mask)

    def _legal_mask(self) -> np.ndarray:
        mask = np.empty((self.num_games, A.NUM_ACTIONS), bool)
        kernel.legal_masks(self._legal_inputs, mask)
        return mask

    def _observation(self, viewer: np.ndarray) -> np.ndarray:
        obs = np.empty((self.num_games, OBS_SIZE), np.float32)
        kernel.observations(self._view_inputs, _indices(viewer), obs)
        return obs

    # ------------------------------------------------------------------ for loading positions
    def _clear_table(self, games: np.ndarray) -> None:
        """No card on the table, no pending decision (a position fills the table next)."""
        kernel.clear_tables(self._state, _indices(games))

    def _sync_summaries(self, games: np.ndarray) -> None:
        """Recompute the summaries of hands, points piles and table from the cards
        themselves (after a loaded position; every step keeps them in step)."""
        kernel.sync_summaries(self._state, _indices(games))


assert TricksState._fields == tuple(path.replace(".", "_") for path in TricksEngine.state_fields)
