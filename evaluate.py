"""Evaluate policies by playing many batched games of classic UNO.

Until the tournament runner lands (scripted and learned policies, duplicate deals,
ratings), this plays random policies at every seat and reports what a table of random
players shows: the win rate of each seat with a 95% Wilson interval (is there a
first-player advantage?), the points a seat scores per hand it wins, and game lengths.

    python evaluate.py                                   # 4 players, 20,000 games
    python evaluate.py --players 2 --games 50000 stacking=true uno_penalty=4
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table
from scipy.stats import binomtest

from agents.policy import RandomPolicy
from envs.uno import UnoEngine, UnoRules


def parse_options(items: list[str]) -> dict[str, Any]:
    options = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"rules options are key=value, got {item!r}")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def play(num_games: int, players: int, rules: UnoRules, batch: int, seed: int, console: Console) -> dict[str, Any]:
    """Play at least ``num_games`` complete games with random policies; per-seat results.

    Every one of the ``batch`` game slots plays the same number of games, so that
    long games are not under-counted (stopping at the first ``num_games`` to finish
    would favour short ones).
    """
    quota = -(-num_games // batch)  # games per slot
    batch = -(-num_games // quota)  # as few slots as give num_games
    eng = UnoEngine(num_games=batch, num_players=players, rules=rules, seed=seed)
    policy = RandomPolicy(seed)
    obs, mask = eng.reset()
    wins = np.zeros(players, np.int64)
    points = np.zeros(players, np.int64)  # points scored in hands won
    hands_won = np.zeros(players, np.int64)
    steps_in_game = np.zeros(batch, np.int64)
    played = np.zeros(batch, np.int64)  # games finished per slot
    lengths: list[np.ndarray] = []
    finished, steps = 0, 0
    start = time.perf_counter()
    columns = ("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("games", total=quota * batch)
        while finished < quota * batch:
            obs, mask, rewards, done = eng.step(policy(obs, mask))
            steps += batch
            steps_in_game += 1
            counting = played < quota
            ended = np.flatnonzero(eng.hand_ended & counting)
            if ended.size:
                np.add.at(hands_won, eng.hand_winner[ended], 1)
                np.add.at(points, eng.hand_winner[ended], eng.hand_points[ended].max(axis=1))
            over = np.flatnonzero(done)
            if over.size:
                take = over[counting[over]]
                played[over] += 1
                np.add.at(wins, rewards[take].argmax(axis=1), 1)
                lengths.append(steps_in_game[take].copy())
                steps_in_game[over] = 0
                finished += take.size
                progress.update(task, completed=finished)
    elapsed = time.perf_counter() - start
    length = np.concatenate(lengths)
    return {
        "wins": wins,
        "points": points,
        "hands_won": hands_won,
        "lengths": length,
        "games": finished,
        "steps": steps,
        "seconds": elapsed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=4096, help="games stepped at once")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("rules", nargs="*", metavar="key=value", help="UnoRules options, e.g. stacking=true")
    args = parser.parse_args(argv)
    console = Console()
    try:
        rules = UnoRules.from_dict(parse_options(args.rules))
        rules.check_players(args.players)
        if args.games < 1:
            raise ValueError("--games must be at least 1")
    except ValueError as err:
        parser.error(str(err))

    result = play(args.games, args.players, rules, args.batch, args.seed, console)
    n = result["games"]
    changed = {k: v for k, v in rules.to_dict().items() if v != getattr(UnoRules(), k)}
    described = ", ".join(f"{k}={v}" for k, v in changed.items()) or "default rules"
    table = Table(title=f"random vs random: {args.players} players, {n:,} games, {described}")
    for col in ("seat", "win rate", "95% CI", "hands won", "points per hand won"):
        table.add_column(col, justify="right")
    rows = []
    for seat in range(args.players):
        k = int(result["wins"][seat])
        ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        won = int(result["hands_won"][seat])
        per_hand = result["points"][seat] / won if won else float("nan")
        rows.append(
            {
                "seat": seat,
                "wins": k,
                "win_rate": k / n,
                "ci_low": ci.low,
                "ci_high": ci.high,
                "hands_won": won,
                "points_per_hand_won": per_hand,
            }
        )
        table.add_row(f"P{seat}", f"{k / n:.3f}", f"[{ci.low:.3f}, {ci.high:.3f}]", f"{won:,}", f"{per_hand:.1f}")
    console.print(table)
    length = result["lengths"]
    console.print(
        f"decisions per game: mean {length.mean():.1f}, median {np.median(length):.0f}, "
        f"max {length.max()}; {result['steps'] / result['seconds']:,.0f} steps/s "
        f"({result['seconds']:.1f} s)"
    )
    console.print(f"fair share per seat: {1 / args.players:.3f}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "players": args.players,
            "games": n,
            "rules": rules.to_dict(),
            "seed": args.seed,
            "seats": rows,
            "mean_decisions_per_game": float(length.mean()),
        }
        tmp = args.json.with_name(args.json.name + ".tmp")
        tmp.write_text(json.dumps(payload, indent=2) + "\n")
        tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
