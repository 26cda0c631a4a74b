"""Tournaments: schedules, duplicate deals, batched play, statistics, bad configs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from envs.core import IllegalActionError
from envs.uno import UnoEngine
from tournament.config import TournamentConfig, load_config
from tournament.runner import run_tournament
from tournament.schedule import build_schedule
from tournament.stats import clustered_wilson, summarise, wilson


def config(**kw) -> TournamentConfig:
    base = {"players": 2, "policies": ["random", "heuristic"], "games": 400, "batch": 128, "ratings": "none"}
    return TournamentConfig.from_mapping({**base, **kw})


def test_schedule_plays_every_seating_of_every_table_on_shared_deals():
    cfg = config(players=3, policies=["random", "greedy", "heuristic", "rlcard_rule"], games=100)
    s = build_schedule(cfg)
    assert len(s.tables) == 4  # C(4, 3) tables
    assert s.num_games == s.deals * 4 * 6 >= 100  # 6 permutations of 3 seats
    for d in range(s.deals):
        rows = s.deal == d
        assert (s.seed[rows] == s.seed[rows][0]).all()  # one seed per deal, every seating and table
        for t in range(4):
            seatings = {tuple(x) for x in s.seat_entrant[rows & (s.table == t)]}
            assert len(seatings) == 6 and all(sorted(x) == sorted(s.tables[t]) for x in seatings)
    assert len(set(s.seed.tolist())) == s.deals


def test_identical_entrants_at_a_table_are_not_seated_twice_the_same_way():
    cfg = config(players=4, policies=["random", "heuristic"], lineups=[["heuristic", "random", "random", "random"]])
    s = build_schedule(cfg)
    assert s.num_games == s.deals * 4  # 4 distinct seatings out of 24 permutations
    assert ((s.seat_entrant == 1).sum(axis=1) == 1).all()


def test_duplicate_deals_give_every_seating_the_same_cards():
    cfg = config(players=2, policies=["random", "greedy"], games=40)
    s = build_schedule(cfg)
    eng = UnoEngine(num_games=s.num_games, num_players=2, seed=0)
    eng.reset(seed=s.seed)
    for d in range(s.deals):
        a, b = np.flatnonzero(s.deal == d)
        np.testing.assert_array_equal(eng.hands[a], eng.hands[b])
        assert s.seat_entrant[a, 0] == s.seat_entrant[b, 1]  # the same hand, held by the other entrant


def test_every_scheduled_game_is_played_once_and_runs_repeat():
    cfg = config(games=300, batch=64)
    s = build_schedule(cfg)
    r1 = run_tournament(cfg, s, shard_size=128)
    r2 = run_tournament(cfg, s, shard_size=128)
    assert r1.played.all() and (r1.decisions > 0).all()
    assert (r1.winners.sum(axis=1) == 1).all()
    np.testing.assert_array_equal(r1.winners, r2.winners)
    np.testing.assert_array_equal(r1.decisions, r2.decisions)


def test_random_against_itself_is_even_and_heuristic_beats_random():
    even = config(policies=["random", {"name": "random", "label": "random2"}], games=4000, batch=1024)
    summary = summarise(even, build_schedule(even), run_tournament(even, build_schedule(even)))
    for row in summary["entrants"]:
        assert row["ci_low"] < 0.5 < row["ci_high"]
    assert sum(row["wins"] for row in summary["entrants"]) == summary["games"]
    strong = config(games=2000, batch=1024)
    summary = summarise(strong, build_schedule(strong), run_tournament(strong, build_schedule(strong)))
    rows = {row["entrant"]: row for row in summary["entrants"]}
    assert rows["heuristic"]["ci_low"] > 0.6
    h2h = summary["head_to_head"]
    i, j = h2h["labels"].index("heuristic"), h2h["labels"].index("random")
    assert h2h["score"][i][j] == pytest.approx(rows["heuristic"]["win_rate"])
    assert h2h["p_value"][i][j] < 1e-6


def _paired_games(first: dict, streams: str, batch: int = 128, shard_games: int | None = None):
    cfg = TournamentConfig.from_mapping(
        {
            "game": "uno",
            "players": 2,
            "policies": [{**first, "label": "a"}, {"name": "heuristic", "label": "b"}],
            "lineups": [["a", "b"]],
            "seating": "rotations",
            "games": 300,
            "batch": batch,
            "shard_games": shard_games,
            "streams": streams,
            "ratings": "none",
        }
    )
    return run_tournament(cfg, build_schedule(cfg))


def test_with_a_stream_per_game_the_games_pair_up_until_a_policy_chooses_otherwise():
    """streams: game: a game's random numbers are its own, so the batch and shards leave the
    games alone, and an entrant that differs only in its challenges plays every game in which
    it would not have challenged exactly as before (with one stream per batch, a game that
    differs anywhere moves the opponents' tie-breaks in all the others)."""
    smart = {"name": "heuristic", "challenge": "smart"}
    accepting = {"name": "restrained", "base": smart, "challenge": "never"}
    one = _paired_games(smart, "game")
    np.testing.assert_array_equal(one.decisions, _paired_games(smart, "game", batch=32, shard_games=64).decisions)
    for streams, alike in (("game", True), ("batch", False)):
        a, b = _paired_games(smart, streams), _paired_games(accepting, streams)
        unchallenged = a.events["challenges"].sum(axis=1) == 0  # nobody challenged: the same game in both
        assert 0 < unchallenged.sum() < unchallenged.size
        same = (a.decisions == b.decisions) & (a.winners == b.winners).all(axis=1)
        assert same[unchallenged].all() == alike, streams


def test_uno_referee_counts_wild_draw_four_bluffs_and_challenges():
    cfg = config(
        policies=[
            {"name": "heuristic", "bluff": 1.0, "challenge": "never", "label": "bluffer"},
            {"name": "heuristic", "challenge": "always", "label": "challenger"},
        ],
        games=1000,
        batch=500,
    )
    summary = summarise(cfg, build_schedule(cfg), run_tournament(cfg, build_schedule(cfg)))
    rows = {row["entrant"]: row for row in summary["entrants"]}
    assert rows["bluffer"]["wd4_bluffs"] > 0 and rows["bluffer"]["challenges"] == 0
    assert rows["challenger"]["wd4_bluffs"] == 0
    # Every Wild Draw Four is challenged except one played as the last card.
    assert 0.9 * rows["bluffer"]["wd4_played"] < rows["challenger"]["challenges"] <= rows["bluffer"]["wd4_played"]
    assert 0 < rows["challenger"]["challenges_won"] <= rows["bluffer"]["wd4_bluffs"]


@pytest.mark.parametrize(
    ("scoring", "key", "column"),
    [
        ("standard", "mean_points_missing", "missing to target"),
        ("reverse", "mean_room_under_target", "room under target"),
    ],
)
def test_a_match_reports_its_distance_from_the_target_the_way_its_scoring_reads_it(scoring, key, column):
    cfg = config(games=64, batch=64, rules={"match": True, "scoring": scoring, "target_score": 100})
    summary = summarise(cfg, build_schedule(cfg), run_tournament(cfg, build_schedule(cfg)))
    rows = {row["entrant"]: row for row in summary["entrants"]}
    other = ({"mean_points_missing", "mean_room_under_target"} - {key}).pop()
    assert all(key in r and other not in r for r in rows.values())
    # the loser misses more of a target; under reverse scoring the winner keeps the most room under it
    larger, smaller = ("heuristic", "random") if scoring == "reverse" else ("random", "heuristic")
    assert rows[larger][key] > rows[smaller][key]
    from tournament.tallies import tally_of

    assert column in tally_of("uno").columns(list(rows.values()))


@pytest.mark.parametrize("match", [False, True])
def test_every_column_of_the_leaderboard_has_its_own_cell(match):
    from tournament.tallies import tally_of

    cfg = config(games=64, batch=64, rules={"match": match})
    summary = summarise(cfg, build_schedule(cfg), run_tournament(cfg, build_schedule(cfg)))
    tally = tally_of("uno")
    columns = tally.columns(summary["entrants"])
    assert ("final score" in columns) == match
    assert all(len(tally.cells(row)) == len(columns) for row in summary["entrants"])


def test_trick_game_tournament_reports_team_results():
    cfg = TournamentConfig.from_mapping(
        {
            "game": "tricks",
            "players": 4,
            "policies": ["random", "heuristic", {"team": ["heuristic", "random"], "label": "mixed"}],
            "games": 600,
            "batch": 256,
            "ratings": "openskill",
        }
    )
    s = build_schedule(cfg)
    assert s.num_games == s.deals * 3 * 4  # 3 pairings x 4 rotations
    assert (s.seat_side[:, 0] == s.seat_side[:, 2]).all()  # partners opposite
    summary = summarise(cfg, s, run_tournament(cfg, s))
    rows = {row["entrant"]: row for row in summary["entrants"]}
    assert set(rows) == {"random", "heuristic", "mixed"}
    assert rows["heuristic"]["win_rate"] > rows["mixed"]["win_rate"] > rows["random"]["win_rate"]
    h2h = np.array(summary["head_to_head"]["score"], dtype=float)
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(h2h[off] + h2h.T[off], 1.0)
    assert [r["entrant"] for r in summary["ratings"]][0] == "heuristic"


def test_ratings_of_fixed_policies_converge_in_win_rate_order():
    cfg = config(players=3, policies=["random", "greedy", "heuristic"], games=2400, batch=1024, ratings="openskill")
    s = build_schedule(cfg)
    summary = summarise(cfg, s, run_tournament(cfg, s))
    by_win_rate = [row["entrant"] for row in sorted(summary["entrants"], key=lambda r: -r["win_rate"])]
    assert [r["entrant"] for r in summary["ratings"]] == by_win_rate == ["heuristic", "greedy", "random"]
    # Fixed policies do not drift: sigma shrinks with the number of games instead of staying near 1.7.
    assert all(r["sigma"] < 1.0 for r in summary["ratings"])


def test_a_policy_that_answers_wrongly_is_named():
    class Floats:
        game = "uno"

        def __init__(self, seed=None):
            pass

        def __call__(self, obs, mask):
            return mask.argmax(1) + 0.5

    class FirstAction(Floats):
        def __call__(self, obs, mask):
            return np.zeros(len(mask), np.int64)  # 'play R0', seldom legal

    class Huge(Floats):
        def __call__(self, obs, mask):
            return np.full(len(mask), 2**64 - 1, np.uint64)  # would wrap to -1 in int64

    import sys
    import types

    module = types.ModuleType("bad_policies_for_test")
    module.Floats, module.FirstAction, module.Huge = Floats, FirstAction, Huge
    sys.modules[module.__name__] = module
    try:
        for name, error, message in (
            ("Floats", ValueError, "returned float64 actions of shape .*one integer action id per game"),
            (
                "FirstAction",
                IllegalActionError,
                "policy 'bad_policies_for_test:FirstAction', game \\d+ of the schedule: pl",
            ),
            ("Huge", ValueError, f"returned uint64 actions of shape .* \\(up to {2**64 - 1}\\)"),
        ):
            cfg = config(players=2, policies=["random", f"bad_policies_for_test:{name}"], games=24)
            with pytest.raises(error, match=message):
                run_tournament(cfg, build_schedule(cfg))
    finally:
        del sys.modules[module.__name__]


def test_the_title_counts_the_games_of_a_deal_as_tables_times_seatings():
    cfg = config(players=2, policies=["random", "greedy", "heuristic"], games=120)
    s = build_schedule(cfg)
    summary = summarise(cfg, s, run_tournament(cfg, s))
    assert (summary["tables"], summary["games_per_deal"], summary["deals"]) == (3, 6, 20)


def test_wilson_interval_matches_scipy():
    ci = binomtest(37, 120).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson(37, 120) == pytest.approx((ci.low, ci.high))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["policies=[random, nosuch]"], "policies\\[1\\]: unknown uno policy 'nosuch'; policies: "),
        (["colour=red"], "unknown config key\\(s\\) colour; allowed: game, players"),
        (["game=tricks", "players=3"], "players: the tricks table seats 4, got 3"),
        (["rules.stackin=true"], "unknown UnoRules option\\(s\\) stackin"),
        (["policies=[{name: heuristic, bluf: 1}, random]"], "unknown parameter\\(s\\) bluf for uno policy 'heuristic'"),
        (["lineups=[[random, random]]", "players=2"], "at least two different entrants"),
        (["games=0"], "games must be an integer from 1 to 100,000,000"),
        (["policies=[random, random]"], "share the label\\(s\\) random"),
        (["players=2", "policies=[random, {name: heuristic, label: [a, b]}]"], "a label is a non-empty text"),
        (["players=2", "policies=[random, {name: heuristic, label: ''}]"], "a label is a non-empty text"),
        (["lineups=[[{a: 1}, random, greedy, heuristic]]"], "lineups\\[0\\] lists entrant labels \\(texts\\)"),
        (["game=tricks", "policies=[random, greedy]", "seating=permutations"], "plays its 4 rotations"),
        (["streams=row"], "streams must be one of batch, game, got 'row'"),
    ],
)
def test_bad_configs_are_refused_with_a_clear_message(overrides, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, overrides)


def test_the_interval_counts_a_deals_correlated_games_as_fewer():
    """Games of one duplicate deal that move together (the trick game) widen the interval by
    the design effect; games that balance out (classic UNO) never narrow it below Wilson's."""
    rng = np.random.default_rng(0)
    deals, per_deal = 2000, 4
    together = rng.random(deals) < 0.6  # each deal's 4 games all won or all lost: deff 4
    low, high = clustered_wilson(together * per_deal * 1.0, np.full(deals, per_deal))
    plain = wilson(together.sum() * per_deal, deals * per_deal)
    assert (high - low) == pytest.approx(2 * (plain[1] - plain[0]), rel=0.05)  # sqrt(4) times as wide
    balanced = np.full(deals, 2.0)  # 2 of 4 won on every deal: no variance between deals
    assert clustered_wilson(balanced, np.full(deals, per_deal)) == wilson(2 * deals, deals * per_deal)
    # coverage where the truth is known: independent deals, 3 correlated games each
    truth, covered = 0.6, 0
    for _ in range(400):
        won = (rng.random(300) < truth)[:, None] & (rng.random((300, 3)) < 0.9) | (rng.random((300, 3)) < 0.05)
        p = 0.9 * truth + 0.05 - 0.045 * truth
        low, high = clustered_wilson(won.sum(axis=1).astype(float), np.full(300, 3))
        covered += low <= p <= high
    assert covered / 400 >= 0.92


def test_wilson_interval_ends_at_a_clean_sweep():
    assert wilson(0, 68)[0] == 0.0 and wilson(68, 68)[1] == 1.0


def test_a_pair_met_in_several_lineups_counts_every_game_and_a_clean_sweep_is_no_even_split():
    cfg = config(
        players=2,
        policies=["heuristic", "first_legal"],
        lineups=[["heuristic", "first_legal"], ["first_legal", "heuristic"]],
        games=800,
        batch=256,
    )
    s = build_schedule(cfg)
    summary = summarise(cfg, s, run_tournament(cfg, s))
    h2h, rows = summary["head_to_head"], {r["entrant"]: r for r in summary["entrants"]}
    i, j = h2h["labels"].index("heuristic"), h2h["labels"].index("first_legal")
    assert h2h["games"][i][j] == summary["games"] == rows["heuristic"]["games"]  # both lineups, not the last
    assert h2h["score"][i][j] == pytest.approx(rows["heuristic"]["win_rate"])
    # heuristic made to win every game: the score test on every game, not the p=1 of an even split
    results = run_tournament(cfg, s)
    results.winners[:] = s.seat_entrant == i
    h2h = summarise(cfg, s, results)["head_to_head"]
    assert h2h["score"][i][j] == 1.0 and h2h["ci_high"][i][j] == 1.0 and h2h["p_value"][i][j] < 1e-6


def test_permutations_of_a_large_table_are_refused_before_any_game():
    with pytest.raises(ValueError, match="permutations of 7 seats are 5,040 seatings"):
        config(players=7, seating="permutations")


def test_holm_keeps_the_family_wise_error_and_p_values_follow_their_intervals():
    from tournament.stats import Z95, holm, p_from_interval

    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])  # 3 x 0.01, then max(2 x 0.03, 0.03)...
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0]) and holm([]) == []
    assert p_from_interval(Z95, 0.0, 2 * Z95) == pytest.approx(0.05)  # an interval that just touches 0
    assert p_from_interval(0.0, -1.0, 1.0) == pytest.approx(1.0)


def test_a_label_with_dollar_signs_is_drawn_as_written(tmp_path):
    from tournament.report import write_outputs

    cfg = config(players=2, policies=["random", {"name": "heuristic", "label": "$\\foo$"}], games=24)
    s = build_schedule(cfg)
    paths = write_outputs(summarise(cfg, s, run_tournament(cfg, s)), tmp_path)
    assert all(p.is_file() for p in paths) and len(paths) == 4  # json, csv, win rates, head to head


def test_a_tournament_larger_than_the_machines_memory_is_refused_before_any_game(monkeypatch):
    import tournament.config as tc

    monkeypatch.setattr(tc, "physical_memory", lambda: 2**30)  # a 1 GiB machine
    assert config(games=4_000_000).games == 4_000_000  # about 0.7 GiB: it fits
    with pytest.raises(ValueError, match=r"keep about 1\.4 GiB of schedule and results, more than this machine's 1\.0"):
        config(games=8_000_000)
    # one game asked, but one deal of each of 720 seatings of C(15, 6) = 5,005 tables is played
    many = [{"name": "random", "label": f"r{k}"} for k in range(15)]
    with pytest.raises(ValueError, match=r"games: 3,603,600 games at 6 seats \(1 asked, whole deals of 3,603,600"):
        config(players=6, seating="permutations", policies=many, games=1)


def test_openskill_ratings_do_not_depend_on_how_games_are_chunked(monkeypatch: pytest.MonkeyPatch) -> None:
    from tournament import stats

    cfg = load_config("configs/eval/default.yaml", ["games=480"])
    schedule = build_schedule(cfg)
    results = run_tournament(cfg, schedule)
    whole = stats.openskill_ratings(cfg, schedule, results)
    monkeypatch.setattr(stats, "_RATING_CHUNK", 7)
    assert stats.openskill_ratings(cfg, schedule, results) == whole


def test_a_team_entrant_in_classic_uno_is_named_as_such():
    with pytest.raises(ValueError, match="a team entrant .* is for a game of teams; classic UNO seats one policy"):
        config(policies=[{"team": ["random", "greedy"]}, "heuristic"])
