"""What seeing the other hands is worth: the same search, in sampled worlds and in the true one.

A ceiling for classic UNO agents. :class:`agents.search.UnoSearchPolicy` plays every legal
action in ``worlds`` complete games and keeps the best; its worlds deal the unseen cards at
random among what the player could hold (``envs.uno.worlds``). :class:`TrueHandsSearch`
is the same search with the true hands in every world (only the draw pile's order is
shuffled, which nobody knows): a player that sees every hand. With ``heuristic`` rollouts
against ``heuristic`` opponents both searches also know exactly how the others play, so the
gap between them is what knowing the hands is worth to this planner. No policy may do this
(it reads the engine's state, not an observation): it is a measurement, not an entrant.
Between the two: the search with its worlds dealt by the shipped belief model
(:mod:`agents.belief`, a fair player's inference from its view), and by a sure belief, the
true holdings (:class:`SureBeliefSearch`, another cheat).

Every entrant plays the same deals (one engine seed; entrant ``k``'s seat in game ``g`` is
``g mod players``) against ``heuristic`` players on every other seat.

    python bench/information.py                 # 2 and 4 players, 4,000 games each (about 20 minutes)
    python bench/information.py --games 400     # a quick look (the intervals are wide)

Writes docs/information.md with its data in docs/information/ (JSON, CSV, PNG).
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

from agents.belief import true_holdings  # noqa: E402
from agents.learned import MODELS_DIR  # noqa: E402
from agents.policy import drawing_by_row  # noqa: E402
from agents.registry import check_spec, make_policy, spec_label  # noqa: E402
from agents.search import UnoSearchPolicy, view_keys  # noqa: E402
from envs.config import int_in, seed_arg  # noqa: E402
from envs.games import game as game_info  # noqa: E402
from envs.rng import RowStreams  # noqa: E402
from envs.uno import UnoEngine, UnoRules  # noqa: E402
from envs.uno.worlds import sample_worlds  # noqa: E402
from tournament.report import check_study_outputs, plot_win_rates, publish_study  # noqa: E402
from tournament.stats import wilson  # noqa: E402

#: The search compared: to the end of the hand, heuristic rollouts, every decision searched
#: (``bets: search``: with the true hands a challenge or a bluff is no bet).
SEARCH = {"worlds": 16, "depth": 0, "confidence": 1.0, "bets": "search"}
SAMPLED, TRUE = "search, sampled worlds", "search, true hands"
BELIEF = "search, worlds by the belief model"
SURE = "search, worlds by a sure belief (the true holdings)"
#: (label, entrant): a policy spec, or a key of :data:`CHEATS` (the search given the true state).
ENTRANTS: list[tuple[str, Any]] = [
    ("heuristic", "heuristic"),
    ("shipped agent", "shipped"),
    ("search, sampled worlds, bets: prior (the default bets)", {"name": "search", **SEARCH, "bets": "prior"}),
    (SAMPLED, {"name": "search", **SEARCH}),
    (BELIEF, {"name": "search", **SEARCH, "belief": "shipped"}),
    (SURE, "sure belief"),
    (TRUE, "true hands"),
]
CHUNK = 256  # decisions searched together by the true-hands search


class TrueHandsSearch(UnoSearchPolicy):
    """The search with the true state in every world (set :attr:`truth` to an engine of the
    games searched, in the order of the observations): a cheat, for measurement only."""

    truth: UnoEngine | None = None

    def sample_worlds(self, obs: np.ndarray, worlds: int, rng: RowStreams) -> UnoEngine:
        eng = self.truth.select(np.repeat(np.arange(obs.shape[0]), worlds))
        top, end, pile = eng.draw_top, eng.draw_end, eng.draw_pile
        position = np.arange(pile.shape[1])[None, :]
        inside = (position >= top[:, None]) & (position < end[:, None])
        # Random keys inside each draw pile (between its ends), the position itself outside:
        # sorting shuffles the pile and leaves every other slot where it was.
        keys = np.where(inside, top[:, None] + rng.random(pile.shape) * (end - top)[:, None], position)
        pile[:] = np.take_along_axis(pile, np.argsort(keys, axis=1, kind="stable"), axis=1)
        eng.game_seeds[:] = rng.integers(0, 2**63, size=eng.num_games, dtype=np.int64).astype(np.uint64)
        return eng


class SureBeliefSearch(TrueHandsSearch):
    """The search with its worlds dealt by ``sample_worlds`` from the true holdings as the
    belief (every share 0 or 1 but where a holder has some of a type's copies): what the
    worlds would be with a perfect belief model. A cheat, for measurement only."""

    def sample_worlds(self, obs: np.ndarray, worlds: int, rng: RowStreams) -> UnoEngine:
        held = true_holdings(self.truth).astype(np.float64)
        shares = held / np.maximum(held.sum(axis=1, keepdims=True), 1.0)
        return sample_worlds(obs, self.rules, worlds, rng, shares)[0]


CHEATS = {"true hands": TrueHandsSearch, "sure belief": SureBeliefSearch}


def entrant_spec(entrant: Any, players: int) -> Any:
    """The policy spec of an entrant that is no cheat (``shipped``: the table size's agent)."""
    if entrant != "shipped":
        return entrant
    shipped = game_info("uno").shipped_agents
    if players not in shipped:  # the table's own agent: another size's would measure a stranger
        raise ValueError(f"no agent is shipped for {players} players (shipped: {', '.join(map(str, shipped))} players)")
    return {"name": "agent", "checkpoint": str(MODELS_DIR / shipped[players])}


def check_table(players: int) -> None:
    """``ValueError`` unless every entrant can play at this table size (the shipped agent and
    belief model of that size exist), before hours of play."""
    UnoRules().check_players(players)
    for _, entrant in ENTRANTS:
        if not (isinstance(entrant, str) and entrant in CHEATS):
            check_spec("uno", entrant_spec(entrant, players), players=players)


def play(players: int, entrant: Any, games: int, seed: int) -> dict[str, Any]:
    """The entrant (a policy spec, a cheat's key or a policy object) at seat ``g mod players`` of
    game ``g``, ``heuristic`` elsewhere: its wins."""
    eng = UnoEngine(games, players, UnoRules(), seed=seed, auto_reset=False)
    obs, mask = eng.reset()
    seat = np.arange(games) % players
    others = make_policy("uno", "heuristic", seed=seed + 1)
    cheat = isinstance(entrant, str) and entrant in CHEATS
    if cheat:
        policy = CHEATS[entrant](seed=seed + 2, **SEARCH)
    elif callable(entrant):  # a policy object (another bench's measurement)
        policy = entrant
    else:
        policy = make_policy("uno", entrant_spec(entrant, players), seed=seed + 2)
    won = np.zeros(games, bool)
    over = np.zeros(games, bool)
    start = time.perf_counter()
    while not over.all():
        mine = ~over & (eng.current_player == seat)
        actions = np.zeros(games, np.int64)
        theirs = (~over & ~mine).nonzero()[0]
        if theirs.size:
            actions[theirs] = others(obs[theirs], mask[theirs])
        rows = mine.nonzero()[0]
        if rows.size and cheat:
            with drawing_by_row(policy.rollout, view_keys(policy.key, obs[rows], mask[rows])):
                actions[rows] = policy.rollout(obs[rows], mask[rows])  # the prior, as SearchPolicy.__call__ takes it
            choice = rows[mask[rows].sum(axis=1) > 1]
            for lo in range(0, choice.size, CHUNK):
                part = choice[lo : lo + CHUNK]
                policy.truth = eng.select(part)
                actions[part] = policy.choose(obs[part], mask[part], actions[part])
        elif rows.size:
            actions[rows] = policy(obs[rows], mask[rows])
        obs, mask, _, done = eng.step(actions)
        ended = done & ~over
        won[ended] = eng.game_winners[ended, seat[ended]]
        over |= ended
    low, high = wilson(float(won.sum()), games)
    return {
        "games": games,
        "win_rate": float(won.mean()),
        "ci_low": low,
        "ci_high": high,
        "minutes": (time.perf_counter() - start) / 60,
    }


def report(rows: list[dict[str, Any]], games: int, command: str) -> str:
    def table(players: int) -> str:
        lines = ["| entrant | win rate | 95% CI | minutes |", "|---|---:|---|---:|"]
        for r in rows:
            if r["players"] == players:
                lines.append(
                    f"| {r['label']} | {r['win_rate']:.3f} | [{r['ci_low']:.3f}, {r['ci_high']:.3f}] | "
                    f"{r['minutes']:.1f} |"
                )
        return "\n".join(lines)

    def rate(players: int, label: str) -> float:
        return next(r["win_rate"] for r in rows if r["players"] == players and r["label"] == label)

    def moved(players: int, label: str) -> str:
        """``label``'s gain over the sampled worlds in points, with a 95% interval from both rows'
        standard errors (the rows share their deals, which makes it conservative), and its share
        of the way to the true hands."""
        mine = [r for r in rows if r["players"] == players and r["label"] in (label, SAMPLED)]
        se = np.sqrt(sum(r["win_rate"] * (1 - r["win_rate"]) / r["games"] for r in mine))
        diff, gap = rate(players, label) - rate(players, SAMPLED), rate(players, TRUE) - rate(players, SAMPLED)
        share = f", {diff / gap:.0%} of the way to the true hands" if gap > 0 else ""
        return f"{100 * diff:+.1f} [{100 * (diff - 1.96 * se):+.1f}, {100 * (diff + 1.96 * se):+.1f}] points{share}"

    sections = []
    for players in sorted({r["players"] for r in rows}):
        gap = rate(players, TRUE) - rate(players, SAMPLED)
        fair = rate(players, SAMPLED) - rate(players, "heuristic")
        agent = rate(players, "shipped agent") - 1 / players
        sections.append(
            f"## {players} players, against {players - 1} `heuristic` player{'s' if players > 2 else ''}\n\n"
            f"{table(players)}\n\n"
            f"Seeing the hands is worth {100 * gap:+.1f} points of win rate to this search. In sampled "
            f"worlds it wins {100 * fair:+.1f} points against `heuristic` in its seat (its own rollout "
            f"policy); the shipped agent {100 * agent:+.1f} points over a fair share ({1 / players:.3f}). "
            f"Dealing the worlds by the belief model moves the search {moved(players, BELIEF)}; by a sure "
            f"belief, {moved(players, SURE)}."
        )
    body = "\n\n".join(sections)
    return f"""# What seeing the other hands is worth

Generated by `{command}` ({games:,} games per entrant, all on the same deals, the entrant's
seat rotating with the deal; `heuristic` on every other seat). The search is
`agents/search.py` with {SEARCH["worlds"]} worlds, `heuristic` rollouts to the end of the hand and
confidence {SEARCH["confidence"]:g}: in *sampled worlds* it deals the unseen cards at random among what
the player could hold (`envs/uno/worlds.py`), as every policy here must; with the *true
hands* (`TrueHandsSearch` in `bench/information.py`) every world holds the real hands and
only the draw pile is shuffled. Both search every decision, the Wild Draw Four's bets too
(`bets: search`: with the true hands a bluff or a challenge is no bet), and both know
exactly how the opponents play (the rollouts are theirs), so the difference between those
two rows is the value of the hands alone. The *belief model* row is the same search with the
worlds dealt where a learned belief (`agents/belief.py`, `models/uno_<n>p_belief.pt`, fitted
to where the cards were in games of `heuristic` play) expects the unseen cards, from the
player's view only: how much of that value inference from the view recovers. The *sure
belief* row (`SureBeliefSearch`, a cheat like the true hands) deals the worlds the same way
from the true holdings: what a perfect belief model would give, which checks that dealing by
a belief loses nothing of the hands' value. The `bets: prior` row is this sampled-worlds search
with the default bets, keeping the rollout policy's (the search's default also looks only 8
moves ahead and scores there with the shipped agent's critic: not these rows). The true-hands search reads the
engine's state: it is a ceiling to measure against, not a policy any table may seat.

{body}

What it says: how much of a table's result is decided by what the cards are rather than by
how they are played. A fair agent cannot see the hands; it can only infer them from what
was played (the observation's public history: `void_colours`, `void_draws`,
`chosen_colours`). The gap is what perfect inference would add to this planner; a fair
player can only win part of it, and a better planner could add more on top.

![win rates](information/information.png)
"""


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    plot_win_rates(
        rows,
        [f"{r['players']} players: {r['label']}" for r in rows],
        path,
        "win rate against heuristic players (95% CI); dashed: a fair share",
        [1 / players for players in sorted({r["players"] for r in rows})],
        width=7,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int_in(1), default=4000, help="games per entrant and table size")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4], help="table sizes (2 and 4 have agents)")
    parser.add_argument("--seed", type=seed_arg, default=11)
    parser.add_argument("--report", type=Path, default=ROOT / "docs" / "information.md")
    parser.add_argument("--data", type=Path, default=ROOT / "docs" / "information")
    args = parser.parse_args(argv)
    check_study_outputs(parser, args.report, args.data)
    for players in args.players:
        try:
            check_table(players)
        except ValueError as err:
            parser.error(f"--players {players}: {err}")
    rows = []
    for players in args.players:
        for label, entrant in ENTRANTS:
            print(f"{players} players, {label}: ", end="", flush=True)
            row = {
                "players": players,
                "label": label,
                "entrant": entrant if isinstance(entrant, str) else spec_label(entrant),
                **play(players, entrant, args.games, args.seed),
            }
            print(
                f"{row['win_rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}] ({row['minutes']:.1f} min)",
                flush=True,
            )
            rows.append(row)
    extra = (f" --games {args.games}" if args.games != 4000 else "") + (
        f" --players {' '.join(map(str, args.players))}" if args.players != [2, 4] else ""
    )
    command = "python bench/information.py" + extra
    fields = ["players", "label", "entrant", "games", "win_rate", "ci_low", "ci_high", "minutes"]
    plot(rows, args.data / "information.png")
    publish_study(args.report, report(rows, args.games, command), args.data, "information", rows, fields)
    return 0


if __name__ == "__main__":
    sys.exit(main())
