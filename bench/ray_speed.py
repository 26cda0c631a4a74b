"""The Ray backends against the local ones, on this machine: tournaments and self-play collection.

* Tournament: ``configs/eval/default.yaml`` (24,000 games), local backend vs Ray tasks on
  a local Ray with every core; games/s (Ray: warm workers, connection time excluded) and
  a check that both give the same results.
* Self-play collection: ``configs/uno_2p_ppo.yaml`` (1,024 games x 32 decisions per
  rollout): the local trainer's ``collect()`` vs ``num_rollout_actors`` Ray actors, each
  stepping its share of the games; decisions (steps) per second of collection, and of
  whole updates (collection + learning in the driver).

Every figure is the median of ``--runs`` runs after a warm-up. On one machine the Ray
figures show the overhead and the use of its cores, not a cluster's speed: actors and
tasks share the same cores as the driver.

    python bench/ray_speed.py                # JSON to bench/results/ray_speed.json
    python bench/ray_speed.py --quick
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.engine_speed import results_out, save_results  # noqa: E402
from envs.config import int_in  # noqa: E402


def median(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": len(values)}


def tournament_local(runs: int) -> tuple[list[float], Any]:
    """Local games/s, measured before Ray starts (its idle processes would slow it)."""
    from tournament.config import load_config
    from tournament.runner import run_tournament
    from tournament.schedule import build_schedule

    cfg = load_config(ROOT / "configs" / "eval" / "default.yaml")
    schedule = build_schedule(cfg)
    run_tournament(cfg, schedule)  # warm-up
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        results = run_tournament(cfg, schedule)
        rates.append(schedule.num_games / (time.perf_counter() - start))
    return rates, results


def tournament(runs: int, local: list[float], local_results: Any) -> dict[str, Any]:
    from tournament import ray_backend
    from tournament.config import load_config
    from tournament.schedule import build_schedule, plan_shards
    from tournament.stats import summarise

    cfg = load_config(ROOT / "configs" / "eval" / "default.yaml")
    schedule = build_schedule(cfg)
    ray_rates = []
    ray_backend.run_tournament(cfg, schedule)  # warm-up: workers start and import the lab
    for _ in range(runs):
        start = time.perf_counter()
        ray_results, info = ray_backend.run_tournament(cfg, schedule)
        ray_rates.append(schedule.num_games / (time.perf_counter() - start))
    same = json.dumps(summarise(cfg, schedule, local_results), sort_keys=True, default=str) == json.dumps(
        summarise(cfg, schedule, ray_results), sort_keys=True, default=str
    )
    return {
        "what": "tournament games/s, configs/eval/default.yaml",
        "games": schedule.num_games,
        "shards": len(plan_shards(cfg, schedule)),
        "local": median(local),
        "ray": median(ray_rates),
        "identical": same,
    }


def collection_local(runs: int, quick: bool) -> dict[str, Any]:
    """The local trainer's collection and update speed, measured before Ray starts."""
    from agents.ppo import PPOTrainer
    from train import load_training_config

    cfg = load_training_config(ROOT / "configs" / "uno_2p_ppo.yaml", training_overrides(quick))
    per_rollout = cfg.num_games * cfg.num_steps
    out: dict[str, Any] = {"what": "self-play decisions/s, uno_2p_ppo.yaml", "decisions_per_rollout": per_rollout}
    local = PPOTrainer(cfg)
    local.collect()  # warm-up
    rates, updates = [], []
    for _ in range(runs):
        start = time.perf_counter()
        local.collect()
        rates.append(per_rollout / (time.perf_counter() - start))
        updates.append(local.update()["charts/SPS"])
    out["local"] = {"collect": median(rates), "update": median(updates)}
    return out


def training_overrides(quick: bool) -> list[str]:
    return ["imitation_steps=0", "device=cpu"] + (["num_games=512"] if quick else [])


def collection_ray(runs: int, actors: int, quick: bool, out: dict[str, Any]) -> dict[str, Any]:
    from agents.ppo import PPOTrainer
    from agents.ray_rollout import RayCollector
    from train import load_training_config

    overrides = [*training_overrides(quick), "backend=ray", f"num_rollout_actors={actors}"]
    remote = PPOTrainer(load_training_config(ROOT / "configs" / "uno_2p_ppo.yaml", overrides))
    per_rollout = out["decisions_per_rollout"]
    collector = RayCollector(remote)
    collector()  # warm-up: actors start and build their engines
    rates, updates = [], []
    for _ in range(runs):
        start = time.perf_counter()
        collector()
        rates.append(per_rollout / (time.perf_counter() - start))
        updates.append(remote.update(collector)["charts/SPS"])
    collector.close()
    out[f"ray_{actors}_actors"] = {"collect": median(rates), "update": median(updates)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="fewer runs, half the training games (the tournament as it is)"
    )
    parser.add_argument("--runs", type=int_in(1), default=None, help="timed runs (default 5; --quick: 2)")
    parser.add_argument("--actors", type=int_in(1), default=2)
    parser.add_argument("--out", type=Path, default=None, help="default: bench/results/ray_speed.json (--quick: none)")
    args = parser.parse_args()
    if args.quick and args.runs is not None:
        parser.error("--quick sets the runs (2): leave --runs out")
    runs = 2 if args.quick else args.runs or 5
    from agents.ray_support import import_ray
    from tournament.ray_backend import connect

    try:  # before the local runs: without Ray the bench would stop only after them
        import_ray()
    except RuntimeError as err:
        parser.error(str(err))
    out = results_out(parser, args.out, args.quick, "ray_speed.json")  # --quick: only to --out

    local_rates, local_results = tournament_local(runs)
    local_collection = collection_local(runs, args.quick)
    start = time.perf_counter()
    connect()
    connect_seconds = time.perf_counter() - start
    rows = [
        tournament(runs, local_rates, local_results),
        collection_ray(runs, args.actors, args.quick, local_collection),
    ]
    for row in rows:
        print(json.dumps(row, indent=1))
    save_results(out, rows, cpus=os.cpu_count(), ray_start_seconds=round(connect_seconds, 2), runs=runs)


if __name__ == "__main__":
    main()
