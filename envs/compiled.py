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


def _index_stamp(index: Path) -> bytes | None:
    """The source stamp numba wrote in a cache index (the SHA-256 of the source file's bytes
    in numba 0.68), or None if the index cannot be read that way."""
    import pickle

    try:
        with index.open("rb") as f:
            pickle.load(f)  # numba's version
            stamp, _ = pickle.loads(f.read())
    except Exception:  # another numba's format, or a file being written
        return None
    return stamp if isinstance(stamp, bytes) else None


def _cache_folder(game: str, source: Path) -> Path:
    """Where numba keeps the step kernel's cache: as numba's own locator chose it (``__pycache__``
    beside the source, ``NUMBA_CACHE_DIR``, or the user's cache where the source's folder is
    read-only), else ``__pycache__``."""
    import importlib

    from envs.games import game as game_info

    try:
        kernel = importlib.import_module(game_info(game).kernel_module).step_and_observe
        return Path(kernel._cache._cache_path)  # numba's FunctionCache (no public accessor)
    except (AttributeError, ImportError):
        return source.parent / "__pycache__"


def kernels_cached(game: str) -> bool:
    """True when numba's cache holds this game's step kernel compiled from the source as it is:
    an index whose stamp is the source's content hash (what numba checks), or, where the
    stamp cannot be read, an index newer than the source. Indexes of older versions of the
    source are left behind by numba and do not count."""
    import hashlib

    source = kernel_source(game)
    digest = hashlib.sha256(source.read_bytes()).digest()
    for index in _cache_folder(game, source).glob(f"{source.stem}.step_and_observe-*.nbi"):
        stamp = _index_stamp(index)
        if stamp == digest or (stamp is None and index.stat().st_mtime >= source.stat().st_mtime):
            return True
    return False


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
