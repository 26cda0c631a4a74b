"""The 108-card deck and the named action space of classic UNO."""

from __future__ import annotations

import numpy as np
import pytest

from envs import cards
from envs.uno import ACTION_NAMES, NUM_ACTIONS, action_id, action_name


def test_deck_composition_of_rules_md():
    assert cards.DECK.size == 108 and cards.NUM_CARD_TYPES == 54
    names = [cards.TYPE_NAMES[t] for t in cards.DECK]
    for c in "RYGB":
        assert names.count(f"{c}0") == 1
        for k in [str(n) for n in range(1, 10)] + ["S", "R", "+2"]:
            assert names.count(f"{c}{k}") == 2
        assert sum(n[0] == c and n not in ("W", "W+4") for n in names) == 25
    assert names.count("W") == 4 and names.count("W+4") == 4


@pytest.mark.parametrize(
    ("name", "colour", "kind", "number", "value"),
    [
        ("R7", 0, 7, 7, 7),
        ("Y0", 1, 0, 0, 0),
        ("GS", 2, 10, -1, 20),
        ("BR", 3, 11, -1, 20),
        ("Y+2", 1, 12, -1, 20),
        ("W", -1, 13, -1, 50),
        ("W+4", -1, 14, -1, 50),
    ],
)
def test_card_notation_and_values(name, colour, kind, number, value):
    t = cards.card_type(name)
    assert cards.card_name(t) == name
    assert (cards.TYPE_COLOUR[t], cards.TYPE_KIND[t], cards.TYPE_NUMBER[t], cards.TYPE_VALUE[t]) == (
        colour,
        kind,
        number,
        value,
    )


def test_card_names_are_forgiving_on_case_and_strict_on_content():
    assert cards.card_type(" g+2 ") == cards.card_type("G+2")
    for bad in ("R10", "P5", "", "W+2", "RW"):
        with pytest.raises(ValueError, match="unknown card"):
            cards.card_type(bad)


def test_hand_points_and_counts_round_trip():
    hand = ["R1", "Y+2", "W", "G9", "BS"]
    counts = cards.counts_from_names(hand)
    assert cards.hand_points(counts) == 1 + 20 + 50 + 9 + 20
    assert sorted(cards.names_from_counts(counts)) == sorted(hand)


def test_actions_have_unique_readable_names():
    assert NUM_ACTIONS == 79 and len(set(ACTION_NAMES)) == 79
    for a in range(NUM_ACTIONS):
        assert action_id(action_name(a)) == a
    for name in (
        "play R7",
        "play GS",
        "play BR",
        "play Y+2",
        "play W G",
        "play W+4 B",
        "draw",
        "pass",
        "challenge",
        "accept",
        "uno",
        "silent",
        "colour R",
        "swap 3",
    ):
        assert action_name(action_id(name)) == name
    assert action_id("  PLAY  w+4   b ") == action_id("play W+4 B")


def test_bad_action_names_and_ids():
    with pytest.raises(ValueError, match="unknown action 'play W'"):
        action_id("play W")
    with pytest.raises(ValueError, match=r"out of range: actions are 0\.\.78"):
        action_name(79)
    with pytest.raises(ValueError, match="out of range"):
        action_name(np.int64(-1))
    for bad in (1.5, 60.9, -0.5, True):  # refused, not rounded (1.5 was 'play R1')
        with pytest.raises(ValueError, match=r"an action is an integer id 0\.\.78"):
            action_name(bad)


def test_card_ids_seats_and_the_uno_penalty_are_refused_not_rounded_or_wrapped():
    from envs.cards import card_name
    from envs.uno import UnoEngine, UnoRules

    with pytest.raises(ValueError, match="a card type id must be an integer from 0 to 53, got 7.9"):
        card_name(7.9)
    eng = UnoEngine(2, 2, UnoRules(), seed=0)
    eng.reset()
    for call in (eng.hidden_hands, eng.observe):
        with pytest.raises(ValueError, match=r"seats must lie in 0\.\.1, got 5"):
            call(5)  # hidden_hands wrapped it to seat 1
        for bad in (1.7, True):
            with pytest.raises(ValueError, match="seats must be integers from 0 to 1"):
                call(bad)
    assert eng.hidden_hands(np.array([1, 0])).shape == (2, 54)
    with pytest.raises(ValueError, match=r"UnoRules.uno_penalty must lie in 0\.\.108"):
        UnoRules(uno_penalty=2**70)  # was an OverflowError when an engine was built
