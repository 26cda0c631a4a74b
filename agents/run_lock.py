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
            f.write(f"{os.getpid()} {socket.gethostname()} {process_start(os.getpid())}\n")
        return path
    raise ValueError(held_message(path, lock_holder(path)))


def check_free(run_dir: str | Path) -> None:
    """Refuse a folder a live trainer holds before anything starts (``ValueError``): a Ray
    run would otherwise start its actors first. :func:`take_lock` decides for good."""
    path = Path(run_dir) / LOCK
    if path.exists():
        holder = lock_holder(path)
        if holder is None or holder_alive(*holder):
            raise ValueError(held_message(path, holder))


def lock_holder(path: Path) -> tuple[int, str, str] | None:
    """The ``(pid, host, start)`` a lock file names (``start``: the process's start time, "" in
    an older lock), or None (gone, being written, or not a lock)."""
    try:
        pid, host, *start = path.read_text().split()
        return int(pid), host, start[0] if start else ""
    except (OSError, ValueError, IndexError):
        return None


def process_start(pid: int) -> str:
    """When process ``pid`` started, in clock ticks since boot (Linux), or "" where unknown: a
    pid taken again by a later process (a restarted container's trainer) starts at another time."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def holder_alive(pid: int, host: str, start: str = "") -> bool:
    """Whether a lock's process may still run: on another host, yes; on this one, whether it
    exists and is the same process (started when the lock says, where both times are known)."""
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return not (start and process_start(pid) not in ("", start))


def held_message(path: Path, holder: tuple[int, str] | None) -> str:
    """Why the run folder is refused: who holds it, and what to do."""
    who = f"process {holder[0]} on {holder[1]}" if holder else "a trainer that is starting (or an unreadable lock)"
    return (
        f"{path.parent} is in use by another trainer ({who}, {path}): wait for it to end, or name another "
        f"run with run_name=...; delete {path} only if no trainer runs there"
    )
