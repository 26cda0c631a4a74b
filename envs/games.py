"""The games of the lab, each described once: what every layer asks about a game by its name.

A :class:`Game` names a game's engine package, its versioned env module and ids, its table
sizes and whether partners share a result, its shipped agents and where its scripted
policies, tournament tally and play-screen presentation live (``module:attribute``
strings, resolved by the layer that uses them, so that ``envs`` imports nothing above
it). Everything that once spelled out ``"uno"`` and ``"tricks"`` asks :func:`game` (or
iterates :data:`GAMES`) instead. A third game is its engine package, its policies, its
table presentation, and one more entry here.
"""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType


@dataclasses.dataclass(frozen=True)
class Game:
    """One game of the lab, as the rest of the code needs to know it."""

    name: str  # the key configs, records and checkpoints use
    title: str  # for reports
    package: str  # the engine package: Engine, Rules, ACTION_NAMES, NUM_ACTIONS, observation_bounds, ...
    env_module: str  # the versioned PettingZoo / Gymnasium env module
    gym_id: str  # gymnasium.make / make_vec
    aec_id: str  # pettingzoo.make("aec", ...)
    table_sizes: range  # the numbers of players it seats
    teams: bool  # partners sit opposite and share one result (two sides of two seats)
    policies: str  # "module:attribute" of its scripted policies, by name (the agents layer)
    search_policy: str  # "module:attribute" of its search policy class (``{name: search}``)
    shipped_agents: dict[int, str]  # table size -> models/ file of the agent shipped for it
    default_agent: str  # the models/ file for any other table size
    tally: str  # "module:attribute" of what tournaments count for it beyond wins (the tournament layer)
    tabletop: str  # "module:attribute" of its presentation on the play screens (tabletop.table_game.TableGame)
    default_opponent: str = "heuristic"  # who plays the other seats when nobody says (envs, play screens)

    @property
    def engine(self) -> ModuleType:
        """The engine package (imported on use: numba compiles on first call, not here)."""
        return importlib.import_module(self.package)

    @property
    def kernel_module(self) -> str:
        return f"{self.package}.kernel"

    def sides(self, players: int) -> int:
        """How many sides compete at a table: the teams, or every seat."""
        return 2 if self.teams else players

    def side_of(self, seat: int, players: int) -> int:
        """The side a seat plays for (partners opposite: seats s and s + 2 in a team game)."""
        return seat % 2 if self.teams else seat

    def fair_share(self, players: int) -> float:
        """One side's share of the results if all sides were equal."""
        return 1 / self.sides(players)

    def describe_table(self, players: int) -> str:
        """``classic UNO, 2 players`` or ``trick game, team vs team``."""
        return f"{self.title}, team vs team" if self.teams else f"{self.title}, {players} players"


GAMES: dict[str, Game] = {
    g.name: g
    for g in (
        Game(
            name="uno",
            title="classic UNO",
            package="envs.uno",
            env_module="envs.uno_v0",
            gym_id="unolab/Uno-v0",
            aec_id="unolab/uno-v0",
            table_sizes=range(2, 11),
            teams=False,
            policies="agents.uno_policies:UNO_POLICIES",
            search_policy="agents.search:UnoSearchPolicy",
            shipped_agents={2: "uno_2p_ppo.pt", 4: "uno_4p_ppo.pt"},
            default_agent="uno_4p_ppo.pt",
            tally="tournament.tallies:UNO_TALLY",
            tabletop="tabletop.uno_table:UNO_TABLE",
        ),
        Game(
            name="tricks",
            title="trick game",
            package="envs.uno_tricks",
            env_module="envs.uno_tricks_v0",
            gym_id="unolab/UnoTricks-v0",
            aec_id="unolab/uno_tricks-v0",
            table_sizes=range(4, 5),
            teams=True,
            policies="agents.tricks_policies:TRICKS_POLICIES",
            search_policy="agents.tricks_search:TricksSearchPolicy",
            shipped_agents={4: "tricks_ppo.pt"},
            default_agent="tricks_ppo.pt",
            tally="tournament.tallies:TRICKS_TALLY",
            tabletop="tabletop.tricks_table:TRICKS_TABLE",
        ),
    )
}


def game(name: object) -> Game:
    """The game of this name; an unknown one is a ``ValueError`` naming the games there are."""
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    return GAMES[name]


def resolve(reference: str) -> object:
    """The object a ``"module:attribute"`` reference names (imported on use; the attribute
    may be a dotted path): a descriptor's policies, or a policy from outside the lab."""
    module, _, attr = reference.partition(":")
    obj: object = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def game_module(name: object) -> ModuleType:
    """The engine package of a game (``envs.uno``, ``envs.uno_tricks``)."""
    return game(name).engine
