"""Scripted players of classic UNO: baselines for tournaments and opponents for learning.

Every policy here reads only the observation of the player to act (a few fields sliced
out of the 449 values, see :mod:`envs.uno.observation`) and its legal mask, never the
engine. It scores all 79 actions of every game at once (higher is better) and takes the
best legal one, breaking ties at random with its own seeded generator, as
:meth:`agents.policy.SeededPolicy.choose` does; there is no Python loop over games, so
one call handles thousands of games. Every phase is covered by the same score table: in
a phase only that phase's actions are legal, so e.g. ``uno`` outscoring ``silent``
matters only where the UNO decision is asked.

==============  =================================================================
name            strategy in short
==============  =================================================================
``random``      uniformly random legal action (:class:`agents.policy.RandomPolicy`)
``rlcard_rule`` RLCard's ``UNORuleAgentV1``: a random non-wild card, wilds last (a
                Wild Draw Four only when nothing else plays), draws only when
                nothing plays; never bluffs, never challenges, declares UNO
``greedy``      dump the card worth the most points; wild colour = most held colour
``heuristic``   colour management, wilds kept for when they matter, attacks on a
                player close to going out, card counting for colours and challenges
``restrained``  another policy (``base``) with a Wild Draw Four habit taken away:
                its bluffs (``bluff: never``) or its challenges (``challenge: never``)
==============  =================================================================

House rules: every policy answers the new decisions by the mask (``rlcard_rule`` swaps
hands after a 7 at random, RLCard having no such rule, and stacks a Wild Draw Four played on
it rather than accept, as it plays one whenever nothing else plays). ``greedy`` and
``heuristic`` swap hands with the player holding the fewest cards; ``heuristic`` also takes
the table's rules (``rules``, passed by tournaments and trainers) and, under ``seven_zero``,
values a 7 or a 0 by the hand it would get. Both stack a Wild Draw Four rather than draw
when the rules let them.

``greedy`` and ``heuristic`` take the Wild Draw Four parameters ``bluff`` (probability
of playing a Wild Draw Four while holding the colour in force, where doing so helps:
each class says where) and ``challenge`` (``"never"``, ``"always"`` or ``"smart"``: how
to answer a Wild Draw Four). "Smart" estimates the chance that the player held the
colour in force (:func:`guilty_probability`, from the cards seen) and challenges when it
is above 1/3, the break-even point: accepting costs 4 cards for sure, challenging
nothing if the player was guilty and 6 cards if innocent. That estimate treats the
player as if it played its Wild Draw Four whatever it held, so against an honest player
"smart" challenges too often ("never" does better there), against a bluffer it pays.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import gammaln

from agents.policy import RandomPolicy, SeededPolicy, as_masks, check_chosen, random_bits
from envs.cards import (
    DECK_SIZE,
    KIND_DRAW_TWO,
    KIND_REVERSE,
    KIND_SKIP,
    NUM_COLOURED_TYPES,
    TYPE_COPIES,
    TYPE_KIND,
    TYPE_VALUE,
)
from envs.uno import actions as A
from envs.uno.kernel import CHALLENGE_BREAK_EVEN, PASS_ON_KIND, SWAP_KIND, challenged_seats
from envs.uno.observation import FIELDS
from envs.uno.rules import UnoRules

__all__ = [
    "UNO_POLICIES",
    "GreedyPolicy",
    "HeuristicPolicy",
    "RLCardRulePolicy",
    "RestrainedPolicy",
    "guilty_probability",
]

CHALLENGE_RULES = ("never", "always", "smart")
#: What :class:`RestrainedPolicy` may do with each of its base's Wild Draw Four habits.
RESTRAINTS = {"bluff": ("base", "never"), "challenge": ("base", "never", "always")}

# Observation offsets (envs.uno.observation documents the layout).
_HAND = FIELDS["hand"].slice
_COLOUR = FIELDS["colour"].slice
_PENDING_DRAW = FIELDS["pending_draw"].slice
_PHASE = FIELDS["phase"].slice
_NUM_PLAYERS = FIELDS["num_players"].start
_HAND_SIZES = FIELDS["hand_sizes"].slice
_DISCARD_COUNTS = FIELDS["discard_counts"].slice
_DISCARD_PILE_SIZE = FIELDS["discard_pile_size"].start
_CHALLENGE_COLOUR = FIELDS["challenge_colour"].slice

_NC = NUM_COLOURED_TYPES  # 52 coloured card types (colour * 13 + kind), also the 52 'play <card>' actions
_W = slice(A.PLAY_WILD, A.PLAY_WILD + 4)  # play W naming R, Y, G, B
_W4 = slice(A.PLAY_WILD_DRAW_FOUR, A.PLAY_WILD_DRAW_FOUR + 4)
_NAME = slice(A.CHOOSE_COLOUR, A.CHOOSE_COLOUR + 4)  # colour R, Y, G, B of a starting Wild
_SWAP = slice(A.SWAP, A.NUM_ACTIONS)  # swap hands with relative seat 1..9 (seven_zero)
_CARD_KIND = TYPE_KIND[:_NC].astype(np.int64)
_CARD_VALUE = TYPE_VALUE[:_NC].astype(np.float64)
_IS_SKIP = (_CARD_KIND == KIND_SKIP).astype(np.float64)
_IS_REVERSE = (_CARD_KIND == KIND_REVERSE).astype(np.float64)
_IS_DRAW_TWO = (_CARD_KIND == KIND_DRAW_TWO).astype(np.float64)
_WILD_POINTS = float(TYPE_VALUE[-1])  # 50
_MAX_SCORE = 16_384.0  # scores stay below (in points): see _ScriptedUnoPolicy._choose
_UNIT = np.float32(256.0)  # a score point in the units _choose works in
_COLOUR_COPIES = np.float32(TYPE_COPIES[:13].sum())  # coloured cards of each colour in the deck (25)
_KIND_COPIES = (4.0 * TYPE_COPIES[:13]).astype(np.float32)  # 4 zeros, 8 of every other kind
# The table fields colour .. hand_sizes in one slice (read once into a small array).
_TABLE = slice(FIELDS["colour"].start, FIELDS["hand_sizes"].start + FIELDS["hand_sizes"].size)
_T_PLAYERS = FIELDS["num_players"].start - _TABLE.start
_T_SIZES = slice(FIELDS["hand_sizes"].start - _TABLE.start, _TABLE.stop - _TABLE.start)

# Speed notes (a tournament calls a policy on 4096 games per step, ~1 ms is the budget):
# numpy is fast on long contiguous rows and slow on many short ones (a sum over 13
# columns, a boolean-mask assignment) and a small matrix product may wake up BLAS
# threads, which costs far more than it saves; hence einsum for the colour counts and a
# lookup table of score rows (see _Situations) instead of building [B, NUM_ACTIONS] scores piece
# by piece.


def _colour_counts(cards: np.ndarray) -> np.ndarray:
    """Coloured cards per colour of count vectors ``[B, >=52]``, ``float32 [B, 4]`` (wilds are no colour)."""
    return np.einsum("bck->bc", cards[:, :_NC].reshape(-1, 4, 13))


def _swap_scores(sizes: np.ndarray) -> np.ndarray:
    """Scores ``[B, 9]`` (in ``_UNIT``) of swapping hands with relative seats 1..9: the fewer
    cards that player holds, the better (``sizes``: the observation's ``hand_sizes``)."""
    return (120.0 - np.minimum(sizes[:, 1:], 119.0)) * _UNIT


def would_bluff(obs: np.ndarray) -> np.ndarray:
    """``bool [B]``: a Wild Draw Four played now would be a bluff, by the engine's own rule
    (``kernel.bluffs``: the player holds a card of the colour in force, and it is no stacked
    one) read from the player's view."""
    from envs.uno import kernel

    B = obs.shape[0]
    out = np.zeros(B, bool)
    onehot = obs[:, _COLOUR]
    colour = np.where(onehot.any(axis=1), onehot.argmax(axis=1), -1)
    phase = obs[:, _PHASE].argmax(axis=1)  # one-hot in the engine's phase order
    pending = obs[:, _PENDING_DRAW][:, 0]
    kernel.bluffs(obs[:, None, _HAND], colour, pending, phase, np.arange(B), np.zeros(B, np.int64), out)
    return out


class _Situations:
    """Score rows of every combination of a few discrete facts about a game.

    ``row(**facts)`` gives the scores of the NUM_ACTIONS (79) actions in one situation (e.g. two
    players, next player holds one card, a Wild Draw Four would be honest); the table of
    all combinations is built once, and a batch of games looks its rows up in one gather.
    Scores that vary continuously (the colour preferences) are added afterwards.
    """

    def __init__(self, sizes: dict[str, int], row: Callable[..., np.ndarray]) -> None:
        self.names = list(sizes)
        self.strides = [int(np.prod(list(sizes.values())[i + 1 :])) for i in range(len(sizes))]
        combos = itertools.product(*(range(n) for n in sizes.values()))
        table = np.stack([row(**dict(zip(self.names, c, strict=True))) for c in combos])
        assert (table >= 1).all() and (table < _MAX_SCORE).all(), "scores must lie in [1, _MAX_SCORE)"
        self.table = (table * _UNIT).astype(np.float32)

    def scores(self, **facts: np.ndarray) -> np.ndarray:
        """``float32 [B, NUM_ACTIONS]`` rows for ``facts`` (one int or bool array ``[B]`` per fact), in ``_UNIT``."""
        code = sum(
            np.asarray(facts[name], np.int64) * stride for name, stride in zip(self.names, self.strides, strict=True)
        )
        return self.table.take(code, axis=0)


def guilty_probability(obs: np.ndarray) -> np.ndarray:
    """Chance that the Wild Draw Four being answered was a bluff, from what the observer has seen.

    For observations ``float [B, OBS_SIZE]`` in phase ``challenge`` (other rows give nonsense):
    the unseen cards are the deck's copies minus the observer's hand minus the discard pile
    (which holds the Wild Draw Four itself). Before playing it, the player (relative slot
    n - 1) held the Wild Draw Four and ``h`` other cards, ``h`` its hand size now; if those
    ``h`` cards are a random draw from the unseen cards, the chance that none has the
    colour in force before the Wild Draw Four (``challenge_colour``) is hypergeometric:
    ``C(N - K, h) / C(N, h)`` with ``N`` unseen cards, ``K`` of them of that colour.
    It ignores *why* the card was played (an honest player plays it only without that
    colour), so it is the chance that the player held the colour, as if it always played it.
    A player that played it as its second-to-last card, did not declare UNO and was caught has
    drawn the UNO penalty before the answer: ``h`` then counts those cards too (1 +
    ``uno_penalty``, not 1), so the chance comes out too high. The view cannot tell that hand
    from one that held 1 + ``uno_penalty`` other cards, and no scripted policy stays silent.
    """
    obs = np.asarray(obs, np.float64)
    rows = np.arange(obs.shape[0])
    seen = obs[:, :_NC] + obs[:, _DISCARD_COUNTS][:, :_NC]  # own hand and discard pile
    colour = obs[:, _CHALLENGE_COLOUR].argmax(axis=1)
    k = _COLOUR_COPIES - _colour_counts(seen)[rows, colour]
    n = DECK_SIZE - obs[:, _HAND_SIZES.start] - obs[:, _DISCARD_PILE_SIZE]  # slot 0: the observer
    previous = challenged_seats(0, 1, obs[:, _NUM_PLAYERS].astype(np.int64))  # its relative slot (n - 1)
    h = np.minimum(obs[rows, _HAND_SIZES.start + previous], n)
    rest = n - k  # unseen cards of other colours (and wilds)
    possible = rest >= h  # a hand of h cards can avoid the colour at all
    rest = np.where(possible, rest, h)
    lg = gammaln(np.stack([rest + 1, rest - h + 1, n + 1, n - h + 1]))
    return 1.0 - np.where(possible, np.exp(lg[0] - lg[1] - lg[2] + lg[3]), 0.0)


class _ScriptedUnoPolicy(SeededPolicy):
    """Base of the scripted UNO policies: scores in ``[1, _MAX_SCORE)`` points."""

    def _choose(self, scores: np.ndarray, mask: np.ndarray, ties: np.ndarray | None = None) -> np.ndarray:
        """:meth:`SeededPolicy.choose` for scores in ``[1, _MAX_SCORE)`` points, given in
        ``_UNIT`` (256 per point) and changed in place.

        The same choice, faster: the random tie-break is one byte per action (0-255 units,
        under a point, exact in float32 at these magnitudes), and zeroing the illegal
        actions is enough, as every legal one scores at least a point.
        """
        scores += random_bits(self.rng, mask.shape, np.uint8) if ties is None else ties
        scores *= mask
        return check_chosen(mask, scores.argmax(axis=1))


class _WildDrawFourPolicy(_ScriptedUnoPolicy):
    """Shared by the policies that may bluff a Wild Draw Four and answer one by a rule."""

    def __init__(self, seed: int | None = None, bluff: float = 0.0, challenge: str = "smart") -> None:
        super().__init__(seed)
        if isinstance(bluff, bool) or not isinstance(bluff, (int, float, np.integer, np.floating)):
            raise ValueError(f"bluff must be a probability, a number in [0, 1]; got {bluff!r}")
        if not 0.0 <= float(bluff) <= 1.0:
            raise ValueError(f"bluff must be a probability, a number in [0, 1]; got {bluff}")
        if challenge not in CHALLENGE_RULES:
            raise ValueError(f"challenge={challenge!r} is not a rule; allowed: {', '.join(CHALLENGE_RULES)}")
        self.bluff = float(bluff)
        self.challenge = challenge

    def _as_if_legal(self, bluff: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``bool [B]``: score a Wild Draw Four as a legal play (it is, or the policy bluffs this
        time); and the tie-breaks :meth:`_choose` is to use (None: it draws them itself).

        The coin comes after those tie-breaks, drawn here first: a policy that bluffs now and then
        draws its tie-breaks as the honest one does, so with a random stream per game (a
        tournament's ``streams: game``) a game where the coin changes nothing is the honest
        policy's game, and the bluff study's gains pair game by game."""
        if self.bluff <= 0.0:
            return ~bluff, None
        if self.bluff >= 1.0:
            return np.ones_like(bluff), None
        ties = random_bits(self.rng, mask.shape, np.uint8)
        return ~bluff | (self.rng.random(bluff.shape[0]) < self.bluff), ties

    def _challenges(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``bool [B]``: challenge a Wild Draw Four (meaningful where it is answered)."""
        if self.challenge != "smart":
            return np.full(mask.shape[0], self.challenge == "always")
        out = np.zeros(mask.shape[0], bool)
        rows = mask[:, A.CHALLENGE].nonzero()[0]  # the games in phase challenge
        if rows.size:
            out[rows] = guilty_probability(obs[rows]) > CHALLENGE_BREAK_EVEN
        return out

    @staticmethod
    def _answer(row: np.ndarray, challenge: int) -> None:
        row[A.CHALLENGE] = 2.0 if challenge else 1.0
        row[A.ACCEPT] = 1.0 if challenge else 2.0


class RLCardRulePolicy(_ScriptedUnoPolicy):
    """RLCard's ``UNORuleAgentV1`` (rlcard.models.uno_rule_models), mapped onto these rules.

    What RLCard's agent does, and what it does here:

    * It draws only when nothing can be played (in RLCard ``draw`` is legal only then);
      with ``draw_anytime`` it still plays whenever it can.
    * Otherwise it plays a random legal non-wild card, each card in hand equally likely
      (a pair about twice as likely as a single card); facing stacked Draw Twos that is a
      random Draw Two.
    * Wilds come last. In RLCard a Wild Draw Four is legal only when no other card (not
      even a Wild) can be played, so it is never a bluff; the agent then plays it naming
      the colour it holds most of (ties at random). With only Wilds playable it plays a
      Wild naming a random colour.
    * RLCard plays a playable drawn card at once (a drawn Wild with a random colour), so
      here it plays the drawn card in phase ``drawn`` and never uses ``pass``; a drawn
      Wild names a random colour, a drawn Wild Draw Four the colour held most.
    * RLCard has no challenge and no UNO call: it always accepts a Wild Draw Four (or, under
      ``stack_wild_draw_four``, stacks its own on it) and always declares UNO. A starting
      Wild gets the colour it holds most of.
    """

    name = "rlcard_rule"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        row = np.ones(A.NUM_ACTIONS, np.float32)
        row[:_NC] = 8_000  # plus a random key: see __call__
        row[_W] = 6_000  # a Wild naming a random colour (the tie is broken at random)
        row[_W4] = 4_000  # only when nothing else plays, so never a bluff
        row[A.DRAW] = 2.0  # only when nothing plays (with draw_anytime too)
        row[A.ACCEPT] = 2.0
        row[A.UNO] = 2.0
        self.row = row * _UNIT

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = as_masks(mask)
        obs = np.asarray(obs)
        B = mask.shape[0]
        scores = np.tile(self.row, (B, 1))
        # A random non-wild card, each copy in hand equally likely: a random byte per card
        # type, for a pair the larger of two bytes (ties go to the tie-break).
        hand = obs[:, :_NC]
        key = random_bits(self.rng, (2, B, _NC), np.uint8, row_axis=1)
        key = np.maximum(key[0], key[1] * (hand > 1.5))
        scores[:, :_NC] += key * np.float32(16.0 * _UNIT)
        counts = _colour_counts(hand) * _UNIT
        scores[:, _W4] += counts
        scores[:, _NAME] += counts
        return self._choose(scores, mask)


class GreedyPolicy(_WildDrawFourPolicy):
    """Dump the card worth the most points (numbers their face value, Skip/Reverse/Draw Two 20,
    Wild and Wild Draw Four 50), so that an opponent going out scores as little as possible.

    Among cards of equal value it prefers the one of the colour it holds most; a Wild Draw
    Four goes before a Wild; wilds name the colour held most. It draws only when it cannot
    play, plays a playable drawn card, declares UNO and names a starting Wild's colour by
    the colour held most.

    Wild Draw Four: honest by default. ``bluff`` = p: when it holds the colour in force,
    with probability p it plays its Wild Draw Four anyway, as its most valuable card (the
    card it would dump first if it were legal). ``challenge``: ``"never"``, ``"always"``
    or ``"smart"`` (see the module docs).
    """

    name = "greedy"

    def __init__(self, seed: int | None = None, bluff: float = 0.0, challenge: str = "smart") -> None:
        super().__init__(seed, bluff, challenge)
        self.situations = _Situations({"legal": 2, "challenge": 2}, self._row)

    def _row(self, legal: int, challenge: int) -> np.ndarray:
        row = np.ones(A.NUM_ACTIONS)
        row[:_NC] = 2_000 + 100 * _CARD_VALUE
        row[_W] = 2_000 + 100 * _WILD_POINTS
        # Before a Wild; a bluff only if forced (a drawn card under must_play_drawn).
        row[_W4] = 2_000 + 100 * _WILD_POINTS + 50 if legal else 500
        row[A.PASS] = 1_000  # keep a drawn Wild Draw Four rather than bluff with it
        row[A.DRAW] = 100
        row[A.UNO] = 2.0
        self._answer(row, challenge)
        return row

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = as_masks(mask)
        obs = np.asarray(obs)
        counts = _colour_counts(obs[:, :_NC])
        legal, ties = self._as_if_legal(would_bluff(obs), mask)
        scores = self.situations.scores(legal=legal, challenge=self._challenges(obs, mask))
        counts *= _UNIT
        scores[:, :_NC] += np.repeat(counts, 13, axis=1)  # types are colour-major
        scores[:, _W] += counts
        scores[:, _W4] += counts
        scores[:, _NAME] += counts
        scores[:, _SWAP] += _swap_scores(obs[:, _HAND_SIZES])
        return self._choose(scores, mask, ties)


class HeuristicPolicy(_WildDrawFourPolicy):
    """The strongest scripted player here: it manages colours, saves wilds and attacks.

    * Colours: among the cards it can play it prefers those leaving many cards of the
      new colour in its hand, so it can follow up (a card of another colour with the same
      number or symbol switches to its strongest colour).
    * Card counting (the discard pile): a colour, or a number or symbol, of which few
      cards are still unseen is preferred, since the next player is less likely to be
      able to answer it.
    * Wilds are kept for when they matter: a Wild only when no coloured card plays, an
      honest Wild Draw Four before a Wild; a wild names its best colour by the same
      preference as a coloured card: cards held of it, weighed against the share of that
      colour still unseen (so a colour held once but nearly all seen can beat one held
      twice). A wild kept as the last card always goes out.
    * Attack: when the next player holds 2 cards or fewer, Draw Two, Wild Draw Four and
      Skip (and Reverse when it makes the next player the previous one, or acts as a
      Skip with two players) come first, the strongest first; a Reverse that hands the
      turn to a previous player closer to going out is avoided.
    * Tempo: with two players Skip, Reverse and Draw Two give another turn and are
      preferred; with more players a Draw Two is preferred as it costs the next player.
    * Points: when an opponent holds 2 cards or fewer, high cards go first (the points
      left in hand when someone goes out are what the others score).
    * It draws only when it cannot play, plays a playable drawn card, declares UNO.
    * ``seven_zero`` (read from ``rules``): a 7 is worth more the more cards it holds than
      the smallest other hand (it swaps with that player), a 0 the more it holds than the
      previous player (whose hand it gets); one card too many is :attr:`HAND_SWAP` points.

    Wild Draw Four: honest by default. ``bluff`` = p: when it holds the colour in force,
    with probability p it scores its Wild Draw Four as if it were legal, so it bluffs
    exactly where the honest card would be its best play: attacking a next player close to
    going out. ``challenge``: ``"never"``, ``"always"`` or ``"smart"`` (see the module docs).
    """

    name = "heuristic"

    # Score tiers: a coloured play outranks any wild, then keeping a drawn card, then
    # drawing; attacks add whole tiers (all scores stay in [1, _MAX_SCORE)).
    COLOURED = 6_000.0
    WILD = 4_000.0
    PASS = 3_000.0
    DRAW = 2_000.0
    BLUFF = 1_000.0  # a Wild Draw Four while holding the colour in force (when not bluffing)
    WILD_DRAW_FOUR_BONUS = 100.0  # over a Wild
    ATTACK = 1_500.0  # per danger level of the next player (2 cards: 1, 1 card: 2)
    COLOUR_CARD = 10.0  # per card held of the new colour
    FOLLOW = 20.0  # at least one card held of the new colour
    RARE_COLOUR = 20.0  # times 4 x the unseen share of the new colour, subtracted
    RARE_KIND = 3.0  # per unseen card of the number / symbol played, subtracted
    TEMPO = 15.0  # two players: Skip / Reverse / Draw Two
    DRAW_TWO = 5.0  # more players: a Draw Two costs the next player
    DUMP = 0.0  # per point of the card played (points do not decide who wins)
    DUMP_DANGER = 1.5  # per point, more, when an opponent holds 2 cards or fewer
    HAND_SWAP = 100.0  # seven_zero: per card fewer in the hand a 7 or a 0 brings (at most 10)

    def __init__(
        self, seed: int | None = None, bluff: float = 0.0, challenge: str = "smart", rules: dict | None = None
    ) -> None:
        super().__init__(seed, bluff, challenge)
        self.seven_zero = bool(UnoRules.from_dict(rules or {}).seven_zero)
        sizes = {"two": 2, "danger_next": 3, "danger_prev": 3, "danger_any": 2, "legal": 2, "challenge": 2}
        self.situations = _Situations(sizes, self._row)

    def _row(
        self, two: int, danger_next: int, danger_prev: int, danger_any: int, legal: int, challenge: int
    ) -> np.ndarray:
        """Scores in one situation (colour and card-counting terms come on top). ``danger_*``:
        2 when that player holds 1 card, 1 with 2 cards, else 0; ``legal``: score a Wild Draw
        Four as legal (it is, or the policy bluffs)."""
        row = np.ones(A.NUM_ACTIONS)
        dump = self.DUMP + self.DUMP_DANGER * danger_any
        attack = self.ATTACK * danger_next
        # A Reverse skips with two players, else it turns play towards the previous player.
        reverse = attack if two else self.ATTACK * (danger_next - danger_prev)
        tempo = self.TEMPO * (_IS_SKIP + _IS_REVERSE + _IS_DRAW_TWO) if two else self.DRAW_TWO * _IS_DRAW_TWO
        row[:_NC] = (
            self.COLOURED
            - self.RARE_KIND * _KIND_COPIES[_CARD_KIND]  # card counting by kind: see __call__
            + dump * _CARD_VALUE
            + attack * (1.5 * _IS_DRAW_TWO + _IS_SKIP)
            + reverse * _IS_REVERSE
            + tempo
        )
        row[_W] = self.WILD + dump * _WILD_POINTS
        if legal:  # an attacking Wild Draw Four outranks coloured cards (not a Draw Two)
            w4_attack = self.COLOURED - self.WILD + 1.25 * attack if attack else 0.0
            row[_W4] = self.WILD + self.WILD_DRAW_FOUR_BONUS + dump * _WILD_POINTS + w4_attack
        else:
            row[_W4] = self.BLUFF
        row[A.DRAW] = self.DRAW
        row[A.PASS] = self.PASS
        row[_NAME] = self.BLUFF
        row[A.UNO] = 2.0
        self._answer(row, challenge)
        return row

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = as_masks(mask)
        obs = np.asarray(obs)
        B = mask.shape[0]
        hand = np.ascontiguousarray(obs[:, :_NC])
        counts = _colour_counts(hand)
        seen = hand + obs[:, _DISCARD_COUNTS][:, :_NC]  # own hand and discard pile: not elsewhere
        table = np.ascontiguousarray(obs[:, _TABLE])  # colour .. hand sizes, read once
        players = table[:, _T_PLAYERS]
        sizes = table[:, _T_SIZES]
        # Danger: 2 when that player holds 1 card, 1 with 2 cards, else 0 (a seat past the
        # table's players holds 0 cards: the opponents in play hold at least one).
        prev_size = table.ravel().take(np.arange(B) * table.shape[1] + (_T_SIZES.start - 1) + players.astype(np.int64))
        close = np.square(sizes[:, 1:] - 1.5) < 1.0  # holds 1 or 2 cards
        legal, ties = self._as_if_legal(would_bluff(obs), mask)
        scores = self.situations.scores(
            two=players < 2.5,
            danger_next=np.clip(3.0 - sizes[:, 1], 0.0, 2.0),
            danger_prev=np.clip(3.0 - prev_size, 0.0, 2.0),
            danger_any=np.einsum("bs->b", close.view(np.uint8)) > 0,
            legal=legal,
            challenge=self._challenges(obs, mask),
        )
        # Colour preference: cards held of that colour; card counting: the share of that
        # colour among the coloured cards not seen yet. A coloured card leaves the hand, so
        # its colour counts one card less (and "at least one left" needs two held).
        unseen = _COLOUR_COPIES - _colour_counts(seen)
        total = unseen[:, 0] + unseen[:, 1] + unseen[:, 2] + unseen[:, 3]
        prefs = self.COLOUR_CARD * counts - (4.0 * self.RARE_COLOUR) * unseen / np.maximum(total, 1.0)[:, None]
        prefs_after = (prefs + self.FOLLOW * (counts > 1.5) - self.COLOUR_CARD) * _UNIT
        prefs += self.FOLLOW * (counts > 0.5)
        prefs *= _UNIT
        coloured = np.repeat(prefs_after, 13, axis=1)
        if self.RARE_KIND:
            # Card counting by number / symbol: the more of them seen, the less likely a
            # reply with one (the constant part, all copies of a kind, is left out).
            seen_kind = seen[:, 0:13] + seen[:, 13:26] + seen[:, 26:39] + seen[:, 39:52]
            seen_kind *= self.RARE_KIND * _UNIT
            coloured += np.tile(seen_kind, 4)
        scores[:, :_NC] += coloured
        both = np.tile(prefs, 2)
        scores[:, _W.start : _W4.stop] += both  # Wild and Wild Draw Four name a colour
        scores[:, _NAME] += prefs
        scores[:, _SWAP] += _swap_scores(sizes)
        if self.seven_zero:
            self._score_seven_zero(scores, sizes, players, prev_size)
        return self._choose(scores, mask, ties)

    def _score_seven_zero(
        self, scores: np.ndarray, sizes: np.ndarray, players: np.ndarray, prev_size: np.ndarray
    ) -> None:
        """A 7 brings the smallest other hand, a 0 the previous player's (in cards, after this
        card leaves the hand; a last card just goes out)."""
        kept = sizes[:, 0] - 1.0
        live = np.arange(1, sizes.shape[1])[None, :] < players[:, None]
        smallest = np.where(live, sizes[:, 1:], np.inf).min(axis=1)
        going_on = kept > 0.5
        for kind, brings in ((SWAP_KIND, smallest), (PASS_ON_KIND, prev_size)):
            gain = np.where(going_on, np.clip(kept - brings, -10.0, 10.0), 0.0)
            scores[:, kind:_NC:13] += (self.HAND_SWAP * _UNIT) * gain[:, None].astype(np.float32)


class RestrainedPolicy(SeededPolicy):
    """Another policy with a Wild Draw Four habit taken away, to measure what the habit earns.

    ``{name: restrained, base: "agent:models/uno_2p_ppo.pt", challenge: never}`` plays as its
    ``base`` (any policy spec) but never sees a challenge among its legal actions, so it
    accepts (or, where the rules let it, stacks if its base prefers that); ``always`` leaves
    it only the challenge. ``bluff: never`` takes away a Wild Draw Four that would be a bluff
    (:func:`would_bluff`, the engine's rule read from the view) wherever anything else is
    legal, so the base plays its next choice (a drawn Wild Draw Four that must be played,
    under ``draw_anytime`` with ``must_play_drawn``, stays a bluff: nothing else is legal).
    Only the base's choice among the actions left changes: a greedy agent takes its next most
    probable action, a scripted policy its next best score. The bluffing study plays the
    shipped agents so, on the same deals as they are, and reports the difference in games won.
    Its random numbers are its base's: ``seed``, ``rng_state`` and ``rng`` (which
    :func:`agents.policy.drawing_by_row` swaps for per-row streams) reach the base.
    """

    name = "restrained"
    wraps = True  # not an opponent of its own: agents.registry.strategies leaves it out

    @staticmethod
    def files_read(params: dict[str, Any], game: str, players: int) -> list[str]:
        from agents.registry import files_read

        return files_read(game, params.get("base", "heuristic"), players)

    def __init__(
        self,
        seed: int | None = None,
        base: Any = "heuristic",
        bluff: str = "base",
        challenge: str = "base",
        rules: dict[str, Any] | None = None,
    ) -> None:
        from agents.registry import make_policy

        for key, value in (("bluff", bluff), ("challenge", challenge)):
            if value not in RESTRAINTS[key]:
                raise ValueError(f"{key}={value!r}; allowed: {', '.join(RESTRAINTS[key])}")
        self.base = make_policy("uno", base, seed, rules=rules)
        self.bluff, self.challenge = bluff, challenge

    @property
    def rng(self) -> Any:
        return getattr(self.base, "rng", None)

    @rng.setter
    def rng(self, value: Any) -> None:
        self.base.rng = value

    def seed(self, seed: int | None) -> None:
        if hasattr(self.base, "seed"):
            self.base.seed(seed)

    def rng_state(self) -> Any:
        return self.base.rng_state() if hasattr(self.base, "rng_state") else None

    def set_rng_state(self, state: Any) -> None:
        if state is not None:
            self.base.set_rng_state(state)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = as_masks(mask).copy()
        obs = np.asarray(obs)
        if self.challenge != "base":
            facing = mask[:, A.CHALLENGE].copy()
            if self.challenge == "never":
                mask[:, A.CHALLENGE] = False
            else:
                mask[facing] = False
                mask[facing, A.CHALLENGE] = True
        if self.bluff == "never":
            narrowed = mask.copy()
            narrowed[:, _W4] = False
            rows = would_bluff(obs) & mask[:, _W4].any(axis=1) & narrowed.any(axis=1)
            mask[rows] = narrowed[rows]
        return check_chosen(mask, self.base(obs, mask))


#: The scripted UNO policies by name (``agents.registry`` looks them up here).
UNO_POLICIES: dict[str, type] = {
    "random": RandomPolicy,
    "rlcard_rule": RLCardRulePolicy,
    "greedy": GreedyPolicy,
    "heuristic": HeuristicPolicy,
    "restrained": RestrainedPolicy,
}
