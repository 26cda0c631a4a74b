"""A turn (docs/uno.md, "Decisions and phases"): matching, wilds, drawing, the drawn card, Skip, Reverse, Draw Two."""

from __future__ import annotations

import numpy as np
import pytest

from envs.uno import UnoEngine, UnoRules
from tests.uno_helpers import act, engine, hand, legal, position


def test_match_by_colour_number_or_symbol_and_wilds_always():
    eng = engine(position([["R1", "G5", "GS", "B9", "W", "W+4"], ["Y1"]], top="R5"))
    assert legal(eng) == {
        "play R1",  # colour
        "play G5",  # number
        "play W R",
        "play W Y",
        "play W G",
        "play W B",
        "play W+4 R",
        "play W+4 Y",
        "play W+4 G",
        "play W+4 B",  # physically always playable
    }
    eng = engine(position([["RS", "GS", "G7", "Y+2"], ["Y1"]], top="BS"))
    assert legal(eng) == {"play RS", "play GS"}  # symbol matches symbol, not colour or number


def test_colour_named_by_a_wild_is_in_force():
    eng = engine(position([["W", "R1", "B1"], ["G2", "R3", "B4"]], top="R5"))
    act(eng, "play W G")
    pos = eng.position(0)
    assert pos["colour"] == "G" and pos["discard_pile"][-1] == "W" and pos["current_player"] == 1
    assert legal(eng) == {"play G2"}  # R3 no longer matches; nothing matches a Wild's kind


def test_draw_only_without_a_playable_card_by_default():
    eng = engine(position([["R1", "B2"], ["Y1"]], top="R5"))
    assert "draw" not in legal(eng)
    eng = engine(position([["B1", "B2"], ["Y1"]], top="R5"))
    assert legal(eng) == {"draw"}


def test_a_wild_in_hand_counts_as_something_to_play():
    eng = engine(position([["B1", "W"], ["Y1"]], top="R5"))
    assert "draw" not in legal(eng)


def test_draw_anytime_option_allows_drawing_with_a_playable_card():
    eng = engine(position([["R1", "B2"], ["Y1"]], top="R5"), draw_anytime=True)
    assert "draw" in legal(eng) and "play R1" in legal(eng)


def test_unplayable_drawn_card_passes_the_turn():
    eng = engine(position([["B1", "B2"], ["Y1", "Y2"], ["G9"]], top="R5", draw=["Y7", "G1"]))
    act(eng, "draw")
    pos = eng.position(0)
    assert hand(eng, 0) == ["B1", "B2", "Y7"]
    assert pos["current_player"] == 1 and pos["phase"] == "play" and pos["draw_pile"] == ["G1"]


def test_playable_drawn_card_must_be_played_by_default():
    eng = engine(position([["B1", "B2"], ["Y1", "Y2"], ["G9"]], top="R5", draw=["R7", "G1"]))
    act(eng, "draw")
    pos = eng.position(0)
    assert pos["phase"] == "drawn" and pos["drawn_card"] == "R7" and pos["current_player"] == 0
    assert legal(eng) == {"play R7"}
    act(eng, "play R7")
    assert eng.position(0)["discard_pile"][-1] == "R7" and eng.position(0)["current_player"] == 1


def test_playable_drawn_card_may_be_kept_with_official_option():
    eng = engine(position([["B1", "B2"], ["Y1", "Y2"], ["G9"]], top="R5", draw=["R7"]), must_play_drawn=False)
    act(eng, "draw")
    assert legal(eng) == {"play R7", "pass"}
    act(eng, "pass")
    assert hand(eng, 0) == ["B1", "B2", "R7"] and eng.position(0)["current_player"] == 1


def test_drawn_wild_still_needs_its_colour():
    eng = engine(position([["B1", "B2"], ["Y1", "Y2"]], top="R5", draw=["W"]))
    act(eng, "draw")
    assert legal(eng) == {"play W R", "play W Y", "play W G", "play W B"}
    act(eng, "play W Y")
    assert eng.position(0)["colour"] == "Y"


def test_drawn_wild_draw_four_is_playable_even_as_a_bluff():
    eng = engine(position([["R1", "B2"], ["Y1", "Y2"]], top="R5", draw=["W+4"]), draw_anytime=True)
    act(eng, "draw")
    assert legal(eng) == {"play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B"}


def test_only_the_drawn_card_may_be_played_after_drawing():
    eng = engine(position([["R1", "R2"], ["Y1", "Y2"]], top="R5", draw=["G5"]), draw_anytime=True)
    act(eng, "draw")
    assert legal(eng) == {"play G5"}  # R1 and R2 match too, but only the drawn card may be played


def test_empty_draw_pile_reshuffles_the_discard_pile_but_its_top_card():
    discard = ["G1", "G2", "Y3", "B4", "R9"]
    eng = engine(position([["B1", "B2"], ["Y1", "Y2"]], draw=[], discard=discard))
    act(eng, "draw")
    pos = eng.position(0)
    assert pos["discard_pile"] == ["R9"]  # the top card stays
    drawn = sorted(set(hand(eng, 0)) - {"B1", "B2"})
    assert len(drawn) == 1 and drawn[0] in discard[:-1]
    assert sorted(pos["draw_pile"] + drawn) == sorted(discard[:-1])


def test_both_piles_empty_draws_nothing_and_passes():
    eng = engine(position([["B1", "B2"], ["Y1", "Y2"]], draw=[], discard=["R9"]))
    act(eng, "draw")
    pos = eng.position(0)
    assert hand(eng, 0) == ["B1", "B2"] and pos["current_player"] == 1 and pos["draw_pile"] == []


def test_draws_take_cards_from_the_top_in_order():
    eng = engine(position([["R+2", "B2", "B3"], ["Y1", "Y2"], ["G9", "G8"]], top="R5", draw=["Y5", "Y6", "Y7"]))
    act(eng, "play R+2")
    assert hand(eng, 1) == ["Y1", "Y2", "Y5", "Y6"] and eng.position(0)["draw_pile"] == ["Y7"]


def test_skip_makes_the_next_player_lose_the_turn():
    eng = engine(position([["RS", "B2", "B3"], ["Y1", "Y2"], ["G9", "G8"]], top="R5"))
    act(eng, "play RS")
    assert eng.position(0)["current_player"] == 2


def test_reverse_flips_direction():
    eng = engine(position([["B2", "B3"], ["RR", "Y2", "Y3"], ["G9", "G8"], ["B5", "B6"]], top="R5", current=1))
    act(eng, "play RR")
    pos = eng.position(0)
    assert pos["direction"] == -1 and pos["current_player"] == 0


def test_reverse_with_two_players_acts_as_a_skip():
    eng = engine(position([["RR", "B2", "B3"], ["Y1", "Y2"]], top="R5"))
    act(eng, "play RR")
    pos = eng.position(0)
    assert pos["current_player"] == 0 and pos["direction"] == -1


def test_draw_two_next_player_draws_two_and_loses_the_turn():
    eng = engine(position([["R+2", "B2", "B3"], ["Y1", "Y2"], ["G9", "G8"]], top="R5", draw=["B7", "B8", "B9"]))
    act(eng, "play R+2")
    pos = eng.position(0)
    assert hand(eng, 1) == ["B7", "B8", "Y1", "Y2"] and pos["current_player"] == 2


def test_direction_minus_one_goes_to_lower_seats():
    eng = engine(position([["B2", "B3"], ["Y1", "Y2"], ["R9", "G8", "G7"]], top="R5", current=2, direction=-1))
    act(eng, "play R9")
    assert eng.position(0)["current_player"] == 1


@pytest.mark.parametrize("stacking", [False, True])
def test_stacking_option(stacking):
    hands = [["R+2", "B2", "B3"], ["Y+2", "G+2", "Y1"], ["G9", "G8", "W+4"]]
    eng = engine(position(hands, top="R5", draw=["B7", "B8", "B9", "B6", "B5"]), stacking=stacking)
    act(eng, "play R+2")
    if not stacking:
        assert hand(eng, 1) == ["B7", "B8", "G+2", "Y+2", "Y1"] and eng.position(0)["current_player"] == 2
        return
    pos = eng.position(0)
    assert pos["current_player"] == 1 and pos["pending_draw"] == 2
    assert legal(eng) == {"play Y+2", "play G+2", "draw"}  # any Draw Two, whatever the colour
    act(eng, "play G+2")
    pos = eng.position(0)
    assert pos["current_player"] == 2 and pos["pending_draw"] == 4 and pos["colour"] == "G"
    assert legal(eng) == {"draw"}  # a Wild Draw Four does not stack
    act(eng, "draw")
    pos = eng.position(0)
    assert hand(eng, 2) == ["B6", "B7", "B8", "B9", "G8", "G9", "W+4"]
    assert pos["pending_draw"] == 0 and pos["current_player"] == 0 and pos["phase"] == "play"


def test_stacked_draw_passes_even_with_playable_cards():
    eng = engine(
        position([["B1", "G5"], ["Y1", "Y2"]], top="G+2", draw=["B7", "B8", "B9", "B6"], pending_draw=4), stacking=True
    )
    assert legal(eng) == {"draw"}
    act(eng, "draw")
    assert len(hand(eng, 0)) == 6 and eng.position(0)["current_player"] == 1


def test_starting_wild_first_player_names_the_colour_then_plays():
    eng = engine(position([["B1", "G5"], ["Y1", "Y2"]], top="W", colour=None, phase="colour"))
    assert legal(eng) == {"colour R", "colour Y", "colour G", "colour B"}
    act(eng, "colour B")
    pos = eng.position(0)
    assert pos["colour"] == "B" and pos["current_player"] == 0 and pos["phase"] == "play"
    assert legal(eng) == {"play B1"}


def test_first_card_effects_on_the_first_player():
    """Bulk over thousands of random deals: every kind of starting card does what docs/uno.md says."""
    B, P = 4096, 4
    eng = UnoEngine(num_games=B, num_players=P, seed=7)
    eng.reset()
    seen = set()
    for i in range(B):
        pos = eng.position(i)
        top = pos["discard_pile"][-1]
        assert pos["discard_pile"] == [top] and top != "W+4"
        sizes = [len(h) for h in pos["hands"]]
        kind = "W" if top == "W" else top[1:]
        seen.add(kind)
        if kind == "S":
            assert (pos["current_player"], pos["direction"], sizes) == (1, 1, [7] * 4)
        elif kind == "R":
            assert (pos["current_player"], pos["direction"]) == (P - 1, -1)  # the dealer plays first
        elif kind == "+2":
            assert (pos["current_player"], sizes) == (1, [9, 7, 7, 7])
        elif kind == "W":
            assert (pos["current_player"], pos["phase"], pos["colour"]) == (0, "colour", None)
        else:
            assert (pos["current_player"], pos["direction"], pos["phase"]) == (0, 1, "play")
            assert pos["colour"] == top[0]
        assert len(pos["draw_pile"]) == 108 - 28 - 1 - (2 if kind == "+2" else 0)
    assert {"S", "R", "+2", "W", "0", "9"} <= seen
    # A starting Wild Draw Four went back and was re-turned in some games (an extra random draw).
    assert (eng.rng_counter > 1).sum() > 50


def test_two_player_starting_reverse_gives_the_dealer_the_first_turn():
    eng = UnoEngine(num_games=2048, num_players=2, seed=3)
    eng.reset()
    tops = np.array([eng.position(i)["discard_pile"][-1][1:] == "R" for i in range(2048)])
    assert tops.sum() > 20
    assert (eng.current_player[tops] == 1).all() and (eng.direction[tops] == -1).all()


@pytest.mark.parametrize(("players", "hand_size"), [(2, 7), (10, 7), (10, 10), (3, 1)])
def test_hand_size_option(players, hand_size):
    eng = UnoEngine(num_games=64, num_players=players, rules=UnoRules(hand_size=hand_size), seed=1)
    eng.reset()
    for i in range(64):
        pos = eng.position(i)
        extra = 2 if pos["discard_pile"][-1][1:] == "+2" else 0  # the first player drew two
        assert sum(len(h) for h in pos["hands"]) == players * hand_size + extra
        assert len(pos["draw_pile"]) == 108 - players * hand_size - 1 - extra


# ---------------------------------------------------------------- house rule: draw until playable
def test_draw_until_playable_draws_until_a_card_can_be_played():
    pos = position([["B1", "B2"], ["Y1", "Y2"], ["G9"]], top="R5", draw=["Y7", "G3", "R9", "G1"])
    eng = engine(pos, draw_until_playable=True)
    act(eng, "draw")
    after = eng.position(0)
    assert hand(eng, 0) == ["B1", "B2", "G3", "R9", "Y7"] and after["draw_pile"] == ["G1"]
    assert after["phase"] == "drawn" and after["drawn_card"] == "R9" and legal(eng) == {"play R9"}
    eng = engine(pos)  # the default: one card, and the turn passes
    act(eng, "draw")
    assert hand(eng, 0) == ["B1", "B2", "Y7"] and eng.position(0)["current_player"] == 1


def test_draw_until_playable_keeps_must_play_drawn_and_stops_when_nothing_is_left():
    pos = position([["B1", "B2"], ["Y1", "Y2"]], top="R5", draw=["Y7", "R8"])
    eng = engine(pos, draw_until_playable=True, must_play_drawn=False)
    act(eng, "draw")
    assert legal(eng) == {"play R8", "pass"}  # the playable card may be kept, as without the rule
    eng = engine(position([["B1", "B2"], ["Y1", "Y2"]], top="R5", draw=["Y7", "G3"]), draw_until_playable=True)
    act(eng, "draw")  # nothing playable in either pile: both are drawn empty, and the turn passes
    after = eng.position(0)
    assert hand(eng, 0) == ["B1", "B2", "G3", "Y7"] and after["draw_pile"] == [] and after["current_player"] == 1


def test_draw_until_playable_leaves_stacked_draw_twos_as_they_were():
    pos = position([["B1", "B2"], ["Y1", "Y2"]], top="R+2", pending_draw=2, draw=["Y7", "G3", "R9"])
    eng = engine(pos, draw_until_playable=True, stacking=True)
    act(eng, "draw")
    assert hand(eng, 0) == ["B1", "B2", "G3", "Y7"] and eng.position(0)["current_player"] == 1
