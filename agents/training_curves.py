"""Training curves: each evaluation's win rate against each opponent over the decisions trained,
read back from a run's TensorBoard logs (``eval/win_rate_vs_<opponent>``), with the 95%
intervals the evaluations reported (``eval/ci_low_vs_<opponent>``, ``eval/ci_high_vs_<opponent>``:
Wilson on the games' effective number, clustered by deal); logs written before those tags get
plain Wilson intervals from the number of games each evaluation played, narrower where a
deal's games move together (the trick game).

``train.py`` draws ``runs/<name>/curve.png`` at the end of every run that evaluates; the
README's curves of the shipped agents are made from their runs by::

    python -m agents.training_curves runs/uno_2p_colours docs/training/curves.json:uno_4p_colours \
        docs/training/curves.json:tricks_ppo --labels uno_2p_ppo uno_4p_ppo tricks_ppo --out docs/training/curves.png

A run is named by its folder (``runs/<name>``) or as ``<curves.json>:<name>``: its curve as an
earlier figure's JSON holds it, so one agent trained again redraws the figure without the
others' run folders (the README's figure: the 2-player run of 2026-12-07 with the other two
as the figure's JSON stored them)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from envs.atomic import save_figure

PREFIX = "eval/win_rate_vs_"


def read_curve(run_dir: str | Path) -> dict[str, Any]:
    """``{"name", "game", "players", "curves": {opponent: [{decisions, win_rate, ci_low, ci_high, games}]}}``
    of one run: the evaluations in its TensorBoard logs, each with the games it played
    (``eval/games_vs_<opponent>``; in older logs from its config, ``run.json`` or else the
    TensorBoard hyper-parameters, a finished run's last point on ``final_eval_games``)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from tournament.stats import wilson

    run_dir = Path(run_dir)
    logs = EventAccumulator(str(run_dir), size_guidance={"scalars": 0, "tensors": 0})
    logs.Reload()
    config, finished_at = _config(run_dir, logs)
    games, final = int(config.get("eval_games", 0)), int(config.get("final_eval_games", 0) or 0)
    tags = set(logs.Tags().get("scalars", []))

    def by_step(tag: str) -> dict[int, float]:
        """One value per step, the latest written: a run resumed from an older checkpoint logs
        the evaluations after it again."""
        if tag not in tags:
            return {}
        return {int(e.step): float(e.value) for e in sorted(logs.Scalars(tag), key=lambda e: e.wall_time)}

    curves = {}
    for tag in sorted(tags):
        if not tag.startswith(PREFIX):
            continue
        opponent = tag[len(PREFIX) :]
        lows, highs = by_step(f"eval/ci_low_vs_{opponent}"), by_step(f"eval/ci_high_vs_{opponent}")
        played = by_step(f"eval/games_vs_{opponent}")  # logged since 2026-12-07; else from the config
        points = []
        for step, value in sorted(by_step(tag).items()):
            n = final if (final and step == finished_at) else games  # the final evaluation of a finished run
            n = int(played.get(step, n))
            if step in lows and step in highs:
                low, high = lows[step], highs[step]
            else:
                low, high = wilson(value * n, n) if n else (value, value)
            points.append({"decisions": step, "win_rate": value, "ci_low": low, "ci_high": high, "games": n})
        curves[opponent] = points
    return {"name": run_dir.name, "game": config.get("game"), "players": config.get("players"), "curves": curves}


def stored_curve(source: str) -> dict[str, Any]:
    """The curve named ``<name>`` in a figure's JSON ``<path>`` (``<path>.json:<name>``), as
    :func:`read_curve` gave it when that figure was drawn."""
    cut = source.lower().find(".json:") + len(".json")
    path, name = source[:cut], source[cut + 1 :]
    try:
        stored = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"{source}: cannot read curves from {path} ({err})") from None
    runs = stored if isinstance(stored, list) else []
    if not runs or not all(isinstance(run, dict) and isinstance(run.get("curves"), dict) for run in runs):
        raise ValueError(f"{source}: {path} is not a figure's curves (a list of runs, each with its curves)")
    names = [run.get("name") for run in runs]
    if names.count(name) != 1:
        how = "holds no run" if name not in names else "holds more than one run"
        raise ValueError(f"{source}: {path} {how} {name!r}; it holds {', '.join(map(str, names))}")
    return runs[names.index(name)]


def curve_source(source: str) -> dict[str, Any]:
    """A run folder's curve (:func:`read_curve`), or a stored one named ``<curves.json>:<name>``."""
    if Path(source).is_dir():
        return read_curve(source)
    if ".json:" in source.lower():
        return stored_curve(source)
    raise ValueError(f"not a run folder, nor <curves.json>:<run name>: {source}")


def _config(run_dir: Path, logs: Any) -> tuple[dict[str, Any], int | None]:
    """The run's config and, if it finished (``run.json``), the decisions of its final evaluation;
    a run still going (or one with its TensorBoard logs only) has none: its last point is an
    ordinary evaluation on ``eval_games``."""
    from agents.run_record import read_run_record

    record = read_run_record(run_dir)
    if record is not None and isinstance(record.get("config"), dict):
        return record["config"], int(record["decisions"])
    import ast

    try:
        text = logs.Tensors("hyperparameters/text_summary")[0].tensor_proto.string_val[0].decode()
    except (KeyError, IndexError):
        return {}, None
    out = {}
    for line in text.split("\n")[2:]:
        parts = line.split("|")
        if len(parts) >= 4:
            try:
                out[parts[1]] = ast.literal_eval(parts[2])
            except (ValueError, SyntaxError):
                out[parts[1]] = parts[2]
    return out, None


def plot_runs(runs: list[dict[str, Any]], path: Path) -> Path:
    """One panel per run, titled by its ``label`` (else its name): win rate against each
    evaluation opponent with its 95% band, each opponent in one colour on every panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from envs.games import game as game_info

    fig, axes = plt.subplots(1, len(runs), figsize=(5.6 * len(runs), 4.0), squeeze=False)
    opponents = sorted({opponent for run in runs for opponent in run["curves"]})
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colour = {opponent: palette[i % len(palette)] for i, opponent in enumerate(opponents)}  # one per opponent
    for ax, run in zip(axes[0], runs, strict=True):
        for opponent, points in run["curves"].items():  # in the run's order; colours by name
            c = colour[opponent]
            x = [p["decisions"] / 1e6 for p in points]
            ax.plot(x, [p["win_rate"] for p in points], marker="o", markersize=3, label=f"vs {opponent}", color=c)
            band = [p["ci_low"] for p in points], [p["ci_high"] for p in points]
            ax.fill_between(x, *band, alpha=0.2, color=c)
        if run["game"]:
            ax.axhline(game_info(run["game"]).fair_share(run["players"]), color="grey", linestyle="--", linewidth=1)
            where = game_info(run["game"]).describe_table(run["players"])
        else:
            where = ""
        ax.set_title(f"{run.get('label') or run['name']}: {where}", fontsize=9)
        ax.set_xlabel("decisions trained (millions, every seat's)")
        ax.set_ylabel("win rate (95% CI)")
        ax.set_ylim(0, 1)
        ax.set_xlim(left=0)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Plot training runs' evaluation curves from their TensorBoard logs.")
    parser.add_argument(
        "runs",
        nargs="+",
        help="run folders (runs/<name>), or <curves.json>:<name> for a curve an earlier figure stored",
    )
    parser.add_argument("--out", required=True, help="the PNG to write (its curves go next to it as JSON)")
    parser.add_argument("--labels", nargs="*", help="a title per run, stored with its curve (default: a stored label)")
    args = parser.parse_args(argv)
    from envs.atomic import check_file_writable

    if args.labels and len(args.labels) != len(args.runs):
        parser.error(f"--labels: give one title per run ({len(args.runs)}), got {len(args.labels)}")
    try:
        check_file_writable(args.out, "--out")
        check_file_writable(Path(args.out).with_suffix(".json"), "--out's JSON")
    except ValueError as err:
        parser.error(str(err))
    try:
        runs = [curve_source(r) for r in args.runs]  # read before writing: --out may be one of them
    except ValueError as err:
        parser.error(str(err))
    if not all(r["curves"] for r in runs):
        parser.error("a run without evaluations: " + ", ".join(r["name"] for r in runs if not r["curves"]))
    for run, label in zip(runs, args.labels or [], strict=False):
        run["label"] = label  # stored with the curve: a figure redrawn from its JSON keeps its titles
    out = plot_runs(runs, Path(args.out))
    from envs.atomic import json_ready, write_atomically

    write_atomically(out.with_suffix(".json"), json.dumps(json_ready(runs), indent=1) + "\n")
    print(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
