"""The belief model (agents/belief.py): learned from where the cards really were, read from
the view only, and the worlds the search deals by it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.belief import (
    BeliefNet,
    holder_sizes,
    load_belief,
    save_belief,
    train_belief,
    true_holdings,
)
from agents.learned import save_checkpoint
from agents.ppo import PPOTrainer
from agents.registry import files_read, make_policy
from envs.uno import UnoEngine, UnoRules
from envs.uno.observation import decode
from envs.uno.worlds import DECK_COUNTS, sample_worlds
from tests.test_ppo import tiny
from tests.test_search import played_games, reshuffled_hidden


def test_true_holdings_are_the_unseen_cards_by_holder():
    eng = played_games(4, UnoRules(), steps=20, seed=5)
    obs, _ = eng.observe()
    held = true_holdings(eng)
    view = decode(obs)
    np.testing.assert_array_equal(held.sum(axis=1), DECK_COUNTS - view["hand"] - view["discard_counts"])
    np.testing.assert_array_equal(held.sum(axis=2), holder_sizes(obs))
    ar = np.arange(eng.num_games)
    nxt = (eng.current + eng.direction) % 4  # row 1: the next player in the direction of play
    np.testing.assert_array_equal(held[:, 1], eng.hands[ar, nxt])


@pytest.mark.parametrize("players", [2, 4])
def test_worlds_dealt_by_a_sure_belief_are_the_true_game(players):
    eng = played_games(players, UnoRules(), steps=12, seed=players)
    obs, _ = eng.observe()
    # a hand shown by a challenge is pinned as the worlds read it (envs.uno.worlds.pinned_reveal), not dealt
    live = ((eng.phase < eng.over_phase) & (decode(obs)["revealed_seat"] < 0)).nonzero()[0]
    assert live.size > 40
    held = true_holdings(eng)[live].astype(np.float64)
    shares = held / np.maximum(held.sum(axis=1, keepdims=True), 1)
    W = 3
    worlds, _ = sample_worlds(obs[live], UnoRules(), W, np.random.default_rng(0), beliefs=shares)
    d = eng.direction[live]
    for k in range(1, players):
        true = eng.hands[live, (eng.current[live] + d * k) % players]
        dealt = worlds.hands[np.arange(live.size * W), np.repeat((d * k) % players, W)]
        np.testing.assert_array_equal(dealt, np.repeat(true, W, axis=0))


def test_a_sure_belief_deals_a_hand_shown_by_a_challenge_as_it_is():
    from envs.uno.worlds import pinned_reveal

    rules = UnoRules()
    eng = played_games(3, rules, steps=40, seed=11, games=1024)
    obs, _ = eng.observe()
    view = decode(obs)
    slot = view["revealed_seat"]
    unseen = DECK_COUNTS - view["hand"] - view["discard_counts"]
    d, me = eng.direction, eng.current
    shown = np.maximum(slot, 0)
    true = eng.hands[np.arange(1024), (me + d * shown) % 3]
    pinned = pinned_reveal(view, unseen, true.sum(axis=1))
    # games with a shown hand whose pinned cards the player still holds (else the worlds' guess is wrong anyway)
    live = ((eng.phase < eng.over_phase) & (slot >= 0) & (pinned <= true).all(axis=1)).nonzero()[0]
    assert live.size >= 5
    held = true_holdings(eng)[live].astype(np.float64)
    shares = held / np.maximum(held.sum(axis=1, keepdims=True), 1)
    worlds, _ = sample_worlds(obs[live], rules, 2, np.random.default_rng(0), beliefs=shares)
    for k in range(1, 3):
        dealt = worlds.hands[np.arange(live.size * 2), np.repeat((d[live] * k) % 3, 2)]
        np.testing.assert_array_equal(dealt, np.repeat(eng.hands[live, (me[live] + d[live] * k) % 3], 2, axis=0))


def test_worlds_dealt_by_a_belief_hold_exactly_the_unseen_cards_and_follow_it():
    eng = played_games(3, UnoRules(), steps=15, seed=9)
    live = (eng.phase < eng.over_phase).nonzero()[0]
    obs, _ = eng.observe()
    obs = obs[live]
    # a belief that puts the red cards in the hand of the next player (where it has room)
    shares = np.full((live.size, 3, 54), 1.0)
    red = np.arange(54) < 13
    shares[:, 1, red] = 50.0
    shares /= shares.sum(axis=1, keepdims=True)
    W = 40
    worlds, unseen = sample_worlds(obs, UnoRules(), W, np.random.default_rng(1), beliefs=shares)
    plain, _ = sample_worlds(obs, UnoRules(), W, np.random.default_rng(1))
    w_obs, _ = worlds.observe()
    np.testing.assert_array_equal(w_obs, np.repeat(obs, W, axis=0))  # each world looks the same to the player
    for eng_ in (worlds, plain):
        pile = np.stack([np.bincount(p[:e], minlength=54) for p, e in zip(eng_.draw_pile, eng_.draw_end, strict=True)])
        np.testing.assert_array_equal(eng_.hands[:, 1:].sum(axis=1) + pile, np.repeat(unseen, W, axis=0))
    d = np.repeat(decode(obs)["direction"], W)
    ar = np.arange(live.size * W)
    assert worlds.hands[ar, d % 3][:, red].sum() > 1.5 * plain.hands[ar, d % 3][:, red].sum()
    with pytest.raises(ValueError, match=r"beliefs must be shaped \[\d+, 3, 54\]"):
        sample_worlds(obs, UnoRules(), W, np.random.default_rng(1), beliefs=shares[:, :2])
    with pytest.raises(ValueError, match="beliefs must be finite shares >= 0"):
        sample_worlds(obs, UnoRules(), W, np.random.default_rng(1), beliefs=np.where(shares > 0.5, np.inf, shares))


def test_the_belief_learns_where_the_cards_are(tmp_path):
    torch.manual_seed(0)
    net, measured = train_belief(2, 300_000, games=512, learning_rate=3e-3, progress=False)
    assert measured["cross_entropy"] < measured["proportional"] - 0.003  # better than an even deal
    path = save_belief(tmp_path / "belief.pt", net, measured)
    again = load_belief(path, 2)
    eng = played_games(2, UnoRules(), steps=6, seed=1)
    obs, _ = eng.observe()
    shares = again.shares(obs)
    np.testing.assert_allclose(shares.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(shares, net.shares(obs))
    assert (shares[holder_sizes(obs) == 0] < 1e-6).all()  # an empty pile holds nothing


def test_bad_belief_files_are_refused(tmp_path):
    with pytest.raises(ValueError, match="belief model .* not found"):
        load_belief(tmp_path / "none.pt")
    agent = save_checkpoint(tmp_path / "agent.pt", PPOTrainer(tiny()).agent_payload())
    with pytest.raises(ValueError, match="is not a belief model"):
        load_belief(agent)
    path = save_belief(tmp_path / "b3.pt", BeliefNet(3, [8]), {})
    with pytest.raises(ValueError, match="a belief for 3 players, not 4"):
        load_belief(path, 4)
    with pytest.raises(ValueError, match="is a belief model .*, not an agent's network"):
        make_policy("uno", {"name": "agent", "checkpoint": str(path)}, seed=0)
    with pytest.raises(ValueError, match="belief must be"):
        make_policy("uno", {"name": "search", "belief": 3}, seed=0)
    with pytest.raises(ValueError, match="is not a belief model"):
        make_policy("uno", {"name": "search", "belief": str(agent)}, seed=0)


def test_a_shipped_belief_missing_at_the_table_size_is_refused_before_any_game():
    from tournament.config import TournamentConfig

    spec = {"name": "search", "belief": "shipped", "label": "s"}
    table = {"game": "uno", "rules": {}, "policies": [spec, "heuristic"], "output": "/tmp/unused"}
    TournamentConfig(players=4, lineups=[["s", "heuristic", "heuristic", "heuristic"]], **table).check()
    with pytest.raises(ValueError, match=r"at a table of 3 players reads .*uno_3p_belief\.pt, which does not exist"):
        TournamentConfig(players=3, lineups=[["s", "heuristic", "heuristic"]], **table).check()


@pytest.mark.parametrize("players", [2, 4])
def test_a_search_with_a_belief_decides_the_same_whatever_the_unseen_cards(tmp_path, players):
    path = str(save_belief(tmp_path / "belief.pt", BeliefNet(players, [16]), {}))
    spec = {"name": "search", "worlds": 4, "depth": 0, "belief": path}
    assert path in files_read("uno", spec, players)
    rules = UnoRules()
    eng = played_games(players, rules, steps=9, seed=players)
    positions = [eng.position(i) for i in range(eng.num_games) if eng.phase[i] < eng.over_phase]
    twins = [reshuffled_hidden(p, np.random.default_rng(7)) for p in positions]
    a = UnoEngine.from_positions(positions, rules, auto_reset=False)
    b = UnoEngine.from_positions(twins, rules, auto_reset=False)
    assert any(p["hands"] != q["hands"] for p, q in zip(positions, twins, strict=True))
    (obs_a, mask_a), (obs_b, mask_b) = a.observe(), b.observe()
    search_a, search_b = (make_policy("uno", spec, seed=3, rules={}) for _ in range(2))
    np.testing.assert_array_equal(search_a.action_values(obs_a, mask_a), search_b.action_values(obs_b, mask_b))
    np.testing.assert_array_equal(search_a(obs_a, mask_a), search_b(obs_b, mask_b))


def test_the_public_history_counts_what_each_player_did_this_hand():
    from agents.belief import PublicHistory
    from envs.uno import actions

    eng = UnoEngine(256, 3, UnoRules(), seed=4, auto_reset=False)
    obs, mask = eng.reset()
    policy = make_policy("uno", "heuristic", seed=0)
    past = PublicHistory(256, 3)
    draws = np.zeros((256, 3))
    for _ in range(12):
        seat, colour, chosen = eng.current_player.copy(), eng.colour.copy(), policy(obs, mask)
        past.record(seat, colour, chosen)
        draws[np.arange(256), seat] += chosen == actions.DRAW
        last = chosen
        obs, mask, _, _ = eng.step(chosen)
    played = past.values[:, :, :5].sum(axis=(1, 2))
    fresh = eng.draw_top < 60  # no reshuffle yet: every card on the discard pile but the first was played
    np.testing.assert_array_equal(played[fresh], eng.discard_len[fresh] - 1)
    np.testing.assert_array_equal(past.values[:, :, 5], draws)
    np.testing.assert_array_equal(past.values[np.arange(256), seat, 7 + last], 1.0)  # the last action, one-hot
    assert (past.values[:, :, 7 : 7 + actions.NUM_ACTIONS].sum(axis=2) <= 1).all()
    seen = past.seen_by(eng).reshape(256, 3, past.size)
    np.testing.assert_array_equal(seen[:, 0], past.values[np.arange(256), eng.current] / 8.0)  # itself first
    past.clear(np.arange(10))
    assert not past.values[:10].any()


def test_a_belief_that_reads_the_history_is_a_measurement_only(tmp_path):
    net, measured = train_belief(2, 20_000, games=256, progress=False, history=True)
    assert net.extra_inputs > 0 and measured["proportional"] > 0
    with pytest.raises(ValueError, match="no policy can give it its inputs"):
        save_belief(tmp_path / "history.pt", net, measured)


def test_the_belief_command_refuses_bad_arguments_before_training(tmp_path, capsys):
    from agents.belief import main

    for argv, message in [
        (["--players", "11"], "classic UNO is for 2 to 10 players, got 11"),
        (["--policy", "heuristik"], "unknown uno policy 'heuristik'"),
        (["--out", str(tmp_path)], "is a folder; give a file path"),
        (["--decisions", "0"], "argument --decisions: must be an integer of at least 1"),
    ]:
        with pytest.raises(SystemExit):
            main(argv)
        assert message in capsys.readouterr().err, argv
    assert list(tmp_path.iterdir()) == []
