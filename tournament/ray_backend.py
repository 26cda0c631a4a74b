"""Tournaments on a Ray cluster: the same shards as the local backend, run as Ray tasks.

The config and schedule travel once (``ray.put``) and every file the entrants' specs name by
its path once, as bytes (an agent's checkpoint, also inside a wrapper's or a search's spec);
each worker process loads an agent's checkpoint once and gives every shard a reseeded copy
of that policy. Shards finish in any order, but their results merge in shard order, so a
tournament gives exactly the local backend's numbers. A shard whose worker or node is
lost is resubmitted (up to ``max_retries`` times, each one reported); an exception raised
by the shard's own code is a bug, not bad luck, and stops the run. Nothing is dropped:
the merge refuses a tournament that misses a game.

Ray is imported here only, so the default install never needs it.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import os
import socket
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agents.ray_support import INSTALL_HINT, import_ray
from agents.registry import AGENT, files_read, make_policy, split_spec
from envs.atomic import write_atomically
from tournament.config import TournamentConfig
from tournament.runner import Results, merge_shards, play_shard
from tournament.schedule import Schedule, Shard, plan_shards

__all__ = ["INSTALL_HINT", "import_ray", "connect", "run_tournament"]


def connect(address: str | None = None, num_cpus: int | None = None) -> bool:
    """Join the cluster at ``address`` (``auto``, ``host:port``, ``ray://host:port``) or, without
    one, start a local Ray. Returns whether this call started Ray (so the caller shuts it down)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address and address != "auto":
        _check_reachable(address)
    try:
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(num_cpus=num_cpus, **kwargs)
    except (ConnectionError, TimeoutError, ValueError) as err:
        where = f"the Ray cluster at {address!r}" if address else "a local Ray"
        raise RuntimeError(f"could not connect to {where}: {err}") from None
    return True


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail in seconds, naming the address, where Ray itself would retry for minutes."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise RuntimeError(f"--address must be auto or host:port (e.g. 10.0.0.5:6379), got {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as err:
        raise RuntimeError(f"no Ray cluster reachable at {address!r} ({err}); start one: ray start --head") from None


@dataclasses.dataclass
class RunInfo:
    """How a distributed tournament went: shards run, resubmissions, and why."""

    shards: int
    retries: int = 0
    failures: list[str] = dataclasses.field(default_factory=list)


# ------------------------------------------------------------------ worker side
_TEMPLATES: dict[str, Any] = {}  # per worker process: the node's checkpoint copy and mode -> loaded policy
_CHECKED: set[str] = set()  # per worker process: the node's copies whose digest it has checked


def _node_cache() -> Path:
    """This user's folder for the checkpoints a node's workers share (mode 0700: another user
    of the machine can neither plant a file there nor block its replacement)."""
    uid = os.getuid() if hasattr(os, "getuid") else None  # None: a system without users' ids
    folder = Path(tempfile.gettempdir()) / f"unolab-{uid if uid is not None else 'user'}"
    folder.mkdir(mode=0o700, exist_ok=True)
    if uid is not None and folder.stat().st_uid != uid:
        raise RuntimeError(f"{folder} belongs to another user: remove it, or set TMPDIR")
    return folder


def _fetched(path: str, shipped: Mapping[str, tuple[str, Any]]) -> str:
    """The node's copy of a file the driver shipped (written once per node from the object
    store), or ``path`` itself where it was not shipped."""
    if path not in shipped:
        return path
    digest, ref = shipped[path]
    local = _node_cache() / f"unolab-file-{digest}{Path(path).suffix}"
    if str(local) in _CHECKED:
        return str(local)
    # a file left by a worker killed mid-write is not trusted: only bytes of this digest are
    # used, and they are written whole
    if not local.is_file() or hashlib.sha256(local.read_bytes()).hexdigest()[: len(digest)] != digest:
        import ray

        write_atomically(local, ray.get(ref))
    _CHECKED.add(str(local))
    return str(local)


def _local_spec(spec: Any, shipped: Mapping[str, tuple[str, Any]]) -> Any:
    """``spec`` with every path of a shipped file, at any depth (a wrapper's ``base``, a search's
    ``rollout``, the short ``agent:path``), replaced by the node's copy of that file."""
    if isinstance(spec, str):
        name, sep, path = spec.partition(":")
        if sep and name == AGENT and path in shipped:
            return f"{AGENT}:{_fetched(path, shipped)}"
        return _fetched(spec, shipped)
    if isinstance(spec, Mapping):
        return {key: _local_spec(value, shipped) for key, value in spec.items()}
    if isinstance(spec, list | tuple):
        return [_local_spec(value, shipped) for value in spec]
    return spec


def _worker_maker(shipped: Mapping[str, tuple[str, Any]]) -> Callable[..., Any]:
    """A policy maker for ``play_shard`` that reads every file a spec names from the node's
    copies (from the object store, not the driver's disk); an agent's checkpoint is loaded once
    per worker process and each shard gets a reseeded shallow copy of it."""

    def maker(game: str, spec: Any, seed: int, rules: Mapping[str, Any] | None = None) -> Any:
        spec = _local_spec(spec, shipped)
        name, params = split_spec(spec)
        if name != AGENT:
            return make_policy(game, spec, seed, rules)
        key = f"{params.get('checkpoint')}:{params.get('mode', 'greedy')}"
        if key not in _TEMPLATES:
            _TEMPLATES[key] = make_policy(game, {**params, "name": AGENT}, 0)
        policy = copy.copy(_TEMPLATES[key])  # shares the (read-only) network
        policy.seed(seed)
        return policy

    return maker


def _shard_task(config: TournamentConfig, schedule: Schedule, shard: Shard, shipped: dict, play: Callable) -> Any:
    return play(config, schedule, shard, None, _worker_maker(shipped))


# ------------------------------------------------------------------ driver side
def _named_paths(spec: Any) -> set[str]:
    """Every text in a spec, at any depth, and the path of each short ``agent:path``."""
    if isinstance(spec, str):
        name, sep, path = spec.partition(":")
        return {spec, path} if sep and name == AGENT else {spec}
    if isinstance(spec, Mapping):
        return set().union(*map(_named_paths, spec.values()))
    if isinstance(spec, list | tuple):
        return set().union(*map(_named_paths, spec))
    return set()


def _ship_files(ray: Any, config: TournamentConfig, schedule: Schedule) -> dict[str, tuple[str, Any]]:
    """Every file the entrants read (:func:`agents.registry.files_read`) that their specs name by
    its path (an agent's checkpoint, also as a wrapper's base or a search's rollout; a search's
    value network or belief model given as a path), put once in the object store:
    path -> (digest, ref). The ``shipped`` defaults are each node's own install of the lab."""
    out: dict[str, tuple[str, Any]] = {}
    for spec in schedule.policy_specs:
        named = _named_paths(spec)
        for path in files_read(config.game, spec, config.players):
            if path in named and path not in out:
                data = Path(path).read_bytes()
                out[path] = (hashlib.sha256(data).hexdigest()[:16], ray.put(data))
    return out


def run_tournament(
    config: TournamentConfig,
    schedule: Schedule,
    shard_size: int | None = None,
    on_games: Callable[[int], None] | None = None,
    on_retry: Callable[[str], None] | None = None,
    max_retries: int = 3,
    play: Callable[..., Results] = play_shard,
) -> tuple[Results, RunInfo]:
    """Every shard as a Ray task on the connected cluster (see :func:`connect`); the merged
    results, identical to ``tournament.runner.run_tournament``'s, and how the run went.

    ``play`` is the shard function the workers call (tests pass one that kills its worker)."""
    ray = import_ray()
    if not ray.is_initialized():
        raise RuntimeError("Ray is not connected: call tournament.ray_backend.connect() first")
    shards = plan_shards(config, schedule, shard_size)
    task = ray.remote(max_retries=0)(_shard_task)  # retries are ours: counted and reported
    config_ref, schedule_ref = ray.put(config), ray.put(schedule)
    shipped = _ship_files(ray, config, schedule)
    play_ref = ray.put(play)
    info = RunInfo(shards=len(shards))
    parts: list[Results | None] = [None] * len(shards)
    attempts = [0] * len(shards)

    def submit(k: int) -> Any:
        attempts[k] += 1
        return task.remote(config_ref, schedule_ref, shards[k], shipped, play_ref)

    pending = {submit(k): k for k in range(len(shards))}
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        ref = done[0]
        k = pending.pop(ref)
        try:
            parts[k] = ray.get(ref)
        except ray.exceptions.RayTaskError as err:  # the shard's own code raised: a bug, not bad luck
            raise RuntimeError(f"shard {k} of {len(shards)} failed: {err}") from None
        except ray.exceptions.RayError as err:  # lost worker, node or object: run the shard again
            reason = f"shard {k} attempt {attempts[k]}: {type(err).__name__}"
            info.failures.append(reason)
            if attempts[k] > max_retries:
                raise RuntimeError(f"{reason}; gave up after {max_retries} retries") from None
            info.retries += 1
            if on_retry is not None:
                on_retry(reason)
            pending[submit(k)] = k
            continue
        if on_games is not None:
            on_games(shards[k].num_games)
    return merge_shards(config, schedule, shards, parts), info
