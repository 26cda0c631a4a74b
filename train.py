"""Train a PPO agent by self-play and against an opponent pool.

    python train.py --config configs/uno_2p_ppo.yaml
    python train.py --config configs/uno_2p_ppo.yaml total_steps=2000000 device=cpu
    python train.py --config configs/uno_2p_ppo.yaml --resume runs/uno_2p_ppo/checkpoint.pt
    python train.py --config configs/uno_2p_ppo.yaml --backend ray [--address auto] num_rollout_actors=8

``--backend ray`` (or ``backend: ray`` in the config; ``pip install -e '.[ray]'``) collects
the experience with ``num_rollout_actors`` Ray actors, each stepping its share of the
games with the current weights; the learner stays in this process (``agents.ray_rollout``).

Logs to TensorBoard under ``runs/<run_name>`` (``tensorboard --logdir runs``) with
CleanRL's tags (``charts/episodic_return``, ``charts/SPS``, ``losses/*``) and, every
``eval_every`` updates, ``eval/win_rate_vs_<opponent>`` from an ``evaluate.py``
tournament on duplicate deals. Checkpoints (``checkpoint.pt``, written atomically) resume
exactly, with the minutes the run has taken (``run.json`` gives the whole run's); one that has
already trained ``total_steps`` is not resumed (raise ``total_steps`` to train on). A resume
with another config (a raised ``total_steps``, whose learning rate then anneals afresh from the
resumed update) is recorded in ``run.json``'s ``config_changes``, and its ``config_sha256`` is
then not the straight run's, so no study takes it for one. Each evaluation's agent (weights
only) goes to ``<run>/agent.pt``, and the final one also to ``export`` when the run ends (an
existing file there is replaced only with ``--overwrite``, which also removes the replaced
run's checkpoint and agent). Every check comes before anything is written: a refused command
deletes nothing and creates no folder. One trainer at a time holds a run folder (its ``lock``
file, :mod:`agents.run_lock`): a second is refused.

A config with ``target: <policy spec>`` (``configs/best_response/``) trains a **best
response**: a fresh learner against that policy alone, held fixed on every other seat. It is
evaluated against the target after the warm start and every ``eval_every`` updates
(``eval/win_rate_vs_<target>``, ``eval/best_response_gain``: the win rate minus the fair
share), at the end on ``final_eval_games`` duplicate deals, and writes
``<run>/best_response.json`` (win rate, gain and their 95% intervals, budget, curve) and
``<run>/curve.png`` (:mod:`agents.best_response`).
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from envs.atomic import check_file_writable, check_writable
from envs.config import merge, parse_overrides, read_yaml


def load_training_config(
    path: Path | None, overrides: list[str], saved: dict[str, Any] | None = None, resumed_from: Path | None = None
) -> Any:
    """The config of a YAML file (``path``; the run named after it unless it says), or the
    ``saved`` one of a checkpoint, changed by ``key=value`` overrides. A resumed run
    (``resumed_from``: its checkpoint) stays in the checkpoint's folder, wherever the command
    runs and whatever ``--config`` names, unless ``log_dir=``/``run_name=`` overrides say
    otherwise (a branch of the run, :func:`branch_note`)."""
    from agents.ppo import PPOConfig

    given = parse_overrides(overrides)
    data = merge(read_yaml(path) if path is not None else dict(saved or {}), given)
    if path is not None:
        data.setdefault("run_name", path.stem)
    if resumed_from is not None:
        folder = {k: v for k, v in checkpoint_folder(resumed_from).items() if k not in given}
        aside = {k: data[k] for k in folder if path is not None and k in data and str(data[k]) != folder[k]}
        if aside:  # the config file names another folder: the resume stays in its own, and says so
            shown = ", ".join(f"{k}: {v}" for k, v in aside.items())
            print(  # plain text: a long path is never broken across lines
                f"note: resuming in {Path(resumed_from).parent}, the checkpoint's folder ({path} says "
                f"{shown}; give log_dir=/run_name= on the command line to branch the run there)",
                file=sys.stderr,
            )
        data |= folder
    return PPOConfig.from_mapping(data)


def checkpoint_folder(checkpoint: Path) -> dict[str, str]:
    """``log_dir`` and ``run_name`` of the folder a checkpoint lies in (relative as given, so
    ``runs/x/checkpoint.pt`` keeps ``log_dir: runs``)."""
    folder = Path(checkpoint).parent
    if folder.name in ("", ".", ".."):  # no name to keep: the folder as it really is
        folder = folder.resolve()
    return {"log_dir": str(folder.parent), "run_name": folder.name}


def branch_note(cfg: Any, resumed_from: Path | None) -> str | None:
    """What to say when a resume writes elsewhere than its checkpoint's folder: only
    ``log_dir=``/``run_name=`` overrides do that, to branch the run into a folder of its own."""
    if resumed_from is None:
        return None
    own, here = Path(resumed_from).parent, run_files(cfg)[0]
    if own.resolve() == here.resolve():
        return None
    return f"branching the run: {resumed_from} (run folder {own}) continues in {here}, as log_dir/run_name say"


def evaluate_agent(
    cfg: Any,
    agent_path: Path,
    seed: int | None = None,
    games: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """The agent against each evaluation opponent, on duplicate deals in every seating:
    head to head at two seats, one agent and n-1 copies of the opponent at bigger tables,
    team against team in the trick game (``games``: at least that many, default ``eval_games``;
    ``progress(done, total)``: the games as they finish)."""
    from tournament.eval_opponents import EVAL_SEED, evaluate_policy

    spec = {"name": "agent", "checkpoint": str(agent_path)}
    return evaluate_policy(cfg, spec, EVAL_SEED if seed is None else seed, games, progress)


#: Where the output is no terminal, a stage's lines come at most this often (seconds): a stage
#: of seconds says nothing more than its result.
LINE_SECONDS = 10.0


class Stage:
    """A stage of the run (the warm start, an evaluation) on the progress bar, and where the
    output is no terminal (a log file), which shows no bar, as a line at each tenth of it
    (at most every :data:`LINE_SECONDS`)."""

    def __init__(self, progress: Progress, description: str, total: int | None = None) -> None:
        self.progress, self.description, self.total = progress, description, total
        self.task = progress.add_task(description, total=total, status="")
        self.lines = not progress.console.is_terminal
        self.tenths = 0  # tenths of the stage said so far
        self.said = time.perf_counter()  # when the last line was (or the stage began)
        self.status = ""

    def update(self, done: int, total: int | None = None, status: str = "") -> None:
        self.total, self.status = total or self.total, status
        self.progress.update(self.task, completed=done, total=self.total, status=status)
        tenths = 10 * done // self.total if self.total else 0
        if self.lines and tenths > self.tenths and time.perf_counter() - self.said >= LINE_SECONDS:
            self.tenths, self.said = tenths, time.perf_counter()
            said = f"{self.description}: {done:,}/{self.total:,}" + (f", {status}" if status else "")
            self.progress.console.print(said)

    def close(self) -> None:
        """Off the bar (an evaluation's task would stay there, finished, for the rest of the run)."""
        self.progress.remove_task(self.task)


def warm_start(cfg: Any, trainer: Any, writer: Any, progress: Progress) -> None:
    """Imitate the teacher for ``imitation_steps`` decisions before PPO starts."""
    from agents.registry import make_policy

    teacher = make_policy(cfg.game, cfg.imitation_teacher, seed=cfg.seed, rules=cfg.rules)
    per_round = cfg.num_games * cfg.num_steps
    rounds = max(1, cfg.imitation_steps // per_round)
    if rounds * per_round != cfg.imitation_steps:
        progress.console.print(
            f"imitation_steps {cfg.imitation_steps:,} is not a whole number of rounds of {per_round:,} decisions "
            f"(num_games x num_steps): imitating {rounds} round{'s' * (rounds != 1)}, {rounds * per_round:,} decisions"
        )
    stage = Stage(progress, f"imitating {cfg.imitation_teacher} (rounds)", rounds)
    for i in range(1, rounds + 1):
        stats = trainer.imitate(teacher)
        for tag, value in stats.items():
            writer.add_scalar(tag, value, i)
        stage.update(i, status=f"accuracy {stats['imitation/accuracy']:.3f}")
    progress.console.print(
        f"warm start: {rounds} round{'s' * (rounds != 1)} imitating {cfg.imitation_teacher}, {stage.status}"
    )


def config_keys_help() -> str:
    """``--help``'s list of the config keys, each with its default and one-line doc."""
    import dataclasses

    from agents.ppo import PPOConfig
    from envs.core import field_docs

    docs = field_docs(PPOConfig)
    lines = ["config keys (in the YAML file, or key=value after it; values read as YAML):"]
    for field in dataclasses.fields(PPOConfig):
        default = field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default
        lines.append(f"  {field.name} (default {default!r}): {docs[field.name]}".rstrip(": "))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=config_keys_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config", type=Path, help="YAML training config, e.g. configs/uno_2p_ppo.yaml (--resume: the checkpoint's)"
    )
    parser.add_argument(
        "--resume",
        type=Path,
        default=None,
        help="a run's checkpoint.pt to continue (its own config, or --config's) in its own folder "
        "(log_dir=/run_name= branch it into another)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the run already in the run folder (default: refuse)"
    )
    parser.add_argument("--backend", default=None, help="experience collection: local or ray (default: the config's)")
    parser.add_argument("--address", default=None, help="Ray cluster to join: auto or host:port (default: start one)")
    parser.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides, e.g. total_steps=1000000")
    args = parser.parse_intermixed_args(argv)
    if args.backend is not None:
        args.overrides.append(f"backend={args.backend}")
    console = Console()
    if not console.is_terminal:  # a log file or a test: whole lines
        console = Console(width=200)
    try:
        cfg, trainer, resume, _ = check_command(args)
    except (ValueError, RuntimeError) as err:
        parser.error(str(err))
    with contextlib.ExitStack() as stack:  # Ray shut down and the run folder's lock released, whatever happens
        collect = None
        if cfg.backend == "ray":
            from agents.ray_rollout import RayCollector
            from tournament.ray_backend import connect

            try:
                if connect(args.address):
                    stack.callback(shutdown_ray)
                collect = RayCollector(trainer)
            except RuntimeError as err:
                parser.error(str(err))
        try:  # every check has passed: only now is anything deleted or created
            hold_run_folder(cfg, stack)
            # checked again under the lock: a trainer that held the folder until now may have left a run
            prepare_run_files(cfg, plan_run_files(cfg, args.resume, overwrite=args.overwrite))
        except (ValueError, OSError) as err:
            parser.error(str(err))
        stop_on_sigterm(stack)
        try:
            return train(cfg, trainer, args.resume, resume, collect, console)
        except KeyboardInterrupt:
            changes = [*(["--config", str(args.config)] if args.config else []), *args.overrides]
            console.print(f"\n[yellow]stopped[/]: {how_to_go_on(cfg, args.resume, args.address, changes)}")
            raise


def stop_on_sigterm(stack: contextlib.ExitStack) -> None:
    """SIGTERM (a scheduler's kill, ``kill``) stops the run as Ctrl-C does: the run folder's lock
    is released and the command to go on is printed (the default handler would leave the lock,
    which a trainer on another host takes for a live run). Until ``stack`` closes; main thread only."""
    if threading.current_thread() is not threading.main_thread():
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    stack.callback(signal.signal, signal.SIGTERM, signal.signal(signal.SIGTERM, interrupt))


def how_to_go_on(
    cfg: Any, resumed_from: Path | None, address: str | None = None, changes: list[str] | None = None
) -> str:
    """After a stop (Ctrl-C, or SIGTERM): the command that continues the run from its last
    checkpoint (on the Ray cluster it joined, if it joined one). A stopped resume repeats its
    ``changes`` (``--config`` and overrides): its last checkpoint may predate them."""
    run_dir, checkpoint, _ = run_files(cfg)
    if checkpoint.is_file():
        command = f"python train.py --resume {shlex.quote(str(checkpoint))}"
        if resumed_from is not None and changes:
            command += " " + " ".join(shlex.quote(c) for c in changes)
        joined = f" --address {shlex.quote(address)}" if address is not None else ""
        return f"continue the run from its last checkpoint with: {command}{joined}"
    if resumed_from is not None:  # a branch stopped before its first checkpoint
        return f"no checkpoint was written in {run_dir} yet: run the same command with --overwrite"
    return f"no checkpoint was written yet: start again with --overwrite (its files in {run_dir} go)"


def shutdown_ray() -> None:
    import ray

    ray.shutdown()


def hold_run_folder(cfg: Any, stack: contextlib.ExitStack) -> None:
    """Make the run folder and hold its lock until ``stack`` closes (:mod:`agents.run_lock`):
    a second trainer of the same run is refused instead of writing into the same files."""
    from agents.run_lock import run_lock

    stack.enter_context(run_lock(check_writable(run_files(cfg)[0], "log_dir")))


def check_command(args: argparse.Namespace) -> tuple[Any, Any, dict[str, Any] | None, list[Path]]:
    """Every check of the command line, the config, the backend, the checkpoint to resume and
    the run folder, with nothing written or deleted: a refused command leaves every file (and
    the absence of a folder) as it was. The config, the trainer (resumed), the checkpoint's
    data and the files an ``--overwrite`` removes."""
    from agents.learned import check_game, load_checkpoint
    from agents.ppo import PPOTrainer
    from agents.run_lock import check_free

    resume = None
    if args.resume is not None:
        resume = load_checkpoint(args.resume)
        if "trainer" not in resume:
            raise ValueError(f"{args.resume} is an exported agent (weights only), not a training checkpoint")
    if args.config is None and resume is None:
        raise ValueError("--config names the training config (or --resume a checkpoint, whose own config it continues)")
    saved = resume["trainer"]["config"] if resume else None
    cfg = load_training_config(args.config, args.overrides, saved, args.resume)
    check_run_name(cfg.run_name)
    if resume is not None:
        check_game(resume, args.resume, cfg.game)
    if args.address is not None and cfg.backend != "ray":
        raise ValueError(f"--address is for --backend ray (this run's backend is {cfg.backend})")
    if cfg.backend == "ray":
        from agents.ray_support import import_ray

        import_ray()  # not installed: a RuntimeError with the install line
    stale = plan_run_files(cfg, args.resume, overwrite=args.overwrite)
    check_free(run_files(cfg)[0])  # (taken for good later; Ray's actors start before that)
    trainer = PPOTrainer(cfg)
    if resume is not None:
        trainer.load_state_dict(resume, str(args.resume))
        check_updates_left(cfg, trainer, args.resume)
    return cfg, trainer, resume, stale


def check_run_name(name: str) -> None:
    """A run has a folder of its own inside log_dir: a name of none ("", ".") or above it ("..")
    would write the run straight into log_dir, among other runs' folders, or outside it."""
    parts = Path(name).parts
    if not name.strip() or not parts or Path(name).is_absolute() or ".." in parts:
        raise ValueError(f"run_name must name a folder inside log_dir (e.g. run_name=smoke), got {name!r}")


def resumes_own_run(cfg: Any, resumed_from: Path | None) -> bool:
    """Whether ``--resume`` names this run's own checkpoint (in its own folder), not another's."""
    _, own, _ = run_files(cfg)
    return resumed_from is not None and own.is_file() and own.resolve() == Path(resumed_from).resolve()


def total_updates(cfg: Any) -> int:
    """The updates ``total_steps`` asks for: whole updates of num_games x num_steps, at least one."""
    return max(1, cfg.total_steps // (cfg.num_games * cfg.num_steps))


def check_updates_left(cfg: Any, trainer: Any, checkpoint: Path) -> None:
    """A resumed run must have updates left to train. Nothing left is refused (it would rewrite
    the finished run's records with a run of no minutes, a total_steps it never ran, or claim
    files in another folder it never wrote), but for one case: the run's own last checkpoint in
    its own folder, not yet finished (stopped during its final evaluation), which then ends as
    it would have (final evaluation, agent, records)."""
    from agents.best_response import RESULT, read_result
    from agents.run_record import RUN_RECORD, read_run_record

    per_update, done, wanted = cfg.num_games * cfg.num_steps, trainer.update_count, total_updates(cfg)
    if done < wanted:
        return
    trained = f"checkpoint {checkpoint} has already trained {trainer.global_step:,} decisions ({done} updates)"
    more = f"raise total_steps to at least {(done + 1) * per_update:,} to train on"
    if done > wanted:
        raise ValueError(
            f"{trained}; total_steps={cfg.total_steps:,} is fewer ({wanted} update{'s' * (wanted != 1)} of "
            f"{per_update:,} decisions) "
            f"and a run is never cut back: {more}"
        )
    run_dir = run_files(cfg)[0]
    if not resumes_own_run(cfg, checkpoint):
        raise ValueError(
            f"{trained}; total_steps={cfg.total_steps:,} asks for no more, so a run in {run_dir} would train "
            f"nothing: {more}"
        )
    name, record = (RESULT, read_result(run_dir)) if cfg.target is not None else (RUN_RECORD, read_run_record(run_dir))
    if isinstance(record, dict) and record.get("updates") == done and record.get("decisions") == trainer.global_step:
        raise ValueError(
            f"{trained} and its run is finished ({run_dir / name}); total_steps={cfg.total_steps:,} asks for "
            f"no more: {more}"
        )


def run_files(cfg: Any) -> tuple[Path, Path, Path]:
    """The run's folder, its ``checkpoint.pt`` and where the final agent goes (``export``, or
    the run's ``agent.pt``, which holds the agent of the last evaluation while it trains)."""
    run_dir = Path(cfg.log_dir) / cfg.run_name
    from agents.run_record import AGENT, CHECKPOINT

    return run_dir, run_dir / CHECKPOINT, Path(cfg.export) if cfg.export else run_dir / AGENT


def check_run_files(cfg: Any, resumed_from: Path | None = None, overwrite: bool = False) -> None:
    """:func:`plan_run_files`, then :func:`prepare_run_files`: the run folder checked and made
    ready in one go."""
    prepare_run_files(cfg, plan_run_files(cfg, resumed_from, overwrite))


def plan_run_files(cfg: Any, resumed_from: Path | None = None, overwrite: bool = False) -> list[Path]:
    """Before training, with nothing written: a folder that cannot be written must not cost the
    whole run, and a new run never replaces an old one silently (``--resume`` of its own
    checkpoint continues it, ``--overwrite`` replaces it: its TensorBoard logs, records and
    curve go too, so two runs never mix in one folder). The replaced run's files that
    :func:`prepare_run_files` removes."""
    from agents.best_response import PROGRESS, RESULT
    from agents.run_lock import LOCK
    from agents.run_record import AGENT, CHECKPOINT, CURVE, RUN_RECORD

    run_dir, checkpoint, agent = run_files(cfg)
    own_files = [
        folder / name
        for folder in (run_dir, *([resumed_from.parent] if resumed_from else []))
        for name in (CHECKPOINT, RUN_RECORD, RESULT, PROGRESS, CURVE, LOCK)
    ] + ([resumed_from] if resumed_from else [])
    if cfg.export and agent.resolve() in {f.resolve() for f in own_files}:
        raise ValueError(
            f"export {agent} is one of the run's own files (or those of the run it resumes): the agent would "
            "replace it; export elsewhere"
        )
    logs = sorted(run_dir.glob("events.out.tfevents.*")) if run_dir.is_dir() else []
    records = [run_dir / name for name in (RUN_RECORD, RESULT, PROGRESS, CURVE) if (run_dir / name).is_file()]
    weights = [p for p in (checkpoint, run_dir / AGENT) if p.is_file()]
    held = [p.name for p in weights] + (["TensorBoard logs"] if logs else []) + [p.name for p in records]
    own = resumes_own_run(cfg, resumed_from)
    if held and not own and not overwrite:
        ways = [f"continue it with --resume {checkpoint}"] if checkpoint.is_file() else []  # else nothing to continue
        ways += ["replace it with --overwrite", "name a new one with run_name=..."]
        raise ValueError(f"{run_dir} already holds a run ({', '.join(held)}): {', or '.join(ways)}")
    if cfg.export and agent.is_file() and not own and not overwrite:  # written once, when the run ends
        raise ValueError(f"export {agent} already exists: replace it with --overwrite, or export elsewhere")
    check_writable(run_dir, "log_dir", create=False)
    check_file_writable(agent, "export")
    if own:  # the run trains on: until it finishes again, its records must not vouch for agent.pt
        return [p for p in records if p.name in (RUN_RECORD, RESULT)]
    # a replaced run goes whole: a checkpoint of it left behind would be resumed as the new run's
    return [*logs, *records, *weights] if held else []


def prepare_run_files(cfg: Any, stale: list[Path]) -> None:
    """Once every check has passed: the replaced run's records go first (until the new run
    finishes, no study may take the folder's agent.pt, rewritten at every evaluation, for the
    finished one's), then the run folder and the export's folder are made."""
    run_dir, _, agent = run_files(cfg)
    for path in stale:
        path.unlink(missing_ok=True)
    check_writable(run_dir, "log_dir")
    check_writable(agent.parent, "export's folder")


def train(
    cfg: Any,
    trainer: Any,
    resumed_from: Path | None,
    resume: dict[str, Any] | None,
    collect: Any,
    console: Console,
) -> int:
    """The training loop: (Ray) collection, PPO updates, logs, checkpoints and evaluations.
    Called once every check has passed (``trainer`` already resumed from ``resume``, the
    checkpoint at ``resumed_from``; ``collect``: the Ray collector or None)."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from agents.learned import save_checkpoint
    from agents.run_record import AGENT
    from agents.training_checkpoint import run_minutes, with_minutes

    start = time.perf_counter()
    # the minutes of the run's earlier processes, and the update they count from (0: all of them)
    earlier, since = run_minutes(resume) if resume is not None else (0.0, 0)
    run_dir, checkpoint, final = run_files(cfg)
    agent = run_dir / AGENT  # the agent of each evaluation; `final` (export) gets the last one only
    # a resumed run's logs start after its checkpoint: what the stopped process logged past it goes
    writer = SummaryWriter(str(run_dir), purge_step=trainer.global_step + 1 if resume is not None else None)
    table = "\n".join(f"|{k}|{v}|" for k, v in cfg.to_dict().items())
    writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")
    per_update = cfg.num_games * cfg.num_steps
    updates = total_updates(cfg)
    if updates * per_update != cfg.total_steps:
        console.print(
            f"total_steps {cfg.total_steps:,} is not a whole number of updates of {per_update:,} decisions "
            f"(num_games x num_steps): training {updates} updates, {updates * per_update:,} decisions"
        )
    console.print(
        f"[bold]{cfg.run_name}[/]: {cfg.game}, {cfg.players} players, {updates} updates of "
        f"{per_update:,} decisions on {trainer.device} (torch {torch.__version__}); logs in {run_dir}"
        + (f"; resumed at update {trainer.update_count}" if resume is not None else "")
        + (f"; experience from {cfg.num_rollout_actors} Ray rollout actors" if collect else "")
    )
    from agents.registry import table_notes

    teacher = cfg.imitation_teacher if cfg.imitation_steps else None
    specs = [s for s in (cfg.target, *cfg.opponents, *cfg.eval_opponents, teacher) if s is not None]
    for note in table_notes(cfg.game, specs, cfg.rules, cfg.players):
        console.print(f"[yellow]note[/]: {note}")
    note = branch_note(cfg, resumed_from)
    if note is not None:
        console.print(f"[yellow]note[/]: {note}")
    changed = trainer.config_changes[-1] if trainer.config_changes else None
    if resume is not None and changed is not None and changed["update"] == trainer.update_count:
        anneal = "total_steps" in changed["changes"] and cfg.anneal_lr
        console.print(
            "resumed with another config than the checkpoint's: "
            + ", ".join(f"{k} {was!r} -> {now!r}" for k, (was, now) in changed["changes"].items())
            + " (run.json's config_changes says so: not the straight run of its final config"
            + ("; the learning rate anneals from here to the new total_steps)" if anneal else ")")
        )
    if resume is not None and trainer.update_count == updates:  # check_updates_left let only this through
        console.print(
            f"{resumed_from} is the run's last update, its run not finished: no training, only its end "
            "(final evaluation, agent, records)"
        )
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    record = None
    if cfg.target is not None:
        from agents.best_response import BestResponseRecord

        record = BestResponseRecord(
            cfg, run_dir, trainer.update_count if resume is not None else None, trainer.config_changes
        )
        if record.complete:  # its progress file kept the time of every earlier process
            since = 0
    if since:
        console.print(
            f"{resumed_from} records no minutes (written before checkpoints kept them): the run's minutes "
            f"count from update {since} (run.json: minutes_from_update)"
        )

    def minutes() -> float:
        """The run's minutes so far: its earlier processes' and this one's (a best response's
        own record of them where it has them all, so run.json and best_response.json agree)."""
        if record is not None and record.complete:
            return record.elapsed() / 60
        return earlier + (time.perf_counter() - start) / 60

    def evaluate(games: int | None = None) -> list[dict[str, Any]]:
        """The agent now against the eval opponents, logged; a best response's curve gets a point."""
        began = time.perf_counter()
        save_checkpoint(agent, trainer.agent_payload())
        stage = Stage(progress, f"evaluating update {trainer.update_count} (games)")
        try:
            results = evaluate_agent(cfg, agent, games=games, progress=stage.update)
        finally:  # an evaluation that fails leaves no task on the bar
            stage.close()
        for r in results:  # the interval as the evaluation made it (clustered by deal), for the curves
            for key in ("win_rate", "ci_low", "ci_high", "games"):
                writer.add_scalar(f"eval/{key}_vs_{r['opponent']}", r[key], trainer.global_step)
        line = ", ".join(
            f"{r['opponent']} {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]" for r in results
        )
        if record is not None:
            point = record.point(
                trainer.update_count, trainer.global_step, results[cfg.eval_opponents.index(cfg.target)]
            )
            writer.add_scalar("eval/best_response_gain", point["gain"], trainer.global_step)
            line += f"; best-response gain {100 * point['gain']:+.1f} points"
            record.eval_seconds += time.perf_counter() - began
        progress.console.print(
            f"update {trainer.update_count} ({trainer.global_step:,} decisions, {results[0]['games']:,} games): "
            f"win rate vs {line}"
        )
        return results

    with Progress(*columns, console=console, transient=not console.is_terminal) as progress:
        if cfg.imitation_steps and trainer.update_count == 0 and resume is None:
            warm_start(cfg, trainer, writer, progress)
        if record is not None and trainer.update_count == 0:
            evaluate()  # the curve's start: the warm-started (or untrained) learner
        task = progress.add_task("updates", total=updates, completed=trainer.update_count, status="")
        trained = False
        while trainer.update_count < updates:
            stats = trainer.update(collect)
            trained = True
            for tag, value in stats.items():
                writer.add_scalar(tag, value, trainer.global_step)
            if record is not None:
                record.learner_decisions += int(stats["charts/samples"])
            u = trainer.update_count
            status = f"SPS {stats['charts/SPS']:,.0f}"
            if "charts/pool_win_rate" in stats:
                status += f"  pool win {stats['charts/pool_win_rate']:.2f}"
            progress.update(task, completed=u, status=status)
            if not console.is_terminal and (u % max(1, updates // 50) == 0):
                progress.console.print(f"update {u}/{updates}: {trainer.global_step:,} decisions, {status}")
            last = u == updates
            saved = (cfg.checkpoint_every and u % cfg.checkpoint_every == 0) or last
            if not last and cfg.eval_every and u % cfg.eval_every == 0:
                # before this update's checkpoint: a stop in the evaluation resumes from the one
                # before and plays it again, and the checkpoint's random streams are past it
                evaluate()
            if saved:
                save_checkpoint(checkpoint, with_minutes(trainer.state_dict(), minutes(), since))
                if record is not None:  # with its checkpoint, so that a stop in the evaluation below loses nothing
                    record.save_progress(u)
            if last and cfg.eval_every:  # eval_every 0: no evaluation at all (a stop in it: it runs again on resume)
                evaluate(cfg.last_eval_games)
                if record is not None:
                    record.save_progress(u)  # again, with the final evaluation on the curve
            elif last:
                save_checkpoint(agent, trainer.agent_payload())
        if record is not None and (not record.curve or record.curve[-1]["update"] != trainer.update_count):
            evaluate(cfg.last_eval_games)  # resumed after the last update: the final evaluation again
        elif record is None and not trained:  # the same for a plain run: its last update's end again
            if cfg.eval_every:
                evaluate(cfg.last_eval_games)
            else:
                save_checkpoint(agent, trainer.agent_payload())
    writer.close()
    if final != agent:
        from envs.atomic import write_atomically

        write_atomically(final, agent.read_bytes())
        agent = final
    session = (time.perf_counter() - start) / 60
    from agents.run_record import CURVE, write_run_record

    total = minutes()  # read once: run.json and best_response.json give the same minutes
    write_run_record(cfg, run_dir, trainer, agent, total, since)
    if cfg.eval_every and record is None:  # a best response draws its own curve (agents.best_response)
        from agents.training_curves import plot_runs, read_curve

        plot_runs([read_curve(run_dir)], run_dir / CURVE)
    whole = "" if resume is None else f" ({total:.1f} min in all" + (f" since update {since})" if since else ")")
    console.print(
        f"done in {session:.1f} min{whole}: {trainer.global_step:,} decisions; agent {agent}, checkpoint {checkpoint}"
    )
    if record is not None:
        result = record.finish(trainer, agent, total)
        console.print(
            f"best response to {result['target_label']}: win rate {result['win_rate']:.4f} "
            f"[{result['ci_low']:.4f}, {result['ci_high']:.4f}] over {result['games']:,} games, gain "
            f"{100 * result['gain']:+.2f} points [{100 * result['gain_low']:+.2f}, {100 * result['gain_high']:+.2f}] "
            f"over the fair share {result['fair_share']:.3f}; {run_dir / 'best_response.json'}, {run_dir / 'curve.png'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
