"""Run a tournament between policies and report who is better, by how much, and how sure we are.

    python evaluate.py                                        # configs/eval/default.yaml
    python evaluate.py --config configs/eval/uno_2p.yaml games=50000
    python evaluate.py --config configs/eval/tricks.yaml rules.exchange_returns=two
    python evaluate.py --config configs/eval/bluff_study.yaml # writes docs/bluff_study.md

Every seating of every table is played on the same duplicate deals, thousands of games
at once. The leaderboard (win rate with a 95% interval, points, Wild Draw Four play,
OpenSkill rating) is printed and written as JSON, CSV and PNG plots to ``output``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

from tournament.config import TournamentConfig, load_config, merge, parse_overrides, read_yaml
from tournament.report import print_report, write_outputs
from tournament.runner import run_tournament
from tournament.schedule import build_schedule
from tournament.stats import summarise

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "eval" / "default.yaml"


def run(config: TournamentConfig, console: Console, label: str = "games") -> dict[str, Any]:
    """Play the tournament with a progress bar; its summary (with timing)."""
    schedule = build_schedule(config)
    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    start = time.perf_counter()
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(label, total=schedule.num_games)
        results = run_tournament(config, schedule, on_games=lambda n: progress.advance(task, n))
    seconds = time.perf_counter() - start
    summary = summarise(config, schedule, results)
    summary["seconds"] = seconds
    summary["games_per_second"] = summary["games"] / seconds
    summary["config"] = config.to_dict()
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=None, help="YAML config (default: configs/eval/default.yaml)")
    parser.add_argument("--no-files", action="store_true", help="print only: write no JSON, CSV or plots")
    parser.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. games=5000")
    args = parser.parse_intermixed_args(argv)
    console = Console()
    if not console.is_terminal:  # piped to a file or a test: no wrapping of the tables
        console = Console(width=180)
    path = args.config or DEFAULT_CONFIG
    try:
        data = read_yaml(path)
        if "study" in data:
            from tournament.bluff_study import run_study

            return run_study(merge(data, parse_overrides(args.overrides)), console)
        config = load_config(path, args.overrides)
    except ValueError as err:
        parser.error(str(err))
    summary = run(config, console)
    print_report(summary, console)
    console.print(
        f"{summary['games']:,} games in {summary['seconds']:.1f} s ({summary['games_per_second']:,.0f} games/s, "
        f"{summary['mean_decisions']:.0f} decisions per game)"
    )
    if not args.no_files:
        paths = write_outputs(summary, Path(config.output))
        console.print("wrote " + ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
