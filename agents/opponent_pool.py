"""The opponents a learner meets outside self-play: scripted policies and frozen past copies
of its own network (the "pool"), each game drawn against one member.

A best response (``target:``) is a pool of that one policy and no snapshots. The members'
random streams are part of a training checkpoint, so a resumed run deals and plays the
same games as one that never stopped.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.learned import LearnedPolicy
from agents.registry import make_policy


class OpponentPool:
    """Scripted policies (``specs``) first, then up to ``size`` frozen network snapshots."""

    def __init__(self, game: str, specs: list[Any], rules: dict[str, Any], size: int, rng: np.random.Generator) -> None:
        seeds = rng.integers(2**63, size=len(specs))
        self.scripted = [make_policy(game, spec, int(s), rules=rules) for spec, s in zip(specs, seeds, strict=True)]
        self.snapshots: list[LearnedPolicy] = []
        self.size = size

    @property
    def members(self) -> list[Any]:
        return [*self.scripted, *self.snapshots]

    def __len__(self) -> int:
        return len(self.scripted) + len(self.snapshots)

    def add_snapshot(self, net: nn.Module, rng: np.random.Generator) -> None:
        """A frozen copy of ``net`` joins (sampling with a seed from ``rng``); the oldest beyond ``size`` goes.

        Known quirk, kept because the shipped agents were trained with it (fixing it changes
        their runs): the collector names a game's opponent by its place in :attr:`members`, so
        once the pool is full each newer snapshot moves down one place, and the games in play
        against a snapshot go on against the next newer one (those against the oldest, against
        the second oldest); the Ray actors' :meth:`set_snapshots` does the same."""
        frozen = copy.deepcopy(net).cpu()
        for p in frozen.parameters():
            p.requires_grad_(False)
        self.snapshots.append(LearnedPolicy.from_network(frozen, seed=int(rng.integers(2**63))))
        del self.snapshots[: -self.size or None]

    def set_snapshots(self, weights: list[dict[str, torch.Tensor]], net: nn.Module, rng: np.random.Generator) -> None:
        """Replace the snapshots by copies of ``net`` holding these weights (a Ray actor
        receiving the driver's pool), seeded from ``rng``."""
        self.snapshots = []
        template = copy.deepcopy(net).cpu()
        for state in weights:
            template.load_state_dict(state)
            self.add_snapshot(template, rng)

    def snapshot_weights(self) -> list[dict[str, torch.Tensor]]:
        return [{k: v.clone() for k, v in p.net.state_dict().items()} for p in self.snapshots]

    def act(self, obs: np.ndarray, mask: np.ndarray, member: np.ndarray) -> np.ndarray:
        """Actions for rows whose game is played by pool member ``member[row]`` (one batched
        call per member)."""
        actions = np.zeros(member.size, np.int64)
        members = self.members
        for k in np.unique(member):
            rows = (member == k).nonzero()[0]
            actions[rows] = members[k](obs[rows], mask[rows])
        return actions

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        return {
            "scripted_rngs": [p.rng_state() for p in self.scripted],
            "snapshots": self.snapshot_weights(),
            "snapshot_rngs": [p.rng_state() for p in self.snapshots],
        }

    def load_state_dict(self, state: dict[str, Any], net: nn.Module) -> None:
        """The pool a :meth:`state_dict` describes (snapshots as copies of ``net`` with their weights)."""
        for policy, rng_state in zip(self.scripted, state["scripted_rngs"], strict=True):
            policy.set_rng_state(rng_state)
        self.snapshots = []
        for weights, rng_state in zip(state["snapshots"], state["snapshot_rngs"], strict=True):
            frozen = copy.deepcopy(net).cpu()
            frozen.load_state_dict(weights)
            policy = LearnedPolicy.from_network(frozen)
            policy.set_rng_state(rng_state)
            self.snapshots.append(policy)
