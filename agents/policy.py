"""The batched policy interface every player of the lab implements, and the random policy.

A policy maps observations ``float32 [B, OBS]`` and legal masks ``bool [B, A]`` of many
games to one action per game, ``int64 [B]``. It sees only what the acting player may see
(the observation), never the engine's state. Tournaments, trainers, Gymnasium opponents
and human play all call policies this way, once per step for all the games they control.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

import numpy as np

from envs.rng import RowStreams


@runtime_checkable
class Policy(Protocol):
    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


def as_masks(mask: np.ndarray) -> np.ndarray:
    """``mask`` as a bool array ``[B, A]``."""
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2:
        raise ValueError(f"masks must be [batch, actions], got shape {mask.shape}")
    return mask


def check_chosen(mask: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Refuse a choice outside the mask: only a row with no legal action at all leads there."""
    legal = mask[np.arange(mask.shape[0]), actions]
    if not legal.all():
        rows = (~legal).nonzero()[0]
        raise ValueError(f"no legal action in mask row(s) {rows[:5].tolist()}: nothing can be chosen")
    return actions


def sample_masked(log_weights: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action per row drawn from ``softmax(log_weights)`` over the legal ones
    (Gumbel-max: the argmax of the log-weights plus Gumbel noise is such a draw)."""
    gumbel = -np.log(-np.log(rng.random(log_weights.shape, np.float32) + 1e-12) + 1e-12)
    return np.where(mask, log_weights + gumbel, -np.inf).argmax(axis=1)


def random_bits(rng: Any, shape: tuple[int, ...], dtype: type, row_axis: int = 0) -> np.ndarray:
    """Random ``uint8`` or ``uint16`` values of ``shape`` (the rows along ``row_axis``): raw
    generator words cut into pieces, several times cheaper than floats; from
    :class:`envs.rng.RowStreams` (the search's rollouts), row by row."""
    per_word = 8 // np.dtype(dtype).itemsize
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    row_axis %= len(shape)
    if isinstance(rng, RowStreams):  # plain Python arithmetic: called at every step of a search's rollouts
        rows_first = (shape[row_axis], *shape[:row_axis], *shape[row_axis + 1 :])
        per_row = math.prod(rows_first[1:])
        words = rng.words((rows_first[0], -(-per_row // per_word)))  # each row's words, cut in pieces
        bits = words.view(dtype)[:, :per_row].reshape(rows_first)
        return bits if row_axis == 0 else np.moveaxis(bits, 0, row_axis)
    n = math.prod(shape)
    words = rng.bit_generator.random_raw((n + per_word - 1) // per_word)
    return words.view(dtype)[:n].reshape(shape)


@contextmanager
def drawing_by_row(policy: SeededPolicy, seeds: np.ndarray) -> Iterator[None]:
    """Within the block, ``policy`` draws its random numbers from one stream per row of its
    next calls (``seeds``: :class:`envs.rng.RowStreams`), its own generator left untouched. A
    policy from outside the lab without an ``rng`` generator draws as it always does."""
    if not isinstance(getattr(policy, "rng", None), np.random.Generator):
        yield
        return
    own = policy.rng
    policy.rng = RowStreams(seeds)
    try:
        yield
    finally:
        policy.rng = own


def _shift_to_one(scores: np.ndarray, mask: np.ndarray) -> None:
    """In place: each row's finite scores less its lowest, plus 1, and 0 where ``mask`` is off."""
    scores -= scores.min(axis=1, keepdims=True, initial=np.inf)
    scores += np.float32(1.0)
    scores *= mask


class SeededPolicy:
    """Base of the scripted policies: a seeded generator, and a batched arg-max over legal actions.

    A scripted policy scores every action of every game (``float [B, A]``, higher is
    better) and lets :meth:`choose` pick the best legal one; ties are broken at random
    with the policy's own generator, so the same seed repeats a run.
    """

    name = "seeded"
    game = "any"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the policy's random stream."""
        self.rng = np.random.default_rng(seed)

    def rng_state(self) -> dict[str, Any]:
        """Where the policy's random streams stand (plain data, for an exact resume); a policy
        that holds another policy (the search's rollouts) adds that one's."""
        return self.rng.bit_generator.state

    def set_rng_state(self, state: dict[str, Any]) -> None:
        """Put the streams back where :meth:`rng_state` found them."""
        self.rng.bit_generator.state = state

    def tie_break(self, shape: tuple[int, ...]) -> np.ndarray:
        """Random values in [0, 1) (16-bit resolution), one per entry of ``shape``."""
        return random_bits(self.rng, shape, np.uint16) * np.float32(1 / 65536)

    def choose(self, scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The legal action of highest score in each row (ties at random); scores differ by >= 1 to matter."""
        mask = as_masks(mask)
        total = np.asarray(scores, np.float32) + self.tie_break(mask.shape)
        # Shift each row's scores to >= 1 and zero the illegal ones: plain arithmetic, several
        # times faster than assigning -inf through the (irregular) boolean mask. Row by row
        # (its own lowest; -inf for the illegal actions of a row holding a non-finite score): a
        # shift by the batch's would round one row's close scores by another row's range, and a
        # decision would depend on the rest of the batch. ``- lowest`` then ``+ 1`` keeps every
        # legal score >= 1 exactly, whatever the scores' magnitude.
        finite = np.isfinite(total).all(axis=1)
        if finite.all():
            _shift_to_one(total, mask)
        else:
            part, odd = total[finite], total[~finite]
            _shift_to_one(part, mask[finite])
            odd[~mask[~finite]] = -np.inf
            total[finite], total[~finite] = part, odd
        return check_chosen(mask, total.argmax(axis=1))

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class RandomPolicy(SeededPolicy):
    """Uniformly random legal action; seeded, so runs repeat."""

    name = "random"

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = as_masks(mask)
        B, A = mask.shape
        # Random 16-bit scores (raw generator words: several times cheaper than floats);
        # legal actions score 1..65535, illegal ones 0, and the best score wins.
        score = random_bits(self.rng, (B, A), np.uint16) | np.uint16(1)
        score *= mask
        return check_chosen(mask, score.argmax(axis=1))


FIRST_LEGAL = "first_legal"


class FirstLegalPolicy(SeededPolicy):
    """Always the legal action of lowest id: a fixed, trivially exploitable rule, the sanity
    target of a best response (one that cannot find a large gain against it is broken)."""

    name = FIRST_LEGAL

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = as_masks(mask)
        return check_chosen(mask, mask.argmax(axis=1))
