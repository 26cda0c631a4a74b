"""Tournaments on Ray: the same numbers as the local backend, and lost workers' shards rerun."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.conftest import need_ray
from tournament.config import TournamentConfig
from tournament.runner import play_shard, run_tournament
from tournament.schedule import build_schedule, plan_shards
from tournament.stats import summarise

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ("winners", "scores", "hand_points", "hands", "decisions", "played")


def config(**kw) -> TournamentConfig:
    base = {
        "players": 4,
        "policies": [
            "random",
            "heuristic",
            "greedy",
            {"name": "agent", "checkpoint": str(ROOT / "models" / "uno_4p_ppo.pt"), "mode": "sample"},
        ],
        "games": 1200,
        "batch": 48,
        "seed": 3,
    }
    return TournamentConfig.from_mapping({**base, **kw})


def same(a, b) -> None:
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
    for name in a.events:
        np.testing.assert_array_equal(a.events[name], b.events[name], err_msg=name)


def dumps(summary: dict) -> str:
    return json.dumps(summary, sort_keys=True, default=str)  # NaN == NaN as text


def test_ray_tournament_equals_the_local_one(ray_cluster):
    from tournament import ray_backend

    cfg = config()
    schedule = build_schedule(cfg)
    local = run_tournament(cfg, schedule)
    seen = []
    remote, info = ray_backend.run_tournament(cfg, schedule, on_games=seen.append)
    assert info.shards == len(plan_shards(cfg, schedule)) > 4 and info.retries == 0
    assert sorted(seen) == sorted(s.num_games for s in plan_shards(cfg, schedule))
    same(local, remote)
    assert dumps(summarise(cfg, schedule, local)) == dumps(summarise(cfg, schedule, remote))  # OpenSkill too


def test_files_inside_a_wrappers_spec_travel_to_the_workers(ray_cluster, tmp_path, monkeypatch):
    """A checkpoint named inside another policy's spec (``restrained``'s base, the short
    ``agent:path`` form too) is shipped like an agent's own: the workers never read the driver's
    path, which is gone before the first shard runs."""
    import shutil

    from tournament import ray_backend

    mine = tmp_path / "mine.pt"
    shutil.copyfile(ROOT / "models" / "uno_4p_ppo.pt", mine)
    wrapped = [
        {"name": "restrained", "base": {"name": "agent", "checkpoint": str(mine)}, "challenge": "never"},
        {"name": "restrained", "base": f"agent:{mine}", "bluff": "never"},
    ]
    cfg = config(policies=["heuristic", "greedy", *wrapped], games=480)
    schedule = build_schedule(cfg)
    local = run_tournament(cfg, schedule)
    ship = ray_backend._ship_files

    def ship_then_remove(*args):
        shipped = ship(*args)
        mine.unlink()  # only the object store holds it now
        return shipped

    monkeypatch.setattr(ray_backend, "_ship_files", ship_then_remove)
    remote, _ = ray_backend.run_tournament(cfg, schedule)
    same(local, remote)


def _dies_once(config, schedule, shard, on_games, maker, marker: Path):
    """Kills its worker process the first time it plays shard 1 (a marker file remembers)."""
    if shard.index == 1 and not marker.exists():
        marker.write_text("killed")
        os.kill(os.getpid(), signal.SIGKILL)
    return play_shard(config, schedule, shard, on_games, maker)


def test_a_killed_worker_is_retried_and_the_totals_still_match(ray_cluster, tmp_path):
    import cloudpickle

    from tournament import ray_backend

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers need not import the tests
    cfg = config(policies=["random", "heuristic", "greedy", "rlcard_rule"], games=960)
    schedule = build_schedule(cfg)
    retried = []
    play = functools.partial(_dies_once, marker=tmp_path / "killed")
    remote, info = ray_backend.run_tournament(cfg, schedule, on_retry=retried.append, play=play)
    assert (tmp_path / "killed").exists()
    assert info.retries == 1 and len(retried) == 1 and retried[0].startswith("shard 1 attempt 1")
    same(run_tournament(cfg, schedule), remote)


def test_the_command_line_joins_a_running_cluster(ray_cluster, tmp_path):
    address = ray_cluster.get_runtime_context().gcs_address
    proc = subprocess.run(
        [sys.executable, "evaluate.py", "--backend", "ray", "--address", address]
        + ["games=480", "batch=48", f"output={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "shards ran (ray backend)" in proc.stdout
    summary = json.loads((tmp_path / "tournament.json").read_text())
    assert summary["backend"] == "ray" and summary["shards"] > 1 and summary["games"] == 480


def test_bad_addresses_are_refused_quickly():
    need_ray()  # without Ray the refusal is the install hint (tests/test_optional_deps.py)
    proc = subprocess.run(
        [sys.executable, "evaluate.py", "--backend", "ray", "--address", "127.0.0.1:1", "--no-files"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "no Ray cluster reachable at '127.0.0.1:1'" in proc.stderr
