"""Positions and game records refuse what no game can reach, naming the field (or line) and what is allowed."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.policy import RandomPolicy
from envs.core import dataclass_from_mapping
from envs.records import GameRecord, Recorder, main, replay, verify
from envs.uno import UnoEngine, UnoRules, action_id
from envs.uno_tricks import TricksEngine, TricksRules

from .tricks_helpers import laid as laid_card
from .tricks_helpers import position as tricks_position
from .uno_helpers import position as uno_position


def uno_load(pos: dict[str, Any], **rules: Any) -> UnoEngine:
    return UnoEngine.from_positions([pos], rules=UnoRules(**rules), auto_reset=False)


def tricks_load(pos: dict[str, Any], **rules: Any) -> TricksEngine:
    return TricksEngine.from_positions([pos], rules=TricksRules(**rules), auto_reset=False)


def played_uno_position(players: int = 3, seed: int = 1, moves: int = 5) -> dict[str, Any]:
    eng = UnoEngine(1, players, seed=seed, auto_reset=False)
    _, mask = eng.reset()
    policy = RandomPolicy(seed)
    for _ in range(moves):
        _, mask, _, done = eng.step(policy(eng.observe()[0], mask))
        if done[0]:
            break
    return eng.position(0)


def played_tricks_position(seed: int = 1) -> dict[str, Any]:
    eng = TricksEngine(1, seed=seed, auto_reset=False)
    eng.reset()
    return eng.position(0)


# ---------------------------------------------------------------- classic UNO positions
def test_the_colour_in_force_is_a_coloured_top_cards_own():
    with pytest.raises(
        ValueError, match=r"position 0: colour B differs from the top card R5: the colour in force is R"
    ):
        uno_load(uno_position([["R1", "B2"], ["Y1"]], top="R5", colour="B"))
    with pytest.raises(ValueError, match="colour G differs from the top card YS"):
        uno_load(uno_position([["R1", "B2"], ["Y1"]], top="YS", colour="G"))
    for top in ("W", "W+4"):  # a Wild on top names any colour
        assert uno_load(uno_position([["R1", "B2"], ["Y1"]], top=top, colour="B")).position(0)["colour"] == "B"
    with pytest.raises(ValueError, match="colour must be R, Y, G or B, got 5"):
        uno_load(uno_position([["R1", "B2"], ["Y1"]], top="W", colour=5))


def test_no_hand_is_empty_until_the_hand_is_over():
    for phase in ("play", "drawn", "challenge", "colour"):
        pos = uno_position([["R1", "B2"], []], top="R5", phase=phase)
        with pytest.raises(ValueError, match=r"hands\[1\] is empty in phase '" + phase + "'"):
            uno_load(pos)
    # A finished hand (phase over, auto_reset off) keeps its winner's empty hand.
    eng = UnoEngine(1, 2, seed=4, auto_reset=False)
    _, mask = eng.reset()
    policy = RandomPolicy(0)
    while eng.phase[0] != eng.over_phase:
        _, mask, _, _ = eng.step(policy(eng.observe()[0], mask))
    over = eng.position(0)
    assert [] in over["hands"]
    assert uno_load(over).position(0) == over
    # ...and a game over with every hand still holding cards is no finished game
    with pytest.raises(ValueError, match="phase 'over' needs a hand played out"):
        uno_load(uno_position([["R1", "B2"], ["Y1"]], top="R5", phase="over"))


def test_booleans_are_true_or_false_only():
    pos = uno_position([["R1", "B2"], ["Y1"]], top="R5")
    for bad in ("abc", 1, 0, None, [True]):
        with pytest.raises(ValueError, match=r"uno_declared\[0\] must be true or false, got"):
            uno_load({**pos, "uno_declared": [bad, False]})
    with pytest.raises(ValueError, match="uno_declared must list 2 booleans"):
        uno_load({**pos, "uno_declared": True})
    assert uno_load({**pos, "uno_declared": [False, True]}).position(0)["uno_declared"] == [False, True]
    challenge = uno_position(
        [["G1", "R2"], ["B1"]],
        discard=["R5", "W+4"],
        colour="G",
        current=1,
        phase="challenge",
        challenge={"previous_colour": "R", "guilty": "no"},
    )
    with pytest.raises(ValueError, match="challenge.guilty must be true or false, got 'no'"):
        uno_load(challenge)
    tricks = tricks_position([["R7"], ["G7"], ["R2"], ["B1"]])
    with pytest.raises(ValueError, match="annulled must be true or false, got 'abc'"):
        tricks_load({**tricks, "annulled": "abc"})
    laid = {**tricks, "table": [{"card": "R3", "forced": "no"}, None, None, None], "current_player": 1}
    with pytest.raises(ValueError, match=r"table\[0\].forced must be true or false, got 'no'"):
        tricks_load(laid)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), "1.0", None, True, 10**400])
def test_match_rewards_are_finite_numbers(bad):
    pos = {**uno_position([["R1", "B2"], ["Y1"]], top="R5"), "match_rewards": [bad, 0.0]}
    with pytest.raises(ValueError, match=r"match_rewards\[0\] must be a finite number from -1240 to 1240"):
        uno_load(pos)


def test_match_rewards_are_bounded_by_the_hands_played():
    pos = uno_position([["R1", "B2"], ["Y1"]], top="R5", hand_number=2)
    loaded = uno_load({**pos, "match_rewards": [-3000.0, 3000]}, match=True).position(0)
    assert loaded["match_rewards"] == [-3000.0, 3000.0]
    with pytest.raises(ValueError, match=r"match_rewards\[1\] must be a finite number from -3720 to 3720"):
        uno_load({**pos, "match_rewards": [0.0, 3721.0]}, match=True)


def test_a_game_in_play_has_no_match_result_yet():
    """A game of one hand scores nothing until it is over; a match in play has no total at its end."""
    pos = uno_position([["R1", "B2"], ["Y1"]], top="R5")
    for key, value in (("scores", [10, 0]), ("match_rewards", [0.0, 1.0]), ("hand_number", 1)):
        with pytest.raises(ValueError, match=r"stay 0 in a game of one hand \(match=False\)"):
            uno_load({**pos, key: value})
    assert uno_load({**pos, "scores": [499, 0]}, match=True).position(0)["scores"] == [499, 0]
    with pytest.raises(ValueError, match=r"a total reaches target_score=500, so a match in phase 'play'"):
        uno_load({**pos, "scores": [500, 0]}, match=True)
    assert uno_load({**pos, "scores": [500, 0]}, match=True, scoring="reverse").position(0)["scores"] == [500, 0]
    with pytest.raises(ValueError, match=r"a total passes target_score=500"):
        uno_load({**pos, "scores": [501, 0]}, match=True, scoring="reverse")


def test_a_challenge_flag_must_fit_the_bluffers_hand():
    """Until its answer, the Wild Draw Four's player only takes cards (a UNO penalty): its hand
    still shows whether it held the colour in force before it."""
    pos = uno_position([["R7", "G3"], ["B1", "B2"], ["Y1"]], discard=["R5", "W+4"], colour="B", current=1)

    def challenged(guilty: bool, hands: list[list[str]] | None = None) -> dict[str, Any]:
        change = {"hands": hands} if hands else {}
        challenge = {"player": 0, "previous_colour": "R", "guilty": guilty}
        return {**pos, **change, "phase": "challenge", "challenge": challenge}

    assert uno_load(challenged(True)).position(0)["challenge"]["guilty"] is True
    with pytest.raises(ValueError, match="challenge.guilty is false, but hands\\[0\\] holds a R card"):
        uno_load(challenged(False, [["R7", "G3", "G4", "G5"], ["B1", "B2"], ["Y1"]]))  # more than 1 + penalty
    with pytest.raises(ValueError, match="challenge.guilty is true, but hands\\[0\\] holds no R card"):
        uno_load(challenged(True, [["G2", "G3"], ["B1", "B2"], ["Y1"]]))
    caught = [["G2", "R7", "G3"], ["B1", "B2"], ["Y1"]]  # 1 card + a UNO penalty of 2 (R7 drawn)
    assert uno_load(challenged(False, caught)).position(0)["challenge"]["guilty"] is False
    short = [["G2", "R7"], ["B1", "B2"], ["Y1"]]  # a penalty of 4 of which the piles held 1
    assert uno_load(challenged(False, short), uno_penalty=4).position(0)["challenge"]["guilty"] is False


def test_a_revealed_hand_is_one_a_challenge_can_have_shown():
    # Three players, a partial deck: a Wild Draw Four was challenged, seat 0 showed its hand to seat 1.
    pos = uno_position(
        [["R1", "G2"], ["B1", "B2"], ["Y1", "Y2"]], discard=["R5", "W+4"], colour="G", current=1, draw=["G7"]
    )

    def revealed(**change: Any) -> dict[str, Any]:
        return {**pos, "revealed": {"to": 1, "player": 0, "hand": ["R1", "G2"], **change}}

    assert uno_load(revealed()).position(0)["revealed"] == {"to": 1, "player": 0, "hand": ["R1", "G2"]}
    with pytest.raises(ValueError, match="revealed.player must sit next to revealed.to"):
        uno_load(revealed(player=1))  # its own hand
    with pytest.raises(ValueError, match="revealed.hand is empty"):
        uno_load(revealed(hand=[]))
    with pytest.raises(ValueError, match="revealed.hand shows cards this game does not hold: B9 x1"):
        uno_load(revealed(hand=["R1", "B9"]))
    with pytest.raises(ValueError, match=r"R1 x2.*the game has R1 x1"):
        uno_load(revealed(hand=["R1", "R1"]))
    with pytest.raises(ValueError, match=r"W\+4 x1 \(with the challenged W\+4\)"):
        uno_load({**revealed(), "discard_pile": ["R5", "W"]})  # no Wild Draw Four was ever played
    with pytest.raises(ValueError, match="revealed must be"):
        uno_load(revealed(extra=1))
    twice = [revealed()["revealed"], {"to": 1, "player": 2, "hand": ["G2"]}]
    with pytest.raises(ValueError, match=r"revealed\[1\]: seat 1 is shown two hands"):
        uno_load({**pos, "revealed": twice})
    with pytest.raises(ValueError, match=r"revealed.to must be a seat 0\.\.2, got 10"):
        uno_load(revealed(to=10**1))
    four = uno_position([["R1"], ["B1"], ["Y1"], ["G1"]], discard=["R5", "W+4"], colour="G", current=2)
    with pytest.raises(ValueError, match="revealed.player must sit next to revealed.to"):
        uno_load({**four, "revealed": {"to": 2, "player": 0, "hand": ["R1"]}})


def test_a_real_challenge_reveal_reloads_though_the_shown_hand_has_changed_since():
    """The hand shown is the hand as it was when challenged: a guilty player has drawn 4 since,
    so the revealed hand is not the hand held now, and the position still reloads."""
    pos = uno_position(
        [["R7", "W+4", "G2"], ["B5", "Y5"]], draw=["G1", "B2", "B3", "B4", "Y6"], discard=["R5"], colour="R"
    )
    eng = uno_load(pos)
    eng.step(np.array([action_id("play W+4 B")]))
    eng.step(np.array([action_id("challenge")]))
    after = eng.position(0)
    assert after["revealed"] == {"to": 1, "player": 0, "hand": ["R7", "G2"]}
    assert len(after["hands"][0]) == 6  # guilty: drew 4 after showing its hand
    assert uno_load(after).position(0) == after


# ---------------------------------------------------------------- trick game hand sizes
def tricks_numbers(count: int) -> list[str]:
    """``count`` distinct number cards of the deck (colourless names resolve to free copies)."""
    return [str(n) for n in range(1, 10) for _ in range(8)][:count]


def test_a_trick_hand_holds_what_the_rules_allow():
    # Ten number cards are dealt and one is laid per trick; with exchange_returns "drawn" an
    # exchange puts back as many cards as it drew, so hand sizes never change.
    big = tricks_position([tricks_numbers(30), ["0"], ["0"], ["0"]], number_pile=[])
    with pytest.raises(ValueError, match=r"hands\[0\] holds 30 number cards; at trick 1 a seat holds at most 10"):
        tricks_load(big)
    # The literal rule ("two": put back exactly two after drawing up to four) lets hands grow.
    assert len(tricks_load(big, exchange_returns="two").position(0)["hands"][0]) == 30
    ten = tricks_position([tricks_numbers(10), ["0"], ["0"], ["0"]], number_pile=[])
    assert len(tricks_load(ten).position(0)["hands"][0]) == 10
    with pytest.raises(ValueError, match=r"hands\[0\] holds 10 number cards; at trick 2 a seat holds at most 9"):
        tricks_load({**ten, "trick": 2})
    laid = tricks_position(
        [["5"], tricks_numbers(10), ["0"], ["0"]], table=[{"card": "R3"}, None, None, None], current=1, number_pile=[]
    )
    assert tricks_load(laid)
    with pytest.raises(ValueError, match=r"hands\[0\] holds 1 number cards; at trick 10 a seat holds at most 0"):
        tricks_load({**laid, "trick": 10})
    with pytest.raises(ValueError, match="trick must be an integer from 1 to 1,000,000"):
        tricks_load({**ten, "trick": 0})


def test_a_finished_trick_game_has_its_number_cards_played_out():
    eng = TricksEngine(1, seed=5, auto_reset=False)
    obs, mask = eng.reset()
    policy = RandomPolicy(5)
    while eng.phase[0] != eng.over_phase:
        obs, mask, _, _ = eng.step(policy(obs, mask))
    over = eng.position(0)
    assert tricks_load(over).position(0) == over  # a finished game loads as it is
    with pytest.raises(ValueError, match="phase 'over' needs the number cards played out and the table cleared"):
        tricks_load({**played_tricks_position(), "phase": "over"})


def test_cards_to_put_back_follow_the_exchange_rule():
    pos = tricks_position(
        [["1", "2", "3", "4", "5"], ["6"], ["7"], ["8"]],
        table=[{"card": "R9", "specials": ["W+4"]}, None, None, None],
        phase="return",
        number_pile=[],
        returns_left=4,
    )
    assert tricks_load(pos).position(0)["returns_left"] == 4
    with pytest.raises(ValueError, match="returns_left must be an integer from 1 to 2, got 4"):
        tricks_load(pos, exchange_returns="two")
    with pytest.raises(ValueError, match="returns_left must be an integer from 1 to 4, got 5"):
        tricks_load({**pos, "returns_left": 5})


# ---------------------------------------------------------------- huge and mistyped integers
UNO_FIELDS = [
    (("scores", 0), r"scores\[0\] must be an integer from 0 to 1,740"),
    (("hand_number",), "hand_number must be an integer from 0 to 1,000,000,000"),
    (("pending_draw",), "pending_draw must be an integer from 0 to 32"),
    (("current_player",), r"current_player must be a seat 0\.\.2"),
    (("hand_starter",), r"hand_starter must be a seat 0\.\.2"),
    (("direction",), "direction must be 1 or -1"),
    (("rng", "counter"), "rng.counter must be an integer from 0 to 18,446,744,073,709,551,615"),
    (("rng", "game_seed"), "rng.game_seed must be an integer from 0 to 18,446,744,073,709,551,615"),
]
TRICKS_FIELDS = [
    (("trick",), "trick must be an integer from 1 to 1,000,000"),
    (("leader",), r"leader must be a seat 0\.\.3"),
    (("current_player",), r"current_player must be a seat 0\.\.3"),
    (("draw_limit",), "draw_limit must be an integer from 0 to 4"),
    (("returns_left",), "returns_left must be an integer from 0 to 4"),
    (("points", 0), r"points \[10000.*\] differ from the points piles"),
    (("rng", "counter"), "rng.counter must be an integer from 0 to 18,446,744,073,709,551,615"),
    (("rng", "game_seed"), "rng.game_seed must be an integer from 0 to 18,446,744,073,709,551,615"),
]


def set_path(pos: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    pos = copy.deepcopy(pos)
    target = pos
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return pos


@pytest.mark.parametrize("value", [10**30, -(10**30), 2**64, -1, 2.5, "7"])
@pytest.mark.parametrize(("path", "message"), UNO_FIELDS, ids=[".".join(map(str, p)) for p, _ in UNO_FIELDS])
def test_uno_integers_out_of_range_are_named(path, message, value):
    pos = played_uno_position()
    if value == -1 and path in (("direction",),):
        return  # -1 is a direction
    with pytest.raises(ValueError, match=r"position 0: " + message):
        uno_load(set_path(pos, path, value))


@pytest.mark.parametrize("value", [10**30, -(10**30), 2**64, -1, 2.5, "7"])
@pytest.mark.parametrize(("path", "message"), TRICKS_FIELDS, ids=[".".join(map(str, p)) for p, _ in TRICKS_FIELDS])
def test_trick_game_integers_out_of_range_are_named(path, message, value):
    pos = played_tricks_position()
    if path == ("points", 0) and value != 10**30:
        return
    with pytest.raises(ValueError, match=r"position 0: " + message):
        tricks_load(set_path(pos, path, value))


def test_a_config_that_is_not_a_mapping_is_refused():
    with pytest.raises(ValueError, match=r"expected a mapping of UnoRules option\(s\), got list"):
        UnoRules.from_dict([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"unknown UnoRules option\(s\) 1, x"):
        UnoRules.from_dict({1: True, "x": 2})  # type: ignore[dict-item]
    assert dataclass_from_mapping(UnoRules, None, "options") == UnoRules()


# ---------------------------------------------------------------- game records
def recorded_game(seed: int = 3, players: int = 2) -> GameRecord:
    eng = UnoEngine(1, players, seed=seed, auto_reset=False)
    recorder, policy = Recorder(eng), RandomPolicy(seed)
    obs, mask = recorder.reset()
    while not recorder.completed:
        obs, mask, _, _ = recorder.step(policy(obs, mask))
    return recorder.completed[0]


def lines_of(record: GameRecord) -> list[str]:
    return record.to_lines()


def test_a_move_after_the_game_has_ended_is_refused():
    record = recorded_game()
    lines = lines_of(record)
    end = len(lines) - 1  # the line of the last move (the result line follows)
    extra = json.dumps({"type": "move", "player": record.moves[-1][0], "action": "draw"})
    broken = GameRecord.from_lines([*lines[:-1], extra, lines[-1]])
    with pytest.raises(ValueError, match=rf"line {end + 1}: move {len(record.moves)} comes after the game has ended "):
        verify(broken)
    with pytest.raises(ValueError, match=rf"\(at line {end}\)"):
        list(replay(broken))
    with pytest.raises(
        ValueError, match=rf"line {len(lines) + 1}: a move line after the result line \(line {end + 1}\)"
    ):
        GameRecord.from_lines([*lines, extra])


def test_a_header_must_agree_with_its_start_position():
    record = recorded_game(players=2)
    lines = lines_of(record)
    header = json.loads(lines[0])
    with pytest.raises(ValueError, match="line 1: the header says num_players 3, its start position 2"):
        GameRecord.from_lines([json.dumps({**header, "num_players": 3}), *lines[1:]])
    tricks = TricksEngine(1, seed=0, auto_reset=False)
    tricks.reset()
    start = tricks.position(0)
    head = {"type": "header", "game": "tricks", "version": 1, "num_players": 3, "rules": {}, "start": start}
    with pytest.raises(ValueError, match="line 1: the header says num_players 3, its start position 4"):
        GameRecord.from_lines([json.dumps(head)])
    # A record built in memory is checked when it is replayed.
    wrong = GameRecord("tricks", 3, {}, start)
    with pytest.raises(ValueError, match="line 1: the header says num_players 3, its start position is a game of 4"):
        verify(wrong)


@pytest.mark.parametrize("line", ["[1, 2]", '"move"', "null", "7", "true", "[]", '{"type": "move"}', '{"type": 5}'])
def test_lines_that_are_not_record_objects_are_refused_with_their_number(line):
    lines = lines_of(recorded_game())
    with pytest.raises(ValueError, match=r"^line 3"):
        GameRecord.from_lines([lines[0], lines[1], line, *lines[2:]])
    with pytest.raises(ValueError, match=r"^a game record starts with a header line; line 1 is"):
        GameRecord.from_lines([line, *lines])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"player": "0"}, r"line 2: player must be a seat 0\.\.1, got '0'"),
        ({"player": 10**30}, r"line 2: player must be a seat 0\.\.1, got 1000"),
        ({"player": True}, r"line 2: player must be a seat"),
        ({"action": 60}, r"line 2: action must be an action name \(a string\), got 60"),
        ({"action": "fly"}, r"line 2: move 0: unknown action 'fly'"),
        ({"note": 1}, r"line 2: a move line has exactly the keys action, player, type; unknown note"),
    ],
)
def test_bad_move_lines_name_their_line(change, message):
    lines = lines_of(recorded_game())
    move = {**json.loads(lines[1]), **change}
    with pytest.raises(ValueError, match=message):
        verify(GameRecord.from_lines([lines[0], json.dumps(move), *lines[2:]]))


def test_bad_headers_and_results_name_their_line():
    lines = lines_of(recorded_game())
    header, result = json.loads(lines[0]), json.loads(lines[-1])
    for change, message in [
        ({"rules": [1]}, "line 1: rules must be a mapping"),
        ({"start": None}, "line 1: start must be a position"),
        ({"num_players": "2"}, "line 1: num_players must be the table size"),
        ({"game": ["uno"]}, r"line 1: unknown game \['uno'\]"),
        ({"version": True}, "record format version True"),
        ({"rules": {"stacking": "yes"}}, "line 1: UnoRules.stacking must be true or false"),
    ]:
        with pytest.raises(ValueError, match=message):
            verify(GameRecord.from_lines([json.dumps({**header, **change}), *lines[1:]]))
    n = len(lines)
    for rewards in (None, [1.0], [float("nan"), 0.0], ["1", 0], [10**400, 0]):
        with pytest.raises(ValueError, match=rf"line {n}: rewards must list 2 finite numbers"):
            GameRecord.from_lines([*lines[:-1], json.dumps({**result, "rewards": rewards})])
    with pytest.raises(ValueError, match=rf"line {n + 1}: a second header line"):
        GameRecord.from_lines([*lines, lines[0]])
    with pytest.raises(ValueError, match=rf"line {n - 1}: a result line, but the replay did not reach the end"):
        verify(GameRecord.from_lines([*lines[:-2], lines[-1]]))


def test_a_record_cut_short_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture):
    record = recorded_game()
    lines = lines_of(record)
    # Cut just before the result line: the game ends, but the record does not say how.
    no_result = GameRecord.from_lines(lines[:-1])
    with pytest.raises(ValueError, match=rf"no result line: the game ends at line {len(lines) - 1}"):
        verify(no_result)
    path = tmp_path / "cut.jsonl"
    path.write_text("\n".join(lines[:-1]) + "\n")
    assert main(["show", str(path)]) == 1
    assert "no result line: the game ends at line" in capsys.readouterr().err
    # Cut in the middle: the replay stops while the game goes on.
    path.write_text("\n".join(lines[:5]) + "\n")
    assert main(["show", str(path)]) == 1
    out = capsys.readouterr()
    assert "   3. P" in out.out  # the moves there are are shown
    assert "error: the record ends before the game does: no result line" in out.err
    assert "after line 5" in out.err
    # A game saved while it is being played replays for whoever wants to go on with it.
    assert verify(GameRecord.from_lines(lines[:5])).index == 3
    with pytest.raises(ValueError, match="the record ends before the game does"):
        verify(GameRecord.from_lines(lines[:5]), complete=True)
    path.write_text("\n".join(lines) + "\n")
    assert main(["show", str(path)]) == 0
    assert "result: " in capsys.readouterr().out


def test_show_refuses_a_broken_start_position_before_printing_it(tmp_path: Path, capsys: pytest.CaptureFixture):
    lines = lines_of(recorded_game())
    header = json.loads(lines[0])
    header["start"]["discard_pile"] = []
    path = tmp_path / "start.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert main(["show", str(path)]) == 1
    assert "error: line 1: position 0: discard_pile must hold at least its top card" in capsys.readouterr().err


@pytest.mark.parametrize(
    "changes, message",
    [
        # the leader (0) has laid, seat 1 has not: seat 2 cannot be the one to act
        ({"table": [laid_card("R1"), None, None, None], "current_player": 2}, "seat 1 lays before player 2"),
        ({"table": [None, laid_card("R1"), None, None], "current_player": 0}, "seat 1 lays after player 0"),
        ({"table": [laid_card("R1", added="G2"), None, None, None], "current_player": 1}, "added only by a Wild"),
        ({"table": [laid_card("R1", forced=True), None, None, None], "current_player": 1}, "exactly when its number"),
        ({"table": [laid_card("R1"), None, None, None], "current_player": 1, "annulled": True}, "only by a Skip"),
        (
            {"table": [laid_card("R1", specials=["RS"]), None, None, None], "current_player": 1, "annulled": False},
            "a Skip on the table annuls the trick",
        ),
        ({"table": [laid_card("R1"), laid_card("G1"), None, None], "current_player": 2}, "exactly when its number"),
        (
            {"table": [laid_card("R1"), laid_card("G2", forced=True), None, None], "current_player": 2},
            "exactly when its number",
        ),
    ],
)
def test_a_trick_position_follows_the_tricks_turn_order_and_its_cards(changes: dict, message: str) -> None:
    """Seats lay from the leader in seat order (kernel.end_turn): a position that skips one
    would end the trick without it. A Wild's card, a forced duplicate and an annulled trick
    each need what makes them."""
    hands = [["R3", "R4"], ["G3", "G4"], ["B3", "B4"], ["Y3", "Y4"]]
    pos = {**tricks_position(hands, trick=8), **changes}
    with pytest.raises(ValueError, match=message):
        TricksEngine.from_positions([pos], auto_reset=False)
    TricksEngine.from_positions([tricks_position(hands, trick=8)], auto_reset=False)  # the same, in order
    skip = {"table": [laid_card("R1", specials=["RS"]), None, None, None], "current_player": 1}
    eng = TricksEngine.from_positions([{**tricks_position(hands, trick=8), **skip}], auto_reset=False)
    assert eng.position(0)["annulled"] is True  # left out, the flag follows the Skip on the table


def test_a_trick_position_refuses_a_table_no_play_can_leave():
    """Each laid card keeps its own layer, cards change seats only by a Reverse, an exchange's
    return follows its +2 or +4 and puts back at most what it drew, and ten tricks are played
    when hand sizes never change."""
    from tests.tricks_helpers import engine, laid, position

    hands = [["Y2"], ["B4"], ["B2", "G8"], ["B1", "Y6"]]
    cases = (
        ({"table": [laid("R5", by=1), laid("G3", by=1), None, None], "current": 2}, "must name each seat"),
        ({"table": [laid("R5", by=1), laid("G3", by=0), None, None], "current": 2}, "none is on the table"),
        ({"table": [laid("R5"), None, None, None], "phase": "return", "returns_left": 1}, "follows a \\+2 or a \\+4"),
        (
            {"table": [laid("R5", specials=["Y+2"]), None, None, None], "phase": "return", "returns_left": 4},
            "returns_left must be an integer from 1 to 2",
        ),
        ({"trick": 11}, "a game in play is at trick 10 at most"),
    )
    for change, message in cases:
        kw = {"hands": [["Y2", "R9", "R8", "R7"], *hands[1:]], **change}
        with pytest.raises(ValueError, match=message):
            engine(position(**kw))
    swapped = [laid("R5", by=1, specials=["RR"]), laid("G3", by=0), None, None]
    assert engine(position(hands, table=swapped, current=2)).position(0)["table"][0]["laid_by"] == 1
