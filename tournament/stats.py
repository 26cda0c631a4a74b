"""From game results to the tournament's numbers: win rates with intervals, points, ratings, head to head.

- Win rate: a game's win is shared by tied winners (and, in the trick game, a drawn game
  counts half to each team). The 95% interval is Wilson's score interval on an effective
  number of games: the games of one duplicate deal are not independent. In classic UNO
  they are negatively correlated (Wilson's interval is then, if anything, conservative),
  but in the trick game positively: measured, the variance of the win rate clustered by
  deal is 1.3-1.9 times the binomial one, and a plain Wilson interval covered 86-92%
  instead of 95%. So the games count ``n / deff``, ``deff`` the design effect clustered by
  deal (never below 1: :func:`clustered_wilson`).
- Head to head (two-sided tables): the score of one entrant against another with its
  clustered Wilson interval, and the p-value of an even score from the score test that
  interval inverts, on the same effective number of games (so the two agree at 5% wherever
  there are two deals or more; one deal gives no p-value), then adjusted by Holm's method
  over the matrix's pairs. Both use the normal quantile: with a few dozen deals or fewer
  they can be a little less conservative than a t-test over the deals' scores (10 deals:
  p = 0.041 where the t-test gives 0.053), and fewer than :data:`FEW_DEALS` deals are
  noted. The duplicate deals remove much of the luck of the cards from the comparison.
- Ratings: OpenSkill's Plackett-Luce model over every game, in ``rating_orders`` shuffled
  orders (a single order moves ``mu`` by about ``sigma``): ``mu`` and ``sigma`` are the
  library's averaged over the orders, ``mu_spread`` the spread of ``mu`` across them, and
  ``ordinal = mu - 3 sigma`` a conservative rank.
"""

from __future__ import annotations

from statistics import NormalDist
from typing import Any

import numpy as np

from envs.games import game as game_info
from tournament.config import TournamentConfig
from tournament.runner import Results
from tournament.schedule import Schedule
from tournament.tallies import tally_of

Z95 = NormalDist().inv_cdf(0.975)  # 1.95996...; scipy is imported where a test needs it (its import costs ~1 s)


def p_from_interval(estimate: float, low: float, high: float) -> float:
    """The two-sided p-value of "no difference" for an estimate with a 95% interval, reading
    the interval as normal (its half-width is 1.96 standard errors)."""
    se = (high - low) / (2 * Z95)
    if se <= 0:
        return 0.0 if estimate else 1.0
    return 2 * (1 - NormalDist().cdf(abs(estimate) / se))


def interval_se(row: dict[str, Any]) -> float:
    """The standard error a row's 95% interval stands for, ``(ci_high - ci_low) / (2 * 1.96)``:
    the deal-clustered one of :func:`clustered_wilson`, which a binomial ``sqrt(p (1 - p) / n)``
    understates in the trick game. A row without an interval (older data) gives the binomial."""
    if row.get("ci_low") is None or row.get("ci_high") is None:
        return float(np.sqrt(row["win_rate"] * (1 - row["win_rate"]) / row["games"]))
    return (row["ci_high"] - row["ci_low"]) / (2 * Z95)


def difference(later: dict[str, Any], earlier: dict[str, Any]) -> tuple[float, float, float]:
    """``later``'s win rate minus ``earlier``'s with a 95% interval: each row's clustered
    standard error (:func:`interval_se`) combined as if the rows were independent."""
    diff = later["win_rate"] - earlier["win_rate"]
    half = Z95 * float(np.hypot(interval_se(later), interval_se(earlier)))
    return diff, diff - half, diff + half


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment: p-values that can be read at 5% all at once (the chance
    that any of a family's true "no difference" is called a difference stays under 5%)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [1.0] * len(p_values), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (successes may be fractional: shared wins)."""
    if n == 0:
        return float("nan"), float("nan")
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # At 0 and n the bounds are exactly 0 and 1 (rounding would leave 3e-18 above a score of 0).
    low = 0.0 if successes <= 0 else max(0.0, float(centre - half))
    high = 1.0 if successes >= n else min(1.0, float(centre + half))
    return low, high


def clustered_design(totals: np.ndarray, counts: np.ndarray) -> tuple[float, float, float, int]:
    """``(p, n, deff, deals)`` of ``p = sum(totals) / sum(counts) = sum(totals) / n`` where
    ``totals[d]`` and ``counts[d]`` are one deal's wins and games: ``deff`` is the variance of
    the ratio estimate clustered by deal over the binomial variance, at least 1 (the clustered
    variance is ``D / (D - 1) * sum((T_d - p m_d)^2) / n^2`` over the ``D`` deals played), so
    the games count ``n / deff``. ``p`` is nan where no game was played."""
    keep = counts > 0
    totals, counts = np.asarray(totals, np.float64)[keep], np.asarray(counts, np.float64)[keep]
    n = float(counts.sum())
    if n == 0:
        return float("nan"), 0.0, 1.0, 0
    p, deals = float(totals.sum()) / n, totals.size
    deff = 1.0
    if deals > 1 and 0.0 < p < 1.0:
        clustered = deals / (deals - 1) * float(np.square(totals - p * counts).sum()) / (n * n)
        deff = max(1.0, clustered / (p * (1.0 - p) / n))
    return p, n, deff, deals


def clustered_wilson(totals: np.ndarray, counts: np.ndarray, z: float = Z95) -> tuple[float, float]:
    """Wilson's interval of ``sum(totals) / sum(counts)`` on the effective number of games
    ``n / deff`` (:func:`clustered_design`): one deal's games are not independent."""
    p, n, deff, _ = clustered_design(totals, counts)
    if n == 0:
        return float("nan"), float("nan")
    return wilson(p * n / deff, n / deff, z)


def clustered_p_value(totals: np.ndarray, counts: np.ndarray, null: float = 0.5) -> float:
    """The two-sided p-value of "the rate is ``null``" from the score test that Wilson's
    interval inverts, on the same effective number of games as :func:`clustered_wilson`:
    ``p < 0.05`` exactly where that interval leaves ``null`` out. Fewer than two deals give no
    estimate of the clustering, so no evidence (1.0)."""
    p, n, deff, deals = clustered_design(totals, counts)
    if deals < 2:
        return 1.0
    z = abs(p - null) / float(np.sqrt(null * (1 - null) / (n / deff)))
    return float(2 * NormalDist().cdf(-z))


def seat_scores(config: TournamentConfig, results: Results) -> np.ndarray:
    """Each seat's share of each game: 1 for a sole winner, 1/k for k tied winners;
    a drawn trick game (no winner) gives every seat 1/2."""
    winners = results.winners.astype(np.float64)
    count = winners.sum(axis=1, keepdims=True)
    if game_info(config.game).teams:
        return np.where(count > 0, winners, 0.5)
    return winners / np.maximum(count, 1)


def summarise(config: TournamentConfig, schedule: Schedule, results: Results) -> dict[str, Any]:
    """All the tournament's statistics as plain JSON-serialisable data."""
    played = results.played
    score = seat_scores(config, results)[played]
    entrant = schedule.seat_entrant[played]
    per_side = 2 if game_info(config.game).teams else 1  # partners share one team result
    rows = []
    rules = config.rules_object()
    tally = tally_of(config.game)
    deal = np.broadcast_to(schedule.deal[played][:, None], entrant.shape)  # each seat's deal
    for e, ent in enumerate(schedule.entrants):
        at = entrant == e
        appearances = int(at.sum()) // per_side
        if not appearances:
            continue
        wins = float(score[at].sum()) / per_side
        per_deal = np.bincount(deal[at], weights=score[at], minlength=schedule.deals) / per_side
        low, high = clustered_wilson(per_deal, np.bincount(deal[at], minlength=schedule.deals) / per_side)
        row: dict[str, Any] = {
            "entrant": ent.label,
            "games": appearances,
            "wins": wins,
            "win_rate": wins / appearances,
            "ci_low": low,
            "ci_high": high,
            "fair_share": 1 / config.sides,
        }
        tally.row(row, results, played, at, rules)
        rows.append(row)
    summary: dict[str, Any] = {
        "game": config.game,
        "players": config.players,
        "rules": rules.to_dict(),
        "games": int(played.sum()),
        "deals": schedule.deals,
        "tables": len(schedule.tables),
        "games_per_deal": int(schedule.num_games // schedule.deals),  # every table in each of its seatings
        "mean_decisions": float(results.decisions[played].mean()),
        "entrants": rows,
    }
    summary["notes"] = few_deals_notes([e.label for e in schedule.entrants], deal, entrant)
    if config.sides == 2:
        summary["head_to_head"] = head_to_head(config, schedule, results)
    if config.ratings == "openskill":
        summary["ratings"] = openskill_ratings(config, schedule, results)
    return summary


#: An interval resting on fewer duplicate deals than this comes with a warning.
FEW_DEALS = 10


def few_deals_notes(labels: list[str], deal: np.ndarray, entrant: np.ndarray) -> list[str]:
    """A warning where an entrant's games come from fewer than :data:`FEW_DEALS` duplicate deals
    (``deal`` and ``entrant``: each played seat's): its interval's design effect is then
    estimated from that few deals (not at all from one), so the interval can be much too narrow."""
    few: dict[int, list[str]] = {}
    for e in np.unique(entrant):
        deals = int(np.unique(deal[entrant == e]).size)
        if deals < FEW_DEALS:
            few.setdefault(deals, []).append(labels[e])
    return [
        f"{', '.join(names)}: the 95% interval rests on {_deals(deals)} (fewer than {FEW_DEALS}), too few to "
        "measure how a deal's games move together; it can be much too narrow: play more games"
        for deals, names in sorted(few.items())
    ]


def _deals(n: int) -> str:
    return f"{n:,} duplicate deal{'s' * (n != 1)}"


def head_to_head(config: TournamentConfig, schedule: Schedule, results: Results) -> dict[str, Any]:
    """Score matrix of two-sided tables: ``score[a][b]`` = a's share of the games between a and b,
    with its interval (:func:`clustered_wilson`), the p-value of an even score from the same
    clustered standard error (:func:`clustered_p_value`: the two agree at 5% from two deals on;
    one deal gives p = 1), and that p-value adjusted by Holm's method over the matrix's pairs
    (``p_value_holm``: read all of the matrix at 5% at once)."""
    labels = [e.label for e in schedule.entrants]
    k = len(labels)
    share = seat_scores(config, results)
    side0 = np.argmax(schedule.seat_side == 0, axis=1)  # a seat of each table's side 0
    ar = np.arange(schedule.num_games)
    side0_score = share[ar, side0]
    score = np.full((k, k), np.nan)
    low, high, p_value, p_holm = score.copy(), score.copy(), score.copy(), score.copy()
    games = np.zeros((k, k), np.int64)
    side0_entrant = np.asarray([lineup[0] for lineup in schedule.tables])
    pairs: dict[tuple[int, int], list[int]] = {}  # every table of a pair, whichever side each sits on
    for t, lineup in enumerate(schedule.tables):
        if lineup[0] != lineup[1]:
            pairs.setdefault((min(lineup[0], lineup[1]), max(lineup[0], lineup[1])), []).append(t)
    tested: list[tuple[int, int]] = []
    for (a, b), tables in pairs.items():
        rows = np.isin(schedule.table, tables) & results.played
        n = int(rows.sum())
        if not n:
            continue
        a_first = side0_entrant[schedule.table[rows]] == a
        a_score = np.where(a_first, side0_score[rows], 1.0 - side0_score[rows])  # a's share of each game
        s = float(a_score.sum())
        totals = np.bincount(schedule.deal[rows], weights=a_score, minlength=schedule.deals)
        per_count = np.bincount(schedule.deal[rows], minlength=schedule.deals)
        p = clustered_p_value(totals, per_count)
        for x, y, sx, tx in ((a, b, s, totals), (b, a, n - s, per_count - totals)):
            games[x, y] = n
            score[x, y] = sx / n
            low[x, y], high[x, y] = clustered_wilson(tx, per_count)
            p_value[x, y] = p
        tested.append((a, b))
    for (a, b), adjusted in zip(tested, holm([float(p_value[a, b]) for a, b in tested]), strict=True):
        p_holm[a, b] = p_holm[b, a] = adjusted
    return {
        "labels": labels,
        "score": score.tolist(),
        "ci_low": low.tolist(),
        "ci_high": high.tolist(),
        "games": games.tolist(),
        "p_value": p_value.tolist(),
        "p_value_holm": p_holm.tolist(),
    }


#: Games whose entrants and ranks :func:`openskill_ratings` works out at once (bounded memory).
_RATING_CHUNK = 65_536


def openskill_ratings(config: TournamentConfig, schedule: Schedule, results: Results) -> list[dict[str, Any]]:
    """OpenSkill (Plackett-Luce) ratings from every game; an entrant at several seats of a
    table counts as one competitor that wins if any of its seats wins.

    OpenSkill rates one game at a time, and the order of the games moves an entrant's ``mu``
    by about its ``sigma`` (enough to rank against the head to head), so the games are rated in
    ``config.rating_orders`` shuffled orders (seeded by ``config.seed``; the first is the
    order a single one would use): ``mu`` and ``sigma`` are the means over the orders,
    ``ordinal = mu - 3 sigma``, and ``mu_spread`` is the standard deviation of ``mu`` across
    the orders (the order noise left in the mean is about ``mu_spread / sqrt(orders)``)."""
    played = np.flatnonzero(results.played)
    rng = np.random.default_rng(config.seed)
    runs = [_rate_in_order(config, schedule, results, rng.permutation(played)) for _ in range(config.rating_orders)]
    present = {schedule.entrants[e].label for e in np.unique(schedule.seat_entrant[played])}
    out = []
    for label in (e.label for e in schedule.entrants):
        if label not in present:
            continue
        mu = np.array([run[label][0] for run in runs])
        sigma = float(np.mean([run[label][1] for run in runs]))
        out.append(
            {
                "entrant": label,
                "mu": float(mu.mean()),
                "sigma": sigma,
                "ordinal": float(mu.mean()) - 3 * sigma,
                "mu_spread": float(mu.std(ddof=1)) if mu.size > 1 else 0.0,
                "orders": int(mu.size),
            }
        )
    return sorted(out, key=lambda r: -r["ordinal"])


def _rate_in_order(
    config: TournamentConfig, schedule: Schedule, results: Results, order: np.ndarray
) -> dict[str, tuple[float, float]]:
    """Every entrant's ``(mu, sigma)`` after rating the games in ``order``, one at a time.

    ``tau=0``: scripted and frozen policies do not change during a tournament, so the
    ratings must converge rather than track drift (the default tau keeps sigma near 1.7
    for ever and lets the last few hundred games reorder the table)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    labels = [e.label for e in schedule.entrants]
    players = {label: model.rating(name=label) for label in labels}
    share = seat_scores(config, results)
    for start in range(0, order.size, _RATING_CHUNK):
        games = order[start : start + _RATING_CHUNK]
        # Each game's entrants and their best seat's share, a chunk at once: [games, entrants].
        seated = schedule.seat_entrant[games][:, :, None] == np.arange(len(labels))  # [N, P, E]
        present = seated.any(axis=1)
        best = np.where(seated, share[games][:, :, None], -np.inf).max(axis=1)
        ranks = best.max(axis=1, keepdims=True) - best  # 0 for the winner(s): tied winners share rank 0
        for n in np.flatnonzero(present.sum(axis=1) >= 2):  # OpenSkill rates one game at a time, in order
            entrants = np.flatnonzero(present[n])
            rated = model.rate([[players[labels[e]]] for e in entrants], ranks=ranks[n, entrants].tolist())
            for e, team in zip(entrants, rated, strict=True):
                players[labels[e]] = team[0]
    return {label: (r.mu, r.sigma) for label, r in players.items()}
