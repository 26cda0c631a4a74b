"""Classic UNO as a PettingZoo AEC environment and a Gymnasium single-seat environment.

Both drive a one-game :class:`~envs.uno.UnoEngine` through ``envs.wrappers``; no rule is
written here.

>>> from envs import uno_v0
>>> env = uno_v0.env(num_players=4, stacking=True, render_mode="ansi")
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

``vector_env(num_envs=N, opponent="heuristic")`` steps ``N`` games in one engine, batched
(:mod:`envs.vector`); ``gymnasium.make("unolab/Uno-v0")`` and ``gymnasium.make_vec(
"unolab/Uno-v0", num_envs=N)`` build them by id once ``envs`` is imported.

Observations are ``{"observation": float32[449], "action_mask": int8[79]}`` (layout in
``envs.uno.observation``); rewards arrive when the game ends, for every agent at once.
An illegal action raises :class:`~envs.core.IllegalActionError` and changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

import envs.uno as game
from envs.games import game as game_info
from envs.uno import UnoRules
from envs.vector import SeatVectorEnv
from envs.wrappers import BatchedPolicy, EngineAEC, SeatEnv

DEFAULT_OPPONENT = game_info("uno").default_opponent  # who plays the other seats when nobody says


def env(
    num_players: int = 2,
    rules: UnoRules | Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    **options: Any,
) -> AECEnv:
    """The AEC environment. It makes PettingZoo's order and bounds checks itself, so it
    comes without PettingZoo's wrapper layer (see :class:`~envs.wrappers.EngineAEC`)."""
    return raw_env(num_players=num_players, rules=rules, render_mode=render_mode, **options)


class raw_env(EngineAEC, EzPickle):  # noqa: N801 (PettingZoo's naming convention)
    """Classic UNO for 2-10 players; ``options`` are ``UnoRules`` fields."""

    game = game
    metadata = {"render_modes": ["ansi", "human"], "name": "uno_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        num_players: int = 2,
        rules: UnoRules | Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        EzPickle.__init__(self, num_players=num_players, rules=rules, render_mode=render_mode, **options)
        super().__init__(num_players, rules, render_mode, options)


def gym_env(
    opponent: BatchedPolicy | Sequence[BatchedPolicy], num_players: int = 2, seat: int = 0, **kwargs: Any
) -> SeatEnv:
    """A Gymnasium env for one seat; other keyword arguments as for :class:`~envs.wrappers.SeatEnv`."""
    return SeatEnv(game, opponent, num_players=num_players, seat=seat, **kwargs)


def vector_env(
    num_envs: int = 64,
    opponent: BatchedPolicy | Any | Sequence[BatchedPolicy | Any] = DEFAULT_OPPONENT,
    num_players: int = 2,
    seat: int | None = 0,
    **kwargs: Any,
) -> SeatVectorEnv:
    """A Gymnasium vector env of ``num_envs`` games in one engine, one learner seat each
    (``seat``; None: a random seat per game); other keyword arguments as for
    :class:`~envs.vector.SeatVectorEnv` (``rules``, ``illegal_action``, rule options)."""
    return SeatVectorEnv(game, num_envs, opponent, num_players=num_players, seat=seat, **kwargs)
