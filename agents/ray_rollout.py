"""Self-play experience from Ray rollout actors; the learner stays in the driver.

Each actor is a :class:`~agents.collector.Collector`, the same one the trainer collects with: its own
batched engine of ``num_games / num_rollout_actors`` games, its own random streams
(seeded from the run's seed and the actor's index), the scripted opponents, and the
network. Every update the driver puts the current weights in the object store once
(and the frozen pool snapshots, when they change); every actor plays ``num_steps``
decisions in each of its games with them, and the rollouts are joined along the games
axis into one rollout of ``num_games`` games, which the driver's trainer learns from
exactly as from its own (GAE runs along each game's chains, so games never mix).

Why it scales: collection is most of an update's time (``charts/collect_SPS``) and the
actors share nothing but the weights, so N machines collect about N times the decisions
per second while the learner (one process, a GPU where there is one) does the rest.
A resumed run continues the weights, optimiser and pool; the actors start new games, seeded
from the update they resume at as well, so a run resumed again and again never replays the
deals of its first updates (bit-exact resume is the local backend's).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from agents.collector import Collector
from agents.network import ActorCritic
from agents.ppo import PPOConfig, PPOTrainer
from agents.rollout import Rollout


class RolloutWorker:
    """One actor's games and network: a :class:`~agents.collector.Collector` of its own
    (a plain class; :class:`RayCollector` makes it a Ray actor)."""

    def __init__(self, cfg: dict[str, Any], index: int, num_games: int, start_update: int = 0) -> None:
        import torch

        key = [cfg["seed"], index + 1] + ([start_update] if start_update else [])  # a resume: other games
        seed = int(np.random.SeedSequence(key).generate_state(1)[0] >> 1)
        # the actor only collects: the driver's minibatches (checked against all the games) are not its own
        local = {**cfg, "num_games": num_games, "seed": seed, "device": "cpu", "backend": "local", "num_minibatches": 1}
        local["torch_threads"] = cfg.get("torch_threads") or 1  # one core per actor
        torch.set_num_threads(local["torch_threads"])
        config = PPOConfig.from_mapping(local)
        torch.manual_seed(config.seed)
        self.net = ActorCritic.for_game(
            config.game, config.rules, config.hidden, config.drop_obs, config.fine_counts, config.colour_symmetry
        )
        self.rng = np.random.default_rng(config.seed)
        self.collector = Collector(config, self.net, self.rng, torch.device("cpu"))
        self.snapshots_version = -1

    def collect(self, weights: dict[str, Any], snapshots: tuple[int, list[dict[str, Any]]] | None) -> Rollout:
        """A rollout of this actor's games with the driver's current weights (and pool)."""
        self.net.load_state_dict(weights)
        if snapshots is not None and snapshots[0] != self.snapshots_version:
            self.snapshots_version, states = snapshots
            self.collector.pool.set_snapshots(states, self.net, self.rng)  # seeded from this actor's stream
        return self.collector.collect()


class RayCollector:
    """``trainer.update(collect=RayCollector(trainer))``: rollouts from ``num_rollout_actors``
    Ray actors on the connected cluster (``tournament.ray_backend.connect``)."""

    def __init__(self, trainer: PPOTrainer) -> None:
        from agents.ray_support import import_ray

        ray = import_ray()
        if not ray.is_initialized():
            raise RuntimeError("Ray is not connected: call tournament.ray_backend.connect() first")
        self.ray, self.trainer = ray, trainer
        cfg = trainer.cfg
        n = cfg.num_rollout_actors
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if n > cpus:  # an actor takes a CPU; more actors than CPUs would wait forever
            raise RuntimeError(f"num_rollout_actors={n} needs {n} CPUs; the Ray cluster has {cpus}")
        shares = [cfg.num_games // n + (i < cfg.num_games % n) for i in range(n)]
        actor = ray.remote(num_cpus=1, max_restarts=0)(RolloutWorker)
        plain = dataclasses.asdict(cfg)
        self.actors = [actor.remote(plain, i, b, trainer.update_count) for i, b in enumerate(shares)]
        self.sent_version = -1
        self.wait_seconds = 0.0  # driver time spent waiting for rollouts, last call

    def _snapshot_version(self) -> int:
        cfg = self.trainer.cfg
        taken = self.trainer.update_count // cfg.snapshot_every if cfg.snapshot_every and cfg.pool_size else 0
        return taken + 1 if self.trainer.collector.pool.snapshots else 0

    def __call__(self) -> dict[str, Any]:
        ray, tr = self.ray, self.trainer
        start = time.perf_counter()
        weights = ray.put({k: v.detach().cpu() for k, v in tr.net.state_dict().items()})
        version = self._snapshot_version()
        snapshots = None
        if version != self.sent_version:
            snapshots = ray.put((version, tr.collector.pool.snapshot_weights()))
            self.sent_version = version
        parts = ray.get([a.collect.remote(weights, snapshots) for a in self.actors])
        ro = Rollout.join(parts)
        tr.global_step += ro.decisions
        self.wait_seconds = time.perf_counter() - start
        return ro

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
        self.actors = []
