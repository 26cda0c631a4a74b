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
from typing import Any

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
_NUMBER_OF = np.where(TYPE_NUMBER >= 0, TYPE_NUMBER, 0).astype(np.int64)  # value of a number card type
_SPECIAL_OF = np.full(NUM_CARD_TYPES, -1, np.int64)  # special kind index of a type
for _i, _kind in enumerate(SPECIAL_KINDS):
    _SPECIAL_OF[TYPE_KIND == _kind] = _i

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
    action_names = A.ACTION_NAMES
    phase_names = PHASE_NAMES
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
        self.hands = np.zeros((B, NUM_PLAYERS, NUM_CARD_TYPES), np.int8)  # number and special cards
        self._hand_rows = self.hands.reshape(B * NUM_PLAYERS, NUM_CARD_TYPES)
        self._row_base = self._ar * NUM_PLAYERS
        self.numbers = CardQueue(B, NUMBER_DECK.size)
        self.specials = CardQueue(B, SPECIAL_DECK.size)
        self.table_card = np.full((B, NUM_PLAYERS), -1, np.int64)  # laid number card per seat
        self.table_forced = np.zeros((B, NUM_PLAYERS), bool)  # a forced duplicate, worth 0
        self.table_added = np.full((B, NUM_PLAYERS), -1, np.int64)  # card a Wild added
        self.table_specials = np.full((B, NUM_PLAYERS, 2), -1, np.int64)  # specials laid with it
        self.annulled = np.zeros(B, bool)  # a Skip was laid this trick
        self.points_piles = np.zeros((B, 2, NUM_CARD_TYPES), np.int8)  # per team
        self.leader = np.zeros(B, np.int64)
        self.current = np.zeros(B, np.int64)
        self.phase = np.zeros(B, np.int64)
        self.trick = np.ones(B, np.int64)
        self.draw_limit = np.zeros(B, np.int64)
        self.returns_left = np.zeros(B, np.int64)
        self.trick_ended = np.zeros(B, bool)
        self.trick_winner = np.full(B, -1, np.int64)

    # ------------------------------------------------------------------ hands
    def _held(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Hands of these seats, ``[k, 54]``."""
        return self._hand_rows.take(self._row_base[games] + seats, axis=0)

    @staticmethod
    def _number_counts(hands: np.ndarray) -> np.ndarray:
        """Number cards per number 0-9 of hands ``[..., 54]`` (colours summed)."""
        return hands[..., :52].reshape(*hands.shape[:-1], 4, 13)[..., :10].sum(-2)

    @staticmethod
    def _special_counts(hands: np.ndarray) -> np.ndarray:
        """Special cards per kind (skip, reverse, +2, wild, +4) of hands ``[..., 54]``."""
        coloured = hands[..., :52].reshape(*hands.shape[:-1], 4, 13)[..., 10:13].sum(-2)
        return np.concatenate([coloured, hands[..., 52:54]], axis=-1)

    def _remove_first(self, games: np.ndarray, seats: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
        """Take from each hand the first held type among ``type_ids [k, 4]`` (colour order)."""
        held = self._held(games, seats)
        choice = np.take_along_axis(held, type_ids, axis=1).astype(bool).argmax(axis=1)
        card = type_ids[np.arange(games.size), choice]
        self.hands[games, seats, card] -= 1
        return card

    def _give(self, games: np.ndarray, seats: np.ndarray, cards: np.ndarray) -> None:
        """Add cards ``[k, m]`` (-1 padded) to the hands."""
        present = cards >= 0
        flat = ((games * NUM_PLAYERS + seats)[:, None] * NUM_CARD_TYPES + cards)[present]
        np.add.at(self.hands.reshape(-1), flat, 1)

    # ------------------------------------------------------------------ dealing
    def _new_episode(self, games: np.ndarray) -> None:
        k = games.size
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
        self._start_trick(games, leader)

    def _start_trick(self, games: np.ndarray, leader: np.ndarray) -> None:
        self.table_card[games] = -1
        self.table_forced[games] = False
        self.table_added[games] = -1
        self.table_specials[games] = -1
        self.annulled[games] = False
        self.draw_limit[games] = 0
        self.returns_left[games] = 0
        self.leader[games] = leader
        self.current[games] = leader
        self.phase[games] = LAY

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
        on_table = self._table_numbers(games)
        card = self._remove_first(games, p, NUMBER_TYPE_IDS[number])
        self.table_card[games, p] = card
        self.table_forced[games, p] = on_table[np.arange(games.size), number]
        busy = np.zeros(games.size, bool)  # the turn goes on with a decision
        for c in np.unique(combo[combo > 0]):
            sel = (combo == c).nonzero()[0]
            g, s = games[sel], p[sel]
            for slot, kind in enumerate(COMBO_SPECIALS[c]):
                kind_types = np.repeat(SPECIAL_TYPE_IDS[kind][None], sel.size, axis=0)
                self.table_specials[g, s, slot] = self._remove_first(g, s, kind_types)
            if c == A.SKIP:
                self.annulled[g] = True
            elif c == A.WILD:
                self.table_added[g, s] = self.numbers.take(g, np.ones(sel.size, np.int64))[:, 0]
            elif c == A.PAIR:
                self._give(g, s, self.specials.take(g, np.full(sel.size, PAIR_SPECIALS)))
            elif c in (A.PLUS2, A.PLUS4):
                self.draw_limit[g] = 2 if c == A.PLUS2 else 4
                self.phase[g] = DRAW
                busy[sel] = True
            elif c == A.REVERSE:
                others = self.table_card[g] >= 0
                others[np.arange(sel.size), s] = False
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
            returns = np.minimum(2, self._number_counts(self._held(games, p)).sum(axis=1))
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
        for table in (self.table_card, self.table_forced):
            mine, theirs = table[g, p].copy(), table[g, t].copy()
            table[g, p], table[g, t] = theirs, mine
        return games

    def _end_turn(self, games: np.ndarray) -> None:
        """The next seat (in seat order) that has not laid and holds a number card lays; when
        there is none, the trick is complete."""
        self.phase[games] = LAY
        p = self.current[games]
        nxt = np.full(games.size, -1, np.int64)
        for step in (3, 2, 1):  # the nearest seat wins, so try it last
            seat = (p + step) % NUM_PLAYERS
            ready = (self.table_card[games, seat] < 0) & (self._seat_numbers(games, seat) > 0)
            nxt[ready] = seat[ready]
        more = nxt >= 0
        self.current[games[more]] = nxt[more]
        if not more.all():
            self._end_trick(games[~more])

    # ------------------------------------------------------------------ end of a trick
    def _end_trick(self, games: np.ndarray) -> None:
        """Score the trick, move its cards, and start the next one (or end the game)."""
        k = games.size
        order = (self.leader[games][:, None] + np.arange(NUM_PLAYERS)) % NUM_PLAYERS  # laying order
        laid = np.take_along_axis(self.table_card[games], order, axis=1)
        forced = np.take_along_axis(self.table_forced[games], order, axis=1)
        added = np.take_along_axis(self.table_added[games], order, axis=1)
        values = self._seat_values(laid, forced, added)
        team_of = order % 2
        sums = np.stack([(values * (team_of == t)).sum(axis=1) for t in (0, 1)], axis=1)
        annulled = self.annulled[games]
        winner = np.where(annulled | (sums[:, 0] == sums[:, 1]), -1, (sums[:, 1] > sums[:, 0]).astype(np.int64))
        # Cards in laying order: each seat's laid card, then the card its Wild added.
        cards = np.stack([laid, added], axis=2).reshape(k, 2 * NUM_PLAYERS)
        is_forced = np.stack([forced, np.zeros_like(forced)], axis=2).reshape(k, 2 * NUM_PLAYERS)
        taken = (cards >= 0) & (winner[:, None] >= 0) & ~is_forced
        under = np.where(taken, -1, cards)
        self.numbers.put_under(games, under)
        won = taken.nonzero()
        np.add.at(self.points_piles, (games[won[0]], winner[won[0]], cards[won]), 1)
        specials = np.take_along_axis(self.table_specials[games], order[:, :, None], axis=1).reshape(k, -1)
        self.specials.put_under(games, specials)
        self.trick_ended[games] = True
        self.trick_winner[games] = winner
        self.trick[games] += 1
        # The next trick is led by the player after this trick's leader (skipping empty hands).
        leader = self.leader[games]
        nxt = np.full(k, -1, np.int64)
        for step in (4, 3, 2, 1):
            seat = (leader + step) % NUM_PLAYERS
            has = self._seat_numbers(games, seat) > 0
            nxt[has] = seat[has]
        over = nxt < 0
        self._start_trick(games[~over], nxt[~over])
        if over.any():
            self._game_over(games[over])

    @staticmethod
    def _seat_values(card: np.ndarray, forced: np.ndarray, added: np.ndarray) -> np.ndarray:
        """What table cards are worth: the number (0 if a forced duplicate) plus a Wild's card."""
        own = np.where((card >= 0) & ~forced, _NUMBER_OF[np.maximum(card, 0)], 0)
        return own + np.where(added >= 0, _NUMBER_OF[np.maximum(added, 0)], 0)

    def team_points(self, games: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Points in each team's pile, ``[k, 2]`` (team A, team B)."""
        return self.points_piles[games].astype(np.int64) @ _NUMBER_OF

    def _game_over(self, games: np.ndarray) -> None:
        points = self.team_points(games)
        diff = points[:, 0] - points[:, 1]  # team A's margin
        if self.rules.reward == "points":
            team_a = diff * POINTS_REWARD_SCALE
        else:
            team_a = np.sign(diff).astype(np.float64)
        self._finish(games, np.stack([team_a, -team_a, team_a, -team_a], axis=1))

    # ------------------------------------------------------------------ queries
    def _seat_numbers(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        return self._number_counts(self._held(games, seats)).sum(axis=1)

    def _table_numbers(self, games: np.ndarray | slice) -> np.ndarray:
        """``bool [k, 10]``: numbers laid this trick (forced duplicates included, Wild-added cards not)."""
        card = self.table_card[games]
        number = np.where(card >= 0, _NUMBER_OF[np.maximum(card, 0)], 10)
        on = np.zeros((card.shape[0], 11), bool)
        on[np.arange(card.shape[0])[:, None], number] = True
        return on[:, :10]

    # ------------------------------------------------------------------ legal actions
    def _legal_mask(self) -> np.ndarray:
        B = self.num_games
        mask = np.zeros((B, A.NUM_ACTIONS), bool)
        hand = self._held(self._ar, self.current)
        numbers = self._number_counts(hand) > 0
        phase = self.phase
        g = (phase == LAY).nonzero()[0]
        if g.size:
            allowed = numbers[g] & ~self._table_numbers(g)
            stuck = ~allowed.any(axis=1)  # only numbers already on the table: a forced duplicate
            allowed[stuck] = numbers[g][stuck]
            held = self._special_counts(hand[g]) > 0
            combos = np.ones((g.size, len(A.COMBOS)), bool)
            for c, kinds in enumerate(COMBO_SPECIALS):
                for kind in kinds:
                    combos[:, c] &= held[:, kind]
            mask[g, : A.NUM_LAY_ACTIONS] = (combos[:, :, None] & allowed[:, None, :]).reshape(g.size, -1)
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
        hand = self._held(self._ar, viewer)
        obs[:, _F["numbers"] : _F["numbers"] + 10] = self._number_counts(hand)
        obs[:, _F["specials"] : _F["specials"] + 5] = self._special_counts(hand)
        seats = (viewer[:, None] + np.arange(NUM_PLAYERS)) % NUM_PLAYERS  # relative seat order
        card = np.take_along_axis(self.table_card, seats, axis=1)
        forced = np.take_along_axis(self.table_forced, seats, axis=1)
        added = np.take_along_axis(self.table_added, seats, axis=1)
        laid = card >= 0
        obs[:, _F["table_laid"] : _F["table_laid"] + 4] = laid
        b, r = laid.nonzero()
        obs[b, _F["table_number"] + 10 * r + _NUMBER_OF[card[b, r]]] = 1.0
        obs[:, _F["table_forced"] : _F["table_forced"] + 4] = forced
        b, r = (added >= 0).nonzero()
        obs[b, _F["table_added"] + 10 * r + _NUMBER_OF[added[b, r]]] = 1.0
        obs[:, _F["table_value"] : _F["table_value"] + 4] = self._seat_values(card, forced, added)
        specials = np.take_along_axis(self.table_specials, seats[:, :, None], axis=1)
        b, r, s = (specials >= 0).nonzero()
        np.add.at(obs, (b, _F["table_specials"] + 5 * r + _SPECIAL_OF[specials[b, r, s]]), 1.0)
        obs[:, _F["annulled"]] = self.annulled
        team = viewer % 2
        points = self.team_points()
        obs[:, _F["team_points"]] = points[self._ar, team]
        obs[:, _F["team_points"] + 1] = points[self._ar, 1 - team]
        obs[:, _F["trick"]] = self.trick
        live = (self.phase < OVER).nonzero()[0]
        obs[live, _F["leader"] + (self.leader[live] - viewer[live]) % NUM_PLAYERS] = 1.0
        obs[:, _F["numbers_out"] : _F["numbers_out"] + 10] = self._number_counts(self.points_piles.sum(axis=1))
        all_hands = np.take_along_axis(self.hands, seats[:, :, None], axis=1)
        obs[:, _F["hand_sizes"] : _F["hand_sizes"] + 4] = self._number_counts(all_hands).sum(axis=2)
        obs[:, _F["special_counts"] : _F["special_counts"] + 4] = self._special_counts(all_hands).sum(axis=2)
        obs[:, _F["number_pile_size"]] = self.numbers.count
        obs[:, _F["special_pile_size"]] = self.specials.count
        obs[live, _F["phase"] + self.phase[live]] = 1.0
        obs[:, _F["draw_limit"]] = self.draw_limit
        obs[:, _F["returns_left"]] = self.returns_left
        return obs

    # ------------------------------------------------------------------ positions
    def position(self, i: int) -> dict[str, Any]:
        """Readable, JSON-serialisable dict of game ``i`` (see ``envs.uno_tricks.positions``)."""
        from envs.uno_tricks.positions import position_of

        return position_of(self, i)

    @classmethod
    def from_positions(
        cls,
        positions: Sequence[dict[str, Any]],
        rules: TricksRules | None = None,
        seed: int | Sequence[int] | None = None,
        auto_reset: bool = True,
    ) -> TricksEngine:
        """Games that start from given positions (``from_positions([eng.position(i)])``
        continues game ``i`` exactly)."""
        from envs.uno_tricks.positions import load_positions

        return load_positions(cls, positions, rules, seed, auto_reset)
