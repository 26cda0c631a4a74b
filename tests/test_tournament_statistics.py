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


def test_a_head_to_head_p_value_agrees_with_its_interval_and_is_holm_adjusted():
    import math

    from tournament import report

    rng = np.random.default_rng(5)
    for _ in range(300):  # p < 0.05 exactly where the clustered interval leaves out 0.5
        deals = int(rng.integers(2, 30))
        counts = rng.integers(1, 9, deals).astype(float)
        totals = rng.binomial(counts.astype(int), rng.uniform(0.3, 0.7)).astype(float)
        low, high = stats.clustered_wilson(totals, counts)
        p = stats.clustered_p_value(totals, counts)
        if not math.isclose(p, 0.05, rel_tol=1e-9):
            assert (p < 0.05) == (not low <= 0.5 <= high), (totals, counts)
    # 60 wins of 100 games on 10 deals that all end 6-4: no clustering, the plain score test
    assert stats.clustered_p_value(np.full(10, 6.0), np.full(10, 10.0)) == pytest.approx(0.045500263896358)
    # the same wins on deals that end 10-0 or 0-10 weigh as 9 games (10 deals, less one for the
    # mean), not 100: z = 0.1 / sqrt(0.25 / 9) = 0.6
    assert stats.clustered_p_value(np.array([10.0] * 6 + [0.0] * 4), np.full(10, 10.0)) == pytest.approx(
        0.548506235500, abs=1e-12
    )
    assert stats.clustered_p_value(np.array([9.0]), np.array([10.0])) == 1.0  # one deal: no evidence
    cfg = config(policies=["random", "heuristic", "greedy"], games=300)
    schedule, results = played(cfg)
    h2h = stats.summarise(cfg, schedule, results)["head_to_head"]
    pairs = [(0, 1), (0, 2), (1, 2)]
    raw = [h2h["p_value"][a][b] for a, b in pairs]
    for (a, b), adjusted in zip(pairs, stats.holm(raw), strict=True):
        assert h2h["p_value_holm"][a][b] == h2h["p_value_holm"][b][a] == adjusted
    table = report.head_to_head_table({"head_to_head": h2h})
    assert "Holm-adjusted" in str(table.title)


def test_a_difference_uses_each_rows_clustered_standard_error():
    import math

    later = {"win_rate": 0.60, "games": 1000, "ci_low": 0.55, "ci_high": 0.65}
    earlier = {"win_rate": 0.50, "games": 1000, "ci_low": 0.47, "ci_high": 0.53}
    diff, low, high = stats.difference(later, earlier)
    half = stats.Z95 * math.hypot(0.10 / (2 * stats.Z95), 0.06 / (2 * stats.Z95))
    assert diff == pytest.approx(0.10) and high - diff == pytest.approx(half) and diff - low == pytest.approx(half)
    assert half == pytest.approx(math.hypot(0.05, 0.03))  # each half-width, combined as independent
    bare = {"win_rate": 0.5, "games": 400}  # no interval (older data): the binomial error
    assert stats.interval_se(bare) == pytest.approx(0.025)

    from tournament.ablation import compare
    from tournament.exploitability import change

    assert change(later, earlier) == stats.difference(later, earlier)
    rows = [{"name": "base", "baseline": True, "game": "tricks", "players": 4, **earlier}]
    rows.append({"name": "new", "baseline": False, "game": "tricks", "players": 4, **later})
    compare(rows)
    assert (rows[1]["delta"], rows[1]["delta_low"], rows[1]["delta_high"]) == stats.difference(later, earlier)


def test_a_study_report_names_the_config_file_it_read(tmp_path, monkeypatch):
    import shutil

    import evaluate
    from tournament import ablation

    copy = tmp_path / "my ablations.yaml"
    shutil.copy(ROOT / "configs/eval/ablations.yaml", copy)
    seen = {}
    monkeypatch.setattr(ablation, "run_study", lambda study, console: seen.update(study) or 0)
    assert evaluate.main(["--config", str(copy), "train=false", "games=10"]) == 0
    assert seen["command"] == f"python evaluate.py --config '{copy}' train=false games=10"
    assert evaluate.main(["--config", str(copy)]) == 0  # no overrides: still the file read, not the default
    assert seen["command"] == f"python evaluate.py --config '{copy}'"


def test_an_interval_on_fewer_than_ten_deals_comes_with_a_warning():
    cfg = config(games=12)  # 2 seatings: 6 deals
    summary = stats.summarise(cfg, *played(cfg))
    assert summary["notes"] == [
        "random, heuristic: the 95% interval rests on 6 duplicate deals (fewer than 10), too few to measure how "
        "a deal's games move together; it can be much too narrow: play more games"
    ]
    cfg = config(games=20)
    assert stats.summarise(cfg, *played(cfg))["notes"] == []


def test_games_rounded_up_to_whole_deals_are_announced_and_one_deal_reads_so(tmp_path):
    from rich.console import Console

    import evaluate
    from tournament import report

    assert evaluate.games_played(25, 48, 2) == (
        "25 games asked: 48 played, 2 duplicate deals of 24 (every deal is played in every seating of every table)"
    )
    assert evaluate.games_played(5, 24, 1).startswith("5 games asked: 24 played, 1 duplicate deal of 24 ")
    console = Console(record=True, width=300)
    cfg = load_config("configs/eval/default.yaml", ["games=5", "ratings=none"])
    summary = evaluate.run(cfg, console)
    text = console.export_text()
    assert "5 games asked: 24 played, 1 duplicate deal of 24" in text
    report.print_report(summary, console)
    assert "24 games (1 duplicate deal x 24 games" in console.export_text()


def test_the_same_table_twice_is_noted():
    from rich.console import Console

    import evaluate

    cfg = config(lineups=[["random", "heuristic"], ["random", "heuristic"]], games=8)
    summary = evaluate.run(cfg, Console(record=True, width=300))
    assert (
        "lineups lists the same table more than once ((random, heuristic) = (random, heuristic)): "
        "each copy plays and counts every deal" in summary["notes"]
    )
    # the same table in another order: in every seating, the same games
    cfg = config(lineups=[["random", "heuristic"], ["heuristic", "random"]], games=8)
    summary = evaluate.run(cfg, Console(record=True, width=300))
    assert "((random, heuristic) = (heuristic, random))" in " ".join(summary["notes"])
    cfg = config(
        policies=["random", "heuristic", "greedy"], lineups=[["random", "heuristic"], ["greedy", "random"]], games=8
    )
    summary = evaluate.run(cfg, Console(record=True, width=300))
    assert "more than once" not in " ".join(summary["notes"])


def test_outputs_are_written_together_and_the_folder_only_when_they_are(tmp_path, monkeypatch):
    from tournament import report

    cfg = config(games=40, ratings="openskill")
    summary = stats.summarise(cfg, *played(cfg))
    folder = tmp_path / "new" / "out"
    report.check_output_files(folder)
    assert not (tmp_path / "new").exists()  # checked before the games, made when written
    paths = report.write_outputs(summary, folder)
    assert [p.name for p in paths] == [
        "tournament.json",
        "tournament.csv",
        "tournament_win_rates.png",
        "tournament_head_to_head.png",
    ]
    before = {p: p.read_bytes() for p in paths}
    calls = []

    def fail_second(fig):  # the heatmap fails to draw, after the win rates' plot
        calls.append(fig)
        if len(calls) == 2:
            raise RuntimeError("no plot")
        return b"new png"

    monkeypatch.setattr(report, "_png", fail_second)
    summary["games"] = -1
    with pytest.raises(RuntimeError, match="no plot"):
        report.write_outputs(summary, folder)
    assert {p: p.read_bytes() for p in paths} == before
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in paths)  # no temporaries left


def test_a_missing_number_is_an_empty_csv_cell_as_the_json_null():
    import csv
    import io
    import json

    from tournament import report

    summary = {"entrants": [{"entrant": "a", "win_rate": float("nan"), "games": 0}], "ratings": []}
    rows = list(csv.DictReader(io.StringIO(report.entrants_csv(summary))))
    assert rows == [{"entrant": "a", "win_rate": "", "games": "0"}]
    assert json.loads(json.dumps(report.json_ready(summary)))["entrants"][0]["win_rate"] is None


def test_the_decision_limit_names_draw_anytime_only_under_those_rules():
    from tournament.runner import too_long

    plain = too_long(config(max_decisions=50))
    assert plain == (
        "a game has gone 50 decisions without an end (max_decisions reached); stopped instead of running forever. "
        "Raise max_decisions for matches that long"
    )
    endless = too_long(config(max_decisions=50, rules={"draw_anytime": True, "must_play_drawn": False}))
    assert endless.startswith(plain) and "with draw_anytime and must_play_drawn=false" in endless
    assert "draw_anytime" not in too_long(config(max_decisions=50, rules={"draw_anytime": True}))


def test_a_table_of_one_size_is_named_as_one():
    with pytest.raises(ValueError, match=r"players: the tricks table seats 4, got 2"):
        TournamentConfig.from_mapping({"game": "tricks", "players": 2})
