"""Training throughput: decisions of experience per second, network inference included.

Two figures per setting, each the median of several PPO iterations in this process:

* ``collect``: the rollout alone (engine steps, observation, the network choosing every
  learning seat's action, the pool playing the others): experience per second;
* ``train``: a whole iteration (rollout, advantages, 4 epochs of minibatch updates):
  what ``charts/SPS`` shows in TensorBoard.

The reference, in the same process: the bare engine under random play at the same batch.

    python bench/train_speed.py            # the shipped configs; 2-player UNO also at batch 4096 and all self-play
    python bench/train_speed.py --quick
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

import envs.uno  # noqa: E402
import envs.uno_tricks  # noqa: E402
from agents.ppo import PPOConfig, PPOTrainer  # noqa: E402
from bench.engine_speed import engine_runner, median_rate, results_out, save_results  # noqa: E402

CASES = [
    ("uno", envs.uno, 2, "configs/uno_2p_ppo.yaml"),
    ("uno", envs.uno, 4, "configs/uno_4p_ppo.yaml"),
    ("tricks", envs.uno_tricks, 4, "configs/tricks_ppo.yaml"),
]


def measure(config: PPOConfig, repeats: int) -> dict[str, float]:
    trainer = PPOTrainer(config)
    trainer.update()  # warm-up
    collect, train = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        trainer.collect()
        collect.append(config.num_games * config.num_steps / (time.perf_counter() - start))
        stats = trainer.update()
        train.append(stats["charts/SPS"])
    return {"collect_steps_per_s": statistics.median(collect), "train_steps_per_s": statistics.median(train)}


def main() -> None:
    from envs.config import int_in, read_yaml

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int_in(1), default=2, help="torch threads (the machine's 2 cores)")
    parser.add_argument(
        "--out", type=Path, default=None, help="default: bench/results/train_speed.json (--quick: none)"
    )
    args = parser.parse_args()
    out = results_out(parser, args.out, args.quick, "train_speed.json")
    torch.set_num_threads(args.threads)
    repeats = 2 if args.quick else 3
    rows = []
    settings = []  # (case, batch, self_play): every config as shipped, then variations of 2-player UNO
    for case in CASES[:1] if args.quick else CASES:
        settings.append((case, 1024, None))
    if not args.quick:
        settings += [(CASES[0], 4096, None), (CASES[0], 1024, 1.0)]
    engine_rates = {}
    for (game, module, players, path), batch, self_play in settings:
        base = read_yaml(ROOT / path)
        if (game, players, batch) not in engine_rates:
            runner = engine_runner(module, batch, players)
            engine_rates[game, players, batch] = median_rate(runner, 3, 1.0)["steps_per_s"]
        engine = engine_rates[game, players, batch]
        overrides = {"num_games": batch, "torch_threads": args.threads, "device": "cpu"}
        if self_play is not None:
            overrides["self_play"] = self_play
        cfg = PPOConfig.from_mapping({**base, **overrides})
        rate = measure(cfg, repeats)
        row = {
            "game": game,
            "players": players,
            "batch": batch,
            "hidden": cfg.hidden,
            "self_play": cfg.self_play,
            **rate,
            "engine_steps_per_s": engine,
        }
        rows.append(row)
        print(
            f"{game:6s} {players}p batch {batch:5d} self-play {cfg.self_play:.1f}: collect "
            f"{rate['collect_steps_per_s']:>9,.0f}/s, train {rate['train_steps_per_s']:>8,.0f}/s "
            f"(bare engine {engine:,.0f}/s)",
            flush=True,
        )
    save_results(out, rows, torch=torch.__version__, threads=args.threads, repeats=repeats)


if __name__ == "__main__":
    main()
