"""Atomic file writes: a temporary file in the same folder, synced to disk, then renamed.

A crash, a full disk or a killed process mid-write leaves the previous file intact, never
half of a new one. Game records, agent checkpoints and Score Buddy's score book use it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomically(path: str | Path, data: str | bytes | Callable[[BinaryIO], None]) -> Path:
    """Write text (UTF-8), bytes, or whatever ``data(file)`` writes, to ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
