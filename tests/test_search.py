"""The search policy plans with the engine from what the player knows, never from the hidden cards."""

from __future__ import annotations

import numpy as np
import pytest

from agents.policy import RandomPolicy
from agents.registry import make_policy
from envs.cards import NUM_CARD_TYPES, TYPE_COLOUR, TYPE_NAMES, card_type
from envs.uno import UnoEngine, UnoRules
from envs.uno.positions import shown_to
from envs.uno.worlds import DECK_COUNTS, sample_worlds


def played_games(players: int, rules: UnoRules, steps: int, seed: int = 0, games: int = 64) -> UnoEngine:
    """Games some random moves in (no auto-restart, so every game is still going or just over)."""
    eng = UnoEngine(games, players, rules, seed=seed)
    obs, mask = eng.reset()
    policy = RandomPolicy(seed=seed)
    for _ in range(steps):
        obs, mask, _, _ = eng.step(policy(obs, mask))
    return eng


def reshuffled_hidden(pos: dict, rng: np.random.Generator, tries: int = 200) -> dict:
    """The same position with the cards the player to act cannot see dealt again: the other
    hands (same sizes) and the draw pile's order. A hand shown by a challenge stays, and so
    does the public history: a deal that gives a seat more of a colour it was seen without
    and its wilds than the unseen cards it took since is dealt again (after ``tries``, the
    position as it was)."""
    for _ in range(tries):
        new = _reshuffled_once(pos, rng)
        if all(
            sum(TYPE_COLOUR[card_type(c)] in (k, -1) for c in hand) <= limit or limit < 0
            for hand, limits in zip(new["hands"], new.get("void_draws", []), strict=False)
            for k, limit in enumerate(limits)
        ):
            return new
    return pos


def _reshuffled_once(pos: dict, rng: np.random.Generator) -> dict:
    me = pos["current_player"]
    revealed = shown_to(pos, me)
    shown = revealed["player"] if revealed else None
    others = [p for p in range(pos["num_players"]) if p not in (me, shown)]
    hidden = [c for p in others for c in pos["hands"][p]] + list(pos["draw_pile"])
    rng.shuffle(hidden)
    new = {**pos, "hands": [list(h) for h in pos["hands"]]}
    at = 0
    for p in others:
        new["hands"][p] = hidden[at : at + len(pos["hands"][p])]
        at += len(pos["hands"][p])
    new["draw_pile"] = hidden[at:]
    if pos.get("challenge") is not None:  # guilt follows the (re-dealt) hand of the Wild Draw Four's player
        new["challenge"] = {k: v for k, v in pos["challenge"].items() if k != "guilty"}
    return new


@pytest.mark.parametrize(("players", "rules"), [(2, UnoRules()), (4, UnoRules()), (2, UnoRules(seven_zero=True))])
def test_decisions_do_not_depend_on_unseen_cards(players, rules):
    eng = played_games(players, rules, steps=9, seed=players)
    positions = [eng.position(i) for i in range(eng.num_games) if eng.phase[i] < eng.over_phase]
    rng = np.random.default_rng(7)
    twins = [reshuffled_hidden(p, rng) for p in positions]
    a = UnoEngine.from_positions(positions, rules, auto_reset=False)
    b = UnoEngine.from_positions(twins, rules, auto_reset=False)
    assert any(p["hands"] != q["hands"] for p, q in zip(positions, twins, strict=True))
    obs_a, mask_a = a.observe()
    obs_b, mask_b = b.observe()
    np.testing.assert_array_equal(obs_a, obs_b)  # the player sees the same in both
    np.testing.assert_array_equal(mask_a, mask_b)
    search_a = make_policy("uno", {"name": "search", "worlds": 4}, seed=3, rules=rules.to_dict())
    search_b = make_policy("uno", {"name": "search", "worlds": 4}, seed=3, rules=rules.to_dict())
    np.testing.assert_array_equal(search_a.action_values(obs_a, mask_a), search_b.action_values(obs_b, mask_b))
    np.testing.assert_array_equal(search_a(obs_a, mask_a), search_b(obs_b, mask_b))


@pytest.mark.parametrize(
    ("players", "rules"), [(2, UnoRules()), (3, UnoRules(stacking=True, match=True)), (7, UnoRules())]
)
def test_worlds_hold_exactly_the_unseen_cards(players, rules):
    eng = played_games(players, rules, steps=15, seed=players)
    live = (eng.phase < eng.over_phase).nonzero()[0]
    obs, _ = eng.observe()
    obs = obs[live]
    W = 5
    worlds, unseen = sample_worlds(obs, rules, W, np.random.default_rng(0))
    me = eng.current[live]
    d = eng.direction[live]
    for k, g in enumerate(live):
        for w in range(W):
            i = k * W + w
            hands = worlds.hands[i].astype(np.int64)
            np.testing.assert_array_equal(hands[0], eng.hands[g, me[k]])  # own hand as it is
            for slot in range(players):  # every hand size as the observer counts seats
                true_seat = (me[k] + d[k] * slot) % players
                world_seat = (d[k] * slot) % players
                assert worlds.hand_size[i, world_seat] == eng.hand_size[g, true_seat]
                assert hands[world_seat].sum() == eng.hand_size[g, true_seat]
            pile = np.bincount(worlds.draw_pile[i, : worlds.draw_end[i]], minlength=NUM_CARD_TYPES)
            others = hands[1:].sum(axis=0) + pile
            np.testing.assert_array_equal(others + hands[0] + worlds.discard_counts[i], DECK_COUNTS)
            assert worlds.draw_end[i] == eng.draw_end[g] - eng.draw_top[g]
            assert worlds.top[i] == eng.top[g] and worlds.colour[i] == eng.colour[g]
    w_obs, _ = worlds.observe()
    np.testing.assert_array_equal(w_obs, np.repeat(obs, W, axis=0))  # each world looks the same to the player
    assert unseen.sum() > 0


def test_worlds_differ_and_are_random():
    rules = UnoRules()
    eng = played_games(2, rules, steps=3, games=1)
    obs, _ = eng.observe()
    worlds, _ = sample_worlds(obs, rules, 32, np.random.default_rng(1))
    opponent_hands = {tuple(worlds.hands[i, 1]) for i in range(32)}
    assert len(opponent_hands) > 20


def test_a_revealed_hand_is_placed_with_its_player():
    hands = [["R1", "G2", "B3"], ["Y7", "R9", "B+2", "W", "G5"]]
    rest = DECK_COUNTS.copy()
    for card in [*hands[0], *hands[1], "R5"]:
        rest[card_type(card)] -= 1
    pile = [TYPE_NAMES[t] for t in np.repeat(np.arange(NUM_CARD_TYPES), rest)]
    pos = {
        "num_players": 2,
        "hands": hands,
        "draw_pile": pile,
        "discard_pile": ["R5"],
        "colour": "R",
        "direction": 1,
        "current_player": 0,
        "phase": "play",
        "revealed": {"to": 0, "player": 1, "hand": ["Y7", "R9", "W"]},
    }
    eng = UnoEngine.from_positions([pos], UnoRules(), auto_reset=False)
    obs, _ = eng.observe()
    worlds, unseen = sample_worlds(obs, UnoRules(), 16, np.random.default_rng(0))
    for i in range(16):
        for card in ("Y7", "R9", "W"):
            assert worlds.hands[i, 1, card_type(card)] >= 1
        assert worlds.hand_size[i, 1] == 5
    assert unseen.sum() == len(pile) + 5 - 3  # the draw pile and the two cards not shown


def _position(own: list[str], other: list[str], discard: list[str], **extra) -> dict:
    """A 2-player position, seat 0 to play on green; the rest of the deck is the draw pile."""
    rest = DECK_COUNTS.copy()
    for card in [*own, *other, *discard]:
        rest[card_type(card)] -= 1
    pile = [TYPE_NAMES[t] for t in np.repeat(np.arange(NUM_CARD_TYPES), rest)]
    return {
        "num_players": 2,
        "hands": [own, other],
        "draw_pile": pile,
        "discard_pile": discard,
        "colour": "G",
        "direction": 1,
        "current_player": 0,
        "phase": "play",
        **extra,
    }


@pytest.mark.parametrize("own", [["R6", "G6", "G9", "B4", "B4"], ["R6", "G6", "G9", "B4"]])
def test_a_shown_hand_swapped_to_its_challenger_is_its_own_and_searched(own):
    """seven_zero: seat 0 saw seat 1's hand (an innocent challenge), then seat 1 played a 7 and
    swapped hands with it; the engine moves the record with the cards, so the hand shown is now
    the observer's own. The worlds keep it as it is (no pinning of seat 0) and the search plays."""
    rules = UnoRules(seven_zero=True)
    pos = _position(
        own,
        ["R1", "Y4", "B8", "B9", "G4", "G5", "B0", "B3", "Y1"],
        ["G0", "W+4", "G7"],
        revealed={"to": 0, "player": 0, "hand": [*own, "G7"]},
    )
    obs, mask = UnoEngine.from_positions([pos], rules, auto_reset=False).observe()
    worlds, _ = sample_worlds(obs, rules, 4, np.random.default_rng(0))
    assert (worlds.hands[:, 0].sum(axis=1) == len(own)).all()
    np.testing.assert_array_equal(worlds.observe()[0], np.repeat(obs, 4, axis=0))
    action = make_policy("uno", {"name": "search", "worlds": 4}, seed=0, rules={"seven_zero": True})(obs, mask)
    assert mask[0, action[0]]


def test_the_cards_dealt_beside_a_shown_hand_respect_its_players_voids():
    """Seat 1 was shown holding Y5 Y6 B2, has taken two cards since, and was seen without red
    with no card drawn since: no world gives it a red card (only the dealt cards move)."""
    pos = _position(
        ["R3", "G6", "B7", "Y1"],
        ["Y5", "Y6", "B2", "G3", "G4"],
        ["G0", "W+4", "G9"],
        revealed={"to": 0, "player": 1, "hand": ["Y5", "Y6", "B2"]},
        void_draws=[[-1, -1, -1, -1], [0, -1, -1, -1]],
    )
    obs, _ = UnoEngine.from_positions([pos], UnoRules(), auto_reset=False).observe()
    worlds, _ = sample_worlds(obs, UnoRules(), 64, np.random.default_rng(0))
    red = np.asarray(TYPE_COLOUR) == 0
    assert worlds.hands[:, 1][:, red].sum() == 0
    for card in ("Y5", "Y6", "B2"):
        assert (worlds.hands[:, 1, card_type(card)] >= 1).all()


@pytest.mark.parametrize("third", [["R1", "R2"], ["R1", "R2", "G7", "B8", "Y9", "G1"]])
def test_a_void_is_kept_by_swapping_with_another_hand_when_the_draw_pile_is_empty(third):
    """Seat 1 was seen without red and has drawn nothing since; the draw pile is empty, so the
    excess red cards a world deals it go to seat 2 in exchange for cards it may hold, each of
    them as likely (the 15 pairs of 6 cards: about 1/15 of the worlds each)."""
    rest = DECK_COUNTS.copy()
    for card in ("G3", "B4", "Y1", "Y2", *third):
        rest[card_type(card)] -= 1
    pos = {
        "num_players": 3,
        "hands": [["G3", "B4"], ["Y1", "Y2"], third],
        "draw_pile": [],
        "discard_pile": [TYPE_NAMES[t] for t in np.repeat(np.arange(NUM_CARD_TYPES), rest)],
        "colour": "Y",
        "direction": 1,
        "current_player": 0,
        "phase": "play",
        "void_draws": [[-1] * 4, [0, -1, -1, -1], [-1] * 4],
    }
    pos["discard_pile"].remove("Y5")
    pos["discard_pile"].append("Y5")  # on top: yellow in force
    obs, _ = UnoEngine.from_positions([pos], UnoRules(), auto_reset=False).observe()
    worlds, unseen = sample_worlds(obs, UnoRules(), 3000, np.random.default_rng(0))
    red = np.asarray(TYPE_COLOUR) == 0
    assert worlds.hands[:, 1][:, red].sum() == 0 and (worlds.hands[:, 2][:, red].sum(axis=1) > 0).any()
    np.testing.assert_array_equal(worlds.hands[:, 1:].sum(axis=1), np.repeat(unseen, 3000, axis=0))
    if len(third) == 6:
        _, counts = np.unique(worlds.hands[:, 1], axis=0, return_counts=True)
        # 200 each; taking the lowest card types first gave one pair 3x as often
        assert len(counts) == 15 and counts.min() > 150 and counts.max() < 250


_CATEGORY = np.where(np.asarray(TYPE_COLOUR) < 0, 4, np.asarray(TYPE_COLOUR))  # colours 0-3, wilds 4


def _three_seats_with_voids() -> tuple[dict, list[str]]:
    """Seat 1 was seen without red (one unseen card taken since) and yellow (two); seat 2
    without green (one). 17 cards unseen: seat 1's 4, seat 2's 5 and a pile of 8."""
    own, first, second = ["G3", "B4"], ["Y1", "G1", "B1", "B2"], ["R1", "R2", "Y2", "B5", "W"]
    pile = ["R3", "W+4", "G2", "G5", "Y5", "R7", "G8", "B9"]
    rest = DECK_COUNTS.copy()
    for card in own + first + second + pile:
        rest[card_type(card)] -= 1
    discard = [TYPE_NAMES[t] for t in np.repeat(np.arange(NUM_CARD_TYPES), rest)]
    discard.remove("Y6")
    discard.append("Y6")  # on top: yellow in force
    pos = {
        "num_players": 3,
        "hands": [own, first, second],
        "draw_pile": pile,
        "discard_pile": discard,
        "colour": "Y",
        "direction": 1,
        "current_player": 0,
        "phase": "play",
        "void_draws": [[-1] * 4, [1, 2, -1, -1], [-1, -1, 1, -1]],
    }
    return pos, first + second + pile


def _within_bounds(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Category counts ``[M, 5]`` of seats 1 and 2 that keep every void of the position above:
    the cards of the colour and the wilds together at most the unseen cards taken since."""
    return (first[:, 0] + first[:, 4] <= 1) & (first[:, 1] + first[:, 4] <= 2) & (second[:, 2] + second[:, 4] <= 1)


def test_worlds_with_voids_are_drawn_as_rejection_sampling_draws_them():
    """The worlds are the uniform deals that keep every void, wilds counted (a seat seen
    without a colour held no wild either): the same law as dealing at random and keeping the
    deals within the bounds. Compared on each seat's colour counts and the pile's top card;
    the earlier repair (colour alone, excess cards onto the top of the pile) gave seat 1 0.5
    wilds where 0.3 is right."""
    pos, unseen_cards = _three_seats_with_voids()
    obs, _ = UnoEngine.from_positions([pos], UnoRules(), auto_reset=False).observe()
    W = 6000
    worlds, _ = sample_worlds(obs, UnoRules(), W, np.random.default_rng(0))
    onehot = np.eye(5, dtype=np.int64)[_CATEGORY]
    first, second = worlds.hands[:, 1].astype(np.int64) @ onehot, worlds.hands[:, 2].astype(np.int64) @ onehot
    assert _within_bounds(first, second).all()
    cards = np.array([card_type(c) for c in unseen_cards])
    deals = cards[np.argsort(np.random.default_rng(1).random((300_000, cards.size)), axis=1)]
    r_first, r_second = onehot[deals[:, :4]].sum(axis=1), onehot[deals[:, 4:9]].sum(axis=1)
    kept = _within_bounds(r_first, r_second)
    r_first, r_second, r_top = r_first[kept], r_second[kept], _CATEGORY[deals[kept, 9]]
    np.testing.assert_allclose(first.mean(axis=0), r_first.mean(axis=0), atol=0.04)
    np.testing.assert_allclose(second.mean(axis=0), r_second.mean(axis=0), atol=0.04)
    top = np.bincount(_CATEGORY[worlds.draw_pile[:, 0]], minlength=5) / W
    np.testing.assert_allclose(top, np.bincount(r_top, minlength=5) / r_top.size, atol=0.03)

    def law(rows: np.ndarray) -> dict:
        keys, counts = np.unique(rows, axis=0, return_counts=True)
        return {tuple(k): c / rows.shape[0] for k, c in zip(keys, counts, strict=True)}

    ours, theirs = law(np.hstack([first, second])), law(np.hstack([r_first, r_second]))
    distance = 0.5 * sum(abs(ours.get(k, 0) - theirs.get(k, 0)) for k in set(ours) | set(theirs))
    assert distance < 0.15  # over 795 joint counts; a rejection sample of 6,000 is 0.12 from it


def test_worlds_that_single_swaps_cannot_join_are_dealt_at_random_within_the_bounds():
    """Three bounded hands (2, 3 and 1 cards) and a pile of one card none of them may take:
    of the 7! deals of these cards 72 keep every bound, 48 of one kind (A) and 24 of another
    (B), and no swap of two cards leads from one kind to the other. A chain of swaps alone
    stayed in the kind it was repaired into (A 0.61); dealt at random until within the
    bounds, A comes 2/3 of the time."""
    from envs.uno.worlds import _draw_under_voids

    n, N = 4, 12_000
    cards = np.array([card_type(c) for c in ["R1", "Y1", "G1", "B1", "B2", "W", "W+4"]])
    rng = np.random.default_rng(0)
    order = np.argsort(rng.random((N, cards.size)), axis=1)
    hands = np.zeros((N, n, NUM_CARD_TYPES), np.int64)
    hands[:, 0, card_type("R9")] = 1
    for seat, (start, stop) in {1: (0, 2), 2: (2, 5), 3: (5, 6)}.items():
        for k in range(start, stop):
            np.add.at(hands, (np.arange(N), seat, cards[order[:, k]]), 1)
    pile = np.zeros((N, 108), np.int8)
    pile[:, 0] = cards[order[:, 6]]
    limit = np.full((N, n, 4), -1)
    limit[:, 1], limit[:, 2], limit[:, 3] = [3, 2, -1, 0], [2, 1, 1, -1], [0, 0, 1, 1]
    no_pin = np.zeros((N, NUM_CARD_TYPES), np.int64)
    seeds = rng.integers(0, 2**63, size=N).astype(np.uint64)
    _draw_under_voids(hands, pile, np.ones(N, np.int64), limit, np.full(N, -1), no_pin, np.zeros((0, n + 1, 54)), seeds)
    kind_a = (hands[:, 1, card_type("Y1")] == 1) & (hands[:, 1, card_type("G1")] == 1)
    kind_b = (
        (hands[:, 1, card_type("R1")] == 1) & (hands[:, 1, card_type("Y1")] == 1) & (hands[:, 3, card_type("G1")] == 1)
    )
    assert (kind_a | kind_b).all()
    assert abs(kind_a.mean() - 2 / 3) < 0.015  # 3.4 standard errors


def test_search_plays_legal_moves_and_beats_random():
    from tournament.config import TournamentConfig
    from tournament.runner import run_tournament
    from tournament.schedule import build_schedule
    from tournament.stats import summarise

    config = TournamentConfig.from_mapping(
        {
            "game": "uno",
            "players": 2,
            "policies": [{"name": "search", "worlds": 4, "rollout": "random", "confidence": 0}, "random"],
            "seating": "rotations",
            "games": 200,
            "batch": 200,
            "ratings": "none",
        }
    )
    schedule = build_schedule(config)
    summary = summarise(config, schedule, run_tournament(config, schedule))
    row = next(r for r in summary["entrants"] if r["entrant"].startswith("search"))
    assert row["ci_low"] > 0.55, row


def test_bad_search_parameters_are_refused():
    with pytest.raises(ValueError, match="worlds"):
        make_policy("uno", {"name": "search", "worlds": 0})
    with pytest.raises(ValueError, match="rollout"):
        make_policy("uno", {"name": "search", "rollout": "search"})
    with pytest.raises(ValueError, match="unknown"):
        make_policy("uno", {"name": "search", "rollout": "nobody"})
    # a critic trained for wins cannot score stopped rollouts where ended ones pay points
    points = {"reward": "points"}
    for game, value in (("uno", "shipped"), ("uno", "models/uno_2p_ppo.pt"), ("tricks", "models/tricks_ppo.pt")):
        with pytest.raises(ValueError, match="trained with reward: win, but this table pays reward: points"):
            make_policy(game, {"name": "search", "depth": 2, "value": value}, rules=points)
    make_policy("uno", {"name": "search", "depth": 0, "value": "models/uno_2p_ppo.pt"}, rules=points)  # no critic


def _bet_positions(players: int = 2, games: int = 2048, steps: int = 40, honest: bool = False):
    """Observations of random play in phase challenge, and in phase play where a Wild Draw Four
    is legal and would be a bluff: the referee's verdict from the true state (``kernel.bluffs``
    on the engine's hands, as the tournaments' tally reads it), not from the observation.
    ``honest``: positions in phase play where a Wild Draw Four is legal and no bluff instead."""
    from envs.uno import actions
    from envs.uno.kernel import bluffs

    eng = UnoEngine(games, players, UnoRules(), seed=5)
    obs, mask = eng.reset()
    policy = RandomPolicy(seed=5)
    rows_obs, rows_mask = [], []
    w4 = slice(actions.PLAY_WILD_DRAW_FOUR, actions.PLAY_WILD_DRAW_FOUR + 4)
    g = np.arange(games)
    for _ in range(steps):
        bluff = np.zeros(games, bool)
        bluffs(eng.hands, eng.colour, eng.pending_draw, eng.phase, g, eng.current.astype(np.int64), bluff)
        answering = mask[:, actions.CHALLENGE]
        playable = mask[:, w4].any(axis=1) & ~answering
        pick = (playable & ~bluff) if honest else answering | (bluff & playable)
        rows_obs.append(obs[pick])
        rows_mask.append(mask[pick])
        obs, mask, _, _ = eng.step(policy(obs, mask))
    obs, mask = np.concatenate(rows_obs), np.concatenate(rows_mask)
    answering = mask[:, actions.CHALLENGE].nonzero()[0][:48]
    playing = (~mask[:, actions.CHALLENGE]).nonzero()[0][:48]
    rows = np.concatenate([answering, playing])
    return obs[rows], mask[rows]


def test_search_leaves_bets_to_its_prior():
    """``bets: prior``: a challenge is answered as the prior answers it, and a Wild Draw Four
    that would be a bluff is played exactly where the prior plays one; ``bets: search``
    decides both by its worlds (which deal the bluffer's hand at random) and does differ."""
    from envs.uno import actions

    obs, mask = _bet_positions()
    answering = mask[:, actions.CHALLENGE]
    playing = ~answering
    assert answering.sum() >= 10 and playing.sum() >= 10
    w4 = slice(actions.PLAY_WILD_DRAW_FOUR, actions.PLAY_WILD_DRAW_FOUR + 4)

    def plays_w4(a: np.ndarray) -> np.ndarray:
        return (a >= w4.start) & (a < w4.stop)

    # What the search counts as a bet, from the observation alone, is the referee's verdict.
    bets = make_policy("uno", {"name": "search", "depth": 0}, rules={}).bets(obs, mask)
    np.testing.assert_array_equal(bets[playing][:, w4], mask[playing][:, w4])
    assert (
        bets[answering][:, [actions.CHALLENGE, actions.ACCEPT]].all()
        and bets.sum() == 2 * answering.sum() + mask[playing][:, w4].sum()
    )
    honest_obs, honest_mask = _bet_positions(honest=True)  # a legal Wild Draw Four, no bluff
    assert len(honest_obs) >= 10
    assert not make_policy("uno", {"name": "search", "depth": 0}, rules={}).bets(honest_obs, honest_mask).any()

    # A prior that never bluffs and never challenges: the search does neither.
    honest = {"name": "heuristic", "bluff": 0.0, "challenge": "never"}
    prior = make_policy("uno", honest, seed=1)(obs, mask)
    assert (prior[answering] == actions.ACCEPT).all() and not plays_w4(prior[playing]).any()
    spec = {"name": "search", "worlds": 4, "depth": 0, "confidence": 0, "rollout": honest}
    chosen = make_policy("uno", spec, seed=2, rules={})(obs, mask)
    assert (chosen[answering] == actions.ACCEPT).all() and not plays_w4(chosen[playing]).any()
    assert (chosen[playing] != prior[playing]).any()  # the other moves are still searched
    searched = make_policy("uno", {**spec, "bets": "search"}, seed=2, rules={})(obs, mask)
    assert (searched[answering] == actions.CHALLENGE).any()  # random worlds find bluffers
    assert plays_w4(searched[playing]).any()  # and rollouts that never challenge reward a bluff

    # A prior that plays its Wild Draw Four first, bluff or not: the search keeps the bluff.
    bluffer = {"name": "greedy", "bluff": 1.0, "challenge": "never"}
    prior = make_policy("uno", bluffer, seed=1)(obs, mask)
    assert plays_w4(prior[playing]).all()
    chosen = make_policy("uno", {**spec, "rollout": bluffer}, seed=2, rules={})(obs, mask)
    assert plays_w4(chosen[playing]).all()  # its colour: the prior's (tie-break) choice
    with pytest.raises(ValueError, match="bets"):
        make_policy("uno", {**spec, "bets": "never"})


def test_the_search_scores_each_world_for_its_player_to_act():
    """A world need not seat the observer at 0: the result counted is the player to act's."""
    from agents.search import UnoSearchPolicy
    from envs.uno import action_id
    from tests.uno_helpers import engine, position

    pos = position([["B1", "B2"], ["Y1", "Y2"], ["R3"]], top="R5", current=2)  # seat 2 goes out with R3

    class GivenWorld(UnoSearchPolicy):
        def sample_worlds(self, obs, worlds, rng):
            return engine(pos).select(np.zeros(obs.shape[0] * worlds, np.int64))

    obs, mask = engine(pos).observe()
    values = GivenWorld(seed=0, worlds=2, depth=0, value="").action_values(obs, mask)
    assert values[0, action_id("play R3")] == 1.0  # the winner's reward, not seat 0's -1/2


@pytest.mark.parametrize("game", ["uno", "tricks"])
def test_a_decision_is_a_function_of_the_view_and_seed_alone(game):
    """Each decision draws from a stream keyed by its view: the same view gets the same
    action whatever else is in the batch, in any order, under any max_rows, after any other
    calls (one search object playing several seats cannot pass one seat's draws to another)."""
    if game == "uno":
        eng = played_games(4, UnoRules(), steps=9, seed=4, games=48)
    else:
        from envs.uno_tricks import TricksEngine

        eng = TricksEngine(48, seed=4)
        obs, mask = eng.reset()
        for _ in range(9):
            obs, mask, _, _ = eng.step(RandomPolicy(seed=4)(obs, mask))
    obs, mask = eng.observe()
    spec = {"name": "search", "worlds": 4, "depth": 0, "value": ""}
    whole = make_policy(game, spec, seed=5)(obs, mask)
    order = np.random.default_rng(0).permutation(len(obs))
    search = make_policy(game, spec, seed=5)
    search(obs[order[:7]], mask[order[:7]])  # other decisions first
    np.testing.assert_array_equal(search(obs[order], mask[order]), whole[order])
    alone = np.array([search(obs[i : i + 1], mask[i : i + 1])[0] for i in range(0, len(obs), 5)])
    np.testing.assert_array_equal(alone, whole[::5])
    small = make_policy(game, {**spec, "max_rows": 40}, seed=5)
    np.testing.assert_array_equal(small(obs, mask), whole)
    searched = mask.sum(axis=1) > 1
    assert searched.sum() >= 10
    values = [np.nan_to_num(make_policy(game, spec, seed=s).action_values(obs, mask)) for s in (5, 5, 6)]
    np.testing.assert_array_equal(values[0], values[1])
    assert (values[0][searched] != values[2][searched]).any()  # another seed, other worlds
