"""A training run on disk: everything :class:`agents.ppo.PPOTrainer` needs to continue
exactly (network, optimiser, counters, random streams, the games in play, the pool).

The checkpoint holds only tensors and plain values (``torch.load(weights_only=True)``);
numpy arrays become tensors here (uint64 random states as int64 bits) and come back with
their dtypes checked against the run's own. ``train.py`` adds the minutes the run has taken
(:func:`with_minutes`), so a resumed run's ``run.json`` tells the whole run's time.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from typing import Any

import numpy as np
import torch

from envs.games import game_module


def trainer_state(trainer: Any) -> dict[str, Any]:
    """The checkpoint of a trainer: its agent payload and a ``trainer`` part (copies, so a
    later update does not change a state taken before it)."""
    games = trainer.collector.state_dict()
    return {
        **trainer.agent_payload(),
        "trainer": {
            "config": trainer.cfg.to_dict(),
            "optimizer": copy.deepcopy(trainer.optimizer.state_dict()),
            **({"critic": copy.deepcopy(trainer.critic.state_dict())} if trainer.critic is not None else {}),
            **({"guide": copy.deepcopy(trainer.guide.state_dict())} if trainer.guide is not None else {}),
            **({"belief": copy.deepcopy(trainer.belief.state_dict())} if trainer.belief is not None else {}),
            "update": trainer.update_count,
            "global_step": trainer.global_step,
            "config_changes": copy.deepcopy(trainer.config_changes),
            "rng": trainer.rng.bit_generator.state,
            **trainer.collector.pool.state_dict(),
            "engine": {path: _tensor(a) for path, a in games.pop("engine").items()},
            **{k: torch.from_numpy(v) for k, v in games.items()},
            "torch_rng": torch.get_rng_state(),
        },
    }


def _same(key: str, was: Any, now: Any, game: str) -> bool:
    """One setup key of a checkpoint and of the config agree: ``rules`` by what they mean (an
    option left out is its default: ``{stacking: false}`` is ``{}``)."""
    if key == "rules" and isinstance(was, dict) and isinstance(now, dict):
        rules = game_module(game).Rules
        try:
            return rules.from_dict(was) == rules.from_dict(now)
        except ValueError:  # an option this version no longer knows: compared as written
            return was == now
    return was == now


def restore_trainer(trainer: Any, data: dict[str, Any], source: str = "checkpoint") -> None:
    """Continue the run a :func:`trainer_state` describes; a checkpoint of another setup
    (game, table, network, opponents, batch) is refused, naming the differences."""
    if "trainer" not in data:
        raise ValueError(f"{source} is an exported agent (weights only), not a training checkpoint")
    tr = data["trainer"]
    saved, cfg = tr["config"], trainer.cfg
    fields = {f.name: f for f in dataclasses.fields(cfg)}
    was = {k: saved.get(k, _default(fields[k])) for k in type(cfg).STATE_KEYS}  # a key added later: its default
    diff = [k for k in type(cfg).STATE_KEYS if not _same(k, was[k], getattr(cfg, k), cfg.game)]
    if diff:
        detail = "; ".join(f"{k}: checkpoint {was[k]!r}, config {getattr(cfg, k)!r}" for k in diff)
        raise ValueError(f"{source} does not match this config ({detail})")
    header = {"game": saved.get("game"), "num_players": saved.get("players")}
    edited = [f"{k} {data.get(k)!r} (its run: {v!r})" for k, v in header.items() if data.get(k) != v]
    if edited:  # the header a policy reads disagrees with the run it came from: an edited file
        raise ValueError(f"{source} is inconsistent: its header says " + ", ".join(edited))
    try:
        trainer.net.load_state_dict(data["model"])
        if trainer.critic is not None:
            trainer.critic.load_state_dict(tr["critic"])
        if trainer.guide is not None:
            trainer.guide.load_state_dict(tr["guide"])
        if trainer.belief is not None:
            trainer.belief.load_state_dict(tr["belief"])
        trainer.optimizer.load_state_dict(tr["optimizer"])
    except (RuntimeError, ValueError, KeyError) as err:
        raise ValueError(f"{source}: the saved network or optimiser does not fit ({err})") from None
    trainer.update_count, trainer.global_step = int(tr["update"]), int(tr["global_step"])
    trainer.config_changes = config_changes(tr, cfg)
    trainer.rng.bit_generator.state = tr["rng"]
    collector = trainer.collector
    collector.pool.load_state_dict(tr, trainer.net)
    like = collector.engine.state_arrays()
    saved = engine_state_of(tr["engine"], like)
    if set(saved) != set(like):
        differ = ", ".join(sorted(set(saved) ^ set(like)))
        raise ValueError(f"{source}: its games' state does not fit this engine (fields {differ})")
    collector.load_state_dict(
        {
            "engine": {path: _array(t, like[path]) for path, t in saved.items()},
            **{
                k: tr[k].numpy()
                for k in ("opponent", "learner", "episode_return", "episode_length", "taught")
                if k in tr
            },
        }
    )
    torch.set_rng_state(tr["torch_rng"])


def config_changes(tr: dict[str, Any], cfg: Any) -> list[dict[str, Any]]:
    """The checkpoint's record of the configs its run trained under (each resume that changed a
    key that decides the result, :func:`agents.best_response.config_digest`), and this resume's
    change if any: a run whose ``total_steps`` was raised on resume, for one, re-anneals its
    learning rate from there, so it is not the straight run of its final config, and its records
    must not say so."""
    from agents.best_response import PLACE_KEYS

    earlier = [dict(c) for c in tr.get("config_changes", []) if isinstance(c, dict)]
    saved, now = tr["config"], cfg.to_dict()
    fields = {f.name: f for f in dataclasses.fields(cfg)}
    changes = {k: [saved.get(k, _default(fields[k])), v] for k, v in now.items() if k not in PLACE_KEYS}
    changes = {k: pair for k, pair in changes.items() if not _same(k, *pair, cfg.game)}
    return earlier + ([{"update": int(tr["update"]), "changes": changes}] if changes else [])


def with_minutes(state: dict[str, Any], minutes: float, since_update: int) -> dict[str, Any]:
    """A :func:`trainer_state` that also carries the minutes its run has taken so far, counted
    from ``since_update`` (0: the whole run; more where an earlier checkpoint had no minutes)."""
    state["trainer"]["minutes"] = float(minutes)
    state["trainer"]["minutes_from_update"] = int(since_update)
    return state


def run_minutes(data: dict[str, Any]) -> tuple[float, int]:
    """The minutes a training checkpoint's run has taken and the update they count from. A
    checkpoint written before checkpoints kept their minutes (or with unusable ones) knows none
    of its time: 0 minutes, counted from its own update."""
    tr = data["trainer"]
    unknown = (0.0, int(tr["update"]))
    minutes, since = tr.get("minutes"), tr.get("minutes_from_update", 0)
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or not math.isfinite(minutes):
        return unknown
    if minutes < 0 or isinstance(since, bool) or not isinstance(since, int) or not 0 <= since <= unknown[1]:
        return unknown
    return float(minutes), since


def _default(field: dataclasses.Field) -> Any:
    """A config field's default (what a run written before the field existed trained with)."""
    return field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default


def _tensor(array: np.ndarray) -> torch.Tensor:
    """A numpy array as a tensor that ``weights_only`` loading accepts (uint64 as int64 bits)."""
    if array.dtype == np.uint64:
        array = array.view(np.int64)
    return torch.from_numpy(np.ascontiguousarray(array))


def engine_state_of(saved: dict[str, Any], like: dict[str, np.ndarray]) -> dict[str, Any]:
    """A checkpoint's engine state in today's layout (``like``), from the layouts older lab
    versions wrote:

    * trick-game checkpoints written before the state tables named the piles ``numbers.cards``;
    * classic UNO before shown hands were kept per seat: one ``revealed_hand`` with the seat it
      was shown to (``revealed_to``) becomes that seat's entry of the per-seat arrays.
    """
    saved = {path.replace(".", "_"): t for path, t in saved.items()}
    if "revealed_to" in saved and "revealed_to" not in like and "revealed_from" in like:
        to = saved.pop("revealed_to").numpy().astype(np.int64)
        shown_from = saved["revealed_from"].numpy().astype(np.int64)
        shown_hand = saved["revealed_hand"].numpy()
        hand = np.zeros(like["revealed_hand"].shape, like["revealed_hand"].dtype)
        seen_from = np.full(like["revealed_from"].shape, -1, like["revealed_from"].dtype)
        games = np.flatnonzero(to >= 0)
        hand[games, to[games]] = shown_hand[games]
        seen_from[games, to[games]] = shown_from[games]
        saved["revealed_hand"], saved["revealed_from"] = torch.as_tensor(hand), torch.as_tensor(seen_from)
    return saved


def _array(tensor: torch.Tensor, like: np.ndarray) -> np.ndarray:
    array = tensor.numpy()
    if array.shape != like.shape:
        raise ValueError(f"saved engine state has shape {array.shape}, this run's is {like.shape}")
    return array.view(like.dtype) if like.dtype == np.uint64 else array.astype(like.dtype, copy=False)
