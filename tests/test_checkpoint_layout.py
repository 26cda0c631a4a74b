"""A checkpoint is fitted to its game's layout by name: agents trained before a house rule
added an observation value or an action play exactly as before (agents.learned.fit_to_layout)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.learned import LearnedPolicy, fit_to_layout, load_checkpoint, network_from, save_checkpoint
from agents.network import ActorCritic
from envs.uno import ACTION_NAMES, ADDED_ACTIONS, ADDED_OBS_NAMES, OBS_NAMES, UnoEngine, UnoRules

OLD = "tests/data/uno_328_values.pt"  # a small network in the layout before the swap entries


def test_a_checkpoint_from_before_the_swap_entries_plays_as_it_did():
    """Agents trained on 328 values and 70 actions (the layout before the house rules and the
    public history; the shipped agents until issue 16): fitted, their logits over the old
    actions and their values are those of the network as it was trained."""
    old = load_checkpoint(OLD, "uno")
    assert (old["obs_dim"], old["num_actions"]) == (len(OBS_NAMES) - len(ADDED_OBS_NAMES), 70)
    trained = ActorCritic(old["obs_dim"], old["num_actions"], old["hidden"])
    trained.load_state_dict(old["model"])
    fitted = network_from(old, OLD)
    keep = [i for i, name in enumerate(OBS_NAMES) if name not in ADDED_OBS_NAMES]
    old_actions = [i for i, name in enumerate(ACTION_NAMES) if name not in ADDED_ACTIONS]
    eng = UnoEngine(num_games=64, num_players=4, rules=UnoRules(seven_zero=True), seed=3)
    obs, mask = eng.reset()
    policy = LearnedPolicy(seed=0, checkpoint=OLD)
    swaps = 0
    for _ in range(60):
        with torch.no_grad():
            before, value_before = trained(torch.as_tensor(obs[:, keep]), torch.as_tensor(mask[:, old_actions]))
            after, value_after = fitted(torch.as_tensor(obs), torch.as_tensor(mask))
        assert torch.allclose(after[:, old_actions], before, atol=1e-5)
        assert torch.allclose(value_after, value_before, atol=1e-5)
        swaps += int(mask[:, 70:].any(axis=1).sum())
        obs, mask, _, _ = eng.step(policy(obs, mask))
    assert swaps > 0  # the new decision arose, and the fitted agent took it (a legal swap)


def test_a_recorded_layout_is_fitted_by_name_and_a_vanished_entry_is_refused(tmp_path):
    data = load_checkpoint(OLD, "uno")
    fitted = fit_to_layout(data, OLD)
    assert fitted["obs_names"] == list(OBS_NAMES) and fitted["action_names"] == list(ACTION_NAMES)
    assert fit_to_layout(fitted, "again")["model"] is fitted["model"]  # today's layout: nothing to fit
    names = list(fitted["action_names"])
    names[0] = "play R10"  # an action this game does not have
    broken = {k: v for k, v in fitted.items() if k not in ("format", "version")}
    broken["action_names"] = names
    path = save_checkpoint(tmp_path / "renamed.pt", broken)
    with pytest.raises(ValueError, match=r"layout changed: play R10 no longer exist\): train it again"):
        LearnedPolicy(checkpoint=str(path))


def test_new_checkpoints_record_their_layout(tmp_path):
    from agents.ppo import PPOConfig, PPOTrainer

    trainer = PPOTrainer(PPOConfig(num_games=8, num_steps=4, total_steps=32, hidden=[8], eval_every=0))
    payload = trainer.agent_payload()
    assert payload["obs_names"] == list(OBS_NAMES) and payload["action_names"] == list(ACTION_NAMES)
    assert np.all(LearnedPolicy(checkpoint=str(save_checkpoint(tmp_path / "a.pt", payload))).net.obs_scale.numpy() > 0)


def test_an_agent_trained_before_chosen_colours_ignores_them(tmp_path):
    """An agent trained on 409 values, before ``chosen_colours`` (the shipped 2-player agent until
    2026-12-07): fitted by the names its checkpoint records, it plays as if those inputs were
    not there."""
    torch.manual_seed(0)
    names = [name for name in OBS_NAMES if not name.startswith("chosen_colours")]
    trained = ActorCritic(len(names), len(ACTION_NAMES), [32])
    payload = {"game": "uno", "num_players": 2, "obs_dim": len(names), "num_actions": len(ACTION_NAMES)}
    payload |= {"hidden": [32], "model": trained.state_dict(), "obs_names": names, "action_names": list(ACTION_NAMES)}
    path = str(save_checkpoint(tmp_path / "uno_409_values.pt", payload))
    data = load_checkpoint(path, "uno")
    assert data["obs_dim"] == 409 and not any(name.startswith("chosen_colours") for name in data["obs_names"])
    net = network_from(data, path)
    eng = UnoEngine(num_games=256, num_players=2, rules=UnoRules(), seed=5)
    obs, mask = eng.reset()
    policy = LearnedPolicy(seed=0, checkpoint=path)
    for _ in range(30):
        obs, mask, _, _ = eng.step(policy(obs, mask))
    chosen = [i for i, name in enumerate(OBS_NAMES) if name.startswith("chosen_colours")]
    assert obs[:, chosen].any(axis=1).mean() > 0.5  # most games have seen a colour chosen
    hidden = obs.copy()
    hidden[:, chosen] = 0.0
    keep = [i for i, name in enumerate(OBS_NAMES) if not name.startswith("chosen_colours")]
    with torch.no_grad():
        seen, value_seen = net(torch.as_tensor(obs), torch.as_tensor(mask))
        unseen, value_unseen = net(torch.as_tensor(hidden), torch.as_tensor(mask))
        as_trained, value_as_trained = trained(torch.as_tensor(obs[:, keep]), torch.as_tensor(mask))
    assert torch.allclose(seen, as_trained, atol=1e-5) and torch.allclose(value_seen, value_as_trained, atol=1e-5)
    assert torch.equal(seen, unseen) and torch.equal(value_seen, value_unseen)
