"""Complete classic UNO games consistent with what one player knows: the worlds a search plays in.

A player sees its own hand, the discard pile's contents, every hand size, the colour,
direction, phase and what a challenge showed it (:mod:`envs.uno.observation`), never the
other hands or the order of the draw pile. :func:`sample_worlds` turns a batch of such
observations into an engine of ``worlds`` complete games per observation: the *unseen*
cards (the deck less the own hand, the discard pile and a revealed hand) are shuffled and
dealt to the other players in their hand sizes, the rest form the draw pile in random
order; a player seen without a colour (the public history, ``void_draws``) held no card of it
and no wild when it drew (a wild always plays), so it holds no more cards of that colour and
wilds together than the unseen cards it took since. The worlds are drawn from the deals
that keep every such bound, each as likely (:func:`_draw_under_voids`: deals at random kept
when within the bounds, or a Markov chain of swaps; tested against that rejection sampling
and against counting the deals). Given a
*belief* (where the observer expects each unseen card type: :mod:`agents.belief`), the
cards are dealt by it instead of evenly (:func:`_deal_expected`), and dealt again where a
void breaks (by the chain, weighed by the belief, where 16 more deals all break one).
Everything the observation fixes is copied; nothing else is read, so two games that look
the same to the player give the same worlds for the same random generator.

Known shortfalls (a review on 2026-12-07, measured in heuristic play):

* ``void_draws`` (:mod:`envs.uno.kernel`) still counts an ordinary drawn card that the
  player did not play, where the rules may show it could not be played; the bound is then
  looser than it could be (never wrong). Changing it changes the observation.
* with a belief, a world whose 17 deals all break a void is left to the chain, which moves the
  unbounded hands only by swaps with the bounded ones;
* after an innocent verdict the shown cards stay pinned to their player, who may have played
  one since and drawn back to the same hand size (1 reveal in 20 to 30).

The voids' bound counted the colour alone, and an excess card was swapped onto the top of
the draw pile, until 2026-12-08: 16% (2 players) to 26% (4 players) of the worlds with a
void broke the bound with wilds, and the top card was of the void colour 0.61 of the time
where the colour was 0.22 of the pile.

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
from envs.rng import random_uniform_one
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


#: Swap proposals per card of the constrained hands after a world honours every void
#: (:func:`_draw_under_voids`); enough, in tests against rejection sampling, for the hands'
#: colour counts to forget the deal they started from.
MIX_SWEEPS = 24

#: Deals again of a belief's world that breaks a void, before the chain takes over from it:
#: the belief's own law, conditioned on the bounds, where one of them keeps every bound.
BELIEF_TRIES = 16

#: Random deals tried, with two or more bounded hands, before the chain takes over: swaps of
#: one card at a time may not join every deal within the bounds there (three bounded hands
#: and a pile none of them may take from split them into groups), so those worlds are dealt
#: at random and kept when within the bounds, and many more times when few cards move.
REJECTION_TRIES = 16
SMALL_SLOTS = 12
SMALL_TRIES = 4096

#: A card's category for the voids: its colour (0-3), or 4 for a wild.
_CATEGORY = np.where(kernel._COLOUR_OF < 0, NUM_COLOURS, kernel._COLOUR_OF).astype(np.int64)


@njit(cache=True)
def _excess(count, limit) -> int:
    """Cards beyond a seat's void bounds: for each colour ``c`` it was seen without
    (``limit[c] >= 0``), its cards of ``c`` plus its wilds beyond ``limit[c]`` (a wild always
    plays, so it held none either when it drew, and took any it holds since)."""
    over = 0
    for c in range(NUM_COLOURS):
        if limit[c] >= 0:
            over += max(0, count[c] + count[NUM_COLOURS] - limit[c])
    return over


@njit(cache=True)
def _swap_change(count, limit, n, ha, hb, ca, cb) -> int:
    """Change of the holders' total excess if holder ``ha`` gives a card of category ``ca``
    for holder ``hb``'s card of category ``cb`` (holder ``n``, the pile, has no bound)."""
    before = after = 0
    if ha < n:
        before += _excess(count[ha], limit[ha])
        count[ha, ca] -= 1
        count[ha, cb] += 1
        after += _excess(count[ha], limit[ha])
        count[ha, cb] -= 1
        count[ha, ca] += 1
    if hb < n:
        before += _excess(count[hb], limit[hb])
        count[hb, cb] -= 1
        count[hb, ca] += 1
        after += _excess(count[hb], limit[hb])
        count[hb, ca] -= 1
        count[hb, cb] += 1
    return after - before


@njit(cache=True)
def _count_slots(card, holder, S, count, sign) -> None:
    """Add (``sign`` 1) or take away (-1) the slots' cards in their hands' category counts."""
    n = count.shape[0] - 1
    for s in range(S):
        if holder[s] < n:
            count[holder[s], _CATEGORY[card[s]]] += sign


@njit(cache=True)
def _total_excess(count, bounds) -> int:
    """The cards beyond the void bounds of seats 1.. (:func:`_excess`), all hands together."""
    over = 0
    for p in range(1, count.shape[0] - 1):
        over += _excess(count[p], bounds[p])
    return over


@njit(cache=True)
def _deal_at_random(card, holder, S, count, bounds, tries, seeds, counter, g) -> int:
    """The slots' cards shuffled at random until every bound holds, at most ``tries`` times:
    a deal within the bounds found so is drawn exactly from the uniform law on them. Slots and
    counts as in :func:`_draw_under_voids`; returns the excess left (0: within the bounds)."""
    over = 1
    for _ in range(tries):
        _count_slots(card, holder, S, count, -1)  # the hands' counts less their dealt cards: the pinned ones
        for i in range(S - 1, 0, -1):
            k = min(int(random_uniform_one(seeds, counter, g) * (i + 1)), i)
            card[i], card[k] = card[k], card[i]
        _count_slots(card, holder, S, count, 1)
        over = _total_excess(count, bounds)
        if over == 0:
            break
    return over


@njit(cache=True)
def _deal_again(card, holder, S, count, bounds, weights, seeds, counter, g) -> int:
    """A belief's world that breaks a void dealt again by the belief (:func:`_deal_expected_one`)
    until one keeps every bound, at most ``BELIEF_TRIES`` times: the belief's own law
    conditioned on the bounds. Slots and counts as in :func:`_draw_under_voids`, which
    shuffles the pile after; returns the excess left (0: a deal within the bounds)."""
    n = count.shape[0] - 1
    to_deal = np.zeros(n, np.int64)
    for s in range(S):
        if holder[s] < n:
            to_deal[holder[s]] += 1
    cards = np.full(DECK_SIZE, -1, np.int64)
    owner = np.empty(DECK_SIZE, np.int64)
    uniforms = np.empty(DECK_SIZE)
    over = 1
    for _ in range(BELIEF_TRIES):
        _count_slots(card, holder, S, count, -1)  # the hands' counts less their dealt cards: the pinned ones
        cards[:S] = card[:S]
        owner[:] = n
        for j in range(DECK_SIZE):
            uniforms[j] = random_uniform_one(seeds, counter, g)
        _deal_expected_one(cards, weights, to_deal, uniforms, owner)
        k = 0  # the slots are seat 1's, seat 2's, ..., then the pile's
        for h in range(1, n + 1):
            for j in range(S):
                if owner[j] == h:
                    card[k] = cards[j]
                    k += 1
        _count_slots(card, holder, S, count, 1)
        over = _total_excess(count, bounds)
        if over == 0:
            break
    return over


@njit(cache=True)
def _draw_under_voids(hands, draw_pile, pile_size, limit, pinned_seat, pinned, weights, seeds) -> None:
    """Public history in the worlds: each world with a void is drawn again from the deals
    that honour every bound (:func:`_excess`), by a Markov chain on its dealt cards.

    The cards dealt to other seats and the draw pile are slots; seat 0 (the observer) and a
    revealed hand's pinned cards (seat ``pinned_seat[g]``, ``pinned[g]``) stay put. With
    two or more bounded hands the deal is kept if within the bounds, else dealt again at
    random (:func:`_deal_at_random`); with a belief, dealt again by it (:func:`_deal_again`):
    a deal found so is exact. Where none is found, and always with one bounded hand: first a
    repair, swaps of a slot of a bounded hand with any slot of another holder, kept when the
    excess does not grow, until none is left; then ``MIX_SWEEPS`` proposals per slot of the
    bounded hands: a slot of those hands and any slot, both chosen by position alone (so the
    proposal is symmetric), swapped when every bound still holds. With one bounded hand the
    swaps join every deal within the bounds, and the chain's stationary law is the uniform one
    on them, or, given ``weights float [N, n + 1, 54]`` (expected copies of each type per
    seat, the pile last: a belief), the law that weighs a deal by the product of its cards'
    weights there (the unbounded hands then move only by swaps with the bounded ones).
    Without a belief the cards of the unbounded hands and the pile are then dealt again among
    themselves at random (their exact law given the bounded hands); with one the pile is
    shuffled. A world no repair brings within the bounds keeps the deal it reached, its
    unbounded cards shuffled as above.
    ``limit[g, p, c]``: ``void_draws``, -1 where no bound; ``seeds``: one stream per world."""
    N, n, T = hands.shape
    card = np.empty(DECK_SIZE, np.int64)
    holder = np.empty(DECK_SIZE, np.int64)
    bounded_slot = np.empty(DECK_SIZE, np.int64)
    count = np.zeros((n + 1, NUM_COLOURS + 1), np.int64)
    no_limit = np.full(NUM_COLOURS, -1, np.int64)
    bounds = np.empty((n + 1, NUM_COLOURS), np.int64)
    counter = np.zeros(N, np.uint64)
    belief = weights.shape[0] > 0
    for g in range(N):
        bounded = np.zeros(n + 1, np.bool_)
        for p in range(1, n):
            for c in range(NUM_COLOURS):
                bounded[p] |= limit[g, p, c] >= 0
        if not bounded.any():
            continue
        S = 0  # the slots: cards free to move, hands first (seat order), then the pile
        count[:] = 0
        for p in range(n + 1):
            bounds[p] = limit[g, p] if p < n and bounded[p] else no_limit
        for p in range(1, n):
            for t in range(T):
                count[p, _CATEGORY[t]] += hands[g, p, t]
                free = hands[g, p, t] - (pinned[g, t] if p == pinned_seat[g] else 0)
                for _ in range(free):
                    card[S] = t
                    holder[S] = p
                    S += 1
        for j in range(pile_size[g]):
            card[S] = draw_pile[g, j]
            holder[S] = n
            S += 1
        V = 0
        for s in range(S):
            if bounded[holder[s]]:
                bounded_slot[V] = s
                V += 1
        if V == 0 or S < 2:
            continue
        over = _total_excess(count, bounds)
        if belief and over == 0:  # a belief's deal within the bounds is kept
            continue
        settled = False
        if belief:  # else dealt again by the belief, up to BELIEF_TRIES times
            over = _deal_again(card, holder, S, count, bounds, weights[g], seeds, counter, g)
            settled = over == 0
        elif bounded.sum() >= 2:  # dealt at random until within the bounds (exact), the chain if never
            tries = SMALL_TRIES if S <= SMALL_SLOTS else REJECTION_TRIES
            over = over if over == 0 else _deal_at_random(card, holder, S, count, bounds, tries, seeds, counter, g)
            settled = over == 0
        for _ in range(100 * S if over > 0 else 0):  # the repair
            if over == 0:
                break
            a = bounded_slot[min(int(random_uniform_one(seeds, counter, g) * V), V - 1)]
            b = min(int(random_uniform_one(seeds, counter, g) * S), S - 1)
            ha, hb = holder[a], holder[b]
            ca, cb = _CATEGORY[card[a]], _CATEGORY[card[b]]
            if ha == hb or ca == cb:
                continue
            change = _swap_change(count, bounds, n, ha, hb, ca, cb)
            if change <= 0:
                count[ha, ca] -= 1
                count[ha, cb] += 1
                count[hb, cb] -= 1
                count[hb, ca] += 1
                card[a], card[b] = card[b], card[a]
                over += change
        if over == 0 and not settled:
            for _ in range(MIX_SWEEPS * V):  # the chain
                a = bounded_slot[min(int(random_uniform_one(seeds, counter, g) * V), V - 1)]
                b = min(int(random_uniform_one(seeds, counter, g) * S), S - 1)
                ha, hb = holder[a], holder[b]
                if ha == hb:
                    continue
                ca, cb = _CATEGORY[card[a]], _CATEGORY[card[b]]
                if ca != cb and _swap_change(count, bounds, n, ha, hb, ca, cb) > 0:
                    continue
                if belief:
                    now = weights[g, ha, card[a]] * weights[g, hb, card[b]]
                    then = weights[g, ha, card[b]] * weights[g, hb, card[a]]
                    if now > 0.0 and not random_uniform_one(seeds, counter, g) * now < then:
                        continue
                count[ha, ca] -= 1
                count[ha, cb] += 1
                count[hb, cb] -= 1
                count[hb, ca] += 1
                card[a], card[b] = card[b], card[a]
        # the unbounded holders' cards (or, with a belief, the pile's) dealt again among themselves
        m = 0
        for s in range(S):
            if not bounded[holder[s]] and not (belief and holder[s] < n):
                bounded_slot[m] = s  # reused: the slots to shuffle
                m += 1
        for i in range(m - 1, 0, -1):
            k = min(int(random_uniform_one(seeds, counter, g) * (i + 1)), i)
            a, b = bounded_slot[i], bounded_slot[k]
            card[a], card[b] = card[b], card[a]
        for p in range(1, n):
            for t in range(T):
                hands[g, p, t] = pinned[g, t] if p == pinned_seat[g] else 0
        for s in range(S):
            if holder[s] < n:
                hands[g, holder[s], card[s]] += 1
            else:
                draw_pile[g, s - (S - pile_size[g])] = card[s]


def _seat_weights(expected: np.ndarray, seat_of_slot: np.ndarray, worlds: int) -> np.ndarray:
    """``float [N, n + 1, 54]``: a belief's expected copies of each type per world seat, the
    pile last (``expected float [B, n, 54]``: the pile in row 0, relative slot ``k`` in row ``k``)."""
    B, n = expected.shape[:2]
    by_seat = np.zeros((B, n + 1, NUM_CARD_TYPES))  # seats 0..n-1, then the pile
    np.put_along_axis(by_seat, seat_of_slot[:, 1:, None], expected[:, 1:], axis=1)
    by_seat[:, n] = expected[:, 0]
    return np.repeat(np.maximum(by_seat, 0.0), worlds, axis=0)


def _belief_owners(
    cards_w: np.ndarray, weights: np.ndarray, deal_w: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """``float [N, 108]``: ``2 * seat`` of the seat each unseen card goes to (``2 * n``: the pile),
    dealt by :func:`_deal_expected` in seat order from ``weights`` (:func:`_seat_weights`;
    only the ratios between holders matter)."""
    owner = np.full(cards_w.shape, deal_w.shape[1], np.int64)
    _deal_expected(cards_w, weights, deal_w, rng.random(cards_w.shape), owner)
    return 2.0 * owner


def _deal(
    cards_w: np.ndarray, keys: np.ndarray, deal_w: np.ndarray, known_w: np.ndarray, pile_w: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``hands int64 [N, n, 54]`` and ``draw_pile int8 [N, 108]``: each world's unseen cards
    (``cards_w``, -1: none) in the order of ``keys``, seat ``s`` taking the next ``deal_w[s]``
    beside its ``known_w`` cards, the next ``pile_w`` forming the draw pile."""
    N, n = deal_w.shape
    keys = np.where(cards_w < 0, 2.0 * n + 2.0, keys)  # unused slots sorted last
    cards_w = np.take_along_axis(cards_w, np.argsort(keys, axis=1), axis=1)
    ends = np.cumsum(deal_w, axis=1)
    position = np.arange(DECK_SIZE)
    owner = (position[None, :, None] >= ends[:, None, :]).sum(axis=2)  # [N, 108]: seat, or n for the pile
    dealt = (owner < n) & (cards_w >= 0)
    hands = known_w.copy()
    g, p = np.nonzero(dealt)
    np.add.at(hands, (g, owner[g, p], cards_w[g, p]), 1)
    draw_pile = np.zeros((N, DECK_SIZE), np.int8)
    take = position[None, :] < pile_w[:, None]
    source = np.minimum(position[None, :] + ends[:, -1:], DECK_SIZE - 1)
    draw_pile[take] = np.take_along_axis(cards_w, source, axis=1)[take]
    return hands, draw_pile


@njit(cache=True)
def _deal_expected(cards, shares, to_deal, uniforms, owner) -> None:
    """Deal each world's unseen ``cards`` (-1: no card) to seats 1..n-1 in order, the rest to
    the pile (``owner`` n): seat ``s`` expects ``avail[t] * share_s / (share_s + later)`` copies
    of type ``t`` (``later``: the shares of the seats after it and the pile), and draws its
    ``to_deal`` cards one at a time, each type weighted by what it still expects of it; when
    it expects nothing more, by its share of each type left (``avail[t] * share_s / (share_s
    + later)`` again), and only when the belief gives it none of the cards left, uniformly
    among them. A belief sure of every hand deals exactly those hands."""
    for g in range(to_deal.shape[0]):
        _deal_expected_one(cards[g], shares[g], to_deal[g], uniforms[g], owner[g])


@njit(cache=True)
def _deal_expected_one(cards, shares, to_deal, uniforms, owner) -> None:
    """:func:`_deal_expected` of one world: ``cards [108]``, ``shares [n + 1, 54]``,
    ``to_deal [n]``, ``uniforms [K]`` (used in turn), ``owner [108]``."""
    n = to_deal.size
    T = shares.shape[1]
    avail = np.zeros(T)
    for j in range(cards.size):
        if cards[j] >= 0:
            avail[cards[j]] += 1.0
    need = np.zeros((n, T), np.int64)
    u = 0
    for s in range(1, n):
        share = np.zeros(T)  # of the copies not yet dealt, the share this seat should get
        for t in range(T):
            later = 0.0
            for h in range(s + 1, n + 1):
                later += shares[h, t]
            total = shares[s, t] + later
            if total > 0.0:
                share[t] = shares[s, t] / total
        expect = avail * share
        for _ in range(to_deal[s]):
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
            x = uniforms[u % uniforms.size] * mass
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
    for j in range(cards.size):
        t = cards[j]
        if t < 0:
            continue
        for s in range(1, n):
            if need[s, t] > 0:
                need[s, t] -= 1
                owner[j] = s
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
    deal_w = np.repeat(to_deal, worlds, axis=0)  # [N, n]
    known_w = np.repeat(known, worlds, axis=0)
    pile_w = np.repeat(pile_size, worlds)
    # Public history per seat: -1 where no colour was seen missing (decode gives 0 and 0 there).
    void = np.where(view["void_colours"] > 0, view["void_draws"], -1)  # [B, slot, colour]
    void_w = np.repeat(
        np.take_along_axis(void[:, :n], np.argsort(seat_of_slot, axis=1)[:, :, None], axis=1), worlds, axis=0
    )
    keys = rng.random(cards_w.shape)
    weights = np.zeros((0, n + 1, NUM_CARD_TYPES))  # no belief: every deal as likely
    if beliefs is not None:  # cards grouped by the seat a belief deals them to, in seat order
        weights = _seat_weights(expected, seat_of_slot, worlds)
        keys += _belief_owners(cards_w, weights, deal_w, rng)
    hands, draw_pile = _deal(cards_w, keys, deal_w, known_w, pile_w)

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

    pinned_seat = np.where(has_reveal, revealed_seat, -1)
    pinned_w = np.repeat(np.where(has_reveal[:, None], pinned, 0), worlds, axis=0)
    game_seeds = rng.integers(0, 2**63, size=N, dtype=np.int64).astype(np.uint64)
    void_seeds = rng.integers(0, 2**63, size=N, dtype=np.int64).astype(
        np.uint64
    )  # drawn last: worlds without a void are as before
    _draw_under_voids(hands, draw_pile, pile_w, void_w, np.repeat(pinned_seat, worlds), pinned_w, weights, void_seeds)

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
