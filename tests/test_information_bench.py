"""bench/information.py's true-hands search: its worlds are the real game, the draw pile reshuffled."""

from __future__ import annotations

import numpy as np

from agents.registry import make_policy
from bench.information import TrueHandsSearch, play
from envs.rng import RowStreams
from envs.uno import UnoEngine, UnoRules


def heuristic_games(games: int, seed: int, steps: int) -> tuple[UnoEngine, np.ndarray]:
    """4-player games ``steps`` decisions of ``heuristic`` play in, and their observations."""
    eng = UnoEngine(games, 4, UnoRules(), seed=seed, auto_reset=False)
    obs, mask = eng.reset()
    policy = make_policy("uno", "heuristic", seed=0)
    for _ in range(steps):
        obs, mask, _, _ = eng.step(policy(obs, mask))
    return eng, obs


def test_true_hands_worlds_hold_the_real_hands_and_only_reshuffle_the_pile():
    eng, obs = heuristic_games(8, seed=3, steps=12)
    search = TrueHandsSearch(seed=1, worlds=5, depth=0, bets="search")
    search.truth = eng.select(np.arange(8))
    worlds = search.sample_worlds(obs, 5, RowStreams(np.arange(len(obs) * 5)))
    real = np.repeat(np.arange(8), 5)
    for name in ("hands", "hand_size", "current", "colour", "top", "discard", "draw_top", "draw_end"):
        np.testing.assert_array_equal(getattr(worlds, name), getattr(eng, name)[real], err_msg=name)
    moved = 0
    for w, g in enumerate(real):
        top, end = eng.draw_top[g], eng.draw_end[g]
        pile, shuffled = eng.draw_pile[g, top:end], worlds.draw_pile[w, top:end]
        assert sorted(pile) == sorted(shuffled)  # the same cards, in another order
        moved += not np.array_equal(pile, shuffled)
    assert moved >= 35  # (a 90-odd-card pile keeps its order by chance almost never)


def test_the_bench_plays_every_game_to_its_end():
    row = play(4, "true hands", games=8, seed=0)
    assert row["games"] == 8 and 0.0 <= row["ci_low"] <= row["win_rate"] <= row["ci_high"] <= 1.0


def test_a_sure_belief_deals_the_real_hands():
    from bench.information import SureBeliefSearch
    from envs.uno.observation import decode

    eng, obs = heuristic_games(16, seed=5, steps=10)
    games = (decode(obs)["revealed_seat"] < 0).nonzero()[0]  # a shown hand is pinned as the worlds read it
    search = SureBeliefSearch(seed=1, worlds=3, depth=0, bets="search")
    search.truth = eng.select(games)
    worlds = search.sample_worlds(obs[games], 3, RowStreams(np.arange(games.size * 3)))
    real = np.repeat(games, 3)
    for k in range(4):  # relative seat k of the player to act
        dealt = worlds.hands[np.arange(real.size), (eng.direction[real] * k) % 4]
        np.testing.assert_array_equal(dealt, eng.hands[real, (eng.current[real] + eng.direction[real] * k) % 4])


def test_a_table_size_without_its_agent_is_refused_before_hours_of_play() -> None:
    import pytest

    from bench.information import check_table

    check_table(4)
    with pytest.raises(ValueError, match="no agent is shipped for 3 players"):
        check_table(3)
    with pytest.raises(ValueError, match="classic UNO is for 2 to 10 players, got 11"):
        check_table(11)


def test_rollout_values_smoke_run_writes_only_where_out_says(tmp_path) -> None:
    """bench/rollout_values.py --quick: values every legal action, fits, measures, and writes
    its JSON to --out only."""
    import json

    from bench.rollout_values import main

    out = tmp_path / "values.json"
    assert main(["--quick", "--margins", "0.1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["decisions"] == 2000 and result["held_out"]["decisions"] == 100
    assert [row["entrant"] for row in result["table"]] == [
        "heuristic",
        "network alone",
        "heuristic, network where it predicts +0.1",
    ]
    assert all(row["games"] == 400 for row in result["table"])


def test_the_rollout_values_report_is_made_from_the_kept_figures(tmp_path) -> None:
    """--report: each kept base's table and held-out gain in points, a plot and the rows."""
    from bench.rollout_values import write_report

    assert write_report(tmp_path / "report.md", tmp_path / "data") == 0
    text = (tmp_path / "report.md").read_text()
    assert "## Improving `heuristic` (4 players)" in text and "## Improving `agent` (4 players)" in text
    assert "-0.1 [-0.3, +0.2] points of win rate per decision" in text  # 4 players: 3/4 point per hundredth
    assert {p.name for p in (tmp_path / "data").iterdir()} == {f"rollout_values.{e}" for e in ("json", "csv", "png")}
