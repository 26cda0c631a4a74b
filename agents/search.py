"""A policy that plans with the engine: flat Monte Carlo over worlds sampled from what the player knows.

For each decision with more than one legal action, :class:`SearchPolicy` samples
``worlds`` complete games consistent with the player's observation only (the game's
``worlds`` module: the unseen cards dealt at random, never the true hidden cards), plays
every legal action in every world and then the rest of the hand with a fast ``rollout``
policy on every seat, and takes the action with the best mean result for the player
(flat Monte Carlo). Every world of every decision of the batch and every action are one
batch of the engine: no rule is written here, and there is no Python loop over games.

The actions of one world share its cards and its random stream (common random numbers),
so their comparison is not drowned by the luck of the deal. Ties (actions whose mean
results are equal) go to the action the rollout policy itself would choose: with few
worlds, the search changes the rollout policy's choice only where it sees a difference.

Cost: a searched decision plays about ``worlds x legal actions`` rollouts to the end of
the hand; decisions with a single legal action cost nothing (``bench/search_speed.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.policy import SeededPolicy, as_masks, check_chosen

#: Rows (world x action) stepped together at most; larger batches are split.
MAX_ROWS = 1 << 16


class SearchPolicy(SeededPolicy):
    """Flat Monte Carlo search with the engine (``{name: search, worlds: 16, rollout: heuristic}``).

    Args:
        worlds: complete games sampled per decision.
        rollout: the policy spec that plays every seat after the first action; its own
            choice is the *prior*, kept unless the search is sure of a better one.
        confidence: how sure: the best action's mean gain over the prior's, paired by
            world, must exceed this many standard errors (0: plain flat Monte Carlo).
        rules: the table's rules options (tournaments and trainers pass theirs).
        max_rows: rows stepped in one engine batch (memory bound).
    """

    name = "search"
    game = "any"

    def __init__(
        self,
        seed: int | None = None,
        worlds: int = 16,
        rollout: Any = "heuristic",
        confidence: float = 1.0,
        depth: int = 0,
        value: str = "",
        rules: Mapping[str, Any] | None = None,
        max_rows: int = MAX_ROWS,
    ) -> None:
        super().__init__(seed)
        from agents.registry import SEARCH, make_policy, split_spec

        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"worlds must be a positive integer, got {worlds!r}")
        if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1:
            raise ValueError(f"max_rows must be a positive integer, got {max_rows!r}")
        if split_spec(rollout)[0] == SEARCH:
            raise ValueError("rollout must be a fast policy (a scripted one or an agent), not search")
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not confidence >= 0:
            raise ValueError(f"confidence must be a number >= 0 (standard errors), got {confidence!r}")
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"depth must be an integer >= 0 (0: to the end), got {depth!r}")
        if depth and not value:
            raise ValueError(
                "depth > 0 needs value: a checkpoint whose critic values the positions where rollouts stop"
            )
        self.worlds, self.max_rows, self.rollout_spec = worlds, max_rows, rollout
        self.confidence, self.depth, self.value_path = float(confidence), depth, value
        self.critic = None
        if value:
            from agents.learned import load_checkpoint, network_from

            self.critic = network_from(load_checkpoint(value, self.game), value)
        self.rules = self.rules_type.from_dict(rules)
        self.rollout = make_policy(self.game, rollout, seed=int(self.rng.integers(2**63)))
        self.searched = 0  # decisions searched so far (more than one legal action)
        self.rollout_steps = 0  # engine steps of rows, over all rollouts

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.rollout.seed(int(self.rng.integers(2**63)))

    # ------------------------------------------------------------------ per game
    @property
    def rules_type(self) -> type:
        raise NotImplementedError

    def sample_worlds(self, obs: np.ndarray, worlds: int) -> Any:
        """An engine of ``len(obs) * worlds`` games (auto_reset off), the observer at seat 0 to act."""
        raise NotImplementedError

    def leaf_values(self, eng: Any, games: np.ndarray) -> np.ndarray:
        """The critic's value of these unfinished games for the observer (seat 0), in reward units."""
        import torch

        obs, _ = eng.observe(seats=0)
        with torch.no_grad():
            return self.critic.value(torch.as_tensor(obs[games])).numpy().astype(np.float64)

    # ------------------------------------------------------------------ the search
    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = as_masks(mask)
        obs = np.asarray(obs, np.float32)
        prior = self.rollout(obs, mask)  # the rollout policy's own choice: forced moves and ties
        legal = mask.sum(axis=1)
        rows = (legal > 1).nonzero()[0]
        actions = prior.copy()
        if rows.size:
            per_row = self.worlds * legal[rows]
            start = 0
            while start < rows.size:  # chunks of at most max_rows rollouts (at least one decision)
                stop = start + max(1, int(np.searchsorted(np.cumsum(per_row[start:]), self.max_rows, "right")))
                chunk = rows[start:stop]
                actions[chunk] = self._search(obs[chunk], mask[chunk], prior[chunk])
                start = stop
        self.searched += rows.size
        return check_chosen(mask, actions)

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float64 [B, A]``: each legal action's mean result over the sampled worlds (NaN: illegal)."""
        mask = as_masks(mask)
        values = np.full(mask.shape, np.nan)
        values[mask] = self._values(np.asarray(obs, np.float32), mask)
        return values

    def _search(self, obs: np.ndarray, mask: np.ndarray, prior: np.ndarray) -> np.ndarray:
        """The best action by mean result, where it beats the prior's by ``confidence`` standard
        errors of the paired (same world) difference; else the prior's choice."""
        B, A = mask.shape
        per_world = np.zeros((B, A, self.worlds))
        per_world[mask] = self._results(obs, mask)
        ar = np.arange(B)
        diff = per_world - per_world[ar, prior][:, None, :]  # [B, A, W]
        mean = np.where(mask, diff.mean(axis=2), -np.inf)
        se = diff.std(axis=2, ddof=1) / np.sqrt(self.worlds) if self.worlds > 1 else np.zeros(mean.shape)
        best = mean.argmax(axis=1)
        sure = mean[ar, best] > self.confidence * se[ar, best] + 1e-12
        return np.where(sure, best, prior)

    def _values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Mean result of every legal action (``mask`` order, row-major) over ``worlds`` worlds each."""
        return self._results(obs, mask).mean(axis=1)

    def _results(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``[E, W]``: the result of every legal action (``mask`` order, row-major) in each world."""
        W = self.worlds
        eng = self.sample_worlds(obs, W)
        decision, action = mask.nonzero()  # one entry per (decision, legal action)
        world = decision[:, None] * W + np.arange(W)[None, :]  # [E, W]: the worlds of each entry
        rows = world.ravel()
        first = np.repeat(action, W)
        eng = eng.select(rows)
        result = np.zeros(rows.size)
        live = np.arange(rows.size)  # row of each game of `eng` in `result`
        rollout_actions = first
        steps = 0
        while True:
            next_obs, next_mask, rewards, done = eng.step(rollout_actions)
            self.rollout_steps += live.size
            steps += 1
            ended = done.nonzero()[0]
            if ended.size:
                result[live[ended]] = rewards[ended, 0]  # the observer's reward: its result
            playing = eng.phase != eng.over_phase
            if not playing.any():
                break
            if self.depth and steps > self.depth:  # stop here: the critic values the rest
                going = playing.nonzero()[0]
                result[live[going]] = self.leaf_values(eng, going)
                break
            if playing.mean() < 0.5:  # shrink the batch to the games still going
                keep = playing.nonzero()[0]
                eng, live = eng.select(keep), live[keep]
                next_obs, next_mask, playing = next_obs[keep], next_mask[keep], playing[keep]
            rollout_actions = np.zeros(live.size, np.int64)
            going = playing.nonzero()[0]
            rollout_actions[going] = self.rollout(next_obs[going], next_mask[going])
        return result.reshape(-1, W)


class UnoSearchPolicy(SearchPolicy):
    """Flat Monte Carlo search for classic UNO: worlds from :mod:`envs.uno.worlds`, played to
    the end of the hand (a match's later hands are not searched); the result is winning it."""

    game = "uno"

    @property
    def rules_type(self) -> type:
        from envs.uno import UnoRules

        return UnoRules

    def sample_worlds(self, obs: np.ndarray, worlds: int) -> Any:
        from envs.uno.worlds import sample_worlds

        return sample_worlds(obs, self.rules, worlds, self.rng)[0]


def search_class(game: str) -> type:
    """The search policy of a game (the trick game's lives in :mod:`agents.tricks_search`)."""
    if game == "tricks":
        from agents.tricks_search import TricksSearchPolicy

        return TricksSearchPolicy
    return UnoSearchPolicy
