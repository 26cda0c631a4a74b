"""The rules of the team trick game as compiled (numba) kernels: the one place where they live.

:class:`~envs.uno_tricks.engine.TricksEngine` keeps the state, a few numpy arrays with the
batch first (``TricksState`` names them), and calls one kernel per engine hook; each
kernel loops over the games in compiled code and plays the rules one game at a time.
Rule options come in as plain flags, the card tables below are frozen into the compiled
code as constants, and every kernel writes into arrays the caller allocated.

The turn structure (docs/tricks.md). A trick: starting with its leader, each seat that
holds a number card lays one (:func:`lay_card`: a number already on the table is a
:func:`forced_duplicate`, worth 0), optionally with one special card or the +2/+4 pair,
whose effect resolves at once:

* Skip annuls the trick's points; Wild adds the top number card to the seat
  (:func:`wild_adds_card`); the +2/+4 pair takes three special cards
  (:func:`pair_takes_specials`);
* +2 (+4) opens the phase ``draw``: :func:`draw_cards` takes 0-2 (0-4) number cards (two
  or more zeros bring one special card), then the phase ``return`` puts number cards back
  under the pile one at a time (:func:`return_card`): as many as were drawn, or exactly
  two (``exchange_returns="two"``);
* Reverse, with another card on the table, opens the phase ``swap``
  (:func:`swap_cards`: exchange the laid card with that of a seat that has laid, or keep).

When the turn is over, :func:`end_turn` passes to the next seat that has not laid and
holds a number card; when there is none, :func:`end_trick` scores the trick, moves its
cards and lets the seat after the leader lead the next one. The game ends when no hand
holds a number card (:func:`game_over`).

Piles are circular queues (cards are drawn from the top and go back *under* the pile):
``cards[g, (start[g] + i) % capacity]`` for ``i < count[g]``, top first.

How it is compiled, and why (every function is ``cache=True``: a fresh checkout compiles
once, later imports load the machine code):

* The rule functions take the state tuple ``s`` and are ``inline="always"``: numba copies
  them into the kernels that call them, so the compiler sees one loop body per hook.
* The kernels that run every step (and those that load positions) are compiled with
  numba's ``_nrt=False``: no reference counting and no allocation inside. With reference
  counting on, every rule function called with ``s`` counts 31 array references up and
  down (atomic operations), which cost several times the rules themselves. Such a kernel
  cannot allocate an array; it writes into the arrays it is given.
* Dealing (:func:`new_episodes`) is the exception: the shuffles of ``envs.rng`` sort,
  which allocates, so it counts references (once per deal, not per step) and hands the
  shuffled piles to :func:`deal`, which does not.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from envs.cards import (
    NUM_CARD_TYPES,
    TYPE_COPIES,
    TYPE_KIND,
    TYPE_NUMBER,
)
from envs.rng import next_deal_one, random_words_one, shuffle_one
from envs.state_table import Part, state_type
from envs.uno_tricks import actions as A
from envs.uno_tricks.observation import DRAW, FIELDS, LAY, OVER, RETURN, SPECIAL_KINDS, SWAP
from envs.uno_tricks.rules import (
    LITERAL_RETURNS,
    NUM_PLAYERS,
    NUMBERS_DEALT,
    PLUS2_DRAW,
    PLUS4_DRAW,
    POINTS_REWARD_SCALE,
    SPECIALS_DEALT,
)

# The phases (LAY ... OVER) are named in envs.uno_tricks.observation; OVER only with auto_reset off.

PAIR_SPECIALS = 3  # the +2/+4 pair takes up to three special cards
ZEROS_FOR_BONUS = 2  # drawing two or more zeros with a +2/+4 brings one special card
KEEP_SEATS_ON = NUM_PLAYERS  # ``keep`` reads as a swap with the seat 4 places on: oneself

# ---------------------------------------------------------------------- card tables
#: Every card type's copies, split into the two piles of the game.
NUMBER_TYPES = np.flatnonzero(TYPE_NUMBER >= 0)
SPECIAL_TYPES = np.flatnonzero(TYPE_NUMBER < 0)
NUMBER_DECK = np.repeat(NUMBER_TYPES, TYPE_COPIES[NUMBER_TYPES]).astype(np.int8)  # 76 cards
SPECIAL_DECK = np.repeat(SPECIAL_TYPES, TYPE_COPIES[SPECIAL_TYPES]).astype(np.int8)  # 32 cards
#: ``[10, 4]`` the type ids of number n in colour order; ``[5, 4]`` those of each special kind
#: (skip, reverse, +2, wild, +4; a wild kind has one type, repeated).
NUMBER_TYPE_IDS = np.array([[c * 13 + n for c in range(4)] for n in range(10)], np.int64)
SPECIAL_TYPE_IDS = np.array([np.resize(np.flatnonzero(TYPE_KIND == k), 4) for k in SPECIAL_KINDS], np.int64)
#: The number of each card type (-1 for a special card) and the special kind index of each
#: (an index into SPECIAL_KINDS; -1 for a number card).
NUMBER_OF = TYPE_NUMBER.astype(np.int64)
SPECIAL_OF = np.full(NUM_CARD_TYPES, -1, np.int64)
for _i, _kind in enumerate(SPECIAL_KINDS):
    SPECIAL_OF[TYPE_KIND == _kind] = _i
#: Copies of each number (0-9) and of each special kind (``SPECIAL_KINDS`` order) in the deck.
NUMBER_COPIES = np.bincount(NUMBER_OF[NUMBER_DECK], minlength=10).astype(np.int64)
SPECIAL_COPIES = np.bincount(SPECIAL_OF[SPECIAL_DECK], minlength=len(SPECIAL_KINDS)).astype(np.int64)
#: For each lay combination (``actions.COMBOS``), the special kinds it lays (-1: none):
#: the first special card, and the +4 of the +2/+4 pair.
_SPECIAL_INDEX = {kind: i for i, kind in enumerate(SPECIAL_KINDS)}
COMBO_FIRST = np.array([_SPECIAL_INDEX[k[0]] if k else -1 for k in A.COMBO_KINDS], np.int64)
COMBO_SECOND = np.array([_SPECIAL_INDEX[k[1]] if len(k) > 1 else -1 for k in A.COMBO_KINDS], np.int64)

# Observation offsets (envs.uno_tricks.observation.FIELDS).
_OBS_NUMBERS = FIELDS["numbers"].start
_OBS_SPECIALS = FIELDS["specials"].start
_OBS_TABLE_LAID = FIELDS["table_laid"].start
_OBS_TABLE_NUMBER = FIELDS["table_number"].start
_OBS_TABLE_FORCED = FIELDS["table_forced"].start
_OBS_TABLE_ADDED = FIELDS["table_added"].start
_OBS_TABLE_VALUE = FIELDS["table_value"].start
_OBS_TABLE_SPECIALS = FIELDS["table_specials"].start
_OBS_ANNULLED = FIELDS["annulled"].start
_OBS_TEAM_POINTS = FIELDS["team_points"].start
_OBS_TRICK = FIELDS["trick"].start
_OBS_LEADER = FIELDS["leader"].start
_OBS_NUMBERS_OUT = FIELDS["numbers_out"].start
_OBS_HAND_SIZES = FIELDS["hand_sizes"].start
_OBS_SPECIAL_COUNTS = FIELDS["special_counts"].start
_OBS_NUMBER_PILE_SIZE = FIELDS["number_pile_size"].start
_OBS_SPECIAL_PILE_SIZE = FIELDS["special_pile_size"].start
_OBS_PHASE = FIELDS["phase"].start
_OBS_DRAW_LIMIT = FIELDS["draw_limit"].start
_OBS_RETURNS_LEFT = FIELDS["returns_left"].start

_SEATS = np.uint64(NUM_PLAYERS)


#: The whole state of a batch of games, declared once (``envs.state_table``): the engine
#: allocates these arrays (batch first) and shows each as an attribute, ``state_fields``
#: are the per-game parts, and every kernel entry point takes them first, in this order,
#: and sees them as one :class:`TricksState`.
STATE = (
    Part("hands", np.int8, (NUM_PLAYERS, NUM_CARD_TYPES), doc="number and special cards, by type"),
    Part("hand_numbers", np.int8, (NUM_PLAYERS, 10), doc="number cards per number (a summary of hands)"),
    Part("hand_specials", np.int8, (NUM_PLAYERS, 5), doc="special cards per kind (summary)"),
    Part("number_count", np.int64, (NUM_PLAYERS,), doc="(summary)"),
    Part("special_count", np.int64, (NUM_PLAYERS,), doc="(summary)"),
    Part("on_table", np.bool_, (10,), doc="numbers laid this trick (Wild-added cards not)"),
    Part("numbers_cards", np.int8, (NUMBER_DECK.size,), doc="the number pile (circular queue)"),
    Part("numbers_start", np.int64, doc="index of its top card"),
    Part("numbers_count", np.int64),
    Part("specials_cards", np.int8, (SPECIAL_DECK.size,), doc="the special pile (circular queue)"),
    Part("specials_start", np.int64),
    Part("specials_count", np.int64),
    Part("table_card", np.int64, (NUM_PLAYERS,), fill=-1, doc="laid number card per seat, -1 none"),
    Part("table_forced", np.bool_, (NUM_PLAYERS,), doc="a forced duplicate, worth 0"),
    Part("table_laid_by", np.int64, (NUM_PLAYERS,), fill=-1, doc="who laid it (a swap moves cards), -1 none"),
    Part("table_added", np.int64, (NUM_PLAYERS,), fill=-1, doc="card a Wild added, -1 none"),
    Part("table_value", np.int64, (NUM_PLAYERS,), doc="what each seat's cards are worth now"),
    Part("table_specials", np.int64, (NUM_PLAYERS, 2), fill=-1, doc="specials it laid (+2 first; kept in a swap)"),
    Part("table_special_kinds", np.int8, (NUM_PLAYERS, 5), doc="the same, per kind (summary)"),
    Part("annulled", np.bool_, doc="a Skip was laid this trick"),
    Part("points_piles", np.int8, (2, NUM_CARD_TYPES), doc="per team"),
    Part("points", np.int64, (2,), doc="value of each team's points pile (summary)"),
    Part("numbers_out", np.int64, (10,), doc="number cards in the points piles, per number (summary)"),
    Part("leader", np.int64),
    Part("current", np.int64, doc="seat to act"),
    Part("phase", np.int64, doc="LAY, DRAW, RETURN, SWAP or OVER"),
    Part("trick", np.int64, fill=1, doc="from 1"),
    Part("draw_limit", np.int64, doc="phase draw: 2 after a +2, 4 after a +4"),
    Part("returns_left", np.int64, doc="phase return: cards still to put back"),
    Part("trick_ended", np.bool_, doc="a trick ended in the last step"),
    Part("trick_winner", np.int64, fill=-1, doc="of that trick: 0 team A, 1 team B, -1 tie or annulled"),
    Part("game_seeds", np.uint64, stream=True),
    Part("rng_counter", np.uint64, stream=True),
)
TricksState = state_type("TricksState", STATE)
NUM_STATE = len(STATE)  # an entry point's args: the state's arrays, then its own

#: The rules as the kernels read them: one record, built by field name (``TricksEngine``).
RULES_DTYPE = np.dtype([("returns_drawn", np.bool_), ("reward_points", np.bool_)])


@njit(cache=True, inline="always")
def split_args(args: tuple):
    """An entry point's ``*args``: the :class:`TricksState` and the call's own arguments."""
    return TricksState(*args[:NUM_STATE]), args[NUM_STATE:]


class Outcome(NamedTuple):
    """Where :func:`game_over` reports finished games: the base engine's per-step outputs."""

    rewards: np.ndarray  # float32 [B, 4]
    done: np.ndarray  # bool [B]
    winners: np.ndarray  # bool [B, 4]
    scores: np.ndarray  # int64 [B, 4]


# ---------------------------------------------------------------------- piles
@njit(cache=True, inline="always")
def take_top(cards: np.ndarray, start: np.ndarray, count: np.ndarray, g: int) -> int:
    """Remove and return the top card of game ``g``'s pile; -1 when the pile is empty."""
    if count[g] == 0:
        return -1
    card = cards[g, start[g]]
    start[g] = (start[g] + 1) % cards.shape[1]
    count[g] -= 1
    return card


@njit(cache=True, inline="always")
def put_under(cards: np.ndarray, start: np.ndarray, count: np.ndarray, g: int, card: int) -> None:
    """Put ``card`` under game ``g``'s pile."""
    cards[g, (start[g] + count[g]) % cards.shape[1]] = card
    count[g] += 1


# ---------------------------------------------------------------------- hands
@njit(cache=True, inline="always")
def remove_first(s: TricksState, g: int, seat: int, type_ids: np.ndarray) -> int:
    """Take from the hand the first held type among ``type_ids`` (colour order; all of one
    kind: number cards of one number or special cards of one kind); returns the card."""
    card = type_ids[0]
    for t in type_ids:
        if s.hands[g, seat, t] > 0:
            card = t
            break
    s.hands[g, seat, card] -= 1
    if NUMBER_OF[card] >= 0:
        s.hand_numbers[g, seat, NUMBER_OF[card]] -= 1
        s.number_count[g, seat] -= 1
    else:
        s.hand_specials[g, seat, SPECIAL_OF[card]] -= 1
        s.special_count[g, seat] -= 1
    return card


@njit(cache=True, inline="always")
def give(s: TricksState, g: int, seat: int, card: int) -> None:
    """Add a card to the hand (nothing for -1: an empty pile gave nothing)."""
    if card < 0:
        return
    s.hands[g, seat, card] += 1
    if NUMBER_OF[card] >= 0:
        s.hand_numbers[g, seat, NUMBER_OF[card]] += 1
        s.number_count[g, seat] += 1
    else:
        s.hand_specials[g, seat, SPECIAL_OF[card]] += 1
        s.special_count[g, seat] += 1


@njit(cache=True, inline="always")
def seat_value(card: int, forced: bool, added: int) -> int:
    """What a seat's table cards are worth: its number (0 if a forced duplicate) plus a Wild's card."""
    value = 0
    if card >= 0 and not forced:
        value += NUMBER_OF[card]
    if added >= 0:
        value += NUMBER_OF[added]
    return value


@njit(cache=True, inline="always")
def sync_summary(s: TricksState, g: int) -> None:
    """Recompute game ``g``'s summaries of hands, points piles and table from the cards
    themselves (after a deal or a loaded position; every step keeps them in step)."""
    for p in range(NUM_PLAYERS):
        s.hand_numbers[g, p, :] = 0
        s.hand_specials[g, p, :] = 0
        s.number_count[g, p] = 0
        s.special_count[g, p] = 0
        for t in range(NUM_CARD_TYPES):
            copies = s.hands[g, p, t]
            if NUMBER_OF[t] >= 0:
                s.hand_numbers[g, p, NUMBER_OF[t]] += copies
                s.number_count[g, p] += copies
            else:
                s.hand_specials[g, p, SPECIAL_OF[t]] += copies
                s.special_count[g, p] += copies
    s.numbers_out[g, :] = 0
    for team in range(2):
        s.points[g, team] = 0
        for t in range(NUM_CARD_TYPES):
            copies = s.points_piles[g, team, t]
            if NUMBER_OF[t] >= 0:
                s.points[g, team] += copies * NUMBER_OF[t]
                s.numbers_out[g, NUMBER_OF[t]] += copies
    s.on_table[g, :] = False
    for seat in range(NUM_PLAYERS):
        s.table_special_kinds[g, seat, :] = 0
        for slot in range(2):
            if s.table_specials[g, seat, slot] >= 0:
                s.table_special_kinds[g, seat, SPECIAL_OF[s.table_specials[g, seat, slot]]] += 1
        card = s.table_card[g, seat]
        s.table_value[g, seat] = seat_value(card, s.table_forced[g, seat], s.table_added[g, seat])
        if card >= 0:
            s.on_table[g, NUMBER_OF[card]] = True


# ---------------------------------------------------------------------- dealing
@njit(cache=True, inline="always")
def clear_table(s: TricksState, g: int) -> None:
    """No card on the table, no pending decision: between tricks and at the end."""
    for seat in range(NUM_PLAYERS):
        s.table_card[g, seat] = -1
        s.table_forced[g, seat] = False
        s.table_laid_by[g, seat] = -1
        s.table_added[g, seat] = -1
        s.table_value[g, seat] = 0
        s.table_specials[g, seat, :] = -1
        s.table_special_kinds[g, seat, :] = 0
    s.annulled[g] = False
    s.on_table[g, :] = False
    s.draw_limit[g] = 0
    s.returns_left[g] = 0


@njit(cache=True, inline="always")
def start_trick(s: TricksState, g: int, leader: int) -> None:
    """``leader`` leads the next trick (the table is clear)."""
    s.leader[g] = leader
    s.current[g] = leader
    s.phase[g] = LAY


@njit(cache=True, inline="always")
def shuffle_decks(
    game_seeds: np.ndarray,
    rng_counter: np.ndarray,
    g: int,
    words: np.ndarray,
    numbers: np.ndarray,
    specials: np.ndarray,
) -> int:
    """Game ``g`` moves on to its next deal's stream, which shuffles both piles into
    ``numbers`` and ``specials`` and draws the first leader (returned); ``words``: scratch
    room for the random words of the larger pile."""
    next_deal_one(game_seeds, rng_counter, g)
    numbers[:] = NUMBER_DECK
    random_words_one(game_seeds, rng_counter, g, words[: numbers.size])
    shuffle_one(numbers, numbers.size, words)
    specials[:] = SPECIAL_DECK
    random_words_one(game_seeds, rng_counter, g, words[: specials.size])
    shuffle_one(specials, specials.size, words)
    random_words_one(game_seeds, rng_counter, g, words[:1])
    return int(words[0] % _SEATS)


@njit(cache=True, _nrt=False)
def deal(s: TricksState, g: int, numbers: np.ndarray, specials: np.ndarray, leader: int) -> None:
    """A new game in slot ``g`` from the shuffled piles: ten number cards and three special
    cards to each seat from the top, the rest stays in the piles; ``leader`` leads."""
    s.hands[g] = 0
    dealt_numbers, dealt_specials = NUM_PLAYERS * NUMBERS_DEALT, NUM_PLAYERS * SPECIALS_DEALT
    for i in range(dealt_numbers):
        s.hands[g, i // NUMBERS_DEALT, numbers[i]] += 1
    for i in range(dealt_specials):
        s.hands[g, i // SPECIALS_DEALT, specials[i]] += 1
    s.numbers_cards[g] = 0
    for i in range(dealt_numbers, numbers.size):
        s.numbers_cards[g, i - dealt_numbers] = numbers[i]
    s.numbers_start[g], s.numbers_count[g] = 0, numbers.size - dealt_numbers
    s.specials_cards[g] = 0
    for i in range(dealt_specials, specials.size):
        s.specials_cards[g, i - dealt_specials] = specials[i]
    s.specials_start[g], s.specials_count[g] = 0, specials.size - dealt_specials
    s.points_piles[g] = 0
    s.trick[g] = 1
    clear_table(s, g)
    start_trick(s, g, leader)
    sync_summary(s, g)


# ---------------------------------------------------------------------- one turn
@njit(cache=True, inline="always")
def forced_duplicate(s: TricksState, g: int, number: int) -> bool:
    """Is ``number`` already on the table this trick? Laying it is then a forced duplicate
    (allowed only when the hand holds nothing else), worth 0. Wild-added cards do not count."""
    return s.on_table[g, number]


@njit(cache=True, inline="always")
def lay_card(s: TricksState, g: int, number: int, combo: int) -> bool:
    """The player to act lays a number card, with the specials of ``combo``
    (``actions.COMBOS``), whose effect resolves at once; returns whether the turn is over."""
    p = s.current[g]
    s.table_card[g, p] = remove_first(s, g, p, NUMBER_TYPE_IDS[number])
    s.table_laid_by[g, p] = p
    forced = forced_duplicate(s, g, number)
    s.table_forced[g, p] = forced
    s.table_value[g, p] = 0 if forced else number
    s.on_table[g, number] = True
    for slot, kind in enumerate((COMBO_FIRST[combo], COMBO_SECOND[combo])):
        if kind >= 0:
            s.table_specials[g, p, slot] = remove_first(s, g, p, SPECIAL_TYPE_IDS[kind])
            s.table_special_kinds[g, p, kind] += 1
    if combo == A.SKIP:
        s.annulled[g] = True  # the trick's points are annulled; the others still lay
    elif combo == A.WILD:
        wild_adds_card(s, g, p)
    elif combo == A.PAIR:
        pair_takes_specials(s, g, p)
    elif combo == A.PLUS2 or combo == A.PLUS4:
        s.draw_limit[g] = PLUS2_DRAW if combo == A.PLUS2 else PLUS4_DRAW
        s.phase[g] = DRAW
        return False
    elif combo == A.REVERSE:
        for seat in range(NUM_PLAYERS):
            if seat != p and s.table_card[g, seat] >= 0:
                s.phase[g] = SWAP
                return False  # with nothing else on the table there is no swap
    return True


@njit(cache=True, inline="always")
def wild_adds_card(s: TricksState, g: int, p: int) -> None:
    """Wild: the top card of the number pile (if any) joins seat ``p``'s card and adds its
    value; the duplicate ban does not apply to it and it never moves in a swap."""
    added = take_top(s.numbers_cards, s.numbers_start, s.numbers_count, g)
    s.table_added[g, p] = added
    if added >= 0:
        s.table_value[g, p] += NUMBER_OF[added]


@njit(cache=True, inline="always")
def pair_takes_specials(s: TricksState, g: int, p: int) -> None:
    """The +2/+4 pair: take up to three special cards (fewer if the pile is short)."""
    for _ in range(PAIR_SPECIALS):
        give(s, g, p, take_top(s.specials_cards, s.specials_start, s.specials_count, g))


@njit(cache=True, inline="always")
def draw_cards(s: TricksState, g: int, wanted: int, returns_drawn: bool) -> bool:
    """After a +2/+4: take ``wanted`` number cards (the mask keeps it within the limit and
    the pile); two or more zeros among them bring one special card; then cards go back
    (``returns_drawn``: as many as were drawn, else min(2, hand)). Returns whether the turn is over."""
    p = s.current[g]
    drawn = zeros = 0
    for _ in range(wanted):
        card = take_top(s.numbers_cards, s.numbers_start, s.numbers_count, g)
        if card >= 0:
            give(s, g, p, card)
            drawn += 1
            zeros += NUMBER_OF[card] == 0
    if zeros >= ZEROS_FOR_BONUS:
        give(s, g, p, take_top(s.specials_cards, s.specials_start, s.specials_count, g))
    s.draw_limit[g] = 0
    returns = drawn if returns_drawn else min(LITERAL_RETURNS, s.number_count[g, p])
    s.returns_left[g] = returns
    s.phase[g] = RETURN
    return returns == 0


@njit(cache=True, inline="always")
def return_card(s: TricksState, g: int, number: int) -> bool:
    """Put a number card of the hand under the number pile; returns whether all are back."""
    card = remove_first(s, g, s.current[g], NUMBER_TYPE_IDS[number])
    put_under(s.numbers_cards, s.numbers_start, s.numbers_count, g, card)
    s.returns_left[g] -= 1
    return s.returns_left[g] == 0


@njit(cache=True)
def swap_target(seat: int, seats_on: int) -> int:
    """The seat whose table card a Reverse's ``swap k`` takes: ``k`` places on in seat order."""
    return (seat + seats_on) % NUM_PLAYERS


@njit(cache=True, inline="always")
def swap_cards(s: TricksState, g: int, seats_on: int) -> bool:
    """After a Reverse: exchange the laid card with that of the seat ``seats_on`` places on
    (a forced duplicate's 0 goes along; a Wild's card stays), or keep it
    (``KEEP_SEATS_ON``). The turn is over either way."""
    if seats_on < KEEP_SEATS_ON:
        p = s.current[g]
        t = swap_target(p, seats_on)
        s.table_card[g, p], s.table_card[g, t] = s.table_card[g, t], s.table_card[g, p]
        s.table_forced[g, p], s.table_forced[g, t] = s.table_forced[g, t], s.table_forced[g, p]
        s.table_laid_by[g, p], s.table_laid_by[g, t] = s.table_laid_by[g, t], s.table_laid_by[g, p]
        for seat in (p, t):
            s.table_value[g, seat] = seat_value(s.table_card[g, seat], s.table_forced[g, seat], s.table_added[g, seat])
    return True


@njit(cache=True, inline="always")
def end_turn(s: TricksState, g: int, reward_points: bool, outcome: Outcome) -> None:
    """The next seat (in seat order) that has not laid and holds a number card lays; when
    there is none, the trick is complete."""
    s.phase[g] = LAY
    seat = s.current[g]
    for _ in range(NUM_PLAYERS - 1):
        seat = (seat + 1) % NUM_PLAYERS
        if s.table_card[g, seat] >= 0:
            break  # back at a seat that has laid: everyone has
        if s.number_count[g, seat] > 0:
            s.current[g] = seat
            return
        # nothing to lay: passed over
    end_trick(s, g, reward_points, outcome)


# ---------------------------------------------------------------------- end of a trick
@njit(cache=True, inline="always")
def end_trick(s: TricksState, g: int, reward_points: bool, outcome: Outcome) -> None:
    """Score the trick, move its cards, and start the next one (or end the game).

    The higher team sum takes the trick's cards but forced duplicates; those, and
    everything on a tie or an annulled trick, go under the number pile in laying order
    (each card laid, wherever a Reverse moved it, then the card its Wild added). Played
    specials go under the special pile in seat order from the leader.
    """
    leader = s.leader[g]
    team_a = s.table_value[g, 0] + s.table_value[g, 2]
    team_b = s.table_value[g, 1] + s.table_value[g, 3]
    winner = -1 if s.annulled[g] or team_a == team_b else int(team_b > team_a)
    for turn in range(NUM_PLAYERS):
        layer = (leader + turn) % NUM_PLAYERS
        for seat in range(NUM_PLAYERS):  # the card this turn's seat laid
            card = s.table_card[g, seat]
            if card >= 0 and (s.table_laid_by[g, seat] - leader) % NUM_PLAYERS == turn:
                trick_card_goes(s, g, card, winner >= 0 and not s.table_forced[g, seat], winner)
        added = s.table_added[g, layer]
        if added >= 0:
            trick_card_goes(s, g, added, winner >= 0, winner)
    for turn in range(NUM_PLAYERS):
        seat = (leader + turn) % NUM_PLAYERS
        for slot in range(2):
            special = s.table_specials[g, seat, slot]
            if special >= 0:
                put_under(s.specials_cards, s.specials_start, s.specials_count, g, special)
    clear_table(s, g)
    s.trick_ended[g] = True
    s.trick_winner[g] = winner
    s.trick[g] += 1
    nxt = next_leader(s, g, leader)
    if nxt >= 0:
        start_trick(s, g, nxt)
    else:
        game_over(s, g, reward_points, outcome)


@njit(cache=True, inline="always")
def trick_card_goes(s: TricksState, g: int, card: int, taken: bool, winner: int) -> None:
    """A number card of the ended trick goes to the winning team's points pile (``taken``)
    or under the number pile."""
    if taken:
        s.points_piles[g, winner, card] += 1
        s.numbers_out[g, NUMBER_OF[card]] += 1
        s.points[g, winner] += NUMBER_OF[card]
    else:
        put_under(s.numbers_cards, s.numbers_start, s.numbers_count, g, card)


@njit(cache=True, inline="always")
def next_leader(s: TricksState, g: int, leader: int) -> int:
    """The next trick is led by the first seat after this trick's leader that holds a
    number card (whoever won); -1 when no hand holds one: the game is over."""
    seat = leader
    for _ in range(NUM_PLAYERS):
        seat = (seat + 1) % NUM_PLAYERS
        if s.number_count[g, seat] > 0:
            return seat
    return -1


@njit(cache=True, inline="always")
def game_over(s: TricksState, g: int, reward_points: bool, outcome: Outcome) -> None:
    """The higher points pile wins; partners share their team's reward: +1/-1/0, or
    (``reward_points``) the points margin times ``POINTS_REWARD_SCALE``."""
    margin = s.points[g, 0] - s.points[g, 1]  # team A's
    if reward_points:
        team_a = margin * POINTS_REWARD_SCALE
    else:
        team_a = float(np.sign(margin))
    for seat in range(NUM_PLAYERS):
        team = seat % 2
        outcome.rewards[g, seat] = (team_a if team == 0 else -team_a) + 0.0  # + 0.0: no -0.0
        outcome.winners[g, seat] = s.points[g, team] > s.points[g, 1 - team]
        outcome.scores[g, seat] = s.points[g, team]
    outcome.done[g] = True


# ---------------------------------------------------------------------- legal actions
@njit(cache=True, inline="always")
def legal_actions(s: TricksState, g: int, row: np.ndarray) -> None:
    """Fill ``row`` (``bool [89]``) with the legal actions of game ``g``'s player to act."""
    row[:] = False
    p = s.current[g]
    phase = s.phase[g]
    if phase == LAY:
        stuck = True  # only numbers already on the table: any of them, as a forced duplicate
        for n in range(10):
            if s.hand_numbers[g, p, n] > 0 and not forced_duplicate(s, g, n):
                stuck = False
        for combo in range(COMBO_FIRST.size):
            first, second = COMBO_FIRST[combo], COMBO_SECOND[combo]
            if (first >= 0 and s.hand_specials[g, p, first] == 0) or (
                second >= 0 and s.hand_specials[g, p, second] == 0
            ):
                continue
            for n in range(10):
                row[10 * combo + n] = s.hand_numbers[g, p, n] > 0 and (stuck or not forced_duplicate(s, g, n))
    elif phase == DRAW:
        for k in range(min(s.draw_limit[g], s.numbers_count[g]) + 1):
            row[A.DRAW + k] = True
    elif phase == RETURN:
        for n in range(10):
            row[A.RETURN + n] = s.hand_numbers[g, p, n] > 0
    elif phase == SWAP:
        for j in range(1, NUM_PLAYERS):
            row[A.SWAP + j - 1] = s.table_card[g, (p + j) % NUM_PLAYERS] >= 0
        row[A.KEEP] = True


# ---------------------------------------------------------------------- observation
@njit(cache=True, inline="always")
def observe_game(s: TricksState, g: int, viewer: int, row: np.ndarray) -> None:
    """Fill ``row`` (``float32 [161]``) with what ``viewer`` may know of game ``g``
    (layout in ``envs.uno_tricks.observation``; relative seats count from the viewer)."""
    row[:] = 0.0
    for n in range(10):
        row[_OBS_NUMBERS + n] = s.hand_numbers[g, viewer, n]
        row[_OBS_NUMBERS_OUT + n] = s.numbers_out[g, n]
    for k in range(5):
        row[_OBS_SPECIALS + k] = s.hand_specials[g, viewer, k]
    for r in range(NUM_PLAYERS):
        seat = (viewer + r) % NUM_PLAYERS
        card, added = s.table_card[g, seat], s.table_added[g, seat]
        if card >= 0:
            row[_OBS_TABLE_LAID + r] = 1.0
            row[_OBS_TABLE_NUMBER + 10 * r + NUMBER_OF[card]] = 1.0
        row[_OBS_TABLE_FORCED + r] = s.table_forced[g, seat]
        if added >= 0:
            row[_OBS_TABLE_ADDED + 10 * r + NUMBER_OF[added]] = 1.0
        row[_OBS_TABLE_VALUE + r] = s.table_value[g, seat]
        for k in range(5):
            row[_OBS_TABLE_SPECIALS + 5 * r + k] = s.table_special_kinds[g, seat, k]
        row[_OBS_HAND_SIZES + r] = s.number_count[g, seat]
        row[_OBS_SPECIAL_COUNTS + r] = s.special_count[g, seat]
    row[_OBS_ANNULLED] = s.annulled[g]
    team = viewer % 2
    row[_OBS_TEAM_POINTS] = s.points[g, team]
    row[_OBS_TEAM_POINTS + 1] = s.points[g, 1 - team]
    row[_OBS_TRICK] = s.trick[g]
    row[_OBS_NUMBER_PILE_SIZE] = s.numbers_count[g]
    row[_OBS_SPECIAL_PILE_SIZE] = s.specials_count[g]
    row[_OBS_DRAW_LIMIT] = s.draw_limit[g]
    row[_OBS_RETURNS_LEFT] = s.returns_left[g]
    if s.phase[g] < OVER:
        row[_OBS_LEADER + (s.leader[g] - viewer) % NUM_PLAYERS] = 1.0
        row[_OBS_PHASE + s.phase[g]] = 1.0


# ---------------------------------------------------------------------- the engine's hooks
# Each takes the state's arrays then its own arguments (``*args``, split by split_args) and
# loops over the games; one call per hook and step.


@njit(cache=True)
def new_episodes(*args) -> None:
    """Deal a new game in each of ``games`` (state, ``games``; ``TricksEngine._new_episode``;
    the one hook that allocates: the shuffles sort)."""
    s, (games,) = split_args(args)
    deal_games(s, games)


@njit(cache=True)
def deal_games(s: TricksState, games: np.ndarray) -> None:
    """A new game in each of ``games``: shuffled piles, a dealt hand for each seat, a leader."""
    words = np.empty(NUMBER_DECK.size, np.uint64)
    numbers, specials = np.empty_like(NUMBER_DECK), np.empty_like(SPECIAL_DECK)
    for g in games:
        leader = shuffle_decks(s.game_seeds, s.rng_counter, g, words, numbers, specials)
        deal(s, g, numbers, specials, leader)


@njit(cache=True, _nrt=False)
def begin_step(*args) -> None:
    """Forget the last step's trick events (state)."""
    s, _ = split_args(args)
    s.trick_ended[:] = False
    s.trick_winner[:] = -1


@njit(cache=True, inline="always")
def apply_action(
    s: TricksState, g: int, action: int, returns_drawn: bool, reward_points: bool, outcome: Outcome
) -> None:
    """Game ``g``'s action (legal: checked before); a finished game (phase ``over``) ignores it."""
    if s.phase[g] == OVER:
        return
    if action < A.NUM_LAY_ACTIONS:
        turn_over = lay_card(s, g, action % 10, action // 10)
    elif action < A.RETURN:
        turn_over = draw_cards(s, g, action - A.DRAW, returns_drawn)
    elif action < A.SWAP:
        turn_over = return_card(s, g, action - A.RETURN)
    else:
        turn_over = swap_cards(s, g, action - A.SWAP + 1)  # keep: 4 seats on
    if turn_over:
        end_turn(s, g, reward_points, outcome)


@njit(cache=True, _nrt=False)
def step_and_observe(*args) -> int:
    """One whole step of the batch (``BatchedEngine.step``). ``args``: the state's arrays
    (:data:`STATE`), then ``actions, legal, obs, mask, rewards, done, winners, scores,
    rules_record, auto_reset``.

    Returns the first game whose action is out of range or not ``legal`` (the mask of the
    last observation), having changed nothing. Else applies every action, puts games that
    ended in phase over (without ``auto_reset``; with it the engine deals them next, which
    allocates, so not here), writes the next ``obs`` and ``mask`` and returns -1.
    """
    s, (actions, legal, obs, mask, rewards, done, winners, scores, rules_record, auto_reset) = split_args(args)
    rules = rules_record[0]
    for g in range(actions.size):
        a = actions[g]
        if a < 0 or a >= A.NUM_ACTIONS or (s.phase[g] != OVER and not legal[g, a]):
            return g
    s.trick_ended[:] = False
    s.trick_winner[:] = -1
    outcome = Outcome(rewards, done, winners, scores)
    for g in range(actions.size):
        apply_action(s, g, actions[g], rules.returns_drawn, rules.reward_points, outcome)
        if done[g] and not auto_reset:
            s.phase[g] = OVER
    for g in range(actions.size):
        legal_actions(s, g, mask[g])
        observe_game(s, g, s.current[g], obs[g])
    return -1


@njit(cache=True)
def restart_games(*args) -> None:
    """Deal a new game in each of ``games`` (state, ``games, obs, mask``: they ended this
    step) and write their first observation and mask."""
    s, (games, obs, mask) = split_args(args)
    deal_games(s, games)
    observe_rows(s, games, obs, mask)


@njit(cache=True, _nrt=False)
def observe_rows(s: TricksState, games: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
    """The mask and observation rows of ``games`` (their players to act)."""
    for g in games:
        legal_actions(s, g, mask[g])
        observe_game(s, g, s.current[g], obs[g])


@njit(cache=True, _nrt=False)
def observe_games(*args) -> None:
    """Rewrite the mask and observation rows of ``games`` (state, ``games, obs, mask``)."""
    s, (games, obs, mask) = split_args(args)
    observe_rows(s, games, obs, mask)


@njit(cache=True, _nrt=False)
def legal_masks(*args) -> None:
    """Fill ``mask`` (``bool [B, 89]``) with every game's legal actions (state, ``mask``)."""
    s, (mask,) = split_args(args)
    for g in range(mask.shape[0]):
        legal_actions(s, g, mask[g])


@njit(cache=True, _nrt=False)
def observations(*args) -> None:
    """Fill ``obs`` (``float32 [B, 161]``) with each game's view for ``viewer[g]`` (state,
    ``viewer, obs``)."""
    s, (viewer, obs) = split_args(args)
    for g in range(obs.shape[0]):
        observe_game(s, g, viewer[g], obs[g])


@njit(cache=True, _nrt=False)
def clear_tables(*args) -> None:
    """:func:`clear_table` of each of ``games`` (state, ``games``: loading positions)."""
    s, (games,) = split_args(args)
    for g in games:
        clear_table(s, g)


@njit(cache=True, _nrt=False)
def sync_summaries(*args) -> None:
    """:func:`sync_summary` of each of ``games`` (state, ``games``: loading positions; tests
    check the summaries)."""
    s, (games,) = split_args(args)
    for g in games:
        sync_summary(s, g)
