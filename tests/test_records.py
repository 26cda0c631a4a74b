"""Game records: saved as JSON lines, replayed to the identical end, printed turn by turn."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.policy import RandomPolicy
from envs.records import GameRecord, Recorder, main, replay, verify
from envs.uno import UnoEngine, UnoRules


@pytest.mark.parametrize(
    "rules",
    [UnoRules(), UnoRules(stacking=True, uno_catch_prob=0.5), UnoRules(match=True, target_score=120, reward="points")],
)
def test_recorded_batched_games_replay_to_the_identical_end(tmp_path, rules):
    eng = UnoEngine(num_games=16, num_players=3, rules=rules, seed=3)
    recorder, policy = Recorder(eng), RandomPolicy(0)
    obs, mask = recorder.reset()
    while len(recorder.completed) < 20:
        obs, mask, _, _ = recorder.step(policy(obs, mask))
    for n, record in enumerate(recorder.completed[:20]):
        path = tmp_path / f"g{n}.jsonl"
        record.save(path)
        loaded = GameRecord.load(path)
        assert loaded == record
        last = verify(loaded)
        assert last.done and last.rewards == record.result["rewards"]
        assert len(list(replay(loaded))) == len(record.moves)


def test_a_record_with_a_changed_move_is_refused():
    eng = UnoEngine(num_games=1, num_players=2, seed=2, auto_reset=False)
    recorder, policy = Recorder(eng), RandomPolicy(1)
    obs, mask = recorder.reset()
    while not recorder.completed:
        obs, mask, _, _ = recorder.step(policy(obs, mask))
    record = recorder.completed[0]
    record.moves[3] = (record.moves[3][0], "challenge")
    with pytest.raises(ValueError, match="may not 'challenge'"):
        verify(record)
    record.moves[3] = (1 - record.moves[3][0], "draw")
    with pytest.raises(ValueError, match="move 3: the record says"):
        verify(record)


def test_corrupt_record_files_are_refused(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type": "move", "player": 0, "action": "draw"}\n')
    with pytest.raises(ValueError, match="starts with a header"):
        GameRecord.load(path)
    path.write_text('{"type": "header", "version": 99}\n')
    with pytest.raises(ValueError, match="version 99"):
        GameRecord.load(path)
    path.write_text("not json\n")
    with pytest.raises(ValueError, match="line 1 is not JSON"):
        GameRecord.load(path)


def test_cli_records_and_prints_a_game(tmp_path, capsys):
    out = tmp_path / "game.jsonl"
    assert main(["record", "--players", "3", "--seed", "7", "--out", str(out), "stacking=true"]) == 0
    lines = out.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["rules"]["stacking"] is True and header["num_players"] == 3
    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    text = capsys.readouterr().out
    assert "UNO  3 players" in text and "   0. P0 " in text and "result: " in text
    assert text.count("\n") >= len(lines)  # one line per move at least


def test_cli_show_reports_a_broken_file(tmp_path, capsys):
    path = tmp_path / "x.jsonl"
    path.write_text("{}\n")
    assert main(["show", str(path)]) == 1
    assert "error: a game record starts with a header line" in capsys.readouterr().err


def test_recorder_adds_no_moves_of_other_games():
    eng = UnoEngine(num_games=4, num_players=2, seed=0)
    recorder, policy = Recorder(eng), RandomPolicy(2)
    obs, mask = recorder.reset()
    steps = 0
    while len(recorder.completed) < 8:
        obs, mask, _, _ = recorder.step(policy(obs, mask))
        steps += 1
    assert sum(len(r.moves) for r in recorder.completed) <= steps * 4
    assert all(np.isclose(sum(r.result["rewards"]), 0.0) for r in recorder.completed)


def test_a_rendered_view_names_a_drawn_card_only_to_the_one_who_drew_it():
    from envs.uno import render_position
    from tests.uno_helpers import act, engine, position

    eng = engine(position([["B1", "Y3"], ["G2", "Y4"]], top="R5", draw=["R9", "G1", "G3", "G4", "G5", "G6"]))
    act(eng, "draw")  # R9 is playable: phase drawn
    pos = eng.position(0)
    assert "(drew R9)" in render_position(pos, viewer=0) and "(drew R9)" in render_position(pos)
    other = render_position(pos, viewer=1)
    assert "(drew a card)" in other and "R9" not in other


def test_a_record_must_carry_its_stream_and_its_exact_result(tmp_path):
    """Without the start's rng every replay reshuffled differently; a result edited by 1e-6
    passed np.allclose; a step before reset moved the engine and then failed."""
    eng = UnoEngine(num_games=1, num_players=2, seed=2, auto_reset=False)
    recorder, policy = Recorder(eng), RandomPolicy(1)
    with pytest.raises(RuntimeError, match=r"Recorder.reset\(\) deals the games it records"):
        recorder.step(np.zeros(1, np.int64))
    obs, mask = recorder.reset()
    while not recorder.completed:
        obs, mask, _, _ = recorder.step(policy(obs, mask))
    record = recorder.completed[0]
    verify(record)
    edited = GameRecord(**{**record.__dict__, "result": {"rewards": [record.result["rewards"][0] + 1e-6, -1.0]}})
    with pytest.raises(ValueError, match="replayed rewards .* differ from recorded"):
        verify(edited)
    start = {k: v for k, v in record.start.items() if k != "rng"}
    with pytest.raises(ValueError, match="line 1: the start position has no rng"):
        verify(GameRecord(**{**record.__dict__, "start": start}))


def test_cli_records_a_trick_game_at_its_table_size_by_default(tmp_path, capsys):
    out = tmp_path / "tricks.jsonl"
    assert main(["record", "--game", "tricks", "--out", str(out)]) == 0
    assert GameRecord.load(out).num_players == 4


def test_stale_temporaries_are_matched_by_their_own_name_only(tmp_path):
    import os
    import time

    from envs.atomic import remove_stale_temporaries

    mine, other = tmp_path / ".g[1].jsonl.abc.tmp", tmp_path / ".g1.jsonl.abc.tmp"
    for tmp in (mine, other):
        tmp.write_text("x")
        os.utime(tmp, (time.time() - 10_000, time.time() - 10_000))
    remove_stale_temporaries(tmp_path / "g[1].jsonl")  # '[1]' was a glob class matching 'g1'
    assert not mine.exists() and other.exists()
