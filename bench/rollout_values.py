"""One step of policy improvement over ``heuristic``, learned from rollouts in the true deal.

A question about the 4-player agents' plateau (docs/agents.md): is ``heuristic`` close to the
best a fair player can do at a table of three ``heuristic`` players, one decision at a time?
Policy improvement answers it without the noise of PPO's advantages:

1. **Values.** Decisions are sampled from ``heuristic`` self-play (``--base agent``: from the
   shipped agent's seat at a table of ``heuristic`` players). At each, every legal action is
   played in a copy of the *true* game (the real hands and pile order, the same engine
   streams: common random numbers for the cards; the ``heuristic`` rollouts' tie-breaks
   draw from one generator, so they are not common), and play goes on to the end (the base
   policy on the player's seat). The player's result is that action's value in that deal.
2. **Fit.** A network reads the player's *observation* and predicts every legal action's
   value, centred on their mean (squared error). The best it can learn is each action's
   value averaged over the deals the observation allows, weighted as ``heuristic`` play
   makes them: the exact target of one step of policy improvement for a fair player. A fit
   that reached it could not choose worse than the base on the same decisions; one that
   does (a negative held-out gain) has fallen short of it, and then measures itself, not
   whether an improvement exists. (Held-out decisions come from the same games as the
   training ones, and their interval treats decisions as independent.)
3. **Measure.** On held-out decisions: the value of the network's choice minus that of
   ``heuristic``'s, paired, with its 95% interval. At the table: the network alone, and
   ``heuristic`` taking the network's choice only where it predicts ``margin`` more, each
   at a table of three ``heuristic`` players (seat ``g mod players`` of game ``g``).

Nothing here may sit at a table as a policy of the lab: it is a measurement.

    python bench/rollout_values.py                  # 2M decisions, about 20 minutes on one core
    python bench/rollout_values.py --base agent --decisions 1000000    # the shipped agent, 30 minutes
    python bench/rollout_values.py --quick          # a smoke run (seconds; numbers meaningless)

Writes its figures to ``bench/results/rollout_values.json`` (``rollout_values_agent.json`` with
``--base agent``; or ``--out``; ``--quick`` writes only to ``--out``), then the report of both
bases' figures, ``docs/rollout_values.md`` with its table, plot and data
(``docs/rollout_values/``); ``--report`` writes the report alone from the figures there are.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.learned import save_checkpoint, shipped_agent  # noqa: E402
from agents.network import ActorCritic  # noqa: E402
from agents.registry import make_policy  # noqa: E402
from bench.engine_speed import results_out  # noqa: E402
from bench.information import play  # noqa: E402
from envs.atomic import write_atomically  # noqa: E402
from envs.config import int_in, seed_arg  # noqa: E402
from envs.uno import NUM_ACTIONS, OBS_NAMES, UnoEngine, UnoRules  # noqa: E402
from envs.uno.actions import ACTION_NAMES  # noqa: E402
from tournament.report import check_study_outputs, plot_win_rates, publish_study  # noqa: E402

#: The policies one step of improvement starts from.
BASES = ("heuristic", "agent")
#: Where each base's figures are kept (``bench/results``), and the report made of them.
RESULTS = {
    base: ROOT / "bench" / "results" / f"rollout_values{'' if base == 'heuristic' else '_agent'}.json" for base in BASES
}
REPORT, DATA = ROOT / "docs" / "rollout_values.md", ROOT / "docs" / "rollout_values"


def action_values(players: int, decisions: int, batch: int, seed: int, base: Any = None) -> dict[str, np.ndarray]:
    """Observations, masks and every legal action's value (NaN: illegal) at ``decisions``
    decisions with more than one legal action: of ``heuristic`` self-play, or (``base``, a
    policy) of ``base`` at seat ``g mod players`` of game ``g`` with ``heuristic`` elsewhere,
    valued with ``base`` playing that seat on."""
    eng = UnoEngine(batch, players, UnoRules(), seed=seed)
    policy = make_policy("uno", "heuristic", seed=seed + 1)
    rollout = make_policy("uno", "heuristic", seed=seed + 2)
    seat = np.arange(batch) % players
    rng = np.random.default_rng(seed)
    obs, mask = eng.reset()
    out: dict[str, list[np.ndarray]] = {"obs": [], "mask": [], "value": []}
    taken, start = 0, time.perf_counter()
    while taken < decisions:
        for _ in range(4):  # decisions a few moves apart
            actions = policy(obs, mask)
            if base is not None:
                mine = (eng.current_player == seat).nonzero()[0]
                actions[mine] = base(obs[mine], mask[mine])
            obs, mask, _, _ = eng.step(actions)
        wanted = (mask.sum(axis=1) > 1) & (rng.random(batch) < 0.5)
        if base is not None:
            wanted &= eng.current_player == seat
        games = wanted.nonzero()[0][: decisions - taken]
        if not games.size:
            continue
        row, action = mask[games].nonzero()
        value = np.full((games.size, NUM_ACTIONS), np.nan, np.float32)
        value[row, action] = finish(eng.select(games[row]), action, rollout, base)
        out["obs"].append(np.rint(obs[games]).astype(np.int16))
        out["mask"].append(mask[games])
        out["value"].append(value)
        taken += games.size
        rate = taken / (time.perf_counter() - start)
        print(f"\r{taken:,} decisions valued ({rate:,.0f}/s)", end="", flush=True)
    print()
    return {k: np.concatenate(v) for k, v in out.items()}


def finish(eng: UnoEngine, first: np.ndarray, rollout: Any, base: Any = None) -> np.ndarray:
    """The player to act's result in each game of ``eng`` after ``first``, then ``rollout`` on
    every seat to the end (``base``, if given, on the player's own; the copies keep the deal's
    random streams)."""
    eng.auto_reset = False  # a finished game waits in phase over
    observer = eng.current_player.copy()
    result = np.zeros(eng.num_games)
    live = np.arange(eng.num_games)
    actions = first.astype(np.int64)
    while True:
        obs, mask, rewards, done = eng.step(actions)
        ended = done.nonzero()[0]
        result[live[ended]] = rewards[ended, observer[live[ended]]]
        playing = eng.phase != eng.over_phase
        if not playing.any():
            return result
        if playing.mean() < 0.5:  # shrink to the games still going
            keep = playing.nonzero()[0]
            eng, live, obs, mask, playing = eng.select(keep), live[keep], obs[keep], mask[keep], playing[keep]
        actions = np.zeros(live.size, np.int64)
        going = playing.nonzero()[0]
        actions[going] = rollout(obs[going], mask[going])
        if base is not None:
            mine = going[eng.current_player[going] == observer[live[going]]]
            if mine.size:
                actions[mine] = base(obs[mine], mask[mine])


def centred(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Each legal action's value less the mean over the legal actions (0 where illegal)."""
    legal = mask.float()
    mean = (values * legal).sum(1, keepdim=True) / legal.sum(1, keepdim=True)
    return (values - mean) * legal


def fit(data: dict[str, np.ndarray], train: np.ndarray, epochs: int, seed: int) -> ActorCritic:
    """The network's policy head regressed on the centred action values."""
    torch.manual_seed(seed)
    net = ActorCritic.for_game("uno", {}, (256, 256))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    value = np.nan_to_num(data["value"])
    steps = max(1, len(train) // 2048)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1 - s / (epochs * steps))
    for epoch in range(epochs):
        order = np.random.default_rng(seed + epoch).permutation(train)
        for i in range(steps):
            idx = order[i * 2048 : (i + 1) * 2048]
            mask = torch.as_tensor(data["mask"][idx])
            pred = head_values(net, torch.as_tensor(data["obs"][idx].astype(np.float32)))
            err = centred(pred, mask) - centred(torch.as_tensor(value[idx]), mask)
            loss = (err**2).sum() / mask.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"epoch {epoch + 1}/{epochs}: loss {loss.item():.4f}", flush=True)
    return net


def head_values(net: ActorCritic, obs: torch.Tensor) -> torch.Tensor:
    """The policy head's outputs, read as action values ``[B, A]``, in the real colours (a
    network with colour symmetry relabels them back, as its logits are)."""
    every = torch.ones(obs.shape[0], net.policy_head.out_features, dtype=torch.bool)
    return net.heads(net.features(obs), every, obs)[0]


def predicted(net: ActorCritic, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        out = head_values(net, torch.as_tensor(np.asarray(obs, np.float32))).numpy()
    return np.where(mask, out, -np.inf)


def held_out(net: ActorCritic, data: dict[str, np.ndarray], rows: np.ndarray, base: Any) -> dict[str, float]:
    """The network's choice against the base policy's on decisions it never saw: the difference
    of their values in the true deal, paired, in win-reward units (+1 / -1/(n-1))."""
    obs, mask, value = data["obs"][rows].astype(np.float32), data["mask"][rows], data["value"][rows]
    mine = predicted(net, obs, mask).argmax(axis=1)
    theirs = base(obs, mask)
    ar = np.arange(rows.size)
    diff = value[ar, mine] - value[ar, theirs]
    half = 1.96 * float(diff.std(ddof=1)) / np.sqrt(rows.size)
    return {
        "decisions": int(rows.size),
        "disagree": float((mine != theirs).mean()),
        "gain": float(diff.mean()),
        "gain_low": float(diff.mean()) - half,
        "gain_high": float(diff.mean()) + half,
    }


class Margin:
    """The base policy, taking the network's choice where it predicts ``margin`` more."""

    def __init__(self, net: ActorCritic, margin: float, base: Any) -> None:
        self.net, self.margin, self.base = net, margin, base

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        base = self.base(obs, mask)
        scores = predicted(self.net, obs, mask)
        best = scores.argmax(axis=1)
        ar = np.arange(base.size)
        return np.where(scores[ar, best] - scores[ar, base] > self.margin, best, base)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int_in(2, 10), default=4)
    parser.add_argument("--decisions", type=int_in(100), default=2_000_000, help="decisions valued")
    parser.add_argument("--epochs", type=int_in(1, 100), default=2)
    parser.add_argument("--games", type=int_in(1), default=20_000, help="games at the table per entrant")
    parser.add_argument("--margins", type=float, nargs="+", default=[0.03, 0.1])
    parser.add_argument("--seed", type=seed_arg, default=3)
    parser.add_argument(
        "--base", choices=BASES, default="heuristic", help="the policy improved: heuristic, or the shipped agent"
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2,000 decisions, 400 games")
    parser.add_argument("--out", type=Path, help="default: bench/results/rollout_values[_agent].json")
    parser.add_argument("--checkpoint", type=Path, help="also save the fitted network (an agent checkpoint)")
    parser.add_argument("--report", action="store_true", help="only write the report, from the figures kept")
    args = parser.parse_args(argv)
    if args.report:
        return write_report(REPORT, DATA)
    out = results_out(parser, args.out, args.quick, RESULTS[args.base].name)
    keeps = out is not None and out.resolve() == RESULTS[args.base]  # the kept figures: the report follows
    if keeps:
        check_study_outputs(parser, REPORT, DATA)
    if args.quick:
        args.decisions, args.games = 2_000, 400
    torch.set_num_threads(1)
    start = time.perf_counter()

    def base() -> Any:  # the policy improved, as each use had it (heuristic: a fresh seeded one)
        if args.base == "heuristic":
            return make_policy("uno", "heuristic", seed=args.seed)
        return make_policy("uno", {"name": "agent", "checkpoint": str(shipped_agent("uno", args.players))})

    data = action_values(args.players, args.decisions, 2048, args.seed, None if args.base == "heuristic" else base())
    order = np.random.default_rng(args.seed).permutation(len(data["obs"]))
    test, train = order[: len(order) // 20], order[len(order) // 20 :]
    net = fit(data, train, args.epochs, args.seed)
    result: dict[str, Any] = {
        "command": "python bench/rollout_values.py" + command_options(parser, args),
        "base": args.base,
        "players": args.players,
        "decisions": int(len(data["obs"])),
        "held_out": held_out(net, data, test, base()),
        "table": [],
    }
    first = "heuristic" if args.base == "heuristic" else base()
    entrants = [(args.base, first), ("network alone", LearnedNet(net))]
    entrants += [(f"{args.base}, network where it predicts {m:+g}", Margin(net, m, base())) for m in args.margins]
    for label, entrant in entrants:
        row = {"entrant": label, **play(args.players, entrant, args.games, args.seed + 7)}
        result["table"].append(row)
        print(f"{label}: {row['win_rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]", flush=True)
    result["minutes"] = (time.perf_counter() - start) / 60
    if out is not None:
        write_atomically(out, json.dumps(result, indent=1) + "\n")
    if args.checkpoint:
        payload = {"game": "uno", "num_players": args.players, "rules": {}, "obs_dim": net.obs_dim}
        payload |= {"num_actions": net.num_actions, "obs_names": list(OBS_NAMES), "action_names": list(ACTION_NAMES)}
        payload |= {"hidden": net.hidden, "model": {k: v.detach().clone() for k, v in net.state_dict().items()}}
        save_checkpoint(args.checkpoint, payload)
    gain = result["held_out"]
    print(
        f"held out ({gain['decisions']:,} decisions): the network's choice differs from {args.base}'s in "
        f"{gain['disagree']:.0%}, worth {gain['gain']:+.4f} [{gain['gain_low']:+.4f}, {gain['gain_high']:+.4f}]"
    )
    if keeps:  # the kept figures changed: so does the report
        write_report(REPORT, DATA)
    return 0


def write_report(report: Path, folder: Path) -> int:
    """``docs/rollout_values.md``: each base's table and held-out gain, a plot and the rows,
    from the figures kept in ``bench/results`` (a base not measured yet is left out)."""
    kept = {base: json.loads(path.read_text()) for base, path in RESULTS.items() if path.is_file()}
    if not kept:
        print(f"no figures to report: run python bench/rollout_values.py first ({RESULTS['heuristic']})")
        return 1
    rows = [{"base": base, **row} for base, result in kept.items() for row in result["table"]]
    fair = 1 / next(iter(kept.values()))["players"]
    lines = [
        "# One step of policy improvement, from rollouts in the true deal",
        "",
        "Generated by `python bench/rollout_values.py --report` from the figures each run keeps in "
        "`bench/results/` (the commands below); how it measures: the docstring of "
        "[`bench/rollout_values.py`](../bench/rollout_values.py); what it says: [agents.md](agents.md).",
        "",
    ]
    for base, result in kept.items():
        gain = result["held_out"]
        # a win is worth 1 + 1/(n-1) reward units more than a loss: a point of win rate, n/(n-1) hundredths
        n = result["players"]
        points = [100 * gain[k] * (n - 1) / n for k in ("gain", "gain_low", "gain_high")]
        lines += [
            f"## Improving `{base}` ({result['players']} players)",
            "",
            f"`{result['command']}`: {result['decisions']:,} decisions valued, {result['minutes']:.0f} minutes.",
            "",
            f"On {gain['decisions']:,} held-out decisions the network's choice differs from `{base}`'s in "
            f"{gain['disagree']:.0%} of them, worth {gain['gain']:+.4f} [{gain['gain_low']:+.4f}, "
            f"{gain['gain_high']:+.4f}] in reward units: {points[0]:+.1f} [{points[1]:+.1f}, {points[2]:+.1f}] "
            "points of win rate per decision.",
            "",
            f"| at a table of {result['players'] - 1} `heuristic` players | win rate [95% CI] | games |",
            "|---|---|---:|",
        ]
        lines += [
            f"| {r['entrant']} | {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {r['games']:,} |"
            for r in result["table"]
        ]
        lines.append("")
    lines += ["![win rates](rollout_values/rollout_values.png)", ""]
    plot_win_rates(
        rows,
        [f"improving {r['base']}: {r['entrant']}" for r in rows],
        folder / "rollout_values.png",
        f"win rate among heuristic players, 95% interval (dashed: fair share {fair:.2f})",
        [fair],
        width=10,
    )
    publish_study(
        report,
        "\n".join(lines),
        folder,
        "rollout_values",
        rows,
        ["base", "entrant", "games", "win_rate", "ci_low", "ci_high"],
    )
    return 0


def command_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """The options of this run that differ from the defaults, as typed (the JSON's command)."""
    if args.quick:
        return " --quick" + (f" --base {args.base}" if args.base != "heuristic" else "")
    shown = ""
    for name in ("base", "players", "decisions", "epochs", "games", "margins", "seed"):
        value = getattr(args, name)
        if value != parser.get_default(name):
            shown += f" --{name} " + (" ".join(map(str, value)) if isinstance(value, list) else str(value))
    return shown


class LearnedNet:
    """The network alone: the legal action it values most."""

    def __init__(self, net: ActorCritic) -> None:
        self.net = net

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return predicted(self.net, obs, mask).argmax(axis=1)


if __name__ == "__main__":
    sys.exit(main())
