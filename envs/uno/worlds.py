"""Complete classic UNO games consistent with what one player knows: the worlds a search plays in.

A player sees its own hand, the discard pile's contents, every hand size, the colour,
direction, phase and what a challenge showed it (:mod:`envs.uno.observation`), never the
other hands or the order of the draw pile. :func:`sample_worlds` turns a batch of such
observations into an engine of ``worlds`` complete games per observation: the *unseen*
cards (the deck less the own hand, the discard pile and a revealed hand) are shuffled and
dealt to the other players in their hand sizes, the rest form the draw pile in random
order; a player seen without a colour (the public history, ``void_draws``) gets no more
cards of it than the unseen cards it took since (excess ones are swapped with the pile's, or
with another hand's where the pile has none that fits). Given a
*belief* (where the observer expects each unseen card type: :mod:`agents.belief`), the
cards are dealt by it instead of evenly (:func:`_deal_expected`), the voids still honoured.
Everything the observation fixes is copied; nothing else is read, so two games that look
the same to the player give the same worlds for the same random generator.

Known shortfalls of the voids and the reveal (a review on 2026-12-07, measured in heuristic
play; not fixed yet, since every search figure in the docs would move with them):

* the bound ignores wilds: a seat seen without a colour held no wild either (a wild always
  plays), so its cards of that colour *and* its wilds number at most ``void_draws``; the
  worlds cap the colour alone, and 16% (2 players) to 26% (4 players) of the worlds with a
  void break the tighter bound, which the true hands never do;
* the swaps are a repair, not a draw from the worlds that honour the bound: an excess card
  takes the place of the first pile card the seat may hold and the pile is not shuffled
  again, so the void colour gathers on top of the draw pile (its top card is of that colour
  0.61 of the time where the colour is 0.22 of the pile); the card moved out is the highest
  type of the colour held; and cutting a hand back to the cap piles the worlds up at the
  cap instead of weighing the hands under it (at a limit of 1 the worlds hold 0.52 cards of
  the void colour on average, the true hands 0.026-0.042, the rest of that gap from
  ``void_draws`` itself, which still counts a drawn card everyone saw was not playable);
* after an innocent verdict the shown cards stay pinned to their player, who may have played
  one since and drawn back to the same hand size (1 reveal in 20 to 30).

Seats of a world: the observer sits at seat 0 and relative slot ``k`` of its observation
(``k`` players on in the direction of play) at seat ``direction * k mod n``. The discard
pile keeps its cards in type order under its top card (only its contents are seen; the
order matters only for a later reshuffle, which shuffles it anyway). A world is a game of
one hand (``match`` off): searches play to the end of the hand.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from envs.cards import DECK, DECK_SIZE, NUM_CARD_TYPES, NUM_COLOURS
from envs.uno import kernel
from envs.uno.engine import UnoEngine
from envs.uno.observation import CHALLENGE, UNO, decode
from envs.uno.rules import UnoRules

#: Copies of each card type in the 108-card deck.
DECK_COUNTS = np.bincount(DECK, minlength=NUM_CARD_TYPES).astype(np.int64)


def unseen_counts(view: dict[str, np.ndarray]) -> np.ndarray:
    """``int64 [B, 54]``: copies of each type the observer has not seen (other hands and the
    draw pile), from :func:`envs.uno.observation.decode` output."""
    unseen = DECK_COUNTS - view["hand"] - view["discard_counts"]
    if (unseen < 0).any():
        raise ValueError("an observation holds more copies of a card than the deck has")
    return unseen


def pinned_reveal(view: dict[str, np.ndarray], unseen: np.ndarray, size: np.ndarray) -> np.ndarray:
    """``int64 [B, 54]``: the cards of a revealed hand taken as still held by its player.

    A challenge shows the Wild Draw Four's player's hand to the challenger until the
    challenger's next decision. A guilty player then draws 4 and the challenger acts at
    once, so every shown card is still held. After an innocent verdict the challenger
    loses its turn and the shown player may have played since: the shown cards are kept
    as far as the cards seen since allow (no more copies than are unseen), and dropped
    altogether when more remain than the player holds. ``size``: that player's hand size.
    """
    pinned = np.minimum(view["revealed_hand"], unseen)
    pinned[pinned.sum(axis=1) > size] = 0
    return pinned


@njit(cache=True)
def _guilt(hands: np.ndarray, bluffer: np.ndarray, colour: np.ndarray, out: np.ndarray) -> None:
    """``out[g]``: the Wild Draw Four's player held the colour in force before it (the rule:
    ``kernel.holds_colour``); games with no challenge pending (colour -1) stay False."""
    for g in range(hands.shape[0]):
        if colour[g] >= 0:
            out[g] = kernel.holds_colour(hands[g, bluffer[g]], colour[g])


#: Random numbers per world for the swaps between hands (:func:`_allowed_swap`), used in turn
#: (a world needing more swaps than this, which takes a long run of draws, reuses them).
SWAP_DRAWS = 8


@njit(cache=True)
def _respect_voids(hands, draw_pile, pile_size, limit, pinned_seat, pinned, swap_u) -> None:
    """Public history in the worlds: a seat seen without colour ``c`` holds at most
    ``limit[g, p, c]`` cards of it (``void_draws``, -1: no limit). Excess cards are swapped
    for the first cards of the (shuffled) draw pile the seat may hold; where the pile has
    none, with a card of another seat's hand that may take the excess card in exchange
    (:func:`_allowed_swap`, drawn with ``swap_u[g]``); where no seat has one either, the hand
    is left as dealt. Seat 0 (the observer) is known; of a revealed hand (seat
    ``pinned_seat[g]``) only the cards dealt beyond the pinned ones (``pinned[g]``) move."""
    for g in range(hands.shape[0]):
        swaps = 0
        for p in range(1, hands.shape[1]):
            for c in range(NUM_COLOURS):
                if limit[g, p, c] < 0:
                    continue
                while True:
                    held, excess = 0, -1
                    for t in range(NUM_CARD_TYPES):
                        if hands[g, p, t] > 0 and kernel._COLOUR_OF[t] == c:
                            held += hands[g, p, t]
                            if hands[g, p, t] > (pinned[g, t] if p == pinned_seat[g] else 0):
                                excess = t  # a dealt card, free to move
                    if held <= limit[g, p, c] or excess < 0:
                        break
                    j = _allowed_pile_card(hands[g, p], draw_pile[g], pile_size[g], limit[g, p], c)
                    if j >= 0:
                        hands[g, p, excess] -= 1
                        hands[g, p, draw_pile[g, j]] += 1
                        draw_pile[g, j] = excess
                        continue
                    u = swap_u[g, swaps % swap_u.shape[1]]
                    q, t = _allowed_swap(hands[g], p, excess, limit[g], pinned_seat[g], pinned[g], u)
                    if q < 0:
                        break
                    swaps += 1
                    hands[g, p, excess] -= 1
                    hands[g, p, t] += 1
                    hands[g, q, t] -= 1
                    hands[g, q, excess] += 1


@njit(cache=True)
def _colour_held(hand, colour) -> int:
    held = 0
    for t in range(NUM_CARD_TYPES):
        if kernel._COLOUR_OF[t] == colour:
            held += hand[t]
    return held


@njit(cache=True)
def _may_take(hand, limit, colour) -> bool:
    """A hand may take one more card of ``colour`` (-1: a wild): no limit on it, or under it."""
    return colour < 0 or limit[colour] < 0 or _colour_held(hand, colour) < limit[colour]


@njit(cache=True)
def _swap_candidates(hands, p, excess, limit, pinned_seat, pinned, q, t) -> int:
    """Copies of type ``t`` in seat ``q``'s hand that may go to seat ``p`` for its ``excess``."""
    bad = kernel._COLOUR_OF[excess]
    colour = kernel._COLOUR_OF[t]
    if q == p or colour == bad or not _may_take(hands[q], limit[q], bad) or not _may_take(hands[p], limit[p], colour):
        return 0
    return max(0, hands[q, t] - (pinned[t] if q == pinned_seat else 0))  # a pinned card stays


@njit(cache=True)
def _allowed_swap(hands, p, excess, limit, pinned_seat, pinned, u) -> tuple[int, int]:
    """``(q, t)``: a dealt card of type ``t`` in another seat ``q``'s hand (not the observer's,
    seat 0) that seat ``p`` may take in place of its card ``excess`` while ``q`` may take
    ``excess``, every such card copy as likely (``u``: a uniform draw in [0, 1));
    ``(-1, -1)`` if there is none."""
    total = 0
    for q in range(1, hands.shape[0]):
        for t in range(NUM_CARD_TYPES):
            total += _swap_candidates(hands, p, excess, limit, pinned_seat, pinned, q, t)
    if total == 0:
        return -1, -1
    pick = min(int(u * total), total - 1)
    for q in range(1, hands.shape[0]):
        for t in range(NUM_CARD_TYPES):
            pick -= _swap_candidates(hands, p, excess, limit, pinned_seat, pinned, q, t)
            if pick < 0:
                return q, t
    return -1, -1


@njit(cache=True)
def _allowed_pile_card(hand, pile, size, limit, not_colour) -> int:
    """The first pile card a hand may take in place of one of ``not_colour``: a wild, or a
    colour under its limit (or with none); -1 if there is none."""
    for j in range(size):
        colour = kernel._COLOUR_OF[pile[j]]
        if colour < 0:
            return j
        if colour != not_colour and _may_take(hand, limit, colour):
            return j
    return -1


def _belief_owners(
    cards_w: np.ndarray,
    beliefs: np.ndarray,
    seat_of_slot: np.ndarray,
    to_deal: np.ndarray,
    worlds: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """``float [N, 108]``: ``2 * seat`` of the seat each unseen card goes to (``2 * n``: the pile).

    ``beliefs float [B, n, 54]``: for each card type, the copies of it still to deal expected
    in the draw pile (row 0) and in the hand of relative slot ``k`` (row ``k``); only the
    ratios between holders matter. :func:`_deal_expected` deals the seats in order."""
    B = beliefs.shape[0]
    n = beliefs.shape[1]
    by_seat = np.zeros((B, n + 1, NUM_CARD_TYPES))  # seats 0..n-1, then the pile
    np.put_along_axis(by_seat, seat_of_slot[:, 1:, None], beliefs[:, 1:], axis=1)
    by_seat[:, n] = beliefs[:, 0]
    by_seat = np.repeat(np.maximum(by_seat, 0.0), worlds, axis=0)
    owner = np.full(cards_w.shape, n, np.int64)
    _deal_expected(cards_w, by_seat, np.repeat(to_deal, worlds, axis=0), rng.random(cards_w.shape), owner)
    return 2.0 * owner


@njit(cache=True)
def _deal_expected(cards, shares, to_deal, uniforms, owner) -> None:
    """Deal each world's unseen ``cards`` (-1: no card) to seats 1..n-1 in order, the rest to
    the pile (``owner`` n): seat ``s`` expects ``avail[t] * share_s / (share_s + later)`` copies
    of type ``t`` (``later``: the shares of the seats after it and the pile), and draws its
    ``to_deal`` cards one at a time, each type weighted by what it still expects of it; when
    it expects nothing more, by its share of each type left (``avail[t] * share_s / (share_s
    + later)`` again), and only when the belief gives it none of the cards left, uniformly
    among them. A belief sure of every hand deals exactly those hands."""
    N, n = to_deal.shape
    T = shares.shape[2]
    for g in range(N):
        avail = np.zeros(T)
        for j in range(cards.shape[1]):
            if cards[g, j] >= 0:
                avail[cards[g, j]] += 1.0
        need = np.zeros((n, T), np.int64)
        u = 0
        for s in range(1, n):
            share = np.zeros(T)  # of the copies not yet dealt, the share this seat should get
            for t in range(T):
                later = 0.0
                for h in range(s + 1, n + 1):
                    later += shares[g, h, t]
                total = shares[g, s, t] + later
                if total > 0.0:
                    share[t] = shares[g, s, t] / total
            expect = avail * share
            for _ in range(to_deal[g, s]):
                weight = np.zeros(T)
                mass = 0.0
                for t in range(T):
                    if avail[t] > 0.0:
                        weight[t] = max(expect[t] - need[s, t], 0.0)
                        mass += weight[t]
                if mass <= 1e-9:  # nothing more expected: the seat's share of what is left
                    for t in range(T):
                        weight[t] = avail[t] * share[t]
                        mass += weight[t]
                if mass <= 1e-9:  # the belief gives it none of what is left
                    mass = 0.0
                    for t in range(T):
                        weight[t] = avail[t]
                        mass += weight[t]
                if mass <= 0.0:
                    break
                x = uniforms[g, u % uniforms.shape[1]] * mass
                u += 1
                pick = -1
                for t in range(T):
                    if weight[t] > 0.0:
                        pick = t
                        x -= weight[t]
                        if x < 0.0:
                            break
                need[s, pick] += 1
                avail[pick] -= 1.0
        for j in range(cards.shape[1]):
            t = cards[g, j]
            if t < 0:
                continue
            for s in range(1, n):
                if need[s, t] > 0:
                    need[s, t] -= 1
                    owner[g, j] = s
                    break


def world_rules(rules: UnoRules) -> UnoRules:
    """The rules of a world: the table's, for one hand."""
    return dataclasses.replace(rules, match=False)


def sample_worlds(
    obs: np.ndarray,
    rules: UnoRules,
    worlds: int,
    rng: np.random.Generator,
    beliefs: np.ndarray | None = None,
) -> tuple[UnoEngine, np.ndarray]:
    """``worlds`` random complete games per observation, as one engine (``auto_reset`` off).

    Returns the engine (game ``b * worlds + w`` is world ``w`` of observation ``b``; the
    observer sits at seat 0 and is to act) and ``unseen int64 [B, 54]``, the cards dealt
    at random (to other hands and the pile). The observation must be of the player to act.
    ``beliefs float [B, n, 54]`` (optional): for each card type the share of its unseen copies
    in the draw pile (row 0) and in the hand ``k`` seats on in the direction of play (row
    ``k``); without it every holder gets an even share (its share of the unseen cards).
    """
    view = decode(obs, rules.target_score)
    B = obs.shape[0]
    n = int(view["num_players"][0])
    if (view["num_players"] != n).any():
        raise ValueError("sample_worlds takes observations of one table size")
    rules.check_players(n)
    if beliefs is not None and np.shape(beliefs) != (B, n, NUM_CARD_TYPES):
        raise ValueError(
            f"beliefs must be shaped [{B}, {n}, {NUM_CARD_TYPES}] (observations, players, card types), "
            f"got {list(np.shape(beliefs))}"
        )
    if beliefs is not None and not (np.isfinite(beliefs).all() and (np.asarray(beliefs) >= 0).all()):
        raise ValueError("beliefs must be finite shares >= 0")
    N = B * worlds
    direction = view["direction"]
    slots = np.arange(n)
    seat_of_slot = kernel.seats_after(0, slots, direction[:, None], n)  # [B, n]
    unseen = unseen_counts(view)

    # Hand sizes per seat; a revealed hand is placed first and only the rest is dealt.
    sizes = np.zeros((B, n), np.int64)
    np.put_along_axis(sizes, seat_of_slot, view["hand_sizes"][:, :n], axis=1)
    known = np.zeros((B, n, NUM_CARD_TYPES), np.int64)
    known[:, 0] = view["hand"]
    revealed_slot = view["revealed_seat"]
    shown = revealed_slot >= 0  # a hand shown to the observer (the world's state shows it too)
    # ...and pinned, unless it is the observer's own: under seven_zero the shown hand can reach
    # its challenger with a swap (the engine moves the record with the cards), and that is known
    has_reveal = revealed_slot > 0
    revealed_seat = np.where(shown, seat_of_slot[np.arange(B), np.maximum(revealed_slot, 0)], -1)
    rows = has_reveal.nonzero()[0]
    pinned = pinned_reveal(view, unseen, sizes[np.arange(B), np.maximum(revealed_seat, 0)])
    known[rows, revealed_seat[rows]] = pinned[rows]
    if beliefs is not None:  # expected copies per holder; a revealed hand's pinned cards are placed, not dealt
        expected = np.asarray(beliefs, np.float64) * unseen[:, None, :]
        expected[rows, revealed_slot[rows]] -= pinned[rows]
        expected = np.maximum(expected, 0.0)
    unseen = unseen - np.where(has_reveal[:, None], pinned, 0)
    to_deal = sizes - known.sum(axis=2)
    to_deal[:, 0] = 0
    pile_size = view["draw_pile_size"]
    if (to_deal < 0).any() or (to_deal.sum(axis=1) + pile_size != unseen.sum(axis=1)).any():
        raise ValueError("hand sizes and pile sizes do not add up to the unseen cards")

    # Shuffle each world's unseen cards: random keys, unused slots (-1) sorted last.
    card_list = np.full((B, DECK_SIZE), -1, np.int64)
    counts_flat = unseen.ravel()
    types = np.tile(np.arange(NUM_CARD_TYPES), B)
    row_of = np.repeat(np.arange(B), NUM_CARD_TYPES)
    cards = np.repeat(types, counts_flat)
    owners = np.repeat(row_of, counts_flat)
    starts = np.concatenate(([0], np.cumsum(unseen.sum(axis=1))[:-1]))
    card_list[owners, np.arange(cards.size) - starts[owners]] = cards
    cards_w = np.repeat(card_list, worlds, axis=0)  # [N, 108]
    keys = rng.random(cards_w.shape)
    if beliefs is not None:  # cards grouped by the seat a belief deals them to, in seat order
        keys += _belief_owners(cards_w, expected, seat_of_slot, to_deal, worlds, rng)
    keys[cards_w < 0] = 2.0 * n + 2.0
    cards_w = np.take_along_axis(cards_w, np.argsort(keys, axis=1), axis=1)

    # Deal: seat s takes the next to_deal[s] shuffled cards, the rest is the draw pile.
    deal_w = np.repeat(to_deal, worlds, axis=0)  # [N, n]
    ends = np.cumsum(deal_w, axis=1)
    position = np.arange(DECK_SIZE)
    owner = (position[None, :, None] >= ends[:, None, :]).sum(axis=2)  # [N, 108]: seat, or n for the pile
    dealt = (owner < n) & (cards_w >= 0)
    hands = np.repeat(known, worlds, axis=0)
    g, p = np.nonzero(dealt)
    np.add.at(hands, (g, owner[g, p], cards_w[g, p]), 1)
    total_dealt = ends[:, -1]
    draw_pile = np.zeros((N, DECK_SIZE), np.int8)
    pile_w = np.repeat(pile_size, worlds)
    take = position[None, :] < pile_w[:, None]
    source = np.minimum(position[None, :] + total_dealt[:, None], DECK_SIZE - 1)
    draw_pile[take] = np.take_along_axis(cards_w, source, axis=1)[take]

    # The discard pile: its cards in type order, one copy of the top card last.
    top = view["top_card"]
    rest = view["discard_counts"].copy()
    rest[np.arange(B), top] -= 1
    discard = np.zeros((B, DECK_SIZE), np.int8)
    lengths = rest.sum(axis=1)
    d_cards = np.repeat(types, rest.ravel())
    d_rows = np.repeat(row_of, rest.ravel())
    d_starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    discard[d_rows, np.arange(d_cards.size) - d_starts[d_rows]] = d_cards
    discard[np.arange(B), lengths] = top

    # Public history per seat: -1 where no colour was seen missing (decode gives 0 and 0 there).
    void = np.where(view["void_colours"] > 0, view["void_draws"], -1)  # [B, slot, colour]
    void_w = np.repeat(
        np.take_along_axis(void[:, :n], np.argsort(seat_of_slot, axis=1)[:, :, None], axis=1), worlds, axis=0
    )
    pinned_seat = np.where(has_reveal, revealed_seat, -1)
    pinned_w = np.repeat(np.where(has_reveal[:, None], pinned, 0), worlds, axis=0)
    game_seeds = rng.integers(0, 2**63, size=N, dtype=np.int64).astype(np.uint64)
    swap_u = rng.random((N, SWAP_DRAWS))  # drawn last: the rest of a world is as without them
    _respect_voids(hands, draw_pile, pile_w, void_w, np.repeat(pinned_seat, worlds), pinned_w, swap_u)

    eng = UnoEngine(N, n, world_rules(rules), seed=0, auto_reset=False)
    state = {k: np.zeros_like(v) for k, v in _state_template(eng).items()}
    rep = lambda a: np.repeat(a, worlds, axis=0)  # noqa: E731
    per_seat = lambda values: rep(np.take_along_axis(values[:, :n], np.argsort(seat_of_slot, axis=1), axis=1))  # noqa: E731
    state["hands"][:] = hands
    state["hand_size"][:] = rep(sizes)
    state["draw_pile"][:] = draw_pile
    state["draw_end"][:] = pile_w
    state["discard"][:] = rep(discard)
    state["discard_len"][:] = rep(lengths + 1)
    state["discard_counts"][:] = rep(view["discard_counts"])
    state["top"][:] = rep(top)
    state["colour"][:] = rep(view["colour"])
    state["direction"][:] = rep(direction)
    state["current"][:] = 0
    state["phase"][:] = rep(view["phase"])
    state["pending_draw"][:] = rep(view["pending_draw"])
    state["drawn_card"][:] = rep(view["drawn_card"])
    state["challenge_colour"][:] = rep(view["challenge_colour"])
    state["uno_declared"][:] = per_seat(view["uno_declared"]).astype(bool)
    state["scores"][:] = per_seat(view["scores"])
    state["revealed_hand"][:] = 0  # what the observer (seat 0) was shown; the others' sights are unknown
    state["revealed_hand"][:, 0] = rep(view["revealed_hand"])
    state["revealed_from"][:] = -1
    state["revealed_from"][:, 0] = rep(revealed_seat)
    state["hand_winner"][:] = -1
    state["void_draws"][:] = void_w
    chosen = np.where(view["chosen_colours"].any(axis=-1), view["chosen_colours"].argmax(axis=-1), -1)  # [B, slot]
    state["chosen_colour"][:] = per_seat(chosen)
    state["game_seeds"][:] = game_seeds
    # The Wild Draw Four's player: the seat before the observer in phase challenge, the
    # observer itself in phase uno (its own second-to-last card, the answer comes next).
    phase = rep(view["phase"])
    bluffer = kernel.pending_bluffers(0, phase, rep(direction), n)
    guilty = np.zeros(N, bool)
    pending = np.where((phase == CHALLENGE) | (phase == UNO), state["challenge_colour"], -1)
    _guilt(state["hands"], bluffer, pending, guilty)
    state["challenge_guilty"][:] = guilty
    eng.load_state_arrays(state)
    return eng, unseen


def _state_template(eng: UnoEngine) -> dict[str, np.ndarray]:
    """Zero-filled arrays of every state field of ``eng`` (shapes and dtypes)."""
    return {path: np.zeros_like(eng._state_field(path)) for path in eng._STREAM_FIELDS + eng.state_fields}
