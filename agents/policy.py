"""The batched policy interface every player of the lab implements, and the random policy.

A policy maps observations ``float32 [B, OBS]`` and legal masks ``bool [B, A]`` of many
games to one action per game, ``int64 [B]``. It sees only what the acting player may see
(the observation), never the engine's state. Tournaments, trainers, Gymnasium opponents
and human play all call policies this way, once per step for all the games they control.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


def check_masks(mask: np.ndarray) -> np.ndarray:
    """``mask`` as a bool array ``[B, A]``; refuses a row with no legal action."""
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2:
        raise ValueError(f"masks must be [batch, actions], got shape {mask.shape}")
    empty = np.flatnonzero(~mask.any(axis=1))
    if empty.size:
        raise ValueError(f"no legal action in mask row(s) {empty[:5].tolist()}: nothing can be chosen")
    return mask


class RandomPolicy:
    """Uniformly random legal action; seeded, so runs repeat."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = check_masks(mask)
        score = self.rng.random(mask.shape, dtype=np.float32)
        score += 1.0  # legal actions score in [1, 2), illegal ones 0
        score *= mask
        return score.argmax(axis=1)
