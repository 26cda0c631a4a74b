"""The evaluation command line: tournaments and the bluffing study, end to end."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def evaluate(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "evaluate.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def test_a_tiny_tournament_runs_through_the_command_line(tmp_path):
    stale = tmp_path / "tournament_head_to_head.png"  # an earlier two-player tournament's heatmap
    stale.write_bytes(b"old")
    proc = evaluate("games=240", "batch=64", f"output={tmp_path}", "rules.stacking=true")
    assert proc.returncode == 0, proc.stderr
    assert "heuristic" in proc.stdout and "95% CI" in proc.stdout
    summary = json.loads((tmp_path / "tournament.json").read_text())
    assert summary["games"] >= 240 and summary["rules"]["stacking"] is True
    assert summary["config"]["policies"] == ["random", "rlcard_rule", "greedy", "heuristic"]
    assert sum(row["wins"] for row in summary["entrants"]) == summary["games"]
    for row in summary["entrants"]:
        assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]
    assert {r["entrant"] for r in summary["ratings"]} == {"random", "rlcard_rule", "greedy", "heuristic"}
    csv = (tmp_path / "tournament.csv").read_text().splitlines()
    assert csv[0].startswith("entrant,games,wins,win_rate") and len(csv) == 5
    assert (tmp_path / "tournament_win_rates.png").stat().st_size > 1000
    assert not stale.exists()  # four players: no heatmap, and none left over to be taken for this one's
    assert summary["notes"] == []  # scripted policies read no files fitted to a table


def test_a_policy_fitted_to_another_table_plays_with_a_note():
    """The shipped agents were trained under the default rules: at a stacking table, or the
    2-player agent at four seats, they play, and the results say so."""
    from agents.registry import files_read, table_notes

    specs = ["heuristic", "agent:models/uno_4p_ppo.pt", {"name": "agent", "checkpoint": "models/uno_2p_ppo.pt"}]
    two = "uno_2p_ppo: models/uno_2p_ppo.pt was fitted under 2 players (this table: 4)"
    assert table_notes("uno", specs, {}, 4) == [two]
    notes = table_notes("uno", specs, {"stacking": True}, 4)
    stacking = "rules stacking=False (this table: stacking=True)"
    assert notes[0] == f"uno_4p_ppo: models/uno_4p_ppo.pt was fitted under {stacking}"
    assert notes[1].endswith("stacking=False (this table: stacking=True) and 2 players (this table: 4)")
    search = {"name": "search", "value": "models/uno_4p_ppo.pt", "rollout": "agent:models/uno_2p_ppo.pt"}
    # the rollout policy's checkpoint is read too: its digest and its table count
    assert files_read("uno", search, 4) == ["models/uno_4p_ppo.pt", "models/uno_2p_ppo.pt"]
    assert "models/uno_2p_ppo.pt was fitted under 2 players" in table_notes("uno", [search], {}, 4)[0]
    assert table_notes("tricks", ["agent:models/tricks_ppo.pt"], {}, 4) == []


def test_a_team_of_an_agent_and_a_scripted_partner_plays_with_notes(tmp_path):
    team = "{team: [heuristic, agent:models/tricks_ppo.pt], label: mixed}"
    proc = evaluate(
        "game=tricks",
        "games=32",
        "batch=32",
        f"policies=[heuristic, {team}]",
        "rules.exchange_returns=two",
        "--no-files",
    )
    assert proc.returncode == 0, proc.stderr
    assert "note: tricks_ppo: models/tricks_ppo.pt was fitted under rules exchange_returns=" in proc.stdout


def test_ratings_of_an_entrant_at_several_seats_come_with_a_note(tmp_path):
    """OpenSkill counts an entrant at several seats of a table as one competitor: its rating
    then says nothing of its win rate per seat, and the results say so."""
    proc = evaluate(
        "games=96",
        "batch=96",
        "policies=[heuristic, greedy]",
        "lineups=[[heuristic, greedy, greedy, greedy]]",
        f"output={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr
    notes = json.loads((tmp_path / "tournament.json").read_text())["notes"]
    assert any("counts there as one competitor" in n for n in notes)


def test_a_trick_game_tournament_with_match_of_teams(tmp_path):
    cfg = tmp_path / "tricks.yaml"
    cfg.write_text(
        f"game: tricks\nplayers: 4\npolicies: [greedy, heuristic]\ngames: 200\nbatch: 64\noutput: {tmp_path / 'out'}\n"
    )
    proc = evaluate("--config", str(cfg))
    assert proc.returncode == 0, proc.stderr
    assert "team points" in proc.stdout
    assert (tmp_path / "out" / "tournament_head_to_head.png").exists()


def test_the_bluff_study_writes_its_report(tmp_path):
    report, data = tmp_path / "bluff.md", tmp_path / "data"
    args = [
        "--config",
        "configs/eval/bluff_study.yaml",
        "games=200",
        "batch=100",
        "table_sizes=[2]",
        "bluff=[0, 1]",
        f"report={report}",
        f"data={data}",
        "survey_games=200",
        "habit_games=200",
        "learner_overrides=[total_steps=2048, num_games=64, num_steps=8, 'hidden=[16]', imitation_steps=0, "
        "eval_every=2, eval_games=100, final_eval_games=200, checkpoint_every=0, device=cpu]",
        f"learner_runs={tmp_path / 'learners'}",
        "learners=[{name: b, role: bluffer, target: {name: heuristic, challenge: always}}]",
    ]
    proc = evaluate(*args, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "training learner b" in proc.stdout
    text = report.read_text()
    # the report names the command as run, overrides and all
    assert "Generated by `python evaluate.py --config configs/eval/bluff_study.yaml games=200 batch=100 " in text
    assert "## Answer" in text and "| 2 | smart | 1 |" in text
    doc = json.loads((data / "cells.json").read_text())
    cells = doc["cells"]
    assert len(cells) == 6 and all(c["games"] == 200 for c in cells)
    for c in cells:  # the report's table is the data's
        assert f"| {c['win_rate']:.4f} | [{c['ci_low']:.4f}, {c['ci_high']:.4f}] |" in text
    assert [c["bluff"] for c in doc["challenge_rules"]] == [0.0, 1.0]
    for c in cells:  # an honest player's win rate against each rule, paired with the best rule's
        assert (c["over_best"] is None) == (c["bluff"] > 0)
        assert c["over_best"] is None or c["over_best_low"] <= c["over_best"] <= c["over_best_high"]
    assert text.count("paired over the same deals") == 2
    assert (data / "bluff_study.png").exists()
    # the learned-play chapter: the shipped agents surveyed, the learner trained and read off
    assert "## Learned play" in text and "| 2-player agent | 2 |" in text and "| 4-player agent | 4 |" in text
    assert [a["players"] for a in doc["agents"]] == [2, 4] and all(a["bluff"]["n"] > 0 for a in doc["agents"])
    for a in doc["agents"]:  # each habit taken away, on the same deals: what it earns, paired
        h = a["habits"]
        assert h["as_is"]["games"] == h["challenges"]["games"] == h["bluffs"]["games"] == 200
        for habit in ("challenges", "bluffs"):
            r = h[habit]
            assert r["earns"] == pytest.approx(h["as_is"]["win_rate"] - r["win_rate"])
            assert r["earns_low"] <= r["earns"] <= r["earns_high"]
    assert "**What the habits earn, in games.**" in text and "| 2-player agent | 2 | " in text
    assert "(2 players), its challenges: " in text and "(4 players), its bluffs: " in text
    (learner,) = doc["learners"]
    assert learner["role"] == "bluffer" and learner["play"]["challenge"]["n"] > 0 and learner["games"] >= 200
    assert "As the bluffer against `heuristic" in text
    assert "the best scripted choice there" in text and "the scripted bluffer at p=" in text  # vs the scripted cells
    proc = evaluate(*args, timeout=300)  # again: the finished learner is reused
    assert proc.returncode == 0 and "training learner" not in proc.stdout
    assert json.loads((data / "cells.json").read_text())["learners"][0]["win_rate"] == learner["win_rate"]
    shutil.rmtree(tmp_path / "learners")  # no run, and the data's rates were read from 200 games, not 300
    proc = evaluate(*args, "survey_games=300", "train_learners=false", timeout=300)
    assert proc.returncode == 0 and "training learner" not in proc.stdout
    assert "**Not every learner is here**" in report.read_text() and "b (bluffer against" in report.read_text()


def test_bad_config_fails_before_any_game(tmp_path):
    proc = evaluate("policies=[random, nosuch]", f"output={tmp_path}")
    assert proc.returncode == 2 and "unknown uno policy 'nosuch'" in proc.stderr
    proc = evaluate("seed=-1", f"output={tmp_path}")
    assert proc.returncode == 2 and "seed must be an integer from 0 to" in proc.stderr
    proc = evaluate("--config", str(tmp_path / "missing.yaml"))
    assert proc.returncode == 2 and "not found" in proc.stderr
    proc = evaluate("--config", "configs/eval/bluff_study.yaml", "challenge=[never, sometimes]")
    assert proc.returncode == 2 and "sometimes" in proc.stderr
    proc = evaluate("--config", "configs/eval/bluff_study.yaml", "agents=[{label: a, policy: heuristic, players: 11}]")
    assert proc.returncode == 2 and "agent 'a': classic UNO is for 2 to 10 players, got 11" in proc.stderr
    assert not any(tmp_path.iterdir())


def test_the_warm_up_compiles_every_kernel_a_tournament_steps_with():
    """evaluate.py compiles before its clock starts, so games/s never counts the compile."""
    from envs.compiled import kernels_cached, warm_up

    for game, players in (("uno", 3), ("tricks", None)):
        assert warm_up(game, players, {}) >= 0 and kernels_cached(game)


def _learner(role: str, target: dict, bluff: float | None, challenge: float, win: float) -> dict:
    def rate(r):
        return (
            {"rate": r, "low": r, "high": r, "n": 10_000}
            if r is not None
            else {"rate": None, "low": None, "high": None, "n": 0}
        )

    return {
        "role": role, "target": target, "players": 2, "games": 20_000, "win_rate": win,
        "ci_low": win - 0.007, "ci_high": win + 0.007, "gain": win - 0.5, "gain_low": win - 0.507,
        "gain_high": win - 0.493, "play": {"games": 20_000, "bluff": rate(bluff), "challenge": rate(challenge)},
    }  # fmt: skip


def test_the_learned_chapter_answers_in_plain_words_from_its_numbers():
    """The 'In short' lines follow the numbers: a learner that settles on bluffing flips the
    headline, and 'it pays' only with a gain; a challengers' trend is claimed only where the
    rates separate; a learner that met no such decision is left out."""
    from tournament.bluff_learners import learned_answer, scripted_comparisons

    cells = [
        {"players": 2, "challenge": rule, "bluff": p, "win_rate": w, "games": 40_000, "gain_low": -0.01}
        for rule, p, w in (("never", 0.0, 0.49), ("never", 0.5, 0.50), ("always", 0.5, 0.47), ("smart", 0.5, 0.48))
    ]
    honest = _learner("bluffer", {"name": "heuristic", "challenge": "never"}, 0.01, 0.0, 0.50)
    up = [_learner("challenger", {"name": "heuristic", "bluff": p}, 0.0, c, 0.53) for p, c in ((0.25, 0.2), (0.5, 0.6))]
    silent = _learner("bluffer", {"name": "heuristic", "challenge": "never"}, None, 0.0, 0.50)
    learners = [honest, *up, silent]
    compared = scripted_comparisons(learners, cells)
    assert [c["verdict"] for c in compared] == ["same", "same", "same"]  # 0.50 vs 0.50; 0.53 vs 1 - 0.47
    text = "\n".join(learned_answer([], learners, compared, cells=cells))
    assert "Bluffing does not pay for learned play either" in text and "more often as the bluffer bluffs" in text
    assert "0 of 3 learners do measurably better" in text and "Seldom is not never" not in text
    # a shipped agent whose own rare bluffs measurably earn it games qualifies the headline
    earns = {"games": 100_000, "win_rate": 0.58, "ci_low": 0.577, "ci_high": 0.583}
    habits = {
        "as_is": earns,
        "bluffs": {**earns, "earns": 0.003, "earns_low": 0.001, "earns_high": 0.005},
        "challenges": {**earns, "earns": -0.002, "earns_low": -0.004, "earns_high": 0.001},
    }
    agent = {"label": "2-player agent", **_learner("bluffer", {}, 0.012, 0.7, 0.5)["play"], "habits": habits}
    text = "\n".join(learned_answer([agent], learners, compared, cells=cells))
    assert "In win rate against `heuristic` on the same deals, its bluffs earn it +0.30 [+0.10, +0.50] points" in text
    assert "and its challenges -0.20 [-0.40, +0.10] points" in text
    assert "Seldom is not never: the shipped 2-player agent's own bluffs, 1.2% " in text
    # ...only where it survives the correction over the table's tests (Holm), as the study's other answers
    habits["bluffs"] |= {"earns": 0.0021, "earns_low": 0.0001, "earns_high": 0.0041}
    text = "\n".join(learned_answer([agent], learners, compared, cells=cells))
    assert "Seldom is not never" not in text
    from tournament.bluff_learners import habit_verdicts

    (bluffs, holds) = habit_verdicts([agent])["2-player agent", "bluffs"]
    assert not holds and bluffs.startswith("they earn it games by their own interval, not once the table's 2 tests")
    paying = _learner("bluffer", {"name": "heuristic", "challenge": "never"}, 0.4, 0.0, 0.52)
    down = [
        _learner("challenger", {"name": "heuristic", "bluff": p}, 0.0, c, 0.5) for p, c in ((0.25, 0.9), (1.0, 0.3))
    ]
    text = "\n".join(learned_answer([], [paying, *down], []))
    assert "A learner settles on bluffing, and it pays" in text and "have not settled on a rule" in text
    losing = _learner("bluffer", {"name": "heuristic", "challenge": "always"}, 0.4, 0.0, 0.45)
    never = [_learner("challenger", {"name": "heuristic", "bluff": p}, 0.0, 0.0, 0.5) for p in (0.25, 1.0)]
    text = "\n".join(learned_answer([], [losing, *never], []))
    assert "settles on bluffing, with no measurable gain" in text and "hardly ever" in text
    # a rate whose interval straddles the 5% mark: neither "does not pay" nor "settles on bluffing"
    near = _learner("bluffer", {"name": "heuristic", "challenge": "never"}, 0.06, 0.0, 0.50)
    near["play"]["bluff"] |= {"low": 0.038, "high": 0.093}
    text = "\n".join(learned_answer([], [near], []))
    assert "cannot tell whether it settles above or below" in text and "does not pay" not in text


def test_the_learned_chapter_says_how_often_each_shipped_agent_challenges():
    """An agent that seldom bluffs but challenges most Wild Draw Fours is not called 'honest' alone."""
    from tournament.bluff_learners import learned_answer

    def rate(r, half_width):
        return {"rate": r, "low": max(r - half_width, 0.0), "high": r + half_width, "n": 1000}

    def rates(bluff, challenge):
        return {"bluff": rate(bluff, 0.001), "challenge": rate(challenge, 0.01)}

    agents = [
        {"label": "2-player agent", **rates(0.009, 0.52)},
        {"label": "4-player agent", **rates(0.002, 0.0)},
        {"label": "bluffing agent", **rates(0.2, 0.3)},
    ]
    lines = learned_answer(agents, [], [])
    assert lines[0].startswith("- The shipped 2-player agent seldom bluffs and challenges more often than not: ")
    assert lines[1].startswith("- The shipped 4-player agent seldom bluffs and seldom challenges: ")
    assert lines[2].startswith("- The shipped bluffing agent bluffs and challenges at times: ")


def test_the_bluff_grid_and_survey_are_checked_before_any_game():
    from envs.config import read_yaml
    from tournament.bluff_study import BluffStudyConfig

    base = read_yaml("configs/eval/bluff_study.yaml")
    for key, value in (("bluff", [0, 0.0, 1.0]), ("table_sizes", []), ("challenge", ["never", "never"])):
        with pytest.raises(ValueError, match=f"{key} is a non-empty list without repeats"):
            BluffStudyConfig.from_mapping({**base, key: value})
    with pytest.raises(ValueError, match="survey_games is a positive number of games"):
        BluffStudyConfig.from_mapping({**base, "survey_games": 0})
    with pytest.raises(ValueError, match="habit_games is a positive number of games"):
        BluffStudyConfig.from_mapping({**base, "habit_games": True})

    from tournament import bluff_learners

    with pytest.MonkeyPatch.context() as patch:  # the versions the habits are measured with, checked too
        patch.setitem(bluff_learners.HABITS, "challenges", {"challenge": "sometimes"})
        with pytest.raises(ValueError, match="uno policy 'restrained': challenge='sometimes'; allowed: base, never"):
            BluffStudyConfig.from_mapping(base)


@pytest.mark.parametrize("study", ["bluff_study", "exploitability"])
def test_a_study_whose_report_cannot_be_written_stops_before_any_game(tmp_path, study):
    (tmp_path / "a_file").write_text("")
    args = [f"report={tmp_path / 'a_file' / 'report.md'}", f"data={tmp_path / 'data'}"]
    result = subprocess.run(
        [sys.executable, "evaluate.py", "--config", f"configs/eval/{study}.yaml", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and "report" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "data").exists()


def test_an_output_file_that_cannot_be_written_stops_the_tournament_before_any_game(tmp_path):
    (tmp_path / "tournament.csv").mkdir()  # a folder where the table goes
    result = subprocess.run(
        [sys.executable, "evaluate.py", "games=48", "batch=48", f"output={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and "tournament.csv" in result.stderr and "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tournament.csv"]  # nothing written


def test_overrides_that_replace_the_configs_results_say_so(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(f"players: 2\npolicies: [random, heuristic]\ngames: 48\nbatch: 48\noutput: {tmp_path / 'out'}\n")
    command = [sys.executable, "evaluate.py", "--config", str(config)]
    first = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0 and "replace the config's results" not in first.stdout
    again = subprocess.run([*command, "seed=1"], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "these overrides replace the config's results in" in " ".join(again.stdout.split())


def test_a_paired_difference_counts_a_deals_games_as_one_draw_where_they_move_together():
    """Given the deals, the interval is the larger of the plain one and the one clustered by deal."""
    from tournament.bluff_study import paired

    rng = np.random.default_rng(0)
    other = np.zeros(4000)
    deal = np.repeat(np.arange(1000), 4)
    together = np.repeat(rng.choice([-1.0, 1.0], 1000), 4)  # a deal's four games differ alike
    plain, clustered = paired(together, other), paired(together, other, deal)
    assert plain[0] == clustered[0]
    assert clustered[2] - clustered[0] == pytest.approx(2 * (plain[2] - plain[0]), rel=0.05)  # 4 games: sqrt 4
    apart = np.tile([1.0, -1.0], 2000)  # a deal's games cancel: the plain interval stands
    assert paired(apart, other, deal) == paired(apart, other)


def test_the_bluff_grids_cells_pair_game_by_game():
    """Every cell of a table size plays the same deals with a random stream per game, and a bluffer
    that tosses its coin at every decision draws its tie-breaks as the honest one does, so a game in
    which the bluffer at p=1/2 never bluffs is the honest bluffer's game, card for card; the win
    rates' intervals are clustered by deal."""
    from rich.console import Console

    from envs.config import read_yaml
    from tournament.bluff_study import BluffStudyConfig, play_scored, win_rate

    study = BluffStudyConfig.from_mapping({**read_yaml("configs/eval/bluff_study.yaml"), "games": 300, "batch": 64})
    quiet = Console(quiet=True)
    honest, bold = (play_scored(study.cell(2, "never", p), quiet) for p in (0.0, 0.5))
    np.testing.assert_array_equal(honest[3], bold[3])  # the same deals, in the same order
    never_bluffed = bold[0].events["wd4_bluffs"].sum(axis=1) == 0
    assert 0 < never_bluffed.sum() < never_bluffed.size
    same = (honest[0].decisions == bold[0].decisions) & (honest[2] == bold[2])
    assert same[never_bluffed].all() and not same.all()
    rate = win_rate(honest[2], honest[3])
    assert rate["games"] == 300 and rate["ci_low"] < rate["win_rate"] < rate["ci_high"]


def test_the_bluff_grids_verdict_is_bold_only_where_the_correction_keeps_one():
    """Gains whose intervals leave out 0 but none of which survive Holm's correction are said to
    cost "by the intervals alone", not in bold."""
    from tournament.bluff_study import findings

    rows = [
        {"players": 2, "challenge": "never", "bluff": p, "gain": -0.01, "gain_low": -0.0195, "gain_high": -0.0005}
        for p in (0.25, 0.5, 1.0)
    ]
    (line,) = findings(rows, [])
    assert "costs by the intervals alone" in line and "**costs**" not in line and "Holm: none" in line
    for r in rows:  # clear enough to survive the correction: bold
        r["gain_high"] = -0.008
    (line,) = findings(rows, [])
    assert "bluffing **costs**" in line


def test_an_unknown_study_is_named_with_the_studies_there_are(tmp_path):
    config = tmp_path / "study.yaml"
    config.write_text("study: bluf\n")
    proc = evaluate("--config", str(config))
    assert proc.returncode == 2 and "study must be one of ablation, bluff, exploitability, got 'bluf'" in proc.stderr


def test_the_survey_counts_whole_games_so_every_bluff_has_its_answer():
    """Every slot surveys the same number of whole games: a bluff waiting for its answer when the
    survey stopped was counted as not caught and the situations leaned towards early play, and
    dropping the games in play instead would keep the short ones."""
    from tournament.learned_bluffing import survey

    always = {"name": "heuristic", "challenge": "always"}
    events = survey({"name": "heuristic", "bluff": 1.0}, always, 2, {}, games=300, seed=3, batch=128)
    bluffed = events["bluff"]["bluffed"].astype(bool)
    assert events["games"] == 3 * 128 and bluffed.sum() > 20  # ceil(300 / 128) whole games in each slot
    assert events["bluff"]["caught"][bluffed].all()  # `always` answers every one (none is a last card)


def test_a_policy_breaking_the_rules_ends_the_command_with_its_name_not_a_traceback(tmp_path):
    """The local backend printed a traceback where the Ray backend says which shard failed."""
    (tmp_path / "badpol.py").write_text(
        "import numpy as np\n\n\nclass Bad:\n    def __init__(self, seed=None):\n        pass\n\n"
        "    def __call__(self, obs, mask):\n        return np.zeros(len(mask), np.int64)\n"
    )
    proc = subprocess.run(
        [sys.executable, "evaluate.py", "players=2", "games=20", "policies=[badpol:Bad, random]", "--no-files"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "PYTHONPATH": f"{tmp_path}:{ROOT}"},
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "error: policy 'badpol:Bad', game " in proc.stderr and "of the schedule" in proc.stderr
