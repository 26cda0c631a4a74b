"""Random play by fixed random numbers, shared by both games' determinism and invariant tests."""

from __future__ import annotations

from typing import Any

import numpy as np


def random_actions(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The legal action with the highest of the given random numbers, per game."""
    return np.where(mask, u + 1.0, 0.0).argmax(axis=1)


def play(eng: Any, u: np.ndarray, games: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """Reset, then step with actions picked by ``u[step, game]``; the trace of every step's
    ``(obs, mask, rewards, done, current_player)``. The same ``u`` rows give game ``games[j]``
    the same actions in any engine, so traces of different batch sizes can be compared."""
    _, mask = eng.reset()
    trace = []
    for t in range(u.shape[0]):
        obs, mask, rewards, done = eng.step(random_actions(mask, u[t, games]))
        trace.append((obs, mask, rewards, done, eng.current_player.copy()))
    return trace
