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
    def for_game(cls, game: str, rules: dict, hidden: Sequence[int], drop_obs: Sequence[str] = ()) -> ActorCritic:
        """A new network for this game's observation and actions, inputs scaled by the
        observation's bounds under these rules. The fields named in ``drop_obs`` are scaled by
        0: the network never sees them, their first-layer weights get no gradient, and the
        saved scale keeps them hidden wherever the agent plays (an ablation of a feature)."""
        from envs.games import game_module

        module = game_module(game)
        _, high = module.observation_bounds(module.Rules.from_dict(rules))
        net = cls(module.OBS_SIZE, module.NUM_ACTIONS, hidden, high)
        net.obs_scale[dropped_columns(module.OBS_NAMES, drop_obs)] = 0.0
        return net

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits ``[B, A]`` and values ``[B]``."""
        h = self.trunk(obs * self.obs_scale)
        logits = self.policy_head(h).masked_fill(~mask, MASKED_LOGIT)
        return logits, self.value_head(h).squeeze(-1)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value_head(self.trunk(obs * self.obs_scale)).squeeze(-1)


def obs_fields(obs_names: Sequence[str]) -> list[str]:
    """The observation's field names, in order (``hand`` of ``hand[0]``, ``hand[1]``, ...)."""
    return list(dict.fromkeys(name.split("[", 1)[0] for name in obs_names))


def dropped_columns(obs_names: Sequence[str], drop: Sequence[str]) -> np.ndarray:
    """Indices of the observation values of the fields in ``drop`` (a name outside the layout
    is refused with the fields there are)."""
    fields = obs_fields(obs_names)
    unknown = [name for name in drop if name not in fields]
    if unknown:
        raise ValueError(f"drop_obs: no observation field {', '.join(map(repr, unknown))}; fields: {', '.join(fields)}")
    return np.array([i for i, name in enumerate(obs_names) if name.split("[", 1)[0] in set(drop)], np.int64)


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities ``[B, A]`` (illegal ones set to 0, they are never used) and the
    entropy ``[B]`` of the legal actions."""
    logp = torch.log_softmax(logits, dim=-1)
    p = logp.exp()
    entropy = -(p * logp).masked_fill(~mask, 0.0).sum(-1)
    return logp.masked_fill(~mask, 0.0), entropy
