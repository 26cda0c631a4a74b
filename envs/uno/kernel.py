"""The rules of classic UNO (docs/uno.md) as compiled kernels, one game at a time.

:class:`envs.uno.engine.UnoEngine` keeps the state of a batch of games in numpy arrays
(batch first) and calls these ``numba`` kernels, which loop over the games in compiled
code: a step costs the same few microseconds of Python whether it moves 1 game or 8,192,
and each game's turn reads like the rules. Every function below that takes ``g`` works
on game ``g`` of the batch; the state arrays are those of :data:`STATE`, passed in its
order. Random draws go through ``envs.rng``'s per-game streams, so a seed gives the same
deals whatever the batch size.

Turn structure, phase by phase:

* ``play``: play a matching card (a Wild names its colour in the action) or ``draw``.
  Facing stacked Draw Twos (``stacking``): play a Draw Two or ``draw`` them all.
* ``drawn``: the card just drawn is playable: play it (or ``pass`` when
  ``must_play_drawn`` is False). An unplayable drawn card ends the turn at once.
* ``uno``: the player just played its second-to-last card: ``uno`` or ``silent``;
  the card's effect applies after this decision.
* ``challenge``: the player after a Wild Draw Four: ``challenge`` or ``accept`` (or, with
  ``stack_wild_draw_four``, stack a Wild Draw Four of its own on it).
* ``colour``: the first player names the colour of a starting Wild, then plays on it.
* ``swap``: the player who played a 7 (``seven_zero``) names whom to swap hands with.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from envs.cards import (
    DECK,
    DECK_SIZE,
    KIND_DRAW_TWO,
    KIND_REVERSE,
    KIND_SKIP,
    KIND_WILD,
    KIND_WILD_DRAW_FOUR,
    NUM_CARD_TYPES,
    NUM_COLOURS,
    TYPE_COLOUR,
    TYPE_KIND,
    TYPE_VALUE,
    WILD,
    WILD_DRAW_FOUR,
)
from envs.core import seats_after
from envs.rng import next_deal_one, random_uniform_one, random_words_one, shuffle_into
from envs.state_table import PLAYERS, Part, state_type
from envs.uno import actions as A
from envs.uno.observation import CHALLENGE, COLOUR, DRAWN, FIELDS, OVER, PLAY, SWAP, UNO
from envs.uno.rules import POINTS_REWARD_SCALE, match_leaders_one, match_over_one

# The phases (PLAY ... OVER) are named in envs.uno.observation; OVER: a game finished with auto_reset off.

WILD_DRAW_FOUR_DRAW = 4
INNOCENT_CHALLENGE_DRAW = 6
# What the two draws above make of a challenge, in cards (for policies and studies): accepting
# draws WILD_DRAW_FOUR_DRAW for sure, challenging INNOCENT_CHALLENGE_DRAW when the card was
# honest and none when it was a bluff (the bluffer draws instead), so challenging pays when
# the chance of a bluff exceeds the break-even, and moves the cards between the two players by
# the swings against accepting.
CHALLENGE_BREAK_EVEN = (INNOCENT_CHALLENGE_DRAW - WILD_DRAW_FOUR_DRAW) / INNOCENT_CHALLENGE_DRAW  # 1/3
CHALLENGE_SWING_GUILTY = 2 * WILD_DRAW_FOUR_DRAW  # +8: the bluffer draws 4, not the challenger
CHALLENGE_SWING_INNOCENT = WILD_DRAW_FOUR_DRAW - INNOCENT_CHALLENGE_DRAW  # -2: 6 drawn instead of 4
DRAW_TWO_DRAW = 2
SWAP_KIND = 7  # seven_zero: a 7 swaps hands with a chosen player...
PASS_ON_KIND = 0  # ...and a 0 passes every hand one seat on

# ---------------------------------------------------------------------- the state
#: The whole state of a batch of games, declared once (``envs.state_table``): the engine
#: allocates these arrays (batch first) and shows each as an attribute, ``state_fields``
#: are the per-game parts, and every kernel entry point takes them first, in this order,
#: and sees them as one :class:`UnoState`.
STATE = (
    Part("hands", np.int8, (PLAYERS, NUM_CARD_TYPES), doc="copies of each card type held, per seat"),
    Part("hand_size", np.int64, (PLAYERS,), doc="cards held, per seat"),
    Part("draw_pile", np.int8, (DECK_SIZE,), doc="card types; the pile is draw_pile[draw_top:draw_end], top first"),
    Part("draw_top", np.int64),
    Part("draw_end", np.int64),
    Part("discard", np.int8, (DECK_SIZE,), doc="card types; the pile is discard[:discard_len], top last"),
    Part("discard_len", np.int64),
    Part("discard_counts", np.int8, (NUM_CARD_TYPES,), doc="the discard pile's cards, per type"),
    Part("top", np.int64, doc="type of the discard pile's top card"),
    Part("colour", np.int64, doc="colour in force, -1 while a starting Wild waits"),
    Part("direction", np.int64, fill=1, doc="+1 or -1"),
    Part("current", np.int64, doc="seat to act"),
    Part("phase", np.int64, doc="PLAY ... OVER (envs.uno.observation.PHASE_NAMES)"),
    Part("pending_draw", np.int64, doc="stacked draw cards (Draw Twos; Wild Draw Fours with stack_wild_draw_four)"),
    Part("drawn_card", np.int64, fill=-1, doc="the card just drawn (phase drawn), else -1"),
    Part("challenge_colour", np.int64, fill=-1, doc="colour in force before the Wild Draw Four being answered"),
    Part("challenge_guilty", np.bool_, doc="whether the Wild Draw Four's player held a card of challenge_colour"),
    Part("uno_declared", np.bool_, (PLAYERS,), doc="declared UNO and not played since, per seat"),
    Part("revealed_hand", np.int8, (PLAYERS, NUM_CARD_TYPES), doc="per seat: the hand its challenge showed it"),
    Part(
        "revealed_from",
        np.int64,
        (PLAYERS,),
        fill=-1,
        doc="per seat: whose hand its challenge showed it (until its next decision), else -1",
    ),
    Part("scores", np.int64, (PLAYERS,), doc="match points"),
    Part("match_rewards", np.float64, (PLAYERS,), doc="points reward summed over a match"),
    Part("hand_number", np.int64, doc="hands played so far in the match"),
    Part("hand_starter", np.int64, doc="first player of the current hand"),
    Part("hand_ended", np.bool_, doc="a hand ended in the last step"),
    Part("hand_winner", np.int64, fill=-1, doc="winner of a hand that ended in the last step, else -1"),
    Part("hand_points", np.int64, (PLAYERS,), doc="points a hand that ended in the last step added"),
    Part(
        "void_draws",
        np.int64,
        (PLAYERS, NUM_COLOURS),
        fill=-1,
        doc="public history: -1, or the seat was seen without colour c (it drew, nothing to play, "
        "that colour in force) and took this many unknown cards into its hand since",
    ),
    Part(
        "chosen_colour",
        np.int64,
        (PLAYERS,),
        fill=-1,
        doc="public history: the colour the seat last chose, naming it for a wild or switching to it "
        "with a card of another colour than the one in force; -1 before its first choice in a hand",
    ),
    Part("game_seeds", np.uint64, stream=True),
    Part("rng_counter", np.uint64, stream=True),
    # Scratch for one game at a time: the kernels compile without reference counting (numba's
    # _nrt=False, several times faster: the state would be counted up and down at every call)
    # and so cannot allocate.
    Part("work_words", np.uint64, (DECK_SIZE,), per_game=False, doc="random words"),
    Part("work_order", np.int64, (DECK_SIZE,), per_game=False, doc="for shuffles"),
    Part("work_cards", np.int8, (DECK_SIZE,), per_game=False, doc="for shuffles"),
    Part("work_values", np.int64, (PLAYERS,), per_game=False, doc="hand values"),
    Part("work_points", np.int64, (PLAYERS,), per_game=False, doc="points"),
    Part("work_reward", np.float64, (PLAYERS,), per_game=False, doc="rewards"),
    Part("work_winners", np.bool_, (PLAYERS,), per_game=False, doc="winners"),
)
UnoState = state_type("UnoState", STATE)
NUM_STATE = len(STATE)  # an entry point's args: the state's arrays, then its own


@njit(cache=True, inline="always", _nrt=False)
def split_args(args: tuple):
    """An entry point's ``*args``: the :class:`UnoState` and the call's own arguments."""
    return UnoState(*args[:NUM_STATE]), args[NUM_STATE:]


#: The rules as the kernels read them: one record (numba reads a record's fields by name).
RULES_DTYPE = np.dtype(
    [
        ("num_players", np.int64),
        ("hand_size", np.int64),
        ("draw_anytime", np.bool_),
        ("must_play_drawn", np.bool_),
        ("draw_until_playable", np.bool_),
        ("stacking", np.bool_),
        ("stack_wild_draw_four", np.bool_),
        ("seven_zero", np.bool_),
        ("uno_penalty", np.int64),
        ("uno_catch_prob", np.float64),
        ("match", np.bool_),
        ("target_score", np.int64),
        ("reverse_scoring", np.bool_),
        ("points_reward", np.bool_),
        ("winner_starts", np.bool_),
    ]
)

#: One step's outputs for the games that ended: rewards, done, winners and final scores.
StepOutputs = namedtuple("StepOutputs", ["rewards", "done", "winners", "final_scores"])


def _match_table() -> np.ndarray:
    """``bool [8, 54, 54]``: may card type t be played, [context, top card, t]?

    Context 0: no colour in force (only while a starting Wild waits for its colour);
    1-4: colour 0-3 in force; 5: facing stacked Draw Twos (only a Draw Two answers);
    6: the same with ``stack_wild_draw_four`` (a Draw Two or a Wild Draw Four); 7: facing
    a stacked Wild Draw Four (only a Wild Draw Four). A card matches by colour or by kind
    (number or symbol); wilds always match.
    """
    table = np.zeros((8, NUM_CARD_TYPES, NUM_CARD_TYPES), dtype=np.bool_)
    coloured = TYPE_COLOUR >= 0
    is_wild = TYPE_COLOUR < 0
    for colour in range(NUM_COLOURS):
        for top in range(NUM_CARD_TYPES):
            same_kind = (TYPE_KIND == TYPE_KIND[top]) & coloured & (TYPE_COLOUR[top] >= 0)
            table[colour + 1, top] = (TYPE_COLOUR == colour) | same_kind | is_wild
    draw_two, wild_draw_four = TYPE_KIND == KIND_DRAW_TWO, TYPE_KIND == KIND_WILD_DRAW_FOUR
    table[PENDING_CONTEXT, :] = draw_two
    table[PENDING_FOUR_CONTEXT, :] = draw_two | wild_draw_four
    table[PENDING_ON_FOUR_CONTEXT, :] = wild_draw_four
    return table


PENDING_CONTEXT = 5
PENDING_FOUR_CONTEXT = 6
PENDING_ON_FOUR_CONTEXT = 7
MATCH = _match_table()
_KIND = TYPE_KIND.astype(np.int64)
_COLOUR_OF = TYPE_COLOUR.astype(np.int64)
_VALUE = TYPE_VALUE.astype(np.int64)
_DECK = DECK.astype(np.int8)
_ACTION_CARD = A.ACTION_CARD.copy()
_ACTION_COLOUR = A.ACTION_COLOUR.copy()
# Observation offsets (envs.uno.observation documents the layout).
_HAND = FIELDS["hand"].start
_TOP = FIELDS["top_card"].start
_COLOUR = FIELDS["colour"].start
_DIRECTION = FIELDS["direction"].start
_NUM_PLAYERS = FIELDS["num_players"].start
_HAND_SIZES = FIELDS["hand_sizes"].start
_UNO_DECLARED = FIELDS["uno_declared"].start
_SCORES = FIELDS["scores"].start
_DRAW_PILE_SIZE = FIELDS["draw_pile_size"].start
_DISCARD_PILE_SIZE = FIELDS["discard_pile_size"].start
_DISCARD_COUNTS = FIELDS["discard_counts"].start
_PHASE = FIELDS["phase"].start
_PENDING_DRAW = FIELDS["pending_draw"].start
_DRAWN_CARD = FIELDS["drawn_card"].start
_CHALLENGE_COLOUR = FIELDS["challenge_colour"].start
_REVEALED_HAND = FIELDS["revealed_hand"].start
_REVEALED_SEAT = FIELDS["revealed_seat"].start
_VOID_COLOURS = FIELDS["void_colours"].start
_VOID_DRAWS = FIELDS["void_draws"].start
_CHOSEN_COLOURS = FIELDS["chosen_colours"].start


# ---------------------------------------------------------------------- small rules
@njit(cache=True, _nrt=False)
def match_context(top: int, colour: int, pending_draw: int, stack_wild_draw_four: bool) -> int:
    """The row of :data:`MATCH` that decides what may be played now: the colour in force,
    or, facing a pending draw, which draw cards may be stacked on it."""
    if pending_draw == 0:
        return colour + 1
    if not stack_wild_draw_four:
        return PENDING_CONTEXT
    return PENDING_ON_FOUR_CONTEXT if top == WILD_DRAW_FOUR else PENDING_FOUR_CONTEXT


@njit(cache=True, _nrt=False)
def playable(card: int, top: int, colour: int, pending_draw: int, stack_wild_draw_four: bool = False) -> bool:
    """May ``card`` be played on ``top`` with ``colour`` in force (and stacked draws pending)?"""
    return MATCH[match_context(top, colour, pending_draw, stack_wild_draw_four), top, card]


@njit(cache=True, _nrt=False)
def holds_colour(hand, colour: int) -> bool:
    """Whether a hand (copies per type) holds a card of ``colour``: a Wild Draw Four played
    with such a card in hand was a bluff, and a challenge finds the player guilty."""
    for t in range(NUM_CARD_TYPES):  # noqa: SIM110 (numba compiles loops, not any() over generators)
        if hand[t] > 0 and _COLOUR_OF[t] == colour:
            return True
    return False


#: :func:`envs.core.seats_after` (the seat ``steps`` places on in the direction of play)
#: compiled, for one game's seats inside the kernel; positions, worlds and studies call the
#: plain one (imported here, so ``kernel.seats_after`` is the same function).
seat_after = njit(cache=True, _nrt=False)(seats_after)


def challenged_seats(challenger, direction, num_players):  # ints or numpy arrays
    """Who played the Wild Draw Four a challenger answers: the seat before it (compiled for
    the kernel as :func:`challenged_seat`)."""
    return seats_after(challenger, -1, direction, num_players)


def pending_bluffers(current, phase, direction, num_players):  # ints or numpy arrays
    """Whose Wild Draw Four waits for its answer: the seat before the current player (the
    challenger) in phase challenge, the current player itself in phase uno (the card was its
    second-to-last: its declaration comes first, then the next seat answers)."""
    return np.where(phase == UNO, current, challenged_seats(current, direction, num_players))


@njit(cache=True, _nrt=False)
def challenged_seat(challenger: int, direction: int, num_players: int) -> int:
    """:func:`challenged_seats` for one game, in the kernel."""
    return seat_after(challenger, -1, direction, num_players)


@njit(cache=True, _nrt=False)
def swap_hands(s, g: int, a: int, b: int) -> None:
    """Seats ``a`` and ``b`` exchange hands (``seven_zero``); a declared UNO goes with its hand."""
    for t in range(NUM_CARD_TYPES):
        kept = s.hands[g, a, t]
        s.hands[g, a, t] = s.hands[g, b, t]
        s.hands[g, b, t] = kept
    size = s.hand_size[g, a]
    s.hand_size[g, a] = s.hand_size[g, b]
    s.hand_size[g, b] = size
    declared = s.uno_declared[g, a]
    s.uno_declared[g, a] = s.uno_declared[g, b]
    s.uno_declared[g, b] = declared
    for c in range(NUM_COLOURS):  # what is known of a hand goes with it
        seen = s.void_draws[g, a, c]
        s.void_draws[g, a, c] = s.void_draws[g, b, c]
        s.void_draws[g, b, c] = seen
    chosen = s.chosen_colour[g, a]
    s.chosen_colour[g, a] = s.chosen_colour[g, b]
    s.chosen_colour[g, b] = chosen
    for v in range(s.revealed_from.shape[1]):  # so does a hand a challenge showed (now held at the other seat)
        if s.revealed_from[g, v] == a:
            s.revealed_from[g, v] = b
        elif s.revealed_from[g, v] == b:
            s.revealed_from[g, v] = a


@njit(cache=True, _nrt=False)
def pass_hands_on(s, g: int, num_players: int) -> None:
    """A 0 (``seven_zero``): every hand goes to the next seat in the direction of play
    (swapping one seat's hand with each of the others in turn rotates them all by one)."""
    p = s.current[g]
    for i in range(1, num_players):
        swap_hands(s, g, p, seat_after(p, i, s.direction[g], num_players))


@njit(cache=True, _nrt=False)
def bluffs(hands, colour, pending_draw, phase, games, seats, out) -> None:
    """``out[k]``: playing a Wild Draw Four now in game ``games[k]`` by ``seats[k]`` is a bluff,
    as :func:`play_card` judges it: the player holds a card of the colour in force
    (:func:`holds_colour`). A stacked one never is: on a pending draw, or in phase
    ``CHALLENGE`` on the Wild Draw Four being answered (:func:`stack_on_challenge` makes its
    cards the pending draw first); nor is one with no colour in force. For a referee's tally,
    and for policies on their own view (``hands``: counts per type, any number type)."""
    for k in range(games.size):
        g = games[k]
        out[k] = (
            pending_draw[g] == 0
            and phase[g] != CHALLENGE
            and colour[g] >= 0
            and holds_colour(hands[g, seats[k]], colour[g])
        )


# ---------------------------------------------------------------------- drawing
@njit(cache=True, _nrt=False)
def take_from_pile(hands, hand_size, draw_pile, draw_top, g: int, player: int, count: int) -> int:
    """Move ``count`` cards (all present) from the top of the draw pile to the hand; the last one, or -1."""
    last = -1
    for _ in range(count):
        last = draw_pile[g, draw_top[g]]
        draw_top[g] += 1
        hands[g, player, last] += 1
    hand_size[g, player] += count
    return last


@njit(cache=True, _nrt=False)
def reshuffle(s, g: int) -> None:
    """The draw pile is empty: shuffle the discard pile but its top card into a new draw pile."""
    n = s.discard_len[g] - 1
    if n < 1:
        return
    random_words_one(s.game_seeds, s.rng_counter, g, s.work_words)
    for j in range(n):
        s.draw_pile[g, j] = s.discard[g, j]
    shuffle_into(s.draw_pile[g], n, s.work_words, s.work_order, s.work_cards)
    s.draw_top[g] = 0
    s.draw_end[g] = n
    s.discard_len[g] = 1
    s.discard[g, 0] = s.top[g]
    s.discard_counts[g, :] = 0
    s.discard_counts[g, s.top[g]] = 1


@njit(cache=True, _nrt=False)
def draw_cards(s, g: int, player: int, count: int) -> int:
    """``player`` draws ``count`` cards from the top; returns the last card drawn (-1 if none).

    An empty draw pile is refilled from the discard pile (all but its top card); when
    both are empty the player draws what there is, possibly nothing.
    """
    hands, hand_size, draw_pile, draw_top, draw_end = s.hands, s.hand_size, s.draw_pile, s.draw_top, s.draw_end
    before = hand_size[g, player]
    available = draw_end[g] - draw_top[g]
    if available >= count:
        last = take_from_pile(hands, hand_size, draw_pile, draw_top, g, player, count)
    else:
        last = take_from_pile(hands, hand_size, draw_pile, draw_top, g, player, available)
        reshuffle(s, g)
        rest = min(count - available, draw_end[g] - draw_top[g])
        if rest > 0:
            last = take_from_pile(hands, hand_size, draw_pile, draw_top, g, player, rest)
    unknown_cards_taken(s, g, player, hand_size[g, player] - before)
    return last


@njit(cache=True, _nrt=False)
def unknown_cards_taken(s, g: int, player: int, count: int) -> None:
    """Public history: ``player`` took ``count`` cards nobody else saw, any of which may be
    of a colour it was seen without (``void_draws``)."""
    for c in range(NUM_COLOURS):
        if s.void_draws[g, player, c] >= 0:
            s.void_draws[g, player, c] += count


# ---------------------------------------------------------------------- dealing
@njit(cache=True, _nrt=False)
def deal(s, g: int, num_players: int, hand_size: int) -> None:
    """Shuffle the full deck, deal, turn the starting card and apply its effect."""
    hands, draw_pile, draw_top, draw_end = s.hands, s.draw_pile, s.draw_top, s.draw_end
    next_deal_one(s.game_seeds, s.rng_counter, g)
    random_words_one(s.game_seeds, s.rng_counter, g, s.work_words)
    pile = draw_pile[g]
    for j in range(DECK_SIZE):
        pile[j] = _DECK[j]
    shuffle_into(pile, DECK_SIZE, s.work_words, s.work_order, s.work_cards)  # top of the deck first
    dealt = num_players * hand_size
    hands[g] = 0
    for j in range(dealt):
        hands[g, j % num_players, pile[j]] += 1
    s.hand_size[g, :] = hand_size
    for j in range(DECK_SIZE):  # the rest is the draw pile
        pile[j] = pile[dealt + j] if j < DECK_SIZE - dealt else 0
    draw_top[g] = 0
    draw_end[g] = DECK_SIZE - dealt
    # A Wild Draw Four turned first goes back; the pile is reshuffled and another turned.
    while draw_pile[g, 0] == WILD_DRAW_FOUR:
        random_words_one(s.game_seeds, s.rng_counter, g, s.work_words)
        shuffle_into(pile, draw_end[g], s.work_words, s.work_order, s.work_cards)
    first_card = np.int64(draw_pile[g, 0])
    draw_top[g] = 1
    discard, discard_counts = s.discard, s.discard_counts
    discard[g] = 0
    discard[g, 0] = first_card
    s.discard_len[g] = 1
    discard_counts[g] = 0
    discard_counts[g, first_card] = 1
    s.top[g] = first_card
    s.colour[g] = _COLOUR_OF[first_card]  # a starting Wild leaves no colour (-1) until it is named
    s.direction[g] = 1
    s.pending_draw[g] = 0
    s.drawn_card[g] = -1
    s.challenge_colour[g] = -1
    s.challenge_guilty[g] = False
    s.uno_declared[g] = False
    s.void_draws[g] = -1
    s.chosen_colour[g] = -1
    s.revealed_from[g] = -1
    start_hand(s, g, first_card, num_players)


@njit(cache=True, _nrt=False)
def start_hand(s, g: int, first_card: int, num_players: int) -> None:
    """The first card's effect on the first player (docs/uno.md, "Decisions and phases": start of a hand)."""
    first = s.hand_starter[g]
    kind = _KIND[first_card]
    s.phase[g] = COLOUR if kind == KIND_WILD else PLAY
    current = first
    if kind == KIND_SKIP:
        current += 1
    elif kind == KIND_REVERSE:
        s.direction[g] = -1
        current -= 1  # the dealer, seat before the first player, plays first
    elif kind == KIND_DRAW_TWO:
        draw_cards(s, g, first, DRAW_TWO_DRAW)
        current += 1
    s.current[g] = current % num_players


@njit(cache=True, _nrt=False)
def new_game(s, g: int, rules) -> None:
    """Start a new game (a hand, or the first hand of a match) in game ``g``."""
    s.scores[g] = 0
    s.match_rewards[g] = 0.0
    s.hand_number[g] = 0
    s.hand_starter[g] = 0
    deal(s, g, rules.num_players, rules.hand_size)


# ---------------------------------------------------------------------- turn effects
@njit(cache=True, _nrt=False)
def pass_turn(s, g: int, steps: int, num_players: int) -> None:
    """The turn goes ``steps`` seats on (2 skips the next player); phase ``play``."""
    s.current[g] = seat_after(s.current[g], steps, s.direction[g], num_players)
    s.phase[g] = PLAY
    s.drawn_card[g] = -1


@njit(cache=True, _nrt=False)
def play_card(s, out, g: int, card: int, named: int, rules) -> bool:
    """Move ``card`` from the player's hand to the discard pile; a last card ends the hand,
    a second-to-last asks for UNO. Returns whether the card takes effect now."""
    hands, hand_size = s.hands, s.hand_size
    p = s.current[g]
    hands[g, p, card] -= 1
    hand_size[g, p] -= 1
    s.discard[g, s.discard_len[g]] = card
    s.discard_len[g] += 1
    s.discard_counts[g, card] += 1
    s.top[g] = card
    s.uno_declared[g, p] = False
    s.drawn_card[g] = -1
    played_colour = _COLOUR_OF[card]
    for c in range(NUM_COLOURS):  # unknown cards left: fewer if this was one, never more than held
        if s.void_draws[g, p, c] > 0:
            s.void_draws[g, p, c] = min(s.void_draws[g, p, c] - (c == played_colour), hand_size[g, p])
    if card == WILD_DRAW_FOUR and s.pending_draw[g] == 0:  # a stacked one is no bluff: no challenge
        before = s.colour[g]
        s.challenge_guilty[g] = holds_colour(hands[g, p], before)
        s.challenge_colour[g] = before
    new_colour = named if named >= 0 else _COLOUR_OF[card]
    if named >= 0 or new_colour != s.colour[g]:  # public history: a colour the player chose
        s.chosen_colour[g, p] = new_colour
    s.colour[g] = new_colour
    left = hand_size[g, p]
    if left == 0:
        end_hand(s, out, g, p, rules)
        return False
    if left == 1 and rules.uno_penalty > 0:
        s.phase[g] = UNO
        return False
    return True


@njit(cache=True, _nrt=False)
def apply_effect(s, g: int, rules) -> None:
    """Effect of the top card just played by the current player; passes the turn (after a
    7 under ``seven_zero``, the player first names whom to swap with: phase ``swap``)."""
    num_players, stacking = rules.num_players, rules.stacking
    p = s.current[g]
    kind = _KIND[s.top[g]]
    steps = 1
    if rules.seven_zero and kind == SWAP_KIND:
        s.phase[g] = SWAP
        return
    if rules.seven_zero and kind == PASS_ON_KIND:
        pass_hands_on(s, g, num_players)
    elif kind == KIND_REVERSE:
        s.direction[g] = -s.direction[g]
        if num_players == 2:
            steps = 2  # with two players a Reverse acts as a Skip
    elif kind == KIND_SKIP:
        steps = 2
    elif kind == KIND_DRAW_TWO:
        if stacking:
            s.pending_draw[g] += DRAW_TWO_DRAW
        else:
            draw_cards(s, g, seat_after(p, 1, s.direction[g], num_players), DRAW_TWO_DRAW)
            steps = 2
    elif kind == KIND_WILD_DRAW_FOUR and s.pending_draw[g] > 0:  # stacked (stack_wild_draw_four)
        s.pending_draw[g] += WILD_DRAW_FOUR_DRAW
    pass_turn(s, g, steps, num_players)
    if kind == KIND_WILD_DRAW_FOUR and s.pending_draw[g] == 0:
        s.phase[g] = CHALLENGE


@njit(cache=True, _nrt=False)
def stack_on_challenge(s, g: int) -> None:
    """``stack_wild_draw_four``: the player facing a Wild Draw Four answers with one of its
    own instead of challenging or accepting; the first one's 4 cards become the pending draw."""
    s.pending_draw[g] += WILD_DRAW_FOUR_DRAW
    s.challenge_colour[g] = -1
    s.challenge_guilty[g] = False


@njit(cache=True, _nrt=False)
def swap_action(s, g: int, steps: int, num_players: int) -> None:
    """``swap k`` after a 7 (``seven_zero``): hands swapped with the player ``k`` seats on; the turn passes."""
    swap_hands(s, g, s.current[g], seat_after(s.current[g], steps, s.direction[g], num_players))
    pass_turn(s, g, 1, num_players)


@njit(cache=True, _nrt=False)
def draw_action(s, g: int, rules) -> None:
    """``draw``: the stacked Draw Twos (ending the turn), or one card, played at once if it
    can be; with ``draw_until_playable`` more cards until one can, or nothing is left.

    Public history: without ``draw_anytime`` a player draws only with nothing to play, so
    everybody learns it holds no card of the colour in force (``void_draws``)."""
    num_players = rules.num_players
    p = s.current[g]
    pending = s.pending_draw[g]
    if pending > 0:
        draw_cards(s, g, p, pending)
        s.pending_draw[g] = 0
        pass_turn(s, g, 1, num_players)
        return
    colour = s.colour[g]
    if not rules.draw_anytime:
        s.void_draws[g, p, colour] = 0
    card = draw_cards(s, g, p, 1)
    while rules.draw_until_playable and card >= 0 and not playable(card, s.top[g], colour, 0):
        if not rules.draw_anytime:
            s.void_draws[g, p, colour] -= 1  # an unplayable card: not of that colour either
        card = draw_cards(s, g, p, 1)  # ends: the piles run out (-1) before the deck does
    if card >= 0 and playable(card, s.top[g], s.colour[g], s.pending_draw[g]):
        s.phase[g] = DRAWN
        s.drawn_card[g] = card
    else:
        pass_turn(s, g, 1, num_players)


@njit(cache=True, _nrt=False)
def answer_challenge(s, g: int, challenge: bool, num_players: int) -> None:
    """Accept (draw 4, lose the turn) or challenge the Wild Draw Four just played.

    A guilty player draws 4 and the challenger plays on; an innocent one makes the
    challenger draw 6 and lose the turn. Either way the challenger sees the hand.
    """
    challenger = s.current[g]
    bluffer = challenged_seat(challenger, s.direction[g], num_players)
    s.challenge_colour[g] = -1
    if challenge:  # shown to the challenger alone, beside what other challenges showed other seats
        for t in range(NUM_CARD_TYPES):
            s.revealed_hand[g, challenger, t] = s.hands[g, bluffer, t]
        s.revealed_from[g, challenger] = bluffer
    guilty = challenge and s.challenge_guilty[g]
    if guilty:
        draw_cards(s, g, bluffer, WILD_DRAW_FOUR_DRAW)
    else:
        draw_cards(s, g, challenger, INNOCENT_CHALLENGE_DRAW if challenge else WILD_DRAW_FOUR_DRAW)
    s.phase[g] = PLAY  # a guilty player's challenger plays on the declared colour
    if not guilty:
        pass_turn(s, g, 1, num_players)


@njit(cache=True, _nrt=False)
def declare_uno(s, g: int, declared: bool, rules) -> None:
    """Declare UNO or stay silent (caught with ``uno_catch_prob``: penalty draw)."""
    p = s.current[g]
    uno_penalty, catch_prob = rules.uno_penalty, rules.uno_catch_prob
    if declared:
        s.uno_declared[g, p] = True
        return
    if catch_prob >= 1.0:
        caught = True
    elif catch_prob > 0.0:
        caught = random_uniform_one(s.game_seeds, s.rng_counter, g) < catch_prob
    else:
        caught = False
    if caught:
        draw_cards(s, g, p, uno_penalty)


# ---------------------------------------------------------------------- scoring
@njit(cache=True, _nrt=False)
def end_hand(s, out, g: int, winner: int, rules) -> None:
    """``winner`` played its last card: final draws, scoring, match end or next hand."""
    num_players, reverse_scoring = rules.num_players, rules.reverse_scoring
    hands, scores = s.hands, s.scores
    kind = _KIND[s.top[g]]
    final_draw = 0
    if kind == KIND_DRAW_TWO:
        final_draw = DRAW_TWO_DRAW + s.pending_draw[g]
    elif kind == KIND_WILD_DRAW_FOUR:
        final_draw = WILD_DRAW_FOUR_DRAW + s.pending_draw[g]  # stacked ones too
    if final_draw > 0:
        draw_cards(s, g, seat_after(winner, 1, s.direction[g], num_players), final_draw)
    s.pending_draw[g] = 0
    s.challenge_colour[g] = -1  # no challenge of a final card
    s.challenge_guilty[g] = False
    values, points, hand_reward = s.work_values, s.work_points, s.work_reward
    total = 0
    for p in range(num_players):
        values[p] = 0
        for t in range(NUM_CARD_TYPES):
            values[p] += hands[g, p, t] * _VALUE[t]
        total += values[p]
    for p in range(num_players):
        points[p] = values[p] if reverse_scoring else (total if p == winner else 0)
        hand_reward[p] = float(-values[p])  # 0.0, not -0.0, for an empty hand
    if not reverse_scoring:
        hand_reward[winner] = total
    for p in range(num_players):
        scores[g, p] += points[p]
        s.hand_points[g, p] = points[p]
    s.hand_ended[g] = True
    s.hand_winner[g] = winner
    if not rules.match:
        for p in range(num_players):
            s.work_winners[p] = p == winner
        game_over(s, out, g, s.work_winners, hand_reward, rules)
        return
    for p in range(num_players):
        s.match_rewards[g, p] += hand_reward[p]
    if match_over_one(scores[g], rules.target_score, reverse_scoring):
        match_leaders_one(scores[g], reverse_scoring, s.work_winners)
        game_over(s, out, g, s.work_winners, s.match_rewards[g], rules)
        return
    s.hand_number[g] += 1
    if rules.winner_starts:
        s.hand_starter[g] = winner
    else:
        s.hand_starter[g] = (s.hand_starter[g] + 1) % num_players
    deal(s, g, num_players, rules.hand_size)


@njit(cache=True, _nrt=False)
def game_over(s, out, g: int, winners, points_reward, rules) -> None:
    """Game over: rewards for every seat (``win`` or ``points``), winners and final scores."""
    num_players, points = rules.num_players, rules.points_reward
    n_win = 0
    for p in range(num_players):
        n_win += winners[p]
    n_lose = num_players - n_win
    for p in range(num_players):
        if points:
            out.rewards[g, p] = points_reward[p] * POINTS_REWARD_SCALE
        elif n_lose == 0:
            out.rewards[g, p] = 0.0
        elif winners[p]:
            out.rewards[g, p] = 1.0 / n_win
        else:
            out.rewards[g, p] = -1.0 / n_lose
        out.winners[g, p] = winners[p]
        out.final_scores[g, p] = s.scores[g, p]
    out.done[g] = True


# ---------------------------------------------------------------------- one step
@njit(cache=True, _nrt=False)
def step_games(s, out, actions, rules) -> None:
    """Apply each game's action (all checked legal); a game that ends sets ``done``."""
    for g in range(actions.size):
        if s.phase[g] == OVER:
            continue  # a finished game ignores its action
        a = actions[g]
        if a < A.DRAW:
            if s.phase[g] == CHALLENGE:  # only a Wild Draw Four, stacked on the one being answered
                stack_on_challenge(s, g)
            if play_card(s, out, g, _ACTION_CARD[a], _ACTION_COLOUR[a], rules):
                apply_effect(s, g, rules)
        elif a == A.DRAW:
            draw_action(s, g, rules)
        elif a == A.PASS:
            pass_turn(s, g, 1, rules.num_players)
        elif a == A.CHALLENGE or a == A.ACCEPT:
            answer_challenge(s, g, a == A.CHALLENGE, rules.num_players)
        elif a == A.UNO or a == A.SILENT:
            declare_uno(s, g, a == A.UNO, rules)
            apply_effect(s, g, rules)
        elif a >= A.SWAP:
            swap_action(s, g, a - A.SWAP + 1, rules.num_players)
        else:  # the colour of a starting Wild, named by the first player
            s.colour[g] = _ACTION_COLOUR[a]
            s.chosen_colour[g, s.current[g]] = _ACTION_COLOUR[a]
            s.phase[g] = PLAY


@njit(cache=True, _nrt=False)
def step_and_observe(*args) -> int:
    """One whole step of the batch: what ``BatchedEngine.step`` asks of a game's kernel.
    ``args``: the state's arrays (:data:`STATE`), then ``actions, legal, obs, mask, rewards,
    done, winners, final_scores, rules_record, auto_reset, deal_here``.

    Returns the first game whose action is out of range or not ``legal`` (the mask of
    the last observation), having changed nothing; else applies every action, deals
    again where a game ended (``deal_here``; otherwise a game that ended without
    ``auto_reset`` is put in phase over), writes the next ``obs`` and ``mask`` and returns -1.
    """
    s, (actions, legal, obs, mask, rewards, done, winners, final_scores, rules_record, auto_reset, deal_here) = (
        split_args(args)
    )
    out = StepOutputs(rewards, done, winners, final_scores)
    rules = rules_record[0]
    for g in range(actions.size):
        a = actions[g]
        if a < 0 or a >= A.NUM_ACTIONS or (s.phase[g] != OVER and not legal[g, a]):
            return g
    begin_step(s)
    step_games(s, out, actions, rules)
    for g in range(actions.size):
        if done[g]:
            if deal_here:
                new_game(s, g, rules)
            elif not auto_reset:
                s.phase[g] = OVER
    write_legal_mask(s, mask, rules)
    write_observation(s, s.current, obs, rules)
    return -1


@njit(cache=True, _nrt=False)
def clear_last_step(*args) -> None:
    """Entry point: :func:`begin_step` (before a reset deals, as before a step)."""
    s, _ = split_args(args)
    begin_step(s)


@njit(cache=True, _nrt=False)
def legal_mask(*args):
    """Entry point (state, ``mask, rules_record``): :func:`write_legal_mask` of every game."""
    s, (mask, rules_record) = split_args(args)
    write_legal_mask(s, mask, rules_record[0])


@njit(cache=True, _nrt=False)
def observation(*args):
    """Entry point (state, ``viewer, obs, rules_record``): :func:`write_observation` of every
    game for ``viewer[g]``."""
    s, (viewer, obs, rules_record) = split_args(args)
    write_observation(s, viewer, obs, rules_record[0])


@njit(cache=True, _nrt=False)
def observe_games(*args) -> None:
    """Entry point (state, ``games, obs, mask, rules_record``): rewrite the mask and
    observation rows of ``games`` (dealt again)."""
    s, (games, obs, mask, rules_record) = split_args(args)
    rules = rules_record[0]
    for g in games:
        write_legal_mask_row(s, g, mask[g], rules)
        write_observation_row(s, g, s.current[g], obs[g], rules)


@njit(cache=True, _nrt=False)
def new_games(*args):
    """Entry point (state, ``games, rules_record``): start a new game (a hand, or a match's
    first hand) in each of ``games``."""
    s, (games, rules_record) = split_args(args)
    for g in games:
        new_game(s, g, rules_record[0])


@njit(cache=True, _nrt=False)
def begin_step(s) -> None:
    """Clear last step's events; a revealed hand is shown until its viewer's next decision."""
    for g in range(s.phase.size):
        s.hand_ended[g] = False
        s.hand_winner[g] = -1
        s.hand_points[g] = 0
        s.revealed_from[g, s.current[g]] = -1  # it saw the hand at this decision


# ---------------------------------------------------------------------- legal actions
@njit(cache=True, _nrt=False)
def write_legal_mask(s, mask, rules) -> None:
    """``mask[g]``: the legal actions of game g's player to act, for every game."""
    for g in range(mask.shape[0]):
        write_legal_mask_row(s, g, mask[g], rules)


@njit(cache=True, _nrt=False)
def write_legal_mask_row(s, g: int, row, rules) -> None:
    """``row``: the legal actions of game g's player to act (all False when over)."""
    hands, top, colour, current, phase, pending_draw, drawn_card = (
        s.hands,
        s.top,
        s.colour,
        s.current,
        s.phase,
        s.pending_draw,
        s.drawn_card,
    )
    row[:] = False
    ph = phase[g]
    if ph == PLAY:
        match = MATCH[match_context(top[g], colour[g], pending_draw[g], rules.stack_wild_draw_four), top[g]]
        hand = hands[g, current[g]]
        anything = False
        for t in range(A.NUM_COLOURED_TYPES):
            if hand[t] > 0 and match[t]:
                row[t] = True
                anything = True
        if hand[WILD] > 0 and match[WILD]:
            row[A.PLAY_WILD : A.PLAY_WILD + 4] = True
            anything = True
        if hand[WILD_DRAW_FOUR] > 0 and match[WILD_DRAW_FOUR]:
            row[A.PLAY_WILD_DRAW_FOUR : A.PLAY_WILD_DRAW_FOUR + 4] = True
            anything = True
        row[A.DRAW] = rules.draw_anytime or not anything or pending_draw[g] > 0
    elif ph == DRAWN:
        card = drawn_card[g]
        if card == WILD:
            row[A.PLAY_WILD : A.PLAY_WILD + 4] = True
        elif card == WILD_DRAW_FOUR:
            row[A.PLAY_WILD_DRAW_FOUR : A.PLAY_WILD_DRAW_FOUR + 4] = True
        else:
            row[card] = True
        row[A.PASS] = not rules.must_play_drawn
    elif ph == CHALLENGE:
        row[A.CHALLENGE] = True
        row[A.ACCEPT] = True
        if rules.stack_wild_draw_four and hands[g, current[g], WILD_DRAW_FOUR] > 0:
            row[A.PLAY_WILD_DRAW_FOUR : A.PLAY_WILD_DRAW_FOUR + 4] = True
    elif ph == UNO:
        row[A.UNO] = True
        row[A.SILENT] = True
    elif ph == COLOUR:
        row[A.CHOOSE_COLOUR : A.CHOOSE_COLOUR + 4] = True
    elif ph == SWAP:
        row[A.SWAP : A.SWAP + rules.num_players - 1] = True


# ---------------------------------------------------------------------- observation
@njit(cache=True, _nrt=False)
def write_observation(s, viewer, obs, rules) -> None:
    """``obs[g]``: what ``viewer[g]`` may know of game g, for every game."""
    for g in range(obs.shape[0]):
        write_observation_row(s, g, viewer[g], obs[g], rules)


@njit(cache=True, _nrt=False)
def write_observation_row(s, g: int, v: int, row, rules) -> None:
    """``row``: what seat ``v`` may know of game g (envs.uno.observation's layout)."""
    hands, hand_size, uno_declared, scores = s.hands, s.hand_size, s.uno_declared, s.scores
    top, colour, direction, current, phase = s.top, s.colour, s.direction, s.current, s.phase
    drawn_card, challenge_colour = s.drawn_card, s.challenge_colour
    revealed_hand, revealed_from = s.revealed_hand, s.revealed_from
    num_players = rules.num_players
    score_scale = 1.0 / rules.target_score
    row[:] = 0.0
    for t in range(NUM_CARD_TYPES):
        row[_HAND + t] = hands[g, v, t]
        row[_DISCARD_COUNTS + t] = s.discard_counts[g, t]
    row[_TOP + top[g]] = 1.0
    if colour[g] >= 0:
        row[_COLOUR + colour[g]] = 1.0
    d = direction[g]
    row[_DIRECTION] = d
    row[_NUM_PLAYERS] = num_players
    # Relative seats in the direction of play from the viewer.
    for i in range(num_players):
        seat = seat_after(v, i, d, num_players)
        row[_HAND_SIZES + i] = hand_size[g, seat]
        row[_UNO_DECLARED + i] = uno_declared[g, seat]
        row[_SCORES + i] = scores[g, seat] * score_scale
    row[_DRAW_PILE_SIZE] = s.draw_end[g] - s.draw_top[g]
    row[_DISCARD_PILE_SIZE] = s.discard_len[g]
    if phase[g] < OVER:
        row[_PHASE + phase[g]] = 1.0
    row[_PENDING_DRAW] = s.pending_draw[g]
    if drawn_card[g] >= 0 and v == current[g]:  # only the drawer knows it
        row[_DRAWN_CARD + drawn_card[g]] = 1.0
    if challenge_colour[g] >= 0:
        row[_CHALLENGE_COLOUR + challenge_colour[g]] = 1.0
    if revealed_from[g, v] >= 0:
        for t in range(NUM_CARD_TYPES):
            row[_REVEALED_HAND + t] = revealed_hand[g, v, t]
        row[_REVEALED_SEAT + ((revealed_from[g, v] - v) * d) % num_players] = 1.0
    for i in range(num_players):  # public history, per relative seat and colour
        seat = seat_after(v, i, d, num_players)
        for c in range(NUM_COLOURS):
            since = s.void_draws[g, seat, c]
            if since >= 0:
                row[_VOID_COLOURS + i * NUM_COLOURS + c] = 1.0
                row[_VOID_DRAWS + i * NUM_COLOURS + c] = since
        chosen = s.chosen_colour[g, seat]
        if chosen >= 0:
            row[_CHOSEN_COLOURS + i * NUM_COLOURS + chosen] = 1.0
