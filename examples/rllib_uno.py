"""RLlib PPO with action masking on our PettingZoo UNO env (RLlib's new API stack).

    pip install -e ".[rllib]"
    python examples/rllib_uno.py                      # 20 iterations, 2 players, local Ray
    python examples/rllib_uno.py --iterations 200 --players 4 --env-runners 4 --address auto

Pieces: ``envs.rllib_compat.uno_env`` (our AEC env with the key names RLlib's masking
module reads) inside RLlib's ``PettingZooEnv`` wrapper; RLlib's example
``ActionMaskingTorchRLModule``; one shared policy for every seat (parameter sharing:
self-play). This shows that the lab's envs plug into RLlib; the lab's own trainer
(``train.py``) is the fast path, stepping thousands of games per call where RLlib steps
one game per env-runner env.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from envs.config import int_in  # noqa: E402

ENV_NAME = "unolab_uno"
POLICY = "shared"


def register(players: int) -> None:
    """Register the env under ``ENV_NAME`` for RLlib's env runners."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env

    from envs.rllib_compat import uno_env

    register_env(ENV_NAME, lambda cfg: PettingZooEnv(uno_env(num_players=cfg.get("players", players))))


def build_config(players: int = 2, env_runners: int = 0, small: bool = False, seed: int = 0) -> Any:
    """The PPO config; ``small`` trains on tiny batches (the smoke test)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    register(players)
    batch, minibatch, epochs = (256, 64, 1) if small else (4000, 256, 6)
    return (
        PPOConfig()
        # RLlib's env check steps random unmasked actions, which our envs refuse (IllegalActionError).
        .environment(ENV_NAME, env_config={"players": players}, disable_env_checking=True)
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, episode, **kw: POLICY)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    POLICY: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"head_fcnet_hiddens": [64] if small else [256, 256]},
                    )
                }
            )
        )
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1)
        .training(train_batch_size_per_learner=batch, minibatch_size=minibatch, num_epochs=epochs, lr=3e-4)
        .debugging(seed=seed)
    )


def train(iterations: int, players: int = 2, env_runners: int = 0, small: bool = False) -> list[dict[str, Any]]:
    """Build PPO on the connected (or a new local) Ray and run ``iterations`` training iterations."""
    algo = build_config(players, env_runners, small).build_algo()
    try:
        return [algo.train() for _ in range(iterations)]
    finally:
        algo.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int_in(1), default=20)
    parser.add_argument("--players", type=int_in(2, 10), default=2)
    parser.add_argument("--env-runners", type=int_in(0), default=0, help="RLlib env runners (0: sample in the driver)")
    parser.add_argument("--address", default=None, help="Ray cluster to join: auto or host:port (default: start one)")
    args = parser.parse_args()
    try:  # RLlib itself, not only Ray: the '.[ray]' extra alone has no ray.rllib
        import ray
        import ray.rllib  # noqa: F401
    except ImportError:
        parser.error("this example needs RLlib: pip install -e '.[rllib]'")
    from tournament.ray_backend import connect

    try:  # the lab's own connection: a bad address fails in seconds, naming it
        connect(args.address)
    except RuntimeError as err:
        parser.error(str(err))
    cpus = int(ray.cluster_resources().get("CPU", 0))
    if args.env_runners > max(cpus - 1, 0):  # each runner takes a CPU beside the driver's, or waits forever
        ray.shutdown()
        parser.error(f"--env-runners {args.env_runners} needs {args.env_runners + 1} CPUs; the Ray cluster has {cpus}")
    start = time.perf_counter()
    for i, result in enumerate(train(args.iterations, args.players, args.env_runners), 1):
        runners = result.get("env_runners", {})
        print(
            f"iteration {i}: {int(runners.get('num_env_steps_sampled_lifetime', 0)):,} env steps, "
            f"mean episode length {runners.get('episode_len_mean', float('nan')):.1f}, "
            f"{time.perf_counter() - start:.0f} s",
            flush=True,
        )
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
