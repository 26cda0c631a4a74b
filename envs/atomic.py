"""Atomic file writes: a temporary file in the same folder, synced to disk, then renamed.

A crash, a full disk or a killed process mid-write leaves the previous file intact, never
half of a new one. Game records, agent checkpoints, Score Buddy's score book, reports, their
JSON (strict: no NaN, :func:`json_ready`) and PNG figures (:func:`save_figure`) use it.
"""

from __future__ import annotations

import glob
import io
import math
import os
import secrets
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
    mid-write) are removed first, once they are :data:`STALE_SECONDS` old. The file gets the
    permissions of the one it replaces, else those a plain ``open`` would give (the umask's)."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder; a file path is needed here")
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp = _temporary(path)
    try:
        if path.is_file():  # a file written again keeps its permissions
            os.fchmod(fd, path.stat().st_mode & 0o777)
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


def _temporary(path: Path) -> tuple[int, str]:
    """A new temporary file beside ``path``, opened for writing with the permissions a plain
    ``open`` gives (0o666 less the umask, applied by the kernel), not ``mkstemp``'s owner-only ones."""
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), str(tmp)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name beside {path}")


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
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):  # a name may hold [ ] * ?
        try:
            if now - tmp.stat().st_mtime > STALE_SECONDS:
                tmp.unlink()
        except OSError:  # gone meanwhile, or not ours to delete
            pass


def check_writable(folder: str | Path, what: str, create: bool = True) -> Path:
    """Make sure files can be written in ``folder`` before long work starts; ``ValueError``
    naming ``what`` and the folder otherwise. ``create``: make the folder now; else nothing is
    created (a missing folder is tried at its nearest existing parent), so that a command
    refused later leaves no empty folder behind."""
    if not isinstance(folder, (str, Path)) or not str(folder).strip():
        raise ValueError(f"{what} must be a folder path, got {folder!r}")
    folder = Path(folder)
    probed = folder
    try:
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        while not probed.is_dir():
            if probed.exists() or probed.is_symlink():
                raise ValueError(f"{what} {str(folder)!r} cannot be written: {str(probed)!r} is not a folder")
            probed = probed.parent
        fd, probe = tempfile.mkstemp(prefix=".writable.", dir=probed)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise ValueError(f"{what} {str(folder)!r} cannot be written: {err.strerror or err}") from None
    return folder


def check_file_writable(path: str | Path, what: str) -> Path:
    """Make sure ``path`` can be written as a file (its folder is writable, it is no folder)
    before long work starts; ``ValueError`` naming ``what`` and the path otherwise."""
    if not isinstance(path, (str, Path)) or not str(path).strip():
        raise ValueError(f"{what} must be a file path, got {path!r}")
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a folder; give a file path")
    check_writable(path.parent, f"{what}'s folder", create=False)
    return path
