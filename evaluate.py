"""Run a tournament between policies and report who is better, by how much, and how sure we are.

    python evaluate.py                                        # configs/eval/default.yaml
    python evaluate.py --config configs/eval/uno_2p_agent.yaml games=50000
    python evaluate.py --config configs/eval/tricks_agent.yaml rules.exchange_returns=two
    python evaluate.py --config configs/eval/bluff_study.yaml # writes docs/bluff_study.md
    python evaluate.py --config configs/eval/exploitability.yaml  # trains best responses, docs/exploitability.md
    python evaluate.py --backend ray [--address auto]         # the same shards as Ray tasks

Every seating of every table is played on the same duplicate deals, thousands of games
at once, in shards (blocks of deals) whose results merge in a fixed order: the local
backend runs them here, one after another; ``--backend ray`` runs them on a Ray cluster
(``pip install -e '.[ray]'``) and gives exactly the same numbers. The leaderboard (win
rate with a 95% interval, points, Wild Draw Four play, OpenSkill rating) is printed and
written as JSON, CSV and PNG plots to ``output``. A policy whose files were fitted to another
table (other rules options, another table size) plays, with a note (``notes`` in the JSON).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

from agents.registry import table_notes
from envs.compiled import COMPILING, kernels_cached, warm_up
from envs.config import merge, parse_overrides, read_yaml
from envs.core import IllegalActionError
from tournament.config import TournamentConfig, load_config
from tournament.report import check_output_files, print_report, write_outputs
from tournament.runner import PolicyError, run_tournament
from tournament.schedule import Schedule, build_schedule, plan_shards, repeated_tables
from tournament.stats import summarise

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "eval" / "default.yaml"
BACKENDS = ("local", "ray")


def _lineup(schedule: Schedule, table: int) -> str:
    return f"({', '.join(schedule.entrants[e].label for e in schedule.tables[table])})"


def run(config: TournamentConfig, console: Console, label: str = "games", backend: str = "local") -> dict[str, Any]:
    """Play the tournament with a progress bar (``backend``: local, or ray once connected); its
    summary with timing and how many shards ran."""
    schedule = build_schedule(config)
    notes = table_notes(config.game, schedule.policy_specs, config.rules, config.players)  # a team's members
    for note in notes:  # before the games: a reader of a long run sees it at once
        console.print(f"[yellow]note[/]: {note}")
    twice = repeated_tables(schedule)
    if twice:  # most likely a slip in lineups: each copy plays every deal again, and counts
        names = "; ".join(" = ".join(_lineup(schedule, t) for t in group) for group in twice)
        notes.append(f"lineups lists the same table more than once ({names}): each copy plays and counts every deal")
        console.print(f"[yellow]note[/]: {notes[-1]}")
    if schedule.num_games != config.games:  # whole deals, every seating of every table
        console.print(f"[yellow]note[/]: {games_played(config.games, schedule.num_games, schedule.deals)}")
    if not kernels_cached(config.game):  # else the bar sits at 0 for a minute and looks frozen
        console.print(COMPILING)
        seconds = warm_up(config.game, config.players, config.rules)  # not counted in the games/s below
        console.print(f"compiled in {seconds:.0f} s; later runs load them from numba's cache")
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
        advance = lambda n: progress.advance(task, n)  # noqa: E731
        retries = 0
        if backend == "ray":
            from tournament import ray_backend

            results, info = ray_backend.run_tournament(
                config, schedule, on_games=advance, on_retry=lambda why: console.print(f"[yellow]retrying {why}[/]")
            )
            shards, retries = info.shards, info.retries
        else:
            results = run_tournament(config, schedule, on_games=advance)
            shards = len(plan_shards(config, schedule))
    seconds = time.perf_counter() - start
    summary = summarise(config, schedule, results)
    summary["backend"], summary["shards"], summary["retries"] = backend, shards, retries
    summary["seconds"] = seconds
    summary["games_per_second"] = summary["games"] / seconds
    summary["config"] = config.to_dict()
    if config.ratings == "openskill" and any(len(set(t)) < len(t) for t in schedule.tables):
        notes.append(
            "ratings: an entrant holding several seats of a table counts there as one competitor that wins "
            "if any of its seats wins, so its rating does not compare with its win rate per seat"
        )
    summary["notes"] = notes + summary["notes"]  # the table's, then the statistics' (few deals)
    return summary


def games_played(asked: int, played: int, deals: int) -> str:
    """Why a tournament plays more games than asked: whole duplicate deals only."""
    per_deal = played // deals
    return (
        f"{asked:,} games asked: {played:,} played, {deals:,} duplicate deal{'s' * (deals != 1)} of {per_deal:,} "
        "(every deal is played in every seating of every table)"
    )


def study_command(path: Path, overrides: list[str]) -> str:
    """The command a study's report names as its source: the ``--config`` file actually read
    and the overrides it ran with (never a YAML's ``command:`` or the study's default, which
    name another file once the config is copied or the default is left out)."""
    return " ".join(["python evaluate.py --config", shlex.quote(str(path)), *map(shlex.quote, overrides)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=None, help="YAML config (default: configs/eval/default.yaml)")
    parser.add_argument("--no-files", action="store_true", help="print only: write no JSON, CSV or plots")
    parser.add_argument("--backend", default="local", help="where the shards run: local (default) or ray")
    parser.add_argument("--address", default=None, help="Ray cluster to join: auto or host:port (default: start one)")
    parser.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. games=5000")
    args = parser.parse_intermixed_args(argv)
    if args.backend not in BACKENDS:
        parser.error(f"--backend must be one of {', '.join(BACKENDS)}, got {args.backend!r}")
    if args.address is not None and args.backend != "ray":
        parser.error("--address is for --backend ray")
    console = Console()
    if not console.is_terminal:  # piped to a file or a test: no wrapping of the tables
        console = Console(width=180)
    path = args.config or DEFAULT_CONFIG
    try:
        data = read_yaml(path)
        if "study" in data:
            ignored = [
                flag
                for flag, given in (
                    ("--backend", args.backend != "local"),
                    ("--no-files", args.no_files),
                    ("--address", args.address is not None),
                )
                if given
            ]
            if ignored:  # a study runs locally and always writes its report
                verb = "does" if len(ignored) == 1 else "do"
                raise ValueError(f"{' and '.join(ignored)} {verb} not apply to a study config ({path}): leave it out")
            study = merge(data, parse_overrides(args.overrides))
            study["command"] = study_command(path, args.overrides)
            kind = study.get("study")
            if kind == "exploitability":
                from tournament.exploitability import run_study
            elif kind == "ablation":
                from tournament.ablation import run_study
            elif kind == "bluff":
                from tournament.bluff_study import run_study
            else:
                raise ValueError(f"study must be one of ablation, bluff, exploitability, got {kind!r}")

            return run_study(study, console)
        config = load_config(path, args.overrides)
        if not args.no_files:  # before the games: an unusable output must not cost the whole run
            check_output_files(config.output)
            kept = Path(config.output) / "tournament.json"
            if args.overrides and "output" not in parse_overrides(args.overrides) and kept.is_file():
                console.print(
                    f"[yellow]note[/]: these overrides replace the config's results in {config.output} "
                    "(output=<folder> keeps them)"
                )
    except ValueError as err:
        parser.error(str(err))
    started = False
    if args.backend == "ray":
        from tournament import ray_backend

        try:
            started = ray_backend.connect(args.address)
        except RuntimeError as err:
            parser.error(str(err))
    try:
        summary = run(config, console, backend=args.backend)
    except (RuntimeError, PolicyError, IllegalActionError) as err:  # a game its policies will not end
        # (max_decisions), a lost Ray cluster, a policy that answers outside the rules: as under Ray
        parser.exit(1, f"{parser.prog}: error: {err}\n")
    finally:
        if started:
            import ray

            ray.shutdown()
    print_report(summary, console)
    for note in summary["notes"]:
        console.print(f"[yellow]note[/]: {note}")
    retried = f", {summary['retries']} retried" if summary["retries"] else ""
    console.print(
        f"{summary['games']:,} games in {summary['seconds']:.1f} s ({summary['games_per_second']:,.0f} games/s, "
        f"{summary['mean_decisions']:.0f} decisions per game); "
        f"{summary['shards']} shard{'s' * (summary['shards'] != 1)} ran "
        f"({args.backend} backend{retried})"
    )
    if not args.no_files:
        paths = write_outputs(summary, Path(config.output))
        console.print("wrote " + ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
