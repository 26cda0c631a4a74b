"""``run.json``: what a finished training run was (its whole config and the digest of it), so a
study can tell that a run in ``runs/`` is the one its row asks for and reuse it instead of
training again (:mod:`tournament.ablation`; best responses keep their own ``best_response.json``)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from envs.atomic import json_ready, write_atomically

RUN_RECORD = "run.json"


def write_run_record(cfg: Any, run_dir: Path, trainer: Any, agent: Path, minutes: float) -> dict[str, Any]:
    """Written by ``train.py`` when a run has finished (its agent exported)."""
    from agents.best_response import config_digest

    record = {
        "run_name": cfg.run_name,
        "game": cfg.game,
        "players": cfg.players,
        "decisions": trainer.global_step,
        "updates": trainer.update_count,
        "minutes": minutes,
        "device": str(trainer.device),
        "torch_threads": cfg.torch_threads,
        "agent": str(agent),
        "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "config_sha256": config_digest(cfg),
        "config": cfg.to_dict(),
    }
    write_atomically(Path(run_dir) / RUN_RECORD, json.dumps(json_ready(record), indent=2, allow_nan=False) + "\n")
    return record


def read_run_record(run_dir: str | Path) -> dict[str, Any] | None:
    """A finished run's ``run.json``, or None (not finished, or unreadable)."""
    try:
        data = json.loads((Path(run_dir) / RUN_RECORD).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("config_sha256"), str) else None
