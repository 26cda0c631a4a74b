"""The actor-critic network: an MLP over the documented observation, with action masking.

Illegal actions get a logit of ``-1e9`` (not ``-inf``: a masked row still has finite
arithmetic), so they are never sampled and carry no probability; the entropy is taken
over the legal actions only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

MASKED_LOGIT = -1e9


def layer_init(layer: nn.Linear, std: float = 2**0.5, bias: float = 0.0) -> nn.Linear:
    """Orthogonal weights, constant bias (CleanRL's initialisation)."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class ActorCritic(nn.Module):
    """A shared MLP trunk, a policy head over the fixed action space and a value head."""

    def __init__(
        self,
        obs_dim: int,
        num_actions: int,
        hidden: Sequence[int] = (256, 256),
        obs_high: np.ndarray | None = None,
    ) -> None:
        super().__init__()
        # Inputs scaled to [0, 1] by the observation's documented bounds (pile sizes reach
        # 108, points 360: unscaled, they would swamp the other features). Saved with the weights.
        high = np.ones(obs_dim, np.float32) if obs_high is None else np.maximum(np.asarray(obs_high, np.float32), 1.0)
        self.register_buffer("obs_scale", torch.as_tensor(1.0 / high))
        layers: list[nn.Module] = []
        width = obs_dim
        for size in hidden:
            layers += [layer_init(nn.Linear(width, size)), nn.ReLU()]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.policy_head = layer_init(nn.Linear(width, num_actions), std=0.01)
        self.value_head = layer_init(nn.Linear(width, 1), std=1.0)
        self.obs_dim, self.num_actions, self.hidden = obs_dim, num_actions, list(hidden)

    @classmethod
    def for_game(cls, game: str, rules: dict, hidden: Sequence[int]) -> ActorCritic:
        """A new network for this game's observation and actions, inputs scaled by the
        observation's bounds under these rules."""
        from envs.games import game_module

        module = game_module(game)
        _, high = module.observation_bounds(module.Rules.from_dict(rules))
        return cls(module.OBS_SIZE, module.NUM_ACTIONS, hidden, high)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits ``[B, A]`` and values ``[B]``."""
        h = self.trunk(obs * self.obs_scale)
        logits = self.policy_head(h).masked_fill(~mask, MASKED_LOGIT)
        return logits, self.value_head(h).squeeze(-1)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value_head(self.trunk(obs * self.obs_scale)).squeeze(-1)


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities ``[B, A]`` (illegal ones set to 0, they are never used) and the
    entropy ``[B]`` of the legal actions."""
    logp = torch.log_softmax(logits, dim=-1)
    p = logp.exp()
    entropy = -(p * logp).masked_fill(~mask, 0.0).sum(-1)
    return logp.masked_fill(~mask, 0.0), entropy
