"""Whether the game kernels are already compiled (numba's on-disk cache), so that a command
can say so before the first, slow run instead of looking frozen, and a warm-up that compiles
them before a timed run (so compiling is not counted in its games per second)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

COMPILING = "compiling the game kernels (first run only, about a minute)..."


def kernel_source(game: str) -> Path:
    """The file of a game's kernels (numba caches them in ``__pycache__`` beside it)."""
    import importlib.util

    from envs.games import game as game_info

    return Path(importlib.util.find_spec(game_info(game).kernel_module).origin)


def kernels_cached(game: str) -> bool:
    """True when numba's cache holds this game's step kernel compiled from the source as it is
    (its index file newer than the source; index files of older versions of the source are
    left behind by numba and do not count)."""
    source = kernel_source(game)
    index = (source.parent / "__pycache__").glob(f"{source.stem}.step_and_observe-*.nbi")
    return any(p.stat().st_mtime >= source.stat().st_mtime for p in index)


def warm_up(game: str, num_players: int | None = None, rules: Any = None) -> float:
    """Compile (or load from the cache) the kernels a game's engine steps with: deal, step a
    few moves, observe another seat, restart a game. Returns the seconds it took."""
    import time

    import numpy as np

    start = time.perf_counter()
    from envs.games import game_module

    engine_type = game_module(game).Engine
    players = engine_type.table_size or num_players or 2
    rules = engine_type.rules_type.from_dict(rules) if isinstance(rules, dict) or rules is None else rules
    eng = engine_type(2, players, rules, seed=0, auto_reset=True)
    _, mask = eng.reset()
    for _ in range(4):
        _, mask, _, _ = eng.step(mask.argmax(axis=1))
    eng.observe(seats=np.zeros(2, np.int64))
    eng.restart_games([0])
    return time.perf_counter() - start
