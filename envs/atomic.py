"""Atomic file writes: a temporary file in the same folder, synced to disk, then renamed.

A crash, a full disk or a killed process mid-write leaves the previous file intact, never
half of a new one. Game records, agent checkpoints, Score Buddy's score book, reports, their
JSON (strict: no NaN, :func:`json_ready`) and PNG figures (:func:`save_figure`) use it.
"""

from __future__ import annotations

import io
import math
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

#: A temporary file of an earlier write older than this (seconds) was left by a killed process.
STALE_SECONDS = 600


def write_atomically(path: str | Path, data: str | bytes | Callable[[BinaryIO], None]) -> Path:
    """Write text (UTF-8), bytes, or whatever ``data(file)`` writes, to ``path`` atomically.

    Temporary files of this path that an interrupted earlier write left behind (``kill -9``
    mid-write) are removed first, once they are :data:`STALE_SECONDS` old."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
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


def json_ready(value: Any) -> Any:
    """``value`` with NaN replaced by ``None`` (strict JSON has no NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value


def save_figure(fig: Any, path: str | Path) -> Path:
    """Save a matplotlib figure as a PNG atomically and close it."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return write_atomically(path, buf.getvalue())


def remove_stale_temporaries(path: Path) -> None:
    """Delete ``.<name>.*.tmp`` files beside ``path`` older than :data:`STALE_SECONDS`."""
    now = time.time()
    for tmp in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            if now - tmp.stat().st_mtime > STALE_SECONDS:
                tmp.unlink()
        except OSError:  # gone meanwhile, or not ours to delete
            pass


def check_writable(folder: str | Path, what: str) -> Path:
    """Make sure files can be written in ``folder`` (created if missing) before long work
    starts; ``ValueError`` naming ``what`` and the folder otherwise."""
    if not isinstance(folder, (str, Path)) or not str(folder).strip():
        raise ValueError(f"{what} must be a folder path, got {folder!r}")
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".writable.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise ValueError(f"{what} {str(folder)!r} cannot be written: {err.strerror or err}") from None
    return folder
