"""What colour symmetry costs a network's forward pass (agents.network, envs/uno/colours.py).

A colour-symmetric network finds each view's canonical colour order, relabels the view and
relabels its logits back; the layers themselves are those of a plain network. Each shipped
classic UNO agent is timed against the same weights without the relabelling (the reference,
in the same process), on views of random play, one torch thread, median of several runs:

    python bench/network_speed.py            # batch 8,192, writes bench/results/network_speed.json
    python bench/network_speed.py --quick
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.learned import load_checkpoint, network_from  # noqa: E402
from agents.network import SYMMETRY_KEYS, ActorCritic  # noqa: E402
from bench.engine_speed import results_out, save_results  # noqa: E402
from envs.uno import UnoEngine  # noqa: E402

AGENTS = [(2, "models/uno_2p_ppo.pt"), (4, "models/uno_4p_ppo.pt")]


def views(players: int, batch: int, moves: int = 40) -> tuple[torch.Tensor, torch.Tensor]:
    """Views and masks of ``batch`` games after ``moves`` random moves (varied hands and piles)."""
    eng = UnoEngine(batch, players, seed=1)
    obs, mask = eng.reset()
    rng = np.random.default_rng(0)
    for _ in range(moves):
        obs, mask, _, _ = eng.step(np.where(mask, rng.random(mask.shape), -1.0).argmax(1))
    return torch.as_tensor(obs), torch.as_tensor(mask.astype(bool))


def without_symmetry(net: ActorCritic) -> ActorCritic:
    """The same layers and weights, no relabelling: the reference."""
    state = {k: v for k, v in net.state_dict().items() if k not in {f"sym_{key}" for key in SYMMETRY_KEYS}}
    fine = (net.fine_cols.tolist(), float(net.fine_cap)) if hasattr(net, "fine_cols") else ((), 0.0)
    plain = ActorCritic(net.obs_dim, net.num_actions, net.hidden, None, *fine)
    plain.load_state_dict(state)
    return plain


def median_ms(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median milliseconds of each run, the runs taken in turn (a load that comes and goes
    falls on all of them alike), after one warm-up each."""
    for run in runs.values():
        run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: 1000 * statistics.median(t) for name, t in times.items()}


def time_agent(players: int, path: str, batch: int, repeats: int) -> dict | None:
    """One agent's forward pass with and without the relabelling, and the relabelling's parts."""
    net = network_from(load_checkpoint(ROOT / path, "uno"), path)
    if not hasattr(net, "sym_weights"):
        print(f"{path}: no colour symmetry, nothing to compare")
        return None
    plain = without_symmetry(net)
    obs, mask = views(players, batch)
    order = net.relabelling(obs)
    runs = {
        "plain_forward_ms": lambda: plain(obs, mask),
        "symmetric_forward_ms": lambda: net(obs, mask),
        "order_ms": lambda: net.relabelling(obs),
        "relabel_views_ms": lambda: obs.gather(-1, net.sym_obs_sources[order]),
    }
    row = {"agent": path, "players": players, "batch": batch, **median_ms(runs, repeats)}
    row["ratio"] = row["symmetric_forward_ms"] / row["plain_forward_ms"]
    print(
        f"{players} players, {batch:,} views: {row['symmetric_forward_ms']:.1f} ms with colour symmetry, "
        f"{row['plain_forward_ms']:.1f} ms without ({row['ratio']:.2f}x); finding the order "
        f"{row['order_ms']:.1f} ms, relabelling the views {row['relabel_views_ms']:.1f} ms"
    )
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=8192)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help="batch 256, 3 repeats, nothing written")
    parser.add_argument("--out", help="the JSON to write (default bench/results/network_speed.json)")
    args = parser.parse_args(argv)
    out = results_out(parser, args.out, args.quick, "network_speed.json")
    batch, repeats = (256, 3) if args.quick else (args.batch, args.repeats)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    rows = []
    try:
        with torch.no_grad():
            for players, path in AGENTS:
                row = time_agent(players, path, batch, repeats)
                if row is not None:
                    rows.append(row)
    finally:
        torch.set_num_threads(threads)  # as it was: a caller in the same process keeps its threads
    save_results(out, rows, torch_threads=1, repeats=repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
