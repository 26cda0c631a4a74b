"""The oracle critic (``critic: oracle``): it sees the other hands, the policy never does."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.learned import LearnedPolicy, load_checkpoint, save_checkpoint
from agents.ppo import PPOConfig, PPOTrainer
from envs.cards import NUM_CARD_TYPES
from envs.uno import UnoEngine
from envs.uno_tricks import TricksEngine
from tests.test_ppo import tiny


@pytest.mark.parametrize(("engine", "players"), [(UnoEngine, 3), (TricksEngine, 4)])
def test_hidden_hands_are_the_other_seats_hands_in_turn_order(engine, players):
    eng = engine(5, players, seed=1)
    eng.reset()
    seen = eng.hidden_hands()
    assert seen.shape == (5, (players - 1) * NUM_CARD_TYPES) and seen.dtype == np.float32
    for g in range(5):
        viewer = int(eng.current_player[g])
        for k in range(1, players):
            other = eng.hands[g, (viewer + k) % players]
            np.testing.assert_array_equal(seen[g, (k - 1) * NUM_CARD_TYPES : k * NUM_CARD_TYPES], other)
        assert not np.array_equal(seen[g, :NUM_CARD_TYPES], eng.hands[g, viewer])  # not its own hand
    np.testing.assert_array_equal(eng.hidden_hands(seats=2)[:, :NUM_CARD_TYPES], eng.hands[:, 3 % players])


def test_the_oracle_critic_makes_the_values_and_stays_out_of_the_exported_agent(tmp_path):
    cfg = tiny(critic="oracle", total_steps=3 * 128 * 16)
    trainer = PPOTrainer(cfg)
    ro = trainer.collect()
    assert ro.hidden.shape == (16, 128, NUM_CARD_TYPES)
    # the rollout's values are the critic's, from the view and the hidden hands
    rows = ro.learning[0].nonzero()[0]
    with torch.no_grad():
        oracle = trainer.critic(torch.as_tensor(ro.obs[0, rows]), torch.as_tensor(ro.hidden[0, rows])).numpy()
    np.testing.assert_allclose(ro.value[0, rows], oracle, rtol=1e-6)
    before = {k: v.clone() for k, v in trainer.critic.state_dict().items()}
    stats = trainer.update()
    assert "losses/view_value_loss" in stats and np.isfinite(stats["losses/value_loss"])
    assert any(not torch.equal(before[k], v) for k, v in trainer.critic.state_dict().items())
    # the exported agent is the actor-critic alone: it loads and plays like any agent
    path = save_checkpoint(tmp_path / "agent.pt", trainer.agent_payload())
    assert not any("critic" in k for k in load_checkpoint(path, "uno")["model"])
    policy = LearnedPolicy(seed=0, checkpoint=str(path))
    eng = UnoEngine(64, 2, seed=0)
    obs, mask = eng.reset()
    assert mask[np.arange(64), policy(obs, mask)].all()


def test_critic_choices_are_checked_and_older_runs_resume_with_the_view_critic(tmp_path):
    with pytest.raises(ValueError, match="critic must be one of view, oracle, got 'psychic'"):
        tiny(critic="psychic")
    with pytest.raises(ValueError, match="local backend only"):
        tiny(critic="oracle", backend="ray")
    trainer = PPOTrainer(tiny())
    state = trainer.state_dict()
    del state["trainer"]["config"]["critic"]  # a checkpoint written before the key existed
    PPOTrainer(tiny()).load_state_dict(state)
    with pytest.raises(ValueError, match="critic: checkpoint 'view', config 'oracle'"):
        PPOTrainer(tiny(critic="oracle")).load_state_dict(state)
    assert PPOConfig().critic == "view"
