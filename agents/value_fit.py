"""Fit a network to a policy's self-play: its critic learns who wins, its head what the policy plays.

A search that stops its rollouts early needs the value of the positions where it stops
*under the play it assumes*: the rollout policy on every seat. The critic of a PPO agent
values positions under that agent's play instead. This module plays ``decisions`` moves
of ``policy`` on every seat of the batched engine, records every seat's observation at
every step (the player to act and the others, who see the same position from their
seats) with the result that seat finally got, and fits the actor-critic network by
regression (value) and imitation (the policy's own choices, for the acting seat). Since
the observations come from real play, the value averages over the hidden cards as they
really lie after such play, not as a uniform guess would: what the search's worlds miss.

    python -m agents.value_fit --policy heuristic --players 2 --out models/uno_2p_heuristic_value.pt

The result is an ordinary agent checkpoint (``{name: agent, checkpoint: ...}`` plays its
imitation head; ``{name: search, value: ...}`` uses its critic).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn, optim

from agents.learned import save_checkpoint
from agents.network import ActorCritic, masked_log_probs
from agents.registry import check_spec, make_policy
from envs.config import int_in, seed_arg
from envs.games import GAMES, game_module


def self_play_samples(
    game: str, players: int, policy_spec: object, decisions: int, batch: int, seed: int
) -> dict[str, np.ndarray]:
    """Every seat's view at every step of ``decisions`` self-play moves, with that seat's final
    reward (samples of games still going at the end are dropped)."""
    module = game_module(game)
    eng = module.Engine(batch, players, module.Rules(), seed=seed)
    policy = make_policy(game, policy_spec, seed=seed)
    steps = max(1, decisions // batch)
    # Views are whole numbers (the default rules: no match scores): int8 holds classic UNO's
    # counts, the trick game's team points (up to 360) need int16.
    _, high = module.observation_bounds(module.Rules())
    obs_all = np.zeros((steps, players, batch, module.OBS_SIZE), np.int8 if high.max() <= 127 else np.int16)
    acting = np.zeros((steps, batch), np.int64)
    action = np.zeros((steps, batch), np.int64)
    masks = np.zeros((steps, batch, module.NUM_ACTIONS), bool)
    final = np.zeros((steps, batch, players), np.float32)  # rewards where a game ended at that step
    ended = np.zeros((steps, batch), bool)
    obs, mask = eng.reset()
    for t in range(steps):
        seat = eng.current_player.copy()
        for s in range(players):
            obs_all[t, s] = np.rint(eng.observe(seats=s)[0])
        eng.observe()  # the engine's cached mask: the player to act's again
        a = policy(obs, mask)
        acting[t], action[t], masks[t] = seat, a, mask
        obs, mask, final[t], ended[t] = eng.step(a)
    # Each step's target: the rewards where its game ends, the first end at or after it (one
    # backward pass; NaN where the game was still going when the samples stop).
    target = np.full((steps, players, batch), np.nan, np.float32)
    result = np.full((batch, players), np.nan, np.float32)
    for t in range(steps - 1, -1, -1):
        result = np.where(ended[t][:, None], final[t], result)
        target[t] = result.T
    keep = ~np.isnan(target[:, 0, :])  # [T, B]
    t_idx, g_idx = keep.nonzero()
    return {
        "obs": obs_all[t_idx, :, g_idx],  # [N, P, OBS]
        "target": target[t_idx, :, g_idx],  # [N, P]
        "acting": acting[t_idx, g_idx],
        "action": action[t_idx, g_idx],
        "mask": masks[t_idx, g_idx],
    }


def fit(data: dict[str, np.ndarray], game: str, hidden: list[int], epochs: int, seed: int) -> ActorCritic:
    """Regress every seat's value on its result, imitate the acting seat's action."""
    module = game_module(game)
    torch.manual_seed(seed)
    _, high = module.observation_bounds(module.Rules())
    net = ActorCritic(module.OBS_SIZE, module.NUM_ACTIONS, hidden, high)
    opt = optim.Adam(net.parameters(), lr=1e-3, eps=1e-5)
    N, P = data["target"].shape
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        losses = []
        for idx in np.array_split(rng.permutation(N), max(1, N // 4096)):
            obs = torch.as_tensor(data["obs"][idx].astype(np.float32))  # [n, P, OBS]
            value = net.value(obs.reshape(-1, obs.shape[-1])).reshape(len(idx), P)
            v_loss = ((value - torch.as_tensor(data["target"][idx])) ** 2).mean()
            own = obs[np.arange(len(idx)), data["acting"][idx]]
            logits, _ = net(own, torch.as_tensor(data["mask"][idx]))
            logp, _ = masked_log_probs(logits, torch.as_tensor(data["mask"][idx]))
            ce = -logp.gather(1, torch.as_tensor(data["action"][idx])[:, None]).mean()
            loss = v_loss + ce
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
            losses.append((v_loss.item(), ce.item()))
        v, c = np.mean(losses, axis=0)
        print(f"epoch {epoch + 1}/{epochs}: value loss {v:.4f}, imitation cross-entropy {c:.4f}", flush=True)
    return net.eval()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="uno", choices=sorted(GAMES))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--policy", default="heuristic", help="the policy playing every seat (a name)")
    parser.add_argument("--decisions", type=int_in(1), default=2_000_000, help="self-play moves recorded")
    parser.add_argument("--batch", type=int_in(1), default=4096)
    parser.add_argument("--hidden", type=int_in(1), nargs="+", default=[256, 256])
    parser.add_argument("--epochs", type=int_in(1), default=3)
    parser.add_argument("--seed", type=seed_arg, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    from envs.atomic import check_file_writable

    try:  # refused now, not after the self-play and the fit
        game_module(args.game).Rules().check_players(args.players)
        check_spec(args.game, args.policy, players=args.players)
        check_file_writable(args.out, "--out")
    except ValueError as err:
        parser.error(str(err))
    start = time.perf_counter()
    data = self_play_samples(args.game, args.players, args.policy, args.decisions, args.batch, args.seed)
    took = time.perf_counter() - start
    print(f"{len(data['target']):,} positions x {args.players} seats in {took:.0f} s", flush=True)
    net = fit(data, args.game, args.hidden, args.epochs, args.seed)
    save_checkpoint(
        args.out,
        {
            "game": args.game,
            "num_players": args.players,
            "rules": {},
            "obs_dim": net.obs_dim,
            "num_actions": net.num_actions,
            "obs_names": list(game_module(args.game).OBS_NAMES),
            "action_names": list(game_module(args.game).ACTION_NAMES),
            "hidden": net.hidden,
            "model": {k: v.detach().clone() for k, v in net.state_dict().items()},
            "fitted_to": str(args.policy),
            "decisions": args.decisions,
        },
    )
    print(f"wrote {args.out} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
