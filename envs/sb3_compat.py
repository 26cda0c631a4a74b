"""Stable-Baselines3 on the batched vector env: ``sb3_vec_env(uno_v0.vector_env(N))``.

SB3 has its own ``VecEnv`` interface (``step_async``/``step_wait``, ``dones``, a list of
info dicts); this thin adapter gives it :class:`~envs.vector.SeatVectorEnv` unchanged, so
``MaskablePPO("MultiInputPolicy", sb3_vec_env(venv))`` trains on ``N`` engine games without
``DummyVecEnv``'s Python loop over envs. sb3-contrib finds the masks through
``env_method("action_masks")``. Stable-Baselines3 is not a dependency of the lab: this
module imports it, nothing else does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from envs.vector import SeatVectorEnv


class SB3VecEnv(VecEnv):
    """SB3's ``VecEnv`` over a :class:`~envs.vector.SeatVectorEnv` (same-step autoreset, as
    SB3 expects). A game cut by ``max_episode_steps`` reports ``TimeLimit.truncated`` and its
    ``terminal_observation`` (SB3 bootstraps its value); a game that ends needs neither."""

    def __init__(self, venv: SeatVectorEnv) -> None:
        self.venv = venv
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> dict[str, np.ndarray]:
        """Deal every game again, with the seed and options SB3's ``seed()`` and ``set_options()``
        gave (once: SB3 clears them after a reset). The games share one engine, so they take
        one set of options (the vector env's, such as ``reset_mask``)."""
        seed, options = self._seeds[0], self._options[0]
        if any(not _same_options(o, options) for o in self._options):
            raise ValueError("set_options: the games share one engine and take one set of options, got different ones")
        obs, _ = self.venv.reset(seed=seed, options=options or None)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, reward, terminated, truncated, infos = self.venv.step(self._actions)
        done = terminated | truncated
        per_env: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "illegal_action" in infos:
            for i in np.flatnonzero(infos["illegal_action"]):
                per_env[i]["illegal_action"] = True
        for i in np.flatnonzero(truncated):
            per_env[i]["TimeLimit.truncated"] = True
            per_env[i]["terminal_observation"] = infos["final_obs"][i]
        return obs, reward.astype(np.float32), done, per_env

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def _indices(self, indices: None | int | Iterable[int]) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name: str, indices: None | int | Iterable[int] = None) -> list[Any]:
        """The vector env's attribute, once per asked sub-env (they share one engine)."""
        value = getattr(self.venv, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: None | int | Iterable[int] = None) -> None:
        """Set on the vector env: for every sub-env at once (they share one engine), so
        ``indices`` must name them all."""
        if sorted(self._indices(indices)) != list(range(self.num_envs)):
            raise ValueError(f"set_attr {attr_name!r}: the sub-envs share one engine; set it for all (indices=None)")
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: None | int | Iterable[int] = None, **kwargs: Any):
        """``action_masks``: each sub-env's row; another method: called once, its result per sub-env."""
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self.venv, method_name)(*args, **kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class: type, indices: None | int | Iterable[int] = None) -> list[bool]:
        return [False for _ in self._indices(indices)]


def _same_options(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two games' reset options are one (values compared as arrays: a ``reset_mask`` is one)."""
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def sb3_vec_env(venv: SeatVectorEnv) -> SB3VecEnv:
    """SB3's view of ``venv`` (``uno_v0.vector_env(...)`` or ``uno_tricks_v0.vector_env(...)``)."""
    return SB3VecEnv(venv)
