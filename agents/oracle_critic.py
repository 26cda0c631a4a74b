"""An asymmetric critic: a value network that, during training only, also sees the hidden hands.

In a card game most of the variance of a game's result comes from cards nobody at the
table can see. A critic that sees only the player's view must average over them, so the
advantages PPO learns from carry all that luck as noise. ``critic: oracle`` fits the
baseline with the other seats' hands as well (``BatchedEngine.hidden_hands``; the
"perfect-information critic" of asymmetric actor-critic methods, e.g. PerfectDou and
Suphx's oracle): the advantage of a decision then measures it against what the cards
really held, not against an average deal.

The policy never sees these inputs: the critic lives in the trainer and its checkpoint,
not in the exported agent, which keeps its own value head (trained on the same returns,
so the search can still use it as a value network). A policy plays from its view only.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from agents.network import layer_init, network_inputs

#: Hand counts are scaled by this (no card type has more copies in a hand of either game).
HAND_SCALE = 1.0 / 4.0


class OracleCritic(nn.Module):
    """An MLP over the player's view (scaled as the actor's) and every hidden hand: a value."""

    def __init__(self, actor: nn.Module, hands_size: int, hidden: Sequence[int]) -> None:
        """``actor``: the policy's network, whose input scaling (and fine counts) it copies."""
        super().__init__()
        for name in ("obs_scale", "fine_cols", "fine_cap"):
            if hasattr(actor, name):
                self.register_buffer(name, getattr(actor, name).detach().clone())
        layers: list[nn.Module] = []
        width = actor.trunk[0].in_features + hands_size
        for size in hidden:
            layers += [layer_init(nn.Linear(width, size)), nn.ReLU()]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.value_head = layer_init(nn.Linear(width, 1), std=1.0)

    def forward(self, obs: torch.Tensor, hands: torch.Tensor) -> torch.Tensor:
        """Values ``[B]`` of views ``obs [B, obs]`` given the other hands ``hands [B, K]``."""
        x = torch.cat([network_inputs(self, obs), hands * HAND_SCALE], dim=-1)
        return self.value_head(self.trunk(x)).squeeze(-1)
