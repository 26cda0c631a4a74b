"""Every hyper-parameter of a PPO run (:class:`PPOConfig`), checked before anything runs.

``configs/*_ppo.yaml`` set these keys; ``train.py --help`` lists them with the comment next
to each field. A value out of range is refused by name with what is allowed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch

from agents.registry import check_spec, strategies
from envs.config import MAX_SEED, rules_mapping, table_size
from envs.core import dataclass_from_mapping, shown_value
from envs.games import GAMES, game_module

BACKENDS = ("local", "ray")
#: What the critic sees: the player's view (the actor-critic's own value head), or the view and
#: every hidden hand (an asymmetric critic, training only: agents.oracle_critic).
CRITICS = ("view", "oracle")


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
    ("oracle_guide", lambda v: v >= 0, lambda v: v <= 1, "in [0, 1] (a share of the run; 0: no guiding)"),
    ("belief_coef", lambda v: v >= 0, lambda v: v < float("inf"), ">= 0 (0: no belief task)"),
)


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
    "fine_counts": (0, 1_000),
    "seed": (0, MAX_SEED),
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
    opponents: list[Any] = dataclasses.field(default_factory=lambda: ["random", "heuristic"])  # the pool's policy specs
    snapshot_every: int = 25  # updates between frozen copies of the network added to the pool (0: none)
    pool_size: int = 8  # frozen copies kept (the oldest goes)
    # Network
    hidden: list[int] = dataclasses.field(default_factory=lambda: [256, 256])  # layer sizes of both heads' body
    drop_obs: list[str] = dataclasses.field(default_factory=list)  # observation fields hidden from the network
    fine_counts: int = 0  # k > 0: counts bounded above k also enter as min(x, k) / k (agents.network)
    critic: str = "view"  # view | oracle: advantages from a critic that also sees the hidden hands (training only)
    oracle_guide: float = 0.0  # share of the run over which the actor's view of the hidden hands fades out (0: none)
    belief_coef: float = 0.0  # weight of the auxiliary task: the actor's trunk predicts the other hands (0: none)
    colour_symmetry: bool = False  # classic UNO: the network sees views in canonical colours (envs.uno.colours)
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
    torch_threads: int = 0  # CPU threads of torch (0: torch's default); another count, other weights
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
    eval_opponents: list[Any] | None = None  # policy specs (default: the game's scripted policies)
    export: str = ""  # where to write the final agent (weights only); default: <run>/agent.pt

    # Keys whose change makes a checkpoint's state meaningless (refused on resume).
    STATE_KEYS = (
        "game",
        "players",
        "rules",
        "num_games",
        "num_steps",
        "hidden",
        "drop_obs",
        "fine_counts",
        "critic",
        "oracle_guide",
        "belief_coef",
        "colour_symmetry",
        "target",
        "opponents",
        "pool_size",
    )

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
        self.players = table_size(self.players)  # players=4.0 is 4
        if isinstance(self.players, bool) or not isinstance(self.players, int):
            raise ValueError(f"players must be an integer (the table size), got {self.players!r}")
        self.rules = rules_mapping(self.rules)
        module.Rules.from_dict(self.rules).check_players(self.players)
        if self.eval_opponents is None:  # the default: every scripted policy of this game
            self.eval_opponents = strategies(self.game)
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.critic not in CRITICS:
            raise ValueError(f"critic must be one of {', '.join(CRITICS)}, got {self.critic!r}")
        if self.critic == "oracle" and self.backend != "local":
            raise ValueError("critic: oracle collects with the local backend only (the Ray actors have no critic)")
        if self.oracle_guide and self.backend != "local":
            raise ValueError("oracle_guide collects with the local backend only (the Ray actors have no guide)")
        if self.belief_coef and (self.critic == "oracle" or self.oracle_guide):
            raise ValueError(
                "belief_coef cannot be combined with critic: oracle or oracle_guide (the actor would see "
                "the hands it is asked to predict, or see them in another order)"
            )
        if self.colour_symmetry and self.game != "uno":
            raise ValueError(f"colour_symmetry is for classic UNO (game: uno); the {self.game} game has no colours")
        if self.colour_symmetry and (self.oracle_guide or self.belief_coef):
            raise ValueError(
                "colour_symmetry cannot be combined with oracle_guide or belief_coef (the hidden hands they read "
                "keep the colours the network no longer sees); configs/uno_4p_ppo.yaml sets it: add "
                "colour_symmetry=false to try them"
            )
        if self.belief_coef and self.backend != "local":
            raise ValueError("belief_coef collects with the local backend only (the Ray actors record no hands)")
        for name, (low, high) in INTEGER_RANGES.items():
            value = getattr(self, name)
            if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:  # total_steps=1e6
                value = int(value)
                setattr(self, name, value)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an integer from {low:,} to {high:,}, got {shown_value(value)}")
        if self.num_games * self.num_steps > MAX_UPDATE_DECISIONS:
            raise ValueError(
                f"num_games x num_steps ({self.num_games:,} x {self.num_steps:,}) must be at most "
                f"{MAX_UPDATE_DECISIONS:,} decisions per update (the rollout is held in memory)"
            )
        if self.backend == "ray" and self.num_rollout_actors > self.num_games:
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
        for name in ("anneal_lr", "clip_vloss", "norm_adv", "colour_symmetry"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {getattr(self, name)!r}")
        for name in ("opponents", "eval_opponents"):
            if not isinstance(getattr(self, name), list):
                raise ValueError(
                    f"{name} must be a list of policy specs (e.g. [random, heuristic]), got {getattr(self, name)!r}"
                )
        if self.eval_every and not self.eval_opponents:
            raise ValueError(
                "eval_opponents is empty, but eval_every > 0 evaluates against them: "
                "name at least one (e.g. [heuristic]), or eval_every=0 for no evaluation at all"
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
        if not isinstance(self.drop_obs, list) or not all(isinstance(name, str) for name in self.drop_obs):
            raise ValueError(f"drop_obs must be a list of observation field names, got {shown_value(self.drop_obs)}")
        from agents.network import dropped_columns

        dropped_columns(game_module(self.game).OBS_NAMES, self.drop_obs)  # names outside the layout: refused
        if self.target is not None:
            self._check_target()
        for spec in [*self.opponents, *self.eval_opponents, self.imitation_teacher]:
            check_spec(self.game, spec, rules=self.rules, players=self.players)
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
        device = None
    if device is None or device.type not in ("cpu", "cuda"):  # meta, mps, ...: not devices a run trains on here
        raise ValueError(f"device must be auto, cpu, cuda or cuda:N; got {name!r}")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r}: no CUDA device here (device: auto picks the CPU)")
    return device
