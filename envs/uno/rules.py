"""Every rule option of classic UNO (docs/uno.md), validated on construction.

Defaults follow the Italian seed text where it speaks and the official rules where it is
silent.  Users write these fields in YAML configs; :meth:`UnoRules.from_dict` turns such
a mapping into rules and refuses unknown keys by name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from envs.cards import DECK_SIZE
from envs.core import RulesBase

MIN_PLAYERS = 2
MAX_PLAYERS = 10

#: Cards the deal must leave in the draw pile: a Wild Draw Four turned first goes back and
#: another is turned, so the pile must hold a card that is not one of the 4 Wild Draw Fours.
MIN_DRAW_PILE = 5

#: ``reward="points"`` pays card points times this constant (a 50-point Wild left in a
#: loser's hand costs it 0.5), keeping returns in a range that suits value networks.
POINTS_REWARD_SCALE = 0.01

#: How a match scores (``scoring``): the winner takes the others' points, or each counts its own.
SCORING_CHOICES: tuple[str, ...] = ("standard", "reverse")

_CHOICES = {
    "scoring": SCORING_CHOICES,
    "reward": ("win", "points"),
    "hand_starter": ("rotate", "winner"),
}


#: The largest match target: a million points is thousands of hands (and far inside the
#: kernel's integers; a larger one poisoned stores that later reads could not type).
MAX_TARGET_SCORE = 1_000_000


def shown_int(value: object) -> str:
    """An integer for an error message, cut when it is huge."""
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:12]}...({len(text)} digits)"


@njit(cache=True, _nrt=False)
def match_over_one(scores: np.ndarray, target_score: int, reverse_scoring: bool) -> bool:
    """Whether a match with these totals (one per seat) is over: standard scoring ends when
    a total reaches the target (>=), reverse scoring when one passes it (>)."""
    top = scores[0]
    for p in range(1, scores.size):  # a loop: numba's max() needs reference counting
        top = max(top, scores[p])
    return top > target_score if reverse_scoring else top >= target_score


@njit(cache=True, _nrt=False)
def match_leaders_one(scores: np.ndarray, reverse_scoring: bool, leaders: np.ndarray) -> None:
    """Who leads a match with these totals (``leaders``: bool per seat, ties share): the
    highest total in standard scoring, the lowest in reverse scoring. At the end they win."""
    best = scores[0]
    for p in range(1, scores.size):
        best = min(best, scores[p]) if reverse_scoring else max(best, scores[p])
    for p in range(scores.size):
        leaders[p] = scores[p] == best


@dataclass(frozen=True)
class UnoRules(RulesBase):
    """Rules of a classic UNO game.

    Attributes:
        hand_size: cards dealt to each player (7).
        draw_anytime: a player may draw even holding a playable card (official Mattel
            rule). Default False: only a player with nothing to play draws (the seed).
        must_play_drawn: a playable drawn card is played at once (the seed). False: the
            player may keep it with the action ``pass`` (official).
        draw_until_playable: a player who draws one card (not stacked Draw Twos) goes on
            drawing until a card can be played, or both piles are empty (house rule, off by
            default); that card is then the drawn card, as ``must_play_drawn`` says.
        stacking: a Draw Two may be answered with a Draw Two, passing the growing
            pending draw on (house rule, off by default).
        stack_wild_draw_four: with ``stacking``, a Wild Draw Four may also answer a Draw
            Two or a Wild Draw Four, adding 4 to the pending draw (house rule, off by
            default; the stacking of docs/uno.md leaves the Wild Draw Four out). A stacked Wild Draw
            Four cannot be challenged: facing a pending draw, no card of the colour could
            have been played instead, so it is no bluff.
        seven_zero: playing a 7 swaps hands with a player of your choice, playing a 0
            passes every hand one seat on in the direction of play (house rule, off by
            default).
        uno_penalty: cards drawn by a player caught not declaring UNO (2; 4 in recent
            editions). 0 removes the declaring decision altogether.
        uno_catch_prob: probability that a silent player is caught (1.0).
        match: an episode is a match of hands played up to ``target_score``; else one hand.
        target_score: match target (standard scoring: reach it) or threshold (reverse
            scoring: pass it).
        scoring: ``"standard"`` (the hand's winner collects the others' card points) or
            ``"reverse"`` (each player adds their own hand; lowest total wins).
        reward: ``"win"`` (winner +1, each other player -1/(n-1); shared winners split
            +1 and the losers split -1) or ``"points"`` (card points times
            :data:`POINTS_REWARD_SCALE`: the hand's winner gains what it scores, every
            other player loses the value of its own hand; in a match, the sum over hands).
        hand_starter: who plays first in the next hand of a match: ``"rotate"`` (the
            seat after the previous hand's first player) or ``"winner"`` (the previous
            hand's winner). The first hand always starts at seat 0.
    """

    hand_size: int = 7
    draw_anytime: bool = False
    must_play_drawn: bool = True
    draw_until_playable: bool = False
    stacking: bool = False
    stack_wild_draw_four: bool = False
    seven_zero: bool = False
    uno_penalty: int = 2
    uno_catch_prob: float = 1.0
    match: bool = False
    target_score: int = 500
    scoring: str = "standard"
    reward: str = "win"
    hand_starter: str = "rotate"

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            flag = isinstance(value, (bool, np.bool_))
            if field.type in ("bool", bool) and not flag:
                raise ValueError(f"UnoRules.{field.name} must be true or false, got {value!r}")
            if field.type in ("int", int) and (flag or not isinstance(value, (int, np.integer))):
                raise ValueError(f"UnoRules.{field.name} must be an integer, got {value!r}")
            if field.type in ("float", float) and (
                flag or not isinstance(value, (int, float, np.integer, np.floating)) or not np.isfinite(value)
            ):
                raise ValueError(f"UnoRules.{field.name} must be a finite number, got {value!r}")
            if isinstance(value, np.generic):  # a numpy number (a sweep over np.arange) kept as Python's own
                kept = float(str(value)) if isinstance(value, np.floating) else value.item()  # float32 0.1: 0.1
                object.__setattr__(self, field.name, kept)
        if self.hand_size < 1:
            raise ValueError(f"UnoRules.hand_size must be at least 1, got {self.hand_size}")
        if self.hand_size * MIN_PLAYERS + MIN_DRAW_PILE > DECK_SIZE:
            raise ValueError(
                f"UnoRules.hand_size={self.hand_size} cannot be dealt from 108 cards "
                f"(at most {(DECK_SIZE - MIN_DRAW_PILE) // MIN_PLAYERS})"
            )
        if self.stack_wild_draw_four and not self.stacking:
            raise ValueError(
                "UnoRules.stack_wild_draw_four extends stacking: set stacking=true as well "
                "(a Wild Draw Four then answers a Draw Two or a Wild Draw Four)"
            )
        if not 0 <= self.uno_penalty <= DECK_SIZE:
            raise ValueError(
                f"UnoRules.uno_penalty must lie in 0..{DECK_SIZE} (0 disables UNO), got {shown_int(self.uno_penalty)}"
            )
        if not 0.0 <= float(self.uno_catch_prob) <= 1.0:
            raise ValueError(f"UnoRules.uno_catch_prob must lie in [0, 1], got {self.uno_catch_prob}")
        if not 1 <= self.target_score <= MAX_TARGET_SCORE:
            raise ValueError(
                f"UnoRules.target_score must lie in 1..{MAX_TARGET_SCORE:,}, got {shown_int(self.target_score)}"
            )
        for name, allowed in _CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"UnoRules.{name}={getattr(self, name)!r} is not an option; allowed: {', '.join(allowed)}"
                )

    @property
    def reverse_scoring(self) -> bool:
        """Whether each player adds its own hand and the lowest total wins (``scoring: reverse``)."""
        return self.scoring == "reverse"

    def match_over(self, scores: np.ndarray) -> np.ndarray:
        """Whether a match with these totals ``[..., P]`` is over (:func:`match_over_one`)."""
        scores = np.asarray(scores, dtype=np.int64)
        rows = scores.reshape(-1, scores.shape[-1])
        over = np.array([match_over_one(row, self.target_score, self.reverse_scoring) for row in rows], dtype=bool)
        return over.reshape(scores.shape[:-1])

    def match_winners(self, scores: np.ndarray) -> np.ndarray:
        """Who leads a match with these totals ``[..., P]`` (:func:`match_leaders_one`)."""
        scores = np.asarray(scores, dtype=np.int64)
        rows = scores.reshape(-1, scores.shape[-1])
        leaders = np.zeros(rows.shape, dtype=bool)
        for row, out in zip(rows, leaders, strict=True):
            match_leaders_one(row, self.reverse_scoring, out)
        return leaders.reshape(scores.shape)

    def standing_order(self, totals: Sequence[int]) -> list[int]:
        """Seats leader first by their match totals (:func:`match_leaders_one`'s order: the
        highest first in standard scoring, the lowest in reverse); ties keep seat order."""
        sign = 1 if self.reverse_scoring else -1
        return sorted(range(len(totals)), key=lambda p: (sign * int(totals[p]), p))

    def check_players(self, num_players: int) -> None:
        """Raise ``ValueError`` unless these rules can be played by ``num_players``."""
        if isinstance(num_players, (bool, np.bool_)) or not isinstance(num_players, (int, np.integer)):
            raise ValueError(f"num_players must be an integer, got {num_players!r}")
        if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise ValueError(f"classic UNO is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {num_players}")
        if num_players * self.hand_size + MIN_DRAW_PILE > DECK_SIZE:
            raise ValueError(
                f"cannot deal {self.hand_size} cards to {num_players} players and still turn a starting "
                f"card: the draw pile must keep {MIN_DRAW_PILE} cards, one more than the Wild Draw Fours "
                f"that go back (at most hand_size={(DECK_SIZE - MIN_DRAW_PILE) // num_players})"
            )
