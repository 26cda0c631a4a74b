"""PPO self-play: masking, multi-agent returns, learning, exact resume, checkpoint refusals."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest
import torch

from agents.learned import LearnedPolicy, load_checkpoint, save_checkpoint
from agents.ppo import PPOConfig, PPOTrainer
from agents.rollout import Rollout, multi_seat_gae
from tests.play_helpers import random_actions
from train import evaluate_agent

TINY = {
    "num_games": 128,
    "num_steps": 16,
    "total_steps": 10**6,
    "hidden": [64, 64],
    "opponents": ["random", "heuristic"],
    "snapshot_every": 2,
    "pool_size": 2,
    "torch_threads": 1,
    "device": "cpu",
    "eval_opponents": ["random"],
}


def tiny(**kw) -> PPOConfig:
    return PPOConfig.from_mapping({**TINY, **kw})


def test_learner_and_pool_only_ever_play_legal_actions():
    for cfg in (tiny(), tiny(game="tricks", players=4), tiny(players=4, self_play=0.0)):
        trainer = PPOTrainer(cfg)
        for _ in range(3):  # the engine raises on any illegal action, a pool member's included
            ro = trainer.collect()
            chosen = np.take_along_axis(ro.mask, ro.action[..., None], axis=2)[..., 0]
            assert chosen.all()
        trainer.collector.pool.add_snapshot(trainer.net, trainer.rng)
        ro = trainer.collect()
        assert np.take_along_axis(ro.mask, ro.action[..., None], axis=2).all()


def test_a_sampling_agent_never_picks_a_masked_action(tmp_path):
    trainer = PPOTrainer(tiny())
    path = save_checkpoint(tmp_path / "agent.pt", trainer.agent_payload())
    policy = LearnedPolicy(seed=0, checkpoint=str(path), mode="sample")
    rng = np.random.default_rng(0)
    mask = rng.random((5000, 79)) < 0.05
    mask[np.arange(5000), rng.integers(79, size=5000)] = True
    obs = rng.random((5000, 449)).astype(np.float32) * 4
    actions = policy(obs, mask)
    assert mask[np.arange(5000), actions].all()


def rollout(seats, rewards, dones, values, last_value):
    """A hand-made one-game rollout in which every decision is the learner's."""
    T = len(seats)
    ro = Rollout.empty(T, 1, 2, obs_size=1, num_actions=1)
    ro.seat[:, 0], ro.learning[:] = seats, True
    ro.reward[:, 0], ro.done[:, 0], ro.value[:, 0] = rewards, dones, values
    ro.last_value = np.array([last_value], np.float32)
    return ro


def test_end_of_game_rewards_reach_every_seat_and_games_cut_the_chains():
    trainer = PPOTrainer(tiny(gamma=1.0, gae_lambda=1.0))
    # Seats 0, 1, 0 play; seat 0's move ends the game (+1 / -1 to both seats at once);
    # seat 1 then starts the next game, still open when the rollout ends (value 0.25).
    ro = rollout(
        seats=[0, 1, 0, 1],
        rewards=[[0, 0], [0, 0], [1, -1], [0, 0]],
        dones=[False, False, True, False],
        values=[0.1, 0.2, 0.3, 0.4],
        last_value=[0.0, 0.25],
    )
    _, returns = multi_seat_gae(ro, trainer.cfg.gamma, trainer.cfg.gae_lambda)
    np.testing.assert_allclose(returns[:, 0], [1.0, -1.0, 1.0, 0.25])


def test_discounting_and_lambda_follow_each_seats_own_decisions():
    trainer = PPOTrainer(tiny(gamma=0.9, gae_lambda=0.5))
    ro = rollout(
        seats=[0, 1, 0, 1],
        rewards=[[0, 0], [0, 0], [0, 0], [-1, 1]],
        dones=[False, False, False, True],
        values=[0.2, -0.1, 0.4, 0.3],
        last_value=[9.0, 9.0],  # unused: the game ends inside the rollout
    )
    adv, _ = multi_seat_gae(ro, trainer.cfg.gamma, trainer.cfg.gae_lambda)
    # seat 0: t=2 is its last decision, the game's -1 arrives on seat 1's move
    a2 = -1.0 - 0.4
    a0 = (0.0 + 0.9 * 0.4 - 0.2) + 0.9 * 0.5 * a2
    a3 = 1.0 - 0.3
    a1 = (0.0 + 0.9 * 0.3 + 0.1) + 0.9 * 0.5 * a3
    np.testing.assert_allclose(adv[:, 0], [a0, a1, a2, a3], rtol=1e-6)


def test_a_few_seconds_of_training_beat_random(tmp_path):
    cfg = tiny(seed=3, num_games=256, total_steps=20 * 256 * 16, opponents=["random"], self_play=0.5)
    trainer = PPOTrainer(cfg)
    before = evaluate_agent(cfg, save_checkpoint(tmp_path / "before.pt", trainer.agent_payload()))
    for _ in range(20):
        trainer.update()
    after = evaluate_agent(cfg, save_checkpoint(tmp_path / "after.pt", trainer.agent_payload()))
    assert after[0]["games"] >= 2000
    assert after[0]["ci_low"] > 0.55 and after[0]["win_rate"] > before[0]["win_rate"] + 0.05


@pytest.mark.parametrize(
    ("game", "extra"),
    [
        ("uno", {}),
        ("tricks", {}),
        ("uno", {"critic": "oracle"}),
        ("uno", {"oracle_guide": 0.5, "total_steps": 8192}),
        ("uno", {"belief_coef": 1.0}),
        # a search opponent: its rollout policy's random stream is kept too
        ("uno", {"opponents": [{"name": "search", "worlds": 2, "depth": 0, "value": ""}], "self_play": 0.0}),
    ],
)
def test_resume_continues_bit_for_bit(tmp_path, game, extra):
    cfg = tiny(game=game, players=4 if game == "tricks" else 3, snapshot_every=1, **extra)
    straight = PPOTrainer(cfg)
    for _ in range(4):
        straight.update()
    first = PPOTrainer(cfg)
    for _ in range(2):
        first.update()
    path = save_checkpoint(tmp_path / "checkpoint.pt", first.state_dict())
    resumed = PPOTrainer(cfg)
    resumed.load_state_dict(load_checkpoint(path, game))
    for _ in range(2):
        resumed.update()
    assert resumed.global_step == straight.global_step and resumed.update_count == 4
    for a, b in zip(straight.net.state_dict().values(), resumed.net.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    for part in (
        "critic",
        "guide",
        "belief",
    ):  # the trainer's extra networks (critic: oracle, oracle_guide, belief_coef)
        if getattr(straight, part) is not None:
            ours, theirs = getattr(straight, part).state_dict(), getattr(resumed, part).state_dict()
            assert all(torch.equal(ours[k], theirs[k]) for k in ours)
    for path_, array in straight.collector.engine.state_arrays().items():
        np.testing.assert_array_equal(array, resumed.collector.engine.state_arrays()[path_], err_msg=path_)
    assert straight.rng.bit_generator.state == resumed.rng.bit_generator.state
    if "search" in str(extra):  # a search keeps its key and its rollout policy's stream too
        assert {"search", "rollout", "key"} <= set(first.state_dict()["trainer"]["scripted_rngs"][0])


@pytest.mark.parametrize("anneal", [False, True])
def test_a_run_resumed_with_another_learning_rate_trains_at_it(tmp_path, anneal):
    """The optimiser's state comes back with the checkpoint's rate; the config's replaces it."""
    cfg = tiny(learning_rate=1e-3, anneal_lr=True)
    first = PPOTrainer(cfg)
    first.update()
    path = save_checkpoint(tmp_path / "checkpoint.pt", first.state_dict())
    resumed = PPOTrainer(tiny(learning_rate=1e-4, anneal_lr=anneal))
    resumed.load_state_dict(load_checkpoint(path, "uno"))
    logged = resumed.update()["charts/learning_rate"]
    frac = 1.0 - first.global_step / cfg.total_steps if anneal else 1.0
    assert logged == pytest.approx(frac * 1e-4) and resumed.optimizer.param_groups[0]["lr"] == logged


def test_bad_checkpoints_are_refused_with_the_reason(tmp_path):
    trainer = PPOTrainer(tiny())
    good = save_checkpoint(tmp_path / "good.pt", trainer.state_dict())
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:1000])
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint at all")
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(ValueError, match="not found"):
        load_checkpoint(tmp_path / "missing.pt")
    for bad in (truncated, garbage):
        with pytest.raises(ValueError, match="is corrupt or not a unolab checkpoint"):
            load_checkpoint(bad)
    with pytest.raises(ValueError, match="not a unolab agent checkpoint"):
        load_checkpoint(foreign)
    with pytest.raises(ValueError, match="holds a uno agent, not a tricks one"):
        load_checkpoint(good, "tricks")
    with pytest.raises(ValueError, match=r"does not match this config \(hidden: checkpoint \[64, 64\]"):
        PPOTrainer(tiny(hidden=[32])).load_state_dict(load_checkpoint(good), "good.pt")
    agent = save_checkpoint(tmp_path / "agent.pt", trainer.agent_payload())
    with pytest.raises(ValueError, match="exported agent"):
        PPOTrainer(tiny()).load_state_dict(load_checkpoint(agent), "agent.pt")
    edited = load_checkpoint(good)
    edited["num_players"] = 5  # and saved again, checksum and all: the header disagrees with its run
    edited = load_checkpoint(save_checkpoint(tmp_path / "edited.pt", edited))
    with pytest.raises(ValueError, match=r"inconsistent: its header says num_players 5 \(its run: 2\)"):
        PPOTrainer(tiny()).load_state_dict(edited, "edited.pt")


def test_a_failed_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    trainer = PPOTrainer(tiny())
    path = save_checkpoint(tmp_path / "checkpoint.pt", trainer.agent_payload())
    before = path.read_bytes()

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", crash)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(path, trainer.agent_payload())
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.pt"]


def test_bad_training_configs_are_refused():
    for kw, message in [
        ({"colour": 1}, "unknown training config key"),
        ({"players": 3, "game": "tricks"}, "4"),
        ({"opponents": ["nosuch"]}, "unknown uno policy 'nosuch'"),
        ({"self_play": 1.5}, "self_play"),
        ({"num_games": 0}, "num_games must be an integer from 1 to"),
        ({"device": "tpu"}, "device"),
        ({"eval_opponents": []}, "eval_opponents is empty, but eval_every > 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            tiny(**kw)


def test_overwrite_removes_the_replaced_runs_records_first(tmp_path):
    """Until the new run finishes, no study may take the folder's agent.pt for a finished run."""
    from pathlib import Path

    from train import check_run_files, load_training_config

    cfg = load_training_config(Path("configs/uno_2p_ppo.yaml"), [f"log_dir={tmp_path}", "run_name=r"])
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    for name in ("run.json", "best_response.json", "agent.pt"):
        (run_dir / name).write_text("{}")
    with pytest.raises(ValueError, match=r"already holds a run \(agent.pt, run.json, best_response.json\)"):
        check_run_files(cfg)
    check_run_files(cfg, overwrite=True)
    assert not (run_dir / "run.json").exists() and not (run_dir / "best_response.json").exists()


def test_agent_policy_plays_through_the_engine(tmp_path):
    trainer = PPOTrainer(tiny(game="tricks", players=4))
    path = save_checkpoint(tmp_path / "agent.pt", trainer.agent_payload())
    policy = LearnedPolicy(seed=0, checkpoint=str(path))
    from envs.uno_tricks import TricksEngine

    eng = TricksEngine(64, seed=0)
    obs, mask = eng.reset()
    u = np.random.default_rng(0).random((64, mask.shape[1]))
    finished = 0
    for _ in range(100):  # the engine refuses any illegal action
        actions = policy(obs, mask)
        assert mask[np.arange(64), actions].all()
        np.testing.assert_array_equal(actions, policy(obs, mask))  # greedy: the same choice every time
        if eng.current_player[0] % 2 == 0:
            actions = random_actions(mask, u)
        obs, mask, _, done = eng.step(actions)
        finished += int(done.sum())
    assert finished >= 64  # whole games played, 40 decisions each


def test_train_and_evaluate_command_lines(tmp_path):
    import subprocess
    import sys

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    def run(script, *args):
        return subprocess.run([sys.executable, script, *args], capture_output=True, text=True, timeout=300)

    common = [
        "--config",
        "configs/uno_2p_ppo.yaml",
        f"log_dir={tmp_path}",
        "run_name=tiny",
        "num_games=64",
        "num_steps=8",
        "hidden=[32]",
        "eval_every=2",
        "eval_games=200",
        "final_eval_games=0",  # 200 games, not the config's 20,000
        "eval_opponents=[random]",
        "checkpoint_every=1",
        "imitation_steps=1024",
    ]
    proc = run("train.py", *common, "total_steps=2048")
    assert proc.returncode == 0, proc.stderr
    run_dir = tmp_path / "tiny"
    assert (run_dir / "checkpoint.pt").is_file() and (run_dir / "agent.pt").is_file()
    events = EventAccumulator(str(run_dir))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"charts/SPS", "losses/value_loss", "losses/entropy", "eval/win_rate_vs_random"} <= tags
    assert "imitation/accuracy" in tags and "warm start: 2 rounds imitating heuristic" in proc.stdout
    assert len(events.Scalars("charts/SPS")) == 4  # 2048 decisions / (64 games x 8 steps)
    record = json.loads((run_dir / "run.json").read_text())  # what the finished run was
    assert record["decisions"] == 2048 and record["config"]["hidden"] == [32] and len(record["config_sha256"]) == 64
    assert {"commit", "python", "numpy", "numba", "torch"} <= set(record["software"])
    assert record["software"]["torch"] in (torch.__version__, torch.__version__.split("+")[0])
    assert (run_dir / "curve.png").is_file()
    from agents.training_curves import read_curve

    (curve,) = read_curve(run_dir)["curves"].values()
    assert [p["decisions"] for p in curve] == [1024, 2048] and all(p["games"] >= 200 for p in curve)
    assert all(p["ci_low"] <= p["win_rate"] <= p["ci_high"] for p in curve)
    lows = [e.value for e in events.Scalars("eval/ci_low_vs_random")]  # the evaluation's own intervals
    assert [p["ci_low"] for p in curve] == lows and len(events.Scalars("eval/ci_high_vs_random")) == 2
    from agents.training_curves import main as draw_curves

    figure = tmp_path / "curves.png"  # a stored curve redraws a figure without its run folder
    assert draw_curves([str(run_dir), "--out", str(figure), "--labels", "tiny_ppo"]) == 0
    again = tmp_path / "again.png"
    assert draw_curves([f"{figure.with_suffix('.json')}:tiny", "--out", str(again)]) == 0
    stored = json.loads(figure.with_suffix(".json").read_text())
    assert json.loads(again.with_suffix(".json").read_text()) == stored and stored[0]["label"] == "tiny_ppo"
    with pytest.raises(SystemExit):
        draw_curves([f"{figure.with_suffix('.json')}:other", "--out", str(again)])
    from agents.training_curves import stored_curve

    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps(2 * json.loads(figure.with_suffix(".json").read_text())))
    with pytest.raises(ValueError, match="holds more than one run 'tiny'"):
        stored_curve(f"{twice}:tiny")
    twice.write_text("[1, 2]")
    with pytest.raises(ValueError, match="is not a figure's curves"):
        stored_curve(f"{twice}:tiny")

    proc = run("train.py", *common, "total_steps=2048")  # the same run again: refused, nothing replaced
    assert (
        proc.returncode == 2
        and "already holds a run (checkpoint.pt, agent.pt, TensorBoard logs, run.json, curve.png)" in proc.stderr
    )
    assert "--overwrite" in proc.stderr and len(events.Scalars("charts/SPS")) == 4
    proc = run("train.py", *common, "total_steps=4096", "--resume", str(run_dir / "checkpoint.pt"))
    assert proc.returncode == 0, proc.stderr
    assert "resumed at update 4" in proc.stdout and "update 8/8" in proc.stdout
    proc = run("train.py", *common, "hidden=[16]", "--resume", str(run_dir / "checkpoint.pt"))
    assert proc.returncode == 2 and "does not match this config (hidden" in proc.stderr

    agent = run_dir / "agent.pt"
    proc = run(
        "evaluate.py",
        "players=2",
        "games=200",
        "--no-files",
        f"policies=[{{name: agent, checkpoint: {agent}}}, random]",
    )
    assert proc.returncode == 0, proc.stderr
    assert "│ agent " in proc.stdout  # labelled by the checkpoint's file name
    proc = run("evaluate.py", "--no-files", f"policies=[{{name: agent, checkpoint: {tmp_path / 'nope.pt'}}}, random]")
    assert proc.returncode == 2 and "not found" in proc.stderr


def test_imitation_warm_start_learns_the_teachers_moves_and_scales_inputs():
    from agents.registry import make_policy

    trainer = PPOTrainer(tiny(seed=4))
    scale = trainer.net.obs_scale.numpy()
    assert scale.min() < 0.01 and scale.max() == 1.0  # pile sizes (up to 108) scaled to [0, 1]
    teacher = make_policy("uno", "heuristic", seed=0)
    first = trainer.imitate(teacher)
    for _ in range(5):
        last = trainer.imitate(teacher)
    assert last["imitation/accuracy"] > 0.75 and last["imitation/accuracy"] > first["imitation/accuracy"]
    assert trainer.global_step == 0  # imitation does not count as PPO experience


SHIPPED = {"uno_2p_ppo": ("uno", 2), "uno_4p_ppo": ("uno", 4), "tricks_ppo": ("tricks", 4)}


def test_every_shipped_config_is_valid():
    from pathlib import Path

    from tournament.config import load_config
    from train import load_training_config

    for name in SHIPPED:
        cfg = load_training_config(Path(f"configs/{name}.yaml"), [])
        assert (cfg.game, cfg.players) == SHIPPED[name]
    for path in sorted(Path("configs/eval").glob("*.yaml")):
        if "study" not in path.read_text():
            load_config(path, [])  # checks every policy spec, shipped checkpoints included


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_agents_are_small_and_beat_random(name):
    from pathlib import Path

    path = Path(f"models/{name}.pt")
    assert path.stat().st_size < 5 * 2**20
    data = load_checkpoint(path)
    assert "trainer" not in data and (data["game"], data["num_players"]) == SHIPPED[name]
    game, players = SHIPPED[name]
    cfg = tiny(game=game, players=players, eval_games=1000, eval_opponents=["random"])
    (result,) = evaluate_agent(cfg, path)
    assert result["ci_low"] > 1 / players if game == "uno" else result["ci_low"] > 0.5


def test_train_rounds_total_steps_aloud_skips_every_evaluation_at_eval_every_0_and_lists_its_keys(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    args = ["--config", "configs/uno_2p_ppo.yaml", f"log_dir={tmp_path}", "run_name=quiet", "num_games=64"]
    args += ["num_steps=8", "hidden=[16]", "eval_every=0", "imitation_steps=0", "total_steps=1500"]
    proc = subprocess.run([sys.executable, "train.py", *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "total_steps 1,500 is not a whole number of updates of 512 decisions" in proc.stdout
    assert "training 2 updates, 1,024 decisions" in proc.stdout and "win rate vs" not in proc.stdout
    assert (tmp_path / "quiet" / "agent.pt").is_file()  # exported without an evaluation
    events = EventAccumulator(str(tmp_path / "quiet"))
    events.Reload()
    assert not [t for t in events.Tags()["scalars"] if t.startswith("eval/")]
    with pytest.raises(ValueError, match="eval_every must be at least 1"):
        PPOConfig.from_mapping({"target": "random", "eval_every": 0})

    proc = subprocess.run([sys.executable, "train.py", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    for field in dataclasses.fields(PPOConfig):
        assert f"\n  {field.name} (default " in proc.stdout
    assert "ent_coef (default 0.01): entropy bonus" in proc.stdout


def test_a_checkpoint_whose_sizes_do_not_fit_the_game_is_refused_with_both_sizes(tmp_path):
    from agents.network import ActorCritic

    data = load_checkpoint("tests/data/uno_328_values.pt", "uno")  # recorded no names
    for key in ("format", "version"):
        data.pop(key, None)
    data["obs_dim"], data["model"] = 300, ActorCritic(300, 70, [int(h) for h in data["hidden"]]).state_dict()
    path = save_checkpoint(tmp_path / "old_layout.pt", data)
    with pytest.raises(
        ValueError, match="trained on 300 observation values and 70 actions; the uno game here has 449 and 79"
    ):
        LearnedPolicy(checkpoint=str(path))


def test_a_resumed_ray_actor_plays_other_games_than_the_runs_first_ones():
    """Ray rollout actors are seeded from the run's seed and their index, and on a resume from
    the update as well: a preemptible run resumed again and again must not replay its first
    updates' deals. A run from the start keeps its seeds."""
    from agents.ray_rollout import RolloutWorker

    cfg = dataclasses.asdict(tiny())

    def first_obs(start_update: int) -> np.ndarray:
        worker = RolloutWorker(cfg, 0, 4, start_update)
        return worker.collector.engine.observe()[0]

    np.testing.assert_array_equal(first_obs(0), first_obs(0))
    assert not np.array_equal(first_obs(0), first_obs(16))
    # an actor's share of the games need not hold the driver's minibatches (it makes none)
    wide = dataclasses.asdict(tiny(num_games=4, num_steps=2, num_minibatches=8))
    assert RolloutWorker(wide, 0, 2, 0).collector.engine.num_games == 2


def test_an_epoch_has_as_many_minibatches_as_asked_and_a_rollout_without_decisions_none():
    from agents.rollout import minibatches

    rng = np.random.default_rng(0)
    for n, k, sizes in ((10, 4, [2] * 4), (31, 8, [3] * 8), (3, 8, [1] * 3), (0, 8, [])):
        batches = list(minibatches(n, k, rng))
        assert [len(b) for b in batches] == sizes
        assert len({int(i) for b in batches for i in b}) == sum(sizes)  # no sample twice in an epoch


def test_an_update_whose_rollout_gave_the_learner_no_decision_learns_nothing_and_goes_on():
    # 4 seats, one game, one step: the learner often does not act at all in a rollout
    trainer = PPOTrainer(tiny(players=4, self_play=0.0, num_games=1, num_steps=1, num_minibatches=1))
    empty = 0
    for _ in range(6):
        before = [p.clone() for p in trainer.net.parameters()]
        stats = trainer.update()
        if np.isnan(stats["losses/policy_loss"]):
            empty += 1
            assert all(torch.equal(a, b) for a, b in zip(before, trainer.net.parameters(), strict=True))
    assert empty > 0


def test_pool_charts_count_no_game_the_imitation_teacher_played():
    """The teacher plays every seat during the warm start: a pool game it began and the learner
    finished is neither's, and no longer counts in the first PPO update's pool win rate."""
    from agents.registry import make_policy

    trainer = PPOTrainer(tiny(self_play=0.0, opponents=["random"], snapshot_every=0, num_games=64, num_steps=16))
    collector = trainer.collector
    teacher = make_policy("uno", "heuristic", seed=0)
    for _ in range(3):
        ro = trainer.collector.collect(teacher)
        assert not ro.episodes["return"]  # the teacher's games are not the learner's
    in_play = collector.taught.copy()
    assert (in_play == ~ro.done[-1]).all()  # all but the games dealt at the teacher's last step
    ro = collector.collect()
    # every game is a pool game (self_play 0): all ends count but each slot's first, where the
    # teacher had begun that game
    taught_ends = int((in_play & ro.done.any(axis=0)).sum())
    assert taught_ends > 0 and len(ro.episodes["return"]) == int(ro.done.sum()) - taught_ends
    state = collector.state_dict()
    assert state["taught"].tolist() == collector.taught.tolist()  # a checkpoint keeps the flags
