"""The game descriptors (``envs.games``): each game described once, and every layer asks them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.learned import AGENT_POLICIES, MODELS_DIR, shipped_agent
from agents.registry import policy_table
from agents.search import search_class
from envs.games import GAMES, game, game_module
from tabletop.table_game import TableGame, table_game

ROOT = Path(__file__).resolve().parents[1]


def resolve_module(reference: str) -> str:
    """``tabletop.uno_table:UNO_TABLE`` -> ``uno_table``."""
    return reference.partition(":")[0].rsplit(".", 1)[-1]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_descriptor_names_what_exists(name):
    g = game(name)
    engine = game_module(name)
    assert engine.Engine.game == name and len(engine.ACTION_NAMES) == engine.NUM_ACTIONS
    for players in g.table_sizes:
        engine.Rules().check_players(players)  # every table size it claims is one its rules seat
    with pytest.raises(ValueError):
        engine.Rules().check_players(g.table_sizes.stop)
    assert policy_table(name) and all(cls.game in (name, "any") for cls in policy_table(name).values())
    assert search_class(name).game == name and AGENT_POLICIES[name].game == name
    for players in g.table_sizes:
        path = shipped_agent(name, players)
        assert path.parent == MODELS_DIR and path.is_file()
    assert g.fair_share(g.table_sizes.start) == pytest.approx(1 / g.sides(g.table_sizes.start))
    assert isinstance(table_game(name), TableGame)


def test_the_play_screens_hold_no_list_of_the_games():
    """The session, move reader, terminal and web server ask each game's ``TableGame`` (named by
    its descriptor); only the per-game presentation modules spell out a game's name (the shared
    ones may name the default game, ``uno``, as a default value and nowhere else)."""
    import ast

    per_game = {resolve_module(game(name).tabletop) for name in GAMES}
    for path in sorted((ROOT / "tabletop").glob("*.py")):
        if path.stem in per_game:
            continue
        tree = ast.parse(path.read_text())
        defaults = {
            id(node)
            for fn in ast.walk(tree)
            if isinstance(fn, ast.FunctionDef)
            for node in [*fn.args.defaults, *fn.args.kw_defaults]
            if node is not None
        }
        defaults |= {  # data.get("game", "uno")
            id(call.args[1])
            for call in ast.walk(tree)
            if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "get"
            and len(call.args) == 2
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in GAMES:
                assert id(node) in defaults, f"{path.name}:{node.lineno} names the game {node.value!r}"


def test_sides_and_partners():
    tricks, uno = game("tricks"), game("uno")
    assert [tricks.side_of(s, 4) for s in range(4)] == [0, 1, 0, 1] and tricks.fair_share(4) == 0.5
    assert [uno.side_of(s, 3) for s in range(3)] == [0, 1, 2] and uno.fair_share(3) == pytest.approx(1 / 3)
    assert uno.describe_table(2) == "classic UNO, 2 players" and tricks.describe_table(4) == "trick game, team vs team"


def test_an_unknown_game_names_the_games():
    with pytest.raises(ValueError, match="unknown game 'chess'; games: uno, tricks"):
        game("chess")
