"""Experience for PPO: the learner's batched games, who plays each one, and :meth:`Collector.collect`.

Multi-agent bookkeeping, the part a single-agent PPO does not have: each game has
*learning seats*. In a self-play game every seat is the learner (one shared network); in a
pool game the learner holds one seat (a team of two partners in the trick game) and the
others are played by one member of the :class:`~agents.opponent_pool.OpponentPool`, drawn
per game. Every decision of a learning seat is a sample of the rollout; the others' moves
are recorded too (the advantages need to know whose turn it was).

The trainer (``agents.ppo``) and the Ray rollout actors (``agents.ray_rollout``) both
collect through this class; it shares the network and the run's random stream with its
owner, so a seed fixes the whole run.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from agents.opponent_pool import OpponentPool
from agents.policy import sample_masked
from agents.rollout import Rollout
from envs.games import game as game_info
from envs.games import game_module


class Collector:
    """``num_games`` games of ``cfg.game`` stepped together, and who plays each of them."""

    def __init__(
        self,
        cfg: Any,
        net: nn.Module,
        rng: np.random.Generator,
        device: torch.device,
        critic: nn.Module | None = None,
    ) -> None:
        self.cfg, self.net, self.rng, self.device = cfg, net, rng, device
        self.critic = critic  # an oracle critic (agents.oracle_critic): the values of the rollout are its
        self.guide: nn.Module | None = None  # oracle guiding (agents.oracle_guide): the actor's extra input
        self.keep_probability = 0.0  # ... and the share of the learner's decisions that get it
        module = game_module(cfg.game)
        self.engine = module.Engine(cfg.num_games, cfg.players, module.Rules.from_dict(cfg.rules), seed=cfg.seed)
        self.pool = OpponentPool(cfg.game, cfg.opponents, cfg.rules, cfg.pool_size, rng)
        info = game_info(cfg.game)
        self.teams = info.teams
        self.side = np.array([info.side_of(seat, cfg.players) for seat in range(cfg.players)])  # each seat's side
        B, P = cfg.num_games, cfg.players
        self.opponent = np.full(B, -1, np.int64)  # pool member per game; -1: self-play
        self.learner = np.ones((B, P), bool)  # learning seats per game
        self.episode_return = np.zeros(B, np.float64)  # of the learner in pool games
        self.episode_length = np.zeros(B, np.int64)
        self.taught = np.zeros(B, bool)  # a teacher made moves in this game (imitation): not the learner's
        self.obs, self.mask = self.engine.reset()
        self.assign(np.arange(B))

    # ------------------------------------------------------------------ who plays
    def assign(self, games: np.ndarray) -> None:
        """Draw who plays each of these (new) games: self-play, or the learner at a random
        seat (team) against one pool member."""
        n, P = games.size, self.cfg.players
        if not n:
            return
        size = len(self.pool)
        solo = (self.rng.random(n) >= self.cfg.self_play) & (size > 0)
        self.opponent[games] = np.where(solo, self.rng.integers(max(size, 1), size=n), -1)
        seats = np.zeros((n, P), bool)
        if self.teams:  # the learner takes both seats of a side (the descriptor's partners)
            team = self.rng.integers(int(self.side.max()) + 1, size=n)
            seats[:] = self.side[None, :] == team[:, None]
        else:
            seats[np.arange(n), self.rng.integers(P, size=n)] = True
        self.learner[games] = np.where(solo[:, None], seats, True)
        self.episode_return[games] = 0.0
        self.episode_length[games] = 0
        self.taught[games] = False

    # ------------------------------------------------------------------ acting
    def act(
        self, obs: np.ndarray, mask: np.ndarray, hidden: np.ndarray, keep: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The network's sampled actions, their log-probabilities and the values of these views
        (the oracle critic's, given the hidden hands, where there is one). ``keep``: where the
        actor also sees the hidden hands (oracle guiding)."""
        with torch.no_grad():
            extra = None
            if self.guide is not None and keep is not None:
                d = self.device
                extra = self.guide(torch.as_tensor(hidden, device=d), torch.as_tensor(keep, device=d))
            logits, value = self.net(
                torch.as_tensor(obs, device=self.device), torch.as_tensor(mask, device=self.device), extra
            )
            logp_all = torch.log_softmax(logits, dim=-1).cpu().numpy()
        actions = sample_masked(logp_all, mask, self.rng)
        if self.critic is not None:
            value = self.values(obs, hidden)
        else:
            value = value.cpu().numpy()
        return actions, logp_all[np.arange(actions.size), actions], value

    def values(self, obs: np.ndarray, hidden: np.ndarray) -> np.ndarray:
        """The critic's values of these views: the oracle critic's, else the network's value head."""
        with torch.no_grad():
            o = torch.as_tensor(obs, device=self.device)
            if self.critic is None:
                return self.net.value(o).cpu().numpy()
            return self.critic(o, torch.as_tensor(hidden, device=self.device)).cpu().numpy()

    def hidden_hands(self, seats: np.ndarray | int | None = None) -> np.ndarray:
        """What the oracle critic or guide sees beyond the view (the other hands in seat order),
        or the belief task's targets (in the order of play, as the observation's relative
        seats); ``[B, 0]`` without any of them."""
        if self.critic is None and self.guide is None and not self.cfg.belief_coef:
            return np.zeros((self.cfg.num_games, 0), np.float32)
        return self.engine.hidden_hands(seats, in_play_order=self.cfg.belief_coef > 0)

    def values_of_every_seat(self) -> np.ndarray:
        """``[B, P]``: each seat's value of the current state, from its own view."""
        out = np.zeros((self.cfg.num_games, self.cfg.players), np.float32)
        for seat in range(self.cfg.players):
            obs, _ = self.engine.observe(seats=seat)
            out[:, seat] = self.values(obs, self.hidden_hands(seat))
        self.engine.observe()  # leave the engine's cached mask as the players to act see it
        return out

    def collect(self, teacher: Any = None) -> Rollout:
        """Play ``num_steps`` decisions in every game; the rollout of them all.

        With a ``teacher`` policy, the teacher plays every seat (a warm start by imitation)
        and the rollout records its actions with the network's values."""
        cfg, eng = self.cfg, self.engine
        T, B, P = cfg.num_steps, cfg.num_games, cfg.players
        hidden = self.hidden_hands()
        ro = Rollout.empty(T, B, P, self.obs.shape[1], self.mask.shape[1], hidden.shape[1])
        ar = np.arange(B)
        for t in range(T):
            seat = eng.current_player.copy()
            learning = self.learner[ar, seat] if teacher is None else np.ones(B, bool)
            rows = learning.nonzero()[0]
            actions = np.zeros(B, np.int64)
            if teacher is not None:
                actions[:] = teacher(self.obs, self.mask)
                self.taught[:] = True
                ro.value[t] = self.values(self.obs, hidden)
            elif rows.size:
                if self.guide is not None:  # which decisions see the hidden hands (drawn only when guiding)
                    ro.keep[t, rows] = self.rng.random(rows.size) < self.keep_probability
                actions[rows], ro.logp[t, rows], ro.value[t, rows] = self.act(
                    self.obs[rows], self.mask[rows], hidden[rows], ro.keep[t, rows]
                )
            others = (~learning).nonzero()[0]
            if others.size:
                actions[others] = self.pool.act(self.obs[others], self.mask[others], self.opponent[others])
            ro.obs[t], ro.hidden[t], ro.mask[t], ro.action[t] = self.obs, hidden, self.mask, actions
            ro.learning[t], ro.seat[t] = learning, seat
            self.obs, self.mask, reward, done = eng.step(actions)
            ro.reward[t], ro.done[t] = reward, done
            self._count_episodes(ro, reward, done)
            hidden = self.hidden_hands()
        ro.last_value = self.values_of_every_seat()
        return ro

    def _count_episodes(self, ro: Rollout, reward: np.ndarray, done: np.ndarray) -> None:
        """The learner's return, length and win in the pool games that ended; new games drawn."""
        solo = self.opponent >= 0
        share = (reward * self.learner).sum(axis=1) / self.learner.sum(axis=1)
        self.episode_return += np.where(solo, share, 0.0)
        self.episode_length += 1
        ended = done.nonzero()[0]
        if ended.size:
            scored = ended[solo[ended] & ~self.taught[ended]]  # the learner's own games only
            ro.episodes["return"] += self.episode_return[scored].tolist()
            ro.episodes["length"] += self.episode_length[scored].tolist()
            won = (self.engine.game_winners[scored] & self.learner[scored]).any(axis=1)
            ro.episodes["win"] += won.tolist()
            self.assign(ended)

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """The games in play and who plays them (numpy arrays; the checkpoint turns them into tensors)."""
        return {
            "engine": self.engine.state_arrays(),
            "opponent": self.opponent.copy(),
            "learner": self.learner.copy(),
            "episode_return": self.episode_return.copy(),
            "episode_length": self.episode_length.copy(),
            "taught": self.taught.copy(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.engine.load_state_arrays(state["engine"])
        self.opponent[:] = state["opponent"]
        self.learner[:] = state["learner"]
        self.episode_return[:] = state["episode_return"]
        self.episode_length[:] = state["episode_length"]
        self.taught[:] = state.get("taught", False)  # a checkpoint from before the flag: none
        self.obs, self.mask = self.engine.observe()
