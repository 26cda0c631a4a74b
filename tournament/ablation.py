"""What helps a learner? Training ablations, one trained agent per row, measured on the same deals.

Each row is a training config (one of ``configs/*_ppo.yaml``) with the study's and the row's
``key=value`` overrides: the change it tests. The study trains a row with ``train.py`` unless
its run directory already holds a finished run of the same config (``run.json`` with the same
``config_sha256``, :mod:`agents.run_record`), so the long trainings can run beforehand, side by
side. Then every row's agent plays the study's ``opponent`` on the same duplicate deals
(``games``, ``seed``): the rows differ in the recipe only, and their win rates compare. A row
with no run on this machine whose config is the one the report's data (``data``/rows.json)
was made of is taken from that data and marked so (``runs/`` is not committed, the report's
data is): a fresh clone regenerates the report by training only the rows whose configs changed.
Rows trained on an older observation layout say so (the ``obs`` column): today's code cannot
train them again, only keep their measurement.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agents.run_record import CHECKPOINT, RUN_RECORD
from envs.config import MAX_SEED, check_flags, check_overrides
from envs.core import dataclass_from_mapping
from envs.games import game as game_info
from tournament.config import MAX_GAMES
from tournament.report import ROWS_CSV, ROWS_JSON, check_outputs, reported_rows, save_figure, write_study
from tournament.stats import difference, holm, p_from_interval

ROW_KEYS = ("name", "label", "config", "overrides", "baseline", "against", "replicate")
PLOT = "ablations.png"  # beside the rows in the data folder


@dataclasses.dataclass
class AblationConfig:
    """The study's rows and outputs (``configs/eval/ablations.yaml``)."""

    study: str = "ablation"
    # Each row: {name: <run name>, label: <the change, in words>, config: <training config>,
    # overrides: [key=value, ...], baseline: true (the row the others of its table are compared to),
    # against: <row name> (compare this row with that one instead: a change to another row's recipe),
    # replicate: true (the recipe of the row it is compared to, another seed: how far two runs of
    # one recipe land apart, which the report sets beside every other difference)}
    rows: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    overrides: list[str] = dataclasses.field(default_factory=list)  # for every row, before the row's own
    runs: str = "runs/ablate"  # every row's log_dir
    train: bool = True  # false: report the rows that are done, list the others with their command
    opponent: Any = "heuristic"  # every agent plays this policy spec...
    games: int = 20000  # ...for this many games on duplicate deals...
    seed: int = 7  # ...dealt from this seed (the same deals for every row of a table)
    report: str = "docs/ablations.md"
    data: str = "docs/ablations"
    command: str = "python evaluate.py --config configs/eval/ablations.yaml"  # evaluate.py: the --config read

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> AblationConfig:
        config = dataclass_from_mapping(cls, data, "ablation study key(s)")
        if config.study != "ablation":
            raise ValueError("the ablation study is 'study: ablation'")
        if not config.rows:
            raise ValueError("rows: list the training runs to compare, e.g. [{name: base, config: configs/...yaml}]")
        for row in config.rows:
            if (
                not isinstance(row, dict)
                or not isinstance(row.get("config"), str)
                or not isinstance(row.get("name"), str)
            ):
                raise ValueError(
                    f"a row is a mapping with 'name' (its run) and 'config' (a training config), got {row!r}"
                )
            unknown = sorted(set(row) - set(ROW_KEYS))
            if unknown:
                raise ValueError(f"unknown row key(s) {', '.join(unknown)}; allowed: {', '.join(ROW_KEYS)}")
            check_flags(row, ("baseline", "replicate"), f"row {row['name']}: ")
            check_overrides(row.get("overrides", []), f"row {row['name']}: overrides")
        check_flags(vars(config), ("train",))
        check_overrides(config.overrides, "overrides")
        names = [row["name"] for row in config.rows]
        if len(set(names)) != len(names):
            raise ValueError(f"every row needs its own name (it names the run), got {names}")
        for row in config.rows:
            if "against" in row and (row["against"] not in names or row["against"] == row["name"]):
                raise ValueError(
                    f"row {row['name']}: against names the row it is compared to, one of "
                    f"{[n for n in names if n != row['name']]}, got {row['against']!r}"
                )
        for name, low, high in (("games", 1, MAX_GAMES), ("seed", 0, MAX_SEED)):  # before hours of training
            value = getattr(config, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an integer from {low} to {high:,}, got {value!r}")
        return config

    def row_args(self, row: dict[str, Any]) -> list[str]:
        """``train.py`` arguments of a row: its config, the study's overrides, the row's, its run."""
        extra = [*self.overrides, *row.get("overrides", []), f"run_name={row['name']}", f"log_dir={self.runs}"]
        return ["--config", row["config"], *extra]


@dataclasses.dataclass
class Row:
    name: str
    label: str
    change: str  # the row's own overrides
    baseline: bool
    against: str | None  # the row it is compared to, if not its table's baseline
    replicate: bool  # the same recipe as the row it is compared to (another seed)
    args: list[str]
    cfg: Any
    run_dir: Path
    digest: str
    finished: dict[str, Any] | None  # the run's run.json (same config)
    reported: dict[str, Any] | None  # else the report data's row of the same config


def plan(config: AblationConfig) -> list[Row]:
    """Every row's training config, checked before anything trains, with what is already done."""
    from agents.best_response import config_digest
    from agents.registry import check_spec
    from agents.run_record import read_run_record
    from train import load_training_config

    reported = reported_rows(Path(config.data))
    rows = []
    for row in config.rows:
        args = config.row_args(row)
        try:
            cfg = load_training_config(Path(row["config"]), args[2:])
        except (ValueError, ImportError, OSError) as err:
            raise ValueError(f"row {row['name']}: {err}") from None
        if cfg.target is not None:
            raise ValueError(f"row {row['name']}: a best-response config (target:) belongs in the exploitability study")
        try:  # the opponent every agent plays, checked at each row's table before any row trains
            check_spec(cfg.game, config.opponent, rules=cfg.rules, players=cfg.players)
        except (ValueError, TypeError, ImportError, OSError) as err:
            raise ValueError(f"opponent: {err}") from None
        run_dir = Path(cfg.log_dir) / cfg.run_name
        digest = config_digest(cfg)
        done = read_run_record(run_dir)
        finished = done if done and done["config_sha256"] == digest and Path(done["agent"]).is_file() else None
        earlier = reported.get((row["name"], digest)) if finished is None else None
        label = str(row.get("label") or row["name"])
        change = " ".join(row.get("overrides", []))
        rows.append(
            Row(
                row["name"],
                label,
                change,
                bool(row.get("baseline")),
                row.get("against"),
                bool(row.get("replicate")),
                args,
                cfg,
                run_dir,
                digest,
                finished,
                earlier,
            )
        )
    for row in rows:
        if row.replicate:
            _check_replicate(row, rows)
    return rows


def _check_replicate(row: Row, rows: list[Row]) -> None:
    """A replicate row must train the recipe of the row it is compared to, another seed: any
    other difference would pass a change off as a run's luck."""
    from agents.best_response import PLACE_KEYS

    table = (row.cfg.game, row.cfg.players)
    ref = next(
        (r for r in rows if r.name == row.against)
        if row.against
        else (r for r in rows if r.baseline and (r.cfg.game, r.cfg.players) == table),
        None,
    )
    if ref is None or ref is row:
        raise ValueError(f"row {row.name}: replicate: true needs a row to repeat (against, or its table's baseline)")
    skip = {*PLACE_KEYS, "seed"}
    mine, theirs = row.cfg.to_dict(), ref.cfg.to_dict()
    differ = sorted(k for k in mine if k not in skip and mine[k] != theirs.get(k))
    if differ:
        raise ValueError(
            f"row {row.name}: replicate: true repeats {ref.name}'s recipe with another seed, but "
            f"{', '.join(differ)} differ; only seed may"
        )


def _minutes(row: dict[str, Any]) -> str:
    """A row's training minutes; with ``+`` where only those since a resumed update are known."""
    since = row.get("minutes_from_update", 0)
    return f"{row['minutes']:.0f}" + (f"+ (from update {since})" if since else "")


def _millions(decisions: int, digits: int = 0) -> str:
    """Decisions in millions (``10M``, ``10.0M``); a run under a million by its count (``32,768``)."""
    return f"{decisions / 1e6:.{digits}f}M" if decisions >= 1e6 else f"{decisions:,}"


def _measured_alike(config: AblationConfig, earlier: dict[str, Any] | None) -> bool:
    """A reported row stands for today's only if it was measured the same way (opponent, games, seed)."""
    if earlier is None:
        return False
    return (earlier.get("opponent"), earlier.get("games"), earlier.get("seed")) == (
        _spec(config.opponent),
        config.games,
        config.seed,
    )


def measure(config: AblationConfig, row: Row, agent: str, console: Console) -> dict[str, Any]:
    """The row's agent against the study's opponent on the study's deals."""
    import torch

    from agents.registry import spec_label
    from tournament.eval_opponents import evaluate_policy

    saved = torch.load(agent, map_location="cpu", weights_only=False)
    cfg = dataclasses.replace(row.cfg, eval_opponents=[config.opponent])
    console.print(escape(f"  {row.label}: against {spec_label(config.opponent)}, {config.games:,} games"))
    result = evaluate_policy(cfg, {"name": "agent", "checkpoint": agent}, seed=config.seed, games=config.games)[0]
    return {
        **{k: result[k] for k in ("games", "win_rate", "ci_low", "ci_high")},
        "obs_values": int(saved["obs_dim"]),
        "agent_sha256": saved.get("sha256", ""),
    }


def run_study(data: dict[str, Any], console: Console) -> int:
    """Train, reuse or take from the data every row; measure; write the report, JSON, CSV, plot."""
    from train import main as train_main

    config = AblationConfig.from_mapping(data)
    check_outputs(config.report, config.data, files=(ROWS_JSON, ROWS_CSV, PLOT))
    rows = plan(config)
    from_data = [r for r in rows if r.finished is None and _measured_alike(config, r.reported)]
    todo = [r for r in rows if r.finished is None and r not in from_data]
    console.print(
        f"ablation study: {len(rows)} rows, {sum(r.finished is not None for r in rows)} finished runs here, "
        f"{len(from_data)} from the report's data, {len(todo)} to train"
        + ("" if config.train else " (train: false: left out)")
    )
    results, missing = [], []
    for i, row in enumerate(rows, 1):
        console.print(f"[bold]row {i}/{len(rows)}[/]: " + escape(f"{row.name} ({row.label}), run {row.run_dir}"))
        common = {
            "name": row.name,
            "label": row.label,
            "baseline": row.baseline,
            "against": row.against,
            "replicate": row.replicate,
        }
        common["config_sha256"] = row.digest
        common |= {"game": row.cfg.game, "players": row.cfg.players, "change": row.change}
        if row in from_data:
            results.append({**row.reported, **common, "reused": "report"})
            console.print(f"  taken from {Path(config.data) / ROWS_JSON} (same config, {row.reported['finished']})")
            continue
        if row.finished is None:
            if not config.train:
                console.print("  no finished run here and not trained (train: false): left out")
                missing.append(row)
                continue
            if (row.run_dir / RUN_RECORD).is_file():
                raise RuntimeError(
                    f"{row.run_dir} holds a finished run of another config (its run.json's config_sha256 is not "
                    f"this row's): move or delete the folder, or give the row another name; then run the study again"
                )
            if (row.run_dir / CHECKPOINT).is_file():
                raise RuntimeError(
                    f"{row.run_dir} holds an unfinished run (checkpoint.pt, no run.json of this config): it may "
                    f"still be training. Let it finish, continue it with python train.py {' '.join(row.args)} "
                    f"--resume {row.run_dir / CHECKPOINT}, or delete the folder; then run the study again"
                )
            console.print(
                "[bold]training[/] " + escape(f"{row.name}: python train.py {' '.join(row.args)} --overwrite")
            )
            code = train_main([*row.args, "--overwrite"])
            from agents.run_record import read_run_record

            row.finished = read_run_record(row.run_dir)
            if code != 0 or row.finished is None or row.finished["config_sha256"] != row.digest:
                raise RuntimeError(f"training {row.name} did not finish (exit code {code})")
        done = row.finished
        results.append(
            {
                **common,
                **measure(config, row, done["agent"], console),
                "decisions": done["decisions"],
                "minutes": done["minutes"],
                # > 0: the run was resumed from a checkpoint that kept no minutes, counted from that update
                "minutes_from_update": done.get("minutes_from_update", 0),
                "finished": done["finished"],
                "opponent": _spec(config.opponent),
                "seed": config.seed,
                "reused": "run",
            }
        )
    if not results:
        raise ValueError("no row has a finished run to report: train the rows first (train: true)")
    compare(results)
    folder = Path(config.data)
    console.print(study_table(results))
    plot = plot_rows(results, folder / PLOT, config)
    report = Path(config.report)
    text = markdown(config, results, plot, report, missing)
    written = write_study(folder, config, results, rows_csv(results), report, text)
    console.print(f"wrote {', '.join(map(str, written))}, {plot}")
    return 0


def reference(r: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The row ``r`` is compared to: the one it names (``against``), else its table's baseline."""
    if r.get("against"):
        return next((b for b in results if b["name"] == r["against"]), None)
    return next((b for b in results if b["baseline"] and (b["game"], b["players"]) == (r["game"], r["players"])), None)


def compare(results: list[dict[str, Any]]) -> None:
    """Each row's difference to the row it is compared to, with a 95% interval: the two rows'
    deal-clustered standard errors (read from their intervals, :func:`tournament.stats.difference`)
    combined as if independent; see the report's note on shared deals."""
    for r in results:
        base = reference(r, results)
        r["compared_to"] = base["name"] if base is not None and base is not r else None
        if base is None or base is r:
            r["delta"] = r["delta_low"] = r["delta_high"] = None
            continue
        r["delta"], r["delta_low"], r["delta_high"] = difference(r, base)


def _spec(spec: Any) -> str:
    from agents.registry import spec_label

    return spec_label(spec)


def _table(r: dict[str, Any]) -> str:
    return game_info(r["game"]).describe_table(r["players"])


def _delta(r: dict[str, Any], results: list[dict[str, Any]]) -> str:
    if r["delta"] is None:
        if r["baseline"]:
            return "baseline"
        return f"({r['against']}: not here)" if r.get("against") else ""
    base = next(b for b in results if b["name"] == r["compared_to"])
    against = "" if base["baseline"] and not r.get("against") else f" vs {base['label']}"
    return f"{100 * r['delta']:+.1f} [{100 * r['delta_low']:+.1f}, {100 * r['delta_high']:+.1f}]{against}"


def study_table(results: list[dict[str, Any]]) -> Table:
    table = Table(title="training ablations: win rate against the opponent on the same deals")
    for col in ("table", "row", "change", "decisions", "obs", "win rate [95% CI]", "difference, points"):
        table.add_column(col)
    for r in results:
        table.add_row(
            _table(r),
            escape(r["label"]),
            escape(r["change"] or "(the config as it is)"),
            _millions(r["decisions"], 1),
            str(r["obs_values"]),
            f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
            _delta(r, results),
        )
    return table


def rows_csv(results: list[dict[str, Any]]) -> str:
    keys = [
        "name",
        "label",
        "game",
        "players",
        "change",
        "decisions",
        "obs_values",
        "games",
        "win_rate",
        "ci_low",
        "ci_high",
    ]
    keys += ["compared_to", "delta", "delta_low", "delta_high", "minutes", "reused", "config_sha256"]
    out = io.StringIO()
    writer = csv.DictWriter(out, keys, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(results)
    return out.getvalue()


def plot_rows(results: list[dict[str, Any]], path: Path, config: AblationConfig) -> Path:
    """One panel per table: each row's win rate with its 95% interval, the baseline's dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = list(dict.fromkeys((r["game"], r["players"]) for r in results))
    heights = [sum((r["game"], r["players"]) == t for r in results) for t in tables]
    fig, axes = plt.subplots(len(tables), 1, figsize=(10, 1.2 + 0.45 * sum(heights) + 0.8 * len(tables)), squeeze=False)
    for ax, (game, players) in zip(axes[:, 0], tables, strict=True):
        rows = [r for r in results if (r["game"], r["players"]) == (game, players)]
        y = list(range(len(rows)))[::-1]
        for yi, r in zip(y, rows, strict=True):
            ax.errorbar(
                r["win_rate"],
                yi,
                xerr=[[r["win_rate"] - r["ci_low"]], [r["ci_high"] - r["win_rate"]]],
                fmt="o",
                color="C1" if r["baseline"] else "C0",
                capsize=3,
            )
            if r["baseline"]:
                ax.axvline(r["win_rate"], color="grey", linestyle="--", linewidth=1)
        ax.set_yticks(y, [f"{r['label']} ({_millions(r['decisions'])})" for r in rows], fontsize=8)
        ax.set_title(f"{game_info(game).describe_table(players)}: against {_spec(config.opponent)}", fontsize=9)
        ax.set_xlabel(f"win rate, {config.games:,} games on duplicate deals (95% CI)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, path)


def answer(results: list[dict[str, Any]]) -> list[str]:
    """Each row against the row it is compared to, in words: a difference only where the interval
    says so, and marked where it does not survive Holm's correction over the study's comparisons."""
    lines = []
    adjusted = holm_adjusted(results)
    for r in results:
        if r["delta"] is None:
            if not r["baseline"]:
                lines.append(f"- {_table(r)}, {r['label']}: the row it is compared to is not here, no comparison.")
            continue
        lo, hi = 100 * r["delta_low"], 100 * r["delta_high"]
        verdict = "**better**" if lo > 0 else "**worse**" if hi < 0 else "no difference that these games can tell"
        spread, elsewhere = table_spread(r, results)
        if spread is not None and not r.get("replicate") and 0 < (lo if lo > 0 else -hi) < spread:
            verdict += f" by these games, but its interval ends within the {spread:.1f} points two runs differ by"
            verdict += " (at another table: this one has no replicate)" if elsewhere else ""
        raw = p_from_interval(r["delta"], r["delta_low"], r["delta_high"])
        if (lo > 0 or hi < 0) and raw < 0.05 <= adjusted.get(r["name"], 0.0):  # overturned by the correction
            verdict += (
                f"; not once the study's {len(adjusted)} comparisons are corrected for (Holm: "
                f"p = {adjusted[r['name']]:.2g})"
            )
        base = next(b for b in results if b["name"] == r["compared_to"])
        layouts = r.get("obs_values"), base.get("obs_values")
        if None not in layouts and layouts[0] != layouts[1]:  # a layout changed between the two trainings
            verdict += (
                f" (trained on {r['obs_values']} observation values, '{base['label']}' on {base['obs_values']}: "
                "the difference holds the layout's and the retraining's luck too)"
            )
        lines.append(
            f"- {_table(r)}, {r['label']} ({_millions(r['decisions'])} decisions): {r['win_rate']:.3f} against "
            f"{base['win_rate']:.3f} for '{base['label']}' ({_millions(base['decisions'])}), "
            f"{100 * r['delta']:+.1f} [{lo:+.1f}, {hi:+.1f}] points: {verdict}."
        )
    if not lines:
        return ["- no row has the row it is compared to here: nothing to compare yet."]
    return lines + run_to_run(results)


def holm_adjusted(results: list[dict[str, Any]]) -> dict[str, float]:
    """Each compared row's p-value of "no difference", Holm-adjusted over the study's comparisons
    (replicate rows measure the run-to-run spread and are not among them)."""
    compared = [r for r in results if r["delta"] is not None and not r.get("replicate")]
    p = [p_from_interval(r["delta"], r["delta_low"], r["delta_high"]) for r in compared]
    return {r["name"]: q for r, q in zip(compared, holm(p), strict=True)}


def _replicates(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The replicate rows compared with the run they repeat."""
    return [r for r in results if r.get("replicate") and r["delta"] is not None]


def replicate_spread(results: list[dict[str, Any]]) -> float | None:
    """The largest difference, in points, between a replicate row and the run of the recipe it
    repeats (None: no replicate row)."""
    pairs = _replicates(results)
    return max(abs(100 * r["delta"]) for r in pairs) if pairs else None


def table_spread(r: dict[str, Any], results: list[dict[str, Any]]) -> tuple[float | None, bool]:
    """How far two runs of one recipe land apart (the study's largest replicate difference: one
    pair per table is too few to trust alone), and whether ``r``'s table has no replicate of its own."""
    here = [x for x in results if (x["game"], x["players"]) == (r["game"], r["players"])]
    return replicate_spread(results), replicate_spread(here) is None


def run_to_run(results: list[dict[str, Any]]) -> list[str]:
    """What the replicate rows say about single runs: how far two runs of one recipe land apart
    (the intervals above count the games' noise, not the training run's)."""
    spread = replicate_spread(results)
    if spread is None:
        return []
    labels = {r["name"]: r["label"] for r in results}
    pairs = _replicates(results)
    each = "; ".join(
        f"'{r['label']}' ({_table(r)}) lands {100 * r['delta']:+.1f} [{100 * r['delta_low']:+.1f}, "
        f"{100 * r['delta_high']:+.1f}] points from '{labels[r['compared_to']]}'"
        for r in pairs
    )
    runs = "one pair of runs" if len(pairs) == 1 else f"{len(pairs)} pairs of runs"
    return [
        "",
        f"Two runs of one recipe ({runs}): {each}. The intervals above count the noise of the games, not "
        f"of the training run, so a verdict whose interval ends within about {spread:.1f} points of zero (the "
        "largest of these differences; marked so above: within the points two runs differ by, and where the "
        "row's table has no replicate of its own, that too) is a reason to try more seeds, not a finding. "
        "Each interval is at 95% on its own; a verdict that "
        f"does not survive Holm's correction over the study's {len(holm_adjusted(results))} comparisons says so.",
    ]


def markdown(
    config: AblationConfig, results: list[dict[str, Any]], plot: Path, report: Path, missing: list[Row]
) -> str:
    import os

    link = os.path.relpath(plot, report.parent)
    out = [
        "# What helps a learner? Training ablations",
        "",
        f"Generated by `{config.command}`; every number below comes from that run. Each row is a training "
        "run (`python train.py --config <config> <change>`, the study's overrides first: "
        f"`{' '.join(config.overrides) or 'none'}`) whose agent then plays `{_spec(config.opponent)}` on the same "
        f"{config.games:,} games on duplicate deals (seed {config.seed}, every seating), so the rows of a table "
        "differ in the recipe (and in the luck of each training run: see the end of the answer). A finished run "
        "of the same config (`runs/.../run.json`, same `config_sha256`) is "
        "measured, not trained again; a row with no run on this machine whose config is the one this report's "
        "data holds is taken from that data ('from the data').",
        "",
        "Each row is compared to its table's baseline, or to the row it names ('vs ...': a change to that row's "
        "recipe). The interval combines the two rows' standard errors as if independent, each row's "
        "clustered by deal as its own interval is (its half-width over 1.96); the rows also share "
        "their deals, which in classic UNO makes it conservative (a deal's games are negatively correlated "
        "there), while in the trick game, whose deals weigh more, it may still be somewhat narrow. "
        "'obs' is the observation size the agent was trained on (a verdict between "
        "rows trained on different layouts says so); `drop_obs=[...]` trains today's layout with the named "
        "fields hidden (the network sees zeros there).",
        "",
    ]
    out += ["## Answer", "", *answer(results), ""]
    if missing:
        out += [
            "**Not every row is here** (no finished run, `train: false`): "
            + "; ".join(f"{r.name} (`python train.py {' '.join(r.args)}`)" for r in missing),
            "",
        ]
    for table in dict.fromkeys((r["game"], r["players"]) for r in results):
        rows = [r for r in results if (r["game"], r["players"]) == table]
        out += [
            f"## {game_info(table[0]).describe_table(table[1])}",
            "",
            "| row | change | decisions | obs | win rate [95% CI] | difference, points [95% CI] | minutes | run |",
            "|---|---|---:|---:|---|---|---:|---|",
        ]
        for r in rows:
            out.append(
                f"| {r['label']} | `{r['change']}` | {_millions(r['decisions'], 1)} | {r['obs_values']} | "
                f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {_delta(r, results)} | "
                f"{_minutes(r)} | "
                f"{'from the data' if r['reused'] == 'report' else 'measured'} |"
            )
        out.append("")
    out += [
        f"![ablations]({link})",
        "",
        f"Data: `{Path(config.data) / ROWS_JSON}`, `{Path(config.data) / ROWS_CSV}`.",
        "",
    ]
    return "\n".join(out)
