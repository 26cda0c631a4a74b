"""The envs' keyword arguments as users write them: numpy numbers, misspelt names, calls
made before ``reset`` and ``reset`` options, each accepted or refused with a message that
names what is allowed."""

from __future__ import annotations

import numpy as np
import pytest

from envs import uno_tricks_v0, uno_v0
from envs.uno.rules import UnoRules


def test_numpy_numbers_are_rule_options_like_python_ones() -> None:
    """A sweep over ``np.arange`` gives numpy numbers: they are the same rules, kept as Python's."""
    given = UnoRules(hand_size=np.int64(5), uno_catch_prob=np.float32(0.5), stacking=np.True_, uno_penalty=np.int32(4))
    assert given == UnoRules(hand_size=5, uno_catch_prob=0.5, stacking=True, uno_penalty=4)
    assert type(given.hand_size) is int and type(given.stacking) is bool and type(given.uno_catch_prob) is float
    env = uno_v0.env(num_players=np.int64(3), hand_size=np.int64(6))
    env.reset(seed=0)
    assert env.rules.hand_size == 6
    with pytest.raises(ValueError, match="UnoRules.stacking must be true or false, got np.int64"):
        UnoRules(stacking=np.int64(1))
    with pytest.raises(ValueError, match="UnoRules.hand_size must be an integer"):
        UnoRules(hand_size=np.float64(7.0))


@pytest.mark.parametrize(
    ("make", "own"),
    [
        (lambda: uno_v0.env(render="ansi"), "the env's own: num_players, rules, render_mode;"),
        (lambda: uno_v0.gym_env("random", seats=1), "the env's own: opponent, num_players, seat,"),
        (lambda: uno_v0.vector_env(illegal_actions="lose"), "the env's own: num_envs, opponent,"),
        (lambda: uno_tricks_v0.vector_env(max_episode_step=9), "illegal_action, render_mode, max_episode_steps;"),
    ],
)
def test_a_misspelt_argument_names_the_envs_own_and_the_rule_options(make, own: str) -> None:
    with pytest.raises(ValueError, match="unknown argument") as err:
        make()
    assert own in str(err.value) and "options: " in str(err.value)


def test_the_aec_env_before_reset_says_to_call_reset() -> None:
    env = uno_v0.env(num_players=3)
    for read in (lambda: env.agent_selection, lambda: env.rewards, env.last):
        with pytest.raises(AttributeError, match=r"cannot be read before reset\(\): call reset\(\) first"):
            read()
    assert not hasattr(env, "terminations")
    env.reset(seed=0)
    assert env.agent_selection in env.possible_agents


def test_reset_options_the_single_seat_env_has_none_the_aec_env_ignores_them() -> None:
    gym = uno_v0.gym_env("random")
    gym.reset(seed=0, options={})
    with pytest.raises(ValueError, match="reset options: unknown 'bogus'; this env takes none"):
        gym.reset(options={"bogus": 1})
    aec = uno_v0.env()
    aec.reset(seed=0, options={"options": 1})  # PettingZoo's api_test passes this and requires it accepted


AEC_OWN = {"num_players", "rules", "render_mode"}


@pytest.mark.parametrize(
    ("make", "own"),
    [
        (uno_v0.env, AEC_OWN),
        (uno_tricks_v0.env, AEC_OWN),
        (lambda **kw: uno_v0.gym_env("random", **kw), {*AEC_OWN, "opponent", "seat", "illegal_action"}),
        (uno_tricks_v0.vector_env, {*AEC_OWN, "num_envs", "opponent", "seat", "illegal_action", "max_episode_steps"}),
    ],
)
def test_a_misspelt_keyword_lists_exactly_the_envs_own_arguments(make, own: set[str]) -> None:
    with pytest.raises(ValueError, match="unknown argument") as err:
        make(bogus=1)
    listed = str(err.value).split("the env's own: ")[1].split(";")[0].split(", ")
    assert set(listed) == own


def test_numpy_floats_keep_their_short_value() -> None:
    """A float32 0.1 from ``np.linspace`` is the rule 0.1, written as such in configs and records."""
    assert UnoRules(uno_catch_prob=np.float32(0.1)) == UnoRules(uno_catch_prob=0.1)
    assert type(UnoRules(uno_catch_prob=np.longdouble(0.5)).uno_catch_prob) is float
