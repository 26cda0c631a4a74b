"""The observation holds what the player to act may know, and nothing else; the decoder reads it back."""

from __future__ import annotations

import numpy as np

from envs.cards import card_type, counts_from_names
from envs.uno import OBS_SIZE, UnoEngine, UnoRules, decode
from envs.uno.observation import FIELDS
from tests.uno_helpers import act, engine, position


def obs_of(pos, **rules) -> dict[str, np.ndarray]:
    eng = engine(pos, **rules)
    obs, _ = eng.observe()
    assert obs.shape == (1, OBS_SIZE) and obs.dtype == np.float32
    return {k: v[0] for k, v in decode(obs, eng.rules.target_score).items()}


def test_layout_is_contiguous_and_documented():
    starts = sorted((f.start, f.size) for f in FIELDS.values())
    end = 0
    for start, size in starts:
        assert start == end
        end += size
    assert end == OBS_SIZE == 449
    import envs.uno.observation as module

    for name in FIELDS:
        assert f"``{name}``" in module.__doc__


def test_decoded_fields_match_the_position():
    hands = [["R1", "R1", "W"], ["Y1", "Y2"], ["G9", "G8", "G7", "G6"], ["B1"]]
    pos = position(
        hands,
        top="R5",
        discard=["G2", "R2", "R5"],
        draw=["B4", "B5", "B6"],
        current=2,
        direction=-1,
        scores=[10, 20, 30, 40],
        uno_declared=[False, False, False, True],
    )
    view = obs_of(pos, match=True, target_score=200)
    assert (view["hand"] == counts_from_names(["G9", "G8", "G7", "G6"])).all()
    assert view["top_card"] == card_type("R5") and view["colour"] == 0
    assert view["direction"] == -1 and view["num_players"] == 4
    # relative seats in the direction of play: 2 (self), 1, 0, 3
    assert view["hand_sizes"].tolist() == [4, 2, 3, 1, 0, 0, 0, 0, 0, 0]
    assert view["scores"].tolist()[:4] == [30, 20, 10, 40]
    assert view["uno_declared"].tolist()[:4] == [0, 0, 0, 1]
    assert view["draw_pile_size"] == 3 and view["discard_pile_size"] == 3
    assert (view["discard_counts"] == counts_from_names(["G2", "R2", "R5"])).all()
    assert view["phase"] == 0 and view["pending_draw"] == 0 and view["drawn_card"] == -1
    assert view["revealed_seat"] == -1 and view["revealed_hand"].sum() == 0


def test_hidden_information_does_not_leak():
    """Positions that differ only in what seat 0 cannot see give seat 0 the same observation."""
    a = position([["R1", "B2"], ["Y1", "Y2", "W"], ["G9"]], draw=["B4", "B5", "Y9"])
    b = position([["R1", "B2"], ["W+4", "G3", "BS"], ["Y7"]], draw=["Y9", "R8", "R8"])
    eng = engine([a, b])
    obs, mask = eng.observe()
    np.testing.assert_array_equal(obs[0], obs[1])
    np.testing.assert_array_equal(mask[0], mask[1])


def test_drawn_card_pending_draw_and_phase_are_visible():
    view = obs_of(position([["B1", "B2"], ["Y1"]], top="B5", phase="drawn", drawn_card="B2"))
    assert view["phase"] == 1 and view["drawn_card"] == card_type("B2")
    view = obs_of(position([["B1", "B2"], ["Y1"]], top="R+2", pending_draw=4), stacking=True)
    assert view["pending_draw"] == 4


def test_observing_another_seat_gives_its_own_view_and_no_legal_action():
    eng = engine(position([["R1", "B2"], ["Y1", "Y2", "W"], ["G9"]]))
    obs, mask = eng.observe(seats=1)
    view = decode(obs)
    assert (view["hand"][0] == counts_from_names(["Y1", "Y2", "W"])).all()
    assert view["hand_sizes"][0].tolist()[:3] == [3, 1, 2]
    assert not mask.any()


def test_discard_counts_reset_with_a_reshuffle():
    eng = engine(position([["B1", "B2", "B3"], ["Y1", "Y2"]], draw=[], discard=["G1", "G2", "R9"]))
    act(eng, "draw")
    obs, _ = eng.observe()
    view = decode(obs)
    assert view["discard_pile_size"][0] == 1 and view["discard_counts"][0].sum() == 1


def test_observation_is_the_same_size_for_every_table():
    for players in (2, 5, 10):
        obs, mask = UnoEngine(num_games=2, num_players=players, rules=UnoRules(), seed=0).reset()
        assert obs.shape == (2, OBS_SIZE) and mask.shape == (2, 79)


def scramble_hidden(pos: dict, seat: int, rng: np.random.Generator, rules: UnoRules) -> dict:
    """The same position as ``seat`` sees it: the cards it cannot see (other hands, the draw
    pile, another player's drawn card) dealt anew with the same sizes."""
    pos = {**pos, "hands": [list(h) for h in pos["hands"]]}
    others = [p for p in range(pos["num_players"]) if p != seat]
    pool = [c for p in others for c in pos["hands"][p]] + list(pos["draw_pile"])
    rng.shuffle(pool)
    for p in others:
        n = len(pos["hands"][p])
        pos["hands"][p], pool = pool[:n], pool[n:]
    pos["draw_pile"] = pool
    if pos["challenge"] is not None and pos["challenge"]["player"] != seat:
        # hidden too: whether the new hand of the Wild Draw Four's player holds the colour
        pos["challenge"] = {k: v for k, v in pos["challenge"].items() if k != "guilty"}
    if pos["drawn_card"] is not None and pos["current_player"] != seat:
        # Any card of the drawer's new hand the engine accepts as a playable drawn card.
        for card in pos["hands"][pos["current_player"]]:
            try:
                UnoEngine.from_positions([{**pos, "drawn_card": card}], rules=rules)
            except ValueError:
                continue
            pos["drawn_card"] = card
            break
        else:
            return scramble_hidden(pos, seat, rng, rules)
    return pos


def test_no_seat_sees_hidden_information_in_random_play():
    rules = UnoRules(must_play_drawn=False, draw_anytime=True, stacking=True)
    eng = UnoEngine(num_games=16, num_players=3, rules=rules, seed=8)
    _, mask = eng.reset()
    rng = np.random.default_rng(0)
    checked, guilt = set(), set()
    for _ in range(120):
        for i in range(eng.num_games):
            pos = eng.position(i)
            for seat in range(3):
                other = UnoEngine.from_positions([scramble_hidden(pos, seat, rng, rules)], rules=rules)
                mine = UnoEngine.from_positions([pos], rules=rules)
                np.testing.assert_array_equal(mine.observe(seats=seat)[0], other.observe(seats=seat)[0])
                np.testing.assert_array_equal(mine.observe(seats=seat)[1], other.observe(seats=seat)[1])
                checked.add((pos["phase"], seat == pos["current_player"]))
                if pos["phase"] == "challenge" and pos["challenge"]["player"] != seat:
                    guilt.add((bool(mine.challenge_guilty[0]), bool(other.challenge_guilty[0])))
        _, mask, _, _ = eng.step(np.where(mask, rng.random(mask.shape) + 1, 0).argmax(axis=1))
    assert {("drawn", False), ("drawn", True), ("challenge", True), ("challenge", False)} <= checked
    assert {(True, False), (False, True)} <= guilt  # views equal where the hidden guilt differs


def test_other_seats_do_not_see_the_card_just_drawn():
    eng = engine(position([["B1", "B2"], ["Y1", "Y2"], ["G9"]], draw=["R7", "G1"]))
    act(eng, "draw")
    assert decode(eng.observe(seats=0)[0])["drawn_card"][0] == card_type("R7")
    for seat in (1, 2):
        assert decode(eng.observe(seats=seat)[0])["drawn_card"][0] == -1
