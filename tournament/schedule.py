"""Which games a tournament plays: tables x seatings x duplicate deals, cut into shards.

Every game is an *item*: a table (a lineup of entrants, one per side), a seating (who
sits where) and a deal. Duplicate deals: a deal's seed is shared by every seating of
every table, and an engine game started from a seed gets the same sequence of decks
whatever is played (``envs.rng.next_deal_one``), so each entrant meets the
same cards from every seat. Shards are independent blocks of items whose results merge,
so a tournament can be spread over processes or machines and still add up to the same
numbers.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from envs import rng
from envs.games import game as game_info
from tournament.config import Entrant, TournamentConfig


@dataclasses.dataclass
class Schedule:
    """Every game of a tournament as arrays (``N`` games, ``P`` seats)."""

    entrants: list[Entrant]
    tables: list[tuple[int, ...]]  # entrant index per side
    policy_specs: list[object]  # one policy object per (entrant, member)
    policy_owner: list[int]  # entrant of each policy
    seat_side: np.ndarray  # int [N, P]: the table side sitting at each seat
    seat_entrant: np.ndarray  # int [N, P]
    seat_policy: np.ndarray  # int [N, P]: index into policy_specs
    table: np.ndarray  # int [N]
    deal: np.ndarray  # int [N]: deal number (shared by every seating and table)
    seed: np.ndarray  # uint64 [N]: the deal's seed
    deals: int  # deals per seating

    @property
    def num_games(self) -> int:
        return int(self.table.size)


def repeated_tables(schedule: Schedule) -> list[list[int]]:
    """Groups of two or more tables that play the same games: the same seatings of the same
    policies on every deal, however ``lineups`` ordered them (``[A, B]`` and ``[B, A]`` in
    rotations are one table). Most likely a slip: each copy plays and counts every deal again."""
    first_deal = schedule.deal == 0
    seatings: dict[frozenset, list[int]] = {}
    for t in range(len(schedule.tables)):
        rows = schedule.seat_policy[first_deal & (schedule.table == t)]
        seatings.setdefault(frozenset(map(tuple, rows.tolist())), []).append(t)
    return [tables for tables in seatings.values() if len(tables) > 1]


@dataclasses.dataclass(frozen=True)
class Shard:
    """A block of consecutive deals, each in every seating of every table: the unit of work
    a backend runs (``index`` seeds its policies, so a shard plays the same anywhere)."""

    index: int
    items: np.ndarray  # int [n]: the schedule's games, in order

    @property
    def num_games(self) -> int:
        return int(self.items.size)


def plan_shards(config: TournamentConfig, schedule: Schedule, shard_games: int | None = None) -> list[Shard]:
    """The tournament's shards: equal blocks of whole deals of about ``shard_games`` games
    (default: the config's ``shard_games``, or 3 x ``batch``).

    The plan depends on the config alone, never on the backend or the cluster, because
    a shard's policies are seeded by its index: the same plan is what makes the local and
    Ray backends agree game for game. Three batches per shard keep the local run about as
    fast as one big shard (each shard ends in a tail of long games stepped part-empty;
    smaller shards pay that tail more often: 1.5 batches cost the default tournament
    about 15% more time) while a big tournament still splits into many shards to spread
    over workers.
    """
    target = shard_games or config.shard_games or 3 * config.batch
    per_deal = schedule.num_games // schedule.deals  # games of one deal: every seating of every table
    count = min(schedule.deals, max(1, round(schedule.num_games / max(target, per_deal))))
    bounds = np.linspace(0, schedule.deals, count + 1).round().astype(np.int64) * per_deal
    return [Shard(k, np.arange(lo, hi)) for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))]


def seat_layout(config: TournamentConfig) -> list[tuple[int, int]]:
    """``(side, member)`` of each seat before any rotation: partners sit opposite in the trick game."""
    g = game_info(config.game)
    return [(g.side_of(s, config.players), s // 2 if g.teams else 0) for s in range(config.players)]


def build_schedule(config: TournamentConfig) -> Schedule:
    """All games of the (checked) config, ordered deal by deal so a shard holds whole deals."""
    entrants = config.entrants()
    tables = config.table_lineups(entrants)
    layout = seat_layout(config)
    policy_specs, policy_owner, policy_of = [], [], {}
    for e, entrant in enumerate(entrants):
        for m, spec in enumerate(entrant.specs):
            policy_of[e, m] = len(policy_specs)
            policy_specs.append(spec)
            policy_owner.append(e)

    # Distinct seatings per table: identical entrants at a table make some permutations equal.
    arrangements: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
    for t, lineup in enumerate(tables):
        seen = set()
        for order in config.seating_orders():
            slots = [layout[k] for k in order]  # (side, member) sitting at each seat
            sides = tuple(side for side, _ in slots)
            policies = tuple(policy_of[lineup[side], member] for side, member in slots)
            if policies not in seen:
                seen.add(policies)
                arrangements.append((t, sides, policies))
    deals = -(-config.games // len(arrangements))
    seeds = rng.game_seeds(config.seed, deals)
    N, P = deals * len(arrangements), config.players
    seat_side = np.empty((N, P), np.int64)
    seat_policy = np.empty((N, P), np.int64)
    table = np.empty(N, np.int64)
    for a, (t, sides, policies) in enumerate(arrangements):
        rows = slice(a, N, len(arrangements))  # deal-major order
        seat_side[rows] = sides
        seat_policy[rows] = policies
        table[rows] = t
    deal = np.repeat(np.arange(deals), len(arrangements))
    lineup = np.array(tables, np.int64)
    return Schedule(
        entrants=entrants,
        tables=tables,
        policy_specs=policy_specs,
        policy_owner=policy_owner,
        seat_side=seat_side,
        seat_entrant=lineup[table[:, None], seat_side],
        seat_policy=seat_policy,
        table=table,
        deal=deal,
        seed=seeds[deal],
        deals=deals,
    )
