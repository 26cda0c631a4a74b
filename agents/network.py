"""The actor-critic network: an MLP over the documented observation, with action masking.

Inputs are the observation scaled to [0, 1] by its documented bounds. A count bounded by
the deck (a hand of 108 cards) then moves by under 0.01 per card, so "the next player
holds one card" is a tiny input the network must learn to magnify. ``fine_counts`` = k
gives every value whose bound exceeds k a second input, ``min(x, k) / k``: one card is
1/k (:func:`fine_columns` says which values; the observation itself is unchanged).

``symmetry`` (classic UNO's colours, :mod:`envs.uno.colours`): the network sees every view
with its colours relabelled into a canonical order, and its logits are relabelled back, so a
situation and its colour-swapped twins share one set of weights' worth of experience.

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
    """A shared MLP trunk, a policy head over the fixed action space and a value head.

    ``obs_high``: the observation's upper bounds (inputs are divided by them); ``fine_cols``
    and ``fine_cap``: the values that also enter as ``min(x, fine_cap) / fine_cap``
    (:func:`fine_columns`; none by default).
    """

    def __init__(
        self,
        obs_dim: int,
        num_actions: int,
        hidden: Sequence[int] = (256, 256),
        obs_high: np.ndarray | None = None,
        fine_cols: Sequence[int] = (),
        fine_cap: float = 0.0,
        symmetry: dict[str, np.ndarray | torch.Tensor] | None = None,
    ) -> None:
        super().__init__()
        # Inputs scaled to [0, 1] by the observation's documented bounds (pile sizes reach
        # 108, points 360: unscaled, they would swamp the other features). Saved with the weights.
        high = np.ones(obs_dim, np.float32) if obs_high is None else np.maximum(np.asarray(obs_high, np.float32), 1.0)
        self.register_buffer("obs_scale", torch.as_tensor(1.0 / high))
        if len(fine_cols):  # buffers only where used: checkpoints without them load as before
            self.register_buffer("fine_cols", torch.as_tensor(np.asarray(fine_cols, np.int64)))
            self.register_buffer("fine_cap", torch.tensor(float(fine_cap)))
        if symmetry is not None:  # buffers only where used, saved with the weights
            for key in SYMMETRY_KEYS:
                self.register_buffer(f"sym_{key}", torch.as_tensor(np.asarray(symmetry[key])).clone())
        layers: list[nn.Module] = []
        width = obs_dim + len(fine_cols)
        for size in hidden:
            layers += [layer_init(nn.Linear(width, size)), nn.ReLU()]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.policy_head = layer_init(nn.Linear(width, num_actions), std=0.01)
        self.value_head = layer_init(nn.Linear(width, 1), std=1.0)
        self.obs_dim, self.num_actions, self.hidden = obs_dim, num_actions, list(hidden)

    @classmethod
    def for_game(
        cls,
        game: str,
        rules: dict,
        hidden: Sequence[int],
        drop_obs: Sequence[str] = (),
        fine_counts: int = 0,
        colour_symmetry: bool = False,
    ) -> ActorCritic:
        """A new network for this game's observation and actions, inputs scaled by the
        observation's bounds under these rules. The fields named in ``drop_obs`` are scaled by
        0: the network never sees them, their first-layer weights get no gradient, and the
        saved scale keeps them hidden wherever the agent plays (an ablation of a feature).
        ``fine_counts``: see the module docs (0: none). ``colour_symmetry``: views in canonical
        colours (classic UNO only: the trick game's views carry no colour)."""
        from envs.games import game_module

        module = game_module(game)
        _, high = module.observation_bounds(module.Rules.from_dict(rules))
        dropped = dropped_columns(module.OBS_NAMES, drop_obs)
        fine = fine_columns(high, fine_counts, dropped)
        symmetry = None
        if colour_symmetry:
            if game != "uno":
                raise ValueError(f"colour_symmetry is for classic UNO (game: uno); the {game} game has no colours")
            from envs.uno.colours import symmetry_tables

            symmetry = symmetry_tables()
            symmetry["weights"][dropped] = 0.0  # a hidden field must not order the colours either
        net = cls(module.OBS_SIZE, module.NUM_ACTIONS, hidden, high, fine, fine_counts, symmetry)
        net.obs_scale[dropped] = 0.0
        return net

    def relabelling(self, obs: torch.Tensor) -> torch.Tensor | None:
        """The index of the relabelling that puts each view's colours in canonical order
        ``[B]`` (:func:`envs.uno.colours.canonical_order`), or None without ``symmetry``."""
        if not hasattr(self, "sym_weights"):
            return None
        order = torch.argsort(-(obs @ self.sym_weights), dim=-1, stable=True)
        return self.sym_permutation_of_order[(order * self.sym_order_code).sum(-1)]

    def inputs(self, obs: torch.Tensor, perm: torch.Tensor | None = None) -> torch.Tensor:
        """What the first layer sees: the scaled observation (in canonical colours, with
        ``symmetry``; ``perm``: their :meth:`relabelling`, if already known), then the fine
        counts (if any)."""
        perm = self.relabelling(obs) if perm is None else perm
        if perm is not None:
            obs = obs.gather(-1, self.sym_obs_sources[perm])
        return network_inputs(self, obs)

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor, first_extra: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits ``[B, A]`` and values ``[B]``. ``first_extra``: a term added to the
        first layer before its activation (oracle guiding in training, :mod:`agents.oracle_guide`)."""
        perm = self.relabelling(obs)  # once for both ends
        return self.heads(self.features(obs, first_extra, perm), mask, obs, perm)

    def features(
        self, obs: torch.Tensor, first_extra: torch.Tensor | None = None, perm: torch.Tensor | None = None
    ) -> torch.Tensor:
        """The last hidden layer ``[B, hidden[-1]]``, what both heads (and, in training, an
        auxiliary head: :mod:`agents.belief_head`) read (``perm``: as :meth:`inputs`)."""
        if first_extra is None:
            return self.trunk(self.inputs(obs, perm))
        return self.trunk[1:](self.trunk[0](self.inputs(obs, perm)) + first_extra)

    def heads(
        self, h: torch.Tensor, mask: torch.Tensor, obs: torch.Tensor | None = None, perm: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits ``[B, A]`` and values ``[B]`` of the last hidden layer ``h`` (of the
        views ``obs``, which ``symmetry`` needs: each action's logit is its relabelled twin's;
        ``perm``: their :meth:`relabelling`, if already known)."""
        logits = self.policy_head(h)
        if hasattr(self, "sym_weights"):
            if perm is None and obs is None:
                raise ValueError("a network with colour symmetry needs the views to relabel its logits back")
            perm = self.relabelling(obs) if perm is None else perm
            logits = logits.gather(-1, self.sym_action_targets[perm])
        return logits.masked_fill(~mask, MASKED_LOGIT), self.value_head(h).squeeze(-1)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value_head(self.trunk(self.inputs(obs))).squeeze(-1)


#: The tables of a network's ``symmetry`` (:func:`envs.uno.colours.symmetry_tables`), saved as
#: buffers ``sym_<key>``.
SYMMETRY_KEYS = ("weights", "order_code", "permutation_of_order", "obs_sources", "action_targets")


def fine_columns(obs_high: np.ndarray, fine_counts: int, dropped: Sequence[int] = ()) -> np.ndarray:
    """Indices of the observation values that get a fine-scale input: those whose bound
    exceeds ``fine_counts`` (none for 0), less the hidden ones (``drop_obs``)."""
    if not fine_counts:
        return np.zeros(0, np.int64)
    cols = np.flatnonzero(np.asarray(obs_high) > fine_counts)
    return np.setdiff1d(cols, np.asarray(dropped, np.int64)).astype(np.int64)


def network_inputs(module: nn.Module, obs: torch.Tensor) -> torch.Tensor:
    """The scaled observation of a module holding ``obs_scale`` (and ``fine_cols``,
    ``fine_cap`` if it has fine counts), with each fine count ``min(x, cap) / cap`` after it."""
    scaled = obs * module.obs_scale
    cols = getattr(module, "fine_cols", None)
    if cols is None:
        return scaled
    return torch.cat([scaled, obs[..., cols].clamp(max=module.fine_cap) / module.fine_cap], dim=-1)


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
