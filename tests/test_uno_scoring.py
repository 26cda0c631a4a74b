"""docs/uno.md: the end of a hand and scoring, matches, reverse scoring and rewards."""

from __future__ import annotations

import numpy as np
import pytest

from envs.uno import UnoEngine, UnoRules, decode
from envs.uno.rules import POINTS_REWARD_SCALE
from tests.play_helpers import random_actions
from tests.uno_helpers import act, engine, hand, position

DRAW = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"]
# Seat 1 holds 1 + 20 + 50 = 71 points, seat 2 holds 9 + 20 = 29.
OTHERS = [["R1", "Y+2", "W"], ["G9", "BS"]]


def test_hand_winner_scores_the_others_cards_and_wins():
    eng = engine(position([["R7"], *OTHERS], top="R5", draw=DRAW))
    rewards, done = act(eng, "play R7")
    assert done
    assert rewards.tolist() == [1.0, -0.5, -0.5]
    assert eng.hand_ended[0] and eng.hand_winner[0] == 0
    assert eng.hand_points[0].tolist() == [100, 0, 0]
    assert eng.position(0)["scores"] == [100, 0, 0]


def test_win_reward_is_zero_sum_for_any_table():
    eng = engine(position([["R7"], ["R1"], ["R2"], ["R3"], ["R4"]], top="R5", draw=DRAW))
    rewards, done = act(eng, "play R7")
    assert done and rewards[0] == 1.0 and np.allclose(rewards[1:], -0.25) and abs(rewards.sum()) < 1e-6


def test_points_reward_winner_gains_what_it_scores_others_lose_their_hand():
    eng = engine(position([["R7"], *OTHERS], top="R5", draw=DRAW), reward="points")
    rewards, done = act(eng, "play R7")
    assert done
    assert np.allclose(rewards, np.array([100, -71, -29]) * POINTS_REWARD_SCALE)


def test_final_draw_two_still_makes_the_next_player_draw():
    eng = engine(position([["R+2"], *OTHERS], top="R5", draw=DRAW))
    act(eng, "play R+2")
    assert hand(eng, 1) == ["B1", "B2", "R1", "W", "Y+2"]
    assert eng.hand_points[0].tolist() == [71 + 3 + 29, 0, 0]


def test_final_wild_draw_four_draws_four_and_is_not_challenged():
    eng = engine(position([["W+4"], *OTHERS], top="R5", draw=DRAW, colour="R"))
    rewards, done = act(eng, "play W+4 G")
    assert done and rewards[0] == 1.0
    assert hand(eng, 1) == ["B1", "B2", "B3", "B4", "R1", "W", "Y+2"]
    assert eng.hand_points[0, 0] == 71 + 10 + 29
    # Nothing waits for an answer: the finished game shows no challenge and loads back.
    pos = eng.position(0)
    assert pos["phase"] == "over" and pos["challenge"] is None
    assert decode(eng.observe()[0])["challenge_colour"][0] == -1
    assert UnoEngine.from_positions([pos], auto_reset=False).position(0) == pos


def test_reverse_points_reward_of_the_winner_is_plain_zero():
    eng = engine(position([["R7"], *OTHERS], top="R5", draw=DRAW), reward="points", scoring="reverse")
    rewards, _ = act(eng, "play R7")
    assert rewards[0] == 0.0 and not np.signbit(rewards[0])


def test_final_draw_two_with_stacking_draws_the_whole_pending_amount():
    eng = engine(position([["G+2"], *OTHERS], top="R+2", draw=DRAW, pending_draw=2), stacking=True)
    act(eng, "play G+2")
    assert len(hand(eng, 1)) == 3 + 4


def match_engine(scores, match_rewards=None, **rules):
    extra = {} if match_rewards is None else {"match_rewards": match_rewards}
    pos = position([["R7"], *OTHERS], top="R5", draw=DRAW, scores=scores, **extra)
    return engine(pos, match=True, **rules)


def test_match_continues_below_the_target_with_a_new_hand():
    eng = match_engine([300, 10, 20])
    rewards, done = act(eng, "play R7")
    assert not done and rewards.tolist() == [0.0, 0.0, 0.0]
    pos = eng.position(0)
    assert pos["scores"] == [400, 10, 20] and pos["hand_number"] == 1 and pos["hand_starter"] == 1
    assert sorted(len(h) for h in pos["hands"])[:2] == [7, 7]
    assert sum(len(h) for h in pos["hands"]) + len(pos["draw_pile"]) + len(pos["discard_pile"]) == 108


def test_match_ends_when_a_total_reaches_the_target():
    eng = match_engine([400, 10, 20])
    rewards, done = act(eng, "play R7")
    assert done and rewards.tolist() == [1.0, -0.5, -0.5]
    assert eng.position(0)["scores"] == [500, 10, 20]  # exactly 500 reaches the target


def test_target_score_option():
    eng = match_engine([150, 10, 20], target_score=200)
    _, done = act(eng, "play R7")
    assert done


def test_first_player_rotates_each_hand():
    eng = match_engine([0, 0, 0], hand_starter="rotate")
    eng.hand_starter[0] = 2
    act(eng, "play R7")
    assert eng.position(0)["hand_starter"] == 0


def test_option_previous_winner_starts_the_next_hand():
    hands = [["Y9", "Y8"], ["R7"], ["G9", "BS"]]
    eng = engine(position(hands, top="R5", draw=DRAW, current=1), match=True, hand_starter="winner")
    act(eng, "play R7")
    assert eng.position(0)["hand_starter"] == 1


def test_points_reward_in_a_match_is_the_sum_over_hands_paid_at_the_end():
    eng = match_engine([450, 0, 0], reward="points", match_rewards=[3.0, -1.0, -2.0])
    rewards, done = act(eng, "play R7")
    assert done
    assert np.allclose(rewards, (np.array([3.0, -1.0, -2.0]) + [100, -71, -29]) * POINTS_REWARD_SCALE)


def test_points_reward_accumulates_while_the_match_goes_on():
    eng = match_engine([0, 0, 0], reward="points")
    rewards, done = act(eng, "play R7")
    assert not done and not rewards.any()
    assert eng.position(0)["match_rewards"] == [100.0, -71.0, -29.0]


# ---------------------------------------------------------------- reverse scoring
def test_reverse_scoring_each_player_adds_their_own_hand():
    eng = match_engine([0, 0, 0], scoring="reverse")
    _, done = act(eng, "play R7")
    assert not done and eng.position(0)["scores"] == [0, 71, 29]


def test_reverse_scoring_reaching_the_threshold_is_not_passing_it():
    eng = match_engine([0, 429, 10], scoring="reverse")
    _, done = act(eng, "play R7")
    assert not done and eng.position(0)["scores"] == [0, 500, 39]


@pytest.mark.parametrize("reward", ["win", "points"])
def test_reverse_scoring_passing_the_threshold_ends_and_lowest_total_wins(reward):
    eng = match_engine([60, 430, 10], scoring="reverse", reward=reward)
    rewards, done = act(eng, "play R7")
    assert done and eng.position(0)["scores"] == [60, 501, 39]
    if reward == "win":
        assert rewards.tolist() == [-0.5, -0.5, 1.0]  # seat 2 has the lowest total
    else:
        assert np.allclose(rewards, np.array([0, -71, -29]) * POINTS_REWARD_SCALE)


def test_reverse_scoring_tied_lowest_share_the_win():
    eng = match_engine([39, 430, 10], scoring="reverse")
    rewards, done = act(eng, "play R7")
    assert done and eng.position(0)["scores"] == [39, 501, 39]
    assert rewards.tolist() == [0.5, -1.0, 0.5]


def test_reverse_scoring_single_hand_winner_is_the_one_who_went_out():
    eng = engine(position([["R7"], *OTHERS], top="R5", draw=DRAW), scoring="reverse")
    rewards, done = act(eng, "play R7")
    assert done and rewards.tolist() == [1.0, -0.5, -0.5] and eng.hand_points[0].tolist() == [0, 71, 29]


def test_a_finished_game_restarts_with_auto_reset():
    from envs.uno import UnoEngine, UnoRules

    pos = position([["R7"], *OTHERS], top="R5", draw=DRAW, scores=[0, 0, 0])
    eng = UnoEngine.from_positions([pos], rules=UnoRules(), seed=5)
    _, mask, rewards, done = eng.step(np.array([7]))
    assert done[0] and rewards[0, 0] == 1.0 and mask[0].any()
    new = eng.position(0)
    assert new["scores"] == [0, 0, 0] and new["hand_number"] == 0
    assert sum(len(h) for h in new["hands"]) + len(new["draw_pile"]) + len(new["discard_pile"]) == 108


@pytest.mark.parametrize("options", [{}, {"match": True, "target_score": 200}, {"reward": "points"}])
def test_finished_games_report_winners_and_final_scores_whatever_the_reward(options):
    eng = UnoEngine(num_games=64, num_players=3, rules=UnoRules(**options), seed=3)
    _, mask = eng.reset()
    rng, ended = np.random.default_rng(0), 0
    scores = np.zeros((64, 3), np.int64)
    while ended < 100:
        _, mask, rewards, done = eng.step(random_actions(mask, rng.random(mask.shape)))
        scores += eng.hand_points
        for g in np.flatnonzero(done):
            assert eng.game_winners[g].sum() == 1
            np.testing.assert_array_equal(eng.final_scores[g], scores[g])
            if options.get("reward") != "points":
                np.testing.assert_array_equal(eng.game_winners[g], rewards[g] > 0)
            winner = eng.game_winners[g].argmax()
            assert eng.final_scores[g, winner] == eng.final_scores[g].max()
        scores[done] = 0
        ended += int(done.sum())
    assert not eng.game_winners[~done].any()


def test_standing_order_puts_the_match_leader_first_ties_in_seat_order():
    """One order for every leaderboard (terminal, page, Score Buddy): the leader by
    match_leaders_one first, ties in seat order."""
    from envs.uno import UnoRules

    totals = [120, 300, 120, 40]
    assert UnoRules().standing_order(totals) == [1, 0, 2, 3]
    assert UnoRules(scoring="reverse").standing_order(totals) == [3, 0, 2, 1]
    for rules in (UnoRules(), UnoRules(scoring="reverse")):
        leaders = rules.match_winners(np.array(totals))
        assert leaders[rules.standing_order(totals)[0]]
