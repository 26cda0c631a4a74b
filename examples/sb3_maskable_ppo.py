"""sb3-contrib's MaskablePPO on the batched vector env: 2-player classic UNO against a policy of the lab.

    python examples/sb3_maskable_ppo.py                          # 1M steps against random, ~70 s
    python examples/sb3_maskable_ppo.py --opponent heuristic --steps 3000000 --envs 1024

The env is ``uno_v0.vector_env``: ``--envs`` games stepped together by the engine, the
learner at seat 0 (``--seat -1``: a random seat per game), the opponent batched over the
games. ``sb3_vec_env`` gives it to Stable-Baselines3 as a ``VecEnv``; MaskablePPO reads
the legal moves through ``action_masks()``. At the end the trained model plays 2,000
fresh games against the opponent and the win rate is printed with its 95% interval.
Needs ``pip install stable-baselines3 sb3-contrib`` (in the ``dev`` extra).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from envs import uno_v0  # noqa: E402
from envs.config import int_in  # noqa: E402
from envs.sb3_compat import sb3_vec_env  # noqa: E402
from tournament.stats import wilson  # noqa: E402


def win_rate(model: MaskablePPO, opponent: str, games: int, seed: int, seat: int | None) -> tuple[float, float, float]:
    """The model's share of ``games`` new games won against ``opponent`` at the seat it trained in
    (``None``: a random seat per game), sampling its policy, as it trained."""
    venv = uno_v0.vector_env(num_envs=min(games, 500), opponent=opponent, seat=seat)
    obs, _ = venv.reset(seed=seed)
    results: list[float] = []
    while len(results) < games:
        actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=False)
        obs, reward, terminated, _, _ = venv.step(actions)
        results += (reward[terminated] > 0).tolist()
    wins = int(np.sum(results[:games]))
    low, high = wilson(wins, games)
    return wins / games, low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponent", default="random", help="a policy of the lab: random, heuristic, ...")
    parser.add_argument("--steps", type=int_in(1), default=1_000_000)
    parser.add_argument("--envs", type=int_in(1), default=256, help="games stepped together")
    parser.add_argument("--seat", type=int_in(-1, 1), default=0, help="the learner's seat, 0 or 1; -1: random per game")
    parser.add_argument(
        "--seed", type=int_in(0, 2**32 - 1), default=0, help="0 to 2**32 - 1 (Stable-Baselines3's range)"
    )
    parser.add_argument("--tensorboard", default=None, help="a log folder for TensorBoard")
    args = parser.parse_args()
    torch.set_num_threads(2)
    try:
        venv = uno_v0.vector_env(num_envs=args.envs, opponent=args.opponent, seat=None if args.seat < 0 else args.seat)
    except ValueError as err:  # an unknown opponent policy, say
        parser.error(str(err))
    env = sb3_vec_env(venv)
    env.seed(args.seed)
    model = MaskablePPO(
        "MultiInputPolicy",
        env,
        n_steps=max(1, 4096 // args.envs),
        batch_size=1024,
        n_epochs=4,
        gamma=1.0,  # one reward, at the end of the game
        ent_coef=0.01,
        seed=args.seed,
        device="cpu",
        tensorboard_log=args.tensorboard,
        verbose=0,
    )
    seat = None if args.seat < 0 else args.seat
    before = win_rate(model, args.opponent, 2000, seed=args.seed + 1, seat=seat)
    start = time.perf_counter()
    model.learn(args.steps, progress_bar=False)
    seconds = time.perf_counter() - start
    after = win_rate(model, args.opponent, 2000, seed=args.seed + 1, seat=seat)
    steps = model.num_timesteps  # whole rollouts: at least the steps asked for
    print(f"trained {steps:,} steps in {seconds:.0f} s ({steps / seconds:,.0f} steps/s) on {args.envs} games")
    for name, (rate, low, high) in (("before", before), ("after", after)):
        print(f"win rate against {args.opponent} {name} training: {rate:.3f} [{low:.3f}, {high:.3f}] (2,000 games)")


if __name__ == "__main__":
    main()
