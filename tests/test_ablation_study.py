"""Training ablations (issue 16): a field hidden from the network, the record a finished run
leaves, and the ablation study end to end (train, reuse the finished run, take from the data)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from rich.console import Console

from agents.network import ActorCritic, dropped_columns
from agents.ppo import PPOConfig
from envs import uno
from tournament.ablation import AblationConfig, run_study

TINY = [
    "num_games=64",
    "num_steps=8",
    "total_steps=1024",
    "hidden=[16]",
    "imitation_steps=0",
    "eval_every=0",
    "torch_threads=1",
    "device=cpu",
    "checkpoint_every=0",
]


def test_a_dropped_field_never_reaches_the_network():
    net = ActorCritic.for_game("uno", {}, [16], ["void_colours", "void_draws"])
    cols = dropped_columns(uno.OBS_NAMES, ["void_colours", "void_draws"])
    assert cols.size == 80 and all(uno.OBS_NAMES[i].startswith("void_") for i in cols)
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(rng.random((5, uno.OBS_SIZE)), dtype=torch.float32)
    other = obs.clone()
    other[:, cols] = torch.as_tensor(rng.random((5, cols.size)), dtype=torch.float32)
    mask = torch.ones(5, uno.NUM_ACTIONS, dtype=torch.bool)
    (a, va), (b, vb) = net(obs, mask), net(other, mask)
    assert torch.equal(a, b) and torch.equal(va, vb)
    seen = ActorCritic.for_game("uno", {}, [16])  # without drop_obs the same change is seen
    assert not torch.equal(seen(obs, mask)[0], seen(other, mask)[0])


def test_a_field_outside_the_layout_is_refused_with_the_fields_there_are():
    with pytest.raises(ValueError, match=r"drop_obs: no observation field 'voids'; fields: hand, top_card"):
        PPOConfig.from_mapping({"drop_obs": ["voids"]}).check()
    with pytest.raises(ValueError, match="drop_obs must be a list"):
        PPOConfig.from_mapping({"drop_obs": "void_draws"}).check()


def _config(tmp_path: Path, **kw) -> dict:
    return {
        "study": "ablation",
        "overrides": TINY,
        "runs": str(tmp_path / "runs"),
        "games": 200,
        "rows": [
            {"name": "base", "config": "configs/uno_2p_ppo.yaml", "baseline": True, "label": "base"},
            {"name": "hidden", "config": "configs/uno_2p_ppo.yaml", "overrides": ["drop_obs=[void_colours]"]},
        ],
        "report": str(tmp_path / "ablations.md"),
        "data": str(tmp_path / "data"),
        **kw,
    }


def test_the_study_trains_reuses_finished_runs_and_falls_back_on_its_data(tmp_path):
    console = Console(width=200, record=True)
    assert run_study(_config(tmp_path), console) == 0
    printed = console.export_text()
    assert "0 finished runs here, 0 from the report's data, 2 to train" in printed
    assert "drop_obs=[void_colours]" in printed  # a change is printed as it is, not read as console markup
    rows = json.loads((tmp_path / "data" / "rows.json").read_text())["rows"]
    assert [r["name"] for r in rows] == ["base", "hidden"] and all(r["games"] >= 200 for r in rows)
    assert rows[0]["delta"] is None and rows[1]["delta_low"] < rows[1]["delta"] < rows[1]["delta_high"]
    assert rows[1]["change"] == "drop_obs=[void_colours]" and rows[1]["obs_values"] == uno.OBS_SIZE
    record = json.loads((tmp_path / "runs" / "hidden" / "run.json").read_text())
    assert record["config"]["drop_obs"] == ["void_colours"] and record["decisions"] == 1024
    text = (tmp_path / "ablations.md").read_text()
    assert "| base | `` | 1,024 |" in text and "`drop_obs=[void_colours]`" in text
    assert "## Answer" in text and "points: " in text.split("## Answer")[1]  # the row against its baseline
    assert (tmp_path / "data" / "ablations.png").is_file() and (tmp_path / "data" / "rows.csv").is_file()

    console = Console(width=200, record=True)  # again: the finished runs are measured, not trained
    assert run_study(_config(tmp_path), console) == 0
    assert "2 finished runs here, 0 from the report's data, 0 to train" in console.export_text()
    measured = json.loads((tmp_path / "data" / "rows.json").read_text())["rows"]
    assert [r["win_rate"] for r in measured] == [r["win_rate"] for r in rows]  # the same agents, the same deals

    shutil.rmtree(tmp_path / "runs")  # a fresh clone: no runs, the report's data committed
    console = Console(width=200, record=True)
    assert run_study(_config(tmp_path, train=False), console) == 0
    assert "0 finished runs here, 2 from the report's data, 0 to train" in console.export_text()
    again = json.loads((tmp_path / "data" / "rows.json").read_text())["rows"]
    assert [r["win_rate"] for r in again] == [r["win_rate"] for r in rows]
    assert "from the data" in (tmp_path / "ablations.md").read_text()

    changed = _config(tmp_path, train=False)  # a row whose config changed is not in the data
    changed["rows"][1]["overrides"] = ["drop_obs=[void_draws]"]
    console = Console(width=200, record=True)
    assert run_study(changed, console) == 0
    assert "Not every row is here" in (tmp_path / "ablations.md").read_text()


def test_the_study_refuses_what_it_cannot_run(tmp_path):
    with pytest.raises(ValueError, match="every row needs its own name"):
        AblationConfig.from_mapping({**_config(tmp_path), "rows": [{"name": "a", "config": "x"}] * 2})
    with pytest.raises(ValueError, match="unknown row key"):
        AblationConfig.from_mapping({**_config(tmp_path), "rows": [{"name": "a", "config": "x", "seed": 1}]})
    with pytest.raises(ValueError, match="exploitability study"):
        bad = _config(
            tmp_path, overrides=[], rows=[{"name": "br", "config": "configs/best_response/uno_2p_random.yaml"}]
        )
        run_study(bad, Console(record=True))
    with pytest.raises(ValueError, match=r"against names the row it is compared to, one of \['base'\], got 'nosuch'"):
        AblationConfig.from_mapping(
            {
                **_config(tmp_path),
                "rows": [*_config(tmp_path)["rows"][:1], {"name": "b", "config": "x", "against": "nosuch"}],
            }
        )
    from tournament.ablation import plan

    base = _config(tmp_path)["rows"][0]
    again = {"name": "again", "config": "configs/uno_2p_ppo.yaml", "replicate": True, "overrides": ["seed=2"]}
    assert [r.replicate for r in plan(AblationConfig.from_mapping(_config(tmp_path, rows=[base, again])))] == [
        False,
        True,
    ]
    tweak = {**again, "overrides": ["seed=2", "ent_coef=0.001"]}
    with pytest.raises(ValueError, match=r"row again: replicate: true repeats base's recipe .* ent_coef differ"):
        plan(AblationConfig.from_mapping(_config(tmp_path, rows=[base, tweak])))
    with pytest.raises(ValueError, match=r"opponent: unknown uno policy 'bogus'"):  # before any row trains
        plan(AblationConfig.from_mapping({**_config(tmp_path), "opponent": "bogus"}))
    live = tmp_path / "runs" / "base"  # a row still training side by side: not replaced under it
    live.mkdir(parents=True)
    (live / "checkpoint.pt").write_bytes(b"")
    with pytest.raises(RuntimeError, match="holds an unfinished run .* --resume"):
        run_study(_config(tmp_path), Console(record=True))
    assert (live / "checkpoint.pt").is_file()
    # measurement settings and outputs are checked before any row trains (hours)
    for key, value in (("games", "abc"), ("games", 1.5), ("seed", -1), ("seed", True)):
        with pytest.raises(ValueError, match=f"{key} must be an integer from"):
            AblationConfig.from_mapping({**_config(tmp_path), key: value})
    with pytest.raises(ValueError, match="train must be true or false, got 'no'"):
        AblationConfig.from_mapping({**_config(tmp_path), "train": "no"})
    with pytest.raises(ValueError, match="row b: baseline must be true or false"):
        AblationConfig.from_mapping({**_config(tmp_path), "rows": [{"name": "b", "config": "x", "baseline": "yes"}]})
    with pytest.raises(ValueError, match="row b: overrides must be a list of key=value strings"):
        AblationConfig.from_mapping(
            {**_config(tmp_path), "rows": [{"name": "b", "config": "x", "overrides": "seed=2"}]}
        )
    (tmp_path / "a_file").write_text("")
    with pytest.raises(ValueError, match="report"):
        run_study({**_config(tmp_path), "report": str(tmp_path / "a_file" / "ablations.md")}, Console(record=True))
    assert not (tmp_path / "runs" / "again").exists()


def test_a_row_is_compared_to_the_row_it_names_else_its_tables_baseline():
    from tournament.ablation import answer, compare

    def row(name, win_rate, **kw):
        return {
            "name": name,
            "label": name,
            "game": "uno",
            "players": 2,
            "games": 20000,
            "win_rate": win_rate,
            "decisions": 1e7,
            "baseline": False,
            **kw,
        }

    rows = [row("hidden", 0.50, baseline=True), row("shipped", 0.52), row("tweak", 0.52, against="shipped")]
    compare(rows)
    assert [r["compared_to"] for r in rows] == [None, "hidden", "shipped"]
    assert abs(rows[1]["delta"] - 0.02) < 1e-12 and rows[2]["delta"] == 0.0
    text = answer(rows)
    assert "**better**" in text[0] and "for 'hidden'" in text[0]
    assert "for 'shipped'" in text[1] and "no difference that these games can tell" in text[1]
    assert len(text) == 2  # no replicate row: nothing said about run-to-run spread
    rows.append(row("shipped, seed 2", 0.507, against="shipped", replicate=True))
    compare(rows)
    text = answer(rows)
    assert text[-1].startswith("Two runs of one recipe (one pair of runs): 'shipped, seed 2' (classic UNO, 2 players)")
    assert "lands -1.3 [" in text[-1] and "points from 'shipped'" in text[-1] and "within about 1.3 points" in text[-1]
    # 'shipped' is better than 'hidden' by these games, by less than two runs of one recipe differ
    assert "**better** by these games, but its interval ends within the 1.3 points two runs differ by" in text[0]
    # a row trained on an older observation layout than the row it is compared to says so
    rows[1]["obs_values"], rows[0]["obs_values"] = 409, 449
    assert "(trained on 409 observation values, 'hidden' on 449:" in answer(rows)[0]
    assert "observation values" not in answer(rows)[1]  # 'tweak' and 'shipped' share a layout (none given)


def test_a_verdict_that_does_not_survive_holms_correction_says_so():
    from tournament.ablation import answer, compare

    def row(name, win_rate, **kw):
        base = {"name": name, "label": name, "game": "uno", "players": 4, "games": 20000, "win_rate": win_rate}
        return base | {"decisions": 1e7, "baseline": False, **kw}

    rows = [row("base", 0.25, baseline=True), row("clear", 0.27), row("barely", 0.2587)]
    rows += [row(f"same{i}", 0.25) for i in range(8)]  # ten comparisons in all
    compare(rows)
    text = answer(rows)
    assert "**better**" in text[0] and "Holm" not in text[0]  # +2.0 points: z about 4.6
    assert "**better**" in text[1] and "not once the study's 10 comparisons are corrected for (Holm: p = " in text[1]


def test_the_shipped_ablation_config_plans():
    from envs.config import read_yaml
    from tournament.ablation import plan

    rows = plan(AblationConfig.from_mapping(read_yaml("configs/eval/ablations.yaml")))
    tables = {(r.cfg.game, r.cfg.players) for r in rows}
    assert sum(r.baseline for r in rows) == len(tables) == 3  # one baseline per table: UNO 2p, UNO 4p, tricks
    assert {(r.cfg.game, r.cfg.players) for r in rows if r.baseline} == tables
    # no row trains another's config, but for one on purpose: the 2-player recipe trained again
    # after the observation grew (409 -> 449 values), as the colour row's baseline
    by_digest: dict[str, list[str]] = {}
    for r in rows:
        by_digest.setdefault(r.digest, []).append(r.name)
    assert [names for names in by_digest.values() if len(names) > 1] == [["history_10m", "history449_10m"]]


def test_a_study_writes_none_of_its_outputs_when_one_cannot_be_written(tmp_path):
    import dataclasses as dc

    from tournament.report import ROWS_CSV, ROWS_JSON, write_study

    @dc.dataclass
    class Study:
        name: str = "s"

    (tmp_path / ROWS_JSON).write_text("earlier")
    (tmp_path / ROWS_CSV).mkdir()  # a folder where the CSV goes
    with pytest.raises(ValueError, match="rows.csv"):
        write_study(tmp_path, Study(), [{"a": 1}], "a\n1\n", tmp_path / "report.md", "# report")
    assert (tmp_path / ROWS_JSON).read_text() == "earlier" and not (tmp_path / "report.md").exists()
