"""The batched random policy: legal, uniform, seeded."""

from __future__ import annotations

import numpy as np
import pytest

from agents.policy import Policy, RandomPolicy


def test_random_policy_picks_legal_actions_uniformly_and_repeats_with_its_seed():
    mask = np.zeros((20000, 70), bool)
    mask[:, [3, 17, 60]] = True
    a = RandomPolicy(1)(None, mask)
    assert set(np.unique(a)) == {3, 17, 60}
    counts = np.bincount(a, minlength=70)[[3, 17, 60]] / 20000
    assert np.abs(counts - 1 / 3).max() < 0.015
    np.testing.assert_array_equal(a, RandomPolicy(1)(None, mask))
    assert isinstance(RandomPolicy(), Policy)


def test_random_policy_refuses_a_row_without_legal_action():
    mask = np.ones((3, 70), bool)
    mask[1] = False
    with pytest.raises(ValueError, match=r"no legal action in mask row\(s\) \[1\]"):
        RandomPolicy(0)(None, mask)
    with pytest.raises(ValueError, match="masks must be"):
        RandomPolicy(0)(None, np.ones(70, bool))


def test_a_scripted_choice_depends_on_its_own_row_only():
    """Scores are shifted row by row before the arg-max: by the batch's lowest, a row of very
    low scores rounded another row's tie-break away (float32) and changed its choice."""
    from agents.policy import SeededPolicy

    row = np.array([[3.0, 3.0, 3.0, 0.0]], np.float32)  # a three-way tie, broken at random
    far = np.full((1, 4), -3e7, np.float32)  # another game's scores, far below
    mask = np.array([[True, True, True, False]])
    alone = [SeededPolicy(seed=s).choose(row, mask)[0] for s in range(40)]
    batched = [SeededPolicy(seed=s).choose(np.vstack([row, far]), np.vstack([mask, mask]))[0] for s in range(40)]
    assert alone == batched and len(set(alone)) == 3
    odd = np.array([[-np.inf, 0, 0, 0]], np.float32)  # a row with a non-finite score takes another path
    with_odd = [SeededPolicy(seed=s).choose(np.vstack([row, odd]), np.vstack([mask, mask]))[0] for s in range(40)]
    assert with_odd == alone
    huge = SeededPolicy(seed=0).choose(np.array([[-3e7, -3e7, -3e7, -3e7]], np.float32), mask)  # rounding
    assert mask[0, huge[0]]
