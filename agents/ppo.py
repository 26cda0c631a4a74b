"""PPO with action masking, trained by self-play on the batched engines.

Read top to bottom: :func:`ppo_loss` is the clipped objective, :func:`ppo_epochs` the
optimisation of one rollout, and :meth:`PPOTrainer.update` one whole iteration:

1. collect ``num_steps`` decisions in each of ``num_games`` games
   (:class:`agents.collector.Collector`: self-play, or the learner against a member of the
   opponent pool, :mod:`agents.opponent_pool`);
2. compute every learning seat's advantages along its own chain of decisions
   (:func:`agents.rollout.multi_seat_gae`);
3. optimise the clipped objective over minibatches for ``update_epochs`` passes;
4. every ``snapshot_every`` updates, a frozen copy of the network joins the pool.

The hyper-parameters are one dataclass (:class:`agents.ppo_config.PPOConfig`); the warm
start by imitation is :mod:`agents.imitation`; a checkpoint that resumes bit for bit is
:mod:`agents.training_checkpoint`. A **best response** (``target: <policy spec>``) is the
same algorithm with the pool reduced to that one fixed policy (``train.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn, optim

from agents.belief_head import BeliefHead
from agents.collector import Collector
from agents.imitation import imitation_epochs
from agents.network import ActorCritic, masked_log_probs
from agents.oracle_critic import OracleCritic
from agents.oracle_guide import OracleGuide, keep_probability
from agents.ppo_config import BACKENDS, PPOConfig, resolve_device
from agents.rollout import Rollout, learning_samples, minibatches, multi_seat_gae
from agents.training_checkpoint import restore_trainer, trainer_state
from envs.games import game_module

__all__ = ["BACKENDS", "PPOConfig", "PPOTrainer", "ppo_epochs", "ppo_loss", "resolve_device"]


def ppo_loss(
    net: nn.Module,
    b: dict[str, torch.Tensor],
    idx: torch.Tensor,
    cfg: PPOConfig,
    critic: nn.Module | None = None,
    guide: nn.Module | None = None,
    belief: BeliefHead | None = None,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The clipped PPO objective on minibatch ``idx`` of the samples ``b``: the loss and its parts.

    With an oracle ``critic`` (``critic: oracle``) the clipped value loss is the critic's, whose
    values made the advantages; the network's own value head learns the same returns as well
    (plain squared error), so an exported agent still carries a value of its view. With a
    ``guide`` (``oracle_guide``) the decisions that saw the hidden hands see them again here.
    With a ``belief`` head (``belief_coef``) the trunk also predicts the other hands."""
    extra = guide(b["hidden"][idx], b["keep"][idx]) if guide is not None else None
    obs = b["obs"][idx]
    perm = net.relabelling(obs)  # the colours' relabelling, once for both ends of the network
    features = net.features(obs, extra, perm)
    logits, value = net.heads(features, b["mask"][idx], obs, perm)
    logp_all, entropy = masked_log_probs(logits, b["mask"][idx])
    new_logp = logp_all.gather(1, b["action"][idx, None]).squeeze(1)
    log_ratio = new_logp - b["logp"][idx]
    ratio = log_ratio.exp()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clipfrac = ((ratio - 1.0).abs() > cfg.clip_coef).float().mean()
    a = b["adv"][idx]
    if cfg.norm_adv and a.numel() > 1:
        a = (a - a.mean()) / (a.std() + 1e-8)
    pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
    old_value, ret = b["value"][idx], b["ret"][idx]
    view_loss = None
    if critic is not None:
        view_loss = 0.5 * ((value - ret) ** 2).mean()
        value = critic(b["obs"][idx], b["hidden"][idx])
    if cfg.clip_vloss:
        v_clipped = old_value + (value - old_value).clamp(-cfg.clip_coef, cfg.clip_coef)
        v_loss = 0.5 * torch.max((value - ret) ** 2, (v_clipped - ret) ** 2).mean()
    else:
        v_loss = 0.5 * ((value - ret) ** 2).mean()
    entropy_loss = entropy.mean()
    loss = pg_loss - cfg.ent_coef * entropy_loss + cfg.vf_coef * v_loss
    parts = {"policy": pg_loss, "value": v_loss, "entropy": entropy_loss, "kl": approx_kl, "clipfrac": clipfrac}
    if view_loss is not None:
        loss = loss + cfg.vf_coef * view_loss
        parts["view_value"] = view_loss
    if belief is not None:
        parts["belief"] = belief.loss(features, b["hidden"][idx])
        loss = loss + cfg.belief_coef * parts["belief"]
    return loss, parts


def ppo_epochs(
    net: nn.Module,
    optimizer: optim.Optimizer,
    b: dict[str, torch.Tensor],
    cfg: PPOConfig,
    rng: np.random.Generator,
    critic: nn.Module | None = None,
    guide: nn.Module | None = None,
    belief: BeliefHead | None = None,
) -> dict[str, float]:
    """``update_epochs`` passes of minibatch steps over one rollout's samples (stopping early
    past ``target_kl``); the last minibatch's loss parts and the mean clip fraction."""
    if b["obs"].shape[0] == 0:  # the learner made no decision in this rollout: nothing to learn from
        names = ("value_loss", "policy_loss", "entropy", "approx_kl", "clipfrac", "explained_variance")
        return {f"losses/{k}": float("nan") for k in names}
    clipfracs = []
    params = [*net.parameters(), *(p for x in (critic, guide, belief) if x is not None for p in x.parameters())]
    for _epoch in range(cfg.update_epochs):
        for idx in minibatches(b["obs"].shape[0], cfg.num_minibatches, rng, b["obs"].device):
            loss, parts = ppo_loss(net, b, idx, cfg, critic, guide, belief)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
            optimizer.step()
            clipfracs.append(parts["clipfrac"].item())
        if cfg.target_kl is not None and parts["kl"].item() > cfg.target_kl:
            break
    y_pred, y_true = b["value"].cpu().numpy(), b["ret"].cpu().numpy()
    var_y = np.var(y_true)
    extra = {f"losses/{k}_loss": parts[k].item() for k in ("view_value", "belief") if k in parts}
    return extra | {
        "losses/value_loss": parts["value"].item(),
        "losses/policy_loss": parts["policy"].item(),
        "losses/entropy": parts["entropy"].item(),
        "losses/approx_kl": parts["kl"].item(),
        "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
        "losses/explained_variance": float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y),
    }


class PPOTrainer:
    """The learner, its optimiser and the collector of its games (with the opponent pool)."""

    def __init__(self, cfg: PPOConfig) -> None:
        cfg.check()
        self.cfg = cfg
        if cfg.torch_threads:
            torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)
        self.device = resolve_device(cfg.device)
        self.rng = np.random.default_rng(cfg.seed)  # the run's one random stream
        self.net = ActorCritic.for_game(
            cfg.game, cfg.rules, cfg.hidden, cfg.drop_obs, cfg.fine_counts, cfg.colour_symmetry
        ).to(self.device)
        self.collector = Collector(cfg, self.net, self.rng, self.device)
        self.critic = None  # the oracle critic (critic: oracle), training only
        if cfg.critic == "oracle":  # as wide as what the engine hides from the player
            hands = self.collector.engine.hidden_hands().shape[1]
            self.critic = self.collector.critic = OracleCritic(self.net, hands, cfg.hidden).to(self.device)
        self.guide = None  # oracle guiding (oracle_guide > 0), training only
        if cfg.oracle_guide > 0:
            hands = self.collector.engine.hidden_hands().shape[1]
            self.guide = self.collector.guide = OracleGuide(hands, cfg.hidden[0]).to(self.device)
        self.belief = None  # the auxiliary belief task (belief_coef > 0), training only
        if cfg.belief_coef > 0:
            hands = self.collector.engine.hidden_hands().shape[1]
            self.belief = BeliefHead(cfg.hidden[-1], hands).to(self.device)
        extras = [x for x in (self.critic, self.guide, self.belief) if x is not None]
        params = [*self.net.parameters(), *(p for x in extras for p in x.parameters())]
        self.optimizer = optim.Adam(params, lr=cfg.learning_rate, eps=1e-5)
        self.update_count = 0
        self.global_step = 0  # decisions of every seat
        # each resume that changed the config: {"update": u, "changes": {key: [was, now]}}
        self.config_changes: list[dict[str, Any]] = []

    @property
    def pool(self) -> list[Any]:
        return self.collector.pool.members

    def collect(self) -> Rollout:
        """One rollout of the learner's games (its decisions count in ``global_step``)."""
        ro = self.collector.collect()
        self.global_step += ro.decisions
        return ro

    def imitate(self, teacher: Any) -> dict[str, float]:
        """One warm-start iteration: the teacher plays a rollout, the network learns from it."""
        ro = self.collector.collect(teacher)
        b = learning_samples(ro, *multi_seat_gae(ro, self.cfg.gamma, self.cfg.gae_lambda), self.device)
        return imitation_epochs(self.net, self.optimizer, b, self.cfg, self.rng, self.critic)

    def update(self, collect: Callable[[], Rollout] | None = None) -> dict[str, float]:
        """One PPO iteration: collect, compute advantages, optimise. Returns what to log.

        ``collect`` replaces this trainer's own :meth:`collect` (e.g. Ray rollout actors,
        ``agents.ray_rollout``); it returns a rollout of ``num_games`` games in all and
        counts its decisions in ``global_step``. The learning step is the same either way."""
        cfg = self.cfg
        start = time.perf_counter()
        # set at every update, not only when annealing: a resumed optimiser holds the
        # checkpoint's rate, which a changed learning_rate or anneal_lr must replace
        frac = max(0.0, 1.0 - self.global_step / cfg.total_steps) if cfg.anneal_lr else 1.0
        self.optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
        self.collector.keep_probability = keep_probability(cfg.oracle_guide, self.global_step, cfg.total_steps)
        ro = (collect or self.collect)()
        collect_time = time.perf_counter() - start
        b = learning_samples(ro, *multi_seat_gae(ro, cfg.gamma, cfg.gae_lambda), self.device)
        stats = ppo_epochs(self.net, self.optimizer, b, cfg, self.rng, self.critic, self.guide, self.belief)
        self.update_count += 1
        if cfg.snapshot_every and self.update_count % cfg.snapshot_every == 0 and cfg.pool_size:
            self.collector.pool.add_snapshot(self.net, self.rng)
        elapsed = time.perf_counter() - start
        stats |= {
            "charts/learning_rate": self.optimizer.param_groups[0]["lr"],
            "charts/SPS": cfg.num_steps * cfg.num_games / elapsed,
            "charts/collect_SPS": cfg.num_steps * cfg.num_games / collect_time,
            "charts/samples": float(b["obs"].shape[0]),
            "charts/pool_size": float(len(self.pool)),
        }
        if self.guide is not None:
            stats["charts/oracle_keep"] = self.collector.keep_probability
        eps = ro.episodes
        if eps["return"]:
            stats["charts/episodic_return"] = float(np.mean(eps["return"]))
            stats["charts/episodic_length"] = float(np.mean(eps["length"]))
            stats["charts/pool_win_rate"] = float(np.mean(eps["win"]))
        return stats

    # ------------------------------------------------------------------ checkpoints
    def agent_payload(self) -> dict[str, Any]:
        """What a policy needs (an exported agent): the network and what it plays."""
        game = game_module(self.cfg.game)
        return {
            "game": self.cfg.game,
            "num_players": self.cfg.players,
            "rules": dict(self.cfg.rules),
            "obs_dim": game.OBS_SIZE,
            "num_actions": game.NUM_ACTIONS,
            "obs_names": list(game.OBS_NAMES),
            "action_names": list(game.ACTION_NAMES),
            "hidden": list(self.cfg.hidden),
            "model": {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()},
            "global_step": self.global_step,
            "updates": self.update_count,
        }

    def state_dict(self) -> dict[str, Any]:
        """Everything a resumed run needs to continue exactly (:mod:`agents.training_checkpoint`)."""
        return trainer_state(self)

    def load_state_dict(self, data: dict[str, Any], source: str = "checkpoint") -> None:
        restore_trainer(self, data, source)
