"""PettingZoo AEC and Gymnasium single-seat environments over any batched engine of the lab.

The game packages (``envs.uno``, ``envs.uno_tricks``) expose the same names: ``Engine``,
``Rules``, ``NUM_ACTIONS``, ``observation_bounds(rules)`` and
``render_position(position, viewer=None, rules=None)``. The versioned modules
(``envs.uno_v0``, ``envs.uno_tricks_v0``) bind these classes to one game; nothing here
knows a rule.
"""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from envs.core import IllegalActionError

BatchedPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]


def make_rules(game: ModuleType, rules: Any, options: Mapping[str, Any], arguments: Sequence[str] = ()) -> Any:
    """Rules of ``game`` from a rules object, a mapping or None, with keyword options on top.
    ``arguments``: the env's own keyword arguments, named beside the rule options when a
    keyword is neither (a misspelt ``illegal_action`` is no rule option either)."""
    fields = game.Rules.option_names()
    unknown = sorted(str(k) for k in options if k not in fields)
    if unknown and arguments:
        raise ValueError(
            f"unknown argument(s) {', '.join(unknown)}; the env's own: {', '.join(arguments)}; "
            f"{game.Rules.__name__} options: {', '.join(fields)}"
        )
    if isinstance(rules, game.Rules):
        base = rules.to_dict()
    elif rules is None:
        base = {}
    elif isinstance(rules, Mapping):
        base = dict(rules)
    else:
        name = game.Rules.__name__
        raise ValueError(f"rules must be a {name}, a mapping of options or None, got {type(rules).__name__}")
    return game.Rules.from_dict({**base, **options})


def refuse_reset_options(options: Mapping[str, Any] | None) -> None:
    """``reset(options=...)`` of the one-game envs takes none: a key is refused, not ignored."""
    if options:
        raise ValueError(f"reset options: unknown {', '.join(map(repr, options))}; this env takes none")


def own_arguments(cls: type) -> list[str]:
    """The keyword arguments an env class takes itself (its ``**options`` are rule options),
    read from its signature, for the message a misspelt keyword gets."""
    params = inspect.signature(cls.__init__).parameters.values()
    return [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD and p.name not in ("self", "game")]


def observation_space(game: ModuleType, rules: Any) -> spaces.Dict:
    low, high = game.observation_bounds(rules)
    return spaces.Dict(
        {
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(game.NUM_ACTIONS,), dtype=np.int8),
        }
    )


def opponent_policy(game: ModuleType, spec: Any, rules: Any = None) -> BatchedPolicy:
    """A batched policy, or one built from its spec as configs write it (``"heuristic"``,
    ``{"name": "heuristic", "bluff": 1}``) for ``game`` under ``rules`` (the table's rules
    object: a policy that reads them, such as ``heuristic`` under seven_zero, plays them)."""
    if callable(spec):
        return spec
    if isinstance(spec, (str, Mapping)):
        from agents.registry import make_policy  # agents build on envs: imported on use

        return make_policy(game.Engine.game, spec, seed=None, rules=None if rules is None else rules.to_dict())
    raise ValueError(f"opponent: a batched policy or a policy spec by name, got {spec!r}")


def opponent_policies(game: ModuleType, opponent: Any, others: int, rules: Any = None) -> list[BatchedPolicy]:
    """The batched policies of the seats after the learner's, in seat order from it (the next
    seat first; at the trick game's table the second is the partner): one policy (or spec) for
    all of them, or a list of ``others``. The single-seat and the vector envs read it alike."""
    if callable(opponent) or isinstance(opponent, (str, Mapping)):
        policies = [opponent_policy(game, opponent, rules)] * others
        given = [opponent]
    elif not isinstance(opponent, (list, tuple)):
        raise ValueError(
            f"opponent: a batched policy, a policy spec, or a list of {others} (one per seat after the "
            f"learner's), got {opponent!r}"
        )
    elif len(opponent) != others:
        raise ValueError(f"opponent: one policy, or {others} (one per seat after the learner's); got {len(opponent)}")
    else:
        policies, given = [opponent_policy(game, p, rules) for p in opponent], list(opponent)
    specs = [p for p in given if isinstance(p, (str, Mapping))]
    if specs:  # a checkpoint fitted to another table plays, but the user is told, as evaluate.py tells
        # (stacklevel: the line that called the game's gym_env / vector_env)
        from agents.registry import table_notes

        for note in table_notes(game.Engine.game, specs, {} if rules is None else rules.to_dict(), others + 1):
            warnings.warn(f"opponent {note}: it plays a table it was not trained for", UserWarning, stacklevel=4)
    return policies


def action_id(action: Any, num_actions: int, who: str) -> int:
    """An action as the envs take it: a Python or numpy integer (a 0-d integer array too);
    a float, string or bool is refused (``IllegalActionError``) rather than rounded or parsed."""
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise IllegalActionError(f"{who}: an action is an integer id in 0..{num_actions - 1}, got {action!r}")
    return int(action)


def out_of_range(who: str, action: int, action_names: Sequence[str], mask: np.ndarray) -> IllegalActionError:
    """The error for an integer action outside ``0..n-1`` (any size: one beyond int64 too),
    naming the legal ones of ``mask``."""
    legal = ", ".join(f"'{action_names[a]}'" for a in np.flatnonzero(mask))
    return IllegalActionError(f"{who}: action {action} is out of range 0..{len(action_names) - 1}; legal here: {legal}")


def _bind_legal(space: spaces.Space, legal: Callable[[], np.ndarray | None] | None) -> None:
    """Let ``space.sample()`` draw among ``legal()`` (an env's bound method, remembered by name
    so the env can bind it again when it is unpickled: :class:`PicklesGameByName`)."""
    space.legal = legal
    if legal is not None:
        space.legal_source = legal.__name__


def _state_without_env(space: spaces.Space) -> dict[str, Any]:
    """A space pickles without its env (a saved SB3 model held a copy of the env and its
    opponents); unpickled alone it samples as a plain space."""
    return {**space.__dict__, "legal": None}


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws among the legal actions.

    A single-agent env refuses illegal actions, so an unmasked sample (random agents,
    Gymnasium's ``check_env``) would end the episode; sampling with a mask is unchanged.
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray | None]) -> None:
        super().__init__(n)
        _bind_legal(self, legal_mask)

    __getstate__ = _state_without_env

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None:
            legal = self.legal() if self.legal else None
            if legal is not None and legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)


class LegalMultiDiscrete(spaces.MultiDiscrete):
    """The vector env's batched action space: ``MultiDiscrete([n] * N)`` whose ``sample()``
    without a mask draws a legal action in every game (Gymnasium's random loop
    ``envs.step(envs.action_space.sample())`` then plays, as :class:`LegalDiscrete` lets a
    single env's); sampling with a mask is unchanged."""

    def __init__(self, n: int, num_envs: int, legal_masks: Callable[[], np.ndarray | None]) -> None:
        super().__init__(np.full(num_envs, n, np.int64))
        _bind_legal(self, legal_masks)

    __getstate__ = _state_without_env

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        legal = self.legal() if self.legal and mask is None and probability is None else None
        if legal is None:
            return super().sample(mask=mask, probability=probability)
        draw = self.np_random.random(legal.shape)
        return np.where(legal, draw, -1.0).argmax(axis=1).astype(self.dtype)


class EngineAEC(AECEnv):
    """A PettingZoo AEC environment over a one-game engine (``auto_reset`` off).

    Agents ``player_0``…; observations ``{"observation", "action_mask"}``; rewards come
    for every agent when the game ends. An illegal or out-of-range action raises
    :class:`~envs.core.IllegalActionError` naming the legal ones and changes nothing.

    It enforces PettingZoo's call order itself (``step``, ``observe``, ``render`` or
    ``agent_iter`` before ``reset`` is an error; ``step`` once every agent is done only
    warns), the checks of PettingZoo's ``OrderEnforcingWrapper`` and
    ``AssertOutOfBoundsWrapper``, so ``env()`` needs no wrapper layer: those forward
    every attribute read through Python, which cost more than the game step itself.
    """

    game: ModuleType
    metadata: dict[str, Any]

    def __getstate__(self) -> dict[str, Any]:
        """A copy or a pickle keeps the game in progress (``EzPickle`` alone would deal anew)."""
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __init__(self, num_players: int, rules: Any, render_mode: str | None, options: Mapping[str, Any]) -> None:
        super().__init__()
        self.rules = make_rules(self.game, rules, options, own_arguments(type(self)))
        self.rules.check_players(num_players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.num_players = num_players
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {a: observation_space(self.game, self.rules) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.game.NUM_ACTIONS) for a in self.possible_agents}
        self.engine = None
        self._action = np.zeros(1, np.int64)  # the engine's one-game action array, reused

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    #: What :meth:`reset` sets; asked for before it, each is an ``AttributeError`` that says so.
    _SET_BY_RESET = frozenset(
        ("agent_selection", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos", "_cache")
    )

    def __getattr__(self, name: str) -> Any:
        if name in EngineAEC._SET_BY_RESET:
            raise AttributeError(f"{name} cannot be read before reset(): call reset() first")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game (``seed``: a fresh stream). ``options`` are ignored: PettingZoo's
        ``api_test`` passes some and requires that they be accepted."""
        if self.engine is None or seed is not None:
            self.engine = self.game.Engine(1, self.num_players, self.rules, seed=seed, auto_reset=False)
        obs, mask = self.engine.reset()
        self._cache = (int(self.engine.current[0]), obs[0], mask[0])
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._cache[0]]

    def _require_reset(self, what: str) -> None:
        if self.engine is None:
            raise RuntimeError(f"reset() must be called before {what}()")

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._require_reset("observe")
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        seat = self._seat[agent]
        if self._cache[0] == seat:
            obs, mask = self._cache[1], self._cache[2]
        else:
            o, m = self.engine.observe(seats=seat)
            obs, mask = o[0], m[0]
        return {"observation": obs.copy(), "action_mask": mask.astype(np.int8)}

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        self._require_reset("agent_iter")
        return super().agent_iter(max_iter)

    def step(self, action: int | None) -> None:
        self._require_reset("step")
        if not self.agents:
            gym.logger.warn("step() called after every agent is done: call reset() to play again")
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = action_id(action, self.game.NUM_ACTIONS, agent)
        if not 0 <= action < self.game.NUM_ACTIONS:
            raise out_of_range(agent, action, self.engine.action_names, self._cache[2])
        self._action[0] = action
        try:
            obs, mask, rewards, done = self.engine.step(self._action)
        except IllegalActionError as err:  # the engine's words name its game and seat: say the agent's name
            raise IllegalActionError(re.sub(r"^game \d+: player \d+", agent, str(err))) from None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if done[0]:  # every seat's reward arrives when the game ends
            self.rewards = {a: float(rewards[0, i]) for i, a in enumerate(self.possible_agents)}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        self._cache = (int(self.engine.current[0]), obs[0], mask[0])
        self.agent_selection = self.possible_agents[self._cache[0]]
        if self.render_mode == "human":
            self.render()

    def position(self) -> dict[str, Any]:
        """The readable position of the game (for logs, saving, bug reports)."""
        return self.engine.position(0)

    def render(self) -> str | None:
        self._require_reset("render")
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        text = self.game.render_position(self.position(), rules=self.rules)
        if self.render_mode == "human":  # PettingZoo's contract: human mode shows, and returns None
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class PicklesGameByName:
    """Picklable (``AsyncVectorEnv``, ``SubprocVecEnv``, Ray): the ``game`` module attribute
    travels by name and is imported again on the other side."""

    game: ModuleType

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "game": self.game.__name__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        import importlib

        self.__dict__.update(state, game=importlib.import_module(state["game"]))
        space = self.__dict__.get("action_space")
        if getattr(space, "legal_source", None) and space.legal is None:  # unpickled: bind it to this env
            _bind_legal(space, getattr(self, space.legal_source))


class SeatEnv(PicklesGameByName, gym.Env):
    """One seat of a game; the other seats are played by batched policies.

    ``opponent`` is a batched policy ``(obs [k, OBS], mask [k, A]) -> actions [k]`` used
    for every other seat, or a list of them, one per seat after the learner's, from the next
    seat on (:func:`opponent_policies`, as the vector env reads it: at the trick game's table
    the second is the partner); a policy may also be given by its spec, as configs
    write it: ``"heuristic"`` or ``{"name": "heuristic", "bluff": 0.5}``. A policy with a
    ``seed(int)`` method is reseeded by ``reset(seed=...)``, so seeded episodes repeat. The observation is a dict like
    PettingZoo's; ``action_masks()`` serves maskable learners, and
    ``action_space.sample()`` draws a legal action.

    An illegal action, with ``illegal_action="lose"`` (default, PettingZoo classic's
    convention), ends the episode with reward -1 for the seat and
    ``info["illegal_action"]`` naming the action and the legal ones; with ``"raise"`` it
    raises :class:`~envs.core.IllegalActionError`. Either way the game state is unchanged.
    Gymnasium's ``check_env`` passes under ``"lose"`` only: its determinism check samples an
    action (legal in the position before) and then resets, and under ``"raise"`` that action,
    illegal in the new deal, raises.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}
    #: ENDED_MASK: once the episode has ended, the mask (``action_masks()`` and the
    #: observation's ``action_mask``) allows every action. There is no move to make, but a
    #: vector env in next-step autoreset mode asks its sampler for one more action (which the
    #: reset ignores), and an all-False mask breaks masked samplers.

    def __init__(
        self,
        game: ModuleType,
        opponent: BatchedPolicy | Sequence[BatchedPolicy],
        num_players: int,
        seat: int = 0,
        rules: Any = None,
        render_mode: str | None = None,
        illegal_action: str = "lose",
        **options: Any,
    ) -> None:
        self.game = game
        self.rules = make_rules(game, rules, options, own_arguments(type(self)))
        self.rules.check_players(num_players)
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < num_players:
            raise ValueError(f"seat must be an integer in 0..{num_players - 1}, got {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']} (or None)")
        seat = int(seat)
        policies = opponent_policies(game, opponent, num_players - 1, self.rules)
        self.opponents = {(seat + k) % num_players: p for k, p in enumerate(policies, 1)}  # by seat
        self.num_players, self.seat = num_players, seat
        self.render_mode = render_mode
        self.observation_space = observation_space(game, self.rules)
        self.action_space = LegalDiscrete(game.NUM_ACTIONS, self._legal_mask)
        self.engine = None
        self._mask: np.ndarray | None = None
        self._over = True

    def _play_others(self) -> tuple[np.ndarray, np.ndarray, float, bool]:
        """Let the other seats act until it is our seat's turn or the game is over."""
        eng = self.engine
        obs, mask = eng.observe()
        reward, done = 0.0, False
        while not done and eng.current[0] != self.seat:
            seat = int(eng.current[0])
            try:
                obs, mask, rewards, d = eng.step(np.asarray(self.opponents[seat](obs, mask), dtype=np.int64))
            except IllegalActionError as err:
                self._over, self._mask = True, None  # half played: only a reset makes it consistent again
                raise IllegalActionError(
                    f"the opponent policy of seat {seat} chose an illegal action ({err}); reset() the env"
                ) from None
            reward += float(rewards[0, self.seat])
            done = bool(d[0])
        if done:  # the game ended on another seat's move: the view is still this seat's
            obs, mask = eng.observe(seats=self.seat)
        return obs, mask, reward, done

    def _dict(self, obs: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
        return {"observation": obs[0].copy(), "action_mask": mask[0].astype(np.int8)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        refuse_reset_options(options)
        super().reset(seed=seed)
        if self.engine is None or seed is not None:
            engine_seed = int(self.np_random.integers(2**63))
            self.engine = self.game.Engine(1, self.num_players, self.rules, seed=engine_seed, auto_reset=False)
            for policy in {id(p): p for p in self.opponents.values()}.values():
                if hasattr(policy, "seed"):
                    policy.seed(int(self.np_random.integers(2**63)))
        while True:  # a game the others end before this seat's first move (a Draw Two chain) is no episode
            self.engine.reset()
            obs, mask, _, done = self._play_others()
            if not done:
                break
        self._mask = mask[0]
        self._over = False
        if self.render_mode == "human":
            self.render()
        return self._dict(obs, mask), {}

    def step(self, action: int):
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        action = action_id(action, self.action_space.n, "gym_env")  # 66.9 or "17" is a bug, not move 66
        try:
            if not 0 <= action < self.action_space.n:  # before int64: 2**64 - 1 is no OverflowError
                raise out_of_range("gym_env", action, self.engine.action_names, self._mask)
            obs, mask, rewards, done = self.engine.step(np.array([action], dtype=np.int64))
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise
            self._over = True
            obs, mask = self.engine.observe(seats=self.seat)
            self._mask = np.ones_like(mask[0])
            return self._dict(obs, self._mask[None]), -1.0, True, False, {"illegal_action": str(err)}
        reward = float(rewards[0, self.seat])
        over = bool(done[0])
        if over:  # its own move ended the game: its own view of the end, not the next seat's
            obs, mask = self.engine.observe(seats=self.seat)
        else:
            obs, mask, more, over = self._play_others()
            reward += more
        if over:  # see ENDED_MASK
            mask = np.ones_like(mask)
        self._mask = mask[0]
        self._over = over
        if self.render_mode == "human":
            self.render()
        return self._dict(obs, mask), reward, over, False, {}

    def _legal_mask(self) -> np.ndarray | None:
        return self._mask

    def action_masks(self) -> np.ndarray:
        if self._mask is None:
            raise RuntimeError("reset() must be called before action_masks()")
        return self._mask.astype(bool)

    def render(self) -> str | None:
        """The table as this seat sees it: returned in ``ansi`` mode; printed in ``human`` mode
        (Gymnasium's contract: then ``step`` and ``reset`` render by themselves, and this returns None)."""
        if self.render_mode is None:
            return None
        if self.engine is None:
            raise RuntimeError("reset() must be called before render()")
        text = self.game.render_position(self.engine.position(0), viewer=self.seat, rules=self.rules)
        if self.render_mode == "human":
            print(text)
            return None
        return text
