"""docs/tricks.md (the team trick game): a scenario for every rule and option."""

from __future__ import annotations

import numpy as np
import pytest

from envs.uno_tricks import TricksEngine, decode
from envs.uno_tricks.rules import POINTS_REWARD_SCALE
from tests.tricks_helpers import act, engine, laid, legal, numbers_of, position

# Two number cards each: a game of two tricks.
HANDS = [["R7", "Y3"], ["G7", "B5"], ["R2", "G8"], ["B1", "Y6"]]


def lays(*numbers: int) -> set[str]:
    return {f"lay {n}" for n in numbers}


# ---------------------------------------------------------------- setup
def test_deal_ten_numbers_and_three_specials_each_and_a_random_first_leader():
    eng = TricksEngine(num_games=4000, seed=3)
    eng.reset()
    for i in range(20):
        pos = eng.position(i)
        assert [len(h) for h in pos["hands"]] == [10] * 4 and [len(s) for s in pos["specials"]] == [3] * 4
        assert len(pos["number_pile"]) == 36 and len(pos["special_pile"]) == 20
        assert pos["trick"] == 1 and pos["points"] == [0, 0] and pos["current_player"] == pos["leader"]
        assert all(c[-1].isdigit() for h in pos["hands"] for c in h)
    share = np.bincount(eng.leader, minlength=4) / 4000
    assert np.abs(share - 0.25).max() < 0.03


# ---------------------------------------------------------------- laying
def test_a_number_on_the_table_may_not_be_laid():
    eng = engine(position(HANDS))
    act(eng, "lay 7")
    assert legal(eng) == lays(5)  # G7 is banned while R7 is on the table


def test_forced_duplicate_only_when_nothing_else_and_worth_nothing():
    hands = [["R7", "Y3"], ["G7", "B7"], ["R2", "G8"], ["B1", "Y6"]]
    eng = engine(position(hands))
    act(eng, "lay 7")
    assert legal(eng) == lays(7)  # only 7s left: a forced duplicate
    act(eng, "lay 7", "lay 2", "lay 1")
    pos = eng.position(0)
    # Team A: 7 + 2 = 9 against team B: 0 (the forced 7) + 1. A takes every card but the duplicate.
    assert numbers_of(pos["points_piles"][0]) == [1, 2, 7] and pos["points"] == [10, 0]
    assert pos["number_pile"][-1] == "G7"  # the forced duplicate went under the number pile


def test_forced_duplicate_blocks_and_may_come_with_a_special():
    hands = [["R7", "Y3"], ["G7", "B7"], ["Y7", "G8"], ["B1", "Y6"]]
    eng = engine(position(hands, specials=[[], ["W"], [], []]))
    act(eng, "lay 7")
    assert legal(eng) == lays(7) | {"lay 7 wild"}
    act(eng, "lay 7 wild")
    assert eng.position(0)["table"][1] == laid("G7", forced=True, added="R1", specials=["W"], by=1)
    assert "lay 8" in legal(eng) and "lay 7" not in legal(eng)


def test_a_tie_puts_the_trick_under_the_pile_in_laying_order():
    hands = [["R3", "Y3"], ["G5", "B5"], ["R6", "G8"], ["B4", "Y6"]]
    eng = engine(position(hands, leader=1))
    act(eng, "lay 5", "lay 6", "lay 4", "lay 3")  # B: 5 + 4 = 9, A: 6 + 3 = 9
    pos = eng.position(0)
    assert pos["points"] == [0, 0] and pos["points_piles"] == [[], []]
    assert pos["number_pile"][-4:] == ["G5", "R6", "B4", "R3"]
    assert eng.trick_winner[0] == -1


def test_higher_team_sum_takes_the_trick():
    eng = engine(position(HANDS))
    act(eng, "lay 3", "lay 5", "lay 8", "lay 6")  # A: 3 + 8 = 11, B: 5 + 6 = 11: a tie
    assert eng.position(0)["points"] == [0, 0]
    eng = engine(position(HANDS))
    act(eng, "lay 7", "lay 5", "lay 8", "lay 6")  # A: 15, B: 11
    pos = eng.position(0)
    assert pos["points"] == [26, 0] and eng.trick_winner[0] == 0


# ---------------------------------------------------------------- specials
def test_skip_annuls_the_trick_while_the_others_still_lay():
    specials = [["RS"], [], ["W"], []]
    eng = engine(position(HANDS, specials=specials))
    act(eng, "lay 7 skip")
    assert eng.position(0)["annulled"] and eng.current_player[0] == 1
    act(eng, "lay 5", "lay 2 wild", "lay 6")  # the Wild still takes its card (R1)
    pos = eng.position(0)
    assert pos["points"] == [0, 0] and pos["annulled"] is False and pos["trick"] == 2
    assert pos["number_pile"][-5:] == ["R7", "B5", "R2", "R1", "Y6"]  # Wild-added card included
    assert pos["special_pile"][-2:] == ["RS", "W"]  # played specials go under their pile, in laying order


def test_wild_adds_the_top_number_card_and_the_ban_does_not_apply_to_it():
    eng = engine(position(HANDS, specials=[[], ["W"], [], []], number_pile=["Y7", "R2"]))
    act(eng, "lay 7", "lay 5 wild")  # adds Y7 although a 7 is on the table
    pos = eng.position(0)
    assert pos["table"][1] == laid("B5", added="Y7", specials=["W"], by=1) and pos["number_pile"] == ["R2"]
    obs, _ = eng.observe()  # seat 2's view: P2, P3, P0, P1
    assert decode(obs)["table_value"][0].tolist() == [0, 0, 7, 12]


def test_a_wild_added_card_blocks_no_later_number():
    hands = [["R3", "Y3"], ["G9", "B5"], ["R2", "G8"], ["B1", "Y6"]]
    eng = engine(position(hands, specials=[["W"], [], [], []], number_pile=["Y9", "R2"]))
    act(eng, "lay 3 wild")
    assert legal(eng) == lays(5, 9)  # the 9 the Wild added does not ban G9


def test_wild_with_an_empty_number_pile_adds_nothing():
    eng = engine(position(HANDS, specials=[["W"], [], [], []], number_pile=[]))
    act(eng, "lay 7 wild")
    assert eng.position(0)["table"][0] == laid("R7", specials=["W"], by=0)


def test_reverse_swaps_the_laid_cards_with_a_seat_that_has_laid():
    hands = [["R2", "Y3"], ["G9", "B5"], ["R3", "G8"], ["B1", "Y6"]]
    eng = engine(position(hands, specials=[[], [], ["RR"], []]))
    act(eng, "lay 2", "lay 9", "lay 3 reverse")
    assert eng.position(0)["phase"] == "swap" and eng.current_player[0] == 2
    assert legal(eng) == {"swap 2", "swap 3", "keep"}  # P0 (partner) and P1 have laid, P3 not yet
    act(eng, "swap 3")
    table = eng.position(0)["table"]
    assert table[2]["card"] == "G9" and table[1]["card"] == "R3" and eng.current_player[0] == 3


def test_a_forced_duplicate_keeps_its_zero_when_swapped():
    hands = [["R5", "Y3"], ["G5", "B5"], ["R8", "G8"], ["B1", "Y6"]]
    eng = engine(position(hands, specials=[[], [], ["RR"], []]))
    act(eng, "lay 5", "lay 5", "lay 8 reverse", "swap 3")
    table = eng.position(0)["table"]
    assert table[2] == laid("G5", forced=True, specials=["RR"], by=1) and table[1] == laid("R8", by=2)
    act(eng, "lay 1")  # A: 5 + 0 = 5, B: 8 + 1 = 9
    assert eng.position(0)["points"] == [0, 14]


def test_wild_added_cards_stay_with_their_seat_in_a_swap():
    hands = [["R2", "Y3"], ["G4", "B5"], ["R8", "G8"], ["B1", "Y6"]]
    eng = engine(position(hands, specials=[[], ["W"], ["RR"], []], number_pile=["R1", "R9"]))
    act(eng, "lay 2", "lay 4 wild", "lay 8 reverse", "swap 3")
    table = eng.position(0)["table"]
    assert table[1] == laid("R8", added="R1", specials=["W"], by=2) and table[2] == laid("G4", specials=["RR"], by=1)


def test_cards_go_under_the_pile_in_the_order_they_were_laid_even_after_a_swap():
    hands = [["R5", "Y2"], ["G3", "B4"], ["B2", "G8"], ["B1", "Y6"]]
    specials = [[], ["RR"], ["GS"], []]
    eng = engine(position(hands, specials=specials, number_pile=["R9"]))
    act(eng, "lay 5", "lay 3 reverse", "swap 3")  # seat 1 takes seat 0's 5, seat 0 gets the 3
    act(eng, "lay 2 skip", "lay 1")
    assert eng.position(0)["number_pile"] == ["R9", "R5", "G3", "B2", "B1"]  # R5 was laid first


def test_reverse_as_first_card_has_nothing_to_swap():
    eng = engine(position(HANDS, specials=[["RR"], [], [], []]))
    act(eng, "lay 7 reverse")
    assert eng.position(0)["phase"] == "lay" and eng.current_player[0] == 1


@pytest.mark.parametrize(("special", "limit"), [("Y+2", 2), ("W+4", 4)])
def test_plus_two_and_four_exchange_number_cards(special, limit):
    combo = "+2" if limit == 2 else "+4"
    eng = engine(position(HANDS, specials=[[special], [], [], []]))
    act(eng, f"lay 7 {combo}")
    assert eng.position(0)["phase"] == "draw"
    assert legal(eng) == {f"draw {k}" for k in range(limit + 1)}
    act(eng, "draw 2")  # takes R1, R2
    pos = eng.position(0)
    assert numbers_of(pos["hands"][0]) == [1, 2, 3] and pos["phase"] == "return" and pos["returns_left"] == 2
    assert legal(eng) == {"return 1", "return 2", "return 3"}
    act(eng, "return 3", "return 1")
    pos = eng.position(0)
    assert numbers_of(pos["hands"][0]) == [2] and pos["number_pile"][-2:] == ["Y3", "R1"]
    assert pos["phase"] == "lay" and eng.current_player[0] == 1


def test_drawing_nothing_returns_nothing():
    eng = engine(position(HANDS, specials=[["Y+2"], [], [], []]))
    act(eng, "lay 7 +2", "draw 0")
    assert eng.current_player[0] == 1 and numbers_of(eng.position(0)["hands"][0]) == [3]


def test_draws_are_limited_by_the_pile():
    eng = engine(position(HANDS, specials=[["W+4"], [], [], []], number_pile=["G6"]))
    act(eng, "lay 7 +4")
    assert legal(eng) == {"draw 0", "draw 1"}


@pytest.mark.parametrize(
    ("pile", "specials_pile", "drawn", "bonus"),
    [
        (["R0", "Y0", "R5"], ["RS"], 2, True),  # two zeros: one special card
        (["R0", "Y5", "G0", "B0"], ["RS"], 4, True),  # three zeros among four
        (["R0", "Y5", "G0"], ["RS"], 2, False),  # only the cards just drawn count
        (["R0", "Y0"], [], 2, False),  # nothing left in the special pile
    ],
)
def test_two_zeros_bonus(pile, specials_pile, drawn, bonus):
    special = "W+4" if drawn > 2 else "Y+2"
    eng = engine(position(HANDS, specials=[[special], [], [], []], number_pile=pile, special_pile=specials_pile))
    act(eng, f"lay 7 {'+4' if drawn > 2 else '+2'}", f"draw {drawn}")
    assert eng.position(0)["specials"][0] == (["RS"] if bonus else [])


def test_plus_two_with_plus_four_takes_three_special_cards():
    eng = engine(position(HANDS, specials=[["Y+2", "W+4"], [], [], []], special_pile=["RS", "YS", "GS", "BS"]))
    assert "lay 7 +2+4" in legal(eng)
    act(eng, "lay 7 +2+4")
    pos = eng.position(0)
    assert sorted(pos["specials"][0]) == ["GS", "RS", "YS"] and pos["special_pile"] == ["BS"]
    assert pos["phase"] == "lay" and eng.current_player[0] == 1  # no number exchange
    assert pos["table"][0]["specials"] == ["Y+2", "W+4"]


def test_the_pair_takes_what_the_special_pile_has():
    eng = engine(position(HANDS, specials=[["Y+2", "W+4"], [], [], []], special_pile=["RS"]))
    act(eng, "lay 7 +2+4")
    assert eng.position(0)["specials"][0] == ["RS"]


def test_specials_only_when_held():
    eng = engine(position(HANDS, specials=[["Y+2"], [], [], []]))
    assert legal(eng) == lays(3, 7) | {"lay 3 +2", "lay 7 +2"}


# ---------------------------------------------------------------- tricks and game end
def test_next_trick_is_led_by_the_player_after_the_leader_whoever_won():
    eng = engine(position(HANDS, leader=3))
    act(eng, "lay 1", "lay 7", "lay 5", "lay 8")  # A wins (7 + 8 against 1 + 5)
    pos = eng.position(0)
    assert pos["leader"] == 0 and pos["current_player"] == 0 and pos["trick"] == 2


@pytest.mark.parametrize("reward", ["win", "points"])
def test_final_scoring_and_team_rewards(reward):
    eng = engine(position(HANDS), reward=reward)
    act(eng, "lay 7", "lay 5", "lay 8", "lay 6")  # A takes 26
    rewards, done = act(eng, "lay 7", "lay 2", "lay 1", "lay 3")  # P1 leads; B: 7 + 1 > 2 + 3: takes 13
    assert done
    if reward == "win":
        assert rewards.tolist() == [1.0, -1.0, 1.0, -1.0]
    else:
        assert np.allclose(rewards, np.array([13, -13, 13, -13]) * POINTS_REWARD_SCALE)


def test_equal_scores_are_a_draw():
    hands = [["R7"], ["G5"], ["R2"], ["B4"]]
    rewards, done = act(engine(position(hands)), "lay 7", "lay 5", "lay 2", "lay 4")
    assert done and rewards.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_default_exchange_keeps_hand_sizes_so_ten_tricks():
    eng = TricksEngine(num_games=64, seed=1)
    _, mask = eng.reset()
    rng = np.random.default_rng(0)
    tricks = np.zeros(64, int)
    done_once = np.zeros(64, bool)
    for _ in range(400):
        _, mask, _, done = eng.step(np.where(mask, rng.random(mask.shape) + 1, 0).argmax(axis=1))
        tricks += eng.trick_ended & ~done_once
        done_once |= done
    assert done_once.all() and (tricks == 10).all()


# ---------------------------------------------------------------- the literal exchange option
def test_literal_option_puts_back_exactly_two():
    hands = [["R7", "Y3", "G4", "B9"], ["G7", "B5"], ["R2", "G8"], ["B1", "Y6"]]
    eng = engine(position(hands, specials=[["Y+2"], [], [], []]), exchange_returns="two")
    act(eng, "lay 7 +2", "draw 0")
    assert eng.position(0)["returns_left"] == 2
    act(eng, "return 9", "return 4")
    assert numbers_of(eng.position(0)["hands"][0]) == [3]  # the hand shrank by two
    eng = engine(position(hands, specials=[["W+4"], [], [], []]), exchange_returns="two")
    act(eng, "lay 7 +4", "draw 4", "return 1", "return 2")
    assert len(eng.position(0)["hands"][0]) == 5  # 3 + 4 - 2


def test_literal_option_returns_what_a_short_hand_has_and_empty_hands_are_skipped():
    hands = [["R7"], ["G7", "B5"], ["R2", "G8"], ["B1", "Y6"]]
    eng = engine(position(hands, specials=[["Y+2"], [], [], []]), exchange_returns="two")
    act(eng, "lay 7 +2", "draw 0")  # no number card left to put back
    assert eng.current_player[0] == 1 and eng.position(0)["hands"][0] == []
    act(eng, "lay 5", "lay 2", "lay 1")
    pos = eng.position(0)
    assert pos["leader"] == 1 and pos["current_player"] == 1  # P0 has nothing and is skipped
    act(eng, "lay 7", "lay 8")
    assert eng.current_player[0] == 3
    rewards, done = act(eng, "lay 6")
    assert done  # every number card has been played


def test_the_game_continues_until_every_hand_is_empty():
    hands = [["R7"], ["G7", "B5"], ["R2"], ["B1"]]
    eng = engine(position(hands))
    act(eng, "lay 7", "lay 5", "lay 2", "lay 1")
    pos = eng.position(0)
    assert pos["phase"] == "lay" and pos["current_player"] == 1 and pos["leader"] == 1
    _, done = act(eng, "lay 7")
    assert done
