"""Play a tournament's games, batched: one engine, thousands of games, one policy call per policy per step.

A tournament is a list of shards (``tournament.schedule.Shard``: a block of deals x every
seating of every table). :func:`play_shard` plays one shard with policies seeded by the
shard's index alone and returns that shard's results, so shards can run anywhere, in any
order, and still merge (:func:`merge_shards`, in shard order) into the same numbers:
:func:`run_tournament` runs them here, in order; ``tournament.ray_backend`` on a Ray cluster.

The engine's slots take the shard's games in order; when a game ends its slot starts
the next one from that deal's seed (``next_game_seeds``), so no slot idles until the
shard runs out of games. The runner is the referee: it reads results from the engine
(winners, scores, hand points, Wild Draw Four events), while each policy only sees the
observations and masks of the games where it is to act.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

import numpy as np

from agents.policy import drawing_by_row
from agents.registry import make_policy
from envs import rng
from envs.core import IllegalActionError, policy_answer
from envs.games import game_module
from tournament.config import TournamentConfig
from tournament.schedule import Schedule, Shard, plan_shards
from tournament.tallies import tally_of


@dataclasses.dataclass
class Results:
    """What happened in each game of a schedule (``N`` games, ``P`` seats); shards merge by item."""

    winners: np.ndarray  # bool [N, P]: won (ties share; partners both)
    scores: np.ndarray  # int [N, P]: final points (match scores, the winner's hand, team points)
    hand_points: np.ndarray  # int [N, P]: points scored over the game's hands
    hands: np.ndarray  # int [N]: hands played (1 in a game without hands: the tally says)
    decisions: np.ndarray  # int [N]
    events: dict[str, np.ndarray]  # int [N, P] per event name
    played: np.ndarray  # bool [N]

    @classmethod
    def empty(cls, n: int, players: int, event_names: tuple[str, ...]) -> Results:
        def z() -> np.ndarray:
            return np.zeros((n, players), np.int64)

        return cls(
            winners=np.zeros((n, players), bool),
            scores=z(),
            hand_points=z(),
            hands=np.zeros(n, np.int64),
            decisions=np.zeros(n, np.int64),
            events={name: z() for name in event_names},
            played=np.zeros(n, bool),
        )

    def put(self, items: np.ndarray, shard: Results) -> None:
        """Write a shard's results (row ``k`` is game ``items[k]``) into these."""
        for field in ("winners", "scores", "hand_points", "hands", "decisions", "played"):
            getattr(self, field)[items] = getattr(shard, field)
        for name, values in self.events.items():
            values[items] = shard.events[name]


def make_engine(config: TournamentConfig, num_games: int) -> Any:
    return game_module(config.game).Engine(num_games, config.players, config.rules_object(), seed=0)


#: Builds a seeded policy from ``(game, spec, seed, rules)``; a Ray worker passes one that caches checkpoints.
PolicyMaker = Callable[[str, Any, int, Any], Any]


def make_policies(config: TournamentConfig, schedule: Schedule, shard: int, maker: PolicyMaker = make_policy) -> list:
    """One seeded policy object per (entrant, member); seeds depend on the shard only."""
    seeds = rng.game_seeds(config.seed ^ 0x5EED, (shard + 1) * len(schedule.policy_specs))
    seeds = seeds[shard * len(schedule.policy_specs) :]
    return [
        maker(config.game, spec, int(seed), config.rules)
        for spec, seed in zip(schedule.policy_specs, seeds, strict=True)
    ]


class PolicyError(ValueError):
    """A policy answered outside the protocol (not one integer action id per game)."""


def chosen(schedule: Schedule, k: int, actions: Any, n: int) -> np.ndarray:
    """Policy ``k``'s answer for ``n`` games, checked (:func:`envs.core.policy_answer`)."""
    return policy_answer(actions, n, f"policy {schedule.policy_specs[k]!r}", PolicyError)


def too_long(config: TournamentConfig) -> str:
    """Why a tournament stopped at ``max_decisions``: the limit was reached; the rules that let
    players never end a game are named only where they are on (under the default rules a game
    that long is a policy's doing or a very long match, not theirs)."""
    text = (
        f"a game has gone {config.max_decisions:,} decisions without an end (max_decisions reached); stopped "
        "instead of running forever. Raise max_decisions for matches that long"
    )
    rules = config.rules_object()
    if getattr(rules, "draw_anytime", False) and not getattr(rules, "must_play_drawn", True):
        text += (
            ". The rules set no limit on a game's length: with draw_anytime and must_play_drawn=false, players "
            "who only draw and keep never end a game once both piles are empty"
        )
    return text


def play_shard(
    config: TournamentConfig,
    schedule: Schedule,
    shard: Shard,
    on_games: Callable[[int], None] | None = None,
    maker: PolicyMaker = make_policy,
) -> Results:
    """Play a shard's games; their results, row ``k`` for game ``shard.items[k]``."""
    policies = make_policies(config, schedule, shard.index, maker)
    items = shard.items
    tally = tally_of(config.game)
    results = Results.empty(items.size, config.players, tally.events)
    B = min(config.batch, items.size)
    eng = make_engine(config, B)
    P = eng.num_players
    slot_item = np.arange(B)  # position in the shard of each slot's game
    queued = B  # the shard's games from this position on wait for a free slot
    idle = np.zeros(B, bool)  # the shard has no game left for the slot: it replays, unrecorded

    def next_game_seeds(slots: np.ndarray) -> np.ndarray:
        """Called by the engine for slots whose game ended: the seeds of their next games."""
        nonlocal queued
        nxt = np.arange(queued, min(queued + slots.size, items.size))
        queued += nxt.size
        slot_item[slots[: nxt.size]] = nxt
        idle[slots[nxt.size :]] = True
        return schedule.seed[items[slot_item[slots]]]

    finished_items = slot_item.copy()
    per_game = config.streams == "game"  # each game's random numbers from a stream of its own
    game_keys = rng.mix_keys(schedule.seed[items], items.astype(np.uint64))  # by the place in the schedule
    eng.next_game_seeds = next_game_seeds
    obs, mask = eng.reset(seed=schedule.seed[items[slot_item]])
    seat_policy = schedule.seat_policy[items[slot_item]]
    ar = np.arange(B)
    decisions = np.zeros(B, np.int64)
    hand_points = np.zeros((B, P), np.int64)
    hands = np.zeros(B, np.int64)
    events = {name: np.zeros((B, P), np.int64) for name in results.events}
    remaining = items.size
    actions = np.empty(B, np.int64)
    while remaining:
        acting = seat_policy[ar, eng.current_player]
        present = np.bincount(acting, minlength=len(policies)).nonzero()[0]
        keys = rng.mix_keys(game_keys[slot_item], decisions) if per_game else None
        if present.size == 1:
            with drawing_by_row(policies[present[0]], keys) if per_game else nullcontext():
                actions[:] = chosen(schedule, present[0], policies[present[0]](obs, mask), B)
        else:
            for k in present:
                rows = (acting == k).nonzero()[0]
                with drawing_by_row(policies[k], keys[rows]) if per_game else nullcontext():
                    actions[rows] = chosen(schedule, k, policies[k](obs[rows], mask[rows]), rows.size)
        if events:
            tally.count(eng, actions, events)
        finished_items[:] = slot_item
        was_idle = idle.copy()
        try:
            obs, mask, _, done = eng.step(actions)
        except IllegalActionError as err:  # the engine names the game and move; say whose policy chose it
            in_range = (actions >= 0) & (actions < mask.shape[1])
            legal = in_range & mask[ar, np.where(in_range, actions, 0)].astype(bool)
            game = int(np.argmin(legal))
            head, sep, rest = str(err).partition(": ")  # "game <batch slot>: ..." -> the schedule's game
            told = rest if sep and head.startswith("game ") else str(err)
            spec, item = schedule.policy_specs[acting[game]], int(items[slot_item[game]])
            raise IllegalActionError(f"policy {spec!r}, game {item} of the schedule: {told}") from None
        decisions += 1
        if decisions.max() > config.max_decisions:
            raise RuntimeError(too_long(config))
        if tally.hands:
            hand_points += eng.hand_points
            hands += eng.hand_ended
        over = (done & ~was_idle).nonzero()[0]
        if over.size:
            item = finished_items[over]
            results.winners[item] = eng.game_winners[over]
            results.scores[item] = eng.final_scores[over]
            results.hand_points[item] = hand_points[over]
            results.hands[item] = hands[over] if tally.hands else 1
            results.decisions[item] = decisions[over]
            results.played[item] = True
            for name, counts in events.items():
                results.events[name][item] = counts[over]
            remaining -= over.size
            if on_games is not None:
                on_games(int(over.size))
        ended = done.nonzero()[0]
        if ended.size:
            seat_policy[ended] = schedule.seat_policy[items[slot_item[ended]]]
            decisions[ended] = 0
            hand_points[ended] = 0
            hands[ended] = 0
            for counts in events.values():
                counts[ended] = 0
        if queued == items.size and 2 * int(idle.sum()) >= B:
            # The shard's last games: stop stepping the slots that have nothing left to play.
            keep = (~idle).nonzero()[0]
            if not keep.size:
                break
            eng = eng.select(keep)
            obs, mask = obs[keep], mask[keep]
            slot_item, idle, finished_items = slot_item[keep], idle[keep], finished_items[keep]
            seat_policy, decisions, hand_points, hands = (
                seat_policy[keep],
                decisions[keep],
                hand_points[keep],
                hands[keep],
            )
            events = {name: counts[keep] for name, counts in events.items()}
            B = keep.size
            ar, actions = np.arange(B), np.empty(B, np.int64)
    return results


def run_tournament(
    config: TournamentConfig,
    schedule: Schedule,
    shard_size: int | None = None,
    on_games: Callable[[int], None] | None = None,
) -> Results:
    """Every game of the schedule, shard by shard, in this process (the local backend)."""
    shards = plan_shards(config, schedule, shard_size)
    return merge_shards(config, schedule, shards, [play_shard(config, schedule, sh, on_games) for sh in shards])


def merge_shards(config: TournamentConfig, schedule: Schedule, shards: list[Shard], parts: list[Results]) -> Results:
    """The shards' results as one (every game of the schedule exactly once, or a ``ValueError``)."""
    results = Results.empty(schedule.num_games, config.players, tally_of(config.game).events)
    seen = np.zeros(schedule.num_games, np.int64)
    for shard, part in zip(shards, parts, strict=True):
        results.put(shard.items, part)
        seen[shard.items] += 1
    if (seen != 1).any() or not results.played.all():
        raise ValueError(f"the shards cover {int((seen == 1).sum())} of {schedule.num_games} games exactly once")
    return results
