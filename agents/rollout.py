"""A rollout of many games at once, and the advantages of every learning seat in it.

A :class:`Rollout` is what :class:`agents.collector.Collector` records over ``num_steps``
steps of ``num_games`` games (time first, then games). Several seats learn in one game
(self-play, or the two partners of a team), so a rollout is not one chain of decisions per
game but one per (game, seat): :func:`multi_seat_gae` runs GAE backwards along each of
those chains. Everything here is a pure function of arrays: no network, no engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

#: The fields laid out ``[T, B, ...]`` (joined along the games axis B).
TIME_MAJOR = ("obs", "hidden", "keep", "mask", "action", "logp", "value", "learning", "seat", "reward", "done")
#: The finished episodes' lists (pool games only: the learner's return, length and win).
EPISODE_KEYS = ("return", "length", "win")


@dataclasses.dataclass
class Rollout:
    """Every decision of ``num_steps`` steps in ``num_games`` games, learning seats or not."""

    obs: np.ndarray  # float32 [T, B, obs]: the view of the player to act
    hidden: np.ndarray  # float32 [T, B, K]: the other seats' hands, for an oracle critic or guide (K = 0 without)
    keep: np.ndarray  # float32 [T, B]: 1 where the actor saw the hidden hands (oracle guiding), else 0
    mask: np.ndarray  # bool [T, B, A]: its legal actions
    action: np.ndarray  # int64 [T, B]: the action taken
    logp: np.ndarray  # float32 [T, B]: its log-probability under the network (learning seats)
    value: np.ndarray  # float32 [T, B]: the network's value of the view (learning seats)
    learning: np.ndarray  # bool [T, B]: the player to act is a learning seat
    seat: np.ndarray  # int64 [T, B]: the player to act
    reward: np.ndarray  # float32 [T, B, P]: every seat's reward from this step
    done: np.ndarray  # bool [T, B]: the game ended at this step (and was dealt again)
    last_value: np.ndarray = dataclasses.field(default=None)  # float32 [B, P]: each seat's value after the last step
    episodes: dict[str, list] = dataclasses.field(default_factory=lambda: {k: [] for k in EPISODE_KEYS})

    @classmethod
    def empty(
        cls, steps: int, games: int, players: int, obs_size: int, num_actions: int, hidden_size: int = 0
    ) -> Rollout:
        T, B = steps, games
        return cls(
            obs=np.zeros((T, B, obs_size), np.float32),
            hidden=np.zeros((T, B, hidden_size), np.float32),
            keep=np.zeros((T, B), np.float32),
            mask=np.zeros((T, B, num_actions), bool),
            action=np.zeros((T, B), np.int64),
            logp=np.zeros((T, B), np.float32),
            value=np.zeros((T, B), np.float32),
            learning=np.zeros((T, B), bool),
            seat=np.zeros((T, B), np.int64),
            reward=np.zeros((T, B, players), np.float32),
            done=np.zeros((T, B), bool),
        )

    @classmethod
    def join(cls, parts: list[Rollout]) -> Rollout:
        """Rollouts of different games side by side (e.g. one per Ray actor), episodes in order."""
        joined = {k: np.concatenate([getattr(p, k) for p in parts], axis=1) for k in TIME_MAJOR}
        return cls(
            **joined,
            last_value=np.concatenate([p.last_value for p in parts], axis=0),
            episodes={k: [x for p in parts for x in p.episodes[k]] for k in EPISODE_KEYS},
        )

    @property
    def decisions(self) -> int:
        return int(self.action.size)


def multi_seat_gae(ro: Rollout, gamma: float, gae_lambda: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE along each (game, seat) chain of decisions: ``(advantages, returns)``, ``[T, B]``.

    A seat's reward for a decision is everything it received from that decision until its
    next one, whoever moved in between (end-of-game rewards arrive on another player's
    turn). A game's end cuts every chain of that game; a chain still open after the last
    step is bootstrapped with ``last_value`` (that seat's value of its view then).
    """
    T, B = ro.action.shape
    next_value = ro.last_value.astype(np.float64)  # [B, P]: value at the seat's next decision
    next_adv = np.zeros_like(next_value)
    pending = np.zeros_like(next_value)  # rewards from step t until the seat's next decision
    adv = np.zeros((T, B), np.float64)
    for t in reversed(range(T)):
        done = ro.done[t]
        next_value[done] = 0.0  # the game ended at this step: nothing follows it
        next_adv[done] = 0.0
        pending[done] = 0.0
        pending += ro.reward[t]
        rows = ro.learning[t].nonzero()[0]
        seat = ro.seat[t, rows]
        value = ro.value[t, rows]
        delta = pending[rows, seat] + gamma * next_value[rows, seat] - value
        a = delta + gamma * gae_lambda * next_adv[rows, seat]
        adv[t, rows] = a
        next_value[rows, seat], next_adv[rows, seat], pending[rows, seat] = value, a, 0.0
    returns = adv + ro.value
    return adv.astype(np.float32), returns.astype(np.float32)


def learning_samples(
    ro: Rollout, adv: np.ndarray, ret: np.ndarray, device: torch.device | str = "cpu"
) -> dict[str, torch.Tensor]:
    """The learning seats' decisions of a rollout as flat tensors on the device:
    ``obs``, ``hidden``, ``keep``, ``mask``, ``action``, ``logp``, ``value``, ``adv``, ``ret``."""
    pick = ro.learning
    arrays: dict[str, Any] = {k: getattr(ro, k) for k in ("obs", "hidden", "keep", "mask", "action", "logp", "value")}
    arrays |= {"adv": adv, "ret": ret}
    return {k: torch.as_tensor(a[pick], device=device) for k, a in arrays.items()}


def minibatches(
    n: int, num_minibatches: int, rng: np.random.Generator, device: torch.device | str = "cpu"
) -> Iterator[torch.Tensor]:
    """Shuffled index tensors of ``num_minibatches`` equal minibatches of ``n`` samples (the
    remainder waits for the next epoch's shuffle); ``n`` of one sample each when there are
    fewer samples than minibatches, none when there are none."""
    size = max(1, n // num_minibatches)
    order = torch.as_tensor(rng.permutation(n), device=device)
    for lo in range(0, min(num_minibatches, n // size) * size, size):
        yield order[lo : lo + size]
