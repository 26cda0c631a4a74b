"""How much do the other hands show? Where the unseen cards are, by three beliefs, on the same games.

The search deals the unseen cards by hand sizes, honouring the voids (``envs.uno.worlds``); the belief model
(``agents/belief.py``, the one ``belief: shipped`` uses) reads the player's observation; a
third belief also reads the whole public history of the hand that the observation leaves out
(:class:`agents.belief.PublicHistory`: every player's plays by colour, draws, colour switches
and last two actions), which no policy here can keep (policies are stateless). Each is
measured by its cross-entropy with where the cards really were (nats per unseen card; 0 would
be knowing every hand) at every decision of fresh games in which every seat plays
``heuristic``. What the observation's belief gains over hand sizes alone is what inference from
the view can give a player; what the history's adds on top is what a recurrent or history
encoder could still find.

    python bench/belief.py                 # 2 and 4 players, 6M decisions per belief (about 15 minutes)
    python bench/belief.py --decisions 1000000 --players 4    # a quick look

Writes docs/belief.md with its data in docs/belief/ (JSON, CSV, PNG).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.belief import measure_belief, train_belief  # noqa: E402
from envs.config import int_in, seed_arg  # noqa: E402
from envs.uno import UnoRules  # noqa: E402
from tournament.report import check_study_outputs, plot_win_rates, publish_study  # noqa: E402

#: (label, reads the public history)
BELIEFS = [("the observation (the belief model)", False), ("the observation and the whole public history", True)]
GAMES = 2048  # games stepped at once, in training and in the held-out measurement
STEPS = 200  # held-out decisions of every game


def ratio(per_game: np.ndarray, column: int) -> tuple[float, float]:
    """Nats per unseen card of one column of ``per_game`` and its standard error (the games
    are independent; the delta method for a ratio of sums)."""
    nats, cards = per_game[:, column], per_game[:, 2]
    r = nats.sum() / cards.sum()
    return float(r), float(np.sqrt(len(nats) * np.var(nats - r * cards, ddof=1)) / cards.sum())


def study(players: int, decisions: int, seed: int) -> list[dict[str, Any]]:
    """Hand sizes alone and both beliefs at one table size, measured on the same held-out games."""
    per_game, minutes = {}, {}
    for label, history in BELIEFS:
        print(f"{players} players, {label}:", flush=True)
        start = time.perf_counter()
        net, _ = train_belief(players, decisions, games=GAMES, seed=seed, history=history)
        per_game[label] = measure_belief(net, players, "heuristic", GAMES, seed + 1, STEPS, history)["per_game"]
        minutes[label] = (time.perf_counter() - start) / 60
    first = per_game[BELIEFS[0][0]]
    cards_per_decision = first[:, 2].sum() / (GAMES * STEPS)
    even, _ = ratio(first, 1)
    rows = [
        {
            "players": players,
            "label": "hand sizes alone (the plain worlds, less their voids)",
            "nats": even,
            "gain": 0.0,
        }
    ]
    rows[0].update(ci_low=0.0, ci_high=0.0, minutes=0.0)
    for label, _ in BELIEFS:
        pg = per_game[label]
        nats, _ = ratio(pg, 0)
        gain_per_game = pg.copy()
        gain_per_game[:, 0] = pg[:, 1] - pg[:, 0]  # nats saved against hand sizes alone, game by game
        gain, se = ratio(gain_per_game, 0)
        rows.append(
            {
                "players": players,
                "label": label,
                "nats": nats,
                "gain": gain,
                "ci_low": gain - 1.96 * se,
                "ci_high": gain + 1.96 * se,
                "minutes": minutes[label],
            }
        )
    obs_pg, hist_pg = per_game[BELIEFS[0][0]], per_game[BELIEFS[1][0]]
    extra = obs_pg.copy()
    extra[:, 0] = obs_pg[:, 0] - hist_pg[:, 0]
    more, more_se = ratio(extra, 0)
    for row in rows:
        row.update(
            decisions=decisions,
            cards_per_decision=float(cards_per_decision),
            gain_per_decision=row["gain"] * cards_per_decision,
            history_adds=more,
            history_adds_ci=[more - 1.96 * more_se, more + 1.96 * more_se],
        )
    return rows


def report(rows: list[dict[str, Any]], command: str) -> str:
    sections = []
    for players in sorted({r["players"] for r in rows}):
        mine = [r for r in rows if r["players"] == players]
        lines = [
            "| belief from | nats per unseen card | saved against hand sizes alone, per card [95% CI] "
            "| per decision | minutes |",
            "|---|---:|---|---:|---:|",
        ]
        for r in mine:
            saved = "" if r["gain"] == 0 else f"{r['gain']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}]"
            lines.append(
                f"| {r['label']} | {r['nats']:.4f} | {saved} | {r['gain_per_decision']:.2f} | {r['minutes']:.1f} |"
            )
        r = mine[-1]
        low, high = r["history_adds_ci"]
        share = r["history_adds"] / mine[1]["gain"] if mine[1]["gain"] > 0 else float("nan")
        even = mine[0]["nats"]
        sections.append(
            f"## {players} players\n\n{chr(10).join(lines)}\n\n"
            f"{r['cards_per_decision']:.0f} unseen cards per decision on average: hand sizes alone leave "
            f"{even * r['cards_per_decision']:.0f} nats of doubt per decision, of which the observation's belief "
            f"removes {mine[1]['gain'] / even:.1%} and the one with the whole history {r['gain'] / even:.1%}. "
            f"The whole public history "
            f"saves {r['history_adds']:.4f} [{low:.4f}, {high:.4f}] nats per unseen card more than the "
            f"observation alone: {share:.0%} of what the observation's belief saves."
        )
    decisions = rows[0]["decisions"]
    return f"""# How much do the other hands show?

Generated by `{command}`. Three beliefs about where each unseen card is (in which other hand,
or in the draw pile), scored by their cross-entropy with where the cards really were, in nats
per unseen card (0: knowing every hand), at every decision of the same {GAMES:,} tables of fresh
games ({STEPS} decisions each, every seat `heuristic`; a table deals its next game when one ends, so
it plays several, the last cut short):

* hand sizes alone: each holder gets its share of the unseen cards of every type (how the
  search's plain worlds, `envs/uno/worlds.py`, deal before they honour the voids; the voids
  are part of what the two beliefs below learn, so their savings include them);
* the belief model (`agents/belief.py`; `belief: shipped` in the search): an MLP from the
  player's observation, {decisions:,} decisions of `heuristic` play;
* the same with the whole public history of the hand as well (`PublicHistory` there: every
  player's plays by colour, draws, colour switches and last two actions), which the observation
  summarises (`void_colours`, `void_draws`, `chosen_colours`) and no stateless policy can keep.

Intervals are over tables (each table's nats summed over its decisions; the tables are independent).

{(chr(10) * 2).join(sections)}

What it says: the observation's saving is what inference from the view can give a player
about the other hands; the history's extra saving is what a recurrent or history encoder could
still find there. docs/information.md measures what the hands themselves are worth to a search,
and how much of it the belief model recovers. The plot gives each belief's saving as a share
of the doubt hand sizes alone leave.

![savings](belief/belief.png)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--decisions", type=int_in(GAMES), default=6_000_000, help=f"training decisions per belief (at least {GAMES:,})"
    )
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--seed", type=seed_arg, default=1)
    parser.add_argument("--report", type=Path, default=ROOT / "docs" / "belief.md")
    parser.add_argument("--data", type=Path, default=ROOT / "docs" / "belief")
    args = parser.parse_args(argv)
    check_study_outputs(parser, args.report, args.data)
    for players in args.players:
        try:
            UnoRules().check_players(players)
        except ValueError as err:
            parser.error(f"--players: {err}")
    torch.set_num_threads(1)
    rows = [row for players in args.players for row in study(players, args.decisions, args.seed)]
    extra = (f" --decisions {args.decisions}" if args.decisions != 6_000_000 else "") + (
        f" --players {' '.join(map(str, args.players))}" if args.players != [2, 4] else ""
    )
    command = "python bench/belief.py" + extra
    fields = ["players", "label", "nats", "gain", "ci_low", "ci_high", "gain_per_decision", "minutes"]
    even = {r["players"]: r["nats"] for r in rows if r["gain"] == 0}
    shown = [  # the share of the doubt that hand sizes alone leave, in percent
        {k: 100 * r[k] / even[r["players"]] for k in ("gain", "ci_low", "ci_high")} for r in rows if r["gain"] != 0
    ]
    plot_win_rates(
        shown,
        [f"{r['players']} players: {r['label']}" for r in rows if r["gain"] != 0],
        args.data / "belief.png",
        "% of the doubt about the hands removed (95% CI)",
        [],
        width=8,
        value="gain",
    )
    publish_study(args.report, report(rows, command), args.data, "belief", rows, fields)
    return 0


if __name__ == "__main__":
    sys.exit(main())
