"""The team trick game as a PettingZoo AEC environment and a Gymnasium single-seat environment.

Both drive a one-game :class:`~envs.uno_tricks.TricksEngine` through ``envs.wrappers``;
no rule is written here. Four agents, ``player_0`` … ``player_3``; partners sit opposite
(``player_0`` and ``player_2`` are team A) and share their team's reward.

>>> from envs import uno_tricks_v0
>>> env = uno_tricks_v0.env(render_mode="ansi", exchange_returns="two")
>>> env.reset(seed=0)

``vector_env(num_envs=N)`` steps ``N`` games in one engine, batched (:mod:`envs.vector`);
``gymnasium.make("unolab/UnoTricks-v0")`` / ``make_vec`` build them by id once ``envs`` is imported.

Observations are ``{"observation": float32[161], "action_mask": int8[89]}`` (layout in
``envs.uno_tricks.observation``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

import envs.uno_tricks as game
from envs.games import game as game_info
from envs.uno_tricks import TricksRules
from envs.uno_tricks.rules import NUM_PLAYERS
from envs.vector import SeatVectorEnv
from envs.wrappers import BatchedPolicy, EngineAEC, SeatEnv

DEFAULT_OPPONENT = game_info("tricks").default_opponent  # who plays the other seats when nobody says


def env(
    num_players: int = NUM_PLAYERS,
    rules: TricksRules | Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    **options: Any,
) -> AECEnv:
    """The AEC environment. It makes PettingZoo's order and bounds checks itself, so it
    comes without PettingZoo's wrapper layer (see :class:`~envs.wrappers.EngineAEC`).
    The arguments come in ``uno_v0.env``'s order, ``num_players`` first, so that code written
    for both games runs; the trick game seats exactly four."""
    return raw_env(rules=rules, render_mode=render_mode, num_players=num_players, **options)


class raw_env(EngineAEC, EzPickle):  # noqa: N801 (PettingZoo's naming convention)
    """The trick game for four players; ``options`` are ``TricksRules`` fields."""

    game = game
    metadata = {"render_modes": ["ansi", "human"], "name": "uno_tricks_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        num_players: int = NUM_PLAYERS,
        rules: TricksRules | Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        EzPickle.__init__(self, rules=rules, render_mode=render_mode, num_players=num_players, **options)
        TricksRules().check_players(num_players)
        super().__init__(NUM_PLAYERS, rules, render_mode, options)


def gym_env(
    opponent: BatchedPolicy | Sequence[BatchedPolicy], num_players: int = NUM_PLAYERS, seat: int = 0, **kwargs: Any
) -> SeatEnv:
    """A Gymnasium env for one seat; ``opponent`` plays the three others (or give three policies,
    one per seat after the learner's, from the next seat on: the second is the partner). Other keyword arguments as for
    :class:`~envs.wrappers.SeatEnv`."""
    TricksRules().check_players(num_players)
    return SeatEnv(game, opponent, num_players=NUM_PLAYERS, seat=seat, **kwargs)


def vector_env(
    num_envs: int = 64,
    opponent: BatchedPolicy | Any | Sequence[BatchedPolicy | Any] = DEFAULT_OPPONENT,
    num_players: int = NUM_PLAYERS,
    seat: int | None = 0,
    **kwargs: Any,
) -> SeatVectorEnv:
    """A Gymnasium vector env of ``num_envs`` games in one engine, one learner seat each;
    ``opponent`` plays the three others (or three policies: the next seat, the partner,
    the seat before the learner's). Other keyword arguments as for
    :class:`~envs.vector.SeatVectorEnv`."""
    TricksRules().check_players(num_players)
    return SeatVectorEnv(game, num_envs, opponent, num_players=NUM_PLAYERS, seat=seat, **kwargs)
