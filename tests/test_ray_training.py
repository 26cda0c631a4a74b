"""Self-play collection on Ray rollout actors: the driver's learner trains on their rollouts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.ppo import PPOTrainer
from tests.test_ppo import tiny

ROOT = Path(__file__).resolve().parents[1]


def test_bad_backend_settings_are_refused():
    with pytest.raises(ValueError, match="backend must be one of local, ray, got 'spark'"):
        tiny(backend="spark")
    with pytest.raises(ValueError, match=r"num_rollout_actors \(9\) cannot exceed num_games \(8\)"):
        tiny(backend="ray", num_games=8, num_rollout_actors=9)
    tiny(num_games=1)  # the local backend has no rollout actors: their count is not checked
    with pytest.raises(ValueError, match="num_rollout_actors must be an integer from 1 to 1,024"):
        tiny(num_rollout_actors=0)


def test_rollout_actors_play_with_the_broadcast_weights_and_the_learner_trains(ray_cluster):
    from agents.ray_rollout import RayCollector

    cfg = tiny(backend="ray", num_games=48, num_steps=8, snapshot_every=1, pool_size=2, num_rollout_actors=2)
    trainer = PPOTrainer(cfg)
    collector = RayCollector(trainer)
    try:
        before = [p.detach().clone() for p in trainer.net.parameters()]
        for _ in range(3):
            stats = trainer.update(collector)
            assert np.isfinite(stats["losses/value_loss"]) and stats["charts/samples"] > 0
        assert (
            trainer.global_step == 3 * 48 * 8
            and trainer.update_count == 3
            and len(trainer.collector.pool.snapshots) == 2
        )
        assert any(not torch.equal(a, b) for a, b in zip(before, trainer.net.parameters(), strict=True))
        ro = collector()  # the actors' values are the driver's network's, on their observations
        assert ro.action.shape == (8, 48) and ro.last_value.shape == (48, 2)
        pick = ro.learning
        with torch.no_grad():
            values = trainer.net.value(torch.as_tensor(ro.obs[pick])).numpy()
        np.testing.assert_allclose(ro.value[pick], values, rtol=1e-4, atol=1e-5)
        assert (ro.mask[np.arange(8)[:, None], np.arange(48), ro.action]).all()  # legal moves only
    finally:
        collector.close()


def test_the_command_line_switches_to_ray_with_one_flag(ray_cluster, tmp_path):
    address = ray_cluster.get_runtime_context().gcs_address
    proc = subprocess.run(
        [sys.executable, "train.py", "--config", "configs/uno_2p_ppo.yaml", "--backend", "ray", "--address", address]
        + ["num_games=32", "num_steps=8", "total_steps=512", "imitation_steps=0", "eval_games=48", "final_eval_games=0"]
        + ["torch_threads=1", "device=cpu", f"log_dir={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    out = " ".join(proc.stdout.split())  # rich wraps long lines
    assert "experience from 2 Ray rollout actors" in out and "done in" in out
    assert (tmp_path / "uno_2p_ppo" / "agent.pt").exists()


def test_more_actors_than_cpus_are_refused(ray_cluster):
    from agents.ray_rollout import RayCollector

    with pytest.raises(RuntimeError, match="num_rollout_actors=3 needs 3 CPUs; the Ray cluster has 2"):
        RayCollector(PPOTrainer(tiny(backend="ray", num_rollout_actors=3)))
