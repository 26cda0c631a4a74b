"""A Gymnasium vector env whose sub-envs are the games of one batched engine.

``uno_v0.vector_env(num_envs=N, opponent=...)`` (and ``uno_tricks_v0.vector_env``) give a
:class:`gymnasium.vector.VectorEnv` of ``N`` games stepped together by the compiled kernel:
one learner seat per game, every other seat played by the opponent policies, batched over
the games (one policy call per seat offset and round, never one per game). It is what
:class:`~envs.wrappers.SeatEnv` is for one game, at the engine's speed: Stable-Baselines3
takes it through :func:`envs.sb3_compat.sb3_vec_env`, a CleanRL-style loop uses it as it is.

Autoreset: ``AutoresetMode.SAME_STEP``. A game that ends in a step is dealt again at once
(from its own random stream); the step returns ``terminated`` True, the episode's last
reward, and the first observation and mask of the next game, so a mask read by a sampler
is never all False. A game that ends keeps no final observation: a terminal state has no
decision and no value to bootstrap. The rules set no limit on a
game's length: a game ends when someone goes out, which play almost always brings about, but
with ``draw_anytime`` and ``must_play_drawn=False`` players who only ever draw and keep (both
piles empty: the draw gives nothing) never end it: give ``max_episode_steps`` for such play
(Gymnasium's ``TimeLimit`` takes no vector env; a tournament stops at ``max_decisions``). A
game cut there returns ``truncated`` True and the first observation of the next game; its
learner's view at the decision where it was cut, the value to bootstrap from, is in
``infos["final_obs"][i]`` where ``infos["_final_obs"][i]``: Gymnasium's same-step format, an
object array of one observation dict per game, None elsewhere, with ``final_info`` and
``_final_info`` beside it. A game that ends by the rules has no entry there.
``reset(options={"reset_mask": m})`` deals again only the games where ``m`` is True.

After ``reset`` and every ``step``, every game waits at its learner's turn: the games whose
next player is an opponent catch up (:meth:`~envs.core.BatchedEngine.step_games`) while the
others wait untouched. No rule is written here.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envs import rng
from envs.core import IllegalActionError, policy_answer
from envs.wrappers import (
    BatchedPolicy,
    LegalMultiDiscrete,
    PicklesGameByName,
    make_rules,
    observation_space,
    opponent_policies,
    out_of_range,
    own_arguments,
)


class SeatVectorEnv(PicklesGameByName, VectorEnv):
    """``num_envs`` games of one engine, each with a learner seat; the others play ``opponent``.

    ``opponent``: a batched policy ``(obs [k, OBS], mask [k, A]) -> actions [k]`` or a policy
    spec (``"heuristic"``, ``{"name": "heuristic", "bluff": 0.5}``) for every other seat, or
    a sequence of them, one per seat offset from the learner's (seat + 1, seat + 2, ... in
    seat numbers, whichever way play goes: in the trick game the second is the partner).
    ``seat``: the learner's seat in every
    game, or None for a seat drawn at random for each new game (the observation is the
    seat's own view either way). An illegal action raises
    :class:`~envs.core.IllegalActionError` and changes nothing (``illegal_action="raise"``,
    the default: masked learners never send one), or with ``"lose"`` ends that game with
    reward -1 (``infos["illegal_action"]`` marks it) and deals the next. ``max_episode_steps``:
    the learner's decisions after which a game still going is truncated and dealt again
    (None: no limit).

    An episode is a game in which the learner moves: a game dealt and finished by the
    opponents before the learner's first move (possible: a Draw Two chain, a Skip) is not
    one, and neither its reward nor its end is reported. An opponent policy that returns an
    illegal action leaves the env to be reset (the error says so).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        game: ModuleType,
        num_envs: int,
        opponent: BatchedPolicy | Any | Sequence[BatchedPolicy | Any],
        num_players: int,
        seat: int | None = 0,
        rules: Any = None,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        max_episode_steps: int | None = None,
        **options: Any,
    ) -> None:
        if render_mode is not None:
            raise ValueError(
                f"render_mode {render_mode!r}: the vector env does not render (render_modes: none); render a "
                "game with gym_env(render_mode='ansi') or the AEC env"
            )
        self.game = game
        self.rules = make_rules(game, rules, options, own_arguments(type(self)))
        self.rules.check_players(num_players)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))):
            raise ValueError(f"seat must be an integer in 0..{num_players - 1} or None (random), got {seat!r}")
        if seat is not None and not 0 <= seat < num_players:
            raise ValueError(f"seat must lie in 0..{num_players - 1} or be None (random), got {seat}")
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
        if max_episode_steps is not None and (
            isinstance(max_episode_steps, bool)
            or not isinstance(max_episode_steps, (int, np.integer))
            or max_episode_steps < 1
        ):
            raise ValueError(f"max_episode_steps must be a positive integer or None, got {max_episode_steps!r}")
        self.max_episode_steps = None if max_episode_steps is None else int(max_episode_steps)
        self.policies = opponent_policies(
            game, opponent, num_players - 1, self.rules
        )  # by offset from the learner's seat
        self.num_envs, self.num_players = int(num_envs), num_players
        self.fixed_seat, self.illegal_action = seat, illegal_action
        self.render_mode = None
        self.single_observation_space = observation_space(game, self.rules)
        self.single_action_space = spaces.Discrete(game.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = LegalMultiDiscrete(game.NUM_ACTIONS, self.num_envs, self._legal_masks)
        self.engine = None
        self.seat = np.zeros(self.num_envs, np.int64)
        self._ar = np.arange(self.num_envs)
        self._episode_steps = np.zeros(self.num_envs, np.int64)  # the learner's decisions in each game

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | Sequence[int] | None = None, options: dict | None = None):
        """Deal every game again. ``seed`` (an int, or one per game) makes the games, the
        seats drawn and seeded opponent policies repeat. ``options={"reset_mask": m}`` (bool,
        one per game) deals again only the games where ``m`` is True, each from its own stream."""
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"reset options: unknown {', '.join(map(repr, options))}; allowed: 'reset_mask'")
        if reset_mask is not None:
            return self._reset_games(reset_mask, seed)
        if seed is not None:
            rng.game_seeds(seed, self.num_envs)  # a seed that is no integer in range, or not one per game, is refused
        super().reset(seed=int(seed) if isinstance(seed, (int, np.integer)) else None)
        if seed is not None and not isinstance(seed, (int, np.integer)):
            seeds = [int(s) for s in np.asarray(seed, dtype=np.uint64).ravel()]
            self._np_random, self._np_random_seed = np.random.default_rng(seeds), seeds[0]
            engine_seed: Any = seeds
        else:
            engine_seed = int(self.np_random.integers(2**63)) if self.engine is None or seed is not None else None
        if self.engine is None or seed is not None:
            self.engine = self.game.Engine(
                self.num_envs, self.num_players, self.rules, seed=engine_seed, auto_reset=True
            )
            for policy in {id(p): p for p in self.policies}.values():
                if hasattr(policy, "seed"):
                    policy.seed(int(self.np_random.integers(2**63)))
        self._obs, self._mask = self.engine.reset()
        self._draw_seats(self._ar)
        self._episode_steps[:] = 0
        reward = np.zeros(self.num_envs, np.float32)
        self._catch_up(reward, np.zeros(self.num_envs, bool))
        return self._observation(), {}

    def _reset_games(self, reset_mask: Any, seed: Any) -> tuple[dict[str, np.ndarray], dict]:
        """``reset`` of the games where ``reset_mask`` is True (the others wait as they are)."""
        mask = np.asarray(reset_mask)
        if mask.dtype != bool or mask.shape != (self.num_envs,):
            raise ValueError(
                f"reset_mask must be a bool array of shape ({self.num_envs},), got {mask.dtype} {mask.shape}"
            )
        if seed is not None:
            raise ValueError("reset: give seed or reset_mask, not both (a masked reset deals from each game's stream)")
        if self.engine is None:
            raise RuntimeError("reset() must be called before a reset with reset_mask")
        games = np.flatnonzero(mask)
        if games.size:
            self._restart(games)
            self._catch_up(np.zeros(self.num_envs, np.float32), mask.copy())
        return self._observation(), {}

    def _restart(self, games: np.ndarray) -> None:
        """Deal ``games`` again from their own streams, with their seats drawn anew."""
        self.engine.restart_games(games)
        self._obs[games], self._mask[games] = (a[games] for a in self.engine.observe())
        self._draw_seats(games)
        self._episode_steps[games] = 0

    def step(self, actions: Any):
        if self.engine is None:
            raise RuntimeError("reset() must be called before step()")
        actions, in_range = self._actions(actions)
        reward = np.zeros(self.num_envs, np.float32)
        terminated = np.zeros(self.num_envs, bool)
        infos: dict[str, Any] = {}
        legal = in_range & self._mask[self._ar, np.where(in_range, actions, 0)]
        if legal.all() or self.illegal_action == "raise":  # the engine names a refused action
            self._apply(self._ar, actions, reward, terminated)
        else:
            lost = np.flatnonzero(~legal)
            infos = {"illegal_action": ~legal, "_illegal_action": np.ones(self.num_envs, bool)}
            if legal.any():
                games = np.flatnonzero(legal)
                self._apply(games, actions[games], reward, terminated)
            self._restart(lost)
            reward[lost], terminated[lost] = -1.0, True
        self._catch_up(reward, terminated)
        self._episode_steps += 1
        self._episode_steps[terminated] = 0
        truncated = np.zeros(self.num_envs, bool)
        if self.max_episode_steps is not None:
            cut = np.flatnonzero(self._episode_steps >= self.max_episode_steps)
            if cut.size:  # at the learner's next decision: that view is the cut game's last
                truncated[cut] = True
                infos = {**infos, **self._final(cut)}
                self._restart(cut)
                self._catch_up(np.zeros(self.num_envs, np.float32), truncated.copy())  # no reward: no episode yet
        return self._observation(), reward, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``bool [num_envs, A]`` (sb3-contrib's
        ``MaskablePPO`` reads this; the observation's ``action_mask`` is the same)."""
        if self.engine is None:
            raise RuntimeError("reset() must be called before action_masks()")
        return self._mask.astype(bool)

    def _legal_masks(self) -> np.ndarray | None:
        """What ``action_space.sample()`` draws from: the learner's legal actions (None before reset)."""
        return None if self.engine is None else self._mask.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        self.engine = None

    # ------------------------------------------------------------------ the other seats
    def _draw_seats(self, games: np.ndarray) -> None:
        if self.fixed_seat is None:
            self.seat[games] = self.np_random.integers(self.num_players, size=len(games))
        else:
            self.seat[games] = self.fixed_seat

    def _apply(self, games: np.ndarray, actions: np.ndarray, reward: np.ndarray, terminated: np.ndarray) -> None:
        """Step ``games`` with ``actions``; credit the learner's reward, note ended games."""
        obs, mask, rewards, done = self.engine.step_games(games, actions)
        self._obs[games], self._mask[games] = obs, mask
        fresh = ~terminated[games]  # a game dealt and ended again in this step had no learner move
        reward[games] += np.where(fresh, rewards[np.arange(len(games)), self.seat[games]], 0)
        if done.any():
            ended = games[done]
            terminated[ended] = True
            self._draw_seats(ended)

    def _catch_up(self, reward: np.ndarray, terminated: np.ndarray) -> None:
        """Let the opponents move, batched per seat offset, until every game is at its learner's
        turn. Whatever stops it (an illegal action, an opponent that fails or answers outside the
        protocol) leaves the env half stepped: only a reset makes it consistent again."""
        try:
            self._opponents_move(reward, terminated)
        except IllegalActionError as err:
            self.engine = None
            raise IllegalActionError(f"an opponent policy chose an illegal action ({err}); reset() the env") from None
        except BaseException:
            self.engine = None
            raise

    def _opponents_move(self, reward: np.ndarray, terminated: np.ndarray) -> None:
        while True:
            waiting = np.flatnonzero(self.engine.current != self.seat)
            if not waiting.size:
                return
            offset = (self.engine.current[waiting] - self.seat[waiting]) % self.num_players
            actions = np.empty(waiting.size, np.int64)
            offsets = np.unique(offset)
            for k in offsets:
                rows = np.flatnonzero(offset == k) if offsets.size > 1 else slice(None)
                games = waiting[rows]
                policy = self.policies[int(k) - 1]
                answer = policy(self._obs[games], self._mask[games])
                actions[rows] = policy_answer(answer, games.size, f"the opponent {int(k)} seat(s) after the learner")
            self._apply(waiting, actions, reward, terminated)

    # ------------------------------------------------------------------ checks and views
    def _actions(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """The actions as ``int64 [N]`` and which are in range (out of range: refused, or with
        ``illegal_action="lose"`` a lost game like any illegal action)."""
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},): one per game; got shape {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions are integer action ids in 0..{self.game.NUM_ACTIONS - 1}, got {arr.dtype}"
            )
        in_range = (arr >= 0) & (arr < self.game.NUM_ACTIONS)  # on the given values: a huge unsigned one
        bad = np.flatnonzero(~in_range)  # would wrap negative in int64
        if bad.size and self.illegal_action == "raise":
            raise out_of_range(f"game {bad[0]}", arr[bad[0]], self.engine.action_names, self._mask[bad[0]])
        return np.where(in_range, arr, -1).astype(np.int64), in_range

    def _observation(self) -> dict[str, np.ndarray]:
        return {"observation": self._obs.copy(), "action_mask": self._mask.astype(np.int8)}

    def _final(self, cut: np.ndarray) -> dict[str, Any]:
        """Gymnasium's same-step entries for the games ``cut`` now: ``final_obs``, one object per
        game (that game's observation dict, None elsewhere), ``final_info`` (empty: no entry of a
        single game's info is kept), each with its ``_`` mask, as ``SyncVectorEnv`` builds them."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        for game in cut:  # only the few games cut in this step
            final_obs[game] = {"observation": self._obs[game].copy(), "action_mask": self._mask[game].astype(np.int8)}
        ended = np.zeros(self.num_envs, bool)
        ended[cut] = True
        return {"final_obs": final_obs, "_final_obs": ended, "final_info": {}, "_final_info": ended.copy()}
