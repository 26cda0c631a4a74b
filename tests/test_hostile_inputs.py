"""Hostile and careless inputs are refused fast with a message naming what was wrong (issue 15)."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from envs.config import MAX_CONFIG_DEPTH, parse_overrides, read_yaml
from tournament.config import load_config

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
rules: {stacking: *g}
"""


@pytest.mark.parametrize(
    "where", ["rules: {stacking: *g}", "players: *g", "policies: [random, {name: heuristic, label: *g}]"]
)
def test_nested_aliases_are_refused_at_once(tmp_path: Path, where: str) -> None:
    from train import load_training_config

    path = tmp_path / "laughs.yaml"
    path.write_text(BILLION_LAUGHS.replace("rules: {stacking: *g}", where))
    signal.alarm(60)  # a hang guard (the expansion used to run for minutes), not a speed check
    try:
        with pytest.raises(ValueError, match="aliases"):
            load_config(path)
        with pytest.raises(ValueError, match="aliases"):
            load_training_config(path, [])
    finally:
        signal.alarm(0)
    with pytest.raises(ValueError, match="override rules.stacking is not valid YAML: .*aliases"):
        parse_overrides(["rules.stacking=[&x 1, *x]"])


def test_deep_nesting_and_huge_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("a: " + "[" * (MAX_CONFIG_DEPTH + 5) + "]" * (MAX_CONFIG_DEPTH + 5))
    with pytest.raises(ValueError, match="nested deeper than"):
        read_yaml(path)
    path.write_text("a: " + "x" * (2 << 20))
    with pytest.raises(ValueError, match="larger than"):
        read_yaml(path)


def test_an_unusable_output_is_refused_before_any_game(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from evaluate import main

    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for output, message in ((f"{blocker}/results", "output .* cannot be written"), ("5", "output must be a folder")):
        with pytest.raises(SystemExit):
            main([f"output={output}", "games=100000"])
        assert __import__("re").search(message, capsys.readouterr().err)
    with pytest.raises(SystemExit):
        main(["games=100000000000"])
    assert "games must be an integer from 1 to 100,000,000" in capsys.readouterr().err


def test_an_unusable_export_is_refused_before_training(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from train import main

    blocker = tmp_path / "a_file"
    blocker.write_text("")
    with pytest.raises(SystemExit):
        main(["--config", "configs/uno_2p_ppo.yaml", f"log_dir={tmp_path}", f"export={blocker}/agent.pt"])
    assert "export's folder" in capsys.readouterr().err


def test_stale_temporary_files_are_cleaned_on_the_next_write(tmp_path: Path) -> None:
    import os

    from envs.atomic import STALE_SECONDS, write_atomically

    stale, fresh = tmp_path / ".checkpoint.pt.abc.tmp", tmp_path / ".checkpoint.pt.def.tmp"
    stale.write_bytes(b"x" * 1000)
    fresh.write_bytes(b"y")
    old = time.time() - STALE_SECONDS - 5
    os.utime(stale, (old, old))
    write_atomically(tmp_path / "checkpoint.pt", b"new")
    assert not stale.exists() and fresh.exists()  # a write in progress elsewhere is left alone
    assert (tmp_path / "checkpoint.pt").read_bytes() == b"new"


def test_atomic_writes_keep_the_permissions_a_plain_write_would_give(tmp_path: Path) -> None:
    """Not the owner-only mode of a temporary file: others may read results as the umask allows."""
    import os

    from envs.atomic import write_atomically

    old = os.umask(0o022)
    try:
        new = write_atomically(tmp_path / "report.md", "x")
        assert new.stat().st_mode & 0o777 == 0o644
        os.chmod(new, 0o640)
        write_atomically(new, "y")  # a file written again keeps its mode
        assert new.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)
    with pytest.raises(IsADirectoryError, match="is a folder; a file path is needed"):
        write_atomically(tmp_path, "z")


def test_flipped_bytes_in_a_checkpoint_are_refused(tmp_path: Path) -> None:
    import torch

    from agents.learned import load_checkpoint, save_checkpoint

    payload = {"game": "uno", "num_players": 2, "obs_dim": 3, "num_actions": 2, "hidden": [4], "model": {}}
    payload["trainer"] = {"optimizer": {"exp_avg": torch.arange(250_000, dtype=torch.float32)}, "update": 7}
    path = save_checkpoint(tmp_path / "checkpoint.pt", payload)
    assert load_checkpoint(path)["trainer"]["update"] == 7  # a sound file loads, its checksum checked
    raw = bytearray(path.read_bytes())
    middle = len(raw) // 2
    raw[middle : middle + 200] = bytes(b ^ 0xFF for b in raw[middle : middle + 200])
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="damaged: its content does not match its checksum"):
        load_checkpoint(path)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("gamma=5", "gamma must be a number in [0, 1], got 5"),
        ("clip_coef=-3", "clip_coef must be a number in (0, 10]"),
        ("max_grad_norm=-1", "max_grad_norm must be a number > 0"),
        ("num_minibatches=1000000", "num_minibatches (1000000) cannot exceed the decisions of an update"),
        ("learning_rate=abc", "learning_rate must be a number in (0, 1], got 'abc'"),
        ("learning_rate=.nan", "learning_rate must be a number"),
        ("hidden=5", "hidden must be a list of 1 to 16 layer sizes"),
        ("seed=1.5", "seed must be an integer from 0 to 9,223,372,036,854,775,807, got 1.5"),
        # huge integers: refused by name here, not deep in numpy or torch once training starts
        ("num_games=" + "9" * 30, "num_games must be an integer from 1 to 1,000,000"),
        ("total_steps=" + "9" * 30, "total_steps must be an integer from 1 to 10,000,000,000,000"),
        ("seed=" + "9" * 30, "seed must be an integer from 0 to"),
        ("hidden=[" + "9" * 30 + "]", "hidden must be a list of 1 to 16 layer sizes from 1 to 65,536"),
        ("eval_games=" + "9" * 30, "eval_games must be an integer from 1 to 100,000,000"),
        ("num_steps=100000", "num_games x num_steps (1,024 x 100,000) must be at most 4,194,304"),
        ("opponents=random", "opponents must be a list of policy specs"),
        ("anneal_lr=maybe", "anneal_lr must be true or false"),
        ("export=5", "export must be a string"),
    ],
)
def test_bad_training_values_are_refused_with_the_key(override: str, message: str) -> None:
    from train import load_training_config

    with pytest.raises(ValueError) as err:
        load_training_config(Path("configs/uno_2p_ppo.yaml"), [override])
    assert message in str(err.value)


@pytest.mark.parametrize("game", ["uno", "tricks"])
@pytest.mark.parametrize("bad", [66.9, "17", True, None, [3]])
def test_the_gymnasium_env_refuses_actions_that_are_not_integers(bad: object, game: str) -> None:
    import numpy as np

    from envs import uno_tricks_v0, uno_v0
    from envs.core import IllegalActionError

    env = (uno_v0 if game == "uno" else uno_tricks_v0).gym_env("random")
    obs, _ = env.reset(seed=3)
    with pytest.raises(IllegalActionError, match="an action is an integer id"):
        env.step(bad)
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(np.int64(legal))  # the env is as it was: a legal move still plays


def test_a_cold_start_is_announced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import envs.uno
    from envs import compiled

    envs.uno.Engine(2, 2, envs.uno.Rules(), seed=0).reset()  # compiled and cached by now
    assert compiled.kernels_cached("uno")
    fake = tmp_path / "kernel.py"
    fake.write_text("")
    monkeypatch.setattr(compiled, "kernel_source", lambda game: fake)  # no cache beside it: a first run
    assert not compiled.kernels_cached("uno")
    # numba's cache elsewhere (NUMBA_CACHE_DIR): that is where it is looked for, not __pycache__
    import os
    import subprocess
    import sys

    probe = "from envs.compiled import kernels_cached; print(kernels_cached('uno'))"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--players", "1"], "for 2 to 10 players"),
        (["--policy", "bogus"], "unknown uno policy 'bogus'"),
        (["--decisions", "0"], "--decisions: must be an integer of at least 1"),
        (["--hidden", "0"], "--hidden: must be an integer of at least 1"),
        (["--out", "."], "is a folder"),
    ],
)
def test_value_fit_refuses_bad_arguments_before_any_work(
    args: list[str], message: str, capsys: pytest.CaptureFixture
) -> None:
    from agents.value_fit import main

    argv = ["--out", "v.pt", *args] if "--out" not in args else args
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_a_uno_position_asking_for_a_declaration_needs_the_uno_rule() -> None:
    from envs.uno import UnoEngine, UnoRules

    pos = {
        "num_players": 2,
        "hands": [["R1"], ["G5", "B7"]],
        "discard_pile": ["R5"],
        "draw_pile": [],
        "colour": "R",
        "current_player": 0,
        "direction": 1,
        "phase": "uno",
    }
    with pytest.raises(ValueError, match="uno_penalty=0 leaves out"):
        UnoEngine.from_positions([pos], rules=UnoRules(uno_penalty=0))
    UnoEngine.from_positions([pos])  # with the rule: the declaration waits


@pytest.mark.parametrize("damage", ["no obs_scale", "num_players four"])
def test_an_agent_checkpoint_with_a_valid_checksum_but_parts_missing_is_named(tmp_path, damage):
    import torch

    from agents.learned import save_checkpoint
    from agents.registry import make_policy

    data = torch.load("models/uno_2p_ppo.pt", weights_only=False)
    data.pop("sha256", None)
    if damage == "no obs_scale":
        data["model"] = {k: v for k, v in data["model"].items() if k != "obs_scale"}
    else:
        data["num_players"] = "four"
    path = tmp_path / "damaged.pt"
    save_checkpoint(path, data)
    # named either way: damaged (a part missing where the layout is read) or not fitting its network
    with pytest.raises(ValueError, match=f"{path}: (a damaged agent checkpoint|the weights do not fit the network)"):
        make_policy("uno", {"name": "agent", "checkpoint": str(path)}, seed=0)
