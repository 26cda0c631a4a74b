"""Engine speed: random-play steps per second of the batched engines, the PettingZoo loops and RLCard's UNO.

Every figure is the median of several timed runs in this one process, pinned to one CPU
core, and RLCard's UNO env loop (``pip install -e ".[bench]"``) runs in the same process
as the reference, timed just before the rows of its table size: the ratios hold against
steady load, not against load that changes between the reference and a row (then a run's
ratios can be off by half: a second full run is the check). A "step" is one decision of
one game, with the legal actions, the observation and the mask computed for the next one
and a random legal action chosen (RLCard: ``env.step`` with its state extraction).

    python bench/engine_speed.py                    # full table, JSON to bench/results/
    python bench/engine_speed.py --quick            # a smaller sweep for a smoke check (writes only to --out)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import envs.uno  # noqa: E402
import envs.uno_tricks  # noqa: E402
from agents.policy import RandomPolicy  # noqa: E402
from envs import uno_tricks_v0, uno_v0  # noqa: E402
from envs.atomic import check_file_writable, json_ready, write_atomically  # noqa: E402
from envs.config import int_in, number_in  # noqa: E402


def write_results(path: str | Path, rows: list[dict], **meta: object) -> Path:
    """A bench's rows as JSON with the machine's facts, written atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    facts = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        **meta,
        "date": time.strftime("%Y-%m-%d"),
    }
    data = json_ready({"meta": facts, "rows": rows})  # NaN (no reference run) as null: strict JSON
    write_atomically(path, json.dumps(data, indent=2, allow_nan=False) + "\n")
    return path


def results_out(parser: argparse.ArgumentParser, out: str | Path | None, quick: bool, name: str) -> Path | None:
    """Where a bench writes its figures: ``--out``, else ``bench/results/<name>``; a ``--quick``
    smoke run never replaces the committed figures unless ``--out`` names a file (None: write
    nothing). Checked now, not after the runs."""
    path = Path(out) if out is not None else (None if quick else ROOT / "bench" / "results" / name)
    if path is not None:
        try:
            check_file_writable(path, "--out")
        except ValueError as err:
            parser.error(str(err))
    return path


def save_results(path: Path | None, rows: list[dict], **meta: object) -> None:
    """:func:`write_results` where :func:`results_out` said, and what was done."""
    if path is None:
        print("--quick: nothing written (give --out to keep the figures)")
    else:
        print(f"wrote {write_results(path, rows, **meta)}")


def pin_to_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        core = sorted(os.sched_getaffinity(0))[0]
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned (no sched_setaffinity)"


def median_rate(run: Callable[[float], tuple[int, float]], repeats: int, seconds: float) -> dict[str, float]:
    """Median steps/s of ``repeats`` runs of about ``seconds`` each (plus one warm-up)."""
    run(min(seconds, 0.2))
    rates = []
    for _ in range(repeats):
        steps, elapsed = run(seconds)
        rates.append(steps / elapsed)
    return {"steps_per_s": statistics.median(rates), "min": min(rates), "max": max(rates), "runs": repeats}


def engine_runner(game, batch: int, players: int) -> Callable[[float], tuple[int, float]]:
    eng = game.Engine(num_games=batch, num_players=players, seed=0)
    policy = RandomPolicy(0)
    state = {"obs_mask": eng.reset()}

    def run(seconds: float) -> tuple[int, float]:
        obs, mask = state["obs_mask"]
        steps, start = 0, time.perf_counter()
        while True:
            for _ in range(10):
                obs, mask, _, _ = eng.step(policy(obs, mask))
            steps += 10 * batch
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                state["obs_mask"] = (obs, mask)
                return steps, elapsed

    return run


def aec_runner(make_env: Callable[[], object]) -> Callable[[float], tuple[int, float]]:
    env = make_env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while True:
            for _agent in env.agent_iter():
                obs, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
                steps += 1
            env.reset()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return steps, elapsed

    return run


def rlcard_runner(players: int) -> Callable[[float], tuple[int, float]] | None:
    """RLCard's UNO env loop (None when RLCard is not installed)."""
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": 0, "game_num_players": players})
    rng = np.random.default_rng(0)

    def run(seconds: float) -> tuple[int, float]:
        steps, start = 0, time.perf_counter()
        while True:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[rng.integers(len(legal))])
                steps += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return steps, elapsed

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter runs (3 of 0.3 s); writes only to --out")
    parser.add_argument("--repeats", type=int_in(1), default=None, help="timed runs per row (default 5)")
    parser.add_argument("--seconds", type=number_in(0.01), default=None, help="length of one timed run (default 1)")
    parser.add_argument("--out", default=None, help="default: bench/results/engine_speed.json (--quick: none)")
    args = parser.parse_args()
    if args.quick and (args.repeats is not None or args.seconds is not None):
        parser.error("--quick sets the runs (3 of 0.3 s): leave --repeats and --seconds out")
    out = results_out(parser, args.out, args.quick, "engine_speed.json")
    from rich.console import Console
    from rich.table import Table

    console = Console()
    pinned = pin_to_one_core()
    repeats, seconds = (3, 0.3) if args.quick else (args.repeats or 5, args.seconds or 1.0)
    batches, player_counts = ([1, 1024], [2, 4]) if args.quick else ([1, 64, 1024, 8192], [2, 4, 10])
    trick_batches = [1, 1024] if args.quick else [1, 1024, 8192]

    rows = []
    reference = {}
    for players in player_counts:
        run = rlcard_runner(players)
        if run is not None:
            reference[players] = median_rate(run, repeats, seconds)
            rows.append(
                {"game": "uno", "what": "rlcard uno env loop", "batch": 1, "players": players, **reference[players]}
            )
        aec = aec_runner(lambda players=players: uno_v0.env(num_players=players))
        rows.append(
            {
                "game": "uno",
                "what": "pettingzoo aec loop",
                "batch": 1,
                "players": players,
                **median_rate(aec, repeats, seconds),
            }
        )
        for batch in batches:
            rows.append(
                {
                    "game": "uno",
                    "what": "unolab engine",
                    "batch": batch,
                    "players": players,
                    **median_rate(engine_runner(envs.uno, batch, players), repeats, seconds),
                }
            )
        console.print(f"classic UNO, {players} players done")
    rows.append(
        {
            "game": "tricks",
            "what": "pettingzoo aec loop",
            "batch": 1,
            "players": 4,
            **median_rate(aec_runner(uno_tricks_v0.env), repeats, seconds),
        }
    )
    for batch in trick_batches:
        rows.append(
            {
                "game": "tricks",
                "what": "unolab engine",
                "batch": batch,
                "players": 4,
                **median_rate(engine_runner(envs.uno_tricks, batch, 4), repeats, seconds),
            }
        )
    console.print("trick game done")

    table = Table(title=f"Random-play steps per second, median of {repeats} runs ({pinned})")
    for col in ("game", "what", "players", "batch", "steps/s", "x rlcard"):
        table.add_column(col, justify="right" if col not in ("game", "what") else "left")
    for row in rows:
        ref = reference.get(row["players"]) if row["game"] == "uno" else None
        row["x_rlcard"] = row["steps_per_s"] / ref["steps_per_s"] if ref else None
        ratio = f"{row['x_rlcard']:.2f}" if row["x_rlcard"] is not None else "-"
        table.add_row(
            row["game"], row["what"], str(row["players"]), str(row["batch"]), f"{row['steps_per_s']:,.0f}", ratio
        )
    console.print(table)

    save_results(out, rows, cpu=pinned, repeats=repeats, seconds_per_run=seconds)


if __name__ == "__main__":
    main()
