"""Scripted policies of the team trick game (docs/tricks.md), batched over games.

Each policy scores all 89 actions of every game from the observation alone (never the
engine's state) and lets :meth:`SeededPolicy.choose` take the best legal one, ties at random:

* ``random``: a uniformly random legal action.
* ``greedy``: lays its highest number, never a special card; after a +2/+4 (only in a
  position built by hand) it draws as many cards as allowed and puts back its lowest;
  after a Reverse it takes the highest opponent card worth more than its own.
* ``heuristic``: estimates, for every card it could lay, the chance that its team takes
  the trick (the players still to lay are modelled from the cards it has not seen) and
  lays the card of best expected point swing, keeping its high cards for tricks it can
  win. It plays Skip on tricks its team loses, Reverse to take the best opponent card,
  Wild when the added card matters, and +2/+4 to exchange its lowest cards.

No Python loop runs over games: for 4096 games a call costs about 1 ms (greedy; most of
it the shared arg-max) or 3 ms (heuristic) on one CPU core.
"""

from __future__ import annotations

import numpy as np

from agents.policy import RandomPolicy, SeededPolicy, as_masks
from envs.uno_tricks import actions as A
from envs.uno_tricks.kernel import NUMBER_COPIES
from envs.uno_tricks.observation import FIELDS, OBS_SIZE, SPECIAL_NAMES, SWAP
from envs.uno_tricks.rules import PLUS2_DRAW, PLUS4_DRAW

__all__ = ["GreedyPolicy", "HeuristicPolicy", "TRICKS_POLICIES"]

_S = {name: field.slice for name, field in FIELDS.items()}
_NUMBERS = np.arange(10, dtype=np.float32)
_COPIES = NUMBER_COPIES.astype(np.float32)  # number cards per number in the deck
_SKIP, _REVERSE, _PLUS2, _WILD, _PLUS4 = (SPECIAL_NAMES.index(k) for k in ("skip", "reverse", "+2", "wild", "+4"))
_BIG = np.float32(1e4)  # a score that never wins against a sensible action
_F = np.float32
_CHUNK = 4096  # rows per pass: bigger batches go in chunks
_DRAWS = np.arange(5, dtype=np.float32)
_MID_SHARE = 0.5  # share of its expected best free number that a player laying before the last adds
_LAST_VALUE = 1.5  # what the last player's card adds to the trick's value, on average
_PAIR_GAIN = 1.0  # +2 with +4: one special card more, in special-card costs
_ONES = np.ones(10, np.float32)
_ONES4 = np.ones(4, np.float32)
_X = np.arange(10)
_TWO_SEATS = np.tile(np.eye(10, dtype=np.float32), (2, 1))  # [20, 10]: two seats' one-hots summed
_SEAT_NUMBER = np.kron(np.eye(4, dtype=np.float32), _NUMBERS[:, None])  # [40, 4]: per-seat number
_TAIL = (_X[:, None] >= np.arange(11)).astype(np.float32)  # [10, 11]: n >= d
_ONES9 = np.ones(9, np.float32)
# [10, 12]: for d = -1..10, the columns d and d + 1 of P(nothing >= k), k = 1..10; then the constants.
_PAIRS = (
    ((np.arange(1, 11)[:, None] == np.arange(-1, 11)) | (np.arange(1, 11)[:, None] == np.arange(0, 12))) * 1
).astype(np.float32)
_PAIRS_CONST = np.where(np.arange(-1, 11) == 10, 0.0, -1.0).astype(np.float32)
_UPTO = (_X[:, None] <= _X).astype(np.float32)  # [10, 10]: counts @ _UPTO = running sums


# Greedy's scores outside the swap phase: ``lay n`` alone by n, draw all, put back the lowest.
_GREEDY = np.full(A.NUM_ACTIONS, -_BIG, np.float32)
_GREEDY[:10] = _NUMBERS
_GREEDY[A.DRAW : A.DRAW + 5] = np.arange(5)
_GREEDY[A.RETURN : A.RETURN + 10] = -_NUMBERS
_GREEDY.flags.writeable = False


def _check(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mask = as_masks(mask)
    obs = np.asarray(obs, np.float32)
    if obs.ndim != 2 or obs.shape[1] != OBS_SIZE or obs.shape[0] != mask.shape[0]:
        raise ValueError(f"trick-game observations are [batch, {OBS_SIZE}] like the masks, got {obs.shape}")
    if mask.shape[1] != A.NUM_ACTIONS:
        raise ValueError(f"trick-game masks are [batch, {A.NUM_ACTIONS}], got {mask.shape}")
    return obs, mask


def _worth(obs: np.ndarray) -> np.ndarray:
    """Per relative seat, what its laid card itself is worth ``[B, 4]`` (0 for a forced duplicate
    or no card; a Wild's card, which stays with the seat, left out)."""
    return (obs[:, _S["table_number"]] @ _SEAT_NUMBER) * (1.0 - obs[:, _S["table_forced"]])


def _swap_scores(worth: np.ndarray) -> np.ndarray:
    """Scores of ``swap 1..3`` and ``keep``: take the best opponent card worth more than its own."""
    gain = worth[:, 1:] - worth[:, :1]
    gain[:, 1] = -1.0  # the partner's card: the team's sum would not change
    return np.concatenate([gain, np.zeros((worth.shape[0], 1), np.float32)], axis=1)


class GreedyPolicy(SeededPolicy):
    """Lays its highest number alone (no special card, even if that number is a forced duplicate).

    The other phases only happen after a special card, so never by its own choice; there it
    draws as many cards as allowed, puts back its lowest ones, and on a Reverse takes the
    highest opponent card on the table when that is worth more than its own (else keeps).
    """

    name = "greedy"
    game = "tricks"

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, mask = _check(obs, mask)
        scores = np.broadcast_to(_GREEDY, mask.shape)
        swapping = (obs[:, _S["phase"].start + SWAP] > 0.5).nonzero()[0]
        if swapping.size:  # only after a Reverse: never by its own choice
            scores = scores.copy()
            scores[swapping, A.SWAP :] = _swap_scores(_worth(obs[swapping]))
        return self.choose(scores, mask)


#: The largest size of a trick-game heuristic's cost or weight (points; the scores are float32).
MAX_WEIGHT = 1e4


class HeuristicPolicy(SeededPolicy):
    """Lays the card (and special) of best expected point swing, the players still to lay
    modelled from the cards it has not seen.

    For each number it may lay it estimates P(take) - P(lose) for its team: the partner
    and opponents still to lay hold cards at random among those it has not seen (its hand,
    the table and the points piles are known); a player laying before the last one adds
    part of its expected best free number, and the last one answers with any card it
    holds: an opponent ties or beats the sum if it can, the partner beats it if it can.
    The score is that times the trick's expected value, minus ``card_cost`` x the number
    laid: a high card is worth more kept for a later trick, so it takes a trick with its
    lowest winning card, lays low where its partner already takes the trick, and dumps
    its lowest card (a 0) where the trick is lost. With a special card:

    * Skip, on a trick the other team would take (with its lowest card, which is lost);
    * Reverse, with its lowest card, then swaps for the best opponent card on the table;
    * Wild, mostly in the last tricks, where the added card turns the trick;
    * +2 / +4, to exchange its lowest numbers for pile cards (expected value of the
      unseen cards); it draws all it may and puts back its lowest numbers; +2 with +4
      when its hand has nothing low left to exchange.

    Each special costs its ``*_cost`` in points (what it is worth kept for later), falling
    to 0 over its last three cards; ``exchange_weight`` scales the expected gain of an
    exchange. A forced duplicate is its lowest card (or it goes with a Reverse: the 0 goes
    to the opponent). The defaults won head-to-head matches of 8192 games in self-play.
    """

    name = "heuristic"
    game = "tricks"

    def __init__(
        self,
        seed: int | None = None,
        card_cost: float = 1.3,
        skip_cost: float = 15.0,
        reverse_cost: float = 8.0,
        wild_cost: float = 30.0,
        exchange_cost: float = 1.0,
        exchange_weight: float = 4.0,
    ) -> None:
        super().__init__(seed)
        weights = {
            "card_cost": card_cost,
            "skip_cost": skip_cost,
            "reverse_cost": reverse_cost,
            "wild_cost": wild_cost,
            "exchange_cost": exchange_cost,
            "exchange_weight": exchange_weight,
        }
        for key, value in weights.items():  # points, scored in float32: NaN or a huge value scores nothing
            number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
            if not number or not -MAX_WEIGHT <= float(value) <= MAX_WEIGHT:
                raise ValueError(
                    f"{key} must be a number of points in [-{MAX_WEIGHT:g}, {MAX_WEIGHT:g}], got {value!r}"
                )
            setattr(self, key, float(value))

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, mask = _check(obs, mask)
        scores = np.empty(mask.shape, np.float32)
        for lo in range(0, obs.shape[0], _CHUNK):  # chunks keep every array small (and BLAS single-threaded)
            part = obs[lo : lo + _CHUNK]
            worth = _worth(part)
            scores[lo : lo + _CHUNK, : A.NUM_LAY_ACTIONS] = self._lay_scores(part, worth)
            scores[lo : lo + _CHUNK, A.SWAP :] = _swap_scores(worth)
        scores[:, A.DRAW : A.DRAW + 5] = _DRAWS  # all it may: it puts back the lowest cards
        scores[:, A.RETURN : A.RETURN + 10] = -_NUMBERS
        return self.choose(scores, mask)

    def _lay_scores(self, obs: np.ndarray, worth: np.ndarray) -> np.ndarray:
        """Scores of the 70 lay actions ``[B, 70]`` (rows in another phase get scores nobody reads).

        Arrays are ``[B, 10]`` by the number x it would lay, kept contiguous: numpy is slow on
        broadcasts along short rows, so per-game values are repeated ten times first.
        """
        B = obs.shape[0]
        rep = _repeated(B)
        hand = np.ascontiguousarray(obs[:, _S["numbers"]])
        value = obs[:, _S["table_value"]]
        sizes = obs[:, _S["hand_sizes"]]
        pile = obs[:, _S["number_pile_size"].start]
        table = obs[:, _S["table_number"]]
        on_table = (table[:, :20] + table[:, 20:]) @ _TWO_SEATS  # numbers laid this trick
        free = (on_table < 0.5).astype(_F)
        x_worth = free * rep.x  # what laying x adds to the sum (a forced duplicate: 0)

        # Cards it has not seen (other hands, number pile); the pile's top card's distribution.
        unseen = _COPIES - hand
        unseen -= obs[:, _S["numbers_out"]]
        unseen -= on_table
        np.clip(unseen, 0.0, _COPIES.max(), out=unseen)
        frac = unseen * _rep10(1.0 / np.maximum(unseen @ _ONES, 1.0))
        mean_card = frac @ _NUMBERS
        np.clip(frac, 0.0, 0.99, out=frac)
        log_absent = np.log(1.0 - frac)
        log_absent *= free  # a card held is not n (or n is banned: it cannot be laid)

        # Who still lays (slots 1-3): the last one answers knowing the table; before it the
        # opponent in slot 1 (and the partner in slot 2 when slot 3 follows) lay high cards.
        laid, size = _S["table_laid"].start, _S["hand_sizes"].start
        w1, w2, w3 = ((obs[:, laid + j] < 0.5) & (obs[:, size + j] > 0.5) for j in (1, 2, 3))
        anyone = w1 | w2 | w3
        partner_last = w2 & ~w3
        h_last = np.where(w3, sizes[:, 3], np.where(w2, sizes[:, 2], sizes[:, 1])) * anyone
        mid_opp = w1 & (w2 | w3)
        mid_partner = w2 & w3

        before = value[:, 2] - value[:, 1] - value[:, 3]  # own team's sum minus the other's so far
        mid_sign = _MID_SHARE * (mid_partner.astype(_F) - mid_opp)  # both: they about cancel
        rows = mid_sign.nonzero()[0]
        if rows.size:
            h_mid = np.where(mid_opp, sizes[:, 1], sizes[:, 2])[rows]
            before[rows] += mid_sign[rows] * self._expected_best(log_absent[rows], h_mid)
        lead = _rep10(before)
        lead += x_worth  # ... once x is laid, before the last player answers
        mids = mid_opp.astype(_F) + mid_partner
        trick_value = _rep10(value @ _ONES4 + _LAST_VALUE * anyone + mean_card * mids)
        trick_value += x_worth

        # Sums to judge: plain, with a Wild's card, after Reverse's best swap (where they are held).
        held = obs[:, _S["specials"]] > 0.5
        wild_rows = held[:, _WILD].nonzero()[0]
        rev_rows = held[:, _REVERSE].nonzero()[0]
        added = mean_card[wild_rows] * (pile[wild_rows] > 0.5)  # an empty pile adds nothing
        swing = _rep10(np.maximum(worth[rev_rows, 1], worth[rev_rows, 3]))
        swing -= x_worth[rev_rows]  # its own card goes to the opponent: the lowest, or a forced 0
        np.clip(swing, 0.0, None, out=swing)
        swing *= 2.0
        swing += lead[rev_rows]
        leads = np.concatenate([lead, lead[wild_rows] + _rep10(added), swing])
        which = np.concatenate([rep.rows, wild_rows, rev_rows])
        net = self._chances(leads, which, log_absent, h_last, partner_last)
        annulled = obs[:, _S["annulled"].start] > 0.5
        if annulled.any():
            net[annulled[which]] = 0.0  # after a Skip nobody takes the trick

        spent = rep.x * self.card_cost
        spent -= (hand > 1.5) * _F(0.1)  # a number held twice: lay one of them first
        plain = net[:B] * trick_value
        plain -= spent
        fading = np.clip(hand @ _ONES - 1.0, 0.0, 3.0) * _F(1 / 3)  # specials: free on its last card

        out = np.zeros((B, len(A.COMBOS), 10), _F)  # a special not held: never legal, left at 0
        out[:, A.NONE] = plain
        rows = (held[:, _PLUS2] | held[:, _PLUS4]).nonzero()[0]
        if rows.size:  # +2 / +4: its 2 / 4 lowest numbers for pile cards of the unseen average
            h = hand[rows]
            worse = _rep10(mean_card[rows]) - rep.x[: rows.size]
            np.clip(worse, 0.0, None, out=worse)  # what a pile card adds over a card n, on average
            upto = h @ _UPTO  # cards held up to n, and before n
            before = upto - h
            base = plain[rows] - _rep10(self.exchange_cost * fading[rows])
            for combo, k in ((A.PLUS2, PLUS2_DRAW), (A.PLUS4, PLUS4_DRAW)):  # (as if the pile had them all)
                lowest = np.minimum(upto, k)
                lowest -= np.minimum(before, k)  # of the k lowest cards, how many are n
                lowest *= worse
                out[rows, combo] = base + _rep10(self.exchange_weight * (lowest @ _ONES))
            out[rows, A.PAIR] = base + _rep10(_PAIR_GAIN * self.exchange_cost * fading[rows])  # 3 for 2
        rows = held[:, _SKIP].nonzero()[0]  # the trick and the card laid with it count for nobody
        out[rows, A.SKIP] = _rep10(-self.skip_cost * fading[rows]) - spent[rows]
        if wild_rows.size:
            n = wild_rows.size
            wild = net[B : B + n] * (trick_value[wild_rows] + _rep10(added))
            wild -= spent[wild_rows]
            out[wild_rows, A.WILD] = wild - _rep10(self.wild_cost * fading[wild_rows])
        if rev_rows.size:
            reverse = net[B + wild_rows.size :] * trick_value[rev_rows]
            reverse -= spent[rev_rows]
            out[rev_rows, A.REVERSE] = reverse - _rep10(self.reverse_cost * fading[rev_rows])
        out *= _F(8.0)  # score differences of 1/8 point still count
        return out.reshape(B, -1)

    @staticmethod
    def _expected_best(log_absent: np.ndarray, h: np.ndarray) -> np.ndarray:
        """Expected highest free number ``[b]`` of players holding ``h`` unseen cards."""
        lq = _rep10(h) * log_absent
        np.clip(lq, -30.0, 0.0, out=lq)
        return 9.0 - np.exp(lq @ _TAIL[:, 1:10]) @ _ONES9  # sum over k = 1..9 of P(best >= k)

    @staticmethod
    def _chances(
        leads: np.ndarray, rows: np.ndarray, log_absent: np.ndarray, h: np.ndarray, partner: np.ndarray
    ) -> np.ndarray:
        """P(take) - P(lose) when the team's sum leads by ``leads [N, 10]`` (in game ``rows [N]``)
        before the last player answers: an opponent ties with a free card = lead and beats with
        one > lead, the partner beats with one > -lead (ties with = -lead); nobody left: the sign."""
        lq = _rep10(h) * log_absent
        np.clip(lq, -30.0, 0.0, out=lq)
        # Opponent last, by lead d = -1..10: P(nothing >= d) + P(nothing >= d + 1) - 1, where
        # P(nothing >= d) is 0 up to d = 0 (a card >= 0 is always there) and 1 from d = 10.
        # The partner last is the same by -d, with the sign turned.
        by_lead = np.exp(lq @ _TAIL[:, 1:]) @ _PAIRS
        by_lead += _PAIRS_CONST
        sign = _rep10(1.0 - 2.0 * partner[rows])
        d = np.rint(leads)
        d *= sign
        np.clip(d, -1.0, 10.0, out=d)
        d = d.astype(np.int32)
        d += np.repeat((rows.astype(np.int32) * 12 + 1)[:, None], 10, axis=1)
        net = by_lead.ravel().take(d)
        net *= sign
        return net


def _rep10(v: np.ndarray) -> np.ndarray:
    """A per-game vector ``[B]`` repeated along the ten numbers, ``[B, 10]`` (contiguous)."""
    return np.repeat(np.asarray(v, _F)[:, None], 10, axis=1)


class _Repeated:
    """Constants of one batch size: the numbers x ``[B, 10]``, the game indices ``[B]``."""

    def __init__(self, B: int) -> None:
        self.x = np.ascontiguousarray(np.broadcast_to(_NUMBERS, (B, 10)))
        self.rows = np.arange(B)


_REPEATED: dict[int, _Repeated] = {}


def _repeated(B: int) -> _Repeated:
    if B not in _REPEATED:
        if len(_REPEATED) > 8:
            _REPEATED.clear()
        _REPEATED[B] = _Repeated(B)
    return _REPEATED[B]


#: Scripted trick-game policies by name (see :mod:`agents.registry`).
TRICKS_POLICIES: dict[str, type] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
    "heuristic": HeuristicPolicy,
}
