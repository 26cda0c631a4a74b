"""One config layer (envs.config): every command reads YAML files, dotted key=value overrides
and policy specs the same way, and refuses what does not fit by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.ppo_config import PPOConfig
from agents.registry import make_policy, policy_table, spec_label, split_spec, strategies
from envs.config import parse_overrides, rules_options
from envs.games import GAMES
from envs.records import main as records_main
from tournament.config import TournamentConfig

ROOT = Path(__file__).resolve().parents[1]


def test_rules_options_read_the_same_on_every_command_line():
    flat = rules_options(["stacking=true", "target_score=300", "scoring=reverse"])
    nested = rules_options(["rules.stacking=true", "rules.target_score=300", "scoring=reverse"])
    assert flat == nested == {"stacking": True, "target_score": 300, "scoring": "reverse"}
    assert parse_overrides(["rules.stacking=true", "games=500"]) == {"rules": {"stacking": True}, "games": 500}
    with pytest.raises(ValueError, match=r"rules options are key=value \(e\.g\. stacking=true\), got 'stacking'"):
        rules_options(["stacking"])
    with pytest.raises(ValueError, match=r"overrides are key=value \(e\.g\. games=5000"):
        parse_overrides(["games"])


def test_records_take_rules_like_train_and_evaluate(tmp_path, capsys):
    out = tmp_path / "game.jsonl"
    assert records_main(["record", "--players", "3", "--out", str(out), "rules.seven_zero=true", "stacking=true"]) == 0
    assert '"seven_zero": true' in out.read_text().splitlines()[0]
    with pytest.raises(SystemExit):
        records_main(["record", "--out", str(out), "stackng=true"])
    assert "unknown UnoRules option(s) stackng; allowed: hand_size" in capsys.readouterr().err


def test_a_policy_spec_is_written_the_same_everywhere():
    assert split_spec("agent:models/uno_2p_ppo.pt") == ("agent", {"checkpoint": "models/uno_2p_ppo.pt"})
    assert spec_label("agent:models/uno_2p_ppo.pt") == spec_label(
        {"name": "agent", "checkpoint": "models/uno_2p_ppo.pt"}
    )
    assert type(make_policy("uno", "agent:models/uno_2p_ppo.pt", seed=0)).__name__ == "UnoAgentPolicy"
    from agents.ppo import PPOConfig
    from tabletop.session import opponent_spec
    from tournament.config import load_config

    cfg = load_config(None, ["players=2", "games=100", "policies=[heuristic, 'agent:models/uno_2p_ppo.pt']"])
    assert [e.label for e in cfg.entrants()] == ["heuristic", "uno_2p_ppo"]
    PPOConfig.from_mapping({"opponents": ["random", "agent:models/uno_2p_ppo.pt"], "eval_every": 0})
    assert opponent_spec("uno", 2, "agent:models/uno_2p_ppo.pt") == {
        "name": "agent",
        "checkpoint": "models/uno_2p_ppo.pt",
    }
    with pytest.raises(ValueError, match="checkpoint models/none.pt not found"):
        make_policy("uno", "agent:models/none.pt")


def test_records_refuse_a_bad_seed_or_a_folder_before_playing(tmp_path, capsys):
    for argv, message in [
        (["record", "--out", str(tmp_path / "g.jsonl"), "--seed", "-1"], "argument --seed: must be an integer from 0"),
        (["record", "--out", str(tmp_path)], "is a folder; give a file path"),
    ]:
        with pytest.raises(SystemExit):
            records_main(argv)
        assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_int_in_names_the_range():
    import argparse

    from envs.config import int_in, seed_arg

    assert int_in(1)("5") == 5 and seed_arg("0") == 0
    for parse, text, message in [
        (int_in(1), "0", "must be an integer of at least 1, got 0"),
        (int_in(1, 9), "10", "must be an integer from 1 to 9, got 10"),
        (seed_arg, "-1", "must be an integer from 0 to 9,223,372,036,854,775,807, got -1"),
        (int_in(0), "x", "must be an integer, got 'x'"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            parse(text)


def test_yaml_12_floats_without_a_decimal_point_are_numbers():
    """PyYAML reads YAML 1.1, where 3e-4 is text: the configs read it as the number it is."""
    from envs.config import load_yaml

    assert [load_yaml(t, "x") for t in ("3e-4", "1e6", "-2.5E+3", "3.0e-4", "e5", "1_000")] == [
        0.0003,
        1e6,
        -2500.0,
        0.0003,
        "e5",
        1000,
    ]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_default_opponents_and_entrants_are_the_games_own_policies(game):
    """Left out, a trainer's evaluation opponents and a tournament's entrants are the
    scripted policies of the game named (one list: the game's policy table), less the wrappers
    of another policy, which would only repeat their base."""
    players = GAMES[game].table_sizes[-1] if GAMES[game].teams else 2
    scripted = strategies(game)
    assert scripted == [n for n in policy_table(game) if n != "restrained"]
    assert PPOConfig.from_mapping({"game": game, "players": players}).eval_opponents == scripted
    assert TournamentConfig.from_mapping({"game": game, "players": players}).policies == scripted


def test_a_mapping_written_whole_replaces_and_a_dotted_key_changes_one_entry():
    from envs.config import merge

    base = {"rules": {"stacking": True, "match": False}, "games": 5}
    assert merge(base, parse_overrides(["rules={}"])) == {"rules": {}, "games": 5}
    assert merge(base, parse_overrides(["rules.match=true"]))["rules"] == {"stacking": True, "match": True}
    merged = merge(base, parse_overrides(["rules={seven_zero: true}", "rules.match=true"]))
    assert merged["rules"] == {"seven_zero": True, "match": True} and type(merged["rules"]) is dict


def test_yaml_12_integers_and_no_dates():
    """YAML 1.1 would read 010 as 8, 1:30 as 90 and 2026-12-07 as a date."""
    from envs.config import load_yaml

    texts = ("010", "0x10", "0o17", "-5", "1_000", "1:30", "2026-12-07", "08", "1:30.5", "0x_", "-1.5", ".5", "1.5e3")
    assert [load_yaml(t, "x") for t in texts] == [10, 16, 15, -5, 1000, "1:30", "2026-12-07", 8, "1:30.5", "0x_"] + [
        -1.5,
        0.5,
        1500.0,
    ]
    assert load_yaml(".inf", "x") == float("inf") and load_yaml("-.inf", "x") == -float("inf")
    assert parse_overrides(["seed=010", "run_name=2026-12-07"]) == {"seed": 10, "run_name": "2026-12-07"}


def test_empty_rules_and_a_whole_float_table_size_read_the_same_in_training_and_tournaments():
    """``rules:`` left empty (or ``rules: null``) is no house rule and ``players=4.0`` is four
    players, in a training config and a tournament config alike (one reading: envs/config.py)."""
    from agents.ppo_config import PPOConfig

    for read in (PPOConfig.from_mapping, TournamentConfig.from_mapping):
        config = read({"rules": None, "players": 4.0})
        assert config.rules == {} and config.players == 4 and type(config.players) is int
        with pytest.raises(ValueError, match=r"rules must be a mapping of rules options \(e.g. \{stacking: true\}\)"):
            read({"rules": [1]})
    with pytest.raises(ValueError, match="players: the uno table seats"):
        TournamentConfig.from_mapping({"players": 4.5})
    from tournament.bluff_study import BluffStudyConfig

    assert BluffStudyConfig.from_mapping({"rules": None, "agents": [], "learners": []}).rules == {}
