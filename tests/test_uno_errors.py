"""Bad input gets a clear error naming what was wrong and what is allowed, and changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

from envs.cards import card_type
from envs.uno import IllegalActionError, UnoEngine, UnoRules, action_id
from tests.uno_helpers import engine, position


def snapshot(eng: UnoEngine) -> list[dict]:
    return [eng.position(i) for i in range(eng.num_games)]


@pytest.fixture
def eng() -> UnoEngine:
    eng = UnoEngine(num_games=3, num_players=3, seed=0)
    eng.reset()
    return eng


def test_illegal_action_names_the_action_and_the_legal_ones_and_changes_nothing():
    eng = engine([position([["R1", "B2", "B3"], ["Y1"], ["Y2"]], top="R5")] * 2)
    before = snapshot(eng)
    with pytest.raises(IllegalActionError) as err:
        eng.step(np.array([action_id("play R1"), action_id("play B2")]))
    text = str(err.value)
    assert "game 1" in text and "'play B2'" in text and "legal here: 'play R1'" in text
    assert "phase 'play'" in text
    assert snapshot(eng) == before
    eng.step(np.array([action_id("play R1")] * 2))  # still playable afterwards


def test_draw_with_a_playable_card_is_illegal_by_default():
    eng = engine(position([["R1", "B2", "B3"], ["Y1"]], top="R5"))
    with pytest.raises(IllegalActionError, match="may not 'draw'"):
        eng.step(np.array([action_id("draw")]))


@pytest.mark.parametrize("action", [-1, 79, 1000])
def test_action_out_of_range(eng, action):
    before = snapshot(eng)
    with pytest.raises(IllegalActionError, match=r"out of range 0\.\.78"):
        eng.step(np.array([action, 0, 0]))
    assert snapshot(eng) == before


@pytest.mark.parametrize("action", [2**63, 2**64 - 1])
def test_a_huge_unsigned_action_is_named_as_given(eng, action):
    before = snapshot(eng)
    with pytest.raises(IllegalActionError, match=rf"game 1: action {action} is out of range 0\.\.78"):
        eng.step(np.array([0, action, 0], dtype=np.uint64))
    assert snapshot(eng) == before


@pytest.mark.parametrize("shape", [(2,), (4,), (3, 1), ()])
def test_wrong_shape(eng, shape):
    before = snapshot(eng)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        eng.step(np.zeros(shape, np.int64))
    assert snapshot(eng) == before


def test_non_integer_actions(eng):
    with pytest.raises(ValueError, match="integers"):
        eng.step(np.array([0.5, 1.0, 2.0]))
    with pytest.raises(ValueError, match="integers"):
        eng.step(np.array(["draw"] * 3))


def test_step_before_reset():
    with pytest.raises(RuntimeError, match="reset"):
        UnoEngine(num_games=2, num_players=2).step(np.zeros(2, np.int64))


def test_rng_state_untouched_by_a_refused_step():
    pos = position([["R3", "B2"], ["Y1", "Y2"]], top="R5")
    eng = engine(pos, uno_catch_prob=0.5)
    eng.step(np.array([action_id("play R3")]))
    counter = eng.rng_counter.copy()
    with pytest.raises(IllegalActionError, match="legal here: 'uno', 'silent'"):
        eng.step(np.array([action_id("draw")]))
    assert (eng.rng_counter == counter).all()


# ---------------------------------------------------------------- rules
def test_a_refused_step_keeps_the_last_steps_report_of_ended_games():
    """Who won and the final scores of games that ended on the last good step survive a
    refused step (RULES.md: an illegal action leaves the state unchanged)."""
    eng = engine([position([["R7"], ["G5", "G3"]], top="R5"), position([["R7", "R8"], ["G5", "G3"]], top="R5")])
    _, _, rewards, done = eng.step(np.array([action_id("play R7"), action_id("play R7")]))
    assert done[0] and eng.game_winners[0, 0]
    report = (rewards.copy(), done.copy(), eng.game_winners.copy(), eng.final_scores.copy())
    with pytest.raises(IllegalActionError):
        eng.step(np.array([action_id("draw"), action_id("play R8")]))
    for kept, now in zip(report, (eng._rewards, eng._done, eng.game_winners, eng.final_scores), strict=True):
        np.testing.assert_array_equal(kept, now)


def test_unknown_rules_option_is_named_with_the_allowed_ones():
    with pytest.raises(ValueError, match=r"unknown UnoRules option\(s\) stacking_draw_four; allowed: hand_size"):
        UnoRules.from_dict({"stacking_draw_four": True})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hand_size": 0}, "hand_size"),
        ({"hand_size": 60}, "hand_size"),
        ({"uno_penalty": -2}, "uno_penalty"),
        ({"uno_catch_prob": 1.5}, r"uno_catch_prob must lie in \[0, 1\]"),
        ({"uno_catch_prob": "often"}, "uno_catch_prob"),
        ({"target_score": 0}, "target_score"),
        ({"scoring": "lowball"}, "allowed: standard, reverse"),
        ({"reward": "score"}, "allowed: win, points"),
        ({"hand_starter": "dealer"}, "allowed: rotate, winner"),
        ({"stacking": "yes"}, "true or false"),
        ({"hand_size": 7.0}, "integer"),
    ],
)
def test_impossible_rules_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        UnoRules.from_dict(options)


def test_rules_defaults_are_those_of_the_docs():
    assert UnoRules().to_dict() == {
        "hand_size": 7,
        "draw_anytime": False,
        "must_play_drawn": True,
        "draw_until_playable": False,
        "stacking": False,
        "stack_wild_draw_four": False,
        "seven_zero": False,
        "uno_penalty": 2,
        "uno_catch_prob": 1.0,
        "match": False,
        "target_score": 500,
        "scoring": "standard",
        "reward": "win",
        "hand_starter": "rotate",
    }
    assert UnoRules.from_dict(UnoRules(stacking=True).to_dict()) == UnoRules(stacking=True)


@pytest.mark.parametrize(
    ("players", "rules", "message"),
    [
        (1, UnoRules(), "2 to 10 players"),
        (11, UnoRules(), "2 to 10 players"),
        (10, UnoRules(hand_size=11), "at most hand_size=10"),
        # The deal must leave a card that is not a Wild Draw Four to turn (else it reshuffles forever).
        (4, UnoRules(hand_size=26), "at most hand_size=25"),
    ],
)
def test_impossible_table(players, rules, message):
    with pytest.raises(ValueError, match=message):
        UnoEngine(num_games=1, num_players=players, rules=rules)


def test_hand_size_too_large_for_any_table():
    with pytest.raises(ValueError, match=r"hand_size=52 cannot be dealt from 108 cards \(at most 51\)"):
        UnoRules(hand_size=52)


@pytest.mark.parametrize(("players", "hand_size"), [(2, 51), (4, 25), (10, 10)])
def test_the_largest_hands_allowed_still_deal(players, hand_size):
    """5 cards left: a Wild Draw Four turned first goes back until another card comes up."""
    eng = UnoEngine(num_games=3000, num_players=players, rules=UnoRules(hand_size=hand_size), seed=1)
    eng.reset()
    assert (eng.discard[:, 0] != card_type("W+4")).all()
    assert (eng.hand_size.sum(axis=1) + eng.draw_end - eng.draw_top + eng.discard_len == 108).all()


# ---------------------------------------------------------------- positions
def test_unknown_card_in_a_position():
    with pytest.raises(ValueError, match=r"position 0: hands\[1\]: unknown card 'R10'"):
        engine(position([["R1"], ["R10"]]))


def test_more_copies_than_the_deck_has():
    with pytest.raises(ValueError, match=r"W x5 \(the deck has 4\)"):
        engine(position([["W", "W", "W"], ["W"]], draw=["W"]))
    with pytest.raises(ValueError, match=r"R0 x2 \(the deck has 1\)"):
        engine(position([["R0"], ["Y1"]], top="R0"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"phase": "bidding"}, "phase 'bidding' is not one of"),
        ({"colour": None}, "colour must be R, Y, G or B"),
        ({"colour": "P"}, "unknown colour 'P'"),
        ({"direction": 2}, "direction must be 1 or -1"),
        ({"current_player": 2}, r"current_player must be a seat 0\.\.1"),
        ({"discard_pile": []}, "discard_pile must hold at least its top card"),
        ({"hand": []}, "unknown key"),
        ({"phase": "drawn", "drawn_card": "G9"}, "not in the hand"),
        ({"phase": "drawn"}, "needs drawn_card"),
        ({"phase": "challenge"}, "Wild Draw Four on top"),
        ({"phase": "uno"}, "holds 1 card"),
        ({"pending_draw": 2}, "stacking rule"),
        ({"scores": [1]}, "scores must list 2"),
        ({"game": "tricks"}, "not of classic UNO"),
    ],
)
def test_inconsistent_positions_are_refused(change, message):
    pos = position([["R1", "B2"], ["Y1"]], top="R5")
    pos.update(change)
    with pytest.raises(ValueError, match=message):
        engine(pos)


def test_missing_keys_are_named():
    pos = position([["R1"], ["Y1"]])
    del pos["draw_pile"], pos["phase"]
    with pytest.raises(ValueError, match="missing key.*draw_pile, phase"):
        engine(pos)


def test_positions_of_different_table_sizes_cannot_share_an_engine():
    with pytest.raises(ValueError, match="position 1: num_players 3 differs"):
        engine([position([["R1"], ["Y1"]]), position([["R1"], ["Y1"], ["G1"]])])


def test_odd_seeds_and_table_sizes_are_refused_or_taken_by_value() -> None:
    for seed in (1.5, True, "1", -1, 2**64, [1.5]):
        with pytest.raises(ValueError, match="seed must be an integer from 0 to 2\\*\\*64 - 1"):
            UnoEngine(1, 2, UnoRules(), seed=seed)
    assert UnoEngine(1, np.int64(3), UnoRules(), seed=0).num_players == 3  # a numpy integer is an integer


def test_a_strided_action_array_plays_like_a_contiguous_one() -> None:
    """A column of a 2-D array is copied to the contiguous array the compiled kernels take."""
    a, b = UnoEngine(4, 2, UnoRules(), seed=3), UnoEngine(4, 2, UnoRules(), seed=3)
    _, mask = a.reset()
    b.reset()
    columns = np.stack([mask.argmax(axis=1)] * 3, axis=1)
    np.testing.assert_array_equal(a.step(columns[:, 1])[0], b.step(np.ascontiguousarray(columns[:, 1]))[0])
