"""One trainer per run folder: ``train.py`` holds ``<run>/lock`` while it trains.

Two trainers writing one folder would interleave their TensorBoard logs and overwrite each
other's checkpoints and records, so the second is refused. The lock file is created
exclusively (``O_CREAT | O_EXCL``) and holds the trainer's process id and host; it goes when
the trainer ends, by an error or Ctrl-C too. A lock whose process is gone on this host (a
killed trainer) is stale and taken over; one of another host (a shared folder) cannot be
checked from here, so it holds until it is deleted. (Two trainers that find one stale lock at
the same instant could both take it over: one removes it, creates its own, and the other, still
acting on the stale one, removes that; a narrow window, after a killed trainer only.)
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path

LOCK = "lock"


@contextlib.contextmanager
def run_lock(run_dir: str | Path) -> Iterator[Path]:
    """Hold ``run_dir``'s lock while the block runs (``ValueError``: another trainer holds it)."""
    path = take_lock(Path(run_dir))
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def take_lock(run_dir: Path) -> Path:
    """Create ``run_dir/lock`` holding this process, taking over a stale one; the lock's path."""
    path = run_dir / LOCK
    for _ in range(3):  # a stale lock removed, then (rarely) another trainer's taken first
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            holder = lock_holder(path)
            if holder is not None and not holder_alive(*holder):
                path.unlink(missing_ok=True)  # its trainer was killed: the folder is free
                continue
            raise ValueError(held_message(path, holder)) from None
        with os.fdopen(fd, "w") as f:
            f.write(f"{os.getpid()} {socket.gethostname()}\n")
        return path
    raise ValueError(held_message(path, lock_holder(path)))


def lock_holder(path: Path) -> tuple[int, str] | None:
    """The ``(pid, host)`` a lock file names, or None (gone, being written, or not a lock)."""
    try:
        pid, host = path.read_text().split()
        return int(pid), host
    except (OSError, ValueError):
        return None


def holder_alive(pid: int, host: str) -> bool:
    """Whether a lock's process may still run: on this host, whether it exists; on another, yes."""
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def held_message(path: Path, holder: tuple[int, str] | None) -> str:
    """Why the run folder is refused: who holds it, and what to do."""
    who = f"process {holder[0]} on {holder[1]}" if holder else "a trainer that is starting (or an unreadable lock)"
    return (
        f"{path.parent} is in use by another trainer ({who}, {path}): wait for it to end, or name another "
        f"run with run_name=...; delete {path} only if no trainer runs there"
    )
