"""``select``: an engine holding some of another's games, each continuing exactly as before."""

from __future__ import annotations

import numpy as np
import pytest

from envs.uno import UnoEngine, UnoRules
from envs.uno_tricks import TricksEngine
from tests.play_helpers import random_actions

# Arrays with the batch dimension first that are not game state: index helpers built from
# the batch size, and one step's outputs.
NOT_STATE = {"_ar", "_row_base", "game_winners", "final_scores", "_rewards", "_done", "_mask"}

ENGINES = [
    pytest.param(lambda b: UnoEngine(b, 3, UnoRules(match=True), seed=7), id="uno-3p-match"),
    pytest.param(lambda b: UnoEngine(b, 2, UnoRules(stacking=True), seed=8), id="uno-2p-stacking"),
    pytest.param(lambda b: TricksEngine(b, seed=9), id="tricks"),
]


def batch_arrays(obj: object, batch: int, prefix: str = "") -> set[str]:
    """Paths of every array attribute (also inside the engine's helper objects) of leading size ``batch``."""
    found = set()
    for name, value in vars(obj).items():
        if isinstance(value, np.ndarray):
            if value.ndim and value.shape[0] == batch:
                found.add(prefix + name)
        elif isinstance(value, tuple):
            continue  # the kernels' argument tuples: the same arrays again
        elif type(value).__module__.startswith("envs."):
            found |= batch_arrays(value, batch, f"{prefix}{name}.")
    return found


@pytest.mark.parametrize("make", ENGINES)
def test_state_fields_name_every_per_game_array(make):
    eng = make(11)  # a batch size no other dimension has
    eng.reset()
    eng.step(random_actions(eng.legal_action_mask, np.random.default_rng(0).random((11, eng.num_actions))))
    expected = set(eng.state_fields) | set(eng._STREAM_FIELDS)
    found = batch_arrays(eng, 11) - NOT_STATE
    assert expected <= found
    # Anything else is storage: a buffer that state fields are views of, holding nothing more.
    for path in found - expected:
        buffer = eng._state_field(path)
        views = [eng._state_field(f) for f in expected if np.shares_memory(eng._state_field(f), buffer)]
        assert views, f"{path} is per-game data that state_fields does not name"
        assert sum(v.size for v in views) == buffer.size, f"{path} holds more than the state fields it stores"


@pytest.mark.parametrize("make", ENGINES)
def test_selected_games_continue_exactly_as_in_the_full_batch(make):
    rng = np.random.default_rng(1)
    full = make(8)
    _, mask = full.reset()
    for _ in range(30):
        _, mask, _, _ = full.step(random_actions(mask, rng.random(mask.shape)))
    keep = np.array([5, 1, 6])
    part = full.select(keep)
    assert part.num_games == 3
    for j, i in enumerate(keep):
        assert part.position(j) == full.position(int(i))
    obs_p, mask_p = part.observe()
    obs_f, mask_f = full.observe()
    np.testing.assert_array_equal(obs_p, obs_f[keep])
    ended = 0
    for _ in range(400):  # several games (or hands) end and deal again
        u = rng.random(mask_f.shape)
        obs_f, mask_f, rew_f, done_f = full.step(random_actions(mask_f, u))
        obs_p, mask_p, rew_p, done_p = part.step(random_actions(mask_p, u[keep]))
        np.testing.assert_array_equal(obs_p, obs_f[keep])
        np.testing.assert_array_equal(mask_p, mask_f[keep])
        np.testing.assert_array_equal(rew_p, rew_f[keep])
        np.testing.assert_array_equal(done_p, done_f[keep])
        np.testing.assert_array_equal(part.game_winners, full.game_winners[keep])
        ended += int(done_p.sum()) + int(getattr(part, "hand_ended", done_p).sum())  # match mode: hands
    assert ended >= 3


def test_select_refuses_bad_indices():
    eng = UnoEngine(4, 2, seed=0)
    eng.reset()
    for bad in ([], [4], [-1], [0.5]):
        with pytest.raises(ValueError, match="select takes a non-empty list of game indices in 0..3"):
            eng.select(bad)


@pytest.mark.parametrize("make", ENGINES)
def test_a_pickled_engine_leaves_its_scratch_engines_and_continues_exactly(make):
    """``step_games`` keeps scratch engines per batch size; a pickle carries only the games."""
    import pickle

    eng = make(16)
    obs, mask = eng.reset()
    rng = np.random.default_rng(0)
    for size in range(1, 9):  # eight scratch engines
        games = np.arange(size)
        eng.step_games(games, random_actions(eng.legal_action_mask[games], rng.random((size, mask.shape[1]))))
    assert len(eng.__dict__.get("_sub_engines", {})) == 8
    copy = pickle.loads(pickle.dumps(eng))
    assert "_sub_engines" not in copy.__dict__
    for _ in range(40):
        u = rng.random(mask.shape)
        a = random_actions(eng.legal_action_mask, u)
        for x, y in zip(eng.step(a), copy.step(a), strict=True):
            np.testing.assert_array_equal(x, y)
    copy.step_games(np.arange(3), random_actions(copy.legal_action_mask[:3], rng.random((3, mask.shape[1]))))
