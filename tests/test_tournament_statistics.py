"""The tournament's statistics and reports: rating orders, p-values that match their intervals,
differences on clustered errors, warnings and notices, and how the outputs are written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tournament import stats
from tournament.config import TournamentConfig, load_config
from tournament.runner import run_tournament
from tournament.schedule import build_schedule

ROOT = Path(__file__).resolve().parents[1]


def config(**kw) -> TournamentConfig:
    base = {"players": 2, "policies": ["random", "heuristic"], "games": 400, "batch": 128, "ratings": "none"}
    return TournamentConfig.from_mapping({**base, **kw})


def played(cfg: TournamentConfig):
    schedule = build_schedule(cfg)
    return schedule, run_tournament(cfg, schedule)


def test_ratings_are_the_means_over_shuffled_orders_with_their_spread():
    import dataclasses

    cfg = load_config("configs/eval/default.yaml", ["games=240", "rating_orders=3"])
    schedule, results = played(cfg)
    rng = np.random.default_rng(cfg.seed)
    runs = [
        stats._rate_in_order(cfg, schedule, results, rng.permutation(np.flatnonzero(results.played))) for _ in range(3)
    ]
    rated = {r["entrant"]: r for r in stats.openskill_ratings(cfg, schedule, results)}
    for label, r in rated.items():
        mu = np.array([run[label][0] for run in runs])
        assert r["mu"] == pytest.approx(mu.mean(), abs=1e-12)
        assert r["sigma"] == pytest.approx(np.mean([run[label][1] for run in runs]), abs=1e-12)
        assert r["mu_spread"] == pytest.approx(mu.std(ddof=1), abs=1e-12) and r["mu_spread"] > 0
        assert r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=1e-12) and r["orders"] == 3
    # one order is the first of these (what a single shuffled order gave before), with no spread
    one = stats.openskill_ratings(dataclasses.replace(cfg, rating_orders=1), schedule, results)
    assert {r["entrant"]: r["mu"] for r in one} == {label: mu for label, (mu, _) in runs[0].items()}
    assert all(r["mu_spread"] == 0.0 for r in one)
    with pytest.raises(ValueError, match="rating_orders must be an integer from 1 to 1,000, got 0"):
        config(rating_orders=0)


def test_a_table_of_one_size_is_named_as_one():
    with pytest.raises(ValueError, match=r"players: the tricks table seats 4, got 2"):
        TournamentConfig.from_mapping({"game": "tricks", "players": 2})
