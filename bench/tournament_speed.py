"""Tournament throughput: complete classic UNO (and trick game) games per second with scripted policies.

The whole tournament path is timed: schedule, duplicate deals, the batched engine, one
call per policy per step, the referee's bookkeeping. Pinned to one CPU core; every
figure is the median of several runs in this process. The reference, measured in the
same process, is the bare engine under random play at the same batch: its decisions
per second are the ceiling, and ``x engine`` (tournament decisions/s over the bare
engine's) is the share of the engine's speed the tournament keeps after policies and
bookkeeping.

    python bench/tournament_speed.py            # batch 4096, 2 and 4 players; JSON to bench/results/
    python bench/tournament_speed.py --quick
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import envs.uno  # noqa: E402
import envs.uno_tricks  # noqa: E402
from bench.engine_speed import engine_runner, median_rate, pin_to_one_core, results_out, save_results  # noqa: E402
from envs.config import int_in  # noqa: E402
from tournament.config import TournamentConfig  # noqa: E402
from tournament.runner import run_tournament  # noqa: E402
from tournament.schedule import build_schedule  # noqa: E402

LINEUPS = {
    "random vs random": ["random", {"name": "random", "label": "random2"}],
    "heuristic vs heuristic": ["heuristic", {"name": "heuristic", "label": "heuristic2"}],
    "scripted round robin": ["random", "rlcard_rule", "greedy", "heuristic"],
}


def _label(spec: object) -> str:
    return spec if isinstance(spec, str) else spec["label"]


def games_per_second(config: TournamentConfig, repeats: int) -> dict[str, float]:
    schedule = build_schedule(config)
    run_tournament(config, build_schedule(config.__class__(**{**config.to_dict(), "games": config.batch})))  # warm-up
    rates, decisions = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        results = run_tournament(config, schedule)
        elapsed = time.perf_counter() - start
        rates.append(int(results.played.sum()) / elapsed)
        decisions.append(int(results.decisions[results.played].sum()) / elapsed)
    return {
        "games_per_s": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "decisions_per_s": statistics.median(decisions),
        "decisions_per_game": float(results.decisions[results.played].mean()),
        "runs": repeats,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer games and runs")
    parser.add_argument("--batch", type=int_in(1), default=4096)
    parser.add_argument(
        "--out", type=Path, default=None, help="default: bench/results/tournament_speed.json (--quick: none)"
    )
    args = parser.parse_args()
    out = results_out(parser, args.out, args.quick, "tournament_speed.json")
    cpu = pin_to_one_core()
    repeats = 2 if args.quick else 3
    rows = []
    engine = {}
    for game, module, players in (("uno", envs.uno, 2), ("uno", envs.uno, 4), ("tricks", envs.uno_tricks, 4)):
        ref = median_rate(engine_runner(module, args.batch, players), repeats, 1.0)
        engine[(game, players)] = ref["steps_per_s"]
        print(f"{game:6s} {players}p  bare engine, random play   {ref['steps_per_s']:>12,.0f} decisions/s", flush=True)
    cases = [("uno", players, name) for players in (2, 4) for name in LINEUPS]
    cases.append(("tricks", 4, "scripted round robin (teams)"))
    for game, players, name in cases:
        if game == "tricks":
            policies = ["random", "greedy", "heuristic"]
        else:
            policies = LINEUPS[name]
        games = (4 if args.quick else 12) * args.batch
        config = TournamentConfig.from_mapping(
            {
                "game": game,
                "players": players,
                "policies": policies,
                "games": games,
                "batch": args.batch,
                "seating": "rotations",
                "lineups": None
                if game == "tricks" or len(policies) >= players
                else [[_label(policies[s % 2]) for s in range(players)]],
                "ratings": "none",
                "shard_games": games,  # one shard, as these figures were first measured (3-batch shards: ~15% fewer)
            }
        )
        rate = games_per_second(config, repeats)
        share = rate["decisions_per_s"] / engine[(game, players)]
        row = {
            "game": game,
            "players": players,
            "lineup": name,
            "batch": args.batch,
            "games": games,
            **rate,
            "engine_decisions_per_s": engine[(game, players)],
            "x_engine": share,
        }
        rows.append(row)
        print(
            f"{game:6s} {players}p  {name:32s} {rate['games_per_s']:>10,.0f} games/s "
            f"({rate['decisions_per_game']:.0f} decisions/game, {rate['decisions_per_s']:,.0f} decisions/s, "
            f"{share:.2f} x engine)",
            flush=True,
        )
    save_results(out, rows, cpu=cpu, repeats=repeats)


if __name__ == "__main__":
    main()
