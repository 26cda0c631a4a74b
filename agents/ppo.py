"""PPO with action masking, trained by self-play on the batched engines.

Read top to bottom: the hyper-parameters (:class:`PPOConfig`), then :class:`PPOTrainer`,
whose :meth:`~PPOTrainer.update` is one PPO iteration: collect a rollout from thousands
of games at once, compute every learning seat's advantages, optimise the clipped
objective.

Multi-agent bookkeeping, the part a single-agent PPO does not have:

* Each game has *learning seats*. In a self-play game every seat is the learner (one
  shared network); in a pool game the learner holds one seat (a team of two partners in
  the trick game) and the others are played by one opponent from the **pool**: scripted
  policies and frozen past copies of the network, drawn per game.
* A **best response** (``target: <policy spec>``) is the pool reduced to that one fixed
  policy: no self-play, no snapshots, so the learner only ever meets the target and what it
  learns is how to beat that policy (how exploitable it is, ``train.py``).
* Every decision of a learning seat is a sample. Its reward is what that seat received
  from its decision until its next one, whoever moved in between, so the end-of-game
  rewards that arrive on another player's turn reach every seat. Advantages (GAE) run
  backwards along each (game, seat) chain of decisions; a game's end cuts every chain of
  that game; a chain still open at the end of the rollout is bootstrapped with the
  value of that seat's view of the last state.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn, optim

from agents.learned import LearnedPolicy
from agents.network import ActorCritic, masked_log_probs
from agents.registry import check_spec, make_policy
from envs.core import dataclass_from_mapping, shown_value
from envs.games import GAMES, game_module
from envs.games import game as game_info

BACKENDS = ("local", "ray")


#: (key, lower test, upper test, what is allowed): the numbers PPO's maths takes.
NUMBER_RANGES = (
    ("self_play", lambda v: v >= 0, lambda v: v <= 1, "in [0, 1] (a share of the games)"),
    ("learning_rate", lambda v: v > 0, lambda v: v <= 1, "in (0, 1]"),
    ("gamma", lambda v: v >= 0, lambda v: v <= 1, "in [0, 1]"),
    ("gae_lambda", lambda v: v >= 0, lambda v: v <= 1, "in [0, 1]"),
    ("clip_coef", lambda v: v > 0, lambda v: v <= 10, "in (0, 10]"),
    ("ent_coef", lambda v: v >= 0, lambda v: v < float("inf"), ">= 0"),
    ("vf_coef", lambda v: v >= 0, lambda v: v < float("inf"), ">= 0"),
    ("max_grad_norm", lambda v: v > 0, lambda v: v < float("inf"), "> 0"),
    ("target_kl", lambda v: v > 0, lambda v: v < float("inf"), "> 0 or null"),
)


EVAL_OPPONENTS = ("random", "rlcard_rule", "heuristic")
#: Every integer key's allowed range: a value outside is refused by name before anything runs
#: (a 30-digit num_games or seed would otherwise fail deep in numpy or torch).
INTEGER_RANGES = {
    "num_games": (1, 1_000_000),
    "num_steps": (1, 100_000),
    "total_steps": (1, 10**13),
    "num_minibatches": (1, 10**7),
    "update_epochs": (1, 1_000),
    "eval_games": (1, 100_000_000),
    "num_rollout_actors": (1, 1_024),
    "imitation_epochs": (1, 1_000),
    "snapshot_every": (0, 10**9),
    "pool_size": (0, 10_000),
    "checkpoint_every": (0, 10**9),
    "eval_every": (0, 10**9),
    "torch_threads": (0, 1_024),
    "final_eval_games": (0, 100_000_000),
    "imitation_steps": (0, 10**13),
    "seed": (0, 2**63 - 1),
}
MAX_UPDATE_DECISIONS = 2**22  # num_games x num_steps: 4M decisions (some 5 GB of observations)


@dataclasses.dataclass
class PPOConfig:
    """Every hyper-parameter of a training run (``configs/*_ppo.yaml`` set them)."""

    # What to play
    game: str = "uno"  # uno | tricks
    players: int = 2  # table size (the trick game: 4)
    rules: dict[str, Any] = dataclasses.field(default_factory=dict)  # UnoRules / TricksRules options
    # Experience
    num_games: int = 1024  # games stepped at once
    num_steps: int = 32  # decisions per game per rollout
    total_steps: int = 10_000_000  # decisions in all (every seat's), the run's length
    # Opponents
    target: Any = None  # a policy spec: a best response to it (self_play 0, opponents [target], no snapshots)
    self_play: float = 0.5  # share of games where every seat is the learner
    opponents: list[Any] = dataclasses.field(
        default_factory=lambda: ["random", "heuristic"]
    )  # policy specs in the pool
    snapshot_every: int = 25  # updates between frozen copies of the network added to the pool (0: none)
    pool_size: int = 8  # frozen copies kept (the oldest goes)
    # Network
    hidden: list[int] = dataclasses.field(default_factory=lambda: [256, 256])  # layer sizes of both heads' body
    # PPO
    learning_rate: float = 2.5e-4  # Adam's step size
    anneal_lr: bool = True  # linearly to 0 over total_steps
    gamma: float = 1.0  # per decision of the seat; rewards come at the end of a game
    gae_lambda: float = 0.95  # GAE's bias-variance trade-off
    num_minibatches: int = 8  # per epoch, of an update's decisions
    update_epochs: int = 4  # passes over each rollout
    clip_coef: float = 0.2  # PPO's ratio clip
    clip_vloss: bool = True  # clip the value loss too
    ent_coef: float = 0.01  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient norm clip
    norm_adv: bool = True  # normalise advantages per minibatch
    target_kl: float | None = None  # stop an update's epochs early past this KL
    # Warm start: imitate a teacher policy before PPO (0 decisions: none)
    imitation_teacher: Any = "heuristic"  # the policy spec to imitate
    imitation_steps: int = 0  # decisions of teacher play to imitate
    imitation_epochs: int = 2  # passes over each teacher rollout
    # Running
    seed: int = 1  # games, network and sampling: the same seed, the same run
    device: str = "auto"  # auto (cuda when there is one) | cpu | cuda | cuda:N
    torch_threads: int = 0  # CPU threads of torch (0: torch's default)
    # Where experience is collected: here, or by Ray rollout actors (train.py --backend ray)
    backend: str = "local"  # local | ray (the learner stays in the driver either way)
    num_rollout_actors: int = 2  # ray: actors, each stepping num_games / num_rollout_actors games
    # Logging, evaluation and checkpoints (train.py)
    run_name: str = ""  # default: <config name>
    log_dir: str = "runs"  # the run goes to <log_dir>/<run_name>/
    checkpoint_every: int = 50  # updates between checkpoints (0: only the last)
    eval_every: int = 50  # updates (0: no evaluation at all); tournaments against eval_opponents
    eval_games: int = 2000  # games of each evaluation (duplicate deals)
    final_eval_games: int = 0  # games of the evaluation after the last update (0: eval_games)
    eval_opponents: list[Any] = dataclasses.field(default_factory=lambda: list(EVAL_OPPONENTS))  # policy specs
    export: str = ""  # where to write the final agent (weights only); default: <run>/agent.pt

    # Keys whose change makes a checkpoint's state meaningless (refused on resume).
    STATE_KEYS = ("game", "players", "rules", "num_games", "num_steps", "hidden", "target", "opponents", "pool_size")

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> PPOConfig:
        """The config of a mapping (YAML). With a ``target``, the opponent keys it leaves out
        become the best-response setup: ``self_play: 0``, ``snapshot_every: 0``,
        ``opponents: [target]``, ``eval_opponents: [target]``."""
        data = dict(data)
        if data.get("target") is not None:
            implied = {"self_play": 0.0, "snapshot_every": 0, "opponents": [data["target"]]}
            data = {**implied, "eval_opponents": [data["target"]], **data}
        cfg = dataclass_from_mapping(cls, data, "training config key(s)")
        cfg.check()
        return cfg

    def check(self) -> None:
        """Refuse an impossible config with the reason, before anything runs."""
        if not isinstance(self.game, str) or self.game not in GAMES:
            raise ValueError(f"game must be one of {', '.join(GAMES)}, got {self.game!r}")
        module = game_module(self.game)
        module.Rules.from_dict(self.rules).check_players(self.players)
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        for name, (low, high) in INTEGER_RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an integer from {low:,} to {high:,}, got {shown_value(value)}")
        if self.num_games * self.num_steps > MAX_UPDATE_DECISIONS:
            raise ValueError(
                f"num_games x num_steps ({self.num_games:,} x {self.num_steps:,}) must be at most "
                f"{MAX_UPDATE_DECISIONS:,} decisions per update (the rollout is held in memory)"
            )
        if self.num_rollout_actors > self.num_games:
            raise ValueError(
                f"num_rollout_actors ({self.num_rollout_actors}) cannot exceed num_games ({self.num_games}): "
                "each actor steps a share of the games"
            )
        for name in ("log_dir", "run_name", "export", "device"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be a string (a path or a name), got {getattr(self, name)!r}")
        for name, low, high, allowed in NUMBER_RANGES:
            value = getattr(self, name)
            if name == "target_kl" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low(value) or not high(value):
                raise ValueError(f"{name} must be a number {allowed}, got {value!r}")
        for name in ("anneal_lr", "clip_vloss", "norm_adv"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {getattr(self, name)!r}")
        for name in ("opponents", "eval_opponents"):
            if not isinstance(getattr(self, name), list):
                raise ValueError(
                    f"{name} must be a list of policy specs (e.g. [random, heuristic]), got {getattr(self, name)!r}"
                )
        if self.num_minibatches > self.num_games * self.num_steps:
            raise ValueError(
                f"num_minibatches ({self.num_minibatches}) cannot exceed the decisions of an update "
                f"(num_games x num_steps = {self.num_games * self.num_steps})"
            )
        if self.self_play < 1.0 and not self.opponents and not (self.snapshot_every and self.pool_size):
            raise ValueError("self_play < 1 needs an opponent pool: opponents, or snapshot_every and pool_size")
        if (
            not isinstance(self.hidden, list)
            or not self.hidden
            or len(self.hidden) > 16
            or any(isinstance(h, bool) or not isinstance(h, int) or not 1 <= h <= 65_536 for h in self.hidden)
        ):
            raise ValueError(
                f"hidden must be a list of 1 to 16 layer sizes from 1 to 65,536 (e.g. [256, 256]), "
                f"got {shown_value(self.hidden)}"
            )
        if self.target is not None:
            self._check_target()
        for spec in [*self.opponents, *self.eval_opponents, self.imitation_teacher]:
            check_spec(self.game, spec, rules=self.rules)
        resolve_device(self.device)

    def _check_target(self) -> None:
        """A best response meets the target and nothing else: a share of self-play or another
        pool member would make it a best response to a mixture, so those are refused."""
        conflicts = []
        if self.self_play != 0:
            conflicts.append(f"self_play must be 0 (got {self.self_play})")
        if self.snapshot_every != 0:
            conflicts.append(f"snapshot_every must be 0 (got {self.snapshot_every})")
        if list(self.opponents) != [self.target]:
            conflicts.append(f"opponents must be [target] or left out (got {self.opponents!r})")
        if self.eval_every == 0:
            conflicts.append("eval_every must be at least 1 (its evaluations are the curve and the result)")
        if self.target not in self.eval_opponents:
            conflicts.append(f"eval_opponents must include the target or be left out (got {self.eval_opponents!r})")
        if conflicts:
            raise ValueError(
                f"target {self.target!r} trains a best response against that policy alone: " + "; ".join(conflicts)
            )

    @property
    def last_eval_games(self) -> int:
        """Games of the evaluation after the last update (the figure a best response reports)."""
        return self.final_eval_games or self.eval_games

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ValueError(f"device must be auto, cpu, cuda or cuda:N; got {name!r}") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r}: no CUDA device here (device: auto picks the CPU)")
    return device


class PPOTrainer:
    """The learner, its optimiser, the batched games it plays and its opponent pool."""

    def __init__(self, cfg: PPOConfig) -> None:
        cfg.check()
        self.cfg = cfg
        if cfg.torch_threads:
            torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)
        self.device = resolve_device(cfg.device)
        self.rng = np.random.default_rng(cfg.seed)
        game = game_module(cfg.game)
        rules = game.Rules.from_dict(cfg.rules)
        self.engine = game.Engine(cfg.num_games, cfg.players, rules, seed=cfg.seed)
        self.num_players = cfg.players
        _, high = game.observation_bounds(rules)
        self.net = ActorCritic(game.OBS_SIZE, game.NUM_ACTIONS, cfg.hidden, high).to(self.device)
        self.optimizer = optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        seeds = self.rng.integers(2**63, size=len(cfg.opponents))
        self.scripted = [
            make_policy(cfg.game, spec, int(s), rules=cfg.rules) for spec, s in zip(cfg.opponents, seeds, strict=True)
        ]
        self.snapshots: list[LearnedPolicy] = []
        self.update_count = 0
        self.global_step = 0  # decisions of every seat
        B, P = cfg.num_games, cfg.players
        self.opponent = np.full(B, -1, np.int64)  # pool index per game; -1: self-play
        self.learner = np.ones((B, P), bool)  # learning seats per game
        self.episode_return = np.zeros(B, np.float64)  # of the learner in pool games
        self.episode_length = np.zeros(B, np.int64)
        self.obs, self.mask = self.engine.reset()
        self._assign(np.arange(B))

    # ------------------------------------------------------------------ opponents
    @property
    def pool(self) -> list[Any]:
        return [*self.scripted, *self.snapshots]

    def _assign(self, games: np.ndarray) -> None:
        """Draw who plays each of these (new) games: self-play, or the learner at a random
        seat (team) against one pool member."""
        n, P = games.size, self.num_players
        if not n:
            return
        size = len(self.pool)
        solo = (self.rng.random(n) >= self.cfg.self_play) & (size > 0)
        self.opponent[games] = np.where(solo, self.rng.integers(max(size, 1), size=n), -1)
        seats = np.zeros((n, P), bool)
        if game_info(self.cfg.game).teams:  # partners opposite: seats t and t + 2
            team = self.rng.integers(2, size=n)
            seats[np.arange(n), team] = seats[np.arange(n), team + 2] = True
        else:
            seats[np.arange(n), self.rng.integers(P, size=n)] = True
        self.learner[games] = np.where(solo[:, None], seats, True)
        self.episode_return[games] = 0.0
        self.episode_length[games] = 0

    def _snapshot(self) -> None:
        frozen = copy.deepcopy(self.net).cpu()
        for p in frozen.parameters():
            p.requires_grad_(False)
        self.snapshots.append(LearnedPolicy.from_network(frozen, seed=int(self.rng.integers(2**63))))
        del self.snapshots[: -self.cfg.pool_size or None]

    # ------------------------------------------------------------------ acting
    def _act(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sampled actions, their log-probabilities and the values, for the learner's rows."""
        with torch.no_grad():
            logits, value = self.net(
                torch.as_tensor(obs, device=self.device), torch.as_tensor(mask, device=self.device)
            )
            logp_all = torch.log_softmax(logits, dim=-1).cpu().numpy()
        gumbel = -np.log(-np.log(self.rng.random(logp_all.shape, np.float32) + 1e-12) + 1e-12)
        actions = np.where(mask, logp_all + gumbel, -np.inf).argmax(axis=1)
        return actions, logp_all[np.arange(actions.size), actions], value.cpu().numpy()

    def _values_of_every_seat(self) -> np.ndarray:
        """``[B, P]``: each seat's value of the current state, from its own view."""
        out = np.zeros((self.cfg.num_games, self.num_players), np.float32)
        with torch.no_grad():
            for seat in range(self.num_players):
                obs, _ = self.engine.observe(seats=seat)
                out[:, seat] = self.net.value(torch.as_tensor(obs, device=self.device)).cpu().numpy()
        self.engine.observe()  # leave the engine's cached mask as the players to act see it
        return out

    # ------------------------------------------------------------------ one iteration
    def collect(self, teacher: Any = None) -> dict[str, Any]:
        """Play ``num_steps`` decisions in every game; returns the rollout (numpy arrays).

        With a ``teacher`` policy, the teacher plays every seat (a warm start by imitation)
        and the rollout records its actions with the network's values."""
        cfg, eng = self.cfg, self.engine
        T, B, P = cfg.num_steps, cfg.num_games, self.num_players
        ro = {
            "obs": np.zeros((T, B, self.obs.shape[1]), np.float32),
            "mask": np.zeros((T, B, self.mask.shape[1]), bool),
            "action": np.zeros((T, B), np.int64),
            "logp": np.zeros((T, B), np.float32),
            "value": np.zeros((T, B), np.float32),
            "learning": np.zeros((T, B), bool),
            "seat": np.zeros((T, B), np.int64),
            "reward": np.zeros((T, B, P), np.float32),
            "done": np.zeros((T, B), bool),
        }
        finished_returns, finished_lengths, finished_wins = [], [], []
        ar = np.arange(B)
        for t in range(T):
            seat = eng.current_player.copy()
            learning = self.learner[ar, seat] if teacher is None else np.ones(B, bool)
            rows = learning.nonzero()[0]
            actions = np.zeros(B, np.int64)
            if teacher is not None:
                actions[:] = teacher(self.obs, self.mask)
                with torch.no_grad():
                    ro["value"][t] = self.net.value(torch.as_tensor(self.obs, device=self.device)).cpu().numpy()
            elif rows.size:
                a, logp, value = self._act(self.obs[rows], self.mask[rows])
                actions[rows], ro["logp"][t, rows], ro["value"][t, rows] = a, logp, value
            others = (~learning).nonzero()[0]
            if others.size:
                pool = self.pool
                for k in np.unique(self.opponent[others]):
                    r = others[self.opponent[others] == k]
                    actions[r] = pool[k](self.obs[r], self.mask[r])
            ro["obs"][t], ro["mask"][t], ro["action"][t] = self.obs, self.mask, actions
            ro["learning"][t], ro["seat"][t] = learning, seat
            self.obs, self.mask, reward, done = eng.step(actions)
            ro["reward"][t], ro["done"][t] = reward, done
            solo = self.opponent >= 0
            share = (reward * self.learner).sum(axis=1) / self.learner.sum(axis=1)
            self.episode_return += np.where(solo, share, 0.0)
            self.episode_length += 1
            ended = done.nonzero()[0]
            if ended.size:
                scored = ended[solo[ended]]
                finished_returns += self.episode_return[scored].tolist()
                finished_lengths += self.episode_length[scored].tolist()
                won = (eng.game_winners[scored] & self.learner[scored]).any(axis=1)
                finished_wins += won.tolist()
                self._assign(ended)
        if teacher is None:
            self.global_step += T * B
        ro["last_value"] = self._values_of_every_seat()
        ro["episodes"] = {"return": finished_returns, "length": finished_lengths, "win": finished_wins}
        return ro

    def advantages(self, ro: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """GAE along each (game, seat) chain of decisions; ``(advantages, returns)`` ``[T, B]``."""
        cfg = self.cfg
        T, B = ro["action"].shape
        next_value = ro["last_value"].astype(np.float64)  # [B, P]: value at the seat's next decision
        next_adv = np.zeros_like(next_value)
        pending = np.zeros_like(next_value)  # rewards from step t until the seat's next decision
        adv = np.zeros((T, B), np.float64)
        for t in reversed(range(T)):
            done = ro["done"][t]
            next_value[done] = 0.0  # the game ended at this step: nothing follows it
            next_adv[done] = 0.0
            pending[done] = 0.0
            pending += ro["reward"][t]
            rows = ro["learning"][t].nonzero()[0]
            seat = ro["seat"][t, rows]
            value = ro["value"][t, rows]
            delta = pending[rows, seat] + cfg.gamma * next_value[rows, seat] - value
            a = delta + cfg.gamma * cfg.gae_lambda * next_adv[rows, seat]
            adv[t, rows] = a
            next_value[rows, seat], next_adv[rows, seat], pending[rows, seat] = value, a, 0.0
        returns = adv + ro["value"]
        return adv.astype(np.float32), returns.astype(np.float32)

    def _samples(self, ro: dict[str, Any], adv: np.ndarray, ret: np.ndarray) -> dict[str, torch.Tensor]:
        """The learning seats' decisions of a rollout as flat tensors on the device."""
        pick = ro["learning"]
        arrays = {k: ro[k] for k in ("obs", "mask", "action", "logp", "value")} | {"adv": adv, "ret": ret}
        return {k: torch.as_tensor(a[pick], device=self.device) for k, a in arrays.items()}

    def _minibatches(self, n: int):
        """Shuffled index tensors of ``num_minibatches`` equal minibatches (the remainder waits)."""
        size = max(1, n // self.cfg.num_minibatches)
        order = torch.as_tensor(self.rng.permutation(n), device=self.device)
        for lo in range(0, n - size + 1, size):
            yield order[lo : lo + size]

    def imitate(self, teacher: Any) -> dict[str, float]:
        """One warm-start iteration: the teacher plays a rollout, the network learns to choose
        its actions (cross-entropy over the legal ones) and to value its positions."""
        cfg = self.cfg
        ro = self.collect(teacher)
        b = self._samples(ro, *self.advantages(ro))
        hits, losses = [], []
        for _epoch in range(cfg.imitation_epochs):
            for idx in self._minibatches(b["obs"].shape[0]):
                logits, value = self.net(b["obs"][idx], b["mask"][idx])
                logp_all, _ = masked_log_probs(logits, b["mask"][idx])
                ce = -logp_all.gather(1, b["action"][idx, None]).mean()
                loss = ce + cfg.vf_coef * 0.5 * ((value - b["ret"][idx]) ** 2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
                hits.append((logits.argmax(1) == b["action"][idx]).float().mean().item())
                losses.append(ce.item())
        return {"imitation/cross_entropy": float(np.mean(losses)), "imitation/accuracy": float(np.mean(hits))}

    def update(self, collect: Callable[[], dict[str, Any]] | None = None) -> dict[str, float]:
        """One PPO iteration: collect, compute advantages, optimise. Returns what to log.

        ``collect`` replaces this trainer's own :meth:`collect` (e.g. Ray rollout actors,
        ``agents.ray_rollout``); it returns a rollout of ``num_games`` games in all and
        counts its decisions in ``global_step``. The learning step is the same either way."""
        cfg = self.cfg
        start = time.perf_counter()
        if cfg.anneal_lr:
            frac = max(0.0, 1.0 - self.global_step / cfg.total_steps)
            self.optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
        ro = (collect or self.collect)()
        collect_time = time.perf_counter() - start
        b = self._samples(ro, *self.advantages(ro))
        b_obs, b_mask, b_act, b_logp = b["obs"], b["mask"], b["action"], b["logp"]
        b_val, b_adv, b_ret = b["value"], b["adv"], b["ret"]
        n = b_obs.shape[0]
        clipfracs = []
        for _epoch in range(cfg.update_epochs):
            for idx in self._minibatches(n):
                logits, value = self.net(b_obs[idx], b_mask[idx])
                logp_all, entropy = masked_log_probs(logits, b_mask[idx])
                new_logp = logp_all.gather(1, b_act[idx, None]).squeeze(1)
                log_ratio = new_logp - b_logp[idx]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - log_ratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
                a = b_adv[idx]
                if cfg.norm_adv and a.numel() > 1:
                    a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                if cfg.clip_vloss:
                    v_clipped = b_val[idx] + (value - b_val[idx]).clamp(-cfg.clip_coef, cfg.clip_coef)
                    v_loss = 0.5 * torch.max((value - b_ret[idx]) ** 2, (v_clipped - b_ret[idx]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - cfg.ent_coef * entropy_loss + cfg.vf_coef * v_loss
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
                self.optimizer.step()
            if cfg.target_kl is not None and approx_kl.item() > cfg.target_kl:
                break
        self.update_count += 1
        if cfg.snapshot_every and self.update_count % cfg.snapshot_every == 0 and cfg.pool_size:
            self._snapshot()
        y_pred, y_true = b_val.cpu().numpy(), b_ret.cpu().numpy()
        var_y = np.var(y_true)
        elapsed = time.perf_counter() - start
        eps = ro["episodes"]
        stats = {
            "losses/value_loss": v_loss.item(),
            "losses/policy_loss": pg_loss.item(),
            "losses/entropy": entropy_loss.item(),
            "losses/approx_kl": approx_kl.item(),
            "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
            "losses/explained_variance": float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y),
            "charts/learning_rate": self.optimizer.param_groups[0]["lr"],
            "charts/SPS": cfg.num_steps * cfg.num_games / elapsed,
            "charts/collect_SPS": cfg.num_steps * cfg.num_games / collect_time,
            "charts/samples": float(n),
            "charts/pool_size": float(len(self.pool)),
        }
        if eps["return"]:
            stats["charts/episodic_return"] = float(np.mean(eps["return"]))
            stats["charts/episodic_length"] = float(np.mean(eps["length"]))
            stats["charts/pool_win_rate"] = float(np.mean(eps["win"]))
        return stats

    # ------------------------------------------------------------------ checkpoints
    def agent_payload(self) -> dict[str, Any]:
        """What a policy needs (an exported agent): the network and what it plays."""
        game = game_module(self.cfg.game)
        return {
            "game": self.cfg.game,
            "num_players": self.cfg.players,
            "rules": dict(self.cfg.rules),
            "obs_dim": game.OBS_SIZE,
            "num_actions": game.NUM_ACTIONS,
            "obs_names": list(game.OBS_NAMES),
            "action_names": list(game.ACTION_NAMES),
            "hidden": list(self.cfg.hidden),
            "model": {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()},
            "global_step": self.global_step,
            "updates": self.update_count,
        }

    def state_dict(self) -> dict[str, Any]:
        """Everything a resumed run needs to continue exactly (tensors and plain values only)."""
        engine = {path: _tensor(a) for path, a in self.engine.state_arrays().items()}
        return {
            **self.agent_payload(),
            "trainer": {
                "config": self.cfg.to_dict(),
                "optimizer": self.optimizer.state_dict(),
                "update": self.update_count,
                "global_step": self.global_step,
                "rng": self.rng.bit_generator.state,
                "scripted_rngs": [p.rng.bit_generator.state for p in self.scripted],
                "snapshots": [{k: v.clone() for k, v in p.net.state_dict().items()} for p in self.snapshots],
                "snapshot_rngs": [p.rng.bit_generator.state for p in self.snapshots],
                "engine": engine,
                "opponent": torch.from_numpy(self.opponent.copy()),
                "learner": torch.from_numpy(self.learner.copy()),
                "episode_return": torch.from_numpy(self.episode_return.copy()),
                "episode_length": torch.from_numpy(self.episode_length.copy()),
                "torch_rng": torch.get_rng_state(),
            },
        }

    def load_state_dict(self, data: dict[str, Any], source: str = "checkpoint") -> None:
        """Continue the run a :meth:`state_dict` describes; a checkpoint of another setup
        (game, table, network, opponents, batch) is refused, naming the differences."""
        if "trainer" not in data:
            raise ValueError(f"{source} is an exported agent (weights only), not a training checkpoint")
        tr = data["trainer"]
        saved = tr["config"]
        diff = [k for k in PPOConfig.STATE_KEYS if saved.get(k) != getattr(self.cfg, k)]
        if diff:
            detail = "; ".join(f"{k}: checkpoint {saved.get(k)!r}, config {getattr(self.cfg, k)!r}" for k in diff)
            raise ValueError(f"{source} does not match this config ({detail})")
        header = {"game": saved.get("game"), "num_players": saved.get("players")}
        edited = [f"{k} {data.get(k)!r} (its run: {v!r})" for k, v in header.items() if data.get(k) != v]
        if edited:  # the header a policy reads disagrees with the run it came from: an edited file
            raise ValueError(f"{source} is inconsistent: its header says " + ", ".join(edited))
        try:
            self.net.load_state_dict(data["model"])
            self.optimizer.load_state_dict(tr["optimizer"])
        except (RuntimeError, ValueError, KeyError) as err:
            raise ValueError(f"{source}: the saved network or optimiser does not fit ({err})") from None
        self.update_count, self.global_step = int(tr["update"]), int(tr["global_step"])
        self.rng.bit_generator.state = tr["rng"]
        for policy, state in zip(self.scripted, tr["scripted_rngs"], strict=True):
            policy.rng.bit_generator.state = state
        self.snapshots = []
        for weights, state in zip(tr["snapshots"], tr["snapshot_rngs"], strict=True):
            frozen = copy.deepcopy(self.net).cpu()
            frozen.load_state_dict(weights)
            policy = LearnedPolicy.from_network(frozen)
            policy.rng.bit_generator.state = state
            self.snapshots.append(policy)
        like = self.engine.state_arrays()
        self.engine.load_state_arrays({path: _array(t, like[path]) for path, t in tr["engine"].items()})
        self.opponent[:] = tr["opponent"].numpy()
        self.learner[:] = tr["learner"].numpy()
        self.episode_return[:] = tr["episode_return"].numpy()
        self.episode_length[:] = tr["episode_length"].numpy()
        torch.set_rng_state(tr["torch_rng"])
        self.obs, self.mask = self.engine.observe()


def _tensor(array: np.ndarray) -> torch.Tensor:
    """A numpy array as a tensor that ``weights_only`` loading accepts (uint64 as int64 bits)."""
    if array.dtype == np.uint64:
        array = array.view(np.int64)
    return torch.from_numpy(np.ascontiguousarray(array))


def _array(tensor: torch.Tensor, like: np.ndarray) -> np.ndarray:
    array = tensor.numpy()
    if array.shape != like.shape:
        raise ValueError(f"saved engine state has shape {array.shape}, this run's is {like.shape}")
    return array.view(like.dtype) if like.dtype == np.uint64 else array.astype(like.dtype, copy=False)
