"""Oracle guiding (``oracle_guide``): the actor sees the hidden hands early in training, then
less and less; the exported agent never does."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.learned import LearnedPolicy, load_checkpoint, save_checkpoint
from agents.oracle_guide import keep_probability
from agents.ppo import PPOConfig, PPOTrainer
from envs.cards import NUM_CARD_TYPES
from envs.uno import UnoEngine
from tests.test_ppo import tiny


def test_the_share_of_guided_decisions_falls_linearly_to_zero():
    assert keep_probability(0.0, 0, 100) == 0.0
    assert [keep_probability(0.5, step, 100) for step in (0, 25, 50, 90)] == [1.0, 0.5, 0.0, 0.0]
    assert PPOConfig().oracle_guide == 0.0


def test_guided_decisions_see_the_hidden_hands_and_the_exported_agent_does_not(tmp_path):
    cfg = tiny(players=3, oracle_guide=0.5, total_steps=8 * 128 * 16)
    trainer = PPOTrainer(cfg)
    assert not trainer.guide.hands.weight.any()  # zero at the start: the warm start's policy is unchanged
    for _ in range(3):
        stats = trainer.update()
    assert stats["charts/oracle_keep"] == pytest.approx(1 - 2 / 4)  # 2 of the guide's 4 updates played
    assert trainer.guide.hands.weight.abs().sum() > 0  # it learned to use them
    ro = trainer.collect()
    assert ro.hidden.shape == (16, 128, 2 * NUM_CARD_TYPES)
    learning = ro.learning.nonzero()
    kept = ro.keep[learning]
    assert set(np.unique(kept)) == {0.0, 1.0} and 0.25 < kept.mean() < 0.75  # probability 1/2, as set last
    # a guided decision's logits depend on the hidden hands, an unguided one's do not
    obs, mask = torch.as_tensor(ro.obs[learning]), torch.as_tensor(ro.mask[learning])
    hands = torch.as_tensor(ro.hidden[learning])
    keep = torch.as_tensor(kept)
    with torch.no_grad():
        seen, _ = trainer.net(obs, mask, trainer.guide(hands, keep))
        other, _ = trainer.net(obs, mask, trainer.guide(hands.flip(0), keep))
        plain, _ = trainer.net(obs, mask)
    guided = kept == 1
    assert not torch.allclose(seen[guided], other[guided])
    torch.testing.assert_close(seen[~guided], plain[~guided])
    torch.testing.assert_close(other[~guided], plain[~guided])
    # the exported agent is the actor-critic alone, playing from its view
    path = save_checkpoint(tmp_path / "agent.pt", trainer.agent_payload())
    assert not any("guide" in k or "hands" in k for k in load_checkpoint(path, "uno")["model"])
    policy = LearnedPolicy(seed=0, checkpoint=str(path))
    eng = UnoEngine(64, 3, seed=0)
    obs, mask = eng.reset()
    assert mask[np.arange(64), policy(obs, mask)].all()


def test_bad_guide_settings_are_refused():
    with pytest.raises(ValueError, match=r"oracle_guide must be a number in \[0, 1\]"):
        tiny(oracle_guide=1.5)
    with pytest.raises(ValueError, match="oracle_guide collects with the local backend only"):
        tiny(oracle_guide=0.5, backend="ray")
    trainer = PPOTrainer(tiny())
    state = trainer.state_dict()
    with pytest.raises(ValueError, match="oracle_guide: checkpoint 0.0, config 0.5"):
        PPOTrainer(tiny(oracle_guide=0.5)).load_state_dict(state)
