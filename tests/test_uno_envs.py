"""PettingZoo AEC and Gymnasium wrappers of the classic UNO engine."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from agents.policy import RandomPolicy
from envs import uno_v0
from envs.uno import IllegalActionError, action_id

OPTIONS = [
    {},
    {"stacking": True, "uno_penalty": 4},
    {"draw_anytime": True, "must_play_drawn": False, "uno_catch_prob": 0.5},
    {"match": True, "target_score": 100, "scoring": "reverse"},
    {"reward": "points", "uno_penalty": 0},
]


@pytest.mark.parametrize("players", [2, 3, 4, 10])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
def test_pettingzoo_api_and_seed(players, options):
    api_test(uno_v0.env(num_players=players, **options), num_cycles=300)
    seed_test(lambda: uno_v0.env(num_players=players, **options), num_cycles=300)


def play_random_game(env, seed):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    return totals


def test_every_agent_gets_its_final_reward():
    env = uno_v0.env(num_players=4)
    for seed in range(5):
        totals = play_random_game(env, seed)
        values = sorted(totals.values())
        assert values[-1] == 1.0 and np.allclose(values[:3], -1 / 3)


def test_ansi_render_shows_the_table():
    env = uno_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "UNO  3 players" in text and "top card" in text and "P2 [ 7]" in text


def test_match_render_shows_the_points_still_missing_to_the_target():
    env = uno_v0.env(num_players=2, render_mode="ansi", match=True, target_score=300)
    env.reset(seed=1)
    assert "score    0 (needs 300)" in env.render()


def test_illegal_action_raises_and_changes_nothing():
    env = uno_v0.env(num_players=2)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = env.unwrapped.position()
    with pytest.raises(IllegalActionError, match="legal here"):
        env.step(illegal)
    assert env.unwrapped.position() == before


@pytest.mark.parametrize("action", [79, -1, 2**70, 3.0, "draw", True, None])
def test_a_bad_action_value_is_refused_by_name_and_changes_nothing(action):
    env = uno_v0.env(num_players=2)
    env.reset(seed=3)
    before = env.unwrapped.position()
    with pytest.raises(IllegalActionError, match="out of range|integer id"):
        env.step(action)
    assert env.unwrapped.position() == before


def test_the_env_enforces_the_call_order_without_pettingzoo_wrappers():
    env = uno_v0.env(num_players=2)
    assert env.unwrapped is env
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), env.render, env.agent_iter):
        with pytest.raises(RuntimeError, match=r"reset\(\) must be called before"):
            call()
    env.reset(seed=0)
    for _agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(np.flatnonzero(obs["action_mask"])[0]))
    assert not env.agents
    with pytest.warns(UserWarning, match="every agent is done"):
        env.step(None)


def test_options_reach_the_engine_and_bad_ones_are_refused():
    env = uno_v0.env(num_players=2, rules={"stacking": True}, uno_penalty=4)
    assert env.unwrapped.rules.stacking and env.unwrapped.rules.uno_penalty == 4
    with pytest.raises(ValueError, match="unknown argument.* stackin; .*UnoRules options: hand_size"):
        uno_v0.env(num_players=2, stackin=True)
    with pytest.raises(ValueError, match="unknown UnoRules option"):
        uno_v0.env(num_players=2, rules={"stackin": True})
    with pytest.raises(ValueError, match="2 to 10 players"):
        uno_v0.env(num_players=11)


@pytest.mark.parametrize("players", [2, 4])
def test_gymnasium_env_passes_check_env(players):
    env = uno_v0.gym_env(opponent=RandomPolicy(0), num_players=players, seat=1)
    check_env(env, skip_render_check=True)


def test_gymnasium_env_plays_whole_games_against_given_policies():
    calls = []

    def always_first_legal(obs, mask):
        calls.append(obs.shape)
        return mask.argmax(axis=1)

    env = uno_v0.gym_env(opponent=[RandomPolicy(1), always_first_legal], num_players=3, seat=0, render_mode="ansi")
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    returns = []
    for _ in range(20):
        done, total = False, 0.0
        while not done:
            assert obs["action_mask"].any() and env.engine.current_player[0] == 0
            assert (env.action_masks() == obs["action_mask"].astype(bool)).all()
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, done, truncated, _ = env.step(action)
            total += reward
        returns.append(total)
        obs, _ = env.reset()
    assert set(returns) <= {1.0, -0.5} and len(set(returns)) == 2
    assert calls and all(shape == (1, 449) for shape in calls)
    assert "P0 [" in env.render() and "#" in env.render()  # other hands hidden from the seat


def test_gymnasium_env_seeded_resets_repeat():
    env = uno_v0.gym_env(opponent=RandomPolicy(), num_players=2, seat=1)
    a, _ = env.reset(seed=9)
    first = [env.step(int(np.flatnonzero(a["action_mask"])[0]))[0]["observation"]]
    b, _ = env.reset(seed=9)
    np.testing.assert_array_equal(a["observation"], b["observation"])
    again = env.step(int(np.flatnonzero(b["action_mask"])[0]))[0]["observation"]
    np.testing.assert_array_equal(first[0], again)


def test_gym_env_refuses_bad_arguments():
    with pytest.raises(ValueError, match="seat must be an integer in 0..1, got 2"):
        uno_v0.gym_env(opponent=RandomPolicy(), num_players=2, seat=2)
    with pytest.raises(ValueError, match="seat must be an integer in 0..1, got 0.5"):
        uno_v0.gym_env(opponent=RandomPolicy(), num_players=2, seat=0.5)
    with pytest.raises(ValueError, match=r"render_mode 'rgb_array' is not one of \['ansi', 'human'\]"):
        uno_v0.gym_env(opponent=RandomPolicy(), render_mode="rgb_array")
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before action_masks\(\)"):
        uno_v0.gym_env(opponent=RandomPolicy()).action_masks()
    with pytest.raises(ValueError, match="one per seat after the learner's"):
        uno_v0.gym_env(opponent=[RandomPolicy()], num_players=3)
    with pytest.raises(ValueError, match="a list of 1 .one per seat after the learner's., got None"):
        uno_v0.gym_env(opponent=None)
    with pytest.raises(ValueError, match="unknown uno policy 'nosuch'"):
        uno_v0.gym_env(opponent="nosuch", num_players=2)
    with pytest.raises(ValueError, match="a batched policy or a policy spec"):
        uno_v0.gym_env(opponent=[RandomPolicy(), 3], num_players=3)


def test_gym_env_opponents_by_policy_spec_play_repeatably():
    def episode(seed):
        env = uno_v0.gym_env(opponent=["heuristic", {"name": "greedy", "bluff": 1.0}], num_players=3)
        obs, _ = env.reset(seed=seed)
        trace, done = [], False
        while not done:
            action = int(np.flatnonzero(obs["action_mask"])[0])
            obs, reward, done, _, _ = env.step(action)
            trace.append((action, reward))
        return trace

    assert episode(5) == episode(5)


def test_action_names_work_through_the_env():
    env = uno_v0.env(num_players=2)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][action_id("challenge")] == 0


def test_gymnasium_illegal_action_loses_or_raises_without_changing_the_game():
    env = uno_v0.gym_env(opponent=RandomPolicy(0), num_players=2)
    obs, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = env.engine.position(0)
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert "legal here" in info["illegal_action"] and env.engine.position(0) == before
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = uno_v0.gym_env(opponent=RandomPolicy(0), num_players=2, illegal_action="raise")
    obs, _ = strict.reset(seed=2)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)


@pytest.mark.parametrize("action", [79, 2**63, 2**64 - 1, -(2**63) - 1])
def test_gymnasium_out_of_range_actions_of_any_size_lose_or_raise_by_name(action):
    env = uno_v0.gym_env(opponent=RandomPolicy(0), num_players=2)
    env.reset(seed=2)
    before = env.engine.position(0)
    _, reward, terminated, _, info = env.step(action)
    assert (reward, terminated) == (-1.0, True) and env.engine.position(0) == before
    assert info["illegal_action"].startswith(f"gym_env: action {action} is out of range 0..78; legal here: ")
    strict = uno_v0.gym_env(opponent=RandomPolicy(0), num_players=2, illegal_action="raise")
    strict.reset(seed=2)
    with pytest.raises(IllegalActionError, match=f"action {action} is out of range"):
        strict.step(action)


def test_action_space_sample_draws_a_legal_action():
    env = uno_v0.gym_env(opponent=RandomPolicy(0), num_players=3)
    obs, _ = env.reset(seed=5)
    for _ in range(50):
        action = env.action_space.sample()
        assert obs["action_mask"][action] == 1
        obs, _, done, _, _ = env.step(action)
        if done:
            obs, _ = env.reset()


def test_the_gymnasium_env_pickles_renders_per_contract_and_never_gives_an_empty_mask():
    import pickle

    from pettingzoo.test import render_test

    from envs import uno_tricks_v0

    for module in (uno_v0, uno_tricks_v0):
        render_test(lambda render_mode=None, m=module: m.env(render_mode=render_mode))  # human mode returns None
        env = pickle.loads(pickle.dumps(module.gym_env("heuristic")))  # AsyncVectorEnv / SubprocVecEnv need this
        obs, _ = env.reset(seed=5)
        done = False
        while not done:
            assert env.action_masks().any()
            obs, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert env.action_masks().all() and obs["action_mask"].all()  # ended: any action (ignored by autoreset)


def test_an_aec_env_copied_mid_game_goes_on_from_the_same_position():
    import copy
    import pickle

    env = uno_v0.env(num_players=3)
    env.reset(seed=3)
    for _ in range(5):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert twin.agent_selection == env.agent_selection
        np.testing.assert_array_equal(twin.last()[0]["observation"], env.last()[0]["observation"])
        before = env.last()[0]["observation"].copy()
        twin.step(int(np.flatnonzero(twin.last()[0]["action_mask"])[0]))
        np.testing.assert_array_equal(env.last()[0]["observation"], before)  # the copy is its own game


@pytest.mark.parametrize("players", [2, 4])
def test_the_last_observation_of_an_episode_is_the_learners_view(players):
    """When another seat's move (or the learner's own) ends the game, the final observation is
    still the learner's: another seat's would show that seat's hand."""
    for episode in range(30):
        env = uno_v0.gym_env("random", num_players=players, seat=1)
        env.reset(seed=episode)
        env.action_space.seed(episode)
        done = False
        while not done:
            obs, _, done, _, _ = env.step(env.action_space.sample())
        mine, _ = env.engine.observe(seats=1)
        np.testing.assert_array_equal(obs["observation"], mine[0])


def test_an_opponent_policys_illegal_action_is_its_fault_and_needs_a_reset():
    calls = {"n": 0}

    def flaky(obs, mask):  # legal, but illegal on its 3rd call
        calls["n"] += 1
        return np.zeros(len(obs), np.int64) if calls["n"] == 3 else mask.argmax(axis=1)

    env = uno_v0.gym_env(flaky)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="the opponent policy of seat 1 chose an illegal action"):
        for _ in range(5):
            env.step(int(np.flatnonzero(env.action_masks())[0]))
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)  # never played as seat 1's move
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_a_list_of_opponents_is_read_from_the_seat_after_the_learners():
    """gym_env and vector_env read it alike: the first policy plays the next seat, and so on."""
    seen = set()

    def named(k):
        def policy(obs, mask):
            seen.add((k, int(env.engine.current[0])))  # which seat this policy was asked to play
            return mask.argmax(axis=1)

        return policy

    env = uno_v0.gym_env([named("a"), named("b"), named("c")], num_players=4, seat=2)
    for episode in range(3):
        env.reset(seed=episode)
        done = False
        while not done:
            _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert seen == {("a", 3), ("b", 0), ("c", 1)}


def test_human_rendering_prints_the_learners_table(capsys):
    env = uno_v0.gym_env("random", render_mode="human")
    env.reset(seed=1)
    assert "P0 to act" in capsys.readouterr().out and env.render() is None


def test_the_aec_env_names_the_agent_in_its_errors():
    env = uno_v0.env()
    env.reset(seed=0)
    legal = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(IllegalActionError, match=r"^player_0 may not"):
        env.step(int(np.flatnonzero(legal == 0)[0]))
    with pytest.raises(ValueError, match="unknown agent 'player_7'; agents: player_0, player_1"):
        env.observe("player_7")


def test_action_spaces_pickle_without_their_env_and_rebind_with_it():
    """A pickled space (as a saved SB3 model holds it) carries no env or opponents; a pickled
    env's space samples legal actions of that env again."""
    import pickle

    env = uno_v0.gym_env(opponent="heuristic", num_players=2)
    env.reset(seed=3)
    assert len(pickle.dumps(env.action_space)) < 2_000
    assert pickle.loads(pickle.dumps(env.action_space)).legal is None
    copy = pickle.loads(pickle.dumps(env))
    assert copy.action_space.legal.__self__ is copy
    for _ in range(40):
        _, _, terminated, _, info = copy.step(copy.action_space.sample())
        assert "illegal_action" not in info
        if terminated:
            copy.reset()
    vec = uno_v0.vector_env(4, "heuristic")
    vec.reset(seed=3)
    assert pickle.loads(pickle.dumps(vec)).action_space.legal.__self__ is not vec
    import copy as copying

    shallow = copying.copy(env)  # shares the space: the original keeps sampling its own legal moves
    assert env.action_space.legal.__self__ is env and shallow.action_space is env.action_space
