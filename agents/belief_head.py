"""An auxiliary task for the actor: predict the other hands from the view (training only).

A good card player keeps a picture of what the others hold, built from what they played,
drew and passed. PPO's reward alone teaches that picture slowly: a win or a loss says
nothing about which card an opponent kept. With ``belief_coef > 0`` the actor-critic's last
hidden layer also feeds :class:`BeliefHead`, a linear map trained by squared error to the
true counts of every other hand (``BatchedEngine.hidden_hands``, scaled as the oracle
critic's), weighted by ``belief_coef`` in the PPO loss. The gradient shapes the shared
trunk towards features that carry the hands; the policy head reads the same features.

The head lives in the trainer and its checkpoint only: an exported agent is the plain
network, which plays from its view (``docs/ablations.md`` measures whether the task helps).
"""

from __future__ import annotations

import torch
from torch import nn

from agents.oracle_critic import HAND_SCALE


class BeliefHead(nn.Module):
    """The other hands, as scaled counts per card type, from the actor's last hidden layer."""

    def __init__(self, width: int, hands_size: int) -> None:
        super().__init__()
        self.hands = nn.Linear(width, hands_size)

    def loss(self, features: torch.Tensor, hands: torch.Tensor) -> torch.Tensor:
        """Mean squared error of the predicted hands from ``features [B, width]`` against the
        true ``hands [B, K]`` (counts)."""
        return ((self.hands(features) - hands * HAND_SCALE) ** 2).mean()
