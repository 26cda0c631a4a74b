"""Self-play samples for fitted values (agents/value_fit.py) keep every view as it was."""

from __future__ import annotations

from agents.value_fit import self_play_samples
from envs.uno_tricks import decode


def test_the_trick_games_team_points_are_kept_whole_past_127():
    """The trick game's team points reach 360: an int8 store wrapped them to negative numbers."""
    samples = self_play_samples("tricks", 4, "heuristic", 80 * 128, 128, seed=0)
    points = decode(samples["obs"])["team_points"]
    assert points.min() >= 0 and points.max() > 127
