"""Batched engine of the team trick game: the one place where the rules of game 2 live.

Four players, partners opposite (seats 0+2 are team A, 1+3 team B). Every trick each
player in turn lays one number card (a number already on the table may not be laid,
unless nothing else is possible: a forced duplicate, worth 0), optionally with a special
card; the team with the higher sum takes the trick's cards into its points pile. The
state is a few numpy arrays with the batch first; the piles are circular queues because
cards are drawn from the top and go back *under* the pile.

Decisions, phase by phase (RULES.md, game 2):

* ``lay``: ``lay N`` with no special, or with +2, +4, the +2/+4 pair, Skip, Wild or Reverse.
* ``draw``: after a +2 (+4): take 0-2 (0-4) number cards from the pile. Two or more
  zeros among them bring one special card (automatic).
* ``return``: put number cards back under the pile one at a time, as many as were drawn
  (``exchange_returns="drawn"``) or exactly two (``"two"``).
* ``swap``: after a Reverse: exchange the laid card with that of a seat that has laid,
  or ``keep``.

Skip annuls the trick's points; Wild adds the top card of the number pile to the
player's card (not subject to the duplicate ban, never swapped); the +2/+4 pair takes
three special cards. The game ends when no hand holds a number card; teammates share
their team's reward.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.cards import (
    KIND_DRAW_TWO,
    KIND_REVERSE,
    KIND_SKIP,
    KIND_WILD,
    KIND_WILD_DRAW_FOUR,
    NUM_CARD_TYPES,
    TYPE_COPIES,
    TYPE_KIND,
    TYPE_NUMBER,
)
from envs.core import BatchedEngine, IllegalActionError
from envs.uno_tricks import actions as A
from envs.uno_tricks.observation import FIELDS, OBS_SIZE, PHASES
from envs.uno_tricks.rules import NUM_PLAYERS, NUMBERS_DEALT, POINTS_REWARD_SCALE, SPECIALS_DEALT, TricksRules

__all__ = ["IllegalActionError", "TricksEngine"]

LAY, DRAW, RETURN, SWAP = range(4)
OVER = 4
PHASE_NAMES = PHASES + ("over",)

PAIR_SPECIALS = 3  # the +2/+4 pair takes up to three special cards
ZEROS_FOR_BONUS = 2  # drawing two or more zeros with a +2/+4 brings one special card

#: Every card type's copies, split into the two piles of the game.
NUMBER_TYPES = np.flatnonzero(TYPE_NUMBER >= 0)
SPECIAL_TYPES = np.flatnonzero(TYPE_NUMBER < 0)
NUMBER_DECK = np.repeat(NUMBER_TYPES, TYPE_COPIES[NUMBER_TYPES]).astype(np.int8)  # 76 cards
SPECIAL_DECK = np.repeat(SPECIAL_TYPES, TYPE_COPIES[SPECIAL_TYPES]).astype(np.int8)  # 32 cards
#: ``[10, 4]`` the type ids of number n in colour order; ``[5, 4]`` those of each special kind
#: (skip, reverse, +2, wild, +4; a wild kind has one type, repeated).
NUMBER_TYPE_IDS = np.array([[c * 13 + n for c in range(4)] for n in range(10)])
SPECIAL_KINDS = (KIND_SKIP, KIND_REVERSE, KIND_DRAW_TWO, KIND_WILD, KIND_WILD_DRAW_FOUR)
SPECIAL_TYPE_IDS = np.array([np.resize(np.flatnonzero(TYPE_KIND == k), 4) for k in SPECIAL_KINDS])
_SPECIAL_INDEX = {kind: i for i, kind in enumerate(SPECIAL_KINDS)}
#: For each lay combination, which special kinds (as indices into SPECIAL_KINDS) it uses.
COMBO_SPECIALS = [[_SPECIAL_INDEX[k] for k in kinds] for kinds in A.COMBO_KINDS]
_COMBO_FIRST = np.array([kinds[0] if kinds else -1 for kinds in COMBO_SPECIALS])  # first special card
_COMBO_SECOND = np.array([kinds[1] if len(kinds) > 1 else -1 for kinds in COMBO_SPECIALS])  # the pair's +4
# For the legal mask: which combinations need no special / at most one, and safe column indices.
_COMBO_NEEDS_NONE = _COMBO_FIRST < 0
_COMBO_NEEDS_ONE = _COMBO_SECOND < 0
_COMBO_FIRST_SAFE = np.maximum(_COMBO_FIRST, 0)
_COMBO_SECOND_SAFE = np.maximum(_COMBO_SECOND, 0)
_NUMBER_OF = np.where(TYPE_NUMBER >= 0, TYPE_NUMBER, 0).astype(np.int64)  # value of a number card type
_SPECIAL_OF = np.full(NUM_CARD_TYPES, -1, np.int64)  # special kind index of a type
for _i, _kind in enumerate(SPECIAL_KINDS):
    _SPECIAL_OF[TYPE_KIND == _kind] = _i

_SEAT_ORDER = (np.arange(NUM_PLAYERS)[:, None] + np.arange(NUM_PLAYERS)) % NUM_PLAYERS  # [viewer, relative]
_CAT_LAY, _CAT_DRAW, _CAT_RETURN, _CAT_SWAP, _CAT_NONE = range(5)
_ACTION_CATEGORY = np.full(A.NUM_ACTIONS, _CAT_LAY, np.int64)
_ACTION_CATEGORY[A.DRAW : A.DRAW + 5] = _CAT_DRAW
_ACTION_CATEGORY[A.RETURN : A.RETURN + 10] = _CAT_RETURN
_ACTION_CATEGORY[A.SWAP :] = _CAT_SWAP
_F = {name: field.start for name, field in FIELDS.items()}


class CardQueue:
    """Per-game piles drawn from the top and refilled from below: circular buffers."""

    def __init__(self, num_games: int, capacity: int) -> None:
        self.capacity = capacity
        self.cards = np.zeros((num_games, capacity), np.int8)
        self.start = np.zeros(num_games, np.int64)  # index of the top card
        self.count = np.zeros(num_games, np.int64)

    def set(self, game: int, cards: Sequence[int]) -> None:
        self.cards[game, : len(cards)] = cards
        self.start[game], self.count[game] = 0, len(cards)

    def listing(self, game: int) -> np.ndarray:
        """The cards of one game, top first."""
        return self.cards[game, (self.start[game] + np.arange(self.count[game])) % self.capacity]

    def take(self, games: np.ndarray, wanted: np.ndarray) -> np.ndarray:
        """Remove ``wanted`` cards (at most what is there) from the top; ``[k, max(wanted)]``, -1 padded."""
        counts = np.minimum(wanted, self.count[games])
        width = int(np.max(wanted, initial=0))
        offsets = np.arange(width)
        slots = (self.start[games][:, None] + offsets) % self.capacity
        cards = self.cards[games[:, None], slots].astype(np.int64)
        cards[offsets[None, :] >= counts[:, None]] = -1
        self.start[games] = (self.start[games] + counts) % self.capacity
        self.count[games] -= counts
        return cards

    def put_under(self, games: np.ndarray, cards: np.ndarray) -> None:
        """Append the non-negative entries of ``cards [k, m]``, row by row in order, at the bottom."""
        present = cards >= 0
        slot = self.start[games][:, None] + self.count[games][:, None] + np.cumsum(present, axis=1) - 1
        rows = np.broadcast_to(games[:, None], cards.shape)
        self.cards[rows[present], slot[present] % self.capacity] = cards[present]
        self.count[games] += present.sum(axis=1)


class TricksEngine(BatchedEngine):
    """``num_games`` games of the trick game, stepped together (always four players).

    >>> eng = TricksEngine(num_games=4096, rules=TricksRules(), seed=0)
    >>> obs, mask = eng.reset()          # float32 [B, 161], bool [B, 89]
    >>> obs, mask, rewards, done = eng.step(actions)   # rewards [B, 4]: partners share theirs

    ``trick_ended`` / ``trick_winner`` (0 team A, 1 team B, -1 tie or annulled) describe
    tricks that ended in the last step.
    """

    game = "tricks"
    obs_size = OBS_SIZE
    action_names = A.ACTION_NAMES
    phase_names = PHASE_NAMES
    positions_module = "envs.uno_tricks.positions"
    state_fields = (
        "hands",
        "hand_numbers",
        "hand_specials",
        "number_count",
        "special_count",
        "on_table",
        "numbers.cards",
        "numbers.start",
        "numbers.count",
        "specials.cards",
        "specials.start",
        "specials.count",
        "table_card",
        "table_forced",
        "table_laid_by",
        "table_added",
        "table_value",
        "table_specials",
        "table_special_kinds",
        "annulled",
        "points_piles",
        "points",
        "numbers_out",
        "leader",
        "current",
        "phase",
        "trick",
        "draw_limit",
        "returns_left",
        "trick_ended",
        "trick_winner",
    )
    table_size = NUM_PLAYERS
    rules_type = TricksRules

    def __init__(
        self,
        num_games: int = 1,
        num_players: int = NUM_PLAYERS,
        rules: TricksRules | None = None,
        seed: int | Sequence[int] | None = None,
        auto_reset: bool = True,
    ) -> None:
        super().__init__(num_games, num_players, rules, seed, auto_reset)

    # ------------------------------------------------------------------ state
    def _allocate(self) -> None:
        B = self.num_games
        P = NUM_PLAYERS
        self.hands = np.zeros((B, P, NUM_CARD_TYPES), np.int8)  # number and special cards, by type
        self._hand_rows = self.hands.reshape(B * P, NUM_CARD_TYPES)
        self._row_base = self._ar * P  # seat p of game b is row b * P + p of the [B * P, ...] views
        # Summaries of the hands that play and observation read, kept in step with them:
        self.hand_numbers = np.zeros((B, P, 10), np.int8)  # number cards per number
        self.hand_specials = np.zeros((B, P, 5), np.int8)  # special cards per kind
        self.number_count = np.zeros((B, P), np.int64)
        self.special_count = np.zeros((B, P), np.int64)
        self.on_table = np.zeros((B, 10), bool)  # numbers laid this trick (Wild-added cards not)
        self.numbers = CardQueue(B, NUMBER_DECK.size)
        self.specials = CardQueue(B, SPECIAL_DECK.size)
        self.table_card = np.full((B, NUM_PLAYERS), -1, np.int64)  # laid number card per seat
        self.table_forced = np.zeros((B, NUM_PLAYERS), bool)  # a forced duplicate, worth 0
        self.table_laid_by = np.full((B, NUM_PLAYERS), -1, np.int64)  # who laid it (a swap moves cards)
        self.table_added = np.full((B, NUM_PLAYERS), -1, np.int64)  # card a Wild added
        self.table_value = np.zeros((B, NUM_PLAYERS), np.int64)  # what each seat's cards are worth now
        self.table_specials = np.full((B, NUM_PLAYERS, 2), -1, np.int64)  # specials laid with it
        self.table_special_kinds = np.zeros((B, NUM_PLAYERS, 5), np.int8)  # the same, per kind
        self.annulled = np.zeros(B, bool)  # a Skip was laid this trick
        self.points_piles = np.zeros((B, 2, NUM_CARD_TYPES), np.int8)  # per team
        self.points = np.zeros((B, 2), np.int64)  # value of each team's points pile
        self.numbers_out = np.zeros((B, 10), np.int64)  # number cards in the points piles, per number
        self.leader = np.zeros(B, np.int64)
        self.current = np.zeros(B, np.int64)
        self.phase = np.zeros(B, np.int64)
        self.trick = np.ones(B, np.int64)
        self.draw_limit = np.zeros(B, np.int64)
        self.returns_left = np.zeros(B, np.int64)
        self.trick_ended = np.zeros(B, bool)
        self.trick_winner = np.full(B, -1, np.int64)

    # ------------------------------------------------------------------ hands
    def _sync_summaries(self, games: np.ndarray) -> None:
        """Recompute the summaries of hands, points piles and table from the cards themselves
        (after a deal or a loaded position; every step keeps them in step incrementally)."""
        hands = self.hands[games].astype(np.int64)
        coloured = hands[..., :52].reshape(games.size, NUM_PLAYERS, 4, 13)
        self.hand_numbers[games] = coloured[..., :10].sum(axis=2)
        self.hand_specials[games] = np.concatenate([coloured[..., 10:13].sum(axis=2), hands[..., 52:54]], axis=2)
        self.number_count[games] = self.hand_numbers[games].sum(axis=2)
        self.special_count[games] = self.hand_specials[games].sum(axis=2)
        piles = self.points_piles[games].astype(np.int64)
        self.points[games] = piles @ _NUMBER_OF
        self.numbers_out[games] = piles.sum(axis=1)[:, :52].reshape(games.size, 4, 13)[..., :10].sum(axis=1)
        laid = self.table_specials[games]
        kinds = np.zeros((games.size, NUM_PLAYERS, 6), np.int8)  # column 5 collects the empty slots
        np.add.at(
            kinds,
            (
                np.arange(games.size)[:, None, None],
                np.arange(NUM_PLAYERS)[None, :, None],
                np.where(laid >= 0, _SPECIAL_OF[np.maximum(laid, 0)], 5),
            ),
            1,
        )
        self.table_special_kinds[games] = kinds[..., :5]
        self.table_value[games] = self._seat_values(
            self.table_card[games], self.table_forced[games], self.table_added[games]
        )
        card = self.table_card[games]
        on = np.zeros((games.size, 11), bool)
        on[np.arange(games.size)[:, None], np.where(card >= 0, _NUMBER_OF[np.maximum(card, 0)], 10)] = True
        self.on_table[games] = on[:, :10]

    def _remove_first(self, games: np.ndarray, seats: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
        """Take from each hand the first held type among ``type_ids [k, 4]`` (colour order);
        all of one kind: number cards of one number, or special cards of one kind."""
        row = (self._row_base[games] + seats) * NUM_CARD_TYPES
        held = self.hands.ravel().take(row[:, None] + type_ids)  # [k, 4] copies of each candidate
        card = type_ids[np.arange(games.size), (held > 0).argmax(axis=1)]
        self.hands[games, seats, card] -= 1
        if TYPE_NUMBER[type_ids[0, 0]] >= 0:
            self.hand_numbers[games, seats, _NUMBER_OF[card]] -= 1
            self.number_count[games, seats] -= 1
        else:
            self.hand_specials[games, seats, _SPECIAL_OF[card]] -= 1
            self.special_count[games, seats] -= 1
        return card

    def _give(self, games: np.ndarray, seats: np.ndarray, cards: np.ndarray) -> None:
        """Add cards ``[k, m]`` (-1 padded; all number cards or all special cards) to the hands."""
        present = cards >= 0
        if not present.any():
            return
        row = np.broadcast_to((games * NUM_PLAYERS + seats)[:, None], cards.shape)[present]
        card = cards[present]
        np.add.at(self._hand_rows, (row, card), 1)
        got = present.sum(axis=1)
        if TYPE_NUMBER[card[0]] >= 0:
            np.add.at(self.hand_numbers.reshape(-1, 10), (row, _NUMBER_OF[card]), 1)
            self.number_count[games, seats] += got
        else:
            np.add.at(self.hand_specials.reshape(-1, 5), (row, _SPECIAL_OF[card]), 1)
            self.special_count[games, seats] += got

    # ------------------------------------------------------------------ dealing
    def _new_episode(self, games: np.ndarray) -> None:
        k = games.size
        self._next_deal(games)
        numbers = NUMBER_DECK[np.argsort(self._random(games, NUMBER_DECK.size), axis=1)]
        specials = SPECIAL_DECK[np.argsort(self._random(games, SPECIAL_DECK.size), axis=1)]
        dealt_n, dealt_s = NUM_PLAYERS * NUMBERS_DEALT, NUM_PLAYERS * SPECIALS_DEALT
        seat_n = np.arange(dealt_n) // NUMBERS_DEALT
        seat_s = np.arange(dealt_s) // SPECIALS_DEALT
        rows = np.arange(k)[:, None] * NUM_PLAYERS
        dealt = [
            (rows + seat_n) * NUM_CARD_TYPES + numbers[:, :dealt_n],
            (rows + seat_s) * NUM_CARD_TYPES + specials[:, :dealt_s],
        ]
        flat = np.concatenate(dealt, axis=1).ravel()
        counts = np.bincount(flat, minlength=k * NUM_PLAYERS * NUM_CARD_TYPES)
        self.hands[games] = counts.reshape(k, NUM_PLAYERS, NUM_CARD_TYPES)
        self.numbers.cards[games] = 0
        self.numbers.cards[games, : NUMBER_DECK.size - dealt_n] = numbers[:, dealt_n:]
        self.numbers.start[games], self.numbers.count[games] = 0, NUMBER_DECK.size - dealt_n
        self.specials.cards[games] = 0
        self.specials.cards[games, : SPECIAL_DECK.size - dealt_s] = specials[:, dealt_s:]
        self.specials.start[games], self.specials.count[games] = 0, SPECIAL_DECK.size - dealt_s
        self.points_piles[games] = 0
        self.trick[games] = 1
        leader = (self._random(games, 1)[:, 0] % np.uint64(NUM_PLAYERS)).astype(np.int64)  # drawn at random
        self._clear_table(games)
        self._start_trick(games, leader)
        self._sync_summaries(games)

    def _start_trick(self, games: np.ndarray, leader: np.ndarray) -> None:
        """``leader`` leads the next trick (the table is clear)."""
        self.leader[games] = leader
        self.current[games] = leader
        self.phase[games] = LAY

    def _clear_table(self, games: np.ndarray) -> None:
        """No card on the table, no pending decision: between tricks and at the end."""
        self.table_card[games] = -1
        self.table_forced[games] = False
        self.table_laid_by[games] = -1
        self.table_added[games] = -1
        self.table_value[games] = 0
        self.table_specials[games] = -1
        self.table_special_kinds[games] = 0
        self.annulled[games] = False
        self.on_table[games] = False
        self.draw_limit[games] = 0
        self.returns_left[games] = 0

    # ------------------------------------------------------------------ one step
    def _begin_step(self) -> None:
        self.trick_ended[:] = False
        self.trick_winner[:] = -1

    def _apply(self, actions: np.ndarray) -> None:
        turn_over = []
        for cat, g in self._groups(_ACTION_CATEGORY[actions], _CAT_NONE).items():
            a = actions[g]
            if cat == _CAT_LAY:
                turn_over.append(self._lay(g, a % 10, a // 10))
            elif cat == _CAT_DRAW:
                turn_over.append(self._draw(g, a - A.DRAW))
            elif cat == _CAT_RETURN:
                turn_over.append(self._return(g, a - A.RETURN))
            elif cat == _CAT_SWAP:
                turn_over.append(self._swap(g, a - A.SWAP + 1))
        if turn_over:
            done = np.concatenate(turn_over)
            if done.size:
                self._end_turn(done)

    def _lay(self, games: np.ndarray, number: np.ndarray, combo: np.ndarray) -> np.ndarray:
        """Lay a number card (and specials); returns the games whose turn is over."""
        p = self.current[games]
        card = self._remove_first(games, p, NUMBER_TYPE_IDS[number])
        self.table_card[games, p] = card
        self.table_laid_by[games, p] = p
        forced = self.on_table[games, number]
        self.table_forced[games, p] = forced
        self.table_value[games, p] = np.where(forced, 0, number)
        self.on_table[games, number] = True
        for slot, kinds in enumerate((_COMBO_FIRST, _COMBO_SECOND)):
            kind = kinds[combo]
            sel = (kind >= 0).nonzero()[0]
            if sel.size:
                g, s, k = games[sel], p[sel], kind[sel]
                self.table_specials[g, s, slot] = self._remove_first(g, s, SPECIAL_TYPE_IDS[k])
                self.table_special_kinds[g, s, k] += 1
        busy = np.zeros(games.size, bool)  # the turn goes on with a decision
        present = np.bincount(combo, minlength=len(A.COMBOS))
        if present[A.SKIP]:
            self.annulled[games[combo == A.SKIP]] = True
        if present[A.WILD]:
            sel = (combo == A.WILD).nonzero()[0]
            g, s = games[sel], p[sel]
            added = self.numbers.take(g, np.ones(sel.size, np.int64))[:, 0]
            self.table_added[g, s] = added
            self.table_value[g, s] += np.where(added >= 0, _NUMBER_OF[np.maximum(added, 0)], 0)
        if present[A.PAIR]:
            sel = (combo == A.PAIR).nonzero()[0]
            self._give(games[sel], p[sel], self.specials.take(games[sel], np.full(sel.size, PAIR_SPECIALS)))
        if present[A.PLUS2] or present[A.PLUS4]:
            sel = ((combo == A.PLUS2) | (combo == A.PLUS4)).nonzero()[0]
            self.draw_limit[games[sel]] = np.where(combo[sel] == A.PLUS2, 2, 4)
            self.phase[games[sel]] = DRAW
            busy[sel] = True
        if present[A.REVERSE]:
            sel = (combo == A.REVERSE).nonzero()[0]
            g = games[sel]
            others = self.table_card[g] >= 0
            others[np.arange(sel.size), p[sel]] = False
            target = others.any(axis=1)  # with nothing else on the table there is no swap
            self.phase[g[target]] = SWAP
            busy[sel[target]] = True
        return games[~busy]

    def _draw(self, games: np.ndarray, taken: np.ndarray) -> np.ndarray:
        """After +2/+4: take number cards; two or more zeros bring a special card; then return."""
        p = self.current[games]
        cards = self.numbers.take(games, taken)
        self._give(games, p, cards)
        zeros = ((cards >= 0) & (_NUMBER_OF[np.maximum(cards, 0)] == 0)).sum(axis=1)
        bonus = (zeros >= ZEROS_FOR_BONUS).nonzero()[0]
        if bonus.size:
            self._give(games[bonus], p[bonus], self.specials.take(games[bonus], np.ones(bonus.size, np.int64)))
        self.draw_limit[games] = 0
        if self.rules.exchange_returns == "drawn":
            returns = (cards >= 0).sum(axis=1)
        else:
            returns = np.minimum(2, self.number_count[games, p])
        self.returns_left[games] = returns
        self.phase[games] = RETURN
        return games[returns == 0]

    def _return(self, games: np.ndarray, number: np.ndarray) -> np.ndarray:
        card = self._remove_first(games, self.current[games], NUMBER_TYPE_IDS[number])
        self.numbers.put_under(games, card[:, None])
        self.returns_left[games] -= 1
        return games[self.returns_left[games] == 0]

    def _swap(self, games: np.ndarray, seats_on: np.ndarray) -> np.ndarray:
        """Reverse: exchange the laid cards (a forced duplicate's 0 goes along) or keep (0)."""
        swap = seats_on < NUM_PLAYERS  # ``keep`` is one past ``swap 3``
        g = games[swap]
        p = self.current[g]
        t = (p + seats_on[swap]) % NUM_PLAYERS
        for table in (self.table_card, self.table_forced, self.table_laid_by):
            mine, theirs = table[g, p].copy(), table[g, t].copy()
            table[g, p], table[g, t] = theirs, mine
        for seat in (p, t):
            self.table_value[g, seat] = self._seat_values(
                self.table_card[g, seat], self.table_forced[g, seat], self.table_added[g, seat]
            )
        return games

    def _end_turn(self, games: np.ndarray) -> None:
        """The next seat (in seat order) that has not laid and holds a number card lays; when
        there is none, the trick is complete."""
        self.phase[games] = LAY
        nxt = np.full(games.size, -1, np.int64)
        todo = np.arange(games.size)  # games still looking for the next seat
        seat = self.current[games]
        for _ in range(NUM_PLAYERS - 1):
            seat = (seat + 1) % NUM_PLAYERS
            g = games[todo]
            laid = self.table_card[g, seat] >= 0  # back at the leader: everyone has laid
            empty = self.number_count[g, seat] == 0  # nothing to lay: passed over
            ready = ~laid & ~empty
            nxt[todo[ready]] = seat[ready]
            going_on = ~laid & empty
            todo, seat = todo[going_on], seat[going_on]
            if not todo.size:
                break
        more = nxt >= 0
        self.current[games[more]] = nxt[more]
        if not more.all():
            self._end_trick(games[~more])

    # ------------------------------------------------------------------ end of a trick
    def _end_trick(self, games: np.ndarray) -> None:
        """Score the trick, move its cards, and start the next one (or end the game)."""
        k = games.size
        leader = self.leader[games]
        values = self.table_value[games]
        sums = np.stack([values[:, 0] + values[:, 2], values[:, 1] + values[:, 3]], axis=1)  # team A, team B
        winner = np.where(self.annulled[games] | (sums[:, 0] == sums[:, 1]), -1, (sums[:, 1] > sums[:, 0]))
        # The trick's cards in laying order: each card laid (wherever a Reverse moved it), and a
        # Wild's card right after the card it was laid with.
        turn = (np.arange(NUM_PLAYERS)[None, :] - leader[:, None]) % NUM_PLAYERS
        laid_turn = (self.table_laid_by[games] - leader[:, None]) % NUM_PLAYERS
        cards = np.concatenate([self.table_card[games], self.table_added[games]], axis=1)
        placed = np.concatenate([2 * laid_turn, 2 * turn + 1], axis=1)
        order = np.argsort(np.where(cards >= 0, placed, 99), axis=1, kind="stable")
        cards = np.take_along_axis(cards, order, axis=1)
        is_forced = np.take_along_axis(np.concatenate([self.table_forced[games], np.zeros((k, 4), bool)], 1), order, 1)
        taken = (cards >= 0) & (winner[:, None] >= 0) & ~is_forced
        self.numbers.put_under(games, np.where(taken, -1, cards))
        won_game, won_slot = taken.nonzero()
        won_card = cards[won_game, won_slot]
        np.add.at(
            self.points_piles.reshape(-1), (games[won_game] * 2 + winner[won_game]) * NUM_CARD_TYPES + won_card, 1
        )
        won_number = np.where(taken, _NUMBER_OF[np.maximum(cards, 0)], 10)  # 10: not taken
        np.add.at(self.numbers_out.reshape(-1), games[won_game] * 10 + won_number[won_game, won_slot], 1)
        scored = winner >= 0
        gain = np.where(taken, won_number, 0).sum(axis=1)
        self.points[games[scored], winner[scored]] += gain[scored]
        seat_order = (leader[:, None] + np.arange(NUM_PLAYERS)) % NUM_PLAYERS
        specials = np.take_along_axis(self.table_specials[games], seat_order[:, :, None], axis=1).reshape(k, -1)
        self.specials.put_under(games, specials)
        self._clear_table(games)
        self.trick_ended[games] = True
        self.trick_winner[games] = winner
        self.trick[games] += 1
        # The next trick is led by the player after this trick's leader (skipping empty hands).
        nxt = np.full(k, -1, np.int64)
        todo, seat = np.arange(k), leader
        for _ in range(NUM_PLAYERS):
            seat = (seat + 1) % NUM_PLAYERS
            has = self.number_count[games[todo], seat] > 0
            nxt[todo[has]] = seat[has]
            todo, seat = todo[~has], seat[~has]
            if not todo.size:
                break
        over = nxt < 0
        self._start_trick(games[~over], nxt[~over])
        if over.any():
            self._game_over(games[over])

    @staticmethod
    def _seat_values(card: np.ndarray, forced: np.ndarray, added: np.ndarray) -> np.ndarray:
        """What table cards are worth: the number (0 if a forced duplicate) plus a Wild's card."""
        own = np.where((card >= 0) & ~forced, _NUMBER_OF[np.maximum(card, 0)], 0)
        return own + np.where(added >= 0, _NUMBER_OF[np.maximum(added, 0)], 0)

    def _game_over(self, games: np.ndarray) -> None:
        points = self.points[games]
        diff = points[:, 0] - points[:, 1]  # team A's margin
        if self.rules.reward == "points":
            team_a = diff * POINTS_REWARD_SCALE
        else:
            team_a = np.sign(diff).astype(np.float64)
        seat_points = points[:, [0, 1, 0, 1]]
        winners = seat_points > points[:, [1, 0, 1, 0]]
        rewards = np.stack([team_a, -team_a, team_a, -team_a], axis=1) + 0.0  # + 0.0: no -0.0
        self._finish(games, rewards, winners, seat_points)

    # ------------------------------------------------------------------ legal actions
    def _legal_mask(self) -> np.ndarray:
        B = self.num_games
        mask = np.zeros((B, A.NUM_ACTIONS), bool)
        rows = self._row_base + self.current
        numbers = self.hand_numbers.reshape(-1, 10).take(rows, axis=0) > 0
        phase = self.phase
        # Laying, computed for every game at once and kept where the phase is "lay":
        allowed = numbers & ~self.on_table
        stuck = ~allowed.any(axis=1)  # only numbers already on the table: a forced duplicate
        allowed[stuck] = numbers[stuck]
        allowed &= (phase == LAY)[:, None]
        held = self.hand_specials.reshape(-1, 5).take(rows, axis=0) > 0
        combos = _COMBO_NEEDS_NONE | held[:, _COMBO_FIRST_SAFE]  # [B, 7]: the first special held
        combos &= _COMBO_NEEDS_ONE | held[:, _COMBO_SECOND_SAFE]  # and the +4 of the pair
        # ids 10 * combo + number: each combination's column repeated ten times, the numbers tiled
        mask[:, : A.NUM_LAY_ACTIONS] = np.repeat(combos, 10, axis=1) & np.tile(allowed, len(A.COMBOS))
        g = (phase == DRAW).nonzero()[0]
        if g.size:
            most = np.minimum(self.draw_limit[g], self.numbers.count[g])
            mask[g, A.DRAW : A.DRAW + 5] = np.arange(5)[None, :] <= most[:, None]
        g = (phase == RETURN).nonzero()[0]
        mask[g, A.RETURN : A.RETURN + 10] = numbers[g]
        g = (phase == SWAP).nonzero()[0]
        if g.size:
            seats = (self.current[g][:, None] + np.arange(1, 4)) % NUM_PLAYERS
            mask[g, A.SWAP : A.SWAP + 3] = np.take_along_axis(self.table_card[g], seats, axis=1) >= 0
            mask[g, A.KEEP] = True
        return mask

    # ------------------------------------------------------------------ observation
    def _observation(self, viewer: np.ndarray) -> np.ndarray:
        B = self.num_games
        obs = np.zeros((B, OBS_SIZE), np.float32)
        rows = self._row_base + viewer
        obs[:, _F["numbers"] : _F["numbers"] + 10] = self.hand_numbers.reshape(-1, 10).take(rows, axis=0)
        obs[:, _F["specials"] : _F["specials"] + 5] = self.hand_specials.reshape(-1, 5).take(rows, axis=0)
        seats = _SEAT_ORDER[viewer]  # relative seat order
        flat_seats = seats + self._row_base[:, None]  # into [B * 4] views
        card = self.table_card.ravel().take(flat_seats)
        obs[:, _F["table_laid"] : _F["table_laid"] + 4] = card >= 0
        b, r = (card >= 0).nonzero()
        obs[b, _F["table_number"] + 10 * r + _NUMBER_OF[card[b, r]]] = 1.0
        obs[:, _F["table_forced"] : _F["table_forced"] + 4] = self.table_forced.ravel().take(flat_seats)
        added = self.table_added.ravel().take(flat_seats)
        b, r = (added >= 0).nonzero()
        obs[b, _F["table_added"] + 10 * r + _NUMBER_OF[added[b, r]]] = 1.0
        obs[:, _F["table_value"] : _F["table_value"] + 4] = self.table_value.ravel().take(flat_seats)
        specials = self.table_special_kinds.reshape(-1, 5).take(flat_seats, axis=0)
        obs[:, _F["table_specials"] : _F["table_specials"] + 20] = specials.reshape(B, 20)
        obs[:, _F["annulled"]] = self.annulled
        team = viewer % 2
        obs[:, _F["team_points"]] = self.points[self._ar, team]
        obs[:, _F["team_points"] + 1] = self.points[self._ar, 1 - team]
        obs[:, _F["trick"]] = self.trick
        live = (self.phase < OVER).nonzero()[0]
        obs[live, _F["leader"] + (self.leader[live] - viewer[live]) % NUM_PLAYERS] = 1.0
        obs[:, _F["numbers_out"] : _F["numbers_out"] + 10] = self.numbers_out
        obs[:, _F["hand_sizes"] : _F["hand_sizes"] + 4] = self.number_count.ravel().take(flat_seats)
        obs[:, _F["special_counts"] : _F["special_counts"] + 4] = self.special_count.ravel().take(flat_seats)
        obs[:, _F["number_pile_size"]] = self.numbers.count
        obs[:, _F["special_pile_size"]] = self.specials.count
        obs[live, _F["phase"] + self.phase[live]] = 1.0
        obs[:, _F["draw_limit"]] = self.draw_limit
        obs[:, _F["returns_left"]] = self.returns_left
        return obs
