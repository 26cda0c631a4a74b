"""Classic UNO as a PettingZoo AEC environment and a Gymnasium single-agent environment.

Both drive a one-game :class:`~envs.uno.UnoEngine`; no rule is written here.

>>> from envs import uno_v0
>>> env = uno_v0.env(num_players=4, stacking=True, render_mode="ansi")
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

Observations are ``{"observation": float32[328], "action_mask": int8[70]}`` (layout in
``envs.uno.observation``); rewards arrive when the game ends, for every agent at once.
An illegal action raises :class:`~envs.uno.IllegalActionError` and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.uno import NUM_ACTIONS, IllegalActionError, UnoEngine, UnoRules
from envs.uno.observation import observation_bounds
from envs.uno.render import render_position

BatchedPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]


def make_rules(rules: UnoRules | Mapping[str, Any] | None, options: Mapping[str, Any]) -> UnoRules:
    """Rules from a ``UnoRules``, a mapping or None, with keyword options on top."""
    if isinstance(rules, UnoRules):
        base = rules.to_dict()
    elif rules is None:
        base = {}
    elif isinstance(rules, Mapping):
        base = dict(rules)
    else:
        raise ValueError(f"rules must be a UnoRules, a mapping of options or None, got {type(rules).__name__}")
    return UnoRules.from_dict({**base, **options})


def observation_space(rules: UnoRules) -> spaces.Dict:
    low, high = observation_bounds(rules.target_score)
    return spaces.Dict(
        {
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
        }
    )


class LegalDiscrete(spaces.Discrete):
    """``Discrete(70)`` whose ``sample()`` without a mask draws among the legal actions.

    A single-agent env refuses illegal actions, so an unmasked sample (random agents,
    Gymnasium's ``check_env``) would crash it; sampling with an explicit mask is unchanged.
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray]) -> None:
        super().__init__(n)
        self._legal_mask = legal_mask

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None:
            legal = self._legal_mask()
            if legal is not None and legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)


def env(
    num_players: int = 2,
    rules: UnoRules | Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    **options: Any,
) -> AECEnv:
    """The AEC environment with PettingZoo's standard safety wrappers."""
    aec = raw_env(num_players=num_players, rules=rules, render_mode=render_mode, **options)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    return wrappers.OrderEnforcingWrapper(aec)


class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo's naming convention)
    metadata = {"render_modes": ["ansi", "human"], "name": "uno_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        num_players: int = 2,
        rules: UnoRules | Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        EzPickle.__init__(self, num_players=num_players, rules=rules, render_mode=render_mode, **options)
        super().__init__()
        self.rules = make_rules(rules, options)
        self.rules.check_players(num_players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.num_players = num_players
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {a: observation_space(self.rules) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.engine: UnoEngine | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if self.engine is None or seed is not None:
            self.engine = UnoEngine(1, self.num_players, self.rules, seed=seed, auto_reset=False)
        obs, mask = self.engine.reset()
        self._cache = (int(self.engine.current[0]), obs[0], mask[0])
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._cache[0]]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        if self._cache[0] == seat:
            obs, mask = self._cache[1], self._cache[2]
        else:
            o, m = self.engine.observe(seats=seat)
            obs, mask = o[0], m[0]
        return {"observation": obs.copy(), "action_mask": mask.astype(np.int8)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        obs, mask, rewards, done = self.engine.step(np.array([action], dtype=np.int64))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(rewards[0, i]) for i, a in enumerate(self.possible_agents)}
        if done[0]:
            self.terminations = {a: True for a in self.agents}
        self._cache = (int(self.engine.current[0]), obs[0], mask[0])
        self.agent_selection = self.possible_agents[self._cache[0]]
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def position(self) -> dict[str, Any]:
        """The readable position of the game (for logs, saving, bug reports)."""
        return self.engine.position(0)

    def render(self) -> str | None:
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        return render_position(self.position(), target_score=self.rules.target_score if self.rules.match else None)

    def close(self) -> None:
        pass


class UnoGymEnv(gym.Env):
    """One seat of classic UNO; the other seats are played by batched policies.

    ``opponent`` is a batched policy ``(obs [k, 328], mask [k, 70]) -> actions [k]`` used
    for every other seat, or a sequence of them, one per other seat in seat order. A
    policy with a ``seed(int)`` method is reseeded by ``reset(seed=...)``, so seeded
    episodes repeat. The observation is a dict like PettingZoo's; ``action_masks()``
    serves maskable learners, and ``action_space.sample()`` draws a legal action.

    An illegal action, with ``illegal_action="lose"`` (default, PettingZoo classic's
    convention), ends the episode with reward -1 for the seat and
    ``info["illegal_action"]`` naming the action and the legal ones; with ``"raise"`` it
    raises :class:`~envs.uno.IllegalActionError`. Either way the game state is unchanged.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        opponent: BatchedPolicy | Sequence[BatchedPolicy],
        num_players: int = 2,
        seat: int = 0,
        rules: UnoRules | Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        illegal_action: str = "lose",
        **options: Any,
    ) -> None:
        self.rules = make_rules(rules, options)
        self.rules.check_players(num_players)
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        if not 0 <= seat < num_players:
            raise ValueError(f"seat must lie in 0..{num_players - 1}, got {seat}")
        others = [s for s in range(num_players) if s != seat]
        if callable(opponent):
            self.opponents = {s: opponent for s in others}
        else:
            opponent = list(opponent)
            if len(opponent) != len(others) or not all(callable(p) for p in opponent):
                raise ValueError(f"opponent: one policy, or {len(others)} policies (one per other seat)")
            self.opponents = dict(zip(others, opponent, strict=True))
        self.num_players, self.seat = num_players, seat
        self.render_mode = render_mode
        self.observation_space = observation_space(self.rules)
        self.action_space = LegalDiscrete(NUM_ACTIONS, lambda: self._mask)
        self.engine: UnoEngine | None = None
        self._mask: np.ndarray | None = None

    def _play_others(self) -> tuple[np.ndarray, np.ndarray, float, bool]:
        """Let the opponents act until it is our seat's turn or the game is over."""
        eng = self.engine
        obs, mask = eng.observe()
        reward, done = 0.0, False
        while not done and eng.current[0] != self.seat:
            policy = self.opponents[int(eng.current[0])]
            obs, mask, rewards, d = eng.step(np.asarray(policy(obs, mask), dtype=np.int64))
            reward += float(rewards[0, self.seat])
            done = bool(d[0])
        return obs, mask, reward, done

    def _dict(self, obs: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
        return {"observation": obs[0].copy(), "action_mask": mask[0].astype(np.int8)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self.engine is None or seed is not None:
            engine_seed = int(self.np_random.integers(2**63))
            self.engine = UnoEngine(1, self.num_players, self.rules, seed=engine_seed, auto_reset=False)
            for policy in {id(p): p for p in self.opponents.values()}.values():
                if hasattr(policy, "seed"):
                    policy.seed(int(self.np_random.integers(2**63)))
        self.engine.reset()
        obs, mask, _, _ = self._play_others()  # a game never ends before every seat has played
        self._mask = mask[0]
        self._over = False
        return self._dict(obs, mask), {}

    def step(self, action: int):
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        try:
            obs, mask, rewards, done = self.engine.step(np.array([action], dtype=np.int64))
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise
            self._over = True
            obs, mask = self.engine.observe()
            return self._dict(obs, np.zeros_like(mask)), -1.0, True, False, {"illegal_action": str(err)}
        reward = float(rewards[0, self.seat])
        if not done[0]:
            obs, mask, more, over = self._play_others()
            reward += more
            done = np.array([over])
        self._mask = mask[0]
        self._over = bool(done[0])
        return self._dict(obs, mask), reward, bool(done[0]), False, {}

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        target = self.rules.target_score if self.rules.match else None
        return render_position(self.engine.position(0), viewer=self.seat, target_score=target)


def gym_env(opponent: BatchedPolicy | Sequence[BatchedPolicy], **kwargs: Any) -> UnoGymEnv:
    """A Gymnasium env for one seat; keyword arguments as for :class:`UnoGymEnv`."""
    return UnoGymEnv(opponent, **kwargs)
