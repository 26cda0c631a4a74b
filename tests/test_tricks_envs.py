"""PettingZoo AEC and Gymnasium wrappers of the trick game; its game records."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from agents.policy import RandomPolicy
from envs import uno_tricks_v0
from envs.records import GameRecord, Recorder, main, verify
from envs.uno_tricks import TricksEngine, TricksRules


@pytest.mark.parametrize("options", [{}, {"exchange_returns": "two", "reward": "points"}], ids=["default", "literal"])
def test_pettingzoo_api_and_seed(options):
    api_test(uno_tricks_v0.env(**options), num_cycles=300)
    seed_test(lambda: uno_tricks_v0.env(**options), num_cycles=300)


def test_partners_share_the_final_reward_in_the_aec_loop():
    env = uno_tricks_v0.env()
    for seed in range(4):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            totals[agent] += reward
            env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert totals["player_0"] == totals["player_2"] == -totals["player_1"] == -totals["player_3"]


def test_ansi_render_shows_table_teams_and_score():
    env = uno_tricks_v0.env(render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "team A (P0+P2) 0 points" in text and "team B (P1+P3)" in text and "trick 1" in text


def test_env_pickles_and_refuses_bad_options():
    env = uno_tricks_v0.env(exchange_returns="two")
    assert pickle.loads(pickle.dumps(env)).unwrapped.rules.exchange_returns == "two"
    with pytest.raises(ValueError, match="unknown argument.* players; the env's own: num_players.*TricksRules"):
        uno_tricks_v0.env(players=4)
    # num_players is taken as by uno_v0, so code written for both games runs; four it must be
    assert uno_tricks_v0.env(num_players=4).unwrapped.num_players == 4
    # uno_v0's argument order: code written for both games may pass them by position
    assert uno_tricks_v0.env(4, None, "ansi").unwrapped.render_mode == "ansi"
    assert uno_tricks_v0.gym_env("random", 4, 1).seat == 1
    vec = uno_tricks_v0.vector_env(2, "random", 4, 3)
    vec.reset(seed=0)
    assert (vec.seat == 3).all()
    for make in (uno_tricks_v0.env, lambda **kw: uno_tricks_v0.vector_env(num_envs=2, **kw)):
        with pytest.raises(ValueError, match="the trick game is for exactly 4 players .*, got 3"):
            make(num_players=3)


def test_gymnasium_env_with_a_partner_policy_passes_check_env():
    partner, opponents = RandomPolicy(1), RandomPolicy(2)
    env = uno_tricks_v0.gym_env(opponent=[opponents, partner, opponents], seat=0)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=3)
    results = []
    for _ in range(10):
        done, total = False, 0.0
        while not done:
            obs, reward, done, _, _ = env.step(env.action_space.sample())
            total += reward
        results.append(total)
        obs, _ = env.reset()
    assert set(results) <= {-1.0, 0.0, 1.0}


def test_trick_games_are_recorded_and_replayed(tmp_path, capsys):
    eng = TricksEngine(num_games=8, rules=TricksRules(exchange_returns="two"), seed=5)
    recorder, policy = Recorder(eng), RandomPolicy(0)
    obs, mask = recorder.reset()
    while len(recorder.completed) < 6:
        obs, mask, _, _ = recorder.step(policy(obs, mask))
    for n, record in enumerate(recorder.completed):
        path = tmp_path / f"t{n}.jsonl"
        record.save(path)
        loaded = GameRecord.load(path)
        assert loaded.game == "tricks" and verify(loaded).rewards == record.result["rewards"]
    assert main(["show", str(tmp_path / "t0.jsonl")]) == 0
    text = capsys.readouterr().out
    assert "Trick game" in text and "lay " in text and "result: " in text
    assert main(["record", "--game", "tricks", "--players", "4", "--out", str(tmp_path / "r.jsonl")]) == 0
