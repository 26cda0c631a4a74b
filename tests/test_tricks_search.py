"""The trick game's search plans from what the player knows, never from the hidden cards."""

from __future__ import annotations

import numpy as np
import pytest

from agents.policy import RandomPolicy
from agents.tricks_search import TricksSearchPolicy
from envs.cards import TYPE_COPIES, TYPE_NAMES
from envs.uno_tricks import TricksEngine, TricksRules
from envs.uno_tricks.kernel import NUMBER_DECK, NUMBER_OF, SPECIAL_DECK, SPECIAL_OF
from envs.uno_tricks.worlds import sample_worlds, split_points
from tests.test_tricks_engine import scramble_hidden
from tests.test_tricks_policies import team_match

RULES = [TricksRules(), TricksRules(exchange_returns="two")]


def random_positions(rules: TricksRules, steps: tuple[int, ...], seed: int = 0, games: int = 96) -> list[TricksEngine]:
    """Copies of random-play games after each of ``steps`` moves (games still going only)."""
    eng = TricksEngine(games, rules=rules, seed=seed, auto_reset=False)
    obs, mask = eng.reset()
    policy = RandomPolicy(seed=seed)
    out = []
    for step in range(max(steps) + 1):
        live = (eng.phase < eng.over_phase).nonzero()[0]
        if step in steps:
            out.append(eng.select(live))
        actions = np.zeros(games, np.int64)
        actions[live] = policy(obs[live], mask[live])
        obs, mask, _, _ = eng.step(actions)
    return out


def by_number(types: np.ndarray) -> np.ndarray:
    """Counts per type ``[..., 54]`` as counts per number ``[..., 10]`` and per special kind ``[..., 5]``."""
    numbers = np.stack([types[..., NUMBER_OF == n].sum(axis=-1) for n in range(10)], axis=-1)
    specials = np.stack([types[..., SPECIAL_OF == k].sum(axis=-1) for k in range(5)], axis=-1)
    return np.concatenate([numbers, specials], axis=-1).astype(np.int64)


def pile_counts(queue, game: int) -> np.ndarray:
    return np.bincount(queue.listing(game).astype(np.int64), minlength=TYPE_COPIES.size)


def world_cards(eng: TricksEngine, i: int) -> np.ndarray:
    """Every card of game ``i`` by type: hands, piles, table, points piles."""
    cards = eng.hands[i].sum(axis=0).astype(np.int64) + eng.points_piles[i].sum(axis=0)
    cards += pile_counts(eng.numbers, i) + pile_counts(eng.specials, i)
    for t in (*eng.table_card[i], *eng.table_added[i], *eng.table_specials[i].ravel()):
        if t >= 0:
            cards[t] += 1
    return cards


@pytest.mark.parametrize("rules", RULES, ids=["drawn", "two"])
def test_worlds_hold_exactly_the_unseen_cards_and_look_like_the_observation(rules):
    W = 3
    phases = set()
    for eng in random_positions(rules, steps=(0, 6, 19, 33, 47, 58)):
        obs, mask = eng.observe()
        worlds, unseen = sample_worlds(obs, rules, W, np.random.default_rng(0))
        w_obs, w_mask = worlds.observe()
        np.testing.assert_array_equal(w_obs, np.repeat(obs, W, axis=0))  # every world looks the same to the player
        np.testing.assert_array_equal(w_mask, np.repeat(mask, W, axis=0))
        assert (worlds.current == 0).all()
        phases |= set(eng.phase.tolist())
        for g in range(eng.num_games):
            me = eng.current[g]
            seats = (me + np.arange(4)) % 4  # world seat k: the observer's relative slot k
            hidden = by_number(eng.hands[g, seats[1:]].sum(axis=0) + pile_counts(eng.numbers, g))
            hidden += by_number(pile_counts(eng.specials, g))
            np.testing.assert_array_equal(unseen[g], hidden)  # the true hidden cards, by number and kind
            for w in range(W):
                i = g * W + w
                np.testing.assert_array_equal(by_number(worlds.hands[i, 0]), by_number(eng.hands[g, me]))  # own hand
                np.testing.assert_array_equal(worlds.number_count[i], eng.number_count[g, seats])
                np.testing.assert_array_equal(worlds.special_count[i], eng.special_count[g, seats])
                assert worlds.numbers.count[i] == eng.numbers.count[g]
                assert worlds.specials.count[i] == eng.specials.count[g]
                w_hidden = by_number(worlds.hands[i, 1:].sum(axis=0) + pile_counts(worlds.numbers, i))
                w_hidden += by_number(pile_counts(worlds.specials, i))
                np.testing.assert_array_equal(w_hidden, hidden)
                np.testing.assert_array_equal(world_cards(worlds, i), TYPE_COPIES)  # exactly the deck, type by type
                np.testing.assert_array_equal(worlds.points[i], eng.points[g, [me % 2, 1 - me % 2]])
                np.testing.assert_array_equal(
                    by_number(worlds.points_piles[i].sum(axis=0)), by_number(eng.points_piles[g].sum(axis=0))
                )
                np.testing.assert_array_equal(worlds.table_card[i] >= 0, eng.table_card[g, seats] >= 0)
                np.testing.assert_array_equal(worlds.table_value[i], eng.table_value[g, seats])
                assert worlds.leader[i] == (eng.leader[g] - me) % 4 and worlds.phase[i] == eng.phase[g]
        positions = [worlds.position(i) for i in range(0, worlds.num_games, 7)]
        TricksEngine.from_positions(positions, rules, auto_reset=False)  # consistent: loads as a game
    assert phases == {0, 1, 2, 3}  # lay, draw, return, swap


def test_worlds_differ_and_are_random():
    eng = random_positions(TricksRules(), steps=(2,), games=1)[0]
    obs, _ = eng.observe()
    worlds, _ = sample_worlds(obs, TricksRules(), 32, np.random.default_rng(1))
    assert len({tuple(worlds.hands[i, 1]) for i in range(32)}) > 20
    assert len({tuple(worlds.numbers.listing(i)) for i in range(32)}) == 32
    again, _ = sample_worlds(obs, TricksRules(), 32, np.random.default_rng(1))
    np.testing.assert_array_equal(again.hands, worlds.hands)  # the generator decides


@pytest.mark.parametrize("rule", ["drawn", "two"])
def test_worlds_are_sampled_only_for_the_player_to_act(rule):
    """to_act reads the turn from a view alone (leader, laid cards, hand sizes, phase); another
    seat's view was accepted and dealt a world whose seat 0 laid out of turn."""
    from envs.uno_tricks import decode
    from envs.uno_tricks.worlds import to_act

    eng = TricksEngine(64, rules=TricksRules(exchange_returns=rule), seed=5)
    obs, mask = eng.reset()
    policy = RandomPolicy(0)
    for _ in range(200):
        for seat in range(4):
            view = decode(eng.observe(seats=seat)[0])
            assert (to_act(view) == ((eng.current == seat) & (view["phase"] != 4))).all()
        obs, mask = eng.observe()
        obs, mask, _, _ = eng.step(policy(obs, mask))
    other = eng.observe(seats=(eng.current + 1) % 4)[0]
    with pytest.raises(ValueError, match="observations of the player to act"):
        sample_worlds(other, TricksRules(exchange_returns=rule), 2, np.random.default_rng(0))
    one, _ = sample_worlds(obs[0], TricksRules(exchange_returns=rule), 3, np.random.default_rng(0))  # one view, 1-D
    assert one.num_games == 3


def test_the_points_piles_split_adds_up_to_each_teams_points():
    out = np.zeros((3, 10), np.int64)
    out[0, [3, 5]] = [2, 1]  # 3, 3, 5: 6 is 3 + 3, not 5 + anything
    out[1, [0, 9]] = [2, 4]
    out[2, 1:] = 8
    own = split_points(out, np.array([6, 18, 200]))
    assert (own <= out).all() and (own >= 0).all()
    np.testing.assert_array_equal(own @ np.arange(10), [6, 18, 200])
    with pytest.raises(ValueError, match="points"):
        split_points(out[:1], np.array([4]))


def test_decisions_do_not_depend_on_unseen_cards():
    rules = TricksRules()
    positions = []
    for eng in random_positions(rules, steps=(1, 13, 30), seed=4, games=24):
        positions += [eng.position(i) for i in range(eng.num_games)]
    twins = [scramble_hidden(p, p["current_player"], np.random.default_rng(k)) for k, p in enumerate(positions)]
    assert sum(p["hands"] != q["hands"] for p, q in zip(positions, twins, strict=True)) > len(positions) // 2
    a = TricksEngine.from_positions(positions, rules, auto_reset=False)
    b = TricksEngine.from_positions(twins, rules, auto_reset=False)
    obs_a, mask_a = a.observe()
    obs_b, mask_b = b.observe()
    np.testing.assert_array_equal(obs_a, obs_b)  # the player sees the same in both
    np.testing.assert_array_equal(mask_a, mask_b)
    search_a = TricksSearchPolicy(seed=3, worlds=4, rollout="heuristic")
    search_b = TricksSearchPolicy(seed=3, worlds=4, rollout="heuristic")
    values = search_a.action_values(obs_a, mask_a)
    np.testing.assert_array_equal(values, search_b.action_values(obs_b, mask_b))
    assert np.isfinite(values[mask_a]).all() and np.isnan(values[~mask_a]).all()
    np.testing.assert_array_equal(search_a(obs_a, mask_a), search_b(obs_b, mask_b))


# Measured on 256 games: 0.79 (worlds 8, rollout random); random against random is 0.5.
def test_search_plays_legal_moves_and_beats_a_random_team():
    search = TricksSearchPolicy(seed=0, worlds=8, rollout="random")
    assert team_match(search, RandomPolicy(seed=2), num_games=128, seed=5) > 0.62
    assert search.searched > 1000


def last_trick(ahead: int) -> dict:
    """The last trick, seat 1 to lead with two specials; team ``ahead`` holds all points but the zeros'."""
    hands = [["R1"], ["R2"], ["R3"], ["R4"]]
    rest = [TYPE_NAMES[t] for t in NUMBER_DECK]
    for card in ("R1", "R2", "R3", "R4"):
        rest.remove(card)
    zeros = [c for c in rest if c.endswith("0")]
    others = [c for c in rest if not c.endswith("0")]
    specials = [TYPE_NAMES[t] for t in SPECIAL_DECK]
    for card in ("W", "RS"):
        specials.remove(card)
    piles = [others[10:], zeros] if ahead == 0 else [zeros, others[10:]]
    return {
        "hands": hands,
        "specials": [[], ["W", "RS"], [], []],
        "number_pile": others[:10],
        "special_pile": specials,
        "table": [None] * 4,
        "leader": 1,
        "current_player": 1,
        "phase": "lay",
        "trick": 10,
        "points_piles": piles,
    }


@pytest.mark.parametrize("reward", ["win", "points"])
def test_the_result_is_the_observers_team_reward(reward):
    """A world's result is seat 0's reward, its own team's: here the observer sits at seat 1
    (team B), and the last trick cannot change who wins."""
    rules = TricksRules(reward=reward)
    eng = TricksEngine.from_positions([last_trick(ahead=1), last_trick(ahead=0)], rules, auto_reset=False)
    obs, mask = eng.observe()
    assert mask.sum(axis=1).min() == 3  # lay 2, alone, with the Wild or with the Skip
    search = TricksSearchPolicy(seed=0, worlds=4, rollout="random", rules={"reward": reward})
    values = search.action_values(obs, mask)
    if reward == "win":
        assert (values[0, mask[0]] == 1).all() and (values[1, mask[1]] == -1).all()
    else:
        margin = eng.points[:, 1] - eng.points[:, 0]  # team B's
        assert (np.abs(values[mask] - np.repeat(margin * 0.01, 3)) <= 0.01 * 2 * (9 + 9)).all()
        assert (values[0, mask[0]] > 0).all() and (values[1, mask[1]] < 0).all()


def forced_table(seat1_specials: list[str]) -> dict:
    """Seat 1 led a 5, seat 2 laid a 7, seat 3 had only 5s and 7s and laid a 5 as a forced
    duplicate; seat 0 is to lay. The other number cards are in the pile."""
    hands = [["R1", "R2", "R3"], ["R4", "R6"], ["R8", "R9"], ["B5", "B7"]]
    table = [None, {"card": "R5", "specials": seat1_specials}, {"card": "G7"}, {"card": "Y5", "forced": True}]
    pile = [TYPE_NAMES[t] for t in NUMBER_DECK]
    for card in [c for h in hands for c in h] + ["R5", "G7", "Y5"]:
        pile.remove(card)
    specials = [TYPE_NAMES[t] for t in SPECIAL_DECK]
    for card in seat1_specials:
        specials.remove(card)
    return {
        "hands": hands,
        "specials": [[], [], [], []],
        "number_pile": pile,
        "special_pile": specials,
        "table": table,
        "leader": 1,
        "current_player": 0,
        "phase": "lay",
    }


def test_a_forced_duplicates_seat_is_dealt_only_numbers_laid_before_it_uniformly():
    """Seat 3's two cards are drawn among the 13 unseen 5s and 7s (6 and 7 of them), every such
    pair equally likely; the other seats and the pile share the rest as before."""
    from envs.uno_tricks import decode
    from envs.uno_tricks.worlds import allowed_numbers

    rules = TricksRules()
    eng = TricksEngine.from_positions([forced_table([])], rules, auto_reset=False)
    obs, _ = eng.observe()
    assert allowed_numbers(decode(obs))[0, 3].nonzero()[0].tolist() == [5, 7]
    assert allowed_numbers(decode(obs))[0, :3].all()
    W = 4000
    worlds, _ = sample_worlds(obs, rules, W, np.random.default_rng(0))
    held = by_number(worlds.hands[:, 3])[:, :10]
    assert (held[:, [5, 7]].sum(axis=1) == 2).all()
    fives = held[:, 5]
    expected = np.array([21, 42, 15]) / 78  # hypergeometric: 0, 1, 2 of the 6 fives among 13 cards
    np.testing.assert_allclose(np.bincount(fives, minlength=3) / W, expected, atol=0.025)
    seat1 = by_number(worlds.hands[:, 1])[:, 5].mean()  # 2 of the 68 other cards: 2 * (6 - 12/13) / 68
    assert abs(seat1 - 2 * (6 - 12 / 13) / 68) < 0.03
    # a Reverse on the table may have moved the forced card away from its layer: no restriction
    reverse = TricksEngine.from_positions([forced_table(["RR"])], rules, auto_reset=False)
    assert allowed_numbers(decode(reverse.observe()[0])).all()
    # the forced seat's own lone +2 exchanged cards: no restriction; the +2/+4 pair exchanges none
    for specials, restricted in ((["R+2"], False), (["R+2", "W+4"], True), (["W"], True)):
        pos = forced_table([])
        pos["table"][3]["specials"] = specials
        for card in specials:
            pos["special_pile"].remove(card)
        view = decode(TricksEngine.from_positions([pos], rules, auto_reset=False).observe()[0])
        assert (~allowed_numbers(view)[0, 3]).any() == restricted, specials
