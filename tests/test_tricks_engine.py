"""The trick-game engine in bulk: invariants, determinism, positions, hidden information, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.cards import NUM_CARD_TYPES, TYPE_COPIES
from envs.uno_tricks import NUM_ACTIONS, OBS_SIZE, IllegalActionError, TricksEngine, TricksRules, action_id, decode
from envs.uno_tricks.engine import CardQueue
from envs.uno_tricks.observation import FIELDS, OVER, observation_bounds
from tests.play_helpers import play, random_actions
from tests.tricks_helpers import engine, laid, legal, position

RULE_SETS = [TricksRules(), TricksRules(exchange_returns="two", reward="points")]


def queue_counts(queue: CardQueue) -> np.ndarray:
    B, cap = queue.cards.shape
    offsets = np.arange(cap)[None, :]
    live = offsets < queue.count[:, None]
    slots = (queue.start[:, None] + offsets) % cap
    cards = np.take_along_axis(queue.cards, slots, axis=1).astype(np.int64)
    flat = (np.arange(B)[:, None] * NUM_CARD_TYPES + cards)[live]
    return np.bincount(flat, minlength=B * NUM_CARD_TYPES).reshape(B, NUM_CARD_TYPES)


def table_counts(eng: TricksEngine) -> np.ndarray:
    B = eng.num_games
    cards = np.concatenate([eng.table_card, eng.table_added, eng.table_specials.reshape(B, -1)], axis=1)
    live = cards >= 0
    flat = (np.arange(B)[:, None] * NUM_CARD_TYPES + np.maximum(cards, 0))[live]
    return np.bincount(flat, minlength=B * NUM_CARD_TYPES).reshape(B, NUM_CARD_TYPES)


def check_invariants(eng: TricksEngine, mask: np.ndarray) -> None:
    """Every one of the 108 cards in exactly one place; a legal action in every live game."""
    total = (
        eng.hands.sum(axis=1)
        + queue_counts(eng.numbers)
        + queue_counts(eng.specials)
        + table_counts(eng)
        + eng.points_piles.sum(axis=1)
    )
    assert (total == TYPE_COPIES[None, :]).all(), "card conservation broken"
    # the engine's running summaries agree with the cards themselves
    summaries = (
        eng.hand_numbers,
        eng.hand_specials,
        eng.number_count,
        eng.special_count,
        eng.points,
        eng.numbers_out,
        eng.on_table,
    )
    kept = [x.copy() for x in summaries]
    eng._sync_summaries(np.arange(eng.num_games))
    for before, after in zip(kept, summaries, strict=True):
        np.testing.assert_array_equal(before, after)
    assert (eng.hands >= 0).all() and (eng.points_piles >= 0).all()
    live = eng.phase != OVER
    assert mask.shape == (eng.num_games, NUM_ACTIONS) and mask[live].any(axis=1).all()


@pytest.mark.parametrize("rules", RULE_SETS, ids=["drawn", "two"])
def test_invariants_hold_on_random_play(rules):
    eng = TricksEngine(num_games=256, rules=rules, seed=2)
    obs, mask = eng.reset()
    low, high = observation_bounds(rules)
    rng = np.random.default_rng(0)
    games = tricks = 0
    for _ in range(400):
        check_invariants(eng, mask)
        assert obs.shape == (256, OBS_SIZE) and (obs >= low).all() and (obs <= high).all()
        obs, mask, rewards, done = eng.step(random_actions(mask, rng.random(mask.shape)))
        games += done.sum()
        tricks += eng.trick_ended.sum()
        assert not rewards[~done].any()
        # partners share their team's reward, the teams' rewards are opposite
        assert np.allclose(rewards[:, 0], rewards[:, 2]) and np.allclose(rewards[:, 1], rewards[:, 3])
        assert np.allclose(rewards[:, 0], -rewards[:, 1])
    check_invariants(eng, mask)
    assert games > 100 and tricks > 1000


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63), literal=st.booleans())
def test_invariants_for_any_seed(seed, literal):
    rules = TricksRules(exchange_returns="two" if literal else "drawn")
    eng = TricksEngine(num_games=16, rules=rules, seed=seed)
    _, mask = eng.reset()
    rng = np.random.default_rng(seed % 997)
    for _ in range(120):
        _, mask, _, _ = eng.step(random_actions(mask, rng.random(mask.shape)))
        check_invariants(eng, mask)


def test_same_seed_same_games_on_any_batch_size_batched_or_one_by_one():
    u = np.random.default_rng(5).random((250, 8, NUM_ACTIONS))
    big = TricksEngine(num_games=8, seed=77)
    first_seeds = big.game_seeds.copy()  # each deal moves a game's stream on
    trace = play(big, u, np.arange(8))
    small = play(TricksEngine(num_games=3, seed=77), u, np.arange(3))
    for b, s in zip(trace, small, strict=True):
        for x, y in zip(b, s, strict=True):
            np.testing.assert_array_equal(x[:3], y)
    single = play(TricksEngine(num_games=1, seed=[int(first_seeds[5])]), u, np.array([5]))
    for b, s in zip(trace, single, strict=True):
        for x, y in zip(b, s, strict=True):
            np.testing.assert_array_equal(x[5:6], y)


@pytest.mark.parametrize("rules", RULE_SETS, ids=["drawn", "two"])
def test_every_reachable_position_round_trips_and_continues_exactly(rules):
    eng = TricksEngine(num_games=16, rules=rules, seed=9)
    _, mask = eng.reset()
    rng = np.random.default_rng(1)
    phases = set()
    for _ in range(200):
        positions = [eng.position(i) for i in range(16)]
        assert json.loads(json.dumps(positions)) == positions
        phases |= {p["phase"] for p in positions}
        copy = TricksEngine.from_positions(positions, rules=rules)
        assert [copy.position(i) for i in range(16)] == positions
        for seat in range(4):
            for x, y in zip(eng.observe(seats=seat), copy.observe(seats=seat), strict=True):
                np.testing.assert_array_equal(x, y)
        actions = random_actions(mask, rng.random(mask.shape))
        out = eng.step(actions)
        for x, y in zip(out, copy.step(actions), strict=True):
            np.testing.assert_array_equal(x, y)
        mask = out[1]
    assert phases == {"lay", "draw", "return", "swap"}


def forced_layers(pos: dict) -> set[int]:
    """Seats that laid a forced duplicate this trick (``laid_by``): their number cards are the
    numbers laid before it, unless a lone +2/+4 exchanged some, so a scramble keeps them."""
    return {entry.get("laid_by", seat) for seat, entry in enumerate(pos["table"]) if entry and entry["forced"]}


def scramble_hidden(pos: dict, seat: int, rng: np.random.Generator) -> dict:
    """The position as ``seat`` sees it, with what it cannot see dealt anew (sizes kept):
    the other hands' number cards (but a forced duplicate's layer's, which the table limits)
    and special cards, and the order of both piles."""
    pos = {**pos, "hands": [list(h) for h in pos["hands"]], "specials": [list(s) for s in pos["specials"]]}
    for key, pile in (("hands", "number_pile"), ("specials", "special_pile")):
        kept = forced_layers(pos) if key == "hands" else set()
        others = [p for p in range(4) if p != seat and p not in kept]
        pool = [c for p in others for c in pos[key][p]] + list(pos[pile])
        rng.shuffle(pool)
        for p in others:
            n = len(pos[key][p])
            pos[key][p], pool = pool[:n], pool[n:]
        pos[pile] = pool
    return pos


def test_finished_games_keep_every_card_in_one_place():
    """With auto_reset off a finished game stays: its table is clear, its position reloads."""
    eng = TricksEngine(num_games=32, rules=TricksRules(exchange_returns="two"), seed=6, auto_reset=False)
    _, mask = eng.reset()
    rng = np.random.default_rng(3)
    while (eng.phase != OVER).any():
        _, mask, rewards, done = eng.step(
            random_actions(np.where((eng.phase == OVER)[:, None], True, mask), rng.random(mask.shape))
        )
        check_invariants(eng, mask)
        assert (np.signbit(rewards) == (rewards < 0)).all()  # a draw pays 0.0, not -0.0
    positions = [eng.position(i) for i in range(32)]
    assert all(p["phase"] == "over" and p["table"] == [None] * 4 for p in positions)
    copy = TricksEngine.from_positions(positions, auto_reset=False)
    assert [copy.position(i) for i in range(32)] == positions
    assert not copy.legal_action_mask.any()


def test_no_seat_sees_hidden_information():
    eng = TricksEngine(num_games=8, seed=4)
    _, mask = eng.reset()
    rng = np.random.default_rng(2)
    for _ in range(60):
        for i in range(8):
            pos = eng.position(i)
            mine = TricksEngine.from_positions([pos])
            for seat in range(4):
                other = TricksEngine.from_positions([scramble_hidden(pos, seat, rng)])
                np.testing.assert_array_equal(mine.observe(seats=seat)[0], other.observe(seats=seat)[0])
        _, mask, _, _ = eng.step(random_actions(mask, rng.random(mask.shape)))


def test_observation_layout_and_decoder():
    hands = [["R7", "Y3"], ["G9", "B5"], ["R2", "G8"], ["B1", "Y6"]]
    pos = position(
        hands,
        specials=[["W"], ["RS", "GR"], [], ["B+2"]],
        table=[None, {"card": "G9", "forced": False, "added": "R4", "specials": ["W"]}, None, None],
        leader=1,
        current=2,
        trick=3,
        points_piles=[["Y8"], ["B2", "G1"]],
    )
    pos["specials"][1] = ["RS", "GR"]
    eng = engine(pos)
    view = {k: v[0] for k, v in decode(eng.observe()[0]).items()}
    assert view["numbers"].tolist() == [0, 0, 1, 0, 0, 0, 0, 0, 1, 0]
    assert view["table_laid"].tolist() == [0, 0, 0, 1] and view["table_number"].tolist() == [-1, -1, -1, 9]
    assert view["table_added"].tolist() == [-1, -1, -1, 4] and view["table_value"].tolist() == [0, 0, 0, 13]
    assert view["table_specials"][3].tolist() == [0, 0, 0, 1, 0]
    assert view["team_points"].tolist() == [8, 3] and view["trick"] == 3 and view["leader"] == 3
    assert view["numbers_out"].tolist() == [0, 1, 1, 0, 0, 0, 0, 0, 1, 0]
    assert view["hand_sizes"].tolist() == [2, 2, 2, 2] and view["special_counts"].tolist() == [0, 1, 1, 2]
    assert view["phase"] == 0 and view["number_pile_size"] == 9 and view["special_pile_size"] == 3
    starts = sorted((f.start, f.size) for f in FIELDS.values())
    assert all(a[0] + a[1] == b[0] for a, b in zip(starts, starts[1:], strict=False))


# ---------------------------------------------------------------- errors
def test_illegal_action_names_the_legal_ones_and_changes_nothing():
    eng = engine(position([["R7", "Y3"], ["G7", "B5"], ["R2", "G8"], ["B1", "Y6"]]))
    before = eng.position(0)
    with pytest.raises(IllegalActionError, match=r"may not 'lay 7 wild'.*legal here: 'lay 3', 'lay 7'"):
        eng.step(np.array([action_id("lay 7 wild")]))
    with pytest.raises(IllegalActionError, match=r"out of range 0\.\.88"):
        eng.step(np.array([89]))
    assert eng.position(0) == before and legal(eng) == {"lay 3", "lay 7"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hands": [["R7", "W"], [], [], []]}, r"hands\[0\]: W is a special card"),
        ({"specials": [["R7"], [], [], []]}, r"specials\[0\]: R7 is a number card"),
        ({"hands": [["R0", "R0"], [], [], []]}, r"R0 x2 \(the deck has 1\)"),
        ({"hands": [["0"] * 5, [], [], []]}, r"no 0 is left in the deck"),
        ({"hands": [["R7"], [], []]}, "hands must list 4 entries"),
        ({"phase": "bid"}, "phase 'bid' is not one of"),
        ({"leader": 4}, r"leader must be a seat 0\.\.3"),
        ({"phase": "draw"}, "table\\[0\\] is empty"),
        (
            {"table": [{"card": "B7", "specials": ["W", "RS"]}, None, None, None], "current_player": 1},
            "one special card, or the \\+2 and \\+4 pair",
        ),
        ({"points": [5, 0]}, "points \\[5, 0\\] differ"),
        ({"extra": 1}, "unknown key"),
        ({"game": "uno"}, "not of the trick game"),
    ],
)
def test_inconsistent_positions_are_refused(change, message):
    pos = position([["R7", "Y3"], ["G7", "B5"], ["R2", "G8"], ["B1", "Y6"]])
    pos.update(change)
    with pytest.raises(ValueError, match=message):
        engine(pos)


def test_colourless_names_take_a_free_colour():
    pos = position([["7", "7"], ["R7"], ["3"], ["0"]], specials=[["skip", "+4"], ["wild"], [], []])
    out = engine(pos).position(0)
    assert out["hands"] == [["Y7", "Y7"], ["R7"], ["R3"], ["R0"]]  # R7 is used up (hand and pile)
    assert out["specials"] == [["RS", "W+4"], ["W"], [], []]


def test_rules_and_table_size_are_validated():
    with pytest.raises(ValueError, match=r"unknown TricksRules option\(s\) exchange; allowed: exchange_returns"):
        TricksRules.from_dict({"exchange": "two"})
    with pytest.raises(ValueError, match="allowed: drawn, two"):
        TricksRules(exchange_returns="three")
    with pytest.raises(ValueError, match="exactly 4 players"):
        TricksEngine(num_games=1, num_players=3)


def test_games_from_the_same_seed_get_the_same_deals_whatever_is_played():
    """Duplicate deals: the k-th deal of a game depends on its seed and k only."""
    eng = TricksEngine(num_games=3, seed=[5, 5, 6])
    _, mask = eng.reset()
    rng = np.random.default_rng(0)
    deals: list[list[np.ndarray]] = [[eng.hands[g].copy()] for g in range(3)]
    while min(len(d) for d in deals) < 4:
        _, mask, _, done = eng.step(random_actions(mask, rng.random(mask.shape)))
        for g in np.flatnonzero(done):
            deals[g].append(eng.hands[g].copy())
    for k in range(4):
        np.testing.assert_array_equal(deals[0][k], deals[1][k])
        assert not np.array_equal(deals[0][k], deals[2][k])


def test_finished_games_report_the_winning_team_and_its_points():
    eng = TricksEngine(num_games=64, seed=3)
    _, mask = eng.reset()
    rng, ended = np.random.default_rng(0), 0
    while ended < 100:
        points = eng.points.copy()
        _, mask, rewards, done = eng.step(random_actions(mask, rng.random(mask.shape)))
        for g in np.flatnonzero(done):
            np.testing.assert_array_equal(eng.game_winners[g], rewards[g] > 0)
            assert eng.final_scores[g, 0] == eng.final_scores[g, 2] >= points[g, 0]
            assert eng.final_scores[g, 1] == eng.final_scores[g, 3] >= points[g, 1]
        ended += int(done.sum())


def test_a_forced_duplicates_layer_holds_only_numbers_laid_before_it():
    """A forced duplicate is laid only from a hand of numbers already on the table, and the hand
    changes within the trick only by a lone +2/+4's exchange (the pair exchanges nothing)."""
    hands = [["R1", "R2"], ["G5", "B9"], ["Y3"], ["B1"]]
    table = [None, laid("R5"), laid("Y5", forced=True), None]  # seat 1 led with 5, seat 2 had only 5s
    with pytest.raises(ValueError, match=r"hands\[2\] holds \[3\], not laid before its forced duplicate"):
        engine(position(hands, table=table, leader=1, current=3))
    hands[2] = ["B5"]
    engine(position(hands, table=table, leader=1, current=3))  # only 5s: consistent
    hands[2] = ["Y3"]
    table[2] = laid("Y5", forced=True, specials=["R+2"])  # a lone +2's exchange may have brought the 3
    engine(position(hands, table=table, leader=1, current=3))
    # the layer is laid_by, its specials at its own seat: seat 2 swapped its card with seat 1's
    swapped = [None, laid("Y5", forced=True, specials=["R+2"], by=2), laid("R5", specials=["RR"], by=1), None]
    with pytest.raises(ValueError, match=r"hands\[2\] holds \[3\]"):
        engine(position(hands, table=swapped, leader=1, current=3))  # seat 1's +2 does not free seat 2
    table[2] = laid("Y5", forced=True, specials=["R+2", "W+4"])
    with pytest.raises(ValueError, match=r"hands\[2\] holds \[3\]"):
        engine(position(hands, table=table, leader=1, current=3))
