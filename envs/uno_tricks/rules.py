"""Every rule option of the team trick game (docs/tricks.md), validated on construction."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.core import RulesBase

NUM_PLAYERS = 4  # partners sit opposite: seats 0 and 2 are team A, 1 and 3 team B
TEAM_NAMES = ("A", "B")  # the two sides, as reports and screens name them (envs.games: side_of)
NUMBERS_DEALT = 10
SPECIALS_DEALT = 3
PLUS2_DRAW = 2  # number cards a +2 lets its player draw (at most)
PLUS4_DRAW = 4  # ... and a +4
LITERAL_RETURNS = 2  # cards put back after drawing under exchange_returns="two"

#: ``reward="points"`` pays (own team's points - the other team's) times this constant.
POINTS_REWARD_SCALE = 0.01

_CHOICES = {"exchange_returns": ("drawn", "two"), "reward": ("win", "points")}


@dataclass(frozen=True)
class TricksRules(RulesBase):
    """Rules of the trick game.

    Attributes:
        exchange_returns: after a +2 or +4 the player puts back ``"drawn"`` (as many number
            cards as it drew, so hand sizes never change: ten tricks) or ``"two"`` (the
            literal reading: exactly two, or the whole hand if it holds fewer).
        reward: ``"win"`` (+1 to both winners, -1 to both losers, 0 on a draw) or
            ``"points"`` (own team's points minus the other's, times
            :data:`POINTS_REWARD_SCALE`); partners always share their team's reward.
    """

    exchange_returns: str = "drawn"
    reward: str = "win"

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"TricksRules.{name}={getattr(self, name)!r} is not an option; allowed: {', '.join(allowed)}"
                )

    def check_players(self, num_players: int) -> None:
        """The trick game is for exactly four players (two teams of two)."""
        if (
            isinstance(num_players, (bool, np.bool_))
            or not isinstance(num_players, (int, np.integer))
            or (num_players != NUM_PLAYERS)
        ):
            raise ValueError(f"the trick game is for exactly 4 players (two teams of two), got {num_players!r}")
