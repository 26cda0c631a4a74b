"""Oracle guiding: early in training the actor also sees the hidden hands, then less and less.

A fair player of a card game must learn two things at once: what to do when it knows the
cards, and what the cards probably are. Oracle guiding (Suphx, Li et al. 2020) separates
them in time: while the *keep probability* is high, most decisions are taken with every
other hand in view, and the policy learns to play well with perfect information; as the
probability falls to 0 (linearly over the first ``oracle_guide`` share of the run), those
inputs are dropped from more and more decisions, and the policy learns to play the same
spots from its view alone. After that the run is ordinary PPO.

The hidden hands enter as one more linear term in the first layer of the actor-critic
(:class:`OracleGuide`, zero at the start: the warm start's policy is unchanged), added for
the decisions whose ``keep`` draw came up. It lives in the trainer and its checkpoint only:
an exported agent is the plain network, which never saw a hidden input, and plays from its
view (``docs/ablations.md`` measures whether the guiding helps). One approximation: the value
that bootstraps a rollout's unfinished games comes from the network without the guide's term
(the collector's ``values_of_every_seat``), while guided decisions' values have it; the two
differ only while the keep probability is above 0.
"""

from __future__ import annotations

import torch
from torch import nn

from agents.oracle_critic import HAND_SCALE


class OracleGuide(nn.Module):
    """The hidden hands' extra input to the actor's first layer (no bias; zero at the start)."""

    def __init__(self, hands_size: int, width: int) -> None:
        super().__init__()
        self.hands = nn.Linear(hands_size, width, bias=False)
        nn.init.zeros_(self.hands.weight)

    def forward(self, hands: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        """``[B, width]``: the first-layer term of ``hands [B, K]`` where ``keep [B]`` is 1, else 0."""
        return self.hands(hands * HAND_SCALE) * keep[:, None]


def keep_probability(oracle_guide: float, global_step: int, total_steps: int) -> float:
    """The share of decisions that see the hidden hands: 1 at the start, 0 once
    ``oracle_guide x total_steps`` decisions are played (0 throughout without guiding)."""
    if oracle_guide <= 0.0:
        return 0.0
    return max(0.0, 1.0 - global_step / (oracle_guide * total_steps))
