"""The batched Gymnasium vector env (``envs.vector``), the engine's ``step_games`` it rests on,
the registered Gymnasium ids and the Stable-Baselines3 adapter."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest

import envs
from envs import uno_tricks_v0, uno_v0
from envs.core import IllegalActionError
from envs.uno import UnoEngine
from envs.uno_tricks import TricksEngine

GAMES = [(uno_v0, UnoEngine, 2), (uno_v0, UnoEngine, 3), (uno_tricks_v0, TricksEngine, 4)]


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action per row, batched (Gumbel-max over the mask)."""
    return np.argmax(np.where(mask, rng.gumbel(size=mask.shape), -np.inf), axis=1)


@pytest.mark.parametrize("engine_type, players", [(UnoEngine, 2), (UnoEngine, 4), (TricksEngine, 4)])
def test_stepping_games_in_two_groups_is_stepping_them_together(engine_type, players):
    together, split = engine_type(48, players, None, seed=5), engine_type(48, players, None, seed=5)
    mask, _ = together.reset()[1], split.reset()
    rng = np.random.default_rng(0)
    for _ in range(400):  # hundreds of games end and restart on the way
        actions = _random_actions(mask, rng)
        obs, mask, rewards, done = together.step(actions)
        order = rng.permutation(48)
        for games in (order[:17], order[17:]):
            o, m, r, d = split.step_games(games, actions[games])
            assert (o == obs[games]).all() and (m == mask[games]).all()
            assert (r == rewards[games]).all() and (d == done[games]).all()
    a, b = together.state_arrays(), split.state_arrays()
    assert all((a[k] == b[k]).all() for k in a)
    assert (split.legal_action_mask == together.legal_action_mask).all()


def test_step_games_refuses_an_illegal_action_by_its_index_in_the_batch_and_changes_nothing():
    eng = UnoEngine(8, 2, None, seed=1)
    eng.reset()
    before = eng.state_arrays()
    illegal = int(np.flatnonzero(~eng.legal_action_mask[6])[0])
    actions = eng.legal_action_mask[[2, 6]].argmax(1)
    actions[1] = illegal
    with pytest.raises(IllegalActionError, match=r"^game 6: "):
        eng.step_games([2, 6], actions)
    after = eng.state_arrays()
    assert all((before[k] == after[k]).all() for k in before)
    with pytest.raises(ValueError, match="distinct game indices in 0..7"):
        eng.step_games([2, 2], [0, 0])


@pytest.mark.parametrize("module, engine_type, players", GAMES)
def test_every_game_waits_at_its_learners_turn_with_the_learners_view(module, engine_type, players):
    kwargs = {} if module is uno_tricks_v0 else {"num_players": players}
    venv = module.vector_env(num_envs=32, opponent="random", seat=None, **kwargs)
    obs, _ = venv.reset(seed=3)
    rng = np.random.default_rng(1)
    ended, seats = 0, set()
    for _ in range(300):
        eng = venv.engine
        assert (eng.current == venv.seat).all()
        view, legal = eng.observe(seats=venv.seat)
        assert (obs["observation"] == view).all() and (obs["action_mask"] == legal).all()
        assert venv.action_masks().any(axis=1).all()  # never all False, also right after an episode ended
        seats |= set(venv.seat.tolist())
        obs, reward, terminated, truncated, _ = venv.step(_random_actions(venv.action_masks(), rng))
        assert not truncated.any() and (reward[~terminated] == 0).all()
        ended += int(terminated.sum())
    assert ended > 32 and seats == set(range(players))  # games ended and restarted; every seat was drawn
    assert venv.single_observation_space.contains({k: v[0] for k, v in obs.items()})
    assert venv.observation_space.contains(obs)


def test_the_learners_rewards_are_the_engines():
    """Mirror play: the learner plays random against random, so its mean reward is about 0; a
    learner that always plays its first legal action loses to heuristic."""
    rng = np.random.default_rng(2)
    venv = uno_v0.vector_env(num_envs=256, opponent="random")
    venv.reset(seed=0)
    rewards = []
    while len(rewards) < 3000:
        _, reward, terminated, _, _ = venv.step(_random_actions(venv.action_masks(), rng))
        rewards += reward[terminated].tolist()
    assert set(rewards) == {-1.0, 1.0}
    assert abs(np.mean(rewards)) < 4 / np.sqrt(len(rewards))  # 4 standard errors
    against = uno_v0.vector_env(num_envs=256, opponent="heuristic")
    against.reset(seed=0)
    rewards = []
    while len(rewards) < 3000:
        _, reward, terminated, _, _ = against.step(against.action_masks().argmax(1))
        rewards += reward[terminated].tolist()
    assert np.mean(rewards) < -0.1  # heuristic beats first-legal play (about 0.65 of games)


def test_seeded_resets_repeat_and_a_copy_by_pickle_continues_the_same():
    a, b = uno_tricks_v0.vector_env(16, seat=None), uno_tricks_v0.vector_env(16, seat=None)
    oa, _ = a.reset(seed=7)
    ob, _ = b.reset(seed=7)
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = _random_actions(a.action_masks(), rng)
        ra, rb = a.step(actions), b.step(actions)
        assert all(np.array_equal(x, y) for x, y in zip(ra[1:4], rb[1:4], strict=True))
        assert (ra[0]["observation"] == rb[0]["observation"]).all()
    c = pickle.loads(pickle.dumps(a))
    actions = _random_actions(a.action_masks(), rng)
    assert (a.step(actions)[0]["observation"] == c.step(actions)[0]["observation"]).all()


def test_an_illegal_action_raises_and_changes_nothing_or_loses_that_game():
    venv = uno_v0.vector_env(8, opponent="random")
    obs, _ = venv.reset(seed=1)
    before = venv.engine.state_arrays()
    actions = venv.action_masks().argmax(1)
    actions[3] = int(np.flatnonzero(~venv.action_masks()[3])[0])
    with pytest.raises(IllegalActionError, match="game 3"):
        venv.step(actions)
    after = venv.engine.state_arrays()
    assert all((before[k] == after[k]).all() for k in before)
    with pytest.raises(IllegalActionError, match="integer action ids"):
        venv.step(actions.astype(float))
    with pytest.raises(ValueError, match=r"shape \(8,\)"):
        venv.step(actions[:4])
    lose = uno_v0.vector_env(8, opponent="random", illegal_action="lose")
    lose.reset(seed=1)
    obs, reward, terminated, _, infos = lose.step(actions)
    assert reward[3] == -1.0 and terminated[3] and infos["illegal_action"].tolist() == [i == 3 for i in range(8)]
    assert (lose.engine.current == lose.seat).all() and lose.action_masks().any(axis=1).all()
    with pytest.raises(ValueError, match="seat must lie in 0..1"):
        uno_v0.vector_env(4, seat=2)
    with pytest.raises(ValueError, match="one per seat after the learner's"):
        uno_tricks_v0.vector_env(4, opponent=["random", "random"])


@pytest.mark.parametrize("answer", ["short", "floats", "crash"])
def test_an_opponent_that_fails_leaves_the_env_needing_a_reset(answer):
    """The learner's move is applied before the opponents': whatever stops them (not only an
    illegal action) must leave no half-stepped env that takes the learner's next action for an
    opponent's seat, and an opponent's floats are refused as the engine refuses the learner's."""

    class Opponent:
        fail = False

        def __call__(self, obs, mask):
            if not self.fail:
                return mask.argmax(1)
            if answer == "crash":
                raise KeyError("opponent crashed")
            return mask.argmax(1)[:-1] if answer == "short" else mask.argmax(1) + 0.7

    opponent = Opponent()
    venv = uno_v0.vector_env(4, opponent=opponent, num_players=2)
    venv.reset(seed=0)
    opponent.fail = True
    error = KeyError if answer == "crash" else ValueError
    with pytest.raises(error, match="opponent crashed" if answer == "crash" else "one integer action id per game"):
        venv.step(venv.action_masks().argmax(1))
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before step\(\)"):
        venv.step(np.zeros(4, np.int64))
    opponent.fail = False
    venv.reset(seed=0)
    assert (venv.engine.current == venv.seat).all()


def test_gymnasium_ids_make_the_single_seat_and_the_vector_env():
    from gymnasium.utils.env_checker import check_env

    gym.register_envs(envs)
    env = gym.make("unolab/Uno-v0", num_players=3, opponent="random")
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert obs["observation"].shape == (449,)
    venv = gym.make_vec("unolab/UnoTricks-v0", num_envs=8)
    assert isinstance(venv, envs.vector.SeatVectorEnv) and venv.metadata["autoreset_mode"].name == "SAME_STEP"
    assert venv.reset(seed=0)[0]["action_mask"].shape == (8, 89)
    assert pickle.loads(pickle.dumps(gym.make("unolab/UnoTricks-v0").unwrapped)).reset(seed=1)[0] is not None


def test_maskable_ppo_trains_on_the_vector_env_through_the_sb3_adapter():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from envs.sb3_compat import sb3_vec_env

    vec = sb3_vec_env(uno_v0.vector_env(64, opponent="random"))
    vec.reset()
    assert is_masking_supported(vec) and get_action_masks(vec).shape == (64, 79)
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", vec, n_steps=16, batch_size=256, seed=0, device="cpu")
    model.learn(2048)
    obs = vec.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(vec))
    assert vec.venv.action_masks()[np.arange(64), actions].all()
    obs, reward, done, infos = vec.step(actions)
    assert reward.shape == done.shape == (64,) and len(infos) == 64


def test_the_sb3_adapter_passes_seeds_and_options_once_and_sets_attributes_on_all_games():
    pytest.importorskip("stable_baselines3")
    from envs.sb3_compat import sb3_vec_env

    vec = sb3_vec_env(uno_v0.vector_env(4, opponent="random"))
    vec.seed(3)
    first = vec.reset()
    vec.seed(3)
    assert all(np.array_equal(first[k], v) for k, v in vec.reset().items())
    vec.step(vec.venv.action_masks().argmax(1))
    kept = vec.venv.engine.state_arrays()
    vec.set_options({"reset_mask": np.array([False, True, False, False])})
    vec.reset()  # only game 1 is dealt again
    again = vec.venv.engine.state_arrays()
    assert all(np.array_equal(kept[k][[0, 2, 3]], again[k][[0, 2, 3]]) for k in kept)
    assert vec._options == [{}] * 4  # used once
    vec.set_options([{"reset_mask": np.ones(4, bool)} for _ in range(4)])  # equal, not one object
    vec.reset()
    vec.set_options([{}, {"reset_mask": np.ones(4, bool)}, {}, {}])
    with pytest.raises(ValueError, match="take one set of options"):
        vec.reset()
    vec.set_attr("render_mode", None)
    with pytest.raises(ValueError, match="share one engine; set it for all"):
        vec.set_attr("render_mode", None, indices=[1])


def test_pettingzoo_ids_make_the_aec_envs():
    pettingzoo = pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    env = pettingzoo.make("aec", "unolab/uno-v0", num_players=4, stacking=True)
    assert env.num_agents == 4 and env.rules.stacking
    api_test(env, num_cycles=50)
    tricks = pettingzoo.make("aec", "unolab/uno_tricks-v0")
    tricks.reset(seed=0)
    assert tricks.possible_agents == [f"player_{i}" for i in range(4)]


def test_a_game_the_opponents_deal_and_finish_without_the_learner_is_no_episode():
    """Seed 0, random opponents: at step 266 game 219 ends twice in one step (the learner's move
    ends one game, the opponent wins the next before the learner moves); one reward of -1 only."""
    venv = uno_v0.vector_env(256, opponent="random")
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(300):
        _, reward, terminated, _, _ = venv.step(_random_actions(venv.action_masks(), rng))
        assert np.abs(reward).max() <= 1 and (reward[~terminated] == 0).all()


def test_seeds_actions_and_indices_of_every_integer_kind_and_no_other():
    venv = uno_v0.vector_env(4, opponent="random", illegal_action="lose")
    venv.reset(seed=np.int64(5))
    actions = venv.action_masks().argmax(1)
    actions[1] = uno_v0.game.NUM_ACTIONS  # out of range: with "lose" a lost game like any illegal action
    _, reward, terminated, _, infos = venv.step(actions)
    assert reward[1] == -1 and terminated[1] and infos["illegal_action"][1]
    huge = venv.action_masks().argmax(1).astype(np.uint64)
    huge[2] = 2**64 - 1  # not wrapped to -1: named as given, and a lost game under "lose"
    _, reward, terminated, _, infos = venv.step(huge)
    assert reward[2] == -1 and terminated[2] and infos["illegal_action"][2]
    strict = uno_v0.vector_env(2, opponent="random")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match=f"game 1: action {2**64 - 1} is out of range 0..78; legal here: '"):
        strict.step(np.array([0, 2**64 - 1], dtype=np.uint64))
    eng = UnoEngine(4, 2, None, seed=0)
    eng.reset()
    for bad in ([True, False], [2.7], [0, 0]):
        with pytest.raises(ValueError, match="distinct game indices"):
            eng.restart_games(bad)
        with pytest.raises(ValueError, match="distinct game indices"):
            eng.step_games(bad, [0] * len(bad))


def test_an_opponent_that_plays_an_illegal_action_leaves_the_env_to_be_reset():
    colour_b = uno_v0.game.action_id("colour B")  # only legal when a starting Wild is turned
    venv = uno_v0.vector_env(8, opponent=lambda obs, mask: np.full(len(mask), colour_b))
    with pytest.raises(IllegalActionError, match="an opponent policy chose an illegal action"):
        venv.reset(seed=1)
        for _ in range(5):
            venv.step(venv.action_masks().argmax(1))
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(8, np.int64))


def test_vector_env_refuses_seeds_that_are_no_integers():
    venv = uno_v0.vector_env(num_envs=2)
    for seed in ([1.5, 2.5], [True, False], 1.5):
        with pytest.raises(ValueError, match="seed must be an integer from 0 to 2\\*\\*64 - 1"):
            venv.reset(seed=seed)


def test_the_random_loop_plays_legal_actions():
    """Gymnasium's ``envs.step(envs.action_space.sample())`` draws legal actions in every game."""
    venv = gym.make_vec("unolab/Uno-v0", num_envs=8)
    venv.reset(seed=0)
    venv.action_space.seed(0)
    for _ in range(300):
        masks = venv.unwrapped.action_masks() if hasattr(venv, "unwrapped") else venv.action_masks()
        actions = venv.action_space.sample()
        assert masks[np.arange(8), actions].all()
        venv.step(actions)
    mask = np.zeros(79, np.int8)
    mask[5] = 1
    assert (venv.action_space.sample(mask=(mask,) * 8) == 5).all()  # an explicit mask as before


def test_the_vector_env_says_it_does_not_render():
    with pytest.raises(ValueError, match="the vector env does not render"):
        gym.make_vec("unolab/Uno-v0", num_envs=2, render_mode="ansi")


def test_opponents_and_the_search_rollout_play_the_tables_rules():
    """A policy that reads the rules (heuristic under seven_zero values a 7 by the hand it gets)
    is built with the table's, in the envs as in tournaments, and so is the search's rollout."""
    from agents.registry import make_policy

    venv = uno_v0.vector_env(4, opponent="heuristic", num_players=3, seven_zero=True)
    assert [p.seven_zero for p in venv.policies] == [True, True]
    single = uno_v0.gym_env(opponent=["heuristic", "heuristic"], num_players=3, seven_zero=True)
    assert all(p.seven_zero for p in single.unwrapped.opponents.values())
    assert make_policy("uno", {"name": "search"}, rules={"seven_zero": True}).rollout.seven_zero


def test_an_opponent_checkpoint_of_another_table_size_is_noted():
    """As evaluate.py notes it: a 2-player agent at a 4-player table plays, and the user is told."""
    import warnings

    two = {"name": "agent", "checkpoint": "models/uno_2p_ppo.pt"}
    with pytest.warns(
        UserWarning, match=r"opponent uno_2p_ppo: models/uno_2p_ppo.pt was fitted under 2 players \(this"
    ):
        uno_v0.vector_env(2, opponent=two, num_players=4)
    with pytest.warns(UserWarning, match="fitted under 2 players"):
        uno_v0.gym_env(opponent=["heuristic", two, "heuristic"], num_players=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        uno_v0.vector_env(2, opponent=two, num_players=2)  # its own table: nothing to say
        uno_v0.vector_env(2, opponent="heuristic", num_players=4)


def test_max_episode_steps_truncates_games_that_never_end_and_deals_them_again():
    """Drawing and keeping under draw_anytime never ends a game against a drawing opponent:
    the limit cuts it at the learner's 5th decision, reports truncated (not terminated) with
    no reward and that decision's view in final_obs, and the next game starts at once."""
    rules = {"draw_anytime": True, "must_play_drawn": False, "hand_size": 7}
    names = uno_v0.game.ACTION_NAMES
    draw, keep = names.index("draw"), names.index("pass")

    def drawer(obs, mask):  # the opponent only draws and keeps, as the learner does
        return np.where(mask[:, draw], draw, np.where(mask[:, keep], keep, mask.argmax(axis=1)))

    env = uno_v0.vector_env(4, drawer, num_players=2, rules=rules, max_episode_steps=5)
    obs, _ = env.reset(seed=1)
    for decision in range(1, 11):
        before = obs["observation"].copy()
        obs, reward, terminated, truncated, infos = env.step(drawer(None, env.action_masks()))
        assert not terminated.any() and (reward == 0).all()
        if decision % 5:
            assert not truncated.any() and "final_obs" not in infos
        else:  # every game cut at its 5th decision, its view then kept, a fresh deal shown
            assert truncated.all() and infos["_final_obs"].all() and infos["_final_info"].all()
            final = infos["final_obs"]  # Gymnasium's same-step format: one observation dict per game
            assert final.dtype == object and final.shape == (4,) and infos["final_info"] == {}
            assert all(env.single_observation_space.contains(f) for f in final)
            assert not np.array_equal(np.stack([f["observation"] for f in final]), before)
            assert all(f["action_mask"].any() for f in final)
            from envs.uno.observation import FIELDS

            assert (obs["observation"][:, FIELDS["discard_pile_size"].slice] == 1).all()  # a new deal
    with pytest.raises(ValueError, match="max_episode_steps must be a positive integer or None"):
        uno_v0.vector_env(2, max_episode_steps=0)


def test_sb3_gets_the_cut_games_terminal_observation():
    pytest.importorskip("stable_baselines3")
    from envs.sb3_compat import SB3VecEnv

    rules = {"draw_anytime": True, "must_play_drawn": False}
    names = uno_v0.game.ACTION_NAMES
    draw, keep = names.index("draw"), names.index("pass")

    def drawer(obs, mask):
        return np.where(mask[:, draw], draw, np.where(mask[:, keep], keep, mask.argmax(axis=1)))

    venv = SB3VecEnv(uno_v0.vector_env(2, drawer, num_players=2, rules=rules, max_episode_steps=2))
    venv.reset()
    for _ in range(2):
        venv.step_async(drawer(None, venv.action_masks()))
        _, _, done, infos = venv.step_wait()
    assert done.all() and all(i["TimeLimit.truncated"] for i in infos)
    assert all(i["terminal_observation"]["observation"].shape == (uno_v0.game.OBS_SIZE,) for i in infos)


def test_a_reset_mask_deals_only_those_games_again():
    env = uno_v0.vector_env(4, "random", num_players=3)
    env.reset(seed=2)
    for _ in range(3):
        env.step(env.action_space.sample())
    before = [env.engine.position(i) for i in range(4)]
    env.reset(options={"reset_mask": np.array([True, False, True, False])})
    after = [env.engine.position(i) for i in range(4)]
    assert after[1] == before[1] and after[3] == before[3]
    assert after[0] != before[0] and after[2] != before[2]
    with pytest.raises(ValueError, match="unknown 'seeds'; allowed: 'reset_mask'"):
        env.reset(options={"seeds": 1})
    with pytest.raises(ValueError, match="reset_mask must be a bool array of shape"):
        env.reset(options={"reset_mask": [1, 0, 1, 0]})
