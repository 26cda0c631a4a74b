"""Flat Monte Carlo search for the team trick game (``{name: search, worlds: 16, rollout: heuristic}``).

The search itself is :class:`agents.search.SearchPolicy`; this game supplies its worlds
(:mod:`envs.uno_tricks.worlds`: the observer at seat 0, its partner at seat 2, the cards
it cannot see dealt at random) and plays every rollout to the end of the game, all ten
tricks. The result is seat 0's reward, which partners share: the team's win, draw (0) or
loss under ``reward="win"``, its points margin under ``reward="points"``, so a draw counts
between a win and a loss and the search plays for what the table scores.
"""

from __future__ import annotations

import numpy as np

from agents.search import SearchPolicy
from envs.rng import RowStreams
from envs.uno_tricks import TricksEngine, TricksRules
from envs.uno_tricks.worlds import sample_worlds

__all__ = ["TricksSearchPolicy"]


class TricksSearchPolicy(SearchPolicy):
    """Flat Monte Carlo search for the trick game: worlds from :mod:`envs.uno_tricks.worlds`,
    played to the end of the game by the rollout policy on all four seats."""

    game = "tricks"

    @property
    def rules_type(self) -> type:
        return TricksRules

    def sample_worlds(self, obs: np.ndarray, worlds: int, rng: RowStreams) -> TricksEngine:
        return sample_worlds(obs, self.rules, worlds, rng)[0]
