"""What a tournament plays, read from YAML with ``key=value`` overrides (``envs.config``), checked before any game.

.. code-block:: yaml

    game: uno                 # uno | tricks
    players: 4                # table size (the trick game: always 4)
    rules: {}                 # UnoRules / TricksRules options
    policies:                 # the entrants: a name, or a mapping with name, parameters, label
                              # (left out: every scripted policy of the game, no wrapper)
      - random
      - {name: heuristic, bluff: 0.5, label: bluffer}
    lineups: null             # tables to play (lists of entrant labels); null: every
                              # combination of `players` entrants (round robin)
    seating: auto             # rotations | permutations | auto (permutations up to 4 seats)
    games: 20000              # at least this many games in all (rounded up to whole deals)
    batch: 4096               # games stepped at once. Part of the tournament: a policy draws
                              # its random numbers for a whole batch, so it changes the games
    shard_games: null         # games per shard (whole deals); null: 3 x batch. Part of the
                              # tournament: shards seed their policies, so it changes the games
    streams: batch            # batch: a policy draws its random numbers for a whole batch from its
                              # generator (the default); game: each game's decisions draw from a
                              # stream of that game's own (its place in the schedule and the
                              # decision's number), so batch and shard_games no longer change the
                              # games, and two tournaments whose entrants differ in one policy
                              # play every game alike until that policy chooses otherwise in it
                              # (a paired comparison's games, as the bluffing study plays them)
    seed: 0
    output: results/eval      # JSON, CSV and PNG land here
    ratings: openskill        # openskill | none
    rating_orders: 4          # OpenSkill rates one game at a time, so their order moves the
                              # ratings: they are the means over this many shuffled orders
    max_decisions: 20000      # a game longer than this stops the tournament with an error: the
                              # rules set no limit, and policies that only draw and keep under
                              # draw_anytime never end one (raise it for long matches)

In the trick game an entrant is a *team*: ``{label: mixed, team: [heuristic, greedy]}``
seats its two policies as partners; a plain policy spec plays both seats of its team.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.registry import check_label, check_spec, spec_label, split_spec, strategies
from envs.config import MAX_SEED, merge, parse_overrides, read_yaml, rules_mapping, table_size
from envs.core import dataclass_from_mapping
from envs.games import GAMES, game_module
from envs.games import game as game_info

SEATINGS = ("auto", "rotations", "permutations")
RATINGS = ("openskill", "none")
STREAMS = ("batch", "game")


@dataclasses.dataclass(frozen=True)
class Entrant:
    """One competitor: a label and the policy spec of each of its seats (one; two partners in the trick game)."""

    label: str
    specs: tuple[Any, ...]


@dataclasses.dataclass
class TournamentConfig:
    """A tournament, as in the module docstring; :meth:`check` validates it completely."""

    game: str = "uno"
    players: int = 4
    rules: dict[str, Any] = dataclasses.field(default_factory=dict)
    policies: list[Any] | None = None  # default: the game's scripted policies (agents.registry.strategies)
    lineups: list[list[str]] | None = None
    seating: str = "auto"
    games: int = 20_000
    batch: int = 4096
    shard_games: int | None = None
    streams: str = "batch"
    seed: int = 0
    output: str = "results/eval"
    ratings: str = "openskill"
    rating_orders: int = 4  # each order costs about a sixth of the default tournament's time
    max_decisions: int = 20_000

    # ------------------------------------------------------------------ reading
    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> TournamentConfig:
        config = dataclass_from_mapping(cls, data, "config key(s)")
        config.check()
        return config

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    # ------------------------------------------------------------------ checking
    def check(self) -> None:
        """Raise ``ValueError`` naming the problem: every mistake is caught before a game is played."""
        if not isinstance(self.game, str) or self.game not in GAMES:
            raise ValueError(f"game must be one of {', '.join(GAMES)}, got {self.game!r}")
        if self.policies is None:  # the default: every scripted policy of this game (no wrapper)
            self.policies = strategies(self.game)
        sizes = game_info(self.game).table_sizes
        self.players = table_size(self.players)  # players=4.0 is 4
        if isinstance(self.players, bool) or not isinstance(self.players, int) or self.players not in sizes:
            raise ValueError(f"players: the {self.game} table seats {_span(sizes)}, got {self.players!r}")
        checked = (("games", MAX_GAMES), ("batch", MAX_BATCH), ("max_decisions", MAX_GAMES), ("rating_orders", 1000))
        for name, most in checked:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
                raise ValueError(f"{name} must be an integer from 1 to {most:,}, got {value!r}")
        if not isinstance(self.output, str) or not self.output.strip():
            raise ValueError(f"output must be a folder path, got {self.output!r}")
        if self.shard_games is not None and (
            isinstance(self.shard_games, bool) or not isinstance(self.shard_games, int) or self.shard_games < 1
        ):
            raise ValueError(f"shard_games must be a positive integer or null, got {self.shard_games!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"seed must be an integer from 0 to {MAX_SEED:,}, got {self.seed!r}")
        if self.seating not in SEATINGS:
            raise ValueError(f"seating must be one of {', '.join(SEATINGS)}, got {self.seating!r}")
        if self.seating == "permutations" and isinstance(self.players, int) and self.players > MAX_PERMUTED_SEATS:
            raise ValueError(
                f"seating: permutations of {self.players} seats are {math.factorial(self.players):,} seatings, each "
                f"deal played that many times; permutations go up to {MAX_PERMUTED_SEATS} seats (use rotations)"
            )
        if game_info(self.game).teams and self.seating not in ("auto", "rotations"):
            raise ValueError(
                f"seating: the {game_info(self.game).title} plays its {self.players} rotations (the teams swap sides, "
                f"partners swap seats); give auto or rotations, got {self.seating!r}"
            )
        if self.ratings not in RATINGS:
            raise ValueError(f"ratings must be one of {', '.join(RATINGS)}, got {self.ratings!r}")
        if self.streams not in STREAMS:
            raise ValueError(f"streams must be one of {', '.join(STREAMS)}, got {self.streams!r}")
        self.rules = rules_mapping(self.rules)  # rules: null is no house rule
        self.rules_object()  # unknown or impossible rules options
        entrants = self.entrants()
        tables = self.table_lineups(entrants)
        # Every seating of every table plays each deal: at least one deal of each, so the games
        # scheduled can be many more than asked (at most: equal entrants make fewer seatings).
        seatings = len(tables) * len(self.seating_orders())
        scheduled = -(-self.games // seatings) * seatings
        need, have = results_bytes(scheduled, self.players), physical_memory()
        if have and need > have:
            raise ValueError(
                f"games: {scheduled:,} games at {self.players} seats ({self.games:,} asked, whole deals of "
                f"{seatings:,} seatings) keep about {need / 2**30:.1f} GiB of schedule and results, more than this "
                f"machine's {have / 2**30:.1f} GiB: play fewer (several runs, other seeds), fewer entrants or tables"
            )

    def rules_object(self) -> Any:
        """The game's rules object of these options, checked for this table size."""
        rules = game_module(self.game).Rules.from_dict(self.rules)
        rules.check_players(self.players)
        return rules

    def entrants(self) -> list[Entrant]:
        if not isinstance(self.policies, Sequence) or isinstance(self.policies, str) or not self.policies:
            raise ValueError("policies must be a non-empty list of policy specs")
        entrants = []
        for i, spec in enumerate(self.policies):
            try:
                entrants.append(self._entrant(spec))
            except ValueError as err:
                raise ValueError(f"policies[{i}]: {err}") from None
        labels = [e.label for e in entrants]
        doubles = sorted({x for x in labels if labels.count(x) > 1})
        if doubles:
            raise ValueError(f"two entrants share the label(s) {', '.join(doubles)}: give each a distinct 'label'")
        return entrants

    def _entrant(self, spec: Any) -> Entrant:
        if game_info(self.game).teams and isinstance(spec, Mapping) and "team" in spec:
            extra = sorted(set(spec) - {"team", "label"})
            if extra:
                raise ValueError(f"a team entrant takes 'team' and 'label' only, got {', '.join(extra)}")
            team = spec["team"]
            if not isinstance(team, Sequence) or isinstance(team, str) or len(team) != 2:
                raise ValueError(f"'team' lists the two partners' policy specs, got {team!r}")
            for member in team:
                check_spec(self.game, member, self.rules, self.players)
            if "label" in spec:
                check_label(spec["label"])
            label = spec.get("label") or "+".join(spec_label(m) for m in team)
            return Entrant(label, tuple(team))
        if isinstance(spec, Mapping) and "team" in spec:
            raise ValueError(
                f"a team entrant ({{team: [...]}}) is for a game of teams; {game_info(self.game).title} seats one "
                "policy per entrant"
            )
        check_spec(self.game, spec, self.rules, self.players)
        split_spec(spec)
        specs = (spec, spec) if game_info(self.game).teams else (spec,)
        return Entrant(spec_label(spec), specs)

    # ------------------------------------------------------------------ tables
    @property
    def sides(self) -> int:
        """Competing sides at a table: players, or the two teams of the trick game."""
        return game_info(self.game).sides(self.players)

    def table_lineups(self, entrants: list[Entrant]) -> list[tuple[int, ...]]:
        """The tables played, as entrant indexes per side (explicit ``lineups`` or a round robin)."""
        index = {e.label: i for i, e in enumerate(entrants)}
        sides = self.sides
        if self.lineups is None:
            if len(entrants) < sides:
                raise ValueError(
                    f"{len(entrants)} entrant(s) cannot fill a table of {sides} sides without 'lineups' "
                    f"(e.g. lineups: [[agent, heuristic, heuristic, heuristic]])"
                )
            return list(itertools.combinations(range(len(entrants)), sides))
        if not isinstance(self.lineups, Sequence) or not self.lineups:
            raise ValueError("lineups must be a non-empty list of tables (lists of entrant labels)")
        tables = []
        for i, lineup in enumerate(self.lineups):
            if not isinstance(lineup, Sequence) or isinstance(lineup, str) or len(lineup) != sides:
                raise ValueError(f"lineups[{i}] must list {sides} entrant labels (one per side), got {lineup!r}")
            texts = [x for x in lineup if isinstance(x, str)]
            if len(texts) != len(lineup):
                raise ValueError(
                    f"lineups[{i}] lists entrant labels (texts), got {lineup!r}; entrants: {', '.join(index)}"
                )
            unknown = [x for x in lineup if x not in index]
            if unknown:
                raise ValueError(f"lineups[{i}]: unknown entrant(s) {unknown}; entrants: {', '.join(index)}")
            if len(set(lineup)) < 2:
                raise ValueError(f"lineups[{i}]: a table needs at least two different entrants, got {lineup!r}")
            tables.append(tuple(index[x] for x in lineup))
        return tables

    def seating_orders(self) -> list[tuple[int, ...]]:
        """Seatings of a table's sides: ``order[seat]`` = the side sitting there.

        In the trick game the two teams swap sides and partners swap seats: the four
        rotations of the seats. Classic UNO uses every permutation up to 4 seats (``auto``),
        otherwise the rotations, which keep each player's neighbours.
        """
        n = self.players
        if game_info(self.game).teams:
            return [tuple((s + r) % n for s in range(n)) for r in range(n)]
        mode = self.seating
        if mode == "auto":
            mode = "permutations" if n <= 4 else "rotations"
        if mode == "permutations":
            return list(itertools.permutations(range(n)))
        return [tuple((s + r) % n for s in range(n)) for r in range(n)]


def _span(sizes: range) -> str:
    """A range of table sizes as read: "2-10", or "4" where there is one."""
    return str(sizes.start) if len(sizes) == 1 else f"{sizes.start}-{sizes.stop - 1}"


def results_bytes(games: int, players: int) -> int:
    """What a tournament's schedule and results arrays hold per game (measured: 187 bytes at 2
    seats, 333 at 4, 771 at 10), for all its games."""
    return games * (41 + 73 * players)


def physical_memory() -> int:
    """This machine's memory in bytes (0 where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 0


#: ``seating: permutations`` up to this many seats (720 seatings a deal; 7 would be 5,040).
MAX_PERMUTED_SEATS = 6

#: The most games one tournament plays, and at once (memory grows with both).
MAX_GAMES = 100_000_000
MAX_BATCH = 1 << 20


def load_config(path: str | Path | None, overrides: Sequence[str] = ()) -> TournamentConfig:
    """The tournament of a YAML file (or the defaults) with ``key=value`` overrides, checked."""
    data = read_yaml(path) if path is not None else {}
    return TournamentConfig.from_mapping(merge(data, parse_overrides(overrides)))
