"""A tournament's summary as a terminal leaderboard, JSON, CSV and PNG plots."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from envs.atomic import check_file_writable, check_writable, json_ready, save_figure, write_atomically
from envs.games import game as game_info
from tournament.tallies import tally_of


def _tables(summary: dict[str, Any]) -> str:
    tables = summary.get("tables", 1)
    return "the table" if tables == 1 else f"{tables} tables"


def leaderboard(summary: dict[str, Any]) -> Table:
    """Entrants sorted by win rate, with intervals, points, ratings and (UNO) Wild Draw Four play."""
    rows = sorted(summary["entrants"], key=lambda r: -r["win_rate"])
    ratings = {r["entrant"]: r for r in summary.get("ratings", [])}
    game = summary["game"]
    sides = game_info(game).sides(summary["players"])
    what = "teams" if game_info(game).teams else f"{summary['players']} players"
    table = Table(
        title=f"{game}: {what}, {summary['games']:,} games ({summary['deals']:,} duplicate "
        f"deal{'s' * (summary['deals'] != 1)} x {summary['games_per_deal']} games: {_tables(summary)} in every "
        f"seating), fair share {1 / sides:.3f}"
    )
    tally = tally_of(game)
    columns = ["#", "entrant", "games", "win rate", "95% CI", *tally.columns(rows)]
    if ratings:
        columns.append("OpenSkill mu ± sigma (order sd)")
        table.caption = _ratings_caption(summary["ratings"])
    for c in columns:
        table.add_column(c, justify="left" if c == "entrant" else "right")
    for rank, row in enumerate(rows, 1):
        cells = [
            str(rank),
            row["entrant"],
            f"{row['games']:,}",
            f"{row['win_rate']:.3f}",
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]",
        ]
        cells += tally.cells(row)
        if ratings:
            r = ratings.get(row["entrant"])
            cells.append(f"{r['mu']:.2f} ± {r['sigma']:.2f} ({r.get('mu_spread', 0.0):.2f})" if r else "-")
        table.add_row(*cells)
    return table


def _ratings_caption(ratings: list[dict[str, Any]]) -> str:
    """What the ratings column is: OpenSkill rates games one at a time, so the order counts."""
    orders = ratings[0].get("orders", 1) if ratings else 1
    return (
        f"OpenSkill mu, sigma: means over {orders} orders of the games (rating_orders); "
        "order sd: the sd of mu across them"
    )


def head_to_head_table(summary: dict[str, Any]) -> Table | None:
    h2h = summary.get("head_to_head")
    if not h2h:
        return None
    labels = h2h["labels"]
    table = Table(  # the p-value: an even score's, from the interval's deal-clustered error (stats.head_to_head)
        title="head to head: row's score against column (p of an even score, deal-clustered as the 95% "
        "intervals, Holm-adjusted over the pairs)"
    )
    table.add_column("")
    for label in labels:
        table.add_column(label, justify="right")
    for i, label in enumerate(labels):
        cells = []
        for j in range(len(labels)):
            s = h2h["score"][i][j]
            cells.append("-" if s is None or math.isnan(s) else f"{s:.3f} ({_p_value(h2h['p_value_holm'][i][j])})")
        table.add_row(label, *cells)
    return table


def print_report(summary: dict[str, Any], console: Console) -> None:
    console.print(leaderboard(summary))
    h2h = head_to_head_table(summary)
    if h2h is not None:
        console.print(h2h)


#: A study's data files next to its report (``data`` folder): every row, as JSON and as CSV.
ROWS_JSON = "rows.json"
ROWS_CSV = "rows.csv"


def reported_rows(folder: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """The rows of a study's earlier report data (``rows.json`` in ``folder``) by (run name,
    config digest): what a study takes instead of training a row again when nothing on this
    machine holds its run. Nothing where there is no readable data."""
    try:
        rows = json.loads((Path(folder) / ROWS_JSON).read_text())["rows"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {
        (r["name"], r["config_sha256"]): r
        for r in (rows if isinstance(rows, list) else [])
        if isinstance(r, dict) and isinstance(r.get("name"), str) and isinstance(r.get("config_sha256"), str)
    }


def write_atomic(path: Path, text: str) -> None:
    """Write then rename: a reader never sees half a file (:func:`envs.atomic.write_atomically`)."""
    write_atomically(path, text)


def write_study(
    folder: Path, study: Any, rows: list[dict[str, Any]], rows_csv: str, report: Path, text: str
) -> list[Path]:
    """A study's outputs: its rows with its config (a dataclass) as ``rows.json`` and its rows
    as ``rows.csv`` in ``folder`` (what :func:`reported_rows` reads back), and its report;
    returns the report's path, then the data's. Every path is checked before any is written."""
    check_outputs(report, folder, files=(ROWS_JSON, ROWS_CSV))
    data = json.dumps(json_ready({"study": dataclasses.asdict(study), "rows": rows}), indent=2, allow_nan=False)
    write_atomic(folder / ROWS_JSON, data + "\n")
    write_atomic(folder / ROWS_CSV, rows_csv)
    write_atomic(report, text)
    return [report, folder / ROWS_JSON, folder / ROWS_CSV]


def entrants_csv(summary: dict[str, Any]) -> str:
    ratings = {r["entrant"]: r for r in summary.get("ratings", [])}
    rows = []
    for row in summary["entrants"]:
        r = ratings.get(row["entrant"], {})
        rows.append(json_ready({**row, **{f"rating_{k}": v for k, v in r.items() if k != "entrant"}}))
    out = io.StringIO()  # a missing number (NaN, null in the JSON) is an empty cell
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def output_files(folder: str | Path, stem: str = "tournament") -> list[Path]:
    """Every file a tournament may write in ``folder``: data, table, win rates, head to head."""
    return [Path(folder) / f"{stem}{end}" for end in (".json", ".csv", "_win_rates.png", "_head_to_head.png")]


def check_output_files(folder: str | Path, stem: str = "tournament") -> None:
    """Before the games: the folder and each of :func:`output_files` can be written
    (``ValueError`` naming ``output`` otherwise); nothing is created until the outputs are written."""
    check_writable(folder, "output", create=False)
    for path in output_files(folder, stem):
        check_file_writable(path, "output")


def write_outputs(summary: dict[str, Any], folder: Path, stem: str = "tournament") -> list[Path]:
    """``<stem>.json``, ``<stem>.csv`` and the PNG plots in ``folder`` (made now if missing);
    returns the paths. Everything is rendered, then written to temporaries, and only then
    renamed into place, so a failure on the way leaves the earlier outputs as they were."""
    check_output_files(folder, stem)
    paths = output_files(folder, stem)
    files = {
        paths[0]: (json.dumps(json_ready(summary), indent=2, allow_nan=False) + "\n").encode(),
        paths[1]: entrants_csv(summary).encode(),
        **plot_summary(summary, folder, stem),
    }
    _publish(files)
    if paths[3] not in files:  # an earlier tournament's heatmap in this folder would read as this one's
        paths[3].unlink(missing_ok=True)
    return list(files)


def _publish(files: dict[Path, bytes]) -> None:
    """Write every file to a temporary beside it, then rename them all: a failure while writing
    removes the temporaries and leaves every file as it was. A replaced file keeps its permissions."""
    written: dict[Path, Path] = {}
    try:
        for path, data in files.items():
            tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")  # swept if left (envs.atomic)
            written[path] = write_atomically(tmp, data)
            if path.is_file():
                tmp.chmod(path.stat().st_mode & 0o777)
    except BaseException:
        for tmp in written.values():
            tmp.unlink(missing_ok=True)
        raise
    for path, tmp in written.items():
        os.replace(tmp, path)


def plot_summary(summary: dict[str, Any], folder: Path, stem: str) -> dict[Path, bytes]:
    """Win rates (and ratings) with error bars; the head-to-head heatmap for two-sided tables:
    each PNG's path and bytes, written by the caller."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"text.parse_math": False}):  # an entrant's label is drawn as written, "$" and all
        return _plot_summary(summary, folder, stem)


def _png(fig: Any) -> bytes:
    """A figure as PNG bytes (as :func:`envs.atomic.save_figure` draws it), closed."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def _plot_summary(summary: dict[str, Any], folder: Path, stem: str) -> dict[Path, bytes]:
    import matplotlib.pyplot as plt
    import numpy as np

    pngs = {}
    rows = sorted(summary["entrants"], key=lambda r: r["win_rate"])
    ratings = {r["entrant"]: r for r in summary.get("ratings", [])}
    panels = 2 if ratings else 1
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels, 0.5 * len(rows) + 1.8), squeeze=False)
    y = np.arange(len(rows))
    rate = np.array([r["win_rate"] for r in rows])
    err = np.array([[r["win_rate"] - r["ci_low"], r["ci_high"] - r["win_rate"]] for r in rows]).T.clip(
        0
    )  # float round-off at 0 or 1
    ax = axes[0, 0]
    ax.errorbar(rate, y, xerr=err, fmt="o", capsize=4)
    ax.axvline(rows[0]["fair_share"], color="grey", linestyle="--", label="fair share")
    ax.set_yticks(y, [r["entrant"] for r in rows])
    ax.set_xlabel("win rate (95% Wilson interval, clustered by deal)")
    ax.legend(loc="lower right")
    if ratings:
        ax = axes[0, 1]
        mu = np.array([ratings[r["entrant"]]["mu"] if r["entrant"] in ratings else np.nan for r in rows])
        sigma = np.array([ratings[r["entrant"]]["sigma"] if r["entrant"] in ratings else np.nan for r in rows])
        ax.errorbar(mu, y, xerr=sigma, fmt="s", capsize=4, color="tab:orange")
        ax.set_yticks(y, [""] * len(rows))
        ax.set_xlabel("OpenSkill rating (mu ± sigma, means over game orders)")
    pngs[output_files(folder, stem)[2]] = _png(fig)

    h2h = summary.get("head_to_head")
    if h2h:
        labels = h2h["labels"]
        score = np.array(h2h["score"], dtype=float)
        keep = ~np.all(np.isnan(score), axis=1)
        score = score[np.ix_(keep, keep)]
        labels = [label for label, k in zip(labels, keep, strict=True) if k]
        fig, ax = plt.subplots(figsize=(1.1 * len(labels) + 3, 0.9 * len(labels) + 2))
        im = ax.imshow(score, cmap="RdBu", vmin=0, vmax=1)
        for i in range(len(labels)):
            for j in range(len(labels)):
                if not np.isnan(score[i, j]):
                    ax.text(j, i, f"{score[i, j]:.2f}", ha="center", va="center", fontsize=9)
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
        ax.set_yticks(range(len(labels)), labels)
        ax.set_title("row's score against column")
        fig.colorbar(im, ax=ax)
        pngs[output_files(folder, stem)[3]] = _png(fig)
    return pngs


def _p_value(p: float | None) -> str:
    """A p-value as printed: below double precision's resolution it reads as a bound, not 0."""
    if p is None or math.isnan(p):
        return "p=-"
    return "p<1e-16" if p < 1e-16 else f"p={p:.2g}"


def write_rows(folder: Path, stem: str, rows: list[dict[str, Any]], fields: list[str]) -> list[Path]:
    """A study's rows as ``<stem>.json`` (all of each row) and ``<stem>.csv`` (``fields``), atomically."""
    paths = [folder / f"{stem}.json", folder / f"{stem}.csv"]
    write_atomic(paths[0], json.dumps(json_ready(rows), indent=1))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(json_ready(rows))  # NaN: an empty cell, as the JSON's null
    write_atomic(paths[1], out.getvalue())
    return paths


def check_outputs(
    report: str | Path, folder: str | Path, names: tuple[str, str] = ("report", "data"), files: Sequence[str] = ()
) -> None:
    """Before a study's hours of play or training: its report, its data folder and the ``files``
    it writes there can be written (else a ``ValueError`` naming the setting, ``names``);
    nothing is created yet."""
    check_file_writable(report, names[0])
    check_writable(folder, names[1], create=False)
    for name in files:
        check_file_writable(Path(folder) / name, names[1])


def check_study_outputs(parser: Any, report: Path, folder: Path) -> None:
    """:func:`check_outputs` for a bench: its ``parser`` exits naming ``--report`` or ``--data``."""
    try:
        check_outputs(report, folder, ("--report", "--data"))
    except ValueError as err:
        parser.error(str(err))


def publish_study(
    report: Path, text: str, folder: Path, stem: str, rows: list[dict[str, Any]], fields: list[str]
) -> None:
    """A bench's report (``text``) and its rows (:func:`write_rows`), written atomically, and
    a line naming them (its plot, ``<folder>/<stem>.png``, is the bench's own)."""
    write_rows(folder, stem, rows, fields)
    write_atomic(report, text)
    print(f"wrote {report}, {folder}/{stem}.json, {stem}.csv, {stem}.png")


def plot_win_rates(
    rows: list[dict[str, Any]],
    labels: list[str],
    path: Path,
    xlabel: str,
    marks: list[float],
    width: float = 8,
    value: str = "win_rate",
) -> None:
    """One row per line: its win rate (or another ``value``) with its 95% interval (``ci_low``,
    ``ci_high``); dashed vertical lines at ``marks`` (a fair share)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, 0.45 * len(rows) + 1.2))
    y = list(range(len(rows)))
    rate = [r[value] for r in rows]
    err = [[r[value] - r["ci_low"] for r in rows], [r["ci_high"] - r[value] for r in rows]]
    ax.errorbar(rate, y, xerr=err, fmt="o", capsize=3)
    for mark in marks:
        ax.axvline(mark, color="grey", lw=1, ls="--")
    ax.set_yticks(y, labels, fontsize=7 if len(rows) > 10 else 8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    save_figure(fig, path)
