"""A policy that plans with the engine: flat Monte Carlo over worlds sampled from what the player knows.

For each decision with more than one legal action, :class:`SearchPolicy` samples
``worlds`` complete games consistent with the player's observation only (the game's
``worlds`` module: the unseen cards dealt at random, never the true hidden cards), plays
every legal action in every world and then ``depth`` more moves with a fast ``rollout``
policy on every seat (``depth: 0``: to the end of the hand), and scores each action by
the player's mean result: the reward where the game ended, else the value a trained
critic gives the position where the rollout stopped. Every world of every decision of
the batch and every action are one batch of the engine: no rule is written here, and
there is no Python loop over games.

Two choices keep the noise of a few dozen rollouts from costing games:

* The actions of one world share its cards and its random stream (common random
  numbers), and are compared world by world (a paired difference).
* The rollout policy's own choice (the *prior*) is kept unless the best action beats it
  by ``confidence`` standard errors of that paired difference. Plain flat Monte Carlo
  (``confidence: 0``) picks among near-equal actions at random and plays worse than its
  own rollout policy (docs/search.md gives the measurements).

A third keeps it from betting on what its worlds cannot know. The worlds deal the unseen
cards at random among those each player could hold, whatever it chose to play: in them the
player of a Wild Draw Four held the colour in force about as often as a random hand does,
while real players mostly play one when they cannot follow; and a bluff is answered by the
rollout policy, not by the real challenger. So the search would challenge and bluff by a
model of the opponents it does not have. With ``bets: prior`` (the default) the decisions
that are such bets, the game's :meth:`SearchPolicy.bets`, keep the prior's choice
(``bets: search`` searches them too; docs/search.md measures both). One more thing the
worlds get wrong there: a Wild Draw Four's guilt is judged from its player's hand in the
world, which after a silent second-to-last card holds the UNO penalty too (the observation
cannot tell it apart), so such worlds find bluffs more often than there were.

A decision is a function of the player's view (observation and legal actions) and the
policy's seed alone (up to the float rounding of a critic's batched values, which can only
tip an exact tie): each decision draws its worlds and its rollouts' random numbers from a
stream of its own, keyed by a digest of its view (:func:`view_keys`, :class:`envs.rng.RowStreams`),
so it never depends on another player's hidden cards, on the other rows of its batch, on
their order or on ``max_rows``; the same view is decided the same way wherever it arises.

Cost: a searched decision steps about ``worlds x legal actions x depth`` games; a decision
with a single legal action costs nothing (``python bench/search.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.policy import SeededPolicy, as_masks, check_chosen, drawing_by_row
from envs.rng import RowStreams, mix_keys, splitmix64

#: Rows (world x action) stepped together at most; larger batches are split.
MAX_ROWS = 1 << 16
#: Rollout moves after which a world still going is an error, not a hang: a rollout policy that
#: never ends a hand under these rules (one that only draws and keeps under ``draw_anytime``).
MAX_ROLLOUT_MOVES = 10_000
#: ``value: shipped``: the critic of the shipped agent for the game and table size.
SHIPPED = "shipped"
#: ``bets``: who decides a bet on how the opponents play (a bluff, a challenge).
BETS = ("prior", "search")


def view_keys(key: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``uint64 [B]``: each decision's stream seed, a digest of the policy's ``key`` and the
    decision's view (its observation's bytes and its legal actions): a hash of each row's
    words weighted by fixed odd multipliers, mixed by SplitMix64."""
    words = np.concatenate([np.ascontiguousarray(obs, np.float32).view(np.uint32), mask.astype(np.uint32)], axis=1)
    with np.errstate(over="ignore"):
        digest = (words.astype(np.uint64) * _multipliers(words.shape[1])).sum(axis=1, dtype=np.uint64)
    return mix_keys(digest, key)


def _multipliers(width: int) -> np.ndarray:
    """Fixed odd 64-bit multipliers, one per word of a view (the same in every process)."""
    return splitmix64(np.arange(1, width + 1, dtype=np.uint64)) | np.uint64(1)


def value_file(value: str, game: str, players: int) -> str:
    """The checkpoint a ``value`` option names at this table size (``shipped``: the shipped agent's)."""
    from agents.learned import shipped_agent

    return str(shipped_agent(game, players)) if value == SHIPPED else value


def belief_file(belief: str, players: int) -> str:
    """The belief model a ``belief`` option names at this table size (``shipped``: the shipped one)."""
    from agents.belief import shipped_belief

    return str(shipped_belief(players)) if belief == SHIPPED else belief


class SearchPolicy(SeededPolicy):
    """Flat Monte Carlo search with the engine (``{name: search, worlds: 16, depth: 8, value: shipped}``).

    Args:
        worlds: complete games sampled per decision.
        rollout: the policy spec that plays every seat after the first action; its own
            choice is the *prior*, kept unless the search is sure of a better one.
        confidence: how sure: the best action's mean gain over the prior's, paired by
            world, must exceed this many standard errors (0: plain flat Monte Carlo).
        depth: rollout moves (every seat's) after the action before the critic scores the
            position; 0 plays to the end. Default: the game's ``default_depth``.
        value: the checkpoint whose value head is the critic, or ``shipped`` (the shipped
            agent of the game and table size). Default: the game's ``default_value``. It must
            have been trained under the table's ``reward`` (a critic of wins cannot score a
            rollout stopped at a table that pays points: refused).
        bets: ``prior`` (default) keeps the prior's choice in decisions that bet on how the
            opponents play (:meth:`bets`); ``search`` searches them like any other.
        rules: the table's rules options (tournaments and trainers pass theirs).
        max_rows: rows stepped in one engine batch (memory bound).
    """

    name = "search"
    game = "any"
    default_depth = 0  # a game's recommended setting (``depth`` and ``value`` left out)
    default_value = ""
    default_rollout: Any = "heuristic"  # the rollout policy (``rollout`` left out)

    @classmethod
    def files_read(cls, params: dict[str, Any], game: str, players: int) -> list[str]:
        """The value network's checkpoint (``shipped``: the shipped agent of the table size) and
        the files the rollout policy reads (an agent's checkpoint)."""
        from agents.registry import SEARCH, files_read, split_spec

        value = params.get("value") or cls.default_value  # null: the default, as __init__ reads it
        rollout = cls.default_rollout if params.get("rollout") is None else params["rollout"]
        rollout_files = files_read(game, rollout, players) if split_spec(rollout)[0] != SEARCH else []
        return ([value_file(value, game, players)] if value else []) + rollout_files

    def __init__(
        self,
        seed: int | None = None,
        worlds: int = 16,
        rollout: Any = None,
        confidence: float = 1.0,
        depth: int | None = None,
        value: str | None = None,
        bets: str = "prior",
        rules: Mapping[str, Any] | None = None,
        max_rows: int = MAX_ROWS,
    ) -> None:
        super().__init__(seed)
        from agents.registry import SEARCH, make_policy, split_spec

        rollout = self.default_rollout if rollout is None else rollout
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"worlds must be a positive integer, got {worlds!r}")
        if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1:
            raise ValueError(f"max_rows must be a positive integer, got {max_rows!r}")
        if split_spec(rollout)[0] == SEARCH:
            raise ValueError("rollout must be a fast policy (a scripted one or an agent), not search")
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not confidence >= 0:
            raise ValueError(f"confidence must be a number >= 0 (standard errors), got {confidence!r}")
        depth = self.default_depth if depth is None else depth
        value = self.default_value if value is None else value
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ValueError(f"depth must be an integer >= 0 (0: to the end), got {depth!r}")
        if not isinstance(value, str):
            raise ValueError(f"value must be a checkpoint path, 'shipped' or '', got {value!r}")
        if depth and not value:
            raise ValueError("depth > 0 needs value: a checkpoint whose critic scores where rollouts stop")
        if bets not in BETS:
            raise ValueError(f"bets={bets!r}; allowed: {', '.join(BETS)}")
        self.worlds, self.max_rows, self.rollout_spec = worlds, max_rows, rollout
        self.confidence, self.depth, self.value_path = float(confidence), depth, value
        self.search_bets = bets == "search"
        self._critics: dict[int, Any] = {}
        self.rules = self.rules_type.from_dict(rules)
        if value == SHIPPED:  # trained under the default rules
            self._check_units({}, "the shipped agent")
        elif value:
            self._critic(0)  # a bad checkpoint, or one in other units, is refused now, not mid-tournament
        self.rollout = make_policy(self.game, rollout, seed=int(self.rng.integers(2**63)), rules=self.rules.to_dict())
        self.key = int(self.rng.integers(2**63))  # of every decision's stream (view_keys)
        self.searched = 0  # decisions searched so far (more than one legal action)
        self.rollout_steps = 0  # engine steps of rows, over all rollouts

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        self.rollout.seed(int(self.rng.integers(2**63)))
        self.key = int(self.rng.integers(2**63))

    def rng_state(self) -> dict[str, Any]:
        rollout = self.rollout.rng_state() if hasattr(self.rollout, "rng_state") else None  # an outside class
        return {"search": super().rng_state(), "rollout": rollout, "key": self.key}

    def set_rng_state(self, state: dict[str, Any]) -> None:
        if "search" not in state:  # a checkpoint from before the rollout's stream was kept
            super().set_rng_state(state)
            return
        super().set_rng_state(state["search"])
        if state["rollout"] is not None:
            self.rollout.set_rng_state(state["rollout"])
        self.key = int(state.get("key", self.key))

    # ------------------------------------------------------------------ per game
    @property
    def rules_type(self) -> type:
        raise NotImplementedError

    def sample_worlds(self, obs: np.ndarray, worlds: int, rng: RowStreams) -> Any:
        """An engine of ``len(obs) * worlds`` games (auto_reset off), game ``b * worlds + w`` a world
        of observation ``b`` with the observer to act (the games' ``worlds`` modules seat it at 0);
        the search scores each world for its player to act. ``rng``: one stream per world."""
        raise NotImplementedError

    def bets(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``bool [B, A]``: legal actions that bet on how the opponents play, which worlds dealt
        at random cannot judge. With ``bets: prior`` a decision whose prior makes such a bet
        keeps it, and the other decisions search only the actions that are none. None in a
        game without such decisions."""
        return np.zeros(mask.shape, bool)

    def _critic(self, num_players: int) -> Any:
        """The network whose value head scores where rollouts stop: ``value``'s checkpoint, or
        the shipped agent of this table size (``value: shipped``)."""
        from agents.learned import load_checkpoint, network_from

        key = num_players if self.value_path == SHIPPED else 0
        if key not in self._critics:
            path = value_file(self.value_path, self.game, num_players)
            data = load_checkpoint(path, self.game)
            self._check_units(data.get("rules") or {}, path)
            self._critics[key] = network_from(data, path)
        return self._critics[key]

    def _check_units(self, trained_rules: Mapping[str, Any], source: str) -> None:
        """A rollout that ends scores the table's reward, one that stops (``depth`` > 0) the
        critic's value: both must be in the same units, so the critic must have been trained
        under this ``reward``."""
        trained = trained_rules.get("reward", self.rules_type().reward)
        if self.depth and trained != self.rules.reward:
            raise ValueError(
                f"value: {source}'s critic was trained with reward: {trained}, but this table pays "
                f"reward: {self.rules.reward}; ended and stopped rollouts would be scored in different "
                f"units. Use depth: 0 (rollouts to the end need no critic) or a critic trained with "
                f"reward: {self.rules.reward}"
            )

    def leaf_values(self, eng: Any, games: np.ndarray, observer: np.ndarray | int = 0) -> np.ndarray:
        """The critic's value of these unfinished games for the observer (``observer``: its
        seat in every game of ``eng``), in reward units."""
        import torch

        obs, _ = eng.observe(seats=observer)
        with torch.no_grad():
            value = self._critic(eng.num_players).value(torch.as_tensor(obs[games]))
        return value.numpy().astype(np.float64)

    # ------------------------------------------------------------------ the search
    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = as_masks(mask)
        obs = np.asarray(obs, np.float32)
        keys = view_keys(self.key, obs, mask)
        with drawing_by_row(self.rollout, keys):
            prior = self.rollout(obs, mask)  # the rollout policy's own choice: forced moves and ties
        if not self.search_bets:  # where the prior bets it plays so, elsewhere no bet is searched
            bets = self.bets(obs, mask)
            ar = np.arange(mask.shape[0])
            kept = np.zeros_like(mask)
            kept[ar, prior] = True
            mask = np.where(bets[ar, prior][:, None], kept, mask & ~bets)
        legal = mask.sum(axis=1)
        rows = (legal > 1).nonzero()[0]
        actions = prior.copy()
        if rows.size:
            per_row = self.worlds * legal[rows]
            start = 0
            while start < rows.size:  # chunks of at most max_rows rollouts (at least one decision)
                stop = start + max(1, int(np.searchsorted(np.cumsum(per_row[start:]), self.max_rows, "right")))
                chunk = rows[start:stop]
                actions[chunk] = self.choose(obs[chunk], mask[chunk], prior[chunk], keys[chunk])
                start = stop
        self.searched += rows.size
        return check_chosen(mask, actions)

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float64 [B, A]``: each legal action's mean result over the sampled worlds (NaN: illegal)."""
        mask = as_masks(mask)
        obs = np.asarray(obs, np.float32)
        values = np.full(mask.shape, np.nan)
        values[mask] = self._results(obs, mask, view_keys(self.key, obs, mask)).mean(axis=1)
        return values

    def choose(
        self, obs: np.ndarray, mask: np.ndarray, prior: np.ndarray, keys: np.ndarray | None = None
    ) -> np.ndarray:
        """The best action by mean result, where it beats the prior's by ``confidence`` standard
        errors of the paired (same world) difference; else the prior's choice. The search of
        one batch as it is: ``__call__`` adds the prior, the bets it keeps and the chunking by
        ``max_rows`` (a caller that deals the worlds itself, ``bench/information.py``, calls this).
        ``keys``: the decisions' streams (default: :func:`view_keys` of the views)."""
        B, A = mask.shape
        keys = view_keys(self.key, obs, mask) if keys is None else keys
        per_world = np.zeros((B, A, self.worlds))
        per_world[mask] = self._results(obs, mask, keys)
        ar = np.arange(B)
        diff = per_world - per_world[ar, prior][:, None, :]  # [B, A, W]
        mean = np.where(mask, diff.mean(axis=2), -np.inf)
        se = diff.std(axis=2, ddof=1) / np.sqrt(self.worlds) if self.worlds > 1 else np.zeros(mean.shape)
        best = mean.argmax(axis=1)
        sure = mean[ar, best] > self.confidence * se[ar, best] + 1e-12
        return np.where(sure, best, prior)

    def _results(self, obs: np.ndarray, mask: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """``[E, W]``: the result of every legal action (``mask`` order, row-major) in each world.
        World ``w`` of decision ``b`` has the stream ``mix_keys(keys[b], w)``: its cards, and the
        rollout's draws at each step, the same for every action (common random numbers)."""
        W = self.worlds
        world_keys = mix_keys(np.repeat(keys, W), np.tile(np.arange(W, dtype=np.uint64), len(keys)))
        eng = self.sample_worlds(obs, W, RowStreams(world_keys))
        decision, action = mask.nonzero()  # one entry per (decision, legal action)
        world = decision[:, None] * W + np.arange(W)[None, :]  # [E, W]: the worlds of each entry
        rows = world.ravel()
        first = np.repeat(action, W)
        row_keys = world_keys[rows]
        eng = eng.select(rows)
        observer = eng.current_player.copy()  # whose result counts: the player to act (seat 0 of a sampled world)
        result = np.zeros(rows.size)
        live = np.arange(rows.size)  # row of each game of `eng` in `result`
        rollout_actions = first
        steps = 0
        while True:
            next_obs, next_mask, rewards, done = eng.step(rollout_actions)
            self.rollout_steps += live.size
            steps += 1
            ended = done.nonzero()[0]
            if ended.size:
                result[live[ended]] = rewards[ended, observer[live[ended]]]  # the observer's reward
            playing = eng.phase != eng.over_phase
            if not playing.any():
                break
            if steps >= MAX_ROLLOUT_MOVES:
                raise RuntimeError(
                    f"search: {int(playing.sum())} rollouts still going after {steps:,} moves: the rollout "
                    f"policy {self.rollout_spec!r} does not end a hand under these rules; give depth > 0 "
                    "(a critic scores where rollouts stop) or another rollout policy"
                )
            if self.depth and steps > self.depth:  # stop here: the critic values the rest
                going = playing.nonzero()[0]
                result[live[going]] = self.leaf_values(eng, going, observer[live])
                break
            if playing.mean() < 0.5:  # shrink the batch to the games still going
                keep = playing.nonzero()[0]
                eng, live = eng.select(keep), live[keep]
                next_obs, next_mask, playing = next_obs[keep], next_mask[keep], playing[keep]
            rollout_actions = np.zeros(live.size, np.int64)
            going = playing.nonzero()[0]
            with drawing_by_row(self.rollout, mix_keys(row_keys[live[going]], steps)):
                rollout_actions[going] = self.rollout(next_obs[going], next_mask[going])
        return result.reshape(-1, W)


class UnoSearchPolicy(SearchPolicy):
    """Flat Monte Carlo search for classic UNO: worlds from :mod:`envs.uno.worlds`, each one
    hand (a match's later hands are not searched); by default 8 rollout moves, then the
    shipped agent's critic.

    ``belief``: ``""`` (default) deals the unseen cards by hand sizes, honouring the voids;
    a belief model's checkpoint (:mod:`agents.belief`), or ``shipped`` (that of the table
    size, ``models/uno_<n>p_belief.pt``), deals them where it expects them.
    """

    game = "uno"
    default_depth = 8
    default_value = SHIPPED

    def __init__(self, seed: int | None = None, belief: str = "", **params: Any) -> None:
        if not isinstance(belief, str):
            raise ValueError(f"belief must be a belief model's path, 'shipped' or '', got {belief!r}")
        self.belief_path = belief
        self._beliefs: dict[int, Any] = {}
        if belief and belief != SHIPPED:  # a bad file is refused now, not mid-tournament
            from agents.belief import load_belief

            net = load_belief(belief)
            self._beliefs[net.num_players] = net
        super().__init__(seed, **params)

    @classmethod
    def files_read(cls, params: dict[str, Any], game: str, players: int) -> list[str]:
        """The value network's checkpoint and the belief model's (``shipped``: the table size's)."""
        belief = params.get("belief", "")
        extra = [belief_file(belief, players)] if belief else []
        return super().files_read(params, game, players) + extra

    def _belief(self, num_players: int) -> Any:
        from agents.belief import load_belief

        if num_players not in self._beliefs:
            path = belief_file(self.belief_path, num_players)
            self._beliefs[num_players] = load_belief(path, num_players)
        return self._beliefs[num_players]

    @property
    def rules_type(self) -> type:
        from envs.uno import UnoRules

        return UnoRules

    def sample_worlds(self, obs: np.ndarray, worlds: int, rng: RowStreams) -> Any:
        from envs.uno.observation import decode
        from envs.uno.worlds import sample_worlds

        beliefs = None
        if self.belief_path:
            beliefs = self._belief(int(decode(obs)["num_players"][0])).shares(obs)
        return sample_worlds(obs, self.rules, worlds, rng, beliefs)[0]

    def bets(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Challenge or accept (phase ``challenge``: was the Wild Draw Four a bluff?), and a
        Wild Draw Four that would be a bluff (``kernel.bluffs``: will it be challenged?)."""
        from agents.uno_policies import would_bluff
        from envs.uno import actions

        out = np.zeros(mask.shape, bool)
        answering = mask[:, actions.CHALLENGE]
        out[answering, actions.CHALLENGE] = out[answering, actions.ACCEPT] = True
        bluff = would_bluff(obs)  # kernel.bluffs on the view: a colour in force is held
        w4 = slice(actions.PLAY_WILD_DRAW_FOUR, actions.PLAY_WILD_DRAW_FOUR + 4)
        out[:, w4] = (bluff & ~answering)[:, None] & mask[:, w4]
        return out


def search_class(game: str) -> type:
    """The search policy of a game (its descriptor says which: the trick game's lives in
    :mod:`agents.tricks_search`)."""
    from envs.games import game as game_info
    from envs.games import resolve

    return resolve(game_info(game).search_policy)
