"""Batched classic UNO engine: the one place where the rules of game 1 live.

A :class:`UnoEngine` plays ``num_games`` games of the same player count at once. The
state is a handful of dense numpy arrays with the batch first (see ``_allocate``); a
step decodes every game's action, applies each kind of effect to the games concerned
with fancy indexing, and builds the next observations and legal-action masks. There is
no Python loop over games: the only loops run over the handful of action kinds in a
step and over re-turns of a starting Wild Draw Four (rare, and only the games
concerned).

Turn structure (RULES.md, game 1), phase by phase:

* ``play``: play a matching card (a Wild names its colour in the action) or ``draw``.
  Facing stacked Draw Twos (``stacking``): play a Draw Two or ``draw`` them all.
* ``drawn``: the card just drawn is playable: play it (or ``pass`` when
  ``must_play_drawn`` is False). An unplayable drawn card ends the turn at once.
* ``uno``: the player just played its second-to-last card: ``uno`` or ``silent``;
  the card's effect applies after this decision.
* ``challenge``: the player after a Wild Draw Four: ``challenge`` or ``accept``.
* ``colour``: the first player names the colour of a starting Wild, then plays on it.

Rewards arrive in ``step``'s ``rewards [B, P]`` for every seat at once when a game
ends, whoever made the last move. Finished games restart at once (``auto_reset``), so
the returned observation of a finished game is the first of its next game.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs import rng
from envs.cards import (
    DECK,
    DECK_SIZE,
    IS_WILD,
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
    WILD_DRAW_FOUR,
)
from envs.core import BatchedEngine, IllegalActionError
from envs.uno import actions as A
from envs.uno.observation import FIELDS, OBS_SIZE, PHASES
from envs.uno.rules import POINTS_REWARD_SCALE, UnoRules

PLAY, DRAWN, CHALLENGE, UNO, COLOUR = range(5)
OVER = 5  # a finished game when auto_reset is off: no legal action
PHASE_NAMES = PHASES + ("over",)

WILD_DRAW_FOUR_DRAW = 4
INNOCENT_CHALLENGE_DRAW = 6
DRAW_TWO_DRAW = 2


def _match_table() -> np.ndarray:
    """``bool [6 * 54, 54]``: may card type t be played, row = context * 54 + top card?

    Context 0: no colour in force (only while a starting Wild waits for its colour);
    1-4: colour 0-3 in force; 5: facing stacked Draw Twos (only a Draw Two answers).
    A card matches by colour or by kind (number or symbol); wilds always match.
    """
    table = np.zeros((6, NUM_CARD_TYPES, NUM_CARD_TYPES), dtype=bool)
    coloured = TYPE_COLOUR >= 0
    for colour in range(NUM_COLOURS):
        for top in range(NUM_CARD_TYPES):
            same_kind = (TYPE_KIND == TYPE_KIND[top]) & coloured & (TYPE_COLOUR[top] >= 0)
            table[colour + 1, top] = (TYPE_COLOUR == colour) | same_kind | IS_WILD
    table[5, :] = TYPE_KIND == KIND_DRAW_TWO
    table = table.reshape(6 * NUM_CARD_TYPES, NUM_CARD_TYPES)
    table.flags.writeable = False
    return table


MATCH = _match_table()
PENDING_CONTEXT = 5
#: ``bool [4, 54]``: the coloured card types of each colour (a wild is no colour).
COLOUR_TYPES = np.stack([TYPE_COLOUR == c for c in range(NUM_COLOURS)])
#: Action kinds handled together in ``step``: a card play, a draw, keeping the drawn
#: card, answering a Wild Draw Four, the UNO decision, naming a starting colour.
_CAT_PLAY, _CAT_DRAW, _CAT_PASS, _CAT_ANSWER, _CAT_DECLARE, _CAT_COLOUR, _CAT_NONE = range(7)  # NONE: count
_ACTION_CATEGORY = np.full(A.NUM_ACTIONS, _CAT_PLAY, dtype=np.int64)
_ACTION_CATEGORY[A.DRAW] = _CAT_DRAW
_ACTION_CATEGORY[A.PASS] = _CAT_PASS
_ACTION_CATEGORY[[A.CHALLENGE, A.ACCEPT]] = _CAT_ANSWER
_ACTION_CATEGORY[[A.UNO, A.SILENT]] = _CAT_DECLARE
_ACTION_CATEGORY[A.CHOOSE_COLOUR :] = _CAT_COLOUR
_VALUE = TYPE_VALUE.astype(np.int64)
_PADDED_TYPES = 56  # NUM_CARD_TYPES rounded up to whole uint64 words
# Observation offsets (envs.uno.observation documents the layout).
_HAND = FIELDS["hand"].slice
_TOP = FIELDS["top_card"].start
_COLOUR = FIELDS["colour"].start
_DIRECTION = FIELDS["direction"].start
_NUM_PLAYERS = FIELDS["num_players"].start
_HAND_SIZES = FIELDS["hand_sizes"].start
_UNO_DECLARED = FIELDS["uno_declared"].start
_SCORES = FIELDS["scores"].start
_DRAW_PILE_SIZE = FIELDS["draw_pile_size"].start
_DISCARD_PILE_SIZE = FIELDS["discard_pile_size"].start
_DISCARD_COUNTS = FIELDS["discard_counts"].slice
_PHASE = FIELDS["phase"].start
_PENDING_DRAW = FIELDS["pending_draw"].start
_DRAWN_CARD = FIELDS["drawn_card"].start
_CHALLENGE_COLOUR = FIELDS["challenge_colour"].start
_REVEALED_HAND = FIELDS["revealed_hand"].slice
_REVEALED_SEAT = FIELDS["revealed_seat"].start


def _any_per_row(padded: np.ndarray) -> np.ndarray:
    """``padded.any(axis=1)`` for a bool ``[B, 56]`` array, as seven uint64 ORs (much faster)."""
    words = padded.view(np.uint64)
    out = words[:, 0] | words[:, 1]
    for w in range(2, words.shape[1]):
        out |= words[:, w]
    return out != 0


__all__ = ["IllegalActionError", "UnoEngine"]


class UnoEngine(BatchedEngine):
    """``num_games`` games of classic UNO for ``num_players`` players, stepped together.

    >>> eng = UnoEngine(num_games=4096, num_players=4, rules=UnoRules(), seed=0)
    >>> obs, mask = eng.reset()          # float32 [B, 328], bool [B, 70]
    >>> obs, mask, rewards, done = eng.step(actions)

    Attributes read by wrappers and trainers (all ``[B]`` or ``[B, P]`` arrays):
    ``current_player``; ``hand_ended``, ``hand_winner`` (-1 if none) and ``hand_points``
    (score added to each seat) describe hands that ended in the last step, also inside a
    match; ``game_seeds`` holds each game's seed.
    """

    game = "uno"
    action_names = A.ACTION_NAMES
    phase_names = PHASE_NAMES
    positions_module = "envs.uno.positions"
    state_fields = (
        "hands",
        "hand_size",
        "draw_pile",
        "draw_top",
        "draw_end",
        "discard",
        "discard_len",
        "discard_counts",
        "top",
        "colour",
        "direction",
        "current",
        "phase",
        "pending_draw",
        "drawn_card",
        "challenge_colour",
        "challenge_guilty",
        "uno_declared",
        "revealed_hand",
        "revealed_to",
        "revealed_from",
        "scores",
        "match_rewards",
        "hand_number",
        "hand_starter",
        "hand_ended",
        "hand_winner",
        "hand_points",
    )
    rules_type = UnoRules

    def __init__(
        self,
        num_games: int = 1,
        num_players: int = 2,
        rules: UnoRules | None = None,
        seed: int | Sequence[int] | None = None,
        auto_reset: bool = True,
    ) -> None:
        super().__init__(num_games, num_players, rules, seed, auto_reset)

    # ------------------------------------------------------------------ state
    def _allocate(self) -> None:
        """The whole game state. Piles are stacks of card type ids."""
        B, P = self.num_games, self.num_players
        self._row_base = self._ar * P  # game b's seat p is row b * P + p of [B * P, ...] views
        seat = np.arange(P)
        # _seat_order[2 * viewer + (direction < 0)]: seats in the direction of play from the viewer
        self._seat_order = np.stack([(v + d * seat) % P for v in range(P) for d in (1, -1)])
        self.hands = np.zeros((B, P, NUM_CARD_TYPES), np.int8)  # copies of each type held
        self._hands_flat = self.hands.reshape(-1)  # a view, for flat-index updates
        self._hand_rows = self.hands.reshape(B * P, NUM_CARD_TYPES)
        self.hand_size = np.zeros((B, P), np.int64)
        self.draw_pile = np.zeros((B, DECK_SIZE), np.int8)  # cards in [draw_top, draw_end)
        self.draw_top = np.zeros(B, np.int64)  # next card drawn
        self.draw_end = np.zeros(B, np.int64)
        self.discard = np.zeros((B, DECK_SIZE), np.int8)  # bottom first, top at discard_len-1
        self.discard_len = np.zeros(B, np.int64)
        self.discard_counts = np.zeros((B, NUM_CARD_TYPES), np.int8)
        self.top = np.zeros(B, np.int64)  # type of the discard pile's top card
        self.colour = np.zeros(B, np.int64)  # colour in force, -1 while a starting Wild waits
        self.direction = np.ones(B, np.int64)
        self.current = np.zeros(B, np.int64)
        self.phase = np.zeros(B, np.int64)
        self.pending_draw = np.zeros(B, np.int64)  # stacked Draw Twos
        self.drawn_card = np.full(B, -1, np.int64)
        self.challenge_colour = np.full(B, -1, np.int64)  # colour before the Wild Draw Four
        self.challenge_guilty = np.zeros(B, bool)
        self.uno_declared = np.zeros((B, P), bool)
        self.revealed_hand = np.zeros((B, NUM_CARD_TYPES), np.int8)
        self.revealed_to = np.full(B, -1, np.int64)
        self.revealed_from = np.full(B, -1, np.int64)
        self.scores = np.zeros((B, P), np.int64)
        self.match_rewards = np.zeros((B, P), np.float64)  # points reward summed over a match
        self.hand_number = np.zeros(B, np.int64)
        self.hand_starter = np.zeros(B, np.int64)  # first player of the current hand
        self.hand_ended = np.zeros(B, bool)
        self.hand_winner = np.full(B, -1, np.int64)
        self.hand_points = np.zeros((B, P), np.int64)

    # ------------------------------------------------------------------ one step
    def _begin_step(self) -> None:
        self.hand_ended[:] = False
        self.hand_winner[:] = -1
        self.hand_points[:] = 0
        # A revealed hand is shown until its viewer's next decision: the one taken now.
        self.revealed_to[self.revealed_to == self.current] = -1

    def _apply(self, actions: np.ndarray) -> None:
        effect = []  # games whose played card takes effect now
        for cat, g in self._groups(_ACTION_CATEGORY[actions], _CAT_NONE).items():
            a = actions[g]
            if cat == _CAT_PLAY:
                effect.append(self._play(g, A.ACTION_CARD[a], A.ACTION_COLOUR[a]))
            elif cat == _CAT_DECLARE:
                effect.append(self._declare_uno(g, a == A.UNO))
            elif cat == _CAT_DRAW:
                self._draw_action(g)
            elif cat == _CAT_ANSWER:
                self._answer_challenge(g, a == A.CHALLENGE)
            elif cat == _CAT_PASS:
                self._pass_turn(g, 1)
            elif cat == _CAT_COLOUR:
                self.colour[g] = A.ACTION_COLOUR[a]
                self.phase[g] = PLAY
        if effect:
            self._apply_effect(effect[0] if len(effect) == 1 else np.concatenate(effect))

    # ------------------------------------------------------------------ legal actions
    def _match_rows(self, games: np.ndarray | slice) -> np.ndarray:
        context = np.where(self.pending_draw[games] > 0, PENDING_CONTEXT, self.colour[games] + 1)
        return context * NUM_CARD_TYPES + self.top[games]

    def _legal_mask(self) -> np.ndarray:
        B = self.num_games
        mask = np.zeros((B, A.NUM_ACTIONS), bool)
        phase = self.phase
        in_play = phase == PLAY
        hand = self._hand_rows.take(self._row_base + self.current, axis=0)
        playable = np.empty((B, _PADDED_TYPES), bool)  # padded so a row is seven uint64 words
        np.logical_and(hand > 0, MATCH.take(self._match_rows(slice(None)), axis=0), out=playable[:, :NUM_CARD_TYPES])
        playable[:, NUM_CARD_TYPES:] = False
        playable &= in_play[:, None]
        mask[:, : A.NUM_COLOURED_TYPES] = playable[:, : A.NUM_COLOURED_TYPES]
        mask[:, A.PLAY_WILD : A.PLAY_WILD + 4] = playable[:, 52:53]
        mask[:, A.PLAY_WILD_DRAW_FOUR : A.PLAY_WILD_DRAW_FOUR + 4] = playable[:, 53:54]
        if self.rules.draw_anytime:
            mask[:, A.DRAW] = in_play
        else:
            nothing = ~_any_per_row(playable)
            mask[:, A.DRAW] = in_play & (nothing | (self.pending_draw > 0))
        if not in_play.all():
            g = (phase == DRAWN).nonzero()[0]
            if g.size:
                card = self.drawn_card[g]
                cols = np.where(IS_WILD[card], -1, card)
                mask[g[cols >= 0], cols[cols >= 0]] = True
                for wild, first in ((KIND_WILD, A.PLAY_WILD), (KIND_WILD_DRAW_FOUR, A.PLAY_WILD_DRAW_FOUR)):
                    w = g[TYPE_KIND[card] == wild]
                    mask[w, first : first + 4] = True
                if not self.rules.must_play_drawn:
                    mask[g, A.PASS] = True
            g = (phase == CHALLENGE).nonzero()[0]
            mask[g, A.CHALLENGE] = True
            mask[g, A.ACCEPT] = True
            g = (phase == UNO).nonzero()[0]
            mask[g, A.UNO] = True
            mask[g, A.SILENT] = True
            g = (phase == COLOUR).nonzero()[0]
            mask[g, A.CHOOSE_COLOUR : A.CHOOSE_COLOUR + 4] = True
        return mask

    # ------------------------------------------------------------------ observation
    def _observation(self, viewer: np.ndarray) -> np.ndarray:
        B, P = self.num_games, self.num_players
        ar = self._ar
        obs = np.zeros((B, OBS_SIZE), np.float32)
        obs[:, _HAND] = self._hand_rows.take(self._row_base + viewer, axis=0)
        obs[ar, _TOP + self.top] = 1.0
        has_colour = (self.colour >= 0).nonzero()[0]
        obs[has_colour, _COLOUR + self.colour[has_colour]] = 1.0
        obs[:, _DIRECTION] = self.direction
        obs[:, _NUM_PLAYERS] = P
        # Relative seats in the direction of play, as flat indices into [B, P] arrays.
        seats = self._seat_order.take(viewer * 2 + (self.direction < 0), axis=0) + self._row_base[:, None]
        obs[:, _HAND_SIZES : _HAND_SIZES + P] = self.hand_size.ravel().take(seats)
        obs[:, _UNO_DECLARED : _UNO_DECLARED + P] = self.uno_declared.ravel().take(seats)
        obs[:, _SCORES : _SCORES + P] = self.scores.ravel().take(seats) * (1.0 / self.rules.target_score)
        obs[:, _DRAW_PILE_SIZE] = self.draw_end - self.draw_top
        obs[:, _DISCARD_PILE_SIZE] = self.discard_len
        obs[:, _DISCARD_COUNTS] = self.discard_counts
        live = (self.phase < OVER).nonzero()[0]
        obs[live, _PHASE + self.phase[live]] = 1.0
        obs[:, _PENDING_DRAW] = self.pending_draw
        g = ((self.drawn_card >= 0) & (viewer == self.current)).nonzero()[0]  # only the drawer knows it
        obs[g, _DRAWN_CARD + self.drawn_card[g]] = 1.0
        g = (self.challenge_colour >= 0).nonzero()[0]
        obs[g, _CHALLENGE_COLOUR + self.challenge_colour[g]] = 1.0
        g = (self.revealed_to == viewer).nonzero()[0]
        if g.size:
            obs[g, _REVEALED_HAND] = self.revealed_hand[g]
            rel = ((self.revealed_from[g] - viewer[g]) * self.direction[g]) % P
            obs[g, _REVEALED_SEAT + rel] = 1.0
        return obs

    # ------------------------------------------------------------------ dealing
    def _new_episode(self, games: np.ndarray) -> None:
        """Start a new game (a hand, or the first hand of a match) in ``games``."""
        self.scores[games] = 0
        self.match_rewards[games] = 0.0
        self.hand_number[games] = 0
        self.hand_starter[games] = 0
        self._deal(games)

    def _deal(self, games: np.ndarray) -> None:
        """Shuffle the full deck, deal, turn the starting card and apply its effect."""
        k, P, hs = games.size, self.num_players, self.rules.hand_size
        self._next_deal(games)
        order = np.argsort(self._random(games, DECK_SIZE), axis=1)
        cards = DECK[order]  # [k, 108] card types, top of the deck first
        dealt = P * hs
        seat = np.arange(dealt) % P
        flat = ((np.arange(k)[:, None] * P + seat[None, :]) * NUM_CARD_TYPES + cards[:, :dealt]).ravel()
        counts = np.bincount(flat, minlength=k * P * NUM_CARD_TYPES).reshape(k, P, NUM_CARD_TYPES)
        self.hands[games] = counts
        self.hand_size[games] = hs
        self.draw_pile[games] = 0
        self.draw_pile[games, : DECK_SIZE - dealt] = cards[:, dealt:]
        self.draw_top[games] = 0
        self.draw_end[games] = DECK_SIZE - dealt
        # A Wild Draw Four turned first goes back; the pile is reshuffled and another turned.
        redo = games[self.draw_pile[games, 0] == WILD_DRAW_FOUR]
        while redo.size:
            self.draw_pile[redo] = rng.shuffle_rows(
                self.draw_pile[redo], self.draw_end[redo], self._random(redo, DECK_SIZE)
            )
            redo = redo[self.draw_pile[redo, 0] == WILD_DRAW_FOUR]
        first_card = self.draw_pile[games, 0].astype(np.int64)
        self.draw_top[games] = 1
        self.discard[games] = 0
        self.discard[games, 0] = first_card
        self.discard_len[games] = 1
        self.discard_counts[games] = 0
        self.discard_counts[games, first_card] = 1
        self.top[games] = first_card
        self.colour[games] = TYPE_COLOUR[first_card]
        self.direction[games] = 1
        self.pending_draw[games] = 0
        self.drawn_card[games] = -1
        self.challenge_colour[games] = -1
        self.challenge_guilty[games] = False
        self.uno_declared[games] = False
        self.revealed_to[games] = -1
        self.revealed_from[games] = -1
        self._start_hand(games, first_card)

    def _start_hand(self, games: np.ndarray, first_card: np.ndarray) -> None:
        """The first card's effect on the first player (RULES.md, "Deal and start")."""
        P = self.num_players
        first = self.hand_starter[games]
        kind = TYPE_KIND[first_card]
        self.phase[games] = np.where(kind == KIND_WILD, COLOUR, PLAY)
        current = first.copy()
        current[kind == KIND_SKIP] += 1
        reverse = kind == KIND_REVERSE
        self.direction[games[reverse]] = -1
        current[reverse] -= 1  # the dealer, seat before the first player, plays first
        draw_two = (kind == KIND_DRAW_TWO).nonzero()[0]
        if draw_two.size:
            self._draw_cards(games[draw_two], first[draw_two], DRAW_TWO_DRAW)
            current[draw_two] += 1
        self.current[games] = current % P

    # ------------------------------------------------------------------ drawing
    def _draw_cards(self, games: np.ndarray, players: np.ndarray, counts: np.ndarray | int) -> np.ndarray:
        """Each ``players[j]`` of ``games[j]`` draws ``counts[j]`` cards from the top.

        An empty draw pile is refilled from the discard pile (all but its top card);
        when both are empty the player draws what there is, possibly nothing. Returns
        the last card each drew (-1 if none). ``games`` holds each game at most once.
        """
        k = games.size
        if not k:
            return np.empty(0, np.int64)
        counts = np.full(k, counts, np.int64) if np.ndim(counts) == 0 else np.asarray(counts, np.int64)
        available = self.draw_end[games] - self.draw_top[games]
        short = (available < counts).nonzero()[0]
        if not short.size:
            return self._take_from_pile(games, players, counts)
        # The pile runs out: take what is left, reshuffle, then take the rest if there is any.
        last = self._take_from_pile(games, players, np.minimum(counts, available))
        g, p = games[short], players[short]
        self._reshuffle(g)
        rest = np.minimum(counts[short] - available[short], self.draw_end[g] - self.draw_top[g])
        more = self._take_from_pile(g, p, rest)
        last[short] = np.where(rest > 0, more, last[short])
        return last

    def _take_from_pile(self, games: np.ndarray, players: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Move ``counts`` cards (all present) from the top of the draw pile to the hands."""
        top = self.draw_top[games]
        P = self.num_players
        if (counts == 1).all():
            cards = self.draw_pile.ravel().take(games * DECK_SIZE + top)
            self._hands_flat[(games * P + players) * NUM_CARD_TYPES + cards] += 1
            last = cards.astype(np.int64)
        else:
            most = int(counts.max(initial=0))
            offsets = np.arange(most)
            slots = np.minimum(top[:, None] + offsets, DECK_SIZE - 1)
            cards = self.draw_pile.ravel().take(games[:, None] * DECK_SIZE + slots).astype(np.int64)
            flat = ((games * P + players) * NUM_CARD_TYPES)[:, None] + cards
            np.add.at(self._hands_flat, flat[offsets < counts[:, None]], 1)
            last = cards[np.arange(games.size), np.maximum(counts - 1, 0)] if most else np.full(games.size, -1)
            last[counts == 0] = -1
        self.hand_size[games, players] += counts
        self.draw_top[games] = top + counts
        return last

    def _reshuffle(self, games: np.ndarray) -> None:
        """Shuffle the discard pile but its top card into a new draw pile (the draw pile is empty)."""
        games = games[self.discard_len[games] > 1]
        if not games.size:
            return
        n = self.discard_len[games] - 1
        self.draw_pile[games] = rng.shuffle_rows(self.discard[games], n, self._random(games, DECK_SIZE))
        self.draw_top[games] = 0
        self.draw_end[games] = n
        top = self.top[games]
        self.discard_len[games] = 1
        self.discard[games, 0] = top
        self.discard_counts[games] = 0
        self.discard_counts[games, top] = 1

    # ------------------------------------------------------------------ turn effects
    def _advance(self, games: np.ndarray, seats: np.ndarray, steps: np.ndarray | int) -> np.ndarray:
        return (seats + steps * self.direction[games]) % self.num_players

    def _pass_turn(self, games: np.ndarray, steps: np.ndarray | int) -> None:
        """The turn goes ``steps`` seats on (2 skips the next player); phase ``play``."""
        self.current[games] = self._advance(games, self.current[games], steps)
        self.phase[games] = PLAY
        self.drawn_card[games] = -1

    def _play(self, games: np.ndarray, card: np.ndarray, named: np.ndarray) -> np.ndarray:
        """Move ``card`` from the player's hand to the discard pile; a last card ends the hand,
        a second-to-last asks for UNO. Returns the games whose card takes effect now."""
        p = self.current[games]
        self.hands[games, p, card] -= 1
        self.hand_size[games, p] -= 1
        self.discard[games, self.discard_len[games]] = card
        self.discard_len[games] += 1
        self.discard_counts[games, card] += 1
        self.top[games] = card
        self.uno_declared[games, p] = False
        self.drawn_card[games] = -1
        w4 = (card == WILD_DRAW_FOUR).nonzero()[0]
        if w4.size:
            g = games[w4]
            before = self.colour[g]
            held = self.hands[g, p[w4]] > 0
            self.challenge_guilty[g] = (held & COLOUR_TYPES[before]).any(axis=1)
            self.challenge_colour[g] = before
        self.colour[games] = np.where(named >= 0, named, TYPE_COLOUR[card])
        left = self.hand_size[games, p]
        out = left == 0
        if out.any():
            self._end_hand(games[out], p[out])
        declare = (left == 1) if self.rules.uno_penalty > 0 else np.zeros(games.size, bool)
        if declare.any():
            self.phase[games[declare]] = UNO
        rest = ~(out | declare)
        return games if rest.all() else games[rest]

    def _apply_effect(self, games: np.ndarray) -> None:
        """Effect of the top card just played by the current player; passes the turn."""
        if not games.size:
            return
        p = self.current[games]
        kind = TYPE_KIND[self.top[games]]
        reverse = kind == KIND_REVERSE
        if reverse.any():
            self.direction[games[reverse]] *= -1
        steps = np.ones(games.size, np.int64)
        steps[kind == KIND_SKIP] = 2
        if self.num_players == 2:
            steps[reverse] = 2  # with two players a Reverse acts as a Skip
        draw_two = (kind == KIND_DRAW_TWO).nonzero()[0]
        if draw_two.size:
            g = games[draw_two]
            if self.rules.stacking:
                self.pending_draw[g] += DRAW_TWO_DRAW
            else:
                self._draw_cards(g, self._advance(g, p[draw_two], 1), DRAW_TWO_DRAW)
                steps[draw_two] = 2
        self._pass_turn(games, steps)
        w4 = kind == KIND_WILD_DRAW_FOUR
        if w4.any():
            self.phase[games[w4]] = CHALLENGE

    def _draw_action(self, games: np.ndarray) -> None:
        p = self.current[games]
        pending = self.pending_draw[games]
        stacked = pending > 0
        if stacked.any():
            g = games[stacked]
            self._draw_cards(g, p[stacked], pending[stacked])
            self.pending_draw[g] = 0
            self._pass_turn(g, 1)
            games, p = games[~stacked], p[~stacked]
        card = self._draw_cards(games, p, 1)
        playable = np.zeros(games.size, bool)
        drew = card >= 0
        playable[drew] = MATCH[self._match_rows(games[drew]), card[drew]]
        self.phase[games[playable]] = DRAWN
        self.drawn_card[games[playable]] = card[playable]
        self._pass_turn(games[~playable], 1)

    def _answer_challenge(self, games: np.ndarray, challenge: np.ndarray) -> None:
        """Accept (draw 4, lose the turn) or challenge the Wild Draw Four just played.

        A guilty player draws 4 and the challenger plays on; an innocent one makes the
        challenger draw 6 and lose the turn. Either way the challenger sees the hand.
        """
        challenger = self.current[games]
        bluffer = self._advance(games, challenger, -1)
        self.challenge_colour[games] = -1
        shown = games[challenge]
        if shown.size:
            self.revealed_hand[shown] = self.hands[shown, bluffer[challenge]]
            self.revealed_to[shown] = challenger[challenge]
            self.revealed_from[shown] = bluffer[challenge]
        guilty = challenge & self.challenge_guilty[games]
        drawer = np.where(guilty, bluffer, challenger)
        count = np.where(challenge & ~guilty, INNOCENT_CHALLENGE_DRAW, WILD_DRAW_FOUR_DRAW)
        self._draw_cards(games, drawer, count)
        self.phase[games] = PLAY  # a guilty player's challenger plays on the declared colour
        self._pass_turn(games[~guilty], 1)

    def _declare_uno(self, games: np.ndarray, declared: np.ndarray) -> np.ndarray:
        """Declare UNO or stay silent (caught with ``uno_catch_prob``: penalty draw).

        Returns the games, whose played card takes effect next.
        """
        p = self.current[games]
        self.uno_declared[games[declared], p[declared]] = True
        silent = ~declared
        prob = float(self.rules.uno_catch_prob)
        if prob < 1.0 and silent.any():
            caught = np.zeros(games.size, bool)
            if prob > 0.0:
                caught[silent] = rng.uniform(self._random(games[silent], 1)[:, 0]) < prob
        else:
            caught = silent
        if caught.any():
            self._draw_cards(games[caught], p[caught], self.rules.uno_penalty)
        return games

    # ------------------------------------------------------------------ scoring
    def _end_hand(self, games: np.ndarray, winner: np.ndarray) -> None:
        """``winner`` played its last card: final draws, scoring, match end or next hand."""
        P, rules = self.num_players, self.rules
        k = games.size
        kind = TYPE_KIND[self.top[games]]
        final_draw = np.where(kind == KIND_DRAW_TWO, DRAW_TWO_DRAW + self.pending_draw[games], 0)
        final_draw[kind == KIND_WILD_DRAW_FOUR] = WILD_DRAW_FOUR_DRAW
        hit = (final_draw > 0).nonzero()[0]
        if hit.size:
            g = games[hit]
            self._draw_cards(g, self._advance(g, winner[hit], 1), final_draw[hit])
        self.pending_draw[games] = 0
        values = self.hands[games].astype(np.int64) @ _VALUE  # [k, P]
        rows = np.arange(k)
        if rules.scoring == "standard":
            points = np.zeros((k, P), np.int64)
            points[rows, winner] = values.sum(axis=1)
        else:
            points = values
        self.scores[games] += points
        self.hand_ended[games] = True
        self.hand_winner[games] = winner
        self.hand_points[games] = points
        hand_reward = -values.astype(np.float64)
        if rules.scoring == "standard":
            hand_reward[rows, winner] = values.sum(axis=1)
        if not rules.match:
            winners = np.zeros((k, P), bool)
            winners[rows, winner] = True
            self._game_over(games, winners, hand_reward)
            return
        self.match_rewards[games] += hand_reward
        scores = self.scores[games]
        over, winners = rules.match_over(scores), rules.match_winners(scores)
        if over.any():
            g = games[over]
            self._game_over(g, winners[over], self.match_rewards[g])
        nxt = ~over
        if nxt.any():
            g = games[nxt]
            self.hand_number[g] += 1
            if rules.hand_starter == "winner":
                self.hand_starter[g] = winner[nxt]
            else:
                self.hand_starter[g] = (self.hand_starter[g] + 1) % P
            self._deal(g)

    def _game_over(self, games: np.ndarray, winners: np.ndarray, points_reward: np.ndarray) -> None:
        """Game over: rewards for every seat (``win`` or ``points``)."""
        if self.rules.reward == "points":
            reward = points_reward * POINTS_REWARD_SCALE
        else:
            n_win = winners.sum(axis=1, keepdims=True)
            n_lose = self.num_players - n_win
            reward = np.where(winners, 1.0 / n_win, -1.0 / np.maximum(n_lose, 1))
            reward[n_lose[:, 0] == 0] = 0.0
        self._finish(games, reward, winners, self.scores[games])
