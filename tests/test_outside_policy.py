"""Policies from outside the lab: a spec naming importable code (``package.module:Class``),
refused clearly when it cannot be used, and RLCard's own rule agent in a tournament."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from agents.registry import check_spec, make_policy, spec_label
from envs.uno import UnoEngine, UnoRules
from tabletop.session import opponent_spec

NAME = "tests.test_outside_policy:LastLegal"


class LastLegal:
    """Plays the legal action with the highest id (or, with ``lowest``, the lowest)."""

    game = "uno"

    def __init__(self, seed: int | None = None, lowest: bool = False) -> None:
        self.lowest = lowest

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        ids = np.arange(mask.shape[1])
        if self.lowest:
            return np.where(mask, ids, mask.shape[1]).min(axis=1)
        return np.where(mask, ids, -1).max(axis=1)


NOT_A_CLASS = 3


class OddFiles(LastLegal):
    """Has a ``files_read`` of another shape than the lab's ``(params, game, players)``."""

    def files_read(self) -> list[str]:
        return []


def test_an_outside_policy_is_built_from_its_spec_and_plays():
    policy = make_policy("uno", {"name": NAME, "lowest": True}, seed=1)
    eng = UnoEngine(16, 2, None, seed=0)
    obs, mask = eng.reset()
    assert (policy(obs, mask) == mask.argmax(axis=1)).all()
    assert spec_label(NAME) == "LastLegal" and spec_label({"name": NAME, "lowest": True}) == "LastLegal(lowest=True)"
    assert opponent_spec("uno", 2, NAME) == NAME  # play.py's command-line form


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nosuch_module_xyz:Policy", "cannot import 'nosuch_module_xyz'"),
        ("tests.test_outside_policy:Nope", "has no 'Nope'"),
        ("tests.test_outside_policy:NOT_A_CLASS", "is not a policy class"),
        ("tests.test_outside_policy:", "is named 'package.module:Class'"),
        ("tests/test_outside_policy.py:LastLegal", "is named 'package.module:Class'"),
        ({"name": NAME, "fast": True}, "unknown parameter\\(s\\) fast for uno policy .* allowed: lowest"),
    ],
)
def test_an_outside_policy_that_cannot_be_used_is_refused_with_the_reason(spec, message):
    with pytest.raises(ValueError, match=message):
        check_spec("uno", spec)


def test_an_outside_files_read_of_another_shape_is_refused_with_the_reason():
    with pytest.raises(ValueError, match=r"OddFiles'?: files_read\(params, game, players\) failed"):
        check_spec("uno", "tests.test_outside_policy:OddFiles", players=4)


def test_an_outside_policy_of_the_other_game_is_refused():
    with pytest.raises(ValueError, match="plays 'uno', not 'tricks'"):
        check_spec("tricks", NAME)


def test_an_outside_policy_plays_a_tournament_through_evaluate_py():
    args = [f"policies=[{{name: '{NAME}'}}, random]", "players=2", "games=400", "batch=200", "--no-files"]
    proc = subprocess.run([sys.executable, "evaluate.py", *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "LastLegal" in proc.stdout and "400 games" in proc.stdout


def test_rlcards_own_rule_agent_plays_like_the_labs_port():
    pytest.importorskip("rlcard")
    from examples.rlcard_uno_rule import RLCardUnoRule

    house = {"seven_zero": True, "stack_wild_draw_four": True, "stacking": True, "must_play_drawn": False}
    for players, rules in ((2, None), (4, UnoRules(**house))):  # house rules: legal answers too (a swap was not)
        eng = UnoEngine(64, players, rules, seed=3)
        obs, mask = eng.reset()
        a, b = RLCardUnoRule(seed=5), RLCardUnoRule(seed=5)
        for _ in range(200):
            actions = a(obs, mask)
            assert (actions == b(obs, mask)).all() and mask[np.arange(64), actions].all()  # seeded, legal
            obs, mask, _, _ = eng.step(actions)
    args = ["--config", "examples/rlcard_uno_rule.yaml", "games=6000", "--no-files"]
    proc = subprocess.run([sys.executable, "evaluate.py", *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith("│ rlcard_uno_rule_v1 │"))
    against_port = float(row.split("│")[3].split()[0])
    assert abs(against_port - 0.5) < 0.05  # 2,000 games: the same rule, RLCard's code and the lab's port


def test_a_game_its_policies_never_end_stops_the_tournament_with_an_error():
    """Drawing and keeping with both piles empty gives nothing: under draw_anytime and
    must_play_drawn=false, players who always draw then pass never end the game (the rules set
    no limit), so the tournament stops at max_decisions instead of running forever."""
    from tournament.config import TournamentConfig
    from tournament.runner import run_tournament
    from tournament.schedule import build_schedule

    cfg = TournamentConfig.from_mapping(
        {
            "players": 2,
            "rules": {"draw_anytime": True, "must_play_drawn": False},
            "policies": [NAME, {"name": NAME, "label": "twin"}],
            "games": 2,
            "batch": 2,
            "ratings": "none",
            "max_decisions": 3000,
        }
    )
    with pytest.raises(RuntimeError, match="a game has gone 3,000 decisions without an end"):
        run_tournament(cfg, build_schedule(cfg))


def test_a_search_plays_with_an_outside_rollout_policy():
    """An outside class needs no generator: the search's rollouts draw as it does."""
    eng = UnoEngine(16, 2, seed=0)
    obs, mask = eng.reset()
    spec = {"name": "search", "worlds": 2, "depth": 4, "value": "shipped", "rollout": NAME}
    search = make_policy("uno", spec, seed=1)
    actions = search(obs, mask)
    assert mask[np.arange(16), actions].all()
    state = search.rng_state()
    search.set_rng_state(state)
    np.testing.assert_array_equal(search(obs, mask), actions)


def test_a_search_whose_rollouts_never_end_a_hand_says_so(monkeypatch):
    import agents.search

    monkeypatch.setattr(agents.search, "MAX_ROLLOUT_MOVES", 300)
    eng = UnoEngine(4, 2, seed=0)
    obs, mask = eng.reset()
    search = make_policy("uno", {"name": "search", "worlds": 2, "depth": 0, "value": "", "rollout": NAME}, seed=1)
    with pytest.raises(RuntimeError, match="rollouts still going after 300 moves: the rollout policy"):
        search(obs, mask)
