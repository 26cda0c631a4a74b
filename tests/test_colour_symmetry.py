"""Classic UNO's colours are alike (envs.uno.colours): relabelling every colour of a game's
state relabels each view and each legal move exactly as the tables say, and the relabelled
game plays on as the relabelled twin of the original; a network with ``colour_symmetry``
gives twin views twin action probabilities and one value."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.network import ActorCritic
from envs.uno import UnoEngine, UnoRules
from envs.uno.colours import (
    PERMUTATIONS,
    action_targets,
    canonical_order,
    canonical_weights,
    card_types,
    observation_sources,
)


def relabelled(eng: UnoEngine, perm: tuple[int, ...]) -> UnoEngine:
    """A copy of ``eng`` with every colour relabelled by ``perm`` (cards, colours, history)."""
    arrays = eng.state_arrays()
    types, colour = card_types(perm), np.asarray(perm)
    to_type = np.argsort(types)  # new[..., types[t]] = old[..., t]
    for name in ("hands", "discard_counts", "revealed_hand"):
        arrays[name] = arrays[name][..., to_type]
    for name in ("draw_pile", "discard"):  # card type ids by position (slots past the pile too: harmless)
        arrays[name] = types[arrays[name].astype(np.int64)].astype(np.int8)
    for name in ("top", "drawn_card"):
        arrays[name] = np.where(arrays[name] >= 0, types[np.maximum(arrays[name], 0)], arrays[name])
    for name in ("colour", "challenge_colour", "chosen_colour"):
        arrays[name] = np.where(arrays[name] >= 0, colour[np.maximum(arrays[name], 0)], arrays[name])
    arrays["void_draws"] = arrays["void_draws"][..., np.argsort(colour)]
    twin = UnoEngine(eng.num_games, eng.num_players, eng.rules, 0, eng.auto_reset)
    twin.load_state_arrays(arrays)
    return twin


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per game."""
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


@pytest.mark.parametrize(
    "players, rules",
    [
        (2, {}),
        (4, {}),
        (3, {"seven_zero": True, "stacking": True}),
        (5, {"draw_anytime": True, "must_play_drawn": False}),
        (2, {"match": True, "scoring": "reverse", "draw_until_playable": True}),
        (4, {"stacking": True, "stack_wild_draw_four": True}),
    ],
)
def test_relabelled_games_see_relabelled_views_and_play_on_as_twins(players: int, rules: dict) -> None:
    """Random play in 256 games; every 7 steps a relabelled copy is checked for every seat's
    view and mask, then both step 12 moves (the copy the relabelled move) and are checked again,
    until a game ends (the next deal shuffles the deck as printed: no twin of the other's)."""
    eng = UnoEngine(256, players, UnoRules.from_dict(rules), seed=players)
    obs, mask = eng.reset()
    rng = np.random.default_rng(players)
    checked = 0
    for step in range(120):
        if step % 7 == 3:
            perm = PERMUTATIONS[rng.integers(len(PERMUTATIONS))]
            sources, targets = observation_sources(perm), action_targets(perm)
            twin, copy = relabelled(eng, perm), eng.select(np.arange(eng.num_games))
            twins = np.ones(eng.num_games, bool)  # games whose twin is still the relabelled original
            for _ in range(12):
                for seat in range(players):
                    o, m = copy.observe(seat)
                    to, tm = twin.observe(seat)
                    np.testing.assert_array_equal(to[twins], o[twins][:, sources])
                    np.testing.assert_array_equal(tm[twins][:, targets], m[twins])
                o, m = copy.observe()
                actions = random_legal(m, rng)
                _, _, rewards, done = copy.step(actions)
                own = twin.observe()[1].argmax(axis=1)  # a game dealt again: any legal move of its own
                _, _, twin_rewards, twin_done = twin.step(np.where(twins, targets[actions], own))
                np.testing.assert_array_equal(twin_rewards[twins], rewards[twins])
                np.testing.assert_array_equal(twin_done[twins], done[twins])
                twins &= ~(done | copy.hand_ended)  # a new hand or game: shuffled from the deck as printed
                checked += int(twins.sum())
        actions = random_legal(mask, rng)
        obs, mask, _, _ = eng.step(actions)
    assert checked > 17 * 12 * 200  # game-moves checked as twins


def test_the_canonical_order_is_one_for_all_twins() -> None:
    """Every relabelling of a view has the same canonical view (ties aside: none here, where
    each colour has its own score), and the network's relabelling agrees with numpy's."""
    eng = UnoEngine(256, 4, seed=5)
    obs, _ = eng.reset()
    for _ in range(30):
        obs, _, _, _ = eng.step(np.array([np.flatnonzero(m)[0] for m in eng.observe()[1]]))
    net = ActorCritic.for_game("uno", {}, [8], colour_symmetry=True)
    np.testing.assert_array_equal(net.relabelling(torch.as_tensor(obs)).numpy(), canonical_order(obs))
    canonical = obs[
        np.arange(len(obs))[:, None], np.stack([observation_sources(PERMUTATIONS[p]) for p in canonical_order(obs)])
    ]
    scores = obs @ canonical_weights()
    distinct = np.array([len(set(row)) == 4 for row in scores])
    assert distinct.sum() > 200
    for perm in PERMUTATIONS[1:]:
        twin = obs[:, observation_sources(perm)]
        twin_canonical = twin[
            np.arange(len(obs))[:, None],
            np.stack([observation_sources(PERMUTATIONS[p]) for p in canonical_order(twin)]),
        ]
        np.testing.assert_array_equal(twin_canonical[distinct], canonical[distinct])


def test_a_symmetric_network_plays_twin_views_alike_and_survives_a_checkpoint(tmp_path) -> None:
    """Twin views (whose colours score apart) get the relabelled action probabilities and the
    same value; a checkpoint
    keeps the tables, so the loaded agent does the same."""
    from agents.learned import network_from

    torch.manual_seed(0)
    net = ActorCritic.for_game("uno", {}, [64], colour_symmetry=True)
    eng = UnoEngine(128, 2, seed=9)
    obs, mask = eng.reset()
    perm = PERMUTATIONS[17]
    sources, targets = observation_sources(perm), action_targets(perm)
    twin_mask = np.zeros_like(mask)
    twin_mask[:, targets] = mask
    with torch.no_grad():
        logits, value = net(torch.as_tensor(obs), torch.as_tensor(mask.astype(bool)))
        twin_logits, twin_value = net(torch.as_tensor(obs[:, sources]), torch.as_tensor(twin_mask.astype(bool)))
    scores = obs @ canonical_weights()
    distinct = torch.as_tensor([len(set(row)) == 4 for row in scores])  # ties go by colour order: no twins there
    assert distinct.sum() > 30
    torch.testing.assert_close(twin_logits[:, targets][distinct], logits[distinct])
    torch.testing.assert_close(twin_value[distinct], value[distinct])
    plain = ActorCritic.for_game("uno", {}, [64])
    with torch.no_grad():
        _, plain_twin_value = plain(torch.as_tensor(obs[:, sources]), torch.as_tensor(twin_mask.astype(bool)))
        assert not torch.allclose(plain_twin_value, plain(torch.as_tensor(obs), torch.as_tensor(mask.astype(bool)))[1])
    data = {
        "game": "uno",
        "num_players": 2,
        "obs_dim": net.obs_dim,
        "num_actions": net.num_actions,
        "hidden": net.hidden,
        "model": net.state_dict(),
    }
    loaded = network_from(data)
    with torch.no_grad():
        torch.testing.assert_close(loaded(torch.as_tensor(obs), torch.as_tensor(mask.astype(bool)))[0], logits)


def test_colour_symmetry_is_refused_where_it_means_nothing() -> None:
    from agents.ppo_config import PPOConfig

    with pytest.raises(ValueError, match="colour_symmetry is for classic UNO"):
        PPOConfig.from_mapping({"game": "tricks", "players": 4, "colour_symmetry": True})
    with pytest.raises(ValueError, match="cannot be combined with oracle_guide or belief_coef"):
        PPOConfig.from_mapping({"colour_symmetry": True, "belief_coef": 1.0})
    with pytest.raises(ValueError, match="colour_symmetry must be true or false"):
        PPOConfig.from_mapping({"colour_symmetry": "yes"})


def test_a_hidden_field_does_not_order_the_colours() -> None:
    """With ``drop_obs=[hand]`` the network never sees the hand: relabelling only the hand's
    colours changes neither the canonical order nor what the network computes."""
    torch.manual_seed(1)
    net = ActorCritic.for_game("uno", {}, [16], drop_obs=["hand"], colour_symmetry=True)
    eng = UnoEngine(64, 2, seed=3)
    obs, mask = eng.reset()
    from envs.uno.observation import FIELDS

    shuffled = obs.copy()
    hand = FIELDS["hand"].slice
    shuffled[:, hand] = obs[:, hand][:, observation_sources(PERMUTATIONS[9])[hand] - hand.start]
    assert not np.array_equal(shuffled, obs)
    with torch.no_grad():
        a = net(torch.as_tensor(obs), torch.as_tensor(mask.astype(bool)))
        b = net(torch.as_tensor(shuffled), torch.as_tensor(mask.astype(bool)))
    torch.testing.assert_close(a[1], b[1])
    torch.testing.assert_close(a[0], b[0])
