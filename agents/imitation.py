"""Warm start by imitation: before PPO, the network learns to choose a teacher's actions.

The teacher (a scripted policy, ``imitation_teacher``) plays every seat of the learner's
games; the network is fitted to its actions (cross-entropy over the legal ones) and to the
returns of its games (so the critic starts sensible too).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from agents.network import masked_log_probs
from agents.rollout import minibatches


def imitation_epochs(
    net: nn.Module,
    optimizer: torch.optim.Optimizer,
    b: dict[str, torch.Tensor],
    cfg: Any,
    rng: np.random.Generator,
    critic: nn.Module | None = None,
) -> dict[str, float]:
    """``imitation_epochs`` passes over the teacher's samples ``b`` (``agents.rollout.learning_samples``);
    an oracle ``critic`` learns the returns too."""
    hits, losses = [], []
    for _epoch in range(cfg.imitation_epochs):
        for idx in minibatches(b["obs"].shape[0], cfg.num_minibatches, rng, b["obs"].device):
            logits, value = net(b["obs"][idx], b["mask"][idx])
            logp_all, _ = masked_log_probs(logits, b["mask"][idx])
            ce = -logp_all.gather(1, b["action"][idx, None]).mean()
            loss = ce + cfg.vf_coef * 0.5 * ((value - b["ret"][idx]) ** 2).mean()
            if critic is not None:
                oracle = critic(b["obs"][idx], b["hidden"][idx])
                loss = loss + cfg.vf_coef * 0.5 * ((oracle - b["ret"][idx]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            params = [*net.parameters(), *(critic.parameters() if critic is not None else [])]
            nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
            optimizer.step()
            hits.append((logits.argmax(1) == b["action"][idx]).float().mean().item())
            losses.append(ce.item())
    return {"imitation/cross_entropy": float(np.mean(losses)), "imitation/accuracy": float(np.mean(hits))}
