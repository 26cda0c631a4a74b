"""``run.json``: what a finished training run was (its whole config and the digest of it), so a
study can tell that a run in ``runs/`` is the one its row asks for and reuse it instead of
training again (:mod:`tournament.ablation`; best responses keep their own ``best_response.json``)."""

from __future__ import annotations

import datetime
import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from envs.atomic import json_ready, write_atomically

RUN_RECORD = "run.json"
# The other files of a run's folder (``runs/<name>/``), named once: train.py writes them, the
# studies read them.
CHECKPOINT = "checkpoint.pt"  # the training checkpoint (resumes exactly)
AGENT = "agent.pt"  # the final agent, weights only (unless ``export`` names another path)
CURVE = "curve.png"  # the evaluation curve (a best response's: agents.best_response)


def write_run_record(
    cfg: Any, run_dir: Path, trainer: Any, agent: Path, minutes: float, minutes_from_update: int = 0
) -> dict[str, Any]:
    """Written by ``train.py`` when a run has finished (its agent exported). ``minutes`` are the
    whole run's, over every resumed process; ``minutes_from_update`` > 0 says the time before
    that update is unknown (the run resumed from a checkpoint written before checkpoints kept
    their minutes), so a reader never takes part of a run's time for all of it. ``config_changes``
    lists each resume that changed the config (then ``config_sha256`` is not the straight run's
    of ``config``, so no study reuses the run for it)."""
    from agents.best_response import config_digest

    record = {
        "run_name": cfg.run_name,
        "game": cfg.game,
        "players": cfg.players,
        "decisions": trainer.global_step,
        "updates": trainer.update_count,
        "minutes": minutes,
        "minutes_from_update": minutes_from_update,
        "device": str(trainer.device),
        "torch_threads": cfg.torch_threads,
        "software": software_versions(),
        "agent": str(agent),
        "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "config_sha256": config_digest(cfg, trainer.config_changes),
        "config": cfg.to_dict(),
        "config_changes": trainer.config_changes,
    }
    write_atomically(Path(run_dir) / RUN_RECORD, json.dumps(json_ready(record), indent=2, allow_nan=False) + "\n")
    return record


def software_versions() -> dict[str, str | None]:
    """What else decides a run's bits besides its config: the commit of this repository (None
    outside a git checkout; "+changes" when the working tree differs from it) and the versions
    of Python and of the libraries that compute (two runs of one config on other versions
    may part ways after millions of decisions, by floating-point rounding alone)."""
    here = Path(__file__).resolve().parent.parent
    git = {"cwd": here, "capture_output": True, "text": True, "timeout": 10, "check": True}
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], **git).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], **git).stdout.strip()
        commit += "+changes" if dirty else ""
    except (OSError, subprocess.SubprocessError):
        commit = None
    versions: dict[str, str | None] = {"commit": commit, "python": platform.python_version()}
    for package in ("numpy", "numba", "torch"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions


def read_run_record(run_dir: str | Path) -> dict[str, Any] | None:
    """A finished run's ``run.json``, or None (not finished, or unreadable)."""
    try:
        data = json.loads((Path(run_dir) / RUN_RECORD).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("config_sha256"), str) else None
