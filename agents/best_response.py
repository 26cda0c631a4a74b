"""What a best-response run (``train.py`` with ``target: <policy spec>``) records and writes.

A best response is a fresh learner trained against one policy held fixed on every other seat
(the other team in the trick game). Its win rate against that policy, minus the fair share,
is a *lower bound* on how exploitable the policy is: the learner found at least that much,
a longer or better-tuned one may find more. :class:`BestResponseRecord` keeps the learning
curve and the time spent as the run goes (in a progress file written next to each
checkpoint, so a resumed run keeps both), and at the end writes ``best_response.json`` and
``curve.png`` into the run directory. ``config_sha256`` in that file lets the
exploitability study (:mod:`tournament.exploitability`) reuse a finished run only when it
was trained from the same config (and the same target checkpoint).
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from agents.run_record import CURVE
from envs.atomic import json_ready, save_figure, write_atomically
from envs.core import floats_as_declared
from envs.games import game as game_info
from envs.games import game_module

RESULT = "best_response.json"
PROGRESS = "best_response_progress.json"
# Keys that say where a run writes, not what it learns: left out of the digest.
PLACE_KEYS = ("log_dir", "run_name", "export", "checkpoint_every")
#: Keys once left out of the digest, with the value every run that recorded one then used: at it
#: they are still left out (those digests stand), any other value is in the digest. torch_threads
#: is one: another thread count sums the network's floats in another order, so other weights.
ONCE_LEFT_OUT: dict[str, Any] = {"torch_threads": 1}
#: Config keys added after runs recorded their digests, with their defaults (no change to training).
ADDED_KEYS: dict[str, Any] = {
    "drop_obs": [],
    "critic": "view",
    "fine_counts": 0,
    "oracle_guide": 0.0,
    "belief_coef": 0.0,
    "colour_symmetry": False,
}


def fair_share(cfg: Any) -> float:
    """What a learner no better than the target wins: 1/players with one seat of classic UNO,
    1/2 for one team of the trick game."""
    return game_info(cfg.game).fair_share(cfg.players)


def _one_spelling(cfg: Any) -> dict[str, Any]:
    """The config as one spelling of its meaning: a whole number in a float key as a float
    (``gamma=1`` is ``gamma=1.0``, ``target_kl`` too), rules without the options at their defaults (as a resume
    compares them: ``{stacking: false}`` is ``{}``; an option this version no longer knows
    stays as written)."""
    data = floats_as_declared(type(cfg), cfg.to_dict())
    with contextlib.suppress(ValueError, TypeError):
        data["rules"] = game_module(cfg.game).Rules.from_dict(data["rules"]).changes()
    return data


def config_digest(cfg: Any, changes: list[dict[str, Any]] | None = None) -> str:
    """SHA-256 of what decides a run's result: the config without :data:`PLACE_KEYS`, the
    bytes of every checkpoint its policy specs name (a retrained target changes the digest),
    and ``changes``, the configs it trained under before (a run resumed with another config,
    :func:`agents.training_checkpoint.config_changes`: not the straight run of ``cfg``)."""
    data = {k: v for k, v in _one_spelling(cfg).items() if k not in PLACE_KEYS}
    # at its default (its old value), a key added (or kept) later leaves old digests as they were
    for key, default in (ADDED_KEYS | ONCE_LEFT_OUT).items():
        if data.get(key) == default:
            data.pop(key)
    from agents.registry import files_read

    files = {}
    specs = [cfg.target, *cfg.opponents, *cfg.eval_opponents, cfg.imitation_teacher]
    for path in [p for spec in specs if spec is not None for p in files_read(cfg.game, spec, cfg.players)]:
        file, key = Path(path), os.path.relpath(path)  # the key as the repository names it, wherever it lies
        files[key if not key.startswith("..") else path] = (
            hashlib.sha256(file.read_bytes()).hexdigest() if file.is_file() else "missing"
        )
    whole = {"config": data, "checkpoints": files} | ({"config_changes": changes} if changes else {})
    text = json.dumps(whole, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def read_result(run_dir: str | Path) -> dict[str, Any] | None:
    """A run directory's finished ``best_response.json``, or None (none yet, or unreadable)."""
    path = Path(run_dir) / RESULT
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


class BestResponseRecord:
    """The curve, the learner's samples and the time of one best-response run."""

    def __init__(
        self, cfg: Any, run_dir: Path, resumed_at: int | None = None, changes: list[dict[str, Any]] | None = None
    ) -> None:
        self.cfg, self.run_dir = cfg, Path(run_dir)
        self.fair = fair_share(cfg)
        self.changes = list(changes or [])  # the trainer's config_changes
        self.digest = config_digest(cfg, self.changes)
        self.curve: list[dict[str, Any]] = []
        self.learner_decisions = 0  # samples the learner trained on (its own decisions)
        self.seconds = self.eval_seconds = 0.0  # of earlier processes of this run
        self.resumed = resumed_at is not None
        self.complete = True  # False: resumed without the progress of the checkpoint's update
        self._clock = time.perf_counter()
        if resumed_at is not None:
            self._restore(resumed_at)

    def _restore(self, update: int) -> None:
        try:
            saved = json.loads((self.run_dir / PROGRESS).read_text())
        except (OSError, ValueError):
            saved = None
        if not saved or saved.get("update") != update or saved.get("config_sha256") != self._digest_before(update):
            self.complete = False  # curve, samples and minutes start at the resumed update
            return
        self.curve = [p for p in saved["curve"] if p["update"] <= update]
        self.learner_decisions = int(saved["learner_decisions"])
        self.seconds, self.eval_seconds = float(saved["seconds"]), float(saved["eval_seconds"])

    def _digest_before(self, update: int) -> str:
        """The digest the run had when it wrote the checkpoint of ``update``: this one's, unless
        this resume changed the config."""
        if not self.changes or self.changes[-1]["update"] != update:
            return self.digest
        before = self.cfg.to_dict() | {k: was for k, (was, _) in self.changes[-1]["changes"].items()}
        return config_digest(type(self.cfg).from_mapping(before), self.changes[:-1])

    def elapsed(self) -> float:
        return self.seconds + time.perf_counter() - self._clock

    def point(self, update: int, decisions: int, row: dict[str, Any]) -> dict[str, Any]:
        """Add the evaluation ``row`` (``evaluate_agent``'s, against the target) to the curve."""
        point = {
            "update": update,
            "decisions": decisions,
            "learner_decisions": self.learner_decisions,
            **{k: row[k] for k in ("games", "win_rate", "ci_low", "ci_high")},
            "gain": row["win_rate"] - self.fair,
        }
        self.curve.append(point)
        return point

    def save_progress(self, update: int) -> None:
        """Next to the checkpoint of ``update``: what a resumed run needs to keep its curve and time."""
        data = {
            "update": update,
            "config_sha256": self.digest,
            "curve": self.curve,
            "learner_decisions": self.learner_decisions,
            "seconds": self.elapsed(),
            "eval_seconds": self.eval_seconds,
        }
        write_atomically(self.run_dir / PROGRESS, json.dumps(json_ready(data), indent=1) + "\n")

    def finish(self, trainer: Any, agent: Path, minutes: float | None = None) -> dict[str, Any]:
        """Write ``best_response.json`` and ``curve.png`` (the last curve point is the final
        evaluation); returns the result. ``minutes``: the run's, as ``run.json`` gives them
        (default: read from the clock now)."""
        from agents.registry import spec_label

        cfg, final = self.cfg, self.curve[-1]
        minutes = self.elapsed() / 60 if minutes is None else minutes
        result = {
            "target": cfg.target,
            "target_label": spec_label(cfg.target),
            "game": cfg.game,
            "players": cfg.players,
            "rules": dict(cfg.rules),
            "fair_share": self.fair,
            "games": final["games"],
            "win_rate": final["win_rate"],
            "ci_low": final["ci_low"],
            "ci_high": final["ci_high"],
            "gain": final["win_rate"] - self.fair,
            "gain_low": final["ci_low"] - self.fair,
            "gain_high": final["ci_high"] - self.fair,
            "start": self.curve[0] if self.curve[0]["update"] == 0 else None,
            "decisions": trainer.global_step,
            "learner_decisions": self.learner_decisions,
            "imitation_steps": cfg.imitation_steps,
            "updates": trainer.update_count,
            "minutes": minutes,
            "train_minutes": minutes - self.eval_seconds / 60,
            "device": str(trainer.device),
            "torch_threads": cfg.torch_threads,
            "resumed": self.resumed,
            "complete": self.complete,
            "agent": str(agent),
            "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "config_sha256": self.digest,
            "config": cfg.to_dict(),
            "config_changes": self.changes,
            "curve": self.curve,
        }
        write_atomically(self.run_dir / RESULT, json.dumps(json_ready(result), indent=2, allow_nan=False) + "\n")
        plot_curves([result], self.run_dir / CURVE, f"best response to {result['target_label']}")
        return result


def plot_curves(results: list[dict[str, Any]], path: Path, title: str) -> Path:
    """Win rate against the target over the decisions trained, with the 95% band, one line per
    result and the fair share dashed (one panel per game and table size)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = sorted({(r["game"], r["players"]) for r in results})
    fig, axes = plt.subplots(1, len(tables), figsize=(6.2 * len(tables), 4.2), squeeze=False)
    for ax, (game, players) in zip(axes[0], tables, strict=True):
        rows = [r for r in results if (r["game"], r["players"]) == (game, players)]
        for r in rows:
            x = [p["decisions"] / 1e6 for p in r["curve"]]
            line = ax.plot(
                x,
                [p["win_rate"] for p in r["curve"]],
                marker="o",
                markersize=3,
                label=r.get("label", r["target_label"]),
            )
            ax.fill_between(
                x,
                [p["ci_low"] for p in r["curve"]],
                [p["ci_high"] for p in r["curve"]],
                alpha=0.2,
                color=line[0].get_color(),
            )
        ax.axhline(rows[0]["fair_share"], color="grey", linestyle="--", linewidth=1, label="fair share")
        where = game_info(game).describe_table(players)
        ax.set_title(f"{title}: {where}")
        ax.set_xlabel("decisions trained (millions, every seat's)")
        ax.set_ylabel("win rate against the target (95% CI)")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=8)
    return save_figure(fig, path)
