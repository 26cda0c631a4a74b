"""RLlib compatibility: PPO with action masking trains on our PettingZoo env (examples/rllib_uno.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import need_module

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rllib_uno.py"


def load_example():
    need_module("ray.rllib", "pip install -e '.[rllib]'")
    spec = importlib.util.spec_from_file_location("rllib_uno", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rllib_keys_wrapper_renames_and_casts():
    from envs.rllib_compat import uno_env

    env = uno_env(num_players=3)
    env.reset(seed=4)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        assert env.observation_space(agent).contains(obs) and env.observation_spaces[agent].contains(obs)
        if term or trunc:
            env.step(None)
            continue
        assert obs["action_mask"].dtype == np.float32 and obs["action_mask"].any()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.fixture(scope="module")
def example(request):
    """The example module (skips without RLlib, naming the extra) on the module's local Ray."""
    module = load_example()
    request.getfixturevalue("ray_cluster")
    return module


def test_rllib_ppo_with_action_masking_runs_two_iterations(example):
    results = example.train(iterations=2, players=2, small=True)
    assert len(results) == 2
    assert results[-1]["env_runners"]["num_env_steps_sampled_lifetime"] >= 2 * 256
    assert example.POLICY in results[-1]["learners"]
