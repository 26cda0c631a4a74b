"""The search policy's strength and cost at several settings; writes docs/search.md.

For each setting of :class:`agents.search.SearchPolicy`: its win rate against
``heuristic`` on duplicate deals (both seats of every deal; the trick game: team against
team, both sides) with the 95% Wilson interval, and its speed on one core: searched
decisions per second (decisions with more than one legal action, the only ones that
cost anything) at batch 1 (one game, as ``play.py`` asks) and batch 1,024 (a tournament's
share of a batch), on positions from heuristic self-play, median of 3 runs.

    python bench/search.py                 # every setting, 3,000 games each (about 50 minutes; the trick game 31)
    python bench/search.py --games 400     # a quick look (the intervals are wide)
    python bench/search.py --speed-only    # the speeds again, the win rates kept from docs/search/
    python bench/search.py --game tricks   # one game's rows again, the other's kept from docs/search/

Writes docs/search.md (tables and plot) with its data in docs/search/ (JSON, CSV, PNG).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from agents.registry import make_policy, spec_label  # noqa: E402
from envs.config import int_in  # noqa: E402
from tournament.config import TournamentConfig  # noqa: E402
from tournament.report import check_study_outputs, plot_win_rates, publish_study  # noqa: E402
from tournament.runner import run_tournament  # noqa: E402
from tournament.schedule import build_schedule  # noqa: E402
from tournament.stats import summarise  # noqa: E402

V2 = "models/uno_2p_ppo.pt"
AGENT2 = {"name": "agent", "checkpoint": V2}
#: (game, what varies, spec). The first row of each game is its default setting (``{name: search}``).
SETTINGS: list[tuple[str, str, dict[str, Any]]] = [
    ("uno", "default", {"name": "search", "worlds": 16, "depth": 8, "value": V2}),
    ("uno", "worlds", {"name": "search", "worlds": 4, "depth": 8, "value": V2}),
    ("uno", "worlds", {"name": "search", "worlds": 8, "depth": 8, "value": V2}),
    ("uno", "worlds", {"name": "search", "worlds": 32, "depth": 8, "value": V2}),
    ("uno", "depth", {"name": "search", "worlds": 16, "depth": 2, "value": V2}),
    ("uno", "depth", {"name": "search", "worlds": 16, "depth": 0}),
    ("uno", "confidence", {"name": "search", "worlds": 16, "depth": 8, "value": V2, "confidence": 0}),
    ("uno", "rollout", {"name": "search", "worlds": 16, "depth": 8, "value": V2, "rollout": "rlcard_rule"}),
    ("uno", "rollout", {"name": "search", "worlds": 16, "depth": 8, "value": V2, "rollout": AGENT2, "confidence": 2.0}),
    ("uno", "bets", {"name": "search", "worlds": 16, "depth": 8, "value": V2, "bets": "search"}),
    ("tricks", "default", {"name": "search"}),
    ("tricks", "worlds", {"name": "search", "worlds": 8}),
    ("tricks", "confidence", {"name": "search", "worlds": 8, "confidence": 0}),
]


def tournament(game: str, spec: dict[str, Any], games: int) -> TournamentConfig:
    """The search against heuristic on duplicate deals, ``games`` asked (the schedule rounds
    them up to whole deals of every seating)."""
    return TournamentConfig.from_mapping(
        {
            "game": game,
            "players": 2 if game == "uno" else 4,
            "policies": [{**spec, "label": "search"}, "heuristic"],
            "seating": "rotations" if game == "uno" else "auto",
            "games": games,
            "batch": 4096,
            "seed": 0,
            "ratings": "none",
        }
    )


def strength(game: str, spec: dict[str, Any], games: int) -> dict[str, float]:
    """Win rate of the search against heuristic on duplicate deals, and the run's time."""
    config = tournament(game, spec, games)
    schedule = build_schedule(config)
    start = time.perf_counter()
    summary = summarise(config, schedule, run_tournament(config, schedule))
    row = next(r for r in summary["entrants"] if r["entrant"] == "search")
    return {
        "games": row["games"],
        "win_rate": row["win_rate"],
        "ci_low": row["ci_low"],
        "ci_high": row["ci_high"],
        "minutes": (time.perf_counter() - start) / 60,
    }


def positions(game: str, batch: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``batch`` games some heuristic moves in, with a choice to make."""
    from envs.games import game as game_info

    module = game_info(game).engine
    eng = module.Engine(4 * batch, game_info(game).table_sizes.start, module.Rules(), seed=1)
    obs, mask = eng.reset()
    policy = make_policy(game, "heuristic", seed=1)
    for _ in range(6):
        obs, mask, _, _ = eng.step(policy(obs, mask))
    rows = (mask.sum(axis=1) > 1).nonzero()[0][:batch]
    return obs[rows], mask[rows]


def speed(game: str, spec: dict[str, Any], batch: int) -> float:
    """Searched decisions per second at this batch size (median of 3 runs after a warm-up); at
    batch 1, over 20 positions searched one at a time (a single position's cost varies 20-fold)."""
    obs, mask = positions(game, max(batch, 20))
    if batch > 1:
        obs, mask = obs[:batch], mask[:batch]
    policy = make_policy(game, spec, seed=0, rules={})
    policy(obs[:1], mask[:1])
    rates = []
    for _ in range(3):
        start = time.perf_counter()
        if batch == 1:
            for i in range(min(len(obs), 20)):
                policy(obs[i : i + 1], mask[i : i + 1])
            n = min(len(obs), 20)
        else:
            policy(obs, mask)
            n = len(obs)
        rates.append(n / (time.perf_counter() - start))
    return statistics.median(rates)


def report(
    rows: list[dict[str, Any]], games: int, command: str, only: str | None = None, speeds_only: bool = False
) -> str:
    def table(game: str) -> str:
        lines = [
            "| setting | varies | win rate vs heuristic | 95% CI | searched decisions/s, batch 1 | batch 1,024 |",
            "|---|---|---:|---|---:|---:|",
        ]
        for r in rows:
            if r["game"] == game:
                lines.append(
                    f"| `{r['label']}` | {r['varies']} | {r['win_rate']:.3f} | "
                    f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {r['speed_1']:,.0f} | {r['speed_1024']:,.0f} |"
                )
        return "\n".join(lines)

    best = max((r for r in rows if r["game"] == "uno"), key=lambda r: r["ci_low"])
    kept = sorted({r["game"] for r in rows} - {only}) if only else []
    what = "speeds of the" if speeds_only else ""
    measured = f", which measured the {what} {only} rows and kept the {', '.join(kept)} rows of the run before"
    measured = " ".join(measured.split()) if kept else ""
    return f"""# The search policy: strength and cost

Generated by `{command}`{measured} ({games:,} games per setting on duplicate deals, both seats of
every deal; the trick game team against team). How the search works: `agents/search.py`;
the worlds it plays in: `envs/uno/worlds.py`, `envs/uno_tricks/worlds.py`. Speed: searched
decisions per second on one core (decisions with a single legal action cost nothing and
are not counted), median of 3 runs on positions from heuristic self-play. On a shared machine
they vary from one run of this command to the next, up to about twofold at batch 1 (rows
whose code did not change moved up to 1.6-fold between two runs one evening): compare the rows of
one run, not runs.

## Classic UNO, 2 players, against `heuristic`

{table("uno")}

`bets`: with `prior` (the default) the decisions that bet on how the opponents play, a
challenge and a Wild Draw Four that would be a bluff, keep the rollout policy's choice: the
worlds deal a bluffer's hand at random among the cards it could hold, whatever it did, and
their bluffs are answered by the rollout policy, not by the real challenger. `bets=search`
searches them as well (its worlds also judge a Wild Draw Four's guilt from the player's hand
there, which after a silent second-to-last card holds the UNO penalty too: they find more
bluffs than there were).

The best lower bound here is `{best["label"]}`'s, {best["ci_low"]:.3f}, over {best["games"]:,} games: a
first look. The search issue's target (a lower bound above 0.55 against `heuristic`) is judged
over 20,000 games, and those figures are in the README (`python evaluate.py --config
configs/eval/uno_2p_search.yaml`; on the agent's rollouts, `configs/eval/uno_2p_search_on_agent.yaml`).

## Trick game, against a `heuristic` team

{table("tricks")}

![win rate against heuristic](search/strength.png)
"""


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    plot_win_rates(
        rows, [f"{r['game']}: {r['label']}" for r in rows], path, "win rate against heuristic (95% CI)", [0.5]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int_in(1), default=3000, help="games per setting")
    parser.add_argument("--report", type=Path, default=ROOT / "docs" / "search.md")
    parser.add_argument("--data", type=Path, default=ROOT / "docs" / "search")
    parser.add_argument(
        "--speed-only",
        action="store_true",
        help="measure the speeds again and keep the win rates of --data's rows (minutes, not hours)",
    )
    parser.add_argument(
        "--game",
        choices=sorted({game for game, _, _ in SETTINGS}),
        help="measure only this game's rows and keep the other game's, win rates and speeds, from --data",
    )
    args = parser.parse_args(argv)
    check_study_outputs(parser, args.report, args.data)
    earlier = {}
    if args.speed_only or args.game:
        try:
            earlier = {(r["game"], r["label"]): r for r in json.loads((args.data / "strength.json").read_text())}
        except (OSError, ValueError, KeyError, TypeError) as err:
            kept = "--speed-only keeps the win rates" if args.speed_only else f"--game {args.game} keeps the other rows"
            parser.error(f"{kept} of {args.data / 'strength.json'}, which cannot be read: {err}")
    labels = [
        spec_label({k: v for k, v in spec.items() if k != "name"} | {"name": "search"}) for _, _, spec in SETTINGS
    ]
    for (game, _, spec), label in zip(SETTINGS, labels, strict=True):  # every row kept is checked before any is run
        kept = args.game is not None and game != args.game  # the whole row from --data
        if (args.speed_only or kept) and (game, label) not in earlier:
            parser.error(f"{args.data / 'strength.json'} has no row {game} {label}: run the whole bench")
        played = build_schedule(tournament(game, spec, args.games)).num_games
        if kept and earlier[(game, label)]["games"] != played:
            parser.error(
                f"--game {args.game} keeps the {game} rows, played over {earlier[(game, label)]['games']:,} games, "
                f"where --games {args.games:,} plays {played:,}: run the whole bench"
            )
    import torch

    torch.set_num_threads(1)  # "on one core", as the report says: the critics' batches too
    rows = []
    for (game, varies, spec), label in zip(SETTINGS, labels, strict=True):
        print(f"{game} {label}: ", end="", flush=True)
        kept = args.game is not None and game != args.game
        found = earlier[(game, label)] if args.speed_only or kept else strength(game, spec, args.games)
        row = {"game": game, "varies": varies, "label": label, "spec": spec}
        row |= {k: found[k] for k in ("games", "win_rate", "ci_low", "ci_high", "minutes")}
        if kept:
            row |= {k: found[k] for k in ("speed_1", "speed_1024")}
            print("kept", flush=True)
            rows.append(row)
            continue
        row["speed_1"], row["speed_1024"] = speed(game, spec, 1), speed(game, spec, 1024)
        print(
            f"{row['win_rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}], "
            f"{row['speed_1']:.0f} / {row['speed_1024']:.0f} decisions/s ({row['minutes']:.1f} min)",
            flush=True,
        )
        rows.append(row)
    command = "python bench/search.py" + (f" --games {args.games}" if args.games != 3000 else "")
    command += " --speed-only" * args.speed_only + (f" --game {args.game}" if args.game else "")
    fields = ["game", "varies", "label", "games", "win_rate", "ci_low", "ci_high", "speed_1", "speed_1024", "minutes"]
    plot(rows, args.data / "strength.png")
    publish_study(
        args.report, report(rows, args.games, command, args.game, args.speed_only), args.data, "strength", rows, fields
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
