"""docs/uno.md, "Decisions and phases": the Wild Draw Four challenge and declaring UNO."""

from __future__ import annotations

import numpy as np
import pytest

from envs.cards import card_type
from envs.uno import UnoEngine, UnoRules, decode
from tests.uno_helpers import act, engine, hand, legal, position

DRAW = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"]


def after_wild_draw_four(first_hand: list[str], players: int = 3, **rules) -> UnoEngine:
    """Seat 0 plays a Wild Draw Four naming green on a red 5; seat 1 must answer."""
    hands = [first_hand, ["Y1", "Y2", "Y3"], ["Y7", "Y8", "Y9"], ["Y4", "Y5", "Y6"]][:players]
    eng = engine(position(hands, top="R5", draw=DRAW), **rules)
    act(eng, "play W+4 G")
    return eng


def test_next_player_must_answer_a_wild_draw_four():
    eng = after_wild_draw_four(["W+4", "R1", "Y9"])
    pos = eng.position(0)
    assert pos["phase"] == "challenge" and pos["current_player"] == 1 and pos["colour"] == "G"
    assert pos["challenge"] == {"player": 0, "previous_colour": "R", "guilty": True}
    assert legal(eng) == {"challenge", "accept"}


def test_accept_draws_four_and_loses_the_turn():
    eng = after_wild_draw_four(["W+4", "R1", "Y9"])
    act(eng, "accept")
    pos = eng.position(0)
    assert hand(eng, 1) == ["B1", "B2", "B3", "B4", "Y1", "Y2", "Y3"]
    assert pos["current_player"] == 2 and pos["phase"] == "play" and pos["colour"] == "G"


def test_challenge_guilty_bluffer_draws_four_and_challenger_plays_on():
    eng = after_wild_draw_four(["W+4", "R1", "Y9"])  # held R1, a card of the colour in force
    act(eng, "challenge")
    pos = eng.position(0)
    assert hand(eng, 0) == ["B1", "B2", "B3", "B4", "R1", "Y9"]
    assert hand(eng, 1) == ["Y1", "Y2", "Y3"]
    assert pos["current_player"] == 1 and pos["phase"] == "play" and pos["colour"] == "G"


def test_challenge_innocent_challenger_draws_six_and_loses_the_turn():
    eng = after_wild_draw_four(["W+4", "G1", "Y9"])  # no red card: the Wild Draw Four was legal
    act(eng, "challenge")
    pos = eng.position(0)
    assert hand(eng, 0) == ["G1", "Y9"]
    assert hand(eng, 1) == ["B1", "B2", "B3", "B4", "B5", "B6", "Y1", "Y2", "Y3"]
    assert pos["current_player"] == 2


def test_a_wild_in_hand_does_not_count_as_the_colour_in_force():
    eng = after_wild_draw_four(["W+4", "W", "G1"])
    assert eng.position(0)["challenge"]["guilty"] is False
    act(eng, "challenge")
    assert len(hand(eng, 1)) == 9


def test_same_number_other_colour_is_not_guilt():
    eng = after_wild_draw_four(["W+4", "G5", "Y5"])  # 5s match the red 5 by number only
    assert eng.position(0)["challenge"]["guilty"] is False


def test_two_players_accept_gives_the_bluffer_the_next_turn():
    eng = after_wild_draw_four(["W+4", "R1", "Y9"], players=2)
    act(eng, "accept")
    assert eng.position(0)["current_player"] == 0


def test_only_the_challenger_sees_the_challenged_hand():
    eng = after_wild_draw_four(["W+4", "G1", "Y9"], players=4)
    act(eng, "challenge")  # innocent: seat 1 draws six, seat 2 plays next
    for seat in range(4):
        obs, _ = eng.observe(seats=seat)
        view = decode(obs)
        if seat == 1:
            assert view["revealed_hand"][0].sum() == 2
            assert view["revealed_hand"][0][[card_type("G1"), card_type("Y9")]].tolist() == [1, 1]
            assert view["revealed_seat"][0] == 3  # seat 0 is three seats on from seat 1
        else:
            assert view["revealed_hand"][0].sum() == 0 and view["revealed_seat"][0] == -1
    assert eng.position(0)["revealed"] == {"to": 1, "player": 0, "hand": ["Y9", "G1"]}


def test_each_challenger_keeps_its_shown_hand_until_its_own_next_decision():
    """RULES.md: the challenger sees the challenged hand at least on its next decision. A
    second challenge by another seat before then must not take it away (3 players)."""
    draw = [f"{c}{n}" for c in "GB" for n in range(1, 10)]
    eng = engine(position([["W+4", "Y1", "Y2"], ["B5", "Y5", "B9"], ["W+4", "G3", "G4"]], top="R5", draw=draw))
    act(eng, "play W+4 Y")  # P0 holds no red: honest
    act(eng, "challenge")  # P1: innocent, draws 6 and loses the turn; it saw P0's hand
    act(eng, "play W+4 B")  # P2 holds no yellow: honest
    act(eng, "challenge")  # P0: innocent as well; it saw P2's hand
    pos = eng.position(0)
    assert pos["current_player"] == 1
    assert pos["revealed"] == [
        {"to": 0, "player": 2, "hand": ["G3", "G4"]},
        {"to": 1, "player": 0, "hand": ["Y1", "Y2"]},
    ]
    seen = decode(eng.observe(np.array([1]))[0])  # P1's next decision: P0's hand is still in view
    assert seen["revealed_hand"][0][[card_type("Y1"), card_type("Y2")]].tolist() == [1, 1]
    assert seen["revealed_seat"][0] == 2  # seat 0 is two seats on from seat 1
    assert UnoEngine.from_positions([pos], UnoRules()).position(0) == pos  # a saved position keeps both
    act(eng, "play B5")  # P1 has decided: its sight is gone, P0's stays until P0's decision
    assert eng.position(0)["revealed"] == {"to": 0, "player": 2, "hand": ["G3", "G4"]}


def test_revealed_hand_shown_at_the_challengers_next_decision_then_gone():
    eng = after_wild_draw_four(["W+4", "R1", "Y9"])  # guilty: the challenger plays at once
    act(eng, "challenge")
    obs, _ = eng.observe()
    view = decode(obs)
    assert eng.current_player[0] == 1 and view["revealed_hand"][0].sum() == 2  # before the penalty
    assert view["challenge_colour"][0] == -1 and view["phase"][0] == 0
    act(eng, "draw")
    assert eng.position(0)["revealed"] is None


def test_challenge_colour_is_visible_while_answering():
    eng = after_wild_draw_four(["W+4", "R1", "Y9"])
    obs, _ = eng.observe()
    view = decode(obs)
    assert view["challenge_colour"][0] == 0 and view["phase"][0] == 2 and view["colour"][0] == 2


# ---------------------------------------------------------------- declaring UNO
def test_second_to_last_card_asks_the_player_to_declare_before_the_effect():
    eng = engine(position([["RS", "B2"], ["Y1", "Y2"], ["G9", "G8"]], top="R5"))
    act(eng, "play RS")
    pos = eng.position(0)
    assert pos["phase"] == "uno" and pos["current_player"] == 0
    assert legal(eng) == {"uno", "silent"}
    act(eng, "uno")
    pos = eng.position(0)
    assert pos["current_player"] == 2 and pos["uno_declared"] == [True, False, False]  # Skip applied after
    assert hand(eng, 0) == ["B2"]


@pytest.mark.parametrize("penalty", [2, 4])
def test_silent_and_caught_draws_the_penalty(penalty):
    eng = engine(position([["R3", "B2"], ["Y1", "Y2"]], top="R5", draw=DRAW), uno_penalty=penalty)
    act(eng, "play R3", "silent")
    assert len(hand(eng, 0)) == 1 + penalty and eng.position(0)["current_player"] == 1


def test_penalty_zero_removes_the_decision():
    eng = engine(position([["R3", "B2"], ["Y1", "Y2"]], top="R5", draw=DRAW), uno_penalty=0)
    act(eng, "play R3")
    pos = eng.position(0)
    assert pos["phase"] == "play" and pos["current_player"] == 1 and hand(eng, 0) == ["B2"]


def test_catch_probability_zero_never_catches():
    eng = engine(position([["R3", "B2"], ["Y1", "Y2"]], top="R5", draw=DRAW), uno_catch_prob=0.0)
    act(eng, "play R3", "silent")
    assert hand(eng, 0) == ["B2"]


def test_catch_probability_is_the_share_of_silent_players_caught():
    n = 4000
    pos = position([["R3", "B2"], ["Y1", "Y2"]], top="R5", draw=DRAW)
    eng = UnoEngine.from_positions([pos] * n, rules=UnoRules(uno_catch_prob=0.3), seed=11, auto_reset=False)
    eng.step(np.full(n, 3))  # play R3
    eng.step(np.full(n, 65))  # silent
    caught = eng.hand_size[:, 0] == 3
    assert ((eng.hand_size[:, 0] == 1) | caught).all()
    assert abs(caught.mean() - 0.3) < 0.03  # 4000 draws: 4.5 standard errors


def test_declaration_holds_until_the_player_plays_again_with_no_penalty_for_drawing():
    draw = ["R1", "R2", "B3", "B4"]
    eng = engine(position([["R3", "B2"], ["R+2", "R7", "Y3", "Y4"]], top="R5", draw=draw))
    act(eng, "play R3", "uno")
    act(eng, "play R+2")  # seat 0, having declared, is made to draw two: no penalty
    pos = eng.position(0)
    assert hand(eng, 0) == ["B2", "R1", "R2"] and pos["uno_declared"] == [True, False]
    assert pos["current_player"] == 1 and pos["phase"] == "play"
    act(eng, "play R7", "play R1")  # seat 0 plays again: the declaration ends
    assert eng.position(0)["uno_declared"] == [False, False]


def test_second_to_last_wild_draw_four_declares_before_the_challenge():
    eng = engine(position([["W+4", "R1"], ["Y1", "Y2", "Y3"], ["G9", "G8", "G7"]], top="R5", draw=DRAW))
    act(eng, "play W+4 B")
    assert eng.position(0)["phase"] == "uno" and eng.current_player[0] == 0
    act(eng, "silent")  # caught: draws two, then seat 1 answers the Wild Draw Four
    pos = eng.position(0)
    assert pos["phase"] == "challenge" and pos["current_player"] == 1 and len(hand(eng, 0)) == 3
    assert pos["challenge"]["guilty"] is True  # guilt is judged on the hand before the penalty
    act(eng, "challenge")
    assert len(hand(eng, 0)) == 7


def test_a_saved_game_keeps_the_pending_challenge_through_the_uno_decision():
    eng = engine(position([["R1", "W+4"], ["Y3", "Y4", "Y5"]], top="R5", draw=DRAW))
    act(eng, "play W+4 B")  # guilty (holds R1), second-to-last card: UNO first
    pos = eng.position(0)
    assert pos["phase"] == "uno" and pos["challenge"] == {"player": 0, "previous_colour": "R", "guilty": True}
    copy = UnoEngine.from_positions([pos], rules=UnoRules(), auto_reset=False)
    for e in (eng, copy):
        act(e, "uno", "challenge")
    assert eng.position(0) == copy.position(0) and len(hand(eng, 0)) == 5


def test_a_saved_game_with_a_stacked_draw_two_before_the_uno_decision_reloads():
    eng = engine(position([["R1", "R+2", "R3"], ["Y+2", "Y2"], ["G1", "G2", "G3"]], top="R5", draw=DRAW), stacking=True)
    act(eng, "play R+2", "play Y+2")
    pos = eng.position(0)
    assert pos["phase"] == "uno" and pos["pending_draw"] == 2  # the Y+2 adds its two after the decision
    copy = UnoEngine.from_positions([pos], rules=UnoRules(stacking=True), auto_reset=False)
    for e in (eng, copy):
        act(e, "uno")
    assert eng.position(0) == copy.position(0) and eng.position(0)["pending_draw"] == 4
