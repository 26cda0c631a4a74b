"""Does bluffing with the Wild Draw Four pay, and which challenging rule is best against which bluffer?

One tournament per cell of the grid *bluffing probability p x challenging rule x table
size*. At each table one **bluffer** (the base strategy with ``bluff=p`` and a fixed
challenging rule of its own) meets **challengers** (the same base strategy, honest,
with the challenging rule of the cell) in every seat rotation. Every cell replays the
same duplicate deals, so the bluffer's gain over honest play (p = 0) is measured
game by game on identical cards: a paired difference, with a much narrower interval
than two independent win rates. The report (markdown, JSON, CSV, PNG) is written by
:func:`run_study`; its sentences are computed from the numbers, so the document always
says what the run measured.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from agents.uno_policies import CHALLENGE_RULES
from envs.config import check_flags, check_overrides, read_yaml, rules_mapping
from envs.core import dataclass_from_mapping
from envs.games import game_module
from envs.uno.kernel import CHALLENGE_BREAK_EVEN
from envs.uno.kernel import INNOCENT_CHALLENGE_DRAW as INNOCENT
from envs.uno.kernel import WILD_DRAW_FOUR_DRAW as W4
from tournament.config import TournamentConfig
from tournament.report import check_outputs, json_ready, save_figure, write_atomic
from tournament.runner import run_tournament
from tournament.schedule import build_schedule
from tournament.stats import Z95, clustered_wilson, holm, p_from_interval, seat_scores
from tournament.tallies import tally_of

#: The challenge's break-even as the report writes it (1/3 with the draws of docs/uno.md).
BREAK_EVEN = f"{Fraction(CHALLENGE_BREAK_EVEN).limit_denominator(100)}"
#: The study's data files beside its report (``data`` folder): every cell, as JSON and CSV, and the plot.
CELLS_JSON, CELLS_CSV, PLOT = "cells.json", "cells.csv", "bluff_study.png"


@dataclasses.dataclass
class BluffStudyConfig:
    """The study's grid and budget (``configs/eval/bluff_study.yaml``)."""

    study: str = "bluff"
    game: str = "uno"
    rules: dict[str, Any] = dataclasses.field(default_factory=dict)
    table_sizes: list[int] = dataclasses.field(default_factory=lambda: [2, 4])
    bluff: list[float] = dataclasses.field(default_factory=lambda: [0.0, 0.25, 0.5, 1.0])
    challenge: list[str] = dataclasses.field(default_factory=lambda: list(CHALLENGE_RULES))
    base: str = "heuristic"
    bluffer_challenge: str = "smart"
    games: int = 40_000
    batch: int = 4096
    seed: int = 0
    report: str = "docs/bluff_study.md"
    data: str = "docs/bluff_study"
    command: str = "python evaluate.py --config configs/eval/bluff_study.yaml"  # evaluate.py: the --config read
    # Learned play (tournament.bluff_learners): the agents surveyed against `base`...
    agents: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # {label, policy, players}
    survey_games: int = 20_000
    habit_games: int = 20_000  # per version of each agent: as it is, without its challenges, without its bluffs
    # ...and learners trained to best-respond to one target each: {name, label, role, target}
    learners: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    learner_config: str = "configs/best_response/uno_2p_heuristic.yaml"
    learner_overrides: list[str] = dataclasses.field(default_factory=list)
    learner_runs: str = "runs/bluff_learners"
    train_learners: bool = True  # false: learners without a finished run or data are left out

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> BluffStudyConfig:
        config = dataclass_from_mapping(cls, data, "bluff study key(s)")
        config.rules = rules_mapping(config.rules)  # rules: null is no house rule, as in every config
        check_flags(vars(config), ("train_learners",))
        check_overrides(config.learner_overrides, "learner_overrides")
        if config.study != "bluff" or "wd4_bluffs" not in tally_of(config.game).events:
            raise ValueError("the bluff study is 'study: bluff' on a game with Wild Draw Four bluffs ('game: uno')")
        if 0.0 not in [float(p) for p in config.bluff]:
            raise ValueError("bluff must include 0 (honest play): gains are measured against it")
        for key in ("table_sizes", "bluff", "challenge"):
            values = getattr(config, key)
            same = float if key == "bluff" else str  # 0 and 0.0 are one bluffing rate
            if not isinstance(values, list) or not values or len(set(map(same, values))) != len(values):
                raise ValueError(f"{key} is a non-empty list without repeats, got {values!r}")
        for key in ("survey_games", "habit_games"):
            value = getattr(config, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{key} is a positive number of games, got {value!r}")
        for cell in config.cells():
            cell.check()  # every table, policy and rules option, before any game
        from agents.registry import check_spec
        from tournament.bluff_learners import HABITS, check_learners, learner_config, without

        for row in config.agents:
            if not isinstance(row, dict) or set(row) != {"label", "policy", "players"}:
                raise ValueError(f"an agent to survey is {{label, policy, players}}, got {row!r}")
            try:  # the table size first: the files a policy reads depend on it
                game_module("uno").Rules.from_dict(config.rules).check_players(row["players"])
            except ValueError as err:
                raise ValueError(f"agent {row['label']!r}: {err}") from None
            check_spec("uno", row["policy"], config.rules, row["players"])
            for habit in HABITS:  # and the versions of it that the habits are measured with
                check_spec("uno", without(row["policy"], habit), config.rules, row["players"])
        check_learners(config.learners)
        for row in config.learners:
            cfg, _ = learner_config(config, row)  # the recipe, the overrides and the target, checked
            if dict(cfg.rules) != dict(config.rules):
                raise ValueError(
                    f"learner {row['name']}: it trains under rules {dict(cfg.rules)} ({config.learner_config} and "
                    f"learner_overrides) but the study plays {dict(config.rules)}: give both the same rules"
                )
        return config

    def cells(self) -> list[TournamentConfig]:
        return [self.cell(n, r, p) for n in self.table_sizes for r in self.challenge for p in self.bluff]

    def cell(self, players: int, challenge: str, p: float) -> TournamentConfig:
        bluffer = {"name": self.base, "bluff": float(p), "challenge": self.bluffer_challenge, "label": "bluffer"}
        challenger = {"name": self.base, "bluff": 0.0, "challenge": challenge, "label": "challenger"}
        return self.one_against_the_rest(players, bluffer, challenger, self.games)

    def one_against_the_rest(
        self, players: int, one: dict[str, Any], rest: dict[str, Any], games: int
    ) -> TournamentConfig:
        """A tournament of ``one`` (labelled) against ``players - 1`` of ``rest`` in every seat in
        turn, on the study's duplicate deals (the same in every such tournament of a table size)
        and with a random stream per game (``streams: game``): two of them play a game alike until
        a policy that differs between them chooses otherwise, so their scores pair game by game."""
        return TournamentConfig(
            game="uno",
            players=players,
            rules=dict(self.rules),
            policies=[one, rest],
            lineups=[[one["label"]] + [rest["label"]] * (players - 1)],
            seating="rotations",
            games=games,
            batch=self.batch,
            seed=self.seed,
            streams="game",
            output=self.data,
            ratings="none",
        )


def run_study(data: dict[str, Any], console: Console) -> int:
    """Play every cell, print the tables, write the markdown report, JSON, CSV and plots."""
    config = BluffStudyConfig.from_mapping(data)
    check_outputs(config.report, config.data, files=(CELLS_JSON, CELLS_CSV, PLOT))
    cells = []
    for players in config.table_sizes:
        baseline: dict[str, np.ndarray] = {}
        for rule in config.challenge:
            for p in config.bluff:
                cell = config.cell(players, rule, p)
                console.print(f"{players} players, challengers '{rule}', bluffer p={p}: {cell.games:,} games")
                row, score, table_deal = play_cell(cell, console)  # the same deals in every cell of a table size
                if float(p) == 0.0:
                    baseline[rule] = score
                cells.append((row, score, table_deal))
        at_table = [(row, score) for row, score, _ in cells if row["players"] == players]
        honest_cells = [(r, s) for r, s in at_table if r["bluff"] == 0]
        best_row, best_score = min(honest_cells, key=lambda cell: cell[0]["win_rate"])
        for row, score in at_table:
            row["gain"], row["gain_low"], row["gain_high"] = paired(score, baseline[row["challenge"]], table_deal)
            # an honest player: what it wins more against this rule than against the rule it wins least against
            honest = row["bluff"] == 0
            over = paired(score, best_score, table_deal) if honest else (None, None, None)
            row["over_best"], row["over_best_low"], row["over_best_high"] = over
            row["best_rule"] = best_row["challenge"] if honest else None
    rows = [row for row, _, _ in cells]
    comparisons = compare_rules(cells)
    console.print(study_table(rows))
    folder = Path(config.data)
    from tournament.bluff_learners import earlier_learners, run_learners, survey_agents

    agents = survey_agents(config, console)
    learners = run_learners(config, console, earlier_learners(folder))
    data = json.dumps(
        json_ready(
            {
                "config": dataclasses.asdict(config),
                "cells": rows,
                "challenge_rules": comparisons,
                "agents": agents,
                "learners": learners,
            }
        ),
        indent=2,
    )
    table = cells_csv(rows)
    report, plot = Path(config.report), folder / PLOT
    text = markdown(config, rows, comparisons, plot, report, agents, learners)
    # every text made before any file is written, and the plot (the likeliest to fail) written
    # first, each file atomically: a failure leaves the earlier set whole
    plot_study(rows, plot)
    write_atomic(folder / CELLS_JSON, data + "\n")
    write_atomic(folder / CELLS_CSV, table)
    write_atomic(report, text)
    console.print(f"wrote {report}, {folder / CELLS_JSON}, {folder / CELLS_CSV}, {plot}")
    return 0


def paired(score: np.ndarray, other: np.ndarray, deal: np.ndarray | None = None) -> tuple[float, float, float]:
    """Mean of ``score - other`` over the same games, with its 95% interval (normal approximation).
    Given each game's ``deal``, the games of a deal count as one draw: the variance is the larger
    of the plain one and the one clustered by deal (as :func:`tournament.stats.clustered_design`)."""
    diff = score - other
    mean = float(diff.mean())
    variance = float(diff.var(ddof=1)) / diff.size
    if deal is not None:
        totals = np.bincount(deal, weights=diff)
        counts = np.bincount(deal).astype(np.float64)
        keep = counts > 0
        deals = int(keep.sum())
        if deals > 1:
            spread = float(np.square(totals[keep] - mean * counts[keep]).sum())
            variance = max(variance, deals / (deals - 1) * spread / diff.size**2)
    half = Z95 * math.sqrt(variance)
    return mean, mean - half, mean + half


def compare_rules(cells: list[tuple[dict[str, Any], np.ndarray, np.ndarray]]) -> list[dict[str, Any]]:
    """Per table size and bluffer: the best challenging rule (the bluffer wins least against
    it) against the next best, paired game by game over the same deals, as every cell replays
    them (``(row, score, deal)`` per cell, as :func:`play_cell` returns them)."""
    out = []
    for n in sorted({row["players"] for row, _, _ in cells}):
        for p in sorted({row["bluff"] for row, _, _ in cells}):
            ranked = sorted(
                ((row, score, deal) for row, score, deal in cells if row["players"] == n and row["bluff"] == p),
                key=lambda cell: cell[0]["win_rate"],
            )
            if len(ranked) < 2:
                continue
            (best, best_score, deal), (second, second_score, _) = ranked[0], ranked[1]
            margin, low, high = paired(second_score, best_score, deal)
            out.append(
                {
                    "players": n,
                    "bluff": p,
                    "best": best["challenge"],
                    "best_win_rate": best["win_rate"],
                    "second": second["challenge"],
                    "second_win_rate": second["win_rate"],
                    "margin": margin,
                    "margin_low": low,
                    "margin_high": high,
                }
            )
    return out


def play_scored(cell: TournamentConfig, console: Console) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
    """A one-lineup tournament with a progress bar: its results, where its first entrant sat
    (``bool [games, seats]``), that entrant's share of every game and each game's deal.
    Tournaments of the same seed, games and table replay the same deals in the same order, so
    two such scores pair (game by game exactly with ``streams: game``)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    schedule = build_schedule(cell)
    with Progress(
        "{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=True
    ) as bar:
        task = bar.add_task("games", total=schedule.num_games)
        results = run_tournament(cell, schedule, on_games=lambda n: bar.advance(task, n))
    first = schedule.seat_entrant == 0
    return results, first, (seat_scores(cell, results) * first).sum(axis=1), schedule.deal


def win_rate(score: np.ndarray, deal: np.ndarray) -> dict[str, Any]:
    """One entrant's win rate over its games (its share of each, ``score``) with its 95% interval,
    Wilson's clustered by deal: the games of one deal, the entrant in each seat in turn, are not
    independent draws."""
    totals, counts = np.bincount(deal, weights=score), np.bincount(deal)
    low, high = clustered_wilson(totals, counts)
    return {"games": int(score.size), "win_rate": float(score.mean()), "ci_low": low, "ci_high": high}


def play_cell(cell: TournamentConfig, console: Console) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """One cell's tournament: the bluffer's numbers, its score in every game and each game's deal
    (for pairing)."""
    results, is_bluffer, score, deal = play_scored(cell, console)  # the bluffer's share of each game
    n = score.size
    ev = results.events
    challenger = ~is_bluffer
    hands = int(results.hands.sum())
    row = {
        "players": cell.players,
        "challenge": cell.policies[1]["challenge"],
        "bluff": cell.policies[0]["bluff"],
        **win_rate(score, deal),
        "fair_share": 1 / cell.players,
        "bluffer_points_per_hand": float((results.hand_points * is_bluffer).sum() / hands),
        "wd4_per_game": float((ev["wd4_played"] * is_bluffer).sum() / n),
        "bluffs_per_game": float((ev["wd4_bluffs"] * is_bluffer).sum() / n),
        "bluffs_challenged": _ratio((ev["challenges_won"] * challenger).sum(), (ev["wd4_bluffs"] * is_bluffer).sum()),
        "challenges_per_game": float((ev["challenges"] * challenger).sum() / n),
        "challenge_success": _ratio((ev["challenges_won"] * challenger).sum(), (ev["challenges"] * challenger).sum()),
    }
    return row, score, deal


def _ratio(a: float, b: float) -> float:
    return float(a / b) if b else float("nan")


def study_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="Wild Draw Four bluffing: the bluffer's results")
    for c in (
        "players",
        "challengers",
        "bluff p",
        "win rate",
        "95% CI",
        "gain vs p=0 [95% CI]",
        "bluffs/game",
        "caught",
    ):
        table.add_column(c, justify="right")
    for r in rows:
        table.add_row(
            str(r["players"]),
            r["challenge"],
            f"{r['bluff']:g}",
            f"{r['win_rate']:.4f}",
            f"[{r['ci_low']:.4f}, {r['ci_high']:.4f}]",
            _gain(r),
            f"{r['bluffs_per_game']:.3f}",
            _pct(r["bluffs_challenged"]),
        )
    return table


def _gain(r: dict[str, Any]) -> str:
    if r["bluff"] == 0:
        return "(baseline)"
    return f"{100 * r['gain']:+.2f} pts [{100 * r['gain_low']:+.2f}, {100 * r['gain_high']:+.2f}]"


def _pct(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.0f}%"


def cells_csv(rows: list[dict[str, Any]]) -> str:
    import csv
    import io

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[-1]))
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def plot_study(rows: list[dict[str, Any]], path: Path) -> Path:
    """Per table size: the bluffer's win rate against p, one line per challenging rule."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({r["players"] for r in rows})
    fig, axes = plt.subplots(1, len(sizes), figsize=(5.2 * len(sizes), 4), squeeze=False)
    for ax, n in zip(axes[0], sizes, strict=True):
        for rule in CHALLENGE_RULES:
            cell = [r for r in rows if r["players"] == n and r["challenge"] == rule]
            if not cell:
                continue
            p = [r["bluff"] for r in cell]
            rate = np.array([r["win_rate"] for r in cell])
            err = np.array([[r["win_rate"] - r["ci_low"], r["ci_high"] - r["win_rate"]] for r in cell]).T.clip(0)
            ax.errorbar(p, rate, yerr=err, marker="o", capsize=3, label=f"challengers: {rule}")
        ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1, label="fair share")
        ax.set_title(f"{n} players: one bluffer vs {n - 1} challenger{'s' if n > 2 else ''}")
        ax.set_xlabel("bluffing probability p")
        ax.set_ylabel("bluffer's win rate (95% CI)")
        ax.legend(fontsize=8)
    return save_figure(fig, path)


def findings(rows: list[dict[str, Any]], comparisons: list[dict[str, Any]]) -> list[str]:
    """Plain-words answers, computed from the cells (significant = the 95% interval excludes 0;
    where that does not survive Holm's correction over all of them, the answer says so)."""
    lines = []
    gains = [r for r in rows if r["bluff"] > 0]
    p_values = [p_from_interval(r["gain"], r["gain_low"], r["gain_high"]) for r in gains]
    p_values += [p_from_interval(c["margin"], c["margin_low"], c["margin_high"]) for c in comparisons]
    adjusted = holm(p_values)
    tests = len(adjusted)
    # a verdict is marked only where the correction overturns it (the raw p reads the interval as
    # normal: near an edge it can disagree with the interval itself, which then stands)
    holds = {
        id(r): q < 0.05 or raw >= 0.05 for r, raw, q in zip([*gains, *comparisons], p_values, adjusted, strict=True)
    }

    def corrected(found: list[dict[str, Any]]) -> str:
        kept = [r for r in found if holds[id(r)]]
        if len(kept) == len(found):
            return ""
        return f" (once the study's {tests} tests are corrected for, Holm: {_ps(kept) if kept else 'none'})"

    for n in sorted({r["players"] for r in rows}):
        for rule in CHALLENGE_RULES:
            cell = [r for r in gains if r["players"] == n and r["challenge"] == rule]
            if not cell:
                continue
            best = max(cell, key=lambda r: r["gain"])
            worst = min(cell, key=lambda r: r["gain"])
            pays = [r for r in cell if r["gain_low"] > 0]
            costs = [r for r in cell if r["gain_high"] < 0]
            held = any(holds[id(r)] for r in pays + costs)  # a verdict stated in bold only where one holds
            pays_word = "**pays**" if held else "pays by the intervals alone"
            costs_word = "**costs**" if held else "costs by the intervals alone"
            if pays and not costs:
                verdict = (
                    f"bluffing {pays_word}: every p in {_ps(pays)}{corrected(pays)} beats honest play; the best, "
                    f"p={best['bluff']:g}, adds {100 * best['gain']:+.2f} points of win rate "
                    f"[{100 * best['gain_low']:+.2f}, {100 * best['gain_high']:+.2f}]"
                )
            elif costs and not pays:
                verdict = (
                    f"bluffing {costs_word}: p in {_ps(costs)}{corrected(costs)} loses against honest play; the worst, "
                    f"p={worst['bluff']:g}, changes the win rate by {100 * worst['gain']:+.2f} points "
                    f"[{100 * worst['gain_low']:+.2f}, {100 * worst['gain_high']:+.2f}]"
                )
            elif pays and costs:
                verdict = (
                    f"it depends on how often: p in {_ps(pays)}{corrected(pays)} pays (best p={best['bluff']:g}, "
                    f"{100 * best['gain']:+.2f} points), p in {_ps(costs)}{corrected(costs)} costs "
                    f"(worst p={worst['bluff']:g}, {100 * worst['gain']:+.2f} points)"
                )
            else:
                verdict = (
                    f"no bluffing rate differs measurably from honest play (gains from {100 * worst['gain']:+.2f} "
                    f"to {100 * best['gain']:+.2f} points, every interval includes 0)"
                )
            lines.append(f"- {n} players, challengers who challenge **{rule}**: {verdict}.")
    for c in comparisons:
        who = "an honest player" if c["bluff"] == 0 else f"a bluffer with p={c['bluff']:g}"
        if c["margin_low"] <= 0:
            clear = "not a measurable difference"
        elif holds[id(c)]:
            clear = "a real difference"
        else:
            clear = f"a difference by its own interval, not once the study's {tests} tests are corrected for (Holm)"
        lines.append(
            f"- {c['players']} players, against {who}: the best challenging rule is **{c['best']}** "
            f"(the bluffer wins {100 * c['best_win_rate']:.2f}%; against the next best, '{c['second']}', "
            f"{100 * c['second_win_rate']:.2f}%: {100 * c['margin']:+.2f} points "
            f"[{100 * c['margin_low']:+.2f}, {100 * c['margin_high']:+.2f}] paired over the same deals, {clear})."
        )
    return lines


def _honest_cost(smart: dict[str, Any], best: dict[str, Any]) -> str:
    """What challenging so often costs `smart` against an honest player, against the challenging
    rule an honest player wins least against (``best``): said as a cost only where the interval
    (paired game by game over the same deals, clustered by deal) leaves out 0."""
    if best is smart:
        return ", and no rule does better against honest play."
    diff, low, high = smart["over_best"], smart["over_best_low"], smart["over_best_high"]
    points = f"{100 * diff:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}] points"
    if low > 0:
        return (
            f" but pays for it against honest play: an honest player wins {points} more against it than "
            f"against `{best['challenge']}`."
        )
    return (
        f"; against honest play an honest player wins {points} more against it than against "
        f"`{best['challenge']}`, no cost these games can tell."
    )


def explanations(rows: list[dict[str, Any]]) -> list[str]:
    """Why the answers come out as they do, in numbers from the cells (the two-seat table, where
    every Wild Draw Four a challenger answers is the bluffer's)."""

    def cell(rule: str, p: float) -> dict[str, Any] | None:
        return next((r for r in rows if r["players"] == 2 and r["challenge"] == rule and r["bluff"] == p), None)

    lines = []
    top = max((r["bluff"] for r in rows), default=0.0)
    honest, bold = cell("never", 0.0), cell("never", top)
    if honest and bold and top > 0:
        lines.append(
            f"- An unchallenged bluff is not free: it spends the Wild Draw Four (50 points in hand, and the "
            f"card that answers any colour later) on a turn where a card of the colour in force would do. "
            f"Against `never` challengers the bluffer at p={top:g} plays {bold['bluffs_per_game']:.3f} bluffs "
            f"per game and its gain is {100 * bold['gain']:+.2f} points [{100 * bold['gain_low']:+.2f}, "
            f"{100 * bold['gain_high']:+.2f}]: the four cards given to the opponent are worth "
            + (
                "more than"
                if bold["gain_low"] > 0
                else "less than"
                if bold["gain_high"] < 0
                else "about (within the interval)"
            )
            + " what the spent wild would have been worth later."
        )
    smart = cell("smart", 0.0)
    if smart and smart["wd4_per_game"] > 0:
        share = smart["challenges_per_game"] / smart["wd4_per_game"]
        honest_rows = [r for r in (cell(rule, 0.0) for rule in CHALLENGE_RULES) if r]
        best = min(honest_rows, key=lambda r: r["win_rate"])
        lines.append(
            f"- The `smart` rule challenges {100 * share:.0f}% of an honest player's Wild Draw Fours (2 "
            "players; the few played as a last card, which no one can challenge, counted too), each one "
            "lost for 6 cards: its estimate of how likely the player held the colour "
            "comes from the unseen cards and the hand size alone, which is high for most hands, and cannot "
            "use the fact that the player chose to play the Wild Draw Four. So it catches almost every bluff "
            f"(see 'caught'){_honest_cost(smart, best)}"
        )
    return lines


def _half_widths(rows: list[dict[str, Any]]) -> str:
    """Median half-width of the paired gain intervals, per table size, in points of win rate."""
    sizes = sorted({r["players"] for r in rows})
    widths = []
    for n in sizes:
        half = [r["gain_high"] - r["gain"] for r in rows if r["players"] == n and r["bluff"] > 0]
        widths.append(f"{100 * float(np.median(half)):.2f}" if half else "-")
    return " and ±".join(widths)


def _game_length(config: BluffStudyConfig) -> str:
    """What one game of a cell is: a single hand, or a match to the rules' target."""
    rules = game_module("uno").Rules.from_dict(config.rules)
    return f"a match to {rules.target_score} points per game" if rules.match else "a single hand per game"


def _ps(cells: list[dict[str, Any]]) -> str:
    return "{" + ", ".join(f"{r['bluff']:g}" for r in cells) + "}"


def markdown(
    config: BluffStudyConfig,
    rows: list[dict[str, Any]],
    comparisons: list[dict[str, Any]],
    plot: Path,
    report: Path,
    agents: list[dict[str, Any]] | None = None,
    learners: list[dict[str, Any]] | None = None,
) -> str:
    from tournament.bluff_learners import chapter

    plot_link = os.path.relpath(plot, report.parent)
    games = rows[0]["games"]
    out = [
        "# Does bluffing with the Wild Draw Four pay?",
        "",
        f"Generated by `{config.command}` (seed {config.seed}); every number below comes from that run.",
        "",
        "## Setup",
        "",
        f"- Base strategy `{config.base}` for everyone. The **bluffer** plays an illegal Wild Draw Four "
        f"(holding the colour in force) with probability p when it helps, and answers Wild Draw Fours "
        f"with the `{config.bluffer_challenge}` rule. The **challengers** never bluff and answer with the "
        "rule of the cell: `never`, `always`, or `smart` (challenge when the estimated probability that "
        "the player held the colour in force, from the unseen cards and the player's hand size, "
        f"exceeds {BREAK_EVEN}, the break-even of drawing {W4} against drawing {INNOCENT}).",
        f"- Rules: {config.rules or 'the defaults of docs/uno.md'} ({_game_length(config)}, Wild Draw Four "
        f"challenge as in docs/uno.md: a guilty bluffer draws {W4}, an innocent one makes the challenger draw "
        f"{INNOCENT}).",
        f"- {games:,} games per cell: one bluffer and n-1 challengers, the bluffer in every seat in turn, on "
        + ", ".join(f"{math.ceil(games / n):,} duplicate deals at {n} players" for n in config.table_sizes)
        + ", the same deals in every cell of a table size.",
        f"- Why that many: a win rate over {games:,} games has a 95% interval of at most "
        f"±{100 * Z95 * math.sqrt(0.25 / games):.2f} points (at a rate of 0.5; wider where a deal's games "
        "move together: "
        "the intervals are clustered by deal). Every comparison below is paired game by game: all cells of "
        "a table size replay the same deals, and every game draws from a random stream of its own "
        "(`streams: game`), so a game in which the bluffer's coin changes nothing is the same game in both "
        f"cells. That narrows it a lot: the gains over honest play have intervals of ±{_half_widths(rows)} "
        "points (median over the cells at "
        f"{' and '.join(str(n) for n in config.table_sizes)} players). An effect of that size is reported as "
        "real, a smaller one as not measurable; effects of a point or more, the size that would change "
        "how to play, are resolved.",
        "",
        "## Answer",
        "",
        *findings(rows, comparisons),
        "",
        "Why:",
        "",
        *explanations(rows),
        "",
        f"![bluffer win rate against p]({plot_link})",
        "",
        "## Results",
        "",
        "Win rate: the bluffer's share of the games (fair share 1/n). Gain: its win rate minus that of the "
        "honest bluffer (p=0) on the same games, in percentage points, with a paired 95% interval. "
        "Caught: share of its bluffs that were challenged.",
        "",
        "| players | challengers | p | win rate | 95% CI | gain vs p=0 | W+4/game | bluffs/game | caught "
        "| challenges/game | challenges won | points/hand |",
        "|---:|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r['players']} | {r['challenge']} | {r['bluff']:g} | {r['win_rate']:.4f} | "
            f"[{r['ci_low']:.4f}, {r['ci_high']:.4f}] | {_gain(r)} | {r['wd4_per_game']:.3f} | "
            f"{r['bluffs_per_game']:.3f} | {_pct(r['bluffs_challenged'])} | {r['challenges_per_game']:.3f} | "
            f"{_pct(r['challenge_success'])} | {r['bluffer_points_per_hand']:.1f} |"
        )
    if agents or learners:
        out += ["", *chapter(config, agents or [], learners or [], rows)]
    out += [
        "",
        f"Data: `{config.data}/{CELLS_JSON}`, `{config.data}/{CELLS_CSV}`.",
        "",
    ]
    return "\n".join(out)


def load_study(path: str | Path) -> BluffStudyConfig:
    return BluffStudyConfig.from_mapping(read_yaml(path))
