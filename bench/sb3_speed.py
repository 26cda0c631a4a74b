"""Stable-Baselines3's MaskablePPO on the batched vector env against ``DummyVecEnv`` of ``gym_env``.

Both sides train the same MaskablePPO (``MultiInputPolicy``, the same rollout of 4,096
steps per update, minibatches, epochs and seed) with ``heuristic`` as the opponent, at the
same number of sub-envs, and then each with as many as it is used with (a Python loop over
envs with a few, one engine with many); only the env differs: ``DummyVecEnv`` loops over one-game
``gym_env``s in Python (each asking its opponent alone), ``sb3_vec_env(vector_env(N))``
steps ``N`` games in one engine and asks the opponent once per round for all of them.
Two figures per run, medians over repeats interleaved in this process (timings are noisy):

* ``collect``: steps per second of the rollouts alone (the env and the policy's forward pass);
* ``train``: steps per second of ``learn`` as a whole (rollouts and gradient updates), what
  a user sees. The updates cost the same on both sides, so they cap this ratio.

    python bench/sb3_speed.py              # both games, equal and as-used sub-env counts, 3 repeats
    python bench/sb3_speed.py --quick      # classic UNO, 4 against 256 sub-envs, 1 repeat

Needs ``pip install stable-baselines3 sb3-contrib`` (not dependencies of the lab).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from bench.engine_speed import results_out, save_results  # noqa: E402
from envs.config import int_in  # noqa: E402

ROLLOUT = 4096  # steps per update on both sides


def make_env(game: str, kind: str, num_envs: int):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from envs import uno_tricks_v0, uno_v0
    from envs.sb3_compat import sb3_vec_env

    module = {"uno": uno_v0, "tricks": uno_tricks_v0}[game]
    if kind == "dummy":
        return DummyVecEnv([lambda: module.gym_env("heuristic") for _ in range(num_envs)])
    return sb3_vec_env(module.vector_env(num_envs, "heuristic"))


def measure(game: str, kind: str, num_envs: int, updates: int, seed: int = 0) -> dict[str, float]:
    """One MaskablePPO run: a warm-up update, then ``updates`` timed ones."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    class RolloutClock(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.seconds = 0.0

        def _on_rollout_start(self) -> None:
            self.started = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.seconds += time.perf_counter() - self.started

        def _on_step(self) -> bool:
            return True

    env = make_env(game, kind, num_envs)
    model = MaskablePPO(
        "MultiInputPolicy",
        env,
        n_steps=ROLLOUT // num_envs,
        batch_size=1024,
        n_epochs=4,
        seed=seed,
        device="cpu",
        verbose=0,
    )
    model.learn(ROLLOUT)  # warm-up: kernels compiled, buffers allocated
    clock = RolloutClock()
    start = time.perf_counter()
    model.learn(ROLLOUT * updates, callback=clock, reset_num_timesteps=False)
    seconds = time.perf_counter() - start
    env.close()
    steps = ROLLOUT * updates
    return {"collect_steps_per_s": steps / clock.seconds, "train_steps_per_s": steps / seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int_in(1), default=2, help="torch threads (the machine's 2 cores)")
    parser.add_argument("--out", type=Path, default=None, help="default: bench/results/sb3_speed.json (--quick: none)")
    args = parser.parse_args()
    out = results_out(parser, args.out, args.quick, "sb3_speed.json")
    torch.set_num_threads(args.threads)
    # (game, DummyVecEnv sub-envs, vector env sub-envs): the same count, then each as it is used
    # (a Python loop over envs is run with a few; one engine with many)
    cases = (
        [("uno", 4, 256)]
        if args.quick
        else [("uno", 16, 16), ("uno", 256, 256), ("uno", 4, 1024), ("tricks", 256, 256), ("tricks", 4, 1024)]
    )
    repeats = 1 if args.quick else 3
    rows = []
    print(
        "| game | sub-envs Dummy / vector | DummyVecEnv collect / train | vector env collect / train "
        "| ratio collect / train |"
    )
    print("|---|---:|---:|---:|---:|")
    for game, dummy_envs, vector_envs in cases:
        runs: dict[str, list[dict[str, float]]] = {"dummy": [], "vector": []}
        for _ in range(repeats):
            runs["dummy"].append(measure(game, "dummy", dummy_envs, updates=2))  # interleaved: drift hits both
            runs["vector"].append(measure(game, "vector", vector_envs, updates=8))
        med = {kind: {k: statistics.median(r[k] for r in res) for k in res[0]} for kind, res in runs.items()}
        d, v = med["dummy"], med["vector"]
        row = {
            "game": game,
            "dummy_envs": dummy_envs,
            "vector_envs": vector_envs,
            "dummy": d,
            "vector": v,
            "collect_ratio": v["collect_steps_per_s"] / d["collect_steps_per_s"],
            "train_ratio": v["train_steps_per_s"] / d["train_steps_per_s"],
        }
        rows.append(row)
        print(
            f"| {game} | {dummy_envs} / {vector_envs} | "
            f"{d['collect_steps_per_s']:,.0f} / {d['train_steps_per_s']:,.0f} | "
            f"{v['collect_steps_per_s']:,.0f} / {v['train_steps_per_s']:,.0f} | "
            f"{row['collect_ratio']:.1f}x / {row['train_ratio']:.1f}x |",
            flush=True,
        )
    save_results(out, rows, rollout=ROLLOUT, batch_size=1024, n_epochs=4, repeats=repeats, threads=args.threads)


if __name__ == "__main__":
    main()
