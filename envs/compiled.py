"""Whether the game kernels are already compiled (numba's on-disk cache), so that a command
can say so before the first, slow run instead of looking frozen."""

from __future__ import annotations

from pathlib import Path

#: The modules whose kernels numba compiles and caches (``cache=True``) beside them.
KERNEL_MODULES = {
    "uno": Path(__file__).parent / "uno" / "kernel.py",
    "tricks": Path(__file__).parent / "uno_tricks" / "kernel.py",
}
COMPILING = "compiling the game kernels (first run only, about a minute)..."


def kernels_cached(game: str) -> bool:
    """True when numba's cache holds this game's kernels (index files newer than the source)."""
    source = KERNEL_MODULES[game]
    index = list((source.parent / "__pycache__").glob(f"{source.stem}.*.nbi"))
    return bool(index) and min(p.stat().st_mtime for p in index) >= source.stat().st_mtime
