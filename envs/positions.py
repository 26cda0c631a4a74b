"""Checks shared by the games' position loaders (``envs.uno.positions``, ``envs.uno_tricks.positions``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def check_keys(pos: Any, required: Sequence[str], optional: Sequence[str], game: str, title: str) -> None:
    """A position is a dict with every required key, no unknown key, and (if it says) this game."""
    if not isinstance(pos, dict):
        raise ValueError(f"a position is a dict, got {type(pos).__name__}")
    missing = [k for k in required if k not in pos]
    if missing:
        raise ValueError(f"missing key(s) {', '.join(missing)}")
    unknown = sorted(set(pos) - set(required) - set(optional))
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join([*required, *optional])}")
    if pos.get("game", game) != game:
        raise ValueError(f"this is a position of {pos['game']!r}, not of {title}")


def read_seat(value: Any, num_players: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < num_players:
        raise ValueError(f"{what} must be a seat 0..{num_players - 1}, got {value!r}")
    return int(value)


def read_count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer, got {value!r}")
    return int(value)


def read_rng(eng: Any, j: int, pos: dict[str, Any]) -> None:
    """Game ``j`` continues the random stream the position carries (else keeps the engine's seed)."""
    state = pos.get("rng")
    if state is None:
        return
    if not isinstance(state, dict) or not {"game_seed", "counter"} <= set(state):
        raise ValueError("rng must be {'game_seed': int, 'counter': int}")
    eng.game_seeds[j] = np.uint64(int(state["game_seed"]) & ((1 << 64) - 1))
    eng.rng_counter[j] = np.uint64(read_count(state["counter"], "rng.counter"))


def rng_state(eng: Any, i: int) -> dict[str, int]:
    return {"game_seed": int(eng.game_seeds[i]), "counter": int(eng.rng_counter[i])}
