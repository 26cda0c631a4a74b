"""Our PettingZoo envs with the observation keys RLlib's action-masking module reads.

RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes``) expects
``{"observations": ..., "action_mask": float}``; ours are ``{"observation": ...,
"action_mask": int8}``. :class:`RLlibKeys` renames the key, casts the mask, and scales
each observation feature into [-1, 1] by its bound (RLlib's default network has no input
scaling; ours divides by the same bounds). Nothing here imports Ray.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper


class RLlibKeys(BaseWrapper):
    """An AEC env whose observations are ``{"observations": float32, "action_mask": float32}``."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._spaces: dict[Any, spaces.Dict] = {}
        self._scale: dict[Any, np.ndarray] = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            box, mask = inner["observation"], inner["action_mask"]
            bound = np.maximum(np.abs(box.low), np.abs(box.high)).astype(np.float32)
            self._scale[agent] = np.where(bound > 0, 1.0 / np.maximum(bound, 1e-12), 1.0).astype(np.float32)
            self._spaces[agent] = spaces.Dict(
                {
                    "observations": spaces.Box(-1.0, 1.0, box.shape, np.float32),
                    "action_mask": spaces.Box(0.0, 1.0, mask.shape, np.float32),
                }
            )

    def observation_space(self, agent: Any) -> spaces.Dict:
        return self._spaces[agent]

    @property
    def observation_spaces(self) -> dict[Any, spaces.Dict]:
        """The renamed spaces (PettingZoo's attribute; the inner env's would describe its keys)."""
        return dict(self._spaces)

    def observe(self, agent: Any) -> dict[str, np.ndarray] | None:
        obs = super().observe(agent)
        if obs is None:
            return None
        return {
            "observations": np.clip(obs["observation"] * self._scale[agent], -1.0, 1.0).astype(np.float32),
            "action_mask": np.asarray(obs["action_mask"], np.float32),
        }


def uno_env(num_players: int = 2, **options: Any) -> RLlibKeys:
    """Classic UNO (``envs.uno_v0``) with RLlib's key names; ``options`` are ``UnoRules`` fields."""
    from envs import uno_v0

    return RLlibKeys(uno_v0.env(num_players=num_players, **options))
