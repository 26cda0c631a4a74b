"""The auxiliary belief task (``belief_coef``): the actor's trunk learns to predict the other
hands in training; the exported agent is the plain network."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.learned import load_checkpoint, save_checkpoint
from agents.ppo import PPOConfig, PPOTrainer
from envs.cards import NUM_CARD_TYPES
from tests.test_ppo import tiny


def test_the_trunk_learns_to_predict_the_other_hands(tmp_path):
    assert PPOConfig().belief_coef == 0.0
    trainer = PPOTrainer(tiny(players=3, belief_coef=10.0, total_steps=8 * 128 * 12))
    assert trainer.belief.hands.out_features == 2 * NUM_CARD_TYPES
    ro = trainer.collect()
    assert ro.hidden.shape == (16, 128, 2 * NUM_CARD_TYPES)  # the targets are recorded
    learning = ro.learning.nonzero()
    obs, hands = torch.as_tensor(ro.obs[learning]), torch.as_tensor(ro.hidden[learning])

    def error() -> float:
        with torch.no_grad():
            return trainer.belief.loss(trainer.net.features(obs), hands).item()

    before = error()
    for _ in range(8):
        stats = trainer.update()
    assert "losses/belief_loss" in stats
    assert error() < 0.9 * before  # it learned something about the hands
    path = save_checkpoint(tmp_path / "agent.pt", trainer.agent_payload())
    assert not any("belief" in k or "hands" in k for k in load_checkpoint(path, "uno")["model"])


def test_the_targets_are_the_other_hands_in_the_order_of_play():
    trainer = PPOTrainer(tiny(players=4, belief_coef=1.0))
    eng = trainer.collector.engine
    for _ in range(30):  # some games reversed by now
        trainer.collector.collect()
        if (eng.direction < 0).any() and (eng.direction > 0).any():
            break
    assert (eng.direction < 0).any()
    targets = trainer.collector.hidden_hands().reshape(-1, 3, NUM_CARD_TYPES)
    ar = np.arange(eng.num_games)
    for k in range(1, 4):  # slot k: k seats on in the direction of play
        np.testing.assert_array_equal(targets[:, k - 1], eng.hands[ar, (eng.current + eng.direction * k) % 4])


def test_a_run_without_the_task_records_no_hands():
    trainer = PPOTrainer(tiny(players=3))
    assert trainer.belief is None and trainer.collect().hidden.shape[-1] == 0


def test_bad_belief_settings_are_refused():
    with pytest.raises(ValueError, match=r"belief_coef must be a number >= 0"):
        tiny(belief_coef=-1.0)
    with pytest.raises(ValueError, match=r"belief_coef collects with the local backend only"):
        tiny(belief_coef=1.0, backend="ray")
    for other in ({"critic": "oracle"}, {"oracle_guide": 0.5}):
        with pytest.raises(ValueError, match=r"belief_coef cannot be combined with critic: oracle or oracle_guide"):
            tiny(belief_coef=1.0, **other)
