"""Fine counts (``fine_counts: k``): counts bounded above k also enter the network as
``min(x, k) / k``, so one card is 1/k of an input, not 1/108 (agents.network)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.learned import LearnedPolicy, load_checkpoint, network_from, save_checkpoint
from agents.network import ActorCritic, fine_columns
from agents.ppo import PPOTrainer
from envs.uno import ACTION_NAMES, ADDED_ACTIONS, ADDED_OBS_NAMES, OBS_NAMES, UnoEngine, UnoRules
from envs.uno.observation import FIELDS, observation_bounds
from tests.test_ppo import tiny


def test_counts_above_the_cap_get_a_second_input_on_a_fine_scale():
    net = ActorCritic.for_game("uno", {}, [8], fine_counts=8)
    _, high = observation_bounds(UnoRules())
    np.testing.assert_array_equal(net.fine_cols.numpy(), np.flatnonzero(high > 8))
    assert net.trunk[0].in_features == len(OBS_NAMES) + net.fine_cols.numel()
    obs = np.zeros((3, len(OBS_NAMES)), np.float32)
    next_seat = FIELDS["hand_sizes"].start + 1
    obs[:, next_seat] = [1, 2, 30]  # the next player holds 1, 2 and 30 cards
    x = net.inputs(torch.as_tensor(obs))
    fine = x[:, len(OBS_NAMES) + int(np.flatnonzero(net.fine_cols.numpy() == next_seat)[0])]
    np.testing.assert_allclose(fine.numpy(), [1 / 8, 2 / 8, 1.0])  # capped at 8
    np.testing.assert_allclose(x[:, next_seat].numpy(), obs[:, next_seat] / 108)  # the scaled value stays
    hidden = ActorCritic.for_game("uno", {}, [8], drop_obs=["hand_sizes"], fine_counts=8)
    sizes = FIELDS["hand_sizes"]
    assert not set(hidden.fine_cols.tolist()) & set(range(sizes.start, sizes.start + sizes.size))
    assert not hasattr(ActorCritic.for_game("uno", {}, [8]), "fine_cols")  # 0: the network as before
    assert fine_columns(high, 0).size == 0


def test_an_agent_with_fine_counts_trains_exports_and_plays_the_same_after_loading(tmp_path):
    trainer = PPOTrainer(tiny(fine_counts=8, critic="oracle"))
    trainer.update()
    assert trainer.critic.trunk[0].in_features == trainer.net.trunk[0].in_features + 54  # one hidden hand (two players)
    path = save_checkpoint(tmp_path / "agent.pt", trainer.agent_payload())
    policy = LearnedPolicy(seed=0, checkpoint=str(path))
    eng = UnoEngine(32, 2, seed=4)
    obs, mask = eng.reset()
    with torch.no_grad():
        want, _ = trainer.net.cpu()(torch.as_tensor(obs), torch.as_tensor(mask))
        got, _ = policy.net(torch.as_tensor(obs), torch.as_tensor(mask))
    torch.testing.assert_close(got, want)
    with pytest.raises(ValueError, match=r"fine_counts must be an integer from 0 to 1,000"):
        tiny(fine_counts=-1)


def test_a_fine_count_network_of_an_older_layout_is_fitted_by_name(tmp_path):
    """Trained before the swap entries and the public history were added: its fine inputs
    follow their values to their new places, and it plays as it was trained."""
    keep = [i for i, name in enumerate(OBS_NAMES) if name not in ADDED_OBS_NAMES]
    old_actions = [i for i, name in enumerate(ACTION_NAMES) if name not in ADDED_ACTIONS]
    _, high = observation_bounds(UnoRules())
    old_high = high[keep]
    torch.manual_seed(0)
    old = ActorCritic(len(keep), len(old_actions), [16], old_high, fine_columns(old_high, 8), 8)
    data = {
        "game": "uno",
        "num_players": 4,
        "rules": {},
        "obs_dim": len(keep),
        "num_actions": len(old_actions),
        "obs_names": [OBS_NAMES[i] for i in keep],
        "action_names": [ACTION_NAMES[i] for i in old_actions],
        "hidden": [16],
        "model": old.state_dict(),
    }
    path = save_checkpoint(tmp_path / "old.pt", data)
    fitted = network_from(load_checkpoint(path, "uno"), path)
    eng = UnoEngine(64, 4, seed=2)
    obs, mask = eng.reset()
    for _ in range(20):
        with torch.no_grad():
            before, v_before = old(torch.as_tensor(obs[:, keep]), torch.as_tensor(mask[:, old_actions]))
            after, v_after = fitted(torch.as_tensor(obs), torch.as_tensor(mask))
        torch.testing.assert_close(after[:, old_actions], before)
        torch.testing.assert_close(v_after, v_before)
        obs, mask, _, _ = eng.step(np.argmax(mask, axis=1))


def test_a_resume_with_other_fine_counts_and_an_edited_checkpoint_are_refused(tmp_path):
    trainer = PPOTrainer(tiny(fine_counts=8))
    with pytest.raises(ValueError, match=r"does not match this config \(fine_counts: checkpoint 8, config 0\)"):
        PPOTrainer(tiny()).load_state_dict(trainer.state_dict(), "run")
    payload = trainer.agent_payload()
    for key, value, why in (
        ("fine_cols", torch.tensor([0, len(OBS_NAMES)]), "must index the 449 observation values"),
        ("fine_cols", torch.tensor([-1]), "must index the 449 observation values"),
        ("fine_cap", torch.tensor(0.0), "fine_cap must be one number above 0"),
    ):
        edited = {**payload, "model": {**payload["model"], key: value}}
        with pytest.raises(ValueError, match=why):
            network_from(edited, "edited.pt")
    missing = {**payload, "model": {k: v for k, v in payload["model"].items() if k != "fine_cap"}}
    with pytest.raises(ValueError, match="fine_cap must be one number above 0"):
        network_from(missing, "edited.pt")
