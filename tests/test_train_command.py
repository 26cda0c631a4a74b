"""``train.py``'s command: a refused command changes no file and makes no folder, a finished
run is not resumed into a run of nothing, and ``run.json`` keeps the whole run's minutes."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from agents.learned import load_checkpoint, save_checkpoint
from agents.training_checkpoint import run_minutes
from envs.atomic import check_writable
from train import main

#: 2 updates of 16 games x 8 decisions, no evaluation: a run in a fraction of a second.
TINY = [
    "--config",
    "configs/uno_2p_ppo.yaml",
    "num_games=16",
    "num_steps=8",
    "total_steps=256",
    "hidden=[16]",
    "eval_every=0",
    "imitation_steps=0",
    "device=cpu",
    "torch_threads=1",
    "final_eval_games=0",  # the final evaluation as large as the others, not the config's 20,000 games
]


def train(*args: str) -> int:
    return main([*TINY, *args])


def refused(capsys: pytest.CaptureFixture, *args: str) -> str:
    """The error of a command that ``train.py`` must refuse (exit code 2)."""
    with pytest.raises(SystemExit) as exit_:
        train(*args)
    assert exit_.value.code == 2
    return " ".join(capsys.readouterr().err.split())  # argparse may wrap a long message


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder``, files by their SHA-256."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "folder"
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run (checkpoint, agent, TensorBoard logs, run.json) trained once per module."""
    log_dir = tmp_path_factory.mktemp("finished")
    assert train(f"log_dir={log_dir}", "run_name=done") == 0
    return log_dir / "done"


@pytest.fixture
def runs(tmp_path: Path, finished_run: Path) -> Path:
    """A log_dir of this test's own, holding a copy of the finished run as ``done``."""
    shutil.copytree(finished_run, tmp_path / "runs" / "done")
    return tmp_path / "runs"


@pytest.fixture
def no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray missing, whether or not it is installed here (``import ray`` fails)."""
    monkeypatch.setitem(sys.modules, "ray", None)


def test_a_refused_overwrite_deletes_nothing(runs: Path, capsys: pytest.CaptureFixture, no_ray: None) -> None:
    """Every check of the command line, config and backend comes before the replaced run's files go."""
    before = snapshot(runs)
    assert {"done/run.json", "done/agent.pt", "done/checkpoint.pt"} <= set(before)
    assert any(name.startswith("done/events.out.tfevents.") for name in before)
    common = (f"log_dir={runs}", "run_name=done", "--overwrite")
    err = refused(capsys, *common, "--address", "auto")
    assert "--address is for --backend ray (this run's backend is local)" in err
    assert snapshot(runs) == before
    err = refused(capsys, *common, "--backend", "ray")
    assert "the ray backend needs Ray: pip install -e '.[ray]'" in err
    assert snapshot(runs) == before
    err = refused(capsys, *common, "total_steps=0")
    assert "total_steps must be an integer from 1" in err
    assert snapshot(runs) == before
    assert train(*common) == 0  # all well: now the run is replaced
    assert json.loads((runs / "done" / "run.json").read_text())["minutes_from_update"] == 0


def test_resuming_a_finished_run_is_refused_and_changes_nothing(runs: Path, capsys: pytest.CaptureFixture) -> None:
    """Nothing left to train: refused, not a run.json of no minutes, of a total_steps never run,
    or of files in another folder that were never written."""
    checkpoint = runs / "done" / "checkpoint.pt"
    before = snapshot(runs)
    err = refused(capsys, f"log_dir={runs}", "run_name=done", "--resume", str(checkpoint))
    assert f"checkpoint {checkpoint} has already trained 256 decisions (2 updates) and its run is finished" in err
    assert "total_steps=256 asks for no more: raise total_steps to at least 384 to train on" in err
    err = refused(capsys, f"log_dir={runs}", "run_name=done", "--resume", str(checkpoint), "total_steps=128")
    assert "total_steps=128 is fewer (1 update of 128 decisions) and a run is never cut back" in err
    assert "raise total_steps to at least 384 to train on" in err
    err = refused(capsys, f"log_dir={runs}", "run_name=other", "--resume", str(checkpoint))
    assert f"asks for no more, so a run in {runs / 'other'} would train nothing" in err
    assert snapshot(runs) == before  # no folder "other" either

    assert train(f"log_dir={runs}", "run_name=done", "--resume", str(checkpoint), "total_steps=384") == 0
    record = json.loads((runs / "done" / "run.json").read_text())
    assert record["decisions"] == 384 and record["config"]["total_steps"] == 384


def test_a_run_stopped_after_its_last_checkpoint_ends_when_resumed(runs: Path, capsys: pytest.CaptureFixture) -> None:
    """Its own last checkpoint, its run not finished (stopped during the final evaluation): the
    resumed command trains nothing but exports the agent and writes the records."""
    run = runs / "done"
    (run / "run.json").unlink()
    (run / "agent.pt").unlink()
    checkpoint = load_checkpoint(run / "checkpoint.pt")
    assert train(f"log_dir={runs}", "run_name=done", "--resume", str(run / "checkpoint.pt")) == 0
    assert "is the run's last update, its run not finished: no training" in capsys.readouterr().out
    record = json.loads((run / "run.json").read_text())
    assert record["updates"] == 2 and record["minutes"] >= checkpoint["trainer"]["minutes"] > 0
    assert load_checkpoint(run / "agent.pt")["model"].keys() == checkpoint["model"].keys()


def test_a_resumed_run_records_the_whole_runs_minutes(runs: Path, capsys: pytest.CaptureFixture) -> None:
    checkpoint = runs / "done" / "checkpoint.pt"
    earlier, since = run_minutes(load_checkpoint(checkpoint))
    assert earlier > 0 and since == 0
    assert train(f"log_dir={runs}", "run_name=done", "--resume", str(checkpoint), "total_steps=512") == 0
    record = json.loads((runs / "done" / "run.json").read_text())
    assert record["minutes"] > earlier and record["minutes_from_update"] == 0
    minutes, since = run_minutes(load_checkpoint(checkpoint))  # the last checkpoint's: before run.json's
    assert earlier < minutes <= record["minutes"] and since == 0


def test_a_checkpoint_without_minutes_resumes_and_says_its_time_is_unknown(
    runs: Path, capsys: pytest.CaptureFixture
) -> None:
    """A checkpoint written before checkpoints kept their minutes: run.json counts from its update."""
    checkpoint = runs / "done" / "checkpoint.pt"
    data = load_checkpoint(checkpoint)
    for key in ("minutes", "minutes_from_update"):
        del data["trainer"][key]
    save_checkpoint(checkpoint, data)
    assert run_minutes(load_checkpoint(checkpoint)) == (0.0, 2)
    capsys.readouterr()
    assert train(f"log_dir={runs}", "run_name=done", "--resume", str(checkpoint), "total_steps=512") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "records no minutes (written before checkpoints kept them): the run's minutes count from update 2" in out
    record = json.loads((runs / "done" / "run.json").read_text())
    assert record["minutes_from_update"] == 2 and record["minutes"] > 0
    assert run_minutes(load_checkpoint(checkpoint))[1] == 2  # and the next resume knows it too


@pytest.mark.parametrize(
    ("minutes", "since"), [("soon", 0), (float("nan"), 0), (-1.0, 0), (1.5, 7), (1.5, True), (True, 0)]
)
def test_unusable_minutes_in_a_checkpoint_count_as_unknown(minutes: object, since: object) -> None:
    data = {"trainer": {"update": 4, "minutes": minutes, "minutes_from_update": since}}
    assert run_minutes(data) == (0.0, 4)
    assert run_minutes({"trainer": {"update": 4, "minutes": 1.5, "minutes_from_update": 3}}) == (1.5, 3)


def test_refused_commands_make_no_folder(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture, no_ray: None
) -> None:
    checkpoint = runs / "done" / "checkpoint.pt"
    before = snapshot(tmp_path)
    new = tmp_path / "new" / "logs"  # neither folder exists yet
    err = refused(capsys, f"log_dir={new}", "--resume", str(checkpoint), "num_games=32", "total_steps=4096")
    assert "does not match this config (num_games: checkpoint 16, config 32)" in err
    err = refused(capsys, f"log_dir={new}", "--resume", str(runs / "done" / "agent.pt"), "total_steps=4096")
    assert "is an exported agent (weights only), not a training checkpoint" in err
    err = refused(capsys, f"log_dir={new}", "--backend", "ray")
    assert "the ray backend needs Ray" in err
    err = refused(capsys, f"log_dir={runs}", "run_name=other", "--resume", str(checkpoint), "num_games=32")
    assert "does not match this config" in err
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    before[blocker.name] = hashlib.sha256(b"").hexdigest()
    err = refused(capsys, f"log_dir={new}", f"export={blocker}/agent.pt")
    assert f"export's folder '{blocker}' cannot be written: '{blocker}' is not a folder" in err
    assert snapshot(tmp_path) == before
    (runs / "empty").mkdir()  # a folder that was there stays
    refused(capsys, f"log_dir={runs}", "run_name=empty", "--backend", "ray")
    assert (runs / "empty").is_dir() and not any((runs / "empty").iterdir())


def test_the_folder_check_creates_nothing(tmp_path: Path) -> None:
    check_writable(tmp_path / "a" / "b", "log_dir", create=False)
    assert not (tmp_path / "a").exists() and not any(tmp_path.iterdir())
    (tmp_path / "f").write_text("")
    with pytest.raises(ValueError, match=r"log_dir '.*/f/b' cannot be written: '.*/f' is not a folder"):
        check_writable(tmp_path / "f" / "b", "log_dir", create=False)


def test_a_best_response_stopped_after_its_last_checkpoint_ends_and_a_finished_one_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """What the exploitability study resumes (its progress file matches, no best_response.json)."""
    args = ["--config", "configs/best_response/uno_2p_first_legal.yaml", f"log_dir={tmp_path}", "run_name=br"]
    args += [*TINY[2:], "eval_every=2", "eval_games=50"]
    assert main(args) == 0
    run = tmp_path / "br"
    resume = ["--resume", str(run / "checkpoint.pt")]
    before = snapshot(tmp_path)
    with pytest.raises(SystemExit):
        main([*args, *resume])
    assert "its run is finished" in capsys.readouterr().err and snapshot(tmp_path) == before
    straight = json.loads((run / "best_response.json").read_text())
    (run / "best_response.json").unlink()
    assert main([*args, *resume]) == 0
    result = json.loads((run / "best_response.json").read_text())
    assert result["curve"] == straight["curve"] and result["complete"]
    assert json.loads((run / "run.json").read_text())["minutes"] == pytest.approx(result["minutes"], abs=0.01)


def test_a_resume_into_another_runs_folder_is_refused(runs: Path, capsys: pytest.CaptureFixture) -> None:
    """Resuming run ``done`` into a folder holding another run would mix the two runs' files."""
    shutil.copytree(runs / "done", runs / "other")
    before = snapshot(runs)
    message = refused(
        capsys, f"log_dir={runs}", "run_name=other", "total_steps=512", "--resume", f"{runs}/done/checkpoint.pt"
    )
    assert f"{runs}/other already holds a run" in message and "--overwrite" in message
    assert snapshot(runs) == before


def test_a_run_resumed_to_train_on_no_longer_vouches_for_its_agent(runs: Path) -> None:
    """Until the resumed run finishes again its agent.pt changes at every evaluation: its run.json
    (what the studies take a finished run by) goes when it resumes; its logs and curve stay."""
    from train import load_training_config, plan_run_files

    cfg = load_training_config(Path("configs/uno_2p_ppo.yaml"), [*TINY[2:], f"log_dir={runs}", "run_name=done"])
    assert plan_run_files(cfg, runs / "done" / "checkpoint.pt") == [runs / "done" / "run.json"]


def test_a_best_response_killed_in_its_final_evaluation_resumes_with_its_curve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its progress file is written with the last checkpoint, before the final evaluation: a
    stop inside that evaluation loses neither the curve so far nor the minutes."""
    import train

    args = ["--config", "configs/best_response/uno_2p_first_legal.yaml", f"log_dir={tmp_path}", "run_name=br"]
    args += [*TINY[2:], "eval_every=1", "eval_games=50"]
    real, calls = train.evaluate_agent, []

    def killed_in_the_last(cfg, agent, games=None, **kw):  # the 3rd evaluation: after update 2, the last
        calls.append(games)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(cfg, agent, games=games, **kw)

    monkeypatch.setattr(train, "evaluate_agent", killed_in_the_last)
    with pytest.raises(KeyboardInterrupt):
        main(args)
    monkeypatch.setattr(train, "evaluate_agent", real)
    progress = json.loads((tmp_path / "br" / "best_response_progress.json").read_text())
    assert progress["update"] == 2 and [p["update"] for p in progress["curve"]] == [0, 1]
    assert main([*args, "--resume", str(tmp_path / "br" / "checkpoint.pt")]) == 0
    result = json.loads((tmp_path / "br" / "best_response.json").read_text())
    assert result["complete"] and [p["update"] for p in result["curve"]] == [0, 1, 2]


def test_a_run_resumed_with_more_total_steps_records_the_change(runs: Path, capsys: pytest.CaptureFixture) -> None:
    """Raising total_steps on resume re-anneals the learning rate: the run is no longer the
    straight run of its final config, and its run.json must not vouch for one (no study may
    reuse it for a row asking for total_steps=512 from the start)."""
    from agents.best_response import config_digest
    from train import load_training_config

    checkpoint = runs / "done" / "checkpoint.pt"
    assert train(f"log_dir={runs}", "run_name=done", "--resume", str(checkpoint), "total_steps=512") == 0
    assert "total_steps 256 -> 512" in capsys.readouterr().out
    record = json.loads((runs / "done" / "run.json").read_text())
    assert record["config_changes"] == [{"update": 2, "changes": {"total_steps": [256, 512]}}]
    straight = load_training_config(Path("configs/uno_2p_ppo.yaml"), [*TINY[2:], "total_steps=512"])
    assert record["config_sha256"] != config_digest(straight)
    assert load_checkpoint(checkpoint)["trainer"]["config_changes"] == record["config_changes"]
    # resumed again without a change: the history stays as it was
    assert train(f"log_dir={runs}", "run_name=done", "--resume", str(checkpoint), "total_steps=768") == 0
    changes = json.loads((runs / "done" / "run.json").read_text())["config_changes"]
    assert [c["changes"]["total_steps"] for c in changes] == [[256, 512], [512, 768]]


def test_a_straight_run_records_no_changes(finished_run: Path) -> None:
    from agents.best_response import config_digest
    from train import load_training_config

    record = json.loads((finished_run / "run.json").read_text())
    cfg = load_training_config(Path("configs/uno_2p_ppo.yaml"), [*TINY[2:], "run_name=done"])
    assert record["config_changes"] == [] and record["config_sha256"] == config_digest(cfg)


def test_a_best_response_resumed_with_more_total_steps_keeps_its_curve(tmp_path: Path) -> None:
    args = ["--config", "configs/best_response/uno_2p_first_legal.yaml", f"log_dir={tmp_path}", "run_name=br"]
    args += [*TINY[2:], "eval_every=1", "eval_games=50"]
    assert main(args) == 0
    assert main([*args, "total_steps=384", "--resume", str(tmp_path / "br" / "checkpoint.pt")]) == 0
    result = json.loads((tmp_path / "br" / "best_response.json").read_text())
    assert result["complete"] and [p["update"] for p in result["curve"]] == [0, 1, 2, 3]
    assert result["minutes"] == json.loads((tmp_path / "br" / "run.json").read_text())["minutes"]
    assert result["config_changes"] == [{"update": 2, "changes": {"total_steps": [256, 384]}}]


def test_an_overwritten_run_leaves_no_checkpoint_of_the_old_one_to_resume(runs: Path, monkeypatch) -> None:
    """--overwrite removes the replaced run's checkpoint and agent with its logs: a new run
    stopped before its first checkpoint leaves nothing that --resume would take for its own."""
    import agents.ppo

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(agents.ppo.PPOTrainer, "update", stop)
    with pytest.raises(KeyboardInterrupt):
        train(f"log_dir={runs}", "run_name=done", "--overwrite", "learning_rate=0.001")
    assert not (runs / "done" / "checkpoint.pt").exists() and not (runs / "done" / "agent.pt").exists()


def test_export_is_written_once_at_the_end_and_never_replaced_silently(tmp_path: Path, capsys) -> None:
    export = tmp_path / "shipped.pt"
    export.write_bytes(b"a shipped agent")
    common = (f"log_dir={tmp_path}", "run_name=r", f"export={export}", "eval_every=1", "eval_games=32")
    common += ("final_eval_games=32",)
    err = refused(capsys, *common)
    assert f"export {export} already exists: replace it with --overwrite" in err
    assert export.read_bytes() == b"a shipped agent"
    assert train(*common, "--overwrite") == 0
    load_checkpoint(export)  # the final agent, as the run's own agent.pt
    assert export.read_bytes() == (tmp_path / "r" / "agent.pt").read_bytes()
    assert json.loads((tmp_path / "r" / "run.json").read_text())["agent"] == str(export)


def test_a_resumed_run_logs_each_step_once(tmp_path: Path, monkeypatch) -> None:
    """A stop after an update past the last checkpoint: the resumed process logs that update
    again, and TensorBoard keeps one point per step (the stopped process's later ones purged)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    import agents.ppo

    update = agents.ppo.PPOTrainer.update

    def stop_after_3(self, *args, **kwargs):
        if self.update_count == 3:
            raise KeyboardInterrupt
        return update(self, *args, **kwargs)

    common = (f"log_dir={tmp_path}", "run_name=r", "total_steps=640", "checkpoint_every=2")
    monkeypatch.setattr(agents.ppo.PPOTrainer, "update", stop_after_3)
    with pytest.raises(KeyboardInterrupt):
        train(*common)
    monkeypatch.setattr(agents.ppo.PPOTrainer, "update", update)
    assert train(*common, "--resume", str(tmp_path / "r" / "checkpoint.pt")) == 0
    events = EventAccumulator(str(tmp_path / "r")).Reload()  # as TensorBoard reads them
    steps = [e.step for e in events.Scalars("losses/value_loss")]
    assert steps == sorted(set(steps)) == [128 * u for u in range(1, 6)]


def test_a_resume_without_config_continues_the_run_with_its_own_config(tmp_path: Path, monkeypatch, capsys) -> None:
    """--resume alone takes the checkpoint's config (run_name, total_steps and every override
    the run was started with); key=value overrides change it, as with --config."""
    import agents.ppo

    update = agents.ppo.PPOTrainer.update

    def stop_after_1(self, *args, **kwargs):
        if self.update_count == 1:
            raise KeyboardInterrupt
        return update(self, *args, **kwargs)

    monkeypatch.setattr(agents.ppo.PPOTrainer, "update", stop_after_1)
    with pytest.raises(KeyboardInterrupt):
        train(f"log_dir={tmp_path}", "run_name=tiny", "checkpoint_every=1", "learning_rate=0.001")
    monkeypatch.setattr(agents.ppo.PPOTrainer, "update", update)
    checkpoint = tmp_path / "tiny" / "checkpoint.pt"
    assert main(["--resume", str(checkpoint)]) == 0
    record = json.loads((tmp_path / "tiny" / "run.json").read_text())
    assert record["updates"] == 2 and record["config_changes"] == []  # 256 decisions, its own learning rate
    err = " ".join(capsys.readouterr().err.split())
    assert "error" not in err
    with pytest.raises(SystemExit):
        main([])
    assert "--config names the training config (or --resume a checkpoint" in " ".join(capsys.readouterr().err.split())


def test_a_folder_without_a_checkpoint_is_not_offered_to_resume(tmp_path: Path, capsys) -> None:
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "events.out.tfevents.1.host").write_bytes(b"")  # a run stopped before its first checkpoint
    err = refused(capsys, f"log_dir={tmp_path}", "run_name=r")
    assert "already holds a run (TensorBoard logs): replace it with --overwrite" in err
    assert "--resume" not in err.split("error:")[1]


def _stopped_run(log_dir: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Path:
    """A run ``tiny`` in ``log_dir`` stopped after its first update (checkpointed): its checkpoint."""
    import agents.ppo

    update = agents.ppo.PPOTrainer.update

    def stop_after_1(self, *a, **kw):
        if self.update_count == 1:
            raise KeyboardInterrupt
        return update(self, *a, **kw)

    monkeypatch.setattr(agents.ppo.PPOTrainer, "update", stop_after_1)
    with pytest.raises(KeyboardInterrupt):
        train(f"log_dir={log_dir}", "run_name=tiny", "checkpoint_every=1", *args)
    monkeypatch.setattr(agents.ppo.PPOTrainer, "update", update)
    return log_dir / "tiny" / "checkpoint.pt"


def test_a_resume_continues_in_the_checkpoints_folder_wherever_it_runs(tmp_path: Path, monkeypatch, capsys) -> None:
    """The saved log_dir is relative to where the run began: a resume from another folder, or
    with --config and no run_name, still continues the run in its own folder, not in a fork."""
    repo = Path.cwd()
    monkeypatch.chdir(tmp_path)
    checkpoint = _stopped_run(Path("runs"), monkeypatch, "--config", str(repo / "configs/uno_2p_ppo.yaml"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["--resume", str(tmp_path / checkpoint)]) == 0
    assert json.loads((tmp_path / "runs" / "tiny" / "run.json").read_text())["updates"] == 2
    assert list(elsewhere.iterdir()) == []  # no runs/tiny here
    monkeypatch.chdir(repo)
    config = ["--config", "configs/uno_2p_ppo.yaml", *TINY[2:], "total_steps=384"]
    assert main([*config, "--resume", str(tmp_path / checkpoint)]) == 0  # not runs/uno_2p_ppo
    assert json.loads((tmp_path / "runs" / "tiny" / "run.json").read_text())["updates"] == 3
    out, err = capsys.readouterr()
    assert "branching" not in out
    # the config's own folder is left aside, and that is said
    assert f"note: resuming in {tmp_path / 'runs' / 'tiny'}, the checkpoint's folder (configs/uno_2p_ppo.yaml" in err
    assert "run_name: uno_2p_ppo" in err and "give log_dir=/run_name= on the command line to branch" in err


def test_log_dir_or_run_name_on_a_resume_branches_the_run_and_says_so(tmp_path: Path, monkeypatch, capsys) -> None:
    checkpoint = _stopped_run(tmp_path, monkeypatch)
    capsys.readouterr()
    assert train("--resume", str(checkpoint), "run_name=branch") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"branching the run: {checkpoint} (run folder {tmp_path / 'tiny'}) continues in {tmp_path / 'branch'}" in out
    assert json.loads((tmp_path / "branch" / "run.json").read_text())["updates"] == 2
    assert not (tmp_path / "tiny" / "run.json").exists()  # the branched-from run is as it was


def test_a_second_trainer_of_a_run_folder_is_refused_while_the_first_holds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    import os
    import socket

    from agents.run_lock import process_start, run_lock

    (tmp_path / "r").mkdir()
    with run_lock(tmp_path / "r") as lock:  # a trainer of run r, alive (this process)
        assert lock.read_text() == f"{os.getpid()} {socket.gethostname()} {process_start(os.getpid())}\n"
        before = snapshot(tmp_path)
        err = refused(capsys, f"log_dir={tmp_path}", "run_name=r")
        assert (
            f"{tmp_path / 'r'} is in use by another trainer (process {os.getpid()} on {socket.gethostname()}, " in err
        )
        assert "wait for it to end, or name another run with run_name=..." in err
        assert snapshot(tmp_path) == before
        pytest.importorskip("ray")
        import tournament.ray_backend

        def no_ray(address):  # the lock is checked before Ray (and its actors) start
            raise AssertionError("Ray started for a run folder another trainer holds")

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(tournament.ray_backend, "connect", no_ray)
            assert "is in use by another trainer" in refused(capsys, f"log_dir={tmp_path}", "run_name=r", "backend=ray")
    assert not lock.exists()
    assert train(f"log_dir={tmp_path}", "run_name=r") == 0  # free again
    assert not (tmp_path / "r" / "lock").exists()


def test_a_killed_trainers_lock_is_taken_over_and_a_stopped_one_leaves_none(tmp_path: Path, monkeypatch) -> None:
    import os
    import socket
    import subprocess

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a process that has ended: its lock is stale
    from agents.run_lock import holder_alive, process_start

    assert not holder_alive(gone.pid, socket.gethostname())
    assert holder_alive(gone.pid, "another-host")  # a lock of another host (a shared folder) holds
    me, started = os.getpid(), process_start(os.getpid())
    assert started.isdigit() and holder_alive(me, socket.gethostname(), started)
    assert not holder_alive(me, socket.gethostname(), str(int(started) + 1))  # its pid taken again later
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "lock").write_text(f"{gone.pid} {socket.gethostname()}\n")
    import agents.ppo

    update = agents.ppo.PPOTrainer.update
    seen = []

    def stopped(self, *a, **kw):  # Ctrl-C during the second update
        seen.append((tmp_path / "r" / "lock").read_text())
        if self.update_count == 1:
            raise KeyboardInterrupt
        return update(self, *a, **kw)

    monkeypatch.setattr(agents.ppo.PPOTrainer, "update", stopped)
    with pytest.raises(KeyboardInterrupt):
        train(f"log_dir={tmp_path}", "run_name=r", "checkpoint_every=1")
    assert seen == [f"{os.getpid()} {socket.gethostname()} {process_start(os.getpid())}\n"] * 2  # while it trained
    assert not (tmp_path / "r" / "lock").exists()  # and released by the stop


def test_two_evaluation_opponents_never_share_a_label(tmp_path: Path) -> None:
    """Two runs' agent.pt (both labelled by the file's name) would write one TensorBoard tag and one curve line."""
    from agents.ppo import PPOTrainer
    from agents.registry import spec_label
    from agents.training_curves import read_curve
    from tournament.eval_opponents import opponent_labels
    from train import load_training_config

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        cfg = load_training_config(Path("configs/uno_2p_ppo.yaml"), [*TINY[2:], f"seed={len(name)}"])
        save_checkpoint(tmp_path / name / "agent.pt", PPOTrainer(cfg).agent_payload())
    specs = [f"agent:{tmp_path}/a/agent.pt", f"agent:{tmp_path}/b/agent.pt", "heuristic", "heuristic"]
    assert opponent_labels(specs) == ["a/agent", "b/agent", "heuristic", "heuristic_2"]
    assert opponent_labels([{"name": "random", "label": "x"}, {"name": "heuristic", "label": "x"}]) == ["x", "x_2"]
    for path in sorted(Path("configs").glob("*.yaml")) + sorted(Path("configs/best_response").glob("*.yaml")):
        cfg = load_training_config(path, [])  # every shipped training config keeps its labels
        old = [spec_label(s) if spec_label(s) != "agent" else "opponent" for s in cfg.eval_opponents]
        assert opponent_labels(cfg.eval_opponents) == old
    opponents = f"eval_opponents=[{', '.join(specs[:3])}]"
    assert train(f"log_dir={tmp_path}", "run_name=r", opponents, "eval_every=1", "eval_games=16") == 0
    assert sorted(read_curve(tmp_path / "r")["curves"]) == ["a/agent", "b/agent", "heuristic"]


def test_a_log_hears_of_the_warm_start_and_the_evaluations_as_they_go(monkeypatch, tmp_path: Path, capsys) -> None:
    """Output to a file shows no progress bar: lines at each tenth instead (here at once, LINE_SECONDS 0)."""
    import train as train_module

    monkeypatch.setattr(train_module, "LINE_SECONDS", 0.0)
    args = (
        "imitation_steps=512",
        "eval_every=2",
        "eval_games=16",
        "final_eval_games=16",
        "eval_opponents=[random, heuristic]",
    )
    assert train(f"log_dir={tmp_path}", "run_name=r", *args) == 0
    out = capsys.readouterr().out
    rounds = [line for line in out.splitlines() if line.startswith("imitating heuristic (rounds): ")]
    assert [line.split(",")[0] for line in rounds] == [f"imitating heuristic (rounds): {i}/4" for i in range(1, 5)]
    assert "accuracy" in rounds[0]
    games = [line for line in out.splitlines() if line.startswith("evaluating update 2 (games): ")]
    assert games[-1] == "evaluating update 2 (games): 32/32" and len(games) >= 2
    monkeypatch.setattr(train_module, "LINE_SECONDS", 3600.0)  # a short stage says nothing more than its result
    assert train(f"log_dir={tmp_path}", "run_name=q", *args) == 0
    assert "(rounds): " not in (out := capsys.readouterr().out) and "(games): " not in out


@pytest.mark.parametrize("name", ["", ".", "..", "a/..", " "])
def test_a_run_name_that_names_no_folder_of_its_own_is_refused(tmp_path: Path, capsys, name: str) -> None:
    err = refused(capsys, f"log_dir={tmp_path / 'logs'}", f"run_name='{name}'")
    assert f"run_name must name a folder inside log_dir (e.g. run_name=smoke), got {name!r}" in err
    assert not (tmp_path / "logs").exists()


def test_config_values_a_run_cannot_mean_are_refused_and_whole_floats_are_integers() -> None:
    from agents.ppo import PPOConfig

    for device in ("meta", "mps", "nosuch"):
        with pytest.raises(ValueError, match=f"device must be auto, cpu, cuda or cuda:N; got '{device}'"):
            PPOConfig.from_mapping({"device": device})
    cfg = PPOConfig.from_mapping({"total_steps": 1e6, "seed": 7.0, "device": "cpu"})
    assert (cfg.total_steps, cfg.seed) == (1_000_000, 7) and type(cfg.total_steps) is int and type(cfg.seed) is int
    with pytest.raises(ValueError, match="num_games must be an integer from 1 to 1,000,000, got 2.5"):
        PPOConfig.from_mapping({"num_games": 2.5})
    with pytest.raises(ValueError, match="total_steps must be an integer from 1 to 10,000,000,000,000, got 1e\\+16"):
        PPOConfig.from_mapping({"total_steps": 1e16})


def test_the_warm_start_says_how_it_rounds_imitation_steps(tmp_path: Path, capsys) -> None:
    assert train(f"log_dir={tmp_path}", "run_name=r", "imitation_steps=300") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "imitation_steps 300 is not a whole number of rounds of 128 decisions (num_games x num_steps): "
        "imitating 2 rounds, 256 decisions" in out
    )


def test_a_stopped_run_says_how_to_go_on(tmp_path: Path, monkeypatch, capsys) -> None:
    checkpoint = _stopped_run(tmp_path, monkeypatch)  # Ctrl-C after the first update's checkpoint
    out = " ".join(capsys.readouterr().out.split())
    assert f"stopped: continue the run from its last checkpoint with: python train.py --resume {checkpoint}" in out
    assert not (tmp_path / "tiny" / "lock").exists()
    from types import SimpleNamespace

    from train import how_to_go_on

    cfg = SimpleNamespace(log_dir=str(tmp_path), run_name="tiny", export="")  # a run on a Ray cluster it joined
    assert how_to_go_on(cfg, None, "auto").endswith(f"python train.py --resume {checkpoint} --address auto")
    import agents.ppo

    def stop(self, *a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(agents.ppo.PPOTrainer, "update", stop)  # a branch stopped before its first checkpoint
    with pytest.raises(KeyboardInterrupt):
        main(["--resume", str(checkpoint), "run_name=branch"])
    monkeypatch.undo()
    out = " ".join(capsys.readouterr().out.split())
    assert (
        f"stopped: no checkpoint was written in {tmp_path / 'branch'} yet: run the same command with --overwrite" in out
    )
    _stopped_run(tmp_path, monkeypatch, "checkpoint_every=0", "--overwrite")  # no checkpoint before the stop
    out = " ".join(capsys.readouterr().out.split())
    assert (
        f"stopped: no checkpoint was written yet: start again with --overwrite (its files in {tmp_path / 'tiny'} go)"
        in out
    )


def test_a_stopped_resume_says_to_repeat_its_changes_and_sigterm_stops_like_ctrl_c(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """A resume that raised total_steps and stopped before its next checkpoint: the checkpoint
    still holds the old config, so the command to go on repeats the change. SIGTERM (a job's
    time limit) stops a run as Ctrl-C does: the lock goes, the command to go on is printed."""
    import os
    import signal

    import agents.ppo

    checkpoint = _stopped_run(tmp_path, monkeypatch)
    capsys.readouterr()

    def terminated(self, *a, **kw):
        os.kill(os.getpid(), signal.SIGTERM)

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(agents.ppo.PPOTrainer, "update", terminated)
    with pytest.raises(KeyboardInterrupt):
        main(["--resume", str(checkpoint), "total_steps=512", "checkpoint_every=100"])
    monkeypatch.undo()
    assert signal.getsignal(signal.SIGTERM) is before and not (tmp_path / "tiny" / "lock").exists()
    out = " ".join(capsys.readouterr().out.split())
    assert f"python train.py --resume {checkpoint} total_steps=512 checkpoint_every=100" in out


def test_empty_rules_are_none_the_same_rules_resume_and_an_export_may_not_replace_the_run(
    tmp_path: Path, capsys
) -> None:
    from agents.ppo_config import PPOConfig

    assert PPOConfig.from_mapping({"rules": None}).rules == {}  # `rules:` left empty in a YAML file
    assert PPOConfig.from_mapping({"players": 4.0}).players == 4
    with pytest.raises(ValueError, match="players must be an integer \\(the table size\\), got 'four'"):
        PPOConfig.from_mapping({"players": "four"})
    with pytest.raises(ValueError, match="rules must be a mapping of rules options"):
        PPOConfig.from_mapping({"rules": 5})
    assert train(f"log_dir={tmp_path}", "run_name=r", "rules={stacking: false}") == 0
    checkpoint = tmp_path / "r" / "checkpoint.pt"
    assert main([*TINY, "total_steps=384", "--resume", str(checkpoint)]) == 0  # rules {} mean the same
    (change,) = json.loads((tmp_path / "r" / "run.json").read_text())["config_changes"]
    assert list(change["changes"]) == ["total_steps"]  # and are no change
    err = refused(capsys, f"log_dir={tmp_path}", "run_name=e", f"export={tmp_path / 'e' / 'checkpoint.pt'}")
    assert "is one of the run's own files (or those of the run it resumes): the agent would replace it" in err
    err = refused(capsys, "--resume", str(checkpoint), "run_name=branch", f"export={checkpoint}")  # a branch
    assert "is one of the run's own files (or those of the run it resumes)" in err


def test_each_curve_point_keeps_the_games_its_evaluation_played(tmp_path: Path) -> None:
    """A finished run resumed with more total_steps: its old final evaluation (final_eval_games)
    stays a point of 40 games, not one of eval_games."""
    from agents.training_curves import read_curve

    games = ("eval_every=1", "eval_games=16", "final_eval_games=40", "eval_opponents=[random]")
    assert train(f"log_dir={tmp_path}", "run_name=c", *games) == 0
    assert main([*TINY, *games, "total_steps=384", "--resume", str(tmp_path / "c" / "checkpoint.pt")]) == 0
    (points,) = read_curve(tmp_path / "c")["curves"].values()
    assert {p["decisions"]: p["games"] for p in points} == {128: 16, 256: 40, 384: 40}
