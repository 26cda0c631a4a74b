"""Playing against the agents: move parsing, prompts, hidden information, whole games.

Positions are built by hand (``tests/uno_helpers.position``) so each situation the
person meets (a Wild to name, UNO to declare, a Wild Draw Four to answer) is certain.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from rich.console import Console

from envs.cards import card_type
from envs.records import GameRecord, verify
from tabletop.moves import Choice, MoveError, list_moves, parse_move
from tabletop.session import TableSession, opponent_spec
from tabletop.terminal import TerminalGame, phase_prompt
from tests.uno_helpers import position

#: Position keys that hold what a player may not know (their piles appear in views as counts only).
SECRETS = ("hands", "rng", "guilty", "game_seed", "points_piles", "match_rewards")
PILES = ("draw_pile", "discard_pile", "number_pile", "special_pile")


def keys_of(value: Any) -> set[str]:
    """Every key of nested dicts and lists."""
    if isinstance(value, dict):
        return set(value) | set().union(*(keys_of(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_of(v) for v in value)) if value else set()
    return set()


def uno_session(pos: dict[str, Any], opponents: tuple[str, ...] = ("random",), **kwargs: Any) -> TableSession:
    return TableSession("uno", pos["num_players"], opponents, position=pos, **kwargs)


# ---------------------------------------------------------------- reading typed moves
UNO_LEGAL = ["play R7", "play W R", "play W Y", "play W G", "play W B", "draw"]


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("R7", "play R7"),
        ("r7", "play R7"),
        ("play R7", "play R7"),
        ("  W   G ", "play W G"),
        ("w green", "play W G"),
        ("draw", "draw"),
        ("d", "draw"),
        ("1", "play R7"),
        ("3", "draw"),
    ],
)
def test_typed_uno_moves(text: str, action: str) -> None:
    moves = list_moves("uno", UNO_LEGAL)
    assert [m.label for m in moves] == ["R7", "W", "draw"]
    assert parse_move("uno", text, moves) == action


def test_a_wild_alone_asks_for_its_colour() -> None:
    moves = list_moves("uno", UNO_LEGAL)
    for text in ("W", "2"):
        choice = parse_move("uno", text, moves)
        assert isinstance(choice, Choice)
        assert choice.resolve("b") == "play W B"
        assert choice.resolve("Yellow") == "play W Y"
        for label in choice.labels:  # an answer typed out as the list shows it
            assert choice.resolve(f" {label.upper()} ") == choice.resolve(label.split()[0])
        with pytest.raises(MoveError, match="not one of"):
            choice.resolve("purple")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "type a move"),
        ("9", "no move has key 9"),
        ("G3", "you do not hold G3"),
        ("R8", "R8 cannot be played now"),
        ("hello", "is not a move"),
        ("W purple", "'purple' is not a colour: a W names one of R \\(red\\)"),
        ("pass", "'pass' is a move, but not now: it keeps a card you have just drawn"),
        ("u", "'uno' is a move, but not now: it is said right after you play your second-to-last card"),
        ("challenge", "'challenge' is a move, but not now: it answers a Wild Draw Four played on you"),
    ],
)
def test_bad_uno_input_says_what_is_allowed(text: str, message: str) -> None:
    moves = list_moves("uno", UNO_LEGAL)
    with pytest.raises(MoveError, match=message) as err:
        parse_move("uno", text, moves, hand=["R7", "R8", "W"])
    assert text == "" or "R7" in str(err.value)


def test_a_move_that_is_not_legal_now_says_what_the_phase_asks() -> None:
    moves = list_moves("uno", ["play R7", "draw"])
    with pytest.raises(MoveError, match=r"'uno' is a move, but not now: .* Now you play a card. Legal: 1 R7, 2 draw"):
        parse_move("uno", "uno", moves, phase="play")
    moves = list_moves("uno", ["challenge", "accept"])
    with pytest.raises(MoveError, match="'draw' is a move, but not now: .* Now you challenge or accept the Wild Draw"):
        parse_move("uno", "draw", moves, phase="challenge")
    moves = list_moves("tricks", ["lay 3", "lay 7"])
    with pytest.raises(MoveError, match="'keep' is a move, but not now: it answers your own Reverse"):
        parse_move("tricks", "keep", moves, phase="lay")


def test_the_first_cards_effect_is_announced_for_every_hand() -> None:
    session = TableSession("uno", 2, ["random"], seed=1)  # this deal turns R+2 first
    first = session.advance()[0]
    assert first.action == "deal" and first.player == -1
    assert first.text == "Hand 1: the first card is R+2; You drew 2; You miss the turn; P1 random plays first"
    session = TableSession("uno", 2, ["random"], seed=4, target=150)  # GR first: the dealer plays first
    events = session.advance()
    assert events[0].text == "Hand 1: the first card is GR; play goes the other way; P1 random plays first"
    hands = 1
    while not session.over:
        events = session.act(session.legal_actions()[0])
        deals = [e for e in events if e.action == "deal"]
        hands += len(deals)
        assert all(
            e.text.startswith(f"Hand {hands - len(deals) + i + 1}: the first card is") for i, e in enumerate(deals)
        )
    assert hands == sum(e.hand_over is not None for e in session.history) >= 2  # one announcement per hand


def test_typed_trick_game_moves() -> None:
    moves = list_moves("tricks", ["lay 3", "lay 3 +2", "lay 7", "lay 7 skip"])
    assert parse_move("tricks", "7 skip", moves) == "lay 7 skip"
    assert parse_move("tricks", "lay 7", moves) == "lay 7"
    assert parse_move("tricks", "2", moves) == "lay 3 +2"  # a bare number is a key
    draws = list_moves("tricks", ["draw 0", "draw 1", "draw 2", "keep"])
    assert parse_move("tricks", "draw 2", draws) == "draw 2"
    assert parse_move("tricks", "k", draws) == "keep"
    with pytest.raises(MoveError, match="not a legal move"):
        parse_move("tricks", "draw 4", draws)
    # where the question is "how many?" or "which number?", a number answers it (not a key)
    assert parse_move("tricks", "2", draws, phase="draw") == "draw 2"
    assert [m.key for m in draws] == ["0", "1", "2", "4"]  # the list's keys are those numbers too
    assert parse_move("tricks", "2", draws, phase="lay") == "draw 2"
    back = list_moves("tricks", ["return 3", "return 7", "return 8"])
    assert parse_move("tricks", "7", back, phase="return") == "return 7"
    with pytest.raises(MoveError, match="'return 2' is not a legal move here"):
        parse_move("tricks", "2", back, phase="return")  # no 2 to put back: refused, not key 2


# ---------------------------------------------------------------- the person's moves in a game
def test_wild_colour_uno_and_challenge_prompts() -> None:
    # P0 holds W and R7 on a red top: playing R7 leaves one card and asks for UNO
    pos = position([["R7", "W"], ["G2", "G3", "Y4"]], top="R5")
    session = uno_session(pos)
    assert phase_prompt(session.view()) == "Your move"
    assert isinstance(session.parse("W"), Choice)
    session.act("play R7")
    view = session.view()
    assert view["phase"] == "uno"
    assert "declare UNO" in phase_prompt(view)
    assert session.parse("u") == "uno"
    events = session.act("uno")
    assert events[0].text == "You declared UNO!"
    after = events[0].view  # right after the declaration: one card left (W), UNO shown
    assert after["hand"] == ["W"] and after["players"][0]["uno"] and after["players"][0]["cards"] == 1


def test_challenged_hand_is_shown_to_the_challenger_only() -> None:
    # P1 (an agent) plays a bluffing W+4 on P2 (an agent who always challenges); P0 (the person) watches
    pos = position([["R1", "R2", "R3"], ["W+4", "R9", "G1"], ["Y1", "Y2"]], top="R5", current=1)
    session = uno_session(
        pos, opponents=({"name": "heuristic", "bluff": 1.0}, {"name": "heuristic", "challenge": "always"})
    )
    events = session.advance()
    texts = " | ".join(e.text for e in events)
    assert "P1 heuristic" in texts and "played W+4" in texts and "challenged" in texts
    for event in events:
        assert event.view["revealed"] is None
        assert not keys_of(event.view) & set(SECRETS)


def test_the_person_sees_the_hand_they_challenged() -> None:
    pos = position([["R1", "R2"], ["W+4", "R9", "G1"]], top="R5", current=1)
    session = uno_session(pos, opponents=({"name": "heuristic", "bluff": 1.0},))
    session.advance()
    view = session.view()
    assert view["phase"] == "challenge" and view["challenge_from"] == 1
    assert "challenge it?" in phase_prompt(view)
    assert session.parse("c") == "challenge"
    events = session.act("challenge")
    assert "you saw the hand of P1 heuristic(bluff=1.0): R9 G1" in events[0].text
    assert "P1 heuristic(bluff=1.0) drew 4" in events[0].text  # the bluff was caught


@pytest.mark.parametrize("bluff", [True, False])
def test_a_challenged_hand_is_shown_until_another_seat_moves(bluff: bool) -> None:
    """Caught bluffing, P1 draws 4 and the person plays on, seeing the hand at that move; an
    honest P1 makes the person draw 6 and lose the turn, and the hand goes at the next move
    (P1 then plays from it). The terminal's panel and the page's view agree."""
    held = ["R9", "G1"] if bluff else ["B9", "G1"]
    pos = position([["R1", "R2"], ["W+4", *held], ["Y1", "Y2", "Y3", "B1"]], top="R5", current=1, direction=-1)
    session = uno_session(pos, opponents=({"name": "heuristic", "bluff": float(bluff)},))
    session.advance()
    events = session.act("challenge")
    shown = {"player": 1, "hand": sorted(held, key=card_type)}
    assert events[0].view["revealed"] == shown
    assert [e.view["revealed"] for e in events[1:]] == [None] * (len(events) - 1)
    assert session.view()["revealed"] == (shown if bluff else None)
    assert len(events) == (1 if bluff else 5)  # honest: P2 and P1 play before the person's turn
    out = run_terminal(uno_session(pos, opponents=({"name": "heuristic", "bluff": float(bluff)},)), ["c", "quit"])
    text = " ".join(out.split())  # as read, not as wrapped
    line = f"At your challenge P1 heuristic(bluff={float(bluff)}) held: {' '.join(shown['hand'])}"
    assert text.count(line) == (1 if bluff else 0)
    assert f"you saw the hand of P1 heuristic(bluff={float(bluff)}): {' '.join(shown['hand'])}" in text


def test_bad_input_changes_nothing() -> None:
    session = TableSession("uno", 3, ["heuristic"], seed=4)
    before = session.engine.position(0)
    for text in ("Z9", "", "42", "challenge"):
        with pytest.raises(MoveError):
            session.parse(text)
    with pytest.raises(MoveError, match="not legal"):
        session.act("play W+4 R" if "play W+4 R" not in session.legal_actions() else "challenge")
    assert session.engine.position(0) == before
    assert session.record.moves == []


def test_views_hold_only_what_the_person_may_know() -> None:
    for game, players in (("uno", 4), ("tricks", 4)):
        session = TableSession(game, players, ["random"], seed=11)
        session.advance()
        for _ in range(30):
            if session.over:
                break
            view = session.view()
            assert not keys_of(view) & set(SECRETS)
            assert all(isinstance(view[k], int) for k in PILES if k in view)  # sizes, never the cards
            own = view["hand"]
            assert sorted(own) == sorted(session.engine.position(0)["hands"][0])
            for p in view["players"]:
                assert isinstance(p.get("cards", p.get("numbers")), int)  # the others: counts only
            session.act(session.legal_actions()[0])


def test_a_whole_uno_match_and_its_record_replays(tmp_path: Any) -> None:
    session = TableSession("uno", 3, ["heuristic", "agent"], seed=2, target=150)
    session.advance()
    hands_over = 0
    while not session.over:
        events = session.act(session.legal_actions()[-1])
        hands_over += sum(e.hand_over is not None for e in events)
    final = session.history[-1]
    assert final.game_over is not None and final.hand_over is not None
    scores = final.game_over["scores"]
    assert max(scores) >= 150 and hands_over >= 1
    assert session.tally.games == 1 and sum(session.tally.wins.values()) == len(final.game_over["winners"])
    path = session.save_record(tmp_path / "match.jsonl")
    last = verify(GameRecord.load(path))
    assert last is not None and last.done
    session.next_game()
    assert not session.over and session.view()["players"][0]["score"] == 0
    # the history is the game in play's: a long session does not keep every game's events
    assert session.history and all(e.game_over is None for e in session.history)


@pytest.mark.parametrize("scoring", ["standard", "reverse"])
def test_the_page_gets_standings_in_order_and_the_result_in_words(scoring: str) -> None:
    """What the page shows without sorting or wording anything itself: the view's leader-first
    seats and column name, each hand's order, the game's line."""
    session = TableSession("uno", 3, ["heuristic"], seed=4, target=150, rules={"scoring": scoring})
    session.advance()
    checked = 0
    while not session.over:
        for event in session.act(session.legal_actions()[-1]):
            if event.hand_over:
                assert event.hand_over["order"] == session.rules.standing_order(event.hand_over["scores"])
                checked += 1
    view = session.view()
    scores = [p["score"] for p in view["players"]]
    assert view["standing"] == session.rules.standing_order(scores) and checked
    assert view["needed_label"] == ("room left" if scoring == "reverse" else "needed")
    info = session.history[-1].game_over
    assert info["line"] == session.table.over_line(info) and info["line"].startswith("Match over: ")
    assert info["players"] == session.names and info["order"] == session.rules.standing_order(info["scores"])
    names = ", ".join(session.names[s] for s in info["winners"])
    scores = " · ".join(f"{session.names[s]} {info['scores'][s]}" for s in info["order"])  # whose score is whose
    assert info["line"] == f"Match over: {names} won ({scores})"


def test_a_whole_trick_game_keeps_a_tally() -> None:
    session = TableSession("tricks", 4, ["heuristic", "agent", "heuristic"], seed=5)
    assert session.names[2] == "P2 agent (partner)"
    session.advance()
    while not session.over:
        events = session.act(session.legal_actions()[0])
        for e in events:
            if e.action == "return a card":
                assert e.player != 0
    assert sum(e.trick_over is not None for e in session.history) == 10
    # no "table": it was the table before the trick's last move (the card that ended it missing)
    assert all(set(e.trick_over) == {"trick", "winner", "points"} for e in session.history if e.trick_over)
    assert session.tally.games == 1 and set(session.tally.points) == {"A", "B"}


def test_opponent_specs() -> None:
    assert opponent_spec("uno", 2, "heuristic") == "heuristic"
    assert opponent_spec("uno", 2, "agent")["checkpoint"].endswith("uno_2p_ppo.pt")
    assert opponent_spec("uno", 5, "agent")["checkpoint"].endswith("uno_4p_ppo.pt")
    with pytest.raises(ValueError, match="unknown policy|not a|known"):
        opponent_spec("uno", 2, "superhuman")
    with pytest.raises(ValueError, match="only 'agent'"):
        opponent_spec("uno", 2, "heuristic:x.pt")
    with pytest.raises(ValueError, match=r"give 1 opponent policy \(it plays every other seat\) or 2 \(one per"):
        TableSession("uno", 3, ["random", "random", "random"])
    with pytest.raises(ValueError, match=r"give 1 opponent policy \(it plays every other seat\) for 2 players, got 3"):
        TableSession("uno", 2, ["random", "random", "random"])


# ---------------------------------------------------------------- the terminal
def run_terminal(session: TableSession, lines: list[str], **kwargs: Any) -> str:
    feed = iter(lines)

    def answer(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    out = io.StringIO()
    TerminalGame(session, input_fn=answer, console=Console(file=out, width=120), **kwargs).run()
    return out.getvalue()


def test_terminal_prompts_again_after_bad_input() -> None:
    pos = position([["R7", "W", "G2"], ["G5", "G3", "Y4"]], top="R5")
    session = uno_session(pos)
    text = run_terminal(session, ["R9", "xyz", "help", "W", "purple", "green", "quit"])
    assert "you do not hold R9" in text
    assert "is not a move" in text
    assert "Type a key from the list" in text
    assert "not one of" in text
    assert "You played W, naming green" in text
    assert session.record.moves[0] == (0, "play W G")


def test_terminal_a_wilds_colour_question_lets_the_person_go_back_or_quit() -> None:
    pos = position([["R7", "W", "G2"], ["G5", "G3", "Y4"]], top="R5")
    session = uno_session(pos)
    text = run_terminal(session, ["W", "help", "back", "R7", "quit"])
    assert "Answer one of: 1 R (red)" in text and session.record.moves[0] == (0, "play R7")
    session = uno_session(pos)
    text = run_terminal(session, ["W", "quit"])
    assert not session.record.moves and "bye: 0 games finished" in text
    session = uno_session(pos)
    run_terminal(session, ["W", "b", "quit"])  # b is blue, not back
    assert session.record.moves[0] == (0, "play W B")


def test_the_end_of_a_game_is_worded_once_for_every_screen() -> None:
    from tabletop import tricks_table, uno_table

    assert tricks_table.over_line({"points": {"A": 70, "B": 70}, "teams": []}) == (
        "Game over: team A 70, team B 70: a draw"
    )
    assert tricks_table.over_line({"points": {"A": 90, "B": 50}, "teams": ["A"]}).endswith(": team A wins")
    info = {"names": ["You"], "scores": [130, 512], "players": ["P0 random", "You"], "order": [1, 0], "match": True}
    assert uno_table.over_line(info) == "Match over: You won (You 512 · P0 random 130)"


def test_terminal_plays_a_whole_match_and_saves_it(tmp_path: Any) -> None:
    session = TableSession("uno", 2, ["random"], seed=6, target=1)
    record = tmp_path / "game.jsonl"
    text = run_terminal(session, ["1"] * 300, record_path=record)
    assert "Match over: P1 random won (P1 random 2 · You 0)" in text and "Hand over" in text
    assert json.loads(record.read_text().splitlines()[0])["game"] == "uno"
    assert verify(GameRecord.load(record)).done


def test_terminal_record_keeps_every_game_of_the_session(tmp_path: Any) -> None:
    """--record saves each game once, to its own file: game.jsonl, game-2.jsonl, ... A single
    game (no match) ends with "Game over", not "Match over"."""
    session = TableSession("uno", 2, ["random"], seed=6, rules={"match": False})
    record = tmp_path / "game.jsonl"
    between = iter(["", f"save {tmp_path / 'mine.jsonl'}", "quit"])  # at the end of a game

    def answer(prompt: str) -> str:
        return next(between) if prompt.startswith("Enter: next game") else "1"

    out = io.StringIO()
    TerminalGame(session, input_fn=answer, console=Console(file=out, width=200), record_path=record).run()
    text = out.getvalue()
    assert "Game over" in text and "Match over" not in text
    first, second = GameRecord.load(record), GameRecord.load(tmp_path / "game-2.jsonl")
    assert verify(first).done and verify(second).done and first.start != second.start
    assert text.count(f"saved to {tmp_path / 'game-2.jsonl'}") == 1  # once, not again after save FILE
    assert verify(GameRecord.load(tmp_path / "mine.jsonl")).done


def test_terminal_trick_game() -> None:
    session = TableSession("tricks", 4, ["heuristic"], seed=1)
    text = run_terminal(session, ["1"] * 200)
    assert "Trick game · trick 1" in text
    assert "Game over: team A" in text


def test_drawing_several_cards_says_how_many() -> None:
    pos = position([["B1", "B2"], ["Y1", "Y2"]], top="R5", draw=["Y7", "G3", "R9", "G1"])
    session = TableSession("uno", 2, ["random"], position=pos, rules={"draw_until_playable": True, "match": False})
    event = session.act("draw")[0]
    assert event.text.startswith("You drew 3 cards (you got G3 R9 Y7)")
    assert session.view()["phase"] == "drawn" and session.legal_actions() == ["play R9"]


def test_play_py_reads_rules_like_the_other_commands_and_refuses_flags_that_do_not_apply(capsys) -> None:
    from play import build_parser, main, session_options

    parser = build_parser()
    args = parser.parse_args(["stacking=true", "rules.uno_penalty=4", "target_score=300"])
    assert session_options(args, parser) == {"stacking": True, "uno_penalty": 4, "target_score": 300}
    for argv, message in [
        (["--web", "--players", "3"], "--players does not apply to --web"),
        (["--score", "--game", "tricks", "stacking=true"], "--game, key=value rules do not apply to --score"),
        (["--port", "9000"], "--port does not apply to the terminal game"),
    ]:
        with pytest.raises(SystemExit):
            main(argv)
        assert message in capsys.readouterr().err


def test_seven_zero_swaps_are_told_and_offered_by_seat() -> None:
    pos = position([["R7", "R0", "B1", "B2"], ["Y1", "Y2"], ["G1", "G2", "G3"]], top="R5")
    session = TableSession("uno", 3, ["random", "random"], position=pos, rules={"seven_zero": True, "match": False})
    event = session.act("play R7")[0]
    assert event.text == "You played R7" and session.view()["phase"] == "swap"
    assert session.view()["swap_seats"] == {"swap 1": 1, "swap 2": 2}
    assert phase_prompt(session.view()).endswith("(swap 1 = P1 random, swap 2 = P2 random)")
    event = session.act("swap 1")[0]
    assert event.text == "You swapped hands with P1 random (your hand now: Y1 Y2)"
    with pytest.raises(MoveError, match="'swap' is a move, but not now: it follows your own 7"):
        session.parse("swap 2")


def test_a_zero_under_seven_zero_says_that_every_hand_passed_on() -> None:
    pos = position([["R0", "B1", "B2"], ["Y1", "Y2"], ["G1", "G2", "G3"]], top="R5")
    session = TableSession("uno", 3, ["random", "random"], position=pos, rules={"seven_zero": True, "match": False})
    event = session.act("play R0")[0]
    assert event.text == "You played R0; every hand passed one seat on (your hand now: G1 G2 G3)"


def test_a_game_record_waits_for_the_end_of_the_game(tmp_path: Any) -> None:
    """The record holds every hand and the draw pile: saved mid-game it would show the person
    the opponents' cards (the terminal's ``save``, as the web page's download)."""
    pos = position([["R7", "W", "G2"], ["G5", "G3", "Y4"]], top="R5")
    session = uno_session(pos)
    with pytest.raises(ValueError, match="once the game is over: it holds every hand"):
        session.save_record(tmp_path / "early.jsonl")
    text = run_terminal(session, [f"save {tmp_path / 'early.jsonl'}", "quit"])
    assert "not saved: the game record is offered once the game is over" in text
    assert not (tmp_path / "early.jsonl").exists()


def test_a_table_size_the_game_does_not_seat_is_refused() -> None:
    with pytest.raises(ValueError, match="the trick game is for exactly 4 players"):
        TableSession("tricks", 3, ["heuristic"])
    with pytest.raises(ValueError, match="classic UNO is for 2 to 10 players, got 11"):
        TableSession("uno", 11, ["heuristic"])
    assert TableSession("tricks", opponents=["heuristic"]).num_players == 4  # the game's own table
    assert TableSession("uno", opponents=["heuristic"]).num_players == 2
    with pytest.raises(ValueError, match="seed must be an integer from 0"):
        TableSession("uno", 2, ["heuristic"], seed=-1)


def test_play_py_refuses_bad_values_by_name_before_the_game(tmp_path: Any, capsys: Any) -> None:
    from play import main

    book = tmp_path / "book.json"
    book.write_text("[1, 2]")
    for argv, message in [
        (["--game", "tricks", "--players", "3"], "the trick game is for exactly 4 players"),
        (["--game", "tricks", "--target", "300"], "--target is the target score of a match"),
        (["--seed", "-1"], "argument --seed: must be an integer from 0 to"),
        (["--web", "--port", "99999"], "argument --port: must be an integer from 1 to 65,535"),
        (["--record", str(tmp_path)], "is a folder; give a file path"),
        (["--score", "--store", str(book)], "a score book is a JSON object, got list"),
        (["--score", "--store", str(tmp_path)], "is a folder; give a file path"),
    ]:
        with pytest.raises(SystemExit):
            main(argv)
        assert message in capsys.readouterr().err, argv
    assert book.read_text() == "[1, 2]"  # a damaged book is left as it was


def test_play_py_web_refuses_a_port_in_use_before_announcing_it(capsys: Any) -> None:
    import socket

    from play import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit):
            main(["--web", "--port", str(port)])
    captured = capsys.readouterr()
    assert f"cannot listen on 127.0.0.1 port {port}" in captured.err and "unolab table on" not in captured.out


def test_a_session_without_a_seed_deals_its_next_game_from_a_secret(monkeypatch: Any) -> None:
    """A finished game's record gives the session's seed away (the engine's seeding can be
    undone): without a given seed, the next deal must not follow from it. Two sessions whose
    first games share a seed deal different second games; with a given seed they replay."""
    import secrets

    def play(seed: int | None) -> tuple[list[Any], list[str], str]:
        """The first game's moves, the second deal and the random opponent's stream as it began."""
        session = TableSession("uno", 2, ["random"], seed=seed, rules={"match": False})
        stream = repr(session.policies[1].rng_state())
        session.advance()
        while not session.over:
            session.act(session.legal_actions()[0])
        moves = list(session.record.moves)
        session.next_game()
        return moves, session.view()["hand"], stream

    monkeypatch.setattr(secrets, "randbelow", lambda n: 7)  # the first seed, as a record would show it
    (_, deal_a, stream_a), (_, deal_b, stream_b) = play(None), play(None)
    # neither the deals nor the opponents' random streams repeat (their choices may still agree
    # by chance in a game where they seldom had one: the moves are not compared)
    assert deal_a != deal_b and stream_a != stream_b
    assert play(7) == play(7)


def test_the_drawn_card_prompt_offers_keeping_it_only_where_the_rules_do() -> None:
    for rules, prompt in (({}, "You drew R9: play it"), ({"must_play_drawn": False}, "or keep it (pass)")):
        pos = position([["G1", "G2"], ["Y1", "Y2"]], top="R5", draw=["R9"])
        session = TableSession("uno", 2, ["random"], position=pos, rules={**rules, "match": False})
        session.act("draw")
        assert session.view()["phase"] == "drawn"
        assert phase_prompt(session.view()).endswith(prompt)


def test_swap_seats_follow_the_direction_of_play_and_seat_order() -> None:
    """Classic UNO's "swap k" counts seats in the direction of play; the trick game's in seat order."""
    from tabletop.table_game import table_game

    assert table_game("uno").swap_seats({"current_player": 0, "num_players": 4, "direction": -1}) == {
        "swap 1": 3,
        "swap 2": 2,
        "swap 3": 1,
    }
    assert table_game("tricks").swap_seats({"current_player": 3}) == {"swap 1": 0, "swap 2": 1, "swap 3": 2}


def test_a_waiting_draw_stack_names_what_may_answer_it() -> None:
    """Under stack_wild_draw_four a Wild Draw Four answers a stack a Draw Two may not: the
    prompt names the legal stacking plays, not 'a Draw Two'."""
    moves = [
        {"label": "W+4", "actions": ["play W+4 R", "play W+4 Y"]},
        {"label": "draw", "actions": ["draw"]},
    ]
    view = {"game": "uno", "phase": "play", "pending_draw": 6, "moves": moves, "players": []}
    assert phase_prompt(view) == "A stack of 6 draw cards waits: stack W+4, or draw them"
    view["moves"] = moves[1:]
    assert phase_prompt(view) == "A stack of 6 draw cards waits: draw them"


def test_a_swap_between_two_other_players_does_not_show_your_hand_as_new() -> None:
    """Only a swap that gave the person another hand says "your hand now"; hands that only
    changed owners drew nothing."""
    pos = position([["B1", "B2"], ["Y1", "Y2", "Y3"], ["G1", "G2", "G3", "G4"]], top="R7", current=1, phase="swap")
    rules = {"seven_zero": True, "match": False}
    for seed in range(40):
        session = TableSession("uno", 3, ["random", "random"], position=pos, rules=rules, seed=seed)
        swap = next(e for e in session.advance() if e.action.startswith("swap"))
        if swap.action == "swap 1":  # P1 with P2
            assert swap.text == "P1 random swapped hands with P2 random"
            return
    pytest.fail("no seed made P1 swap with P2")


@pytest.mark.parametrize("typed", ["²", "①", "٣"])
def test_a_digit_that_is_not_a_number_is_a_bad_move_not_a_crash(typed: str) -> None:
    """'²' passes str.isdigit() but not int(): the terminal trick game died on it."""
    moves = list_moves("tricks", ["draw 0", "draw 1", "draw 2"])
    with pytest.raises(MoveError):
        parse_move("tricks", typed, moves, phase="draw")
    assert parse_move("tricks", "2", moves, phase="draw") == "draw 2"


def test_a_target_and_the_rules_target_score_must_agree() -> None:
    """--target 300 beside target_score=200 was ignored without a word (the rules won)."""
    with pytest.raises(ValueError, match="target 300 and the rules' target_score 200 disagree"):
        TableSession("uno", 2, ["random"], seed=1, target=300, rules={"target_score": 200})
    assert TableSession("uno", 2, ["random"], seed=1, target=300, rules={"target_score": 300}).rules.target_score == 300
