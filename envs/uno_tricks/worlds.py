"""Complete trick games consistent with what one player knows: the worlds a search plays in.

A player sees its own hand, this trick's table, both teams' points, the numbers in the
points piles, every hand size and special count and both pile sizes
(:mod:`envs.uno_tricks.observation`), never the other hands or the order of the piles.
:func:`sample_worlds` turns a batch of such observations into an engine of ``worlds``
complete games per observation: the *unseen* cards are shuffled and dealt to the other
players in their sizes, the rest form the piles in random order. Everything the
observation fixes is copied and the summaries (hand counts, table values, points) are
recomputed from the cards by the kernel; nothing else is read, so two games that look the
same to the player give the same worlds for the same random generator.

The unseen cards, exactly: every card of the game is always in a hand, a pile, on the
table or (number cards) in a points pile, and played specials go back under the special
pile. So the unseen number cards are the deck's (four 0s, eight of each 1-9) less the own
hand, the table's laid and Wild-added cards and ``numbers_out``; the unseen specials are
the deck's (eight Skip, Reverse and +2, four Wild and +4) less the own hand and the
table's. The multiset is exact; its *placement* is not the player's full knowledge: the
observation keeps no history, so cards the player saw go under a pile (specials of earlier
tricks, the cards of a tied or annulled trick and forced duplicates, cards put back after
a +2/+4) are dealt as freely as the rest, to the other hands too, and what the other
players' play revealed of their hands is not used. One inference from this trick's table is
(:func:`allowed_numbers`): a forced duplicate laid without a lone +2/+4 says its layer holds only
numbers already laid this trick, so that seat is dealt only those, when no Reverse is on
the table (a swap may have moved the card away from its layer, whose seat the observation
does not keep). Worlds are uniform over the placements of the unseen cards in the sizes
the observation gives that keep this rule, not the posterior given the game's history
(nor given every inference the observation allows).

What the observation does not fix, chosen so it cannot change the rest of the game:

* colours (never observed, never played: ``remove_first`` takes any copy, values are
  numbers): the ``k``-th copy of a number (kind) in the world's card order is the deck's
  ``k``-th card of that number, so a world holds exactly the deck, type by type;
* the split of ``numbers_out`` into the two points piles: one whose values add up to the
  two teams' points (play adds to the piles and reads only ``points``);
* ``table_laid_by`` (a swap's history): each table card laid by its seat. It only orders
  the cards of an untaken trick going under the number pile, whose order is random here.

Seats of a world: the observer sits at seat 0 and relative slot ``k`` of its observation
at seat ``k`` (the partner at seat 2), so team A of a world is the observer's team.
"""

from __future__ import annotations

import numpy as np

from envs.uno_tricks.engine import TricksEngine
from envs.uno_tricks.kernel import NUMBER_COPIES, NUMBER_DECK, NUMBER_OF, SPECIAL_COPIES, SPECIAL_DECK, SPECIAL_OF
from envs.uno_tricks.observation import LAY, SPECIAL_NAMES, decode
from envs.uno_tricks.rules import NUM_PLAYERS, TricksRules

#: The deck's cards sorted by number (kind), stably: the colour of each copy in a world.
_NUMBER_TYPES = NUMBER_DECK[np.argsort(NUMBER_OF[NUMBER_DECK], kind="stable")].astype(np.int64)
_SPECIAL_TYPES = SPECIAL_DECK[np.argsort(SPECIAL_OF[SPECIAL_DECK], kind="stable")].astype(np.int64)

# Where a card of a world lies: a hand (seat 0-3), the pile, a points pile (team 0-1),
# a table seat's laid card (or, for specials, the specials laid with it), a Wild's card.
PILE, POINTS, TABLE, ADDED = 4, 5, 7, 11
PLACES = 15


def unseen_counts(view: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``int64 [B, 10]`` and ``[B, 5]``: the number cards per number and the specials per kind
    the observer cannot see (other hands and the piles), from :func:`decode` output."""
    numbers = NUMBER_COPIES - view["numbers"] - view["numbers_out"]
    for name in ("table_number", "table_added"):
        numbers -= _one_hots(view[name]).sum(axis=1)
    specials = SPECIAL_COPIES - view["specials"] - view["table_specials"].sum(axis=1)
    if (numbers < 0).any() or (specials < 0).any():
        raise ValueError("an observation holds more copies of a card than the deck has")
    return numbers, specials


def split_points(out: np.ndarray, own_points: np.ndarray) -> np.ndarray:
    """``int64 [B, 10]``: the numbers of the own team's points pile, a part of ``out`` (both
    piles' numbers together) whose values add up to ``own_points`` (a subset sum: the
    observation keeps only the totals; the largest share of each high number goes first)."""
    B = out.shape[0]
    ar = np.arange(B)
    top = int((out * np.arange(10)).sum(axis=1).max()) + 1
    reach = np.zeros((11, B, top), bool)  # reach[n, b, t]: numbers below n can make t
    reach[0, :, 0] = True
    for n in range(10):
        for k in range(int(out[:, n].max()) + 1):
            shift = n * k
            if shift < top:
                reach[n + 1, :, shift:] |= reach[n, :, : top - shift] & (k <= out[:, n])[:, None]
    target = own_points.astype(np.int64).copy()
    if (target >= top).any() or (target < 0).any() or not reach[10, ar, np.clip(target, 0, top - 1)].all():
        raise ValueError("the team points cannot be made of the numbers in the points piles")
    own = np.zeros((B, 10), np.int64)
    for n in range(9, -1, -1):
        chosen = np.zeros(B, bool)
        for k in range(int(out[:, n].max()), -1, -1):
            rest = target - n * k
            ok = ~chosen & (k <= out[:, n]) & (rest >= 0) & reach[n, ar, np.clip(rest, 0, top - 1)]
            own[ok, n] = k
            chosen |= ok
        target -= n * own[:, n]
    return own


def _one_hots(values: np.ndarray, size: int = 10) -> np.ndarray:
    """``[B, S, size]`` counts of per-seat values ``[B, S]`` (-1: none)."""
    return (values[..., None] == np.arange(size)).astype(np.int64)


def allowed_numbers(view: dict[str, np.ndarray]) -> np.ndarray:
    """``bool [B, 4, 10]``: the numbers each relative seat's hand may hold by this trick's table.

    A player lays a forced duplicate only when every number it holds is already on the table
    (the rules: ``docs/tricks.md``), and its hand changes within the trick only by a +2/+4
    exchange (a lone +2 or +4; the pair exchanges nothing). So a seat whose card is a forced
    duplicate laid without such an exchange holds only
    numbers laid before it in this trick's turn order (from the leader). When a Reverse is on
    the table a swap may have moved cards between seats (the forced flag travels with its
    card), so which seat laid what is not known and every seat may hold every number.
    """
    B = view["numbers"].shape[0]
    allowed = np.ones((B, NUM_PLAYERS, 10), bool)
    specials = view["table_specials"]  # [B, 4, 5]
    exchanged = (specials[..., SPECIAL_NAMES.index("+2")] + specials[..., SPECIAL_NAMES.index("+4")]) == 1
    no_swap = specials[..., SPECIAL_NAMES.index("reverse")].sum(axis=1) == 0
    laid = view["table_number"] >= 0
    forced = laid & view["table_forced"].astype(bool) & ~exchanged & no_swap[:, None]
    turn = (np.arange(NUM_PLAYERS)[None, :] - view["leader"][:, None]) % NUM_PLAYERS  # [B, 4]
    before = laid[:, None, :] & (turn[:, None, :] < turn[:, :, None])  # [B, seat, other seat]
    on_table = (before[..., None] & (_one_hots(view["table_number"])[:, None] > 0)).any(axis=2)  # [B, seat, 10]
    return np.where(forced[..., None], on_table, allowed)


def _cards(
    known: np.ndarray,
    unseen: np.ndarray,
    sizes: np.ndarray,
    worlds: int,
    rng: np.random.Generator,
    allowed: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Every number card (or every special) of every world: ``values, places int64 [N, D]``.

    ``known [B, PLACES, K]``: the observation's cards by place; ``unseen [B, K]`` (the rest
    of the deck's ``D`` cards) is shuffled per world and dealt ``sizes[:, k]`` to seat ``k``
    (1-3), the rest to the pile, which thus is each row's tail, top first. ``allowed [B, 4,
    K]`` (:func:`allowed_numbers`) restricts a seat to some kinds: such a seat is dealt
    first, its cards drawn uniformly among the unseen cards of its kinds (with keys of their
    own: reusing the shuffle's would bias the rest), then the rest are shuffled as before. The
    restricted kinds of one table are nested (numbers laid before a seat), so dealing the
    narrowest first keeps every deal that honours them equally likely. Without a restriction
    the deal is the one the shuffle alone gives.
    """
    B, _, K = known.shape
    D = int(known[0].sum() + unseen[0].sum())  # the same in every row: the deck's
    kinds, places = np.meshgrid(np.arange(K), np.arange(PLACES))
    known_values, known_places, known_len = _listing(known.reshape(B, -1), kinds.ravel(), places.ravel(), D)
    unseen_values, _, _ = _listing(unseen, np.arange(K), np.zeros(K, np.int64), D)
    shuffled = np.repeat(unseen_values, worlds, axis=0)
    N = shuffled.shape[0]
    rows = np.arange(N)
    real = shuffled >= 0
    keys = np.where(real, rng.random(shuffled.shape), np.inf)  # a card's place in the shuffle
    seat_of = np.zeros(shuffled.shape, np.int64)  # 1-3: dealt to that seat; 0: not yet
    need = np.repeat(sizes, worlds, axis=0).astype(np.int64)  # [N, 4]
    if allowed is not None:
        allowed = np.repeat(allowed, worlds, axis=0)
        restricted = ~allowed.all(axis=2)
        restricted[:, 0] = False  # the observer's own hand is known
        width = np.where(restricted, allowed.sum(axis=2), K + 1)
        for seat in np.argsort(width[:, 1:], axis=1, kind="stable").T + 1:  # narrowest first, per row
            active = restricted[rows, seat] & (need[rows, seat] > 0)
            if not active.any():
                continue
            eligible = real & (seat_of == 0) & allowed[rows[:, None], seat[:, None], np.maximum(shuffled, 0)]
            eligible &= active[:, None]
            # fresh keys: the shuffle's would leave the cards not chosen here with larger keys
            ranked = np.where(eligible, rng.random(shuffled.shape), np.inf)
            cut = np.sort(ranked, axis=1)[rows, np.maximum(need[rows, seat] - 1, 0)]
            chosen = eligible & (ranked <= cut[:, None])
            if (chosen.sum(axis=1) != np.where(active, need[rows, seat], 0)).any():
                raise ValueError(
                    "a forced duplicate's seat holds more number cards than the unseen cards of the numbers "
                    "laid before it this trick (a seat lays a forced duplicate only when it holds nothing else)"
                )
            seat_of[chosen] = np.broadcast_to(seat[:, None], chosen.shape)[chosen]
            need[rows[active], seat[active]] = 0
    # The rest in shuffle order: to the unrestricted seats in seat order, then the pile.
    free = real & (seat_of == 0)
    order = np.argsort(np.where(free, keys, np.inf), axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(D), order.shape), axis=1)
    ends = np.cumsum(need[:, 1:], axis=1)  # [N, 3]
    dealt = 1 + (rank[:, :, None] >= ends[:, None, :]).sum(axis=2)  # seat 1-3, or 4: the pile
    places_of = np.where(free, dealt, seat_of)
    # Each row lists the hands' cards, then the pile's, each in shuffle order: the pile is the tail.
    by = np.lexsort((keys, np.where(real, places_of, PILE + 1)), axis=1)  # by place, then key
    shuffled = np.take_along_axis(shuffled, by, axis=1)
    dealt_places = np.take_along_axis(places_of, by, axis=1)
    position = np.arange(D)
    start = np.repeat(known_len, worlds)[:, None]
    from_known = position[None, :] < start
    at = np.maximum(position[None, :] - start, 0)
    values = np.where(from_known, np.repeat(known_values, worlds, axis=0), np.take_along_axis(shuffled, at, axis=1))
    places = np.where(from_known, np.repeat(known_places, worlds, axis=0), np.take_along_axis(dealt_places, at, axis=1))
    return values, places


def _listing(
    counts: np.ndarray, kinds: np.ndarray, places: np.ndarray, D: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of ``counts [B, C]`` (copies of column ``c``: kind ``kinds[c]`` at ``places[c]``)
    as lists ``values, places [B, D]`` padded with -1, and their lengths."""
    B = counts.shape[0]
    lengths = counts.sum(axis=1)
    flat = counts.ravel()
    rows = np.repeat(np.repeat(np.arange(B), counts.shape[1]), flat)
    cols = np.repeat(np.tile(np.arange(counts.shape[1]), B), flat)
    at = np.arange(rows.size) - np.concatenate(([0], np.cumsum(lengths)[:-1]))[rows]
    values = np.full((B, D), -1, np.int64)
    where = np.full((B, D), -1, np.int64)
    values[rows, at], where[rows, at] = kinds[cols], places[cols]
    return values, where, lengths


def _colour(values: np.ndarray, deck_types: np.ndarray) -> np.ndarray:
    """Card types of ``values [N, D]`` (each row holds the whole deck by number or kind): the
    ``k``-th copy of each in row order is the deck's ``k``-th card of it."""
    types = np.empty_like(values)
    np.put_along_axis(types, np.argsort(values, axis=1, kind="stable"), np.broadcast_to(deck_types, values.shape), 1)
    return types


def _per_seat(types: np.ndarray, places: np.ndarray, first: int, slots: int) -> np.ndarray:
    """``[N, 4, slots]``: the types at places ``first + seat``, in row order (-1: none)."""
    out = np.full((types.shape[0], NUM_PLAYERS, slots), -1, np.int64)
    for seat in range(NUM_PLAYERS):
        here = places == first + seat
        g, p = here.nonzero()
        out[g, seat, (np.cumsum(here, axis=1) - 1)[g, p]] = types[g, p]
    return out


def to_act(view: dict[str, np.ndarray]) -> np.ndarray:
    """``bool [B]``: whether each view (:func:`decode` output) is the player to act's. In the
    trick's turn order from the leader, every seat before the observer (relative seat 0) has
    laid or holds no number card (it is passed over), none after it has laid, and the observer
    has laid if the phase follows its card (draw, return, swap), else holds a number card to lay."""
    laid = view["table_number"] >= 0  # [B, 4], relative seats
    turn = (np.arange(NUM_PLAYERS)[None, :] - view["leader"][:, None]) % NUM_PLAYERS  # place in the order
    mine = turn[:, 0]
    before, after = turn < mine[:, None], turn > mine[:, None]
    done_before = (laid | (view["hand_sizes"] == 0) | ~before).all(axis=1)
    none_after = ~(laid & after).any(axis=1)
    laying = view["phase"] == LAY
    own_turn = np.where(laying, ~laid[:, 0] & (view["hand_sizes"][:, 0] > 0), laid[:, 0])
    return done_before & none_after & own_turn


def sample_worlds(
    obs: np.ndarray, rules: TricksRules, worlds: int, rng: np.random.Generator
) -> tuple[TricksEngine, np.ndarray]:
    """``worlds`` random complete games per observation, as one engine (``auto_reset`` off).

    Returns the engine (game ``b * worlds + w`` is world ``w`` of observation ``b``; the
    observer sits at seat 0 and is to act) and ``unseen int64 [B, 15]``, the cards dealt at
    random (to other hands and the piles): numbers 0-9, then the special kinds (skip,
    reverse, +2, wild, +4). The observation must be of the player to act.
    """
    view = decode(np.atleast_2d(np.asarray(obs, np.float32)))
    B = view["numbers"].shape[0]
    N = B * worlds
    if (view["phase"] < 0).any() or not to_act(view).all():
        raise ValueError("sample_worlds takes observations of the player to act (a game in play)")
    if (view["hand_sizes"][:, 0] != view["numbers"].sum(axis=1)).any() or (
        view["special_counts"][:, 0] != view["specials"].sum(axis=1)
    ).any():
        raise ValueError("an observation's own hand does not match its hand size")
    numbers, specials = unseen_counts(view)
    sizes, special_sizes = view["hand_sizes"], view["special_counts"]
    if (numbers.sum(axis=1) != sizes[:, 1:].sum(axis=1) + view["number_pile_size"]).any() or (
        specials.sum(axis=1) != special_sizes[:, 1:].sum(axis=1) + view["special_pile_size"]
    ).any():
        raise ValueError("hand sizes and pile sizes do not add up to the unseen cards")

    own_out = split_points(view["numbers_out"], view["team_points"][:, 0])
    known = np.zeros((B, PLACES, 10), np.int64)
    known[:, 0] = view["numbers"]
    known[:, POINTS], known[:, POINTS + 1] = own_out, view["numbers_out"] - own_out
    known[:, TABLE : TABLE + NUM_PLAYERS] = _one_hots(view["table_number"])
    known[:, ADDED : ADDED + NUM_PLAYERS] = _one_hots(view["table_added"])
    values, places = _cards(known, numbers, sizes, worlds, rng, allowed_numbers(view))
    number_types = _colour(values, _NUMBER_TYPES)
    known_specials = np.zeros((B, PLACES, 5), np.int64)
    known_specials[:, 0] = view["specials"]
    known_specials[:, TABLE : TABLE + NUM_PLAYERS] = view["table_specials"]
    s_values, s_places = _cards(known_specials, specials, special_sizes, worlds, rng)
    special_types = _colour(s_values, _SPECIAL_TYPES)

    eng = TricksEngine(N, rules=rules, seed=0, auto_reset=False)
    state = {path: np.zeros_like(eng._state_field(path)) for path in eng._STREAM_FIELDS + eng.state_fields}
    rep = lambda a: np.repeat(a, worlds, axis=0)  # noqa: E731
    g = np.arange(N)
    for types, where in ((number_types, places), (special_types, s_places)):
        rows, in_hand = np.broadcast_to(g[:, None], where.shape), where < PILE
        np.add.at(state["hands"], (rows[in_hand], where[in_hand], types[in_hand]), 1)
    rows, won = np.broadcast_to(g[:, None], places.shape), (places == POINTS) | (places == POINTS + 1)
    np.add.at(state["points_piles"], (rows[won], places[won] - POINTS, number_types[won]), 1)
    for name, types, pile_size in (
        ("numbers", number_types, view["number_pile_size"]),
        ("specials", special_types, view["special_pile_size"]),
    ):
        size = rep(pile_size)
        D = types.shape[1]
        tail = np.arange(D)[None, :] < size[:, None]  # the pile: each row's last `size` cards, top first
        source = np.minimum(np.arange(D)[None, :] + (D - size)[:, None], D - 1)
        cards = np.zeros((N, D), np.int8)
        cards[tail] = np.take_along_axis(types, source, axis=1)[tail]
        state[f"{name}_cards"][:] = cards
        state[f"{name}_count"][:] = size
    laid = rep(view["table_number"]) >= 0
    state["table_card"][:] = _per_seat(number_types, places, TABLE, 1)[:, :, 0]
    state["table_added"][:] = _per_seat(number_types, places, ADDED, 1)[:, :, 0]
    state["table_specials"][:] = _per_seat(special_types, s_places, TABLE, 2)  # kind order: +2 before +4
    state["table_forced"][:] = rep(view["table_forced"]).astype(bool)
    state["table_laid_by"][:] = np.where(laid, np.arange(NUM_PLAYERS), -1)
    state["annulled"][:] = rep(view["annulled"]).astype(bool)
    state["leader"][:] = rep(view["leader"])
    state["current"][:] = 0
    state["phase"][:] = rep(view["phase"])
    state["trick"][:] = rep(view["trick"])
    state["draw_limit"][:] = rep(view["draw_limit"])
    state["returns_left"][:] = rep(view["returns_left"])
    state["trick_winner"][:] = -1
    state["game_seeds"][:] = rng.integers(0, 2**63, size=N, dtype=np.int64).astype(np.uint64)
    eng.load_state_arrays(state)
    eng._sync_summaries(g)  # hand counts, table values, points: the kernel's, from the cards
    return eng, np.concatenate([numbers, specials], axis=1)
