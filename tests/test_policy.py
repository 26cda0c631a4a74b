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
