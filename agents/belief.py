"""Where the unseen cards are: a belief model of classic UNO, learned from play, for the search.

A player sees its own hand, the discard pile and every hand size. Where the other cards
lie, in which hand or in the draw pile, it can only infer from how the others played: a
player who drew cannot follow, a player who named a colour holds it. The observation keeps
the public history a good player uses (``void_colours``, ``void_draws``, ``chosen_colours``;
docs/uno.md), but the search's worlds (``envs.uno.worlds``) deal the unseen cards by hand
sizes alone among the hands and the pile, honouring only the voids. :class:`BeliefNet` reads the same
observation and gives, for every card type, the share of its unseen copies that each other
hand and the draw pile hold (``[B, players, 54]``: row 0 the pile, row ``k`` the player ``k``
seats on in the direction of play). ``sample_worlds(..., beliefs=...)`` deals by it, and the
search takes it with ``belief: shipped`` (or a checkpoint path).

It is fitted by cross-entropy to where the cards really were, at every decision of games in
which every seat plays one policy (``--policy``, the search's rollout policy ``heuristic`` by
default): like the rollouts, it is a model of how the others play. It reads only the
observation, so it gives the same beliefs whatever the hidden cards are.

    python -m agents.belief --players 4          # models/uno_4p_belief.pt (about 3 minutes here)

The measured effect on the search is in docs/information.md (``python bench/information.py``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.learned import MODELS_DIR, load_checkpoint, save_checkpoint
from agents.network import layer_init
from envs.cards import NUM_CARD_TYPES

KIND = "belief"


def shipped_belief(num_players: int) -> Path:
    """The shipped belief model of this table size."""
    return MODELS_DIR / f"uno_{num_players}p_belief.pt"


class BeliefNet(nn.Module):
    """An MLP from a classic UNO observation to the unseen cards' holders (logits, then shares)."""

    def __init__(self, num_players: int, hidden: Sequence[int] = (256, 256), extra_inputs: int = 0) -> None:
        """``extra_inputs``: more inputs after the observation (a measurement's, :class:`PublicHistory`)."""
        super().__init__()
        from envs.uno.observation import OBS_HIGH, OBS_SIZE

        self.num_players, self.hidden, self.extra_inputs = num_players, list(hidden), extra_inputs
        self.register_buffer("obs_scale", torch.as_tensor(1.0 / np.maximum(OBS_HIGH, 1.0)))
        layers: list[nn.Module] = []
        width = OBS_SIZE + extra_inputs
        for size in hidden:
            layers += [layer_init(nn.Linear(width, size)), nn.ReLU()]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.out = layer_init(nn.Linear(width, num_players * NUM_CARD_TYPES), std=0.01)

    def forward(self, obs: torch.Tensor, holders: torch.Tensor, extra: torch.Tensor | None = None) -> torch.Tensor:
        """Log-shares ``[B, players, 54]`` (softmax over the holders); ``holders bool [B, players]``:
        who holds any card (the pile and each other hand), the others get none."""
        x = obs * self.obs_scale
        if self.extra_inputs:
            x = torch.cat([x, extra], dim=1)
        logits = self.out(self.trunk(x)).view(-1, self.num_players, NUM_CARD_TYPES)
        return torch.log_softmax(logits.masked_fill(~holders[:, :, None], -1e9), dim=1)

    def shares(self, obs: np.ndarray) -> np.ndarray:
        """``float64 [B, players, 54]``: the belief of these observations (each column sums to 1)."""
        with torch.no_grad():
            logp = self(torch.as_tensor(obs, dtype=torch.float32), torch.as_tensor(holder_sizes(obs) > 0))
        return logp.exp().double().numpy()


def holder_sizes(obs: np.ndarray) -> np.ndarray:
    """``int64 [B, players]``: the unseen cards each holder has: the draw pile, then each other
    hand by relative seat."""
    from envs.uno.observation import decode

    view = decode(obs)
    n = int(view["num_players"].max())
    return np.concatenate([view["draw_pile_size"][:, None], view["hand_sizes"][:, 1:n]], axis=1).astype(np.int64)


def true_holdings(eng: Any) -> np.ndarray:
    """``float32 [B, players, 54]``: where the unseen cards of each game's player to act are:
    the draw pile (row 0) and the hand ``k`` seats on in the direction of play (row ``k``).
    What no player may know: the belief's training target only."""
    n, B = eng.num_players, eng.num_games
    out = np.zeros((B, n, NUM_CARD_TYPES), np.float32)
    out[:, 1:] = eng.hidden_hands(in_play_order=True).reshape(B, n - 1, NUM_CARD_TYPES)
    pile = eng.draw_pile
    inside = (np.arange(pile.shape[1])[None, :] >= eng.draw_top[:, None]) & (
        np.arange(pile.shape[1])[None, :] < eng.draw_end[:, None]
    )
    rows, cols = np.nonzero(inside)
    np.add.at(out[:, 0], (rows, pile[rows, cols].astype(np.int64)), 1)
    return out


def cross_entropy(logp: torch.Tensor, holdings: torch.Tensor) -> torch.Tensor:
    """Nats per unseen card: ``-sum(holdings * logp) / cards``."""
    return -(holdings * logp).sum() / holdings.sum()


def proportional(holdings: torch.Tensor) -> torch.Tensor:
    """The belief by hand sizes alone: each holder's share of every type is its share of the
    unseen cards (log-shares; a holder with no card gets none). The plain worlds deal so and
    then honour the voids, which this leaves out."""
    sizes = holdings.sum(dim=2, keepdim=True)
    return torch.log((sizes / sizes.sum(dim=1, keepdim=True)).clamp(min=1e-30)).expand_as(holdings)


class PublicHistory:
    """What every player did this hand, beyond the observation: a measurement's extra input.

    Per seat: the cards it played by colour (wilds a fifth), its draws, the times it played a
    card of another colour than the one in force, and its last two actions (one-hot). All of
    it is public, but the observation keeps only a summary of it (``void_colours``,
    ``void_draws``, ``chosen_colours``), and a policy is stateless, so no policy reads this:
    ``python bench/belief.py`` uses it to measure what a belief given the whole history would
    add. Kept for ``B`` games from the actions taken (:meth:`record` before each step,
    :meth:`clear` for the games whose hand ended)."""

    def __init__(self, games: int, num_players: int) -> None:
        from envs.cards import TYPE_COLOUR
        from envs.uno import actions

        self.num_players, self.num_actions = num_players, actions.NUM_ACTIONS
        card = actions.ACTION_CARD
        self.colour = np.where(card >= 0, np.asarray(TYPE_COLOUR)[np.maximum(card, 0)], -1)  # of a card played
        self.colour[(card >= 0) & (self.colour < 0)] = 4  # a wild
        self.draw = actions.DRAW
        self.size = 5 + 2 + 2 * self.num_actions
        self.values = np.zeros((games, num_players, self.size), np.float32)

    def record(self, seat: np.ndarray, colour_in_force: np.ndarray, chosen: np.ndarray) -> None:
        """The actions ``chosen`` by ``seat`` in every game, ``colour_in_force`` before them."""
        rows, v, A = np.arange(len(seat)), self.values, self.num_actions
        colour = self.colour[chosen]
        played = colour >= 0
        np.add.at(v, (rows[played], seat[played], colour[played]), 1.0)
        v[rows, seat, 5] += chosen == self.draw
        v[rows, seat, 6] += played & (colour < 4) & (colour != colour_in_force)
        v[rows, seat, 7 + A :] = v[rows, seat, 7 : 7 + A]
        v[rows, seat, 7 : 7 + A] = 0.0
        v[rows, seat, 7 + chosen] = 1.0

    def clear(self, games: np.ndarray) -> None:
        self.values[games] = 0.0

    def seen_by(self, eng: Any) -> np.ndarray:
        """``[B, players * size]``: every seat's history as each game's player to act counts
        seats (itself first, then in the direction of play), counts scaled by 1/8."""
        from envs.uno.kernel import seats_after

        rows, n = np.arange(eng.num_games), self.num_players
        seats = [seats_after(eng.current_player, k, eng.direction, n) for k in range(n)]
        return np.concatenate([self.values[rows, s] for s in seats], axis=1) / 8.0


def _games(num_players: int, policy: Any, games: int, seed: int, history: bool):
    """Yield ``(obs, extra, holdings)`` at every decision of ``games`` games of ``policy`` play
    (``extra``: the public history, or None), stepping them after each."""
    from agents.registry import make_policy
    from envs.uno import UnoEngine, UnoRules

    players = make_policy("uno", policy, seed=seed)
    eng = UnoEngine(games, num_players, UnoRules(), seed=seed)
    obs, mask = eng.reset()
    past = PublicHistory(games, num_players) if history else None
    while True:
        extra = torch.as_tensor(past.seen_by(eng)) if past is not None else None
        yield torch.as_tensor(obs), extra, torch.as_tensor(true_holdings(eng))
        seat, colour = eng.current_player.copy(), eng.colour.copy()
        chosen = players(obs, mask)
        if past is not None:
            past.record(seat, colour, chosen)
        obs, mask, _, done = eng.step(chosen)
        if past is not None:
            past.clear(done.nonzero()[0])


def train_belief(
    num_players: int,
    decisions: int = 6_000_000,
    games: int = 2048,
    policy: Any = "heuristic",
    hidden: Sequence[int] = (256, 256),
    learning_rate: float = 1e-3,
    seed: int = 1,
    progress: bool = True,
    history: bool = False,
) -> tuple[BeliefNet, dict[str, float]]:
    """Fit a belief on ``decisions`` decisions of ``games`` games played by ``policy`` on every
    seat (one gradient step per engine step, on every game's player to act; the learning rate
    falls linearly to 0); then measure it and the belief by hand sizes alone on fresh games
    (:func:`measure_belief`). ``history``: the belief also reads :class:`PublicHistory` (a
    measurement; no policy can). Returns the net and the held-out nats per unseen card
    (``cross_entropy``, and ``proportional`` for the belief by hand sizes alone)."""
    torch.manual_seed(seed)
    extra = PublicHistory(1, num_players).size * num_players if history else 0
    net = BeliefNet(num_players, hidden, extra)
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)
    steps = max(1, decisions // games)
    start = time.perf_counter()
    for step, (obs, past, holdings) in enumerate(islice(_games(num_players, policy, games, seed, history), steps)):
        optimizer.param_groups[0]["lr"] = learning_rate * (1.0 - step / steps)
        loss = cross_entropy(net(obs, holdings.sum(dim=2) > 0, past), holdings)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if progress and (step + 1) % max(1, steps // 20) == 0:
            print(
                f"  {(step + 1) * games:>11,} decisions  loss {loss.item():.4f}  {time.perf_counter() - start:.0f} s",
                flush=True,
            )
    measured = measure_belief(net, num_players, policy, games, seed + 1, history=history)
    return net, {k: float(measured[k]) for k in ("cross_entropy", "proportional")}


def measure_belief(
    net: BeliefNet, num_players: int, policy: Any, games: int, seed: int, steps: int = 200, history: bool = False
) -> dict[str, Any]:
    """Nats per unseen card of ``net`` and of the belief by hand sizes alone over ``steps`` decisions of
    ``games`` fresh games (every game's player to act): ``cross_entropy``, ``proportional``,
    and ``per_game float64 [games, 3]`` (each game's nats by the net, by hand sizes alone, and
    its unseen cards, summed over its decisions: the games are independent, which is what
    intervals need)."""
    per_game = np.zeros((games, 3))
    with torch.no_grad():
        for obs, past, holdings in islice(_games(num_players, policy, games, seed, history), steps):
            logp = net(obs, holdings.sum(dim=2) > 0, past)
            per_game[:, 0] -= (holdings * logp).sum(dim=(1, 2)).double().numpy()
            per_game[:, 1] -= (holdings * proportional(holdings)).sum(dim=(1, 2)).double().numpy()
            per_game[:, 2] += holdings.sum(dim=(1, 2)).double().numpy()
    total = per_game.sum(axis=0)
    return {"cross_entropy": total[0] / total[2], "proportional": total[1] / total[2], "per_game": per_game}


def save_belief(path: str | Path, net: BeliefNet, info: dict[str, Any]) -> Path:
    """Write the belief atomically, as a checksummed checkpoint (``kind: belief``)."""
    from envs.uno.observation import OBS_NAMES, OBS_SIZE

    if net.extra_inputs:
        raise ValueError("a belief that reads the public history is a measurement: no policy can give it its inputs")

    return save_checkpoint(
        path,
        {
            "kind": KIND,
            "game": "uno",
            "num_players": net.num_players,
            "obs_dim": OBS_SIZE,
            "obs_names": list(OBS_NAMES),
            "num_actions": 0,
            "rules": {},  # fitted under the default rules (train_belief plays UnoRules())
            "hidden": list(net.hidden),
            "model": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
            **info,
        },
    )


def load_belief(path: str | Path, num_players: int | None = None) -> BeliefNet:
    """A saved belief (for this table size, if given); anything else is refused, saying why."""
    from envs.uno.observation import OBS_NAMES

    if not Path(path).is_file():
        raise ValueError(f"belief model {path} not found (train one: python -m agents.belief --players N --out {path})")
    data = load_checkpoint(path, "uno")
    if data.get("kind") != KIND:
        raise ValueError(f"{path} is not a belief model (train one: python -m agents.belief --players N --out {path})")
    if num_players is not None and data["num_players"] != num_players:
        raise ValueError(f"{path} is a belief for {data['num_players']} players, not {num_players}")
    if list(data.get("obs_names", [])) != list(OBS_NAMES):
        raise ValueError(f"{path} was trained on another observation layout; train it again")
    net = BeliefNet(data["num_players"], data["hidden"])
    net.load_state_dict(data["model"])
    return net.eval()


def main(argv: list[str] | None = None) -> int:
    from envs.config import int_in, seed_arg

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--decisions", type=int_in(1), default=6_000_000)
    parser.add_argument("--policy", default="heuristic", help="the policy on every seat of the training games")
    parser.add_argument("--seed", type=seed_arg, default=1)
    parser.add_argument("--out", type=Path, default=None, help="default: models/uno_<players>p_belief.pt")
    args = parser.parse_args(argv)
    from agents.registry import check_spec  # the registry imports the search, which imports this module
    from envs.atomic import check_file_writable
    from envs.uno import UnoRules

    out = args.out or shipped_belief(args.players)
    try:  # refused now, not after the training
        UnoRules().check_players(args.players)
        check_spec("uno", args.policy, players=args.players)
        check_file_writable(out, "--out")
    except ValueError as err:
        parser.error(str(err))
    torch.set_num_threads(1)
    print(f"belief for {args.players} players from {args.decisions:,} decisions of {args.policy} play -> {out}")
    start = time.perf_counter()
    net, measured = train_belief(args.players, args.decisions, policy=args.policy, seed=args.seed)
    info = {"policy": args.policy, "decisions": args.decisions, "seed": args.seed, **measured}
    save_belief(out, net, info)
    print(
        f"held-out games: {measured['cross_entropy']:.4f} nats per unseen card "
        f"(by hand sizes alone: {measured['proportional']:.4f}); {(time.perf_counter() - start) / 60:.1f} min"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
