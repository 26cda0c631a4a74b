"""Scenarios of the house rules that add decisions: seven-zero and stacking a Wild Draw Four
(docs/uno.md, "Rules options"; each case on a hand-built position, exact asserts)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from envs.cards import card_type
from envs.uno import UnoRules, action_id
from tests.uno_helpers import act, engine, hand, legal, position

SEVEN_ZERO = {"seven_zero": True}
STACK_FOUR = {"stacking": True, "stack_wild_draw_four": True}


# ---------------------------------------------------------------------- seven-zero
def test_a_seven_asks_whom_to_swap_with_and_swaps_the_whole_hands():
    pos = position([["R7", "B1", "B2"], ["Y1"], ["G1", "G2", "G3", "G4"], ["Y9", "Y8"]], top="R5")
    eng = engine(pos, **SEVEN_ZERO)
    act(eng, "play R7")
    after = eng.position(0)
    assert after["phase"] == "swap" and after["current_player"] == 0
    assert legal(eng) == {"swap 1", "swap 2", "swap 3"}  # seats 1, 2, 3 on in the direction of play
    act(eng, "swap 2")
    assert hand(eng, 0) == ["G1", "G2", "G3", "G4"] and hand(eng, 2) == ["B1", "B2"]
    assert hand(eng, 1) == ["Y1"] and eng.position(0)["current_player"] == 1
    assert eng.hand_size[0].tolist() == [4, 1, 2, 2]


def test_swap_seats_count_in_the_direction_of_play():
    pos = position([["R7", "B1", "B2"], ["Y1", "Y2"], ["G1", "G2", "G3"]], top="R5", direction=-1)
    eng = engine(pos, **SEVEN_ZERO)
    act(eng, "play R7", "swap 1")  # one seat on, playing backwards: seat 2
    assert hand(eng, 0) == ["G1", "G2", "G3"] and hand(eng, 2) == ["B1", "B2"]
    assert eng.position(0)["current_player"] == 2


def test_a_zero_passes_every_hand_one_seat_on_in_the_direction_of_play():
    pos = position([["R0", "B1", "B2"], ["Y1", "Y2"], ["G1", "G2", "G3"]], top="R5")
    eng = engine(pos, **SEVEN_ZERO)
    act(eng, "play R0")
    assert [hand(eng, p) for p in range(3)] == [["G1", "G2", "G3"], ["B1", "B2"], ["Y1", "Y2"]]
    assert eng.position(0)["current_player"] == 1 and eng.position(0)["phase"] == "play"
    backwards = position([["R0", "B1", "B2"], ["Y1", "Y2"], ["G1", "G2", "G3"]], top="R5", direction=-1)
    eng = engine(backwards, **SEVEN_ZERO)
    act(eng, "play R0")
    assert [hand(eng, p) for p in range(3)] == [["Y1", "Y2"], ["G1", "G2", "G3"], ["B1", "B2"]]


def test_a_declared_uno_goes_with_its_hand_and_the_decision_comes_before_the_swap():
    pos = position([["R7", "B1"], ["Y1", "Y2", "Y3"]], top="R5")
    eng = engine(pos, **SEVEN_ZERO)
    act(eng, "play R7")
    assert eng.position(0)["phase"] == "uno"
    act(eng, "uno")
    assert legal(eng) == {"swap 1"}  # two players: the only choice
    act(eng, "swap 1")
    assert hand(eng, 0) == ["Y1", "Y2", "Y3"] and hand(eng, 1) == ["B1"]
    assert eng.position(0)["uno_declared"] == [False, True]


def test_a_last_card_seven_or_zero_ends_the_hand_without_a_swap():
    for last in ("R7", "R0"):
        eng = engine(position([[last], ["Y1", "Y2"]], top="R5"), **SEVEN_ZERO)
        rewards, done = act(eng, f"play {last}")
        assert done and rewards.tolist() == [1.0, -1.0]


def test_without_the_rule_sevens_and_zeros_are_plain_numbers():
    eng = engine(position([["R7", "R0", "B1"], ["Y1", "Y2"]], top="R5"))
    act(eng, "play R7")
    assert eng.position(0)["phase"] == "play" and hand(eng, 0) == ["B1", "R0"]


def test_a_drawn_seven_played_asks_for_the_swap_too():
    eng = engine(position([["B1", "B2"], ["Y1", "Y2"], ["G4"]], top="R5", draw=["R7"]), **SEVEN_ZERO)
    act(eng, "draw", "play R7")
    assert legal(eng) == {"swap 1", "swap 2"}


def test_a_swap_position_round_trips_and_a_wrong_one_is_refused():
    eng = engine(position([["R7", "B1", "B2"], ["Y1", "Y2"], ["G4"]], top="R5"), **SEVEN_ZERO)
    act(eng, "play R7")
    saved = eng.position(0)
    again = engine(saved, **SEVEN_ZERO)
    assert again.position(0) == saved and legal(again) == {"swap 1", "swap 2"}
    with pytest.raises(ValueError, match="phase 'swap'.*needs the seven_zero rule and a 7 on top"):
        engine(saved)
    with pytest.raises(ValueError, match="a 7 on top"):
        engine(position([["R7", "B1"], ["Y1"]], top="R5", phase="swap"), **SEVEN_ZERO)


# ---------------------------------------------------------------------- stacking a Wild Draw Four
def test_a_wild_draw_four_answers_a_pending_draw_two():
    pos = position([["W+4", "R9", "R8"], ["Y1", "Y2"], ["G1", "G2"]], top="B+2", pending_draw=2)
    eng = engine(pos, **STACK_FOUR)
    assert legal(eng) == {"play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B", "draw"}
    act(eng, "play W+4 G")
    after = eng.position(0)
    assert after["pending_draw"] == 6 and after["phase"] == "play" and after["current_player"] == 1
    assert after["challenge"] is None  # stacked: no challenge
    assert legal(eng) == {"draw"}  # only a Wild Draw Four answers a Wild Draw Four
    act(eng, "draw")
    assert len(hand(eng, 1)) == 8 and eng.position(0)["current_player"] == 2


def test_without_the_option_stacking_takes_draw_twos_only():
    pos = position([["W+4", "Y+2"], ["Y1", "Y2"]], top="B+2", pending_draw=2)
    assert legal(engine(pos, stacking=True)) == {"play Y+2", "draw"}
    assert legal(engine(pos, **STACK_FOUR)) == {
        "play Y+2",
        "play W+4 R",
        "play W+4 Y",
        "play W+4 G",
        "play W+4 B",
        "draw",
    }


def test_a_wild_draw_four_may_be_stacked_instead_of_answering_the_challenge():
    pos = position([["W+4", "R9", "B3"], ["W+4", "Y2", "Y3"], ["G1", "G2"]], top="R5")
    eng = engine(pos, **STACK_FOUR)
    act(eng, "play W+4 Y")
    assert eng.position(0)["phase"] == "challenge"
    assert legal(eng) == {"challenge", "accept", "play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B"}
    act(eng, "play W+4 B")
    after = eng.position(0)
    assert after["pending_draw"] == 8 and after["current_player"] == 2 and after["challenge"] is None
    assert after["colour"] == "B" and legal(eng) == {"draw"}
    act(eng, "draw")
    assert len(hand(eng, 2)) == 10 and eng.position(0)["current_player"] == 0


def test_the_first_wild_draw_four_is_still_challenged_as_usual():
    pos = position([["W+4", "R9", "B3"], ["W+4", "Y2", "Y3"], ["G1", "G2"]], top="R5")
    eng = engine(pos, **STACK_FOUR)
    act(eng, "play W+4 Y", "challenge")  # player 0 held R9: guilty, draws 4
    assert len(hand(eng, 0)) == 6 and eng.position(0)["current_player"] == 1


def test_a_stacked_wild_draw_four_as_last_card_makes_the_next_player_draw_the_stack():
    pos = position([["W+4", "R9"], ["W+4"], ["G1", "G2"]], top="R5")
    eng = engine(pos, **STACK_FOUR, uno_penalty=0)
    act(eng, "play W+4 Y")
    rewards, done = act(eng, "play W+4 B")
    assert done and rewards.tolist() == [-0.5, 1.0, -0.5]
    assert eng.hand_size[0].tolist() == [1, 0, 10]  # player 2 drew both fours before the count


def test_stack_wild_draw_four_needs_stacking_and_pending_positions_are_checked():
    with pytest.raises(ValueError, match="stack_wild_draw_four extends stacking: set stacking=true"):
        UnoRules(stack_wild_draw_four=True)
    with pytest.raises(ValueError, match="or a Wild Draw Four with stack_wild_draw_four"):
        engine(position([["B1"], ["Y1"]], top="W+4", colour="R", pending_draw=4), stacking=True)
    eng = engine(position([["W+4"], ["Y1"]], top="W+4", colour="R", pending_draw=8), **STACK_FOUR)
    assert legal(eng) == {"play W+4 R", "play W+4 Y", "play W+4 G", "play W+4 B", "draw"}
    with pytest.raises(ValueError, match="more than the deck's Draw Twos"):
        engine(position([["B1"], ["Y1"]], top="R+2", pending_draw=20), stacking=True)


def test_the_default_rules_ignore_the_new_actions():
    eng = engine(position([["R7", "R0"], ["Y1"]], top="R5"))
    with pytest.raises(Exception, match="may not 'swap 1'"):
        eng.step(np.array([action_id("swap 1")]))


# ---------------------------------------------------------------------- public history
def void_view(eng, seat: int) -> tuple[np.ndarray, np.ndarray]:
    from envs.uno import decode

    view = decode(eng.observe(seats=seat)[0])
    return view["void_colours"][0], view["void_draws"][0]


def test_a_draw_with_nothing_to_play_tells_everybody_the_colour_is_missing():
    pos = position([["B1", "B2"], ["Y1", "G2", "G3"], ["G4", "G5"]], top="R5", draw=["Y7", "G8", "G9"])
    eng = engine(pos)
    act(eng, "draw")  # player 0 holds no red: it draws Y7 (unplayable), the turn passes
    assert eng.position(0)["void_draws"] == [[1, -1, -1, -1], [-1] * 4, [-1] * 4]
    seen, since = void_view(eng, 1)  # player 1's view: player 0 is the previous seat (slot 2)
    assert seen[2].tolist() == [1, 0, 0, 0] and since[2].tolist() == [1, 0, 0, 0]
    assert seen[0].sum() == 0 and seen[1].sum() == 0


def test_the_unseen_count_falls_when_that_colour_is_played_and_moves_with_a_swapped_hand():
    pos = position(
        [["B1", "B2", "B3"], ["Y1", "G2", "G3"], ["G4", "G5"]],
        top="R5",
        void_draws=[[2, -1, -1, -1], [-1] * 4, [-1] * 4],
    )
    eng = engine(pos)
    assert void_view(eng, 1)[1][2].tolist() == [2, 0, 0, 0]
    eng = engine(
        position(
            [["R7", "R3", "B1"], ["Y1", "G2"], ["G4", "G5"]], top="R5", void_draws=[[2, -1, -1, -1], [-1] * 4, [-1] * 4]
        ),
        seven_zero=True,
    )
    act(eng, "play R7")  # a red card: one of the two unseen ones
    assert eng.position(0)["void_draws"][0] == [1, -1, -1, -1]
    act(eng, "swap 1")
    assert eng.position(0)["void_draws"][:2] == [[-1] * 4, [1, -1, -1, -1]]


def test_drawing_tells_nothing_under_draw_anytime_and_a_bad_history_is_refused():
    pos = position([["B1", "B2"], ["Y1", "G2", "G3"]], top="R5", draw=["Y7"])
    eng = engine(pos, draw_anytime=True)
    act(eng, "draw")
    assert eng.position(0)["void_draws"] == [[-1] * 4, [-1] * 4]
    with pytest.raises(ValueError, match=r"void_draws\[0\]\[1\] must be an integer from -1 to 2"):
        engine(position([["B1", "B2"], ["Y1"]], top="R5", void_draws=[[-1, 3, -1, -1], [-1] * 4]))


def test_sampled_worlds_respect_the_public_history():
    from envs.cards import TYPE_COLOUR
    from envs.uno import UnoEngine
    from envs.uno.worlds import sample_worlds

    dealt = UnoEngine(1, 3, UnoRules(), seed=4, auto_reset=False)
    dealt.reset()
    pos = dealt.position(0)
    me = pos["current_player"]
    nxt, prev = (me + 1) % 3, (me + 2) % 3
    held = [[sum(TYPE_COLOUR[card_type(c)] == k for c in pos["hands"][p]) for k in range(4)] for p in range(3)]
    absent = [k for k in range(4) if held[nxt][k] == 0] or [0]
    pos["hands"][nxt] = [c for c in pos["hands"][nxt] if TYPE_COLOUR[card_type(c)] != absent[0]] or ["W"]
    void = [[-1] * 4 for _ in range(3)]
    void[nxt][absent[0]] = 0  # the next player holds none of that colour
    void[prev] = [min(held[prev][k], 1) if held[prev][k] <= 1 else -1 for k in range(4)]  # at most one
    pos["void_draws"] = void
    pos["chosen_colours"] = [None, None, None]
    pos["chosen_colours"][nxt], pos["chosen_colours"][prev] = "G", "Y"
    pos["draw_pile"] += [c for c in dealt.position(0)["hands"][nxt] if c not in pos["hands"][nxt]]
    eng = engine(pos)
    worlds, _ = sample_worlds(eng.observe()[0], eng.rules, 300, np.random.default_rng(0))
    seat = {nxt: 1, prev: 2}  # the worlds seat the observer at 0, the next player at 1
    for p, w in seat.items():
        for k in range(4):
            if void[p][k] >= 0:
                assert (worlds.hands[:, w, TYPE_COLOUR == k].sum(axis=1) <= void[p][k]).all(), (p, k)
        assert worlds.void_draws[:, w].tolist() == [void[p]] * 300
        assert worlds.chosen_colour[:, w].tolist() == ["RYGB".index(pos["chosen_colours"][p])] * 300
        assert (worlds.hands[:, w].sum(axis=1) == len(pos["hands"][p])).all()


def test_a_shown_hand_moves_with_a_seven_zero_swap():
    # Seat 1 challenged seat 0's Wild Draw Four and saw its hand; seat 1's next decision is to
    # come, and seat 2's 0 passes every hand on first: the shown hand is now held by seat 1.
    pos = position(
        [["R5", "R6"], ["Y3", "B5", "B6", "Y9"], ["R0", "G1", "G2"]],
        discard=["W+4", "R4"],
        current=2,
        revealed={"to": 1, "player": 0, "hand": ["R5", "R6"]},
    )
    eng = engine(pos, seven_zero=True)
    act(eng, "play R0")
    after = eng.position(0)
    assert after["hands"][1] == ["R5", "R6"] and after["revealed"]["player"] == 1
    assert engine(after, seven_zero=True).position(0) == after  # reachable, so it loads


def test_positions_refuse_public_history_and_stacks_that_cannot_happen():
    for pos, rules, message in [
        (position([["R1", "R2"], ["Y1"]], top="R5", void_draws=[[0, -1, -1, -1], [-1] * 4]), {}, "holds 2 R cards"),
        (
            position([["B1"], ["Y1"]], top="R5", void_draws=[[0, -1, -1, -1], [-1] * 4]),
            {"draw_anytime": True},
            "all -1",
        ),
        (position([["B1"], ["Y1"]], top="W+4", colour="R", pending_draw=4), STACK_FOUR, "at least 6"),
        (position([["B1"], ["Y1"]], top="R+2", pending_draw=20), STACK_FOUR, "at most 16"),
    ]:
        with pytest.raises(ValueError, match=message):
            engine(pos, **rules)


def test_a_trick_game_checkpoint_from_before_the_state_tables_resumes():
    from agents.ppo import PPOConfig, PPOTrainer

    cfg = PPOConfig.from_mapping(
        {
            "game": "tricks",
            "players": 4,
            "num_games": 8,
            "num_steps": 4,
            "total_steps": 64,
            "hidden": [8],
            "eval_every": 0,
            "opponents": ["random"],
            "eval_opponents": ["random"],
            "imitation_steps": 0,
        }
    )
    state = PPOTrainer(cfg).state_dict()
    old = {"numbers_cards": "numbers.cards", "numbers_start": "numbers.start", "numbers_count": "numbers.count"}
    state["trainer"]["engine"] = {old.get(k, k): v for k, v in state["trainer"]["engine"].items()}
    PPOTrainer(cfg).load_state_dict(state)  # old names are read as the new ones
    state["trainer"]["engine"]["bogus"] = state["trainer"]["engine"].pop("leader")
    with pytest.raises(ValueError, match="does not fit this engine"):
        PPOTrainer(cfg).load_state_dict(state)


def test_a_uno_checkpoint_from_before_per_seat_shown_hands_resumes():
    """Before shown hands were kept per seat, a checkpoint's engine state held one hand and the
    seat it was shown to (revealed_to): it resumes with that seat's entry filled."""
    from agents.ppo import PPOConfig, PPOTrainer

    cfg = PPOConfig.from_mapping(
        {"players": 3, "num_games": 4, "num_steps": 4, "total_steps": 64, "hidden": [8], "eval_every": 0}
        | {"opponents": ["random"], "eval_opponents": ["random"], "imitation_steps": 0}
    )
    trainer = PPOTrainer(cfg)
    state = trainer.state_dict()
    engine = state["trainer"]["engine"]
    hand = np.zeros((4, 54), np.int8)
    hand[1, :3] = 1  # game 1: seat 2 was shown seat 1's hand R0 R1 R2
    engine["revealed_hand"] = torch.as_tensor(hand)
    engine["revealed_to"] = torch.as_tensor(np.array([-1, 2, -1, -1]))
    engine["revealed_from"] = torch.as_tensor(np.array([-1, 1, -1, -1]))
    resumed = PPOTrainer(cfg)
    resumed.load_state_dict(state)
    eng = resumed.collector.engine
    assert eng.revealed_from.tolist() == [[-1] * 3, [-1, -1, 1], [-1] * 3, [-1] * 3]
    assert eng.revealed_hand[1, 2, :3].tolist() == [1, 1, 1] and eng.revealed_hand.sum() == 3


def chosen_view(eng, seat: int) -> list[int]:
    """The colour each relative seat last chose, as ``seat`` sees it (-1: none yet)."""
    from envs.uno import decode

    onehot = decode(eng.observe(seats=seat)[0])["chosen_colours"][0]
    return np.where(onehot.any(axis=1), onehot.argmax(axis=1), -1)[: eng.num_players].tolist()


def test_a_colour_named_or_switched_to_is_public_and_following_suit_is_no_choice():
    R, Y, G, B = range(4)
    eng = engine(position([["W", "R3", "Y9"], ["B9", "B2", "G7"], ["Y3", "Y4", "G1"]], top="R9"))
    assert eng.position(0)["chosen_colours"] == [None] * 3
    act(eng, "play W B")  # player 0 names blue
    assert chosen_view(eng, 1) == [-1, -1, B]  # player 1 sees it at the previous seat (slot 2)
    act(eng, "play B2")  # following the colour in force: no choice
    assert eng.position(0)["chosen_colours"] == ["B", None, None]
    eng = engine(position([["R3", "Y9"], ["B9", "Y2"], ["Y3", "G1"]], top="R9"))
    act(eng, "play Y9")  # a 9 of another colour: a switch to yellow
    assert eng.position(0)["chosen_colours"] == ["Y", None, None]
    assert chosen_view(eng, 2) == [-1, Y, -1]  # player 2 sees player 0 as the next seat (slot 1)
    del R, G


def test_chosen_colours_go_with_a_swapped_hand_reset_each_hand_and_round_trip():
    eng = engine(position([["R7", "R3", "B1"], ["Y1", "G2"], ["G4", "G5"]], top="R5"), seven_zero=True)
    eng.load_state_arrays({**eng.state_arrays(), "chosen_colour": np.array([[1, 3, -1]])})
    act(eng, "play R7", "swap 1")
    assert eng.position(0)["chosen_colours"] == ["B", "Y", None]
    again = engine(eng.position(0), seven_zero=True)
    assert np.array_equal(again.observe()[0], eng.observe()[0])
    eng = engine(position([["R3"], ["B9", "B2"]], top="R9", chosen_colours=["G", "B"]), match=True)
    act(eng, "play R3")  # the hand ends; the next hand starts with no history
    assert eng.chosen_colour[0].tolist() == [-1, -1]
    with pytest.raises(ValueError, match=r"chosen_colours\[1\] must be R, Y, G, B or null, got 'blue'"):
        engine(position([["R3"], ["B9"]], top="R9", chosen_colours=[None, "blue"]))


def test_a_starting_wild_names_a_choice_and_a_zero_passes_the_choices_on_with_the_hands():
    eng = engine(position([["B1", "G5"], ["Y1", "Y2"], ["G1", "R2"]], top="W", colour=None, phase="colour", current=1))
    act(eng, "colour G")
    assert eng.position(0)["chosen_colours"] == [None, "G", None]
    pos = position([["R0", "B1", "B2"], ["Y1", "Y2"], ["G1", "G2", "G3"]], top="R5", chosen_colours=["R", "Y", "G"])
    eng = engine(pos, **SEVEN_ZERO)
    act(eng, "play R0")  # red on red: no choice; every hand, and what is known of it, moves one seat on
    assert eng.position(0)["chosen_colours"] == ["G", "R", "Y"]


def test_sampled_worlds_seat_the_chosen_colours_against_the_direction_of_play():
    from envs.uno import UnoEngine
    from envs.uno.worlds import sample_worlds

    dealt = UnoEngine(1, 3, UnoRules(), seed=4, auto_reset=False)
    dealt.reset()
    pos = {**dealt.position(0), "direction": -1, "current_player": 1, "phase": "play"}
    pos["chosen_colours"] = ["B", None, "Y"]
    eng = engine(pos)
    worlds, _ = sample_worlds(eng.observe()[0], eng.rules, 4, np.random.default_rng(0))
    # the observer (seat 1) at world seat 0; seat 0 acts next (world seat -1 mod 3 = 2), seat 2 after it (world seat 1)
    assert worlds.chosen_colour.tolist() == [[-1, 1, 3]] * 4  # R Y G B: 1 yellow, 3 blue
