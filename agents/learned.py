"""Trained agents on disk: checkpoints written atomically, read with clear refusals, and
:class:`LearnedPolicy`, a checkpoint as a batched policy for ``evaluate.py``, the
Gymnasium wrappers and human play (policy spec ``{name: agent, checkpoint: path}``).

A checkpoint is a dict saved with ``torch.save`` holding only tensors and plain Python
values, so it loads with ``weights_only=True`` (no code runs on load):
``format``, ``version``, ``game``, ``num_players``, ``rules``, ``obs_dim``,
``num_actions``, ``hidden``, ``model`` (the network's state dict) and ``obs_names`` and
``action_names`` (the layout it was trained on, by name: a network trained before a
house rule added an entry is fitted to the new layout, :func:`fit_to_layout`); a training
checkpoint adds ``trainer`` (optimizer, random streams, counters, the engines' games and
the opponent pool), which an exported agent leaves out. ``sha256`` is a digest of all the
rest (:func:`content_digest`: every tensor's bytes, every value), checked on load, so a
file damaged where ``torch.load`` does not notice (flipped bytes inside a tensor) is
refused; files written before checksums (the shipped ``models/``) have none and load as before.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from agents.network import SYMMETRY_KEYS, ActorCritic
from agents.policy import SeededPolicy, as_masks, check_chosen, sample_masked
from envs.atomic import write_atomically
from envs.games import GAMES, game_module
from envs.games import game as game_info

#: The shipped agents (``models/``; which file for which game and table size: ``envs.games``).
MODELS_DIR = Path(__file__).resolve().parents[1] / "models"


def shipped_agent(game: str, num_players: int) -> Path:
    """The shipped agent's checkpoint for this game and table size (the nearest one we ship)."""
    g = game_info(game)
    return MODELS_DIR / g.shipped_agents.get(num_players, g.default_agent)


FORMAT = "unolab-agent"
VERSION = 1
MODES = ("greedy", "sample")


def content_digest(value: Any) -> str:
    """A SHA-256 of a checkpoint's content: tensors and arrays by dtype, shape and bytes, plain
    values by type and ``repr``, mappings in key order (lists and tuples alike)."""
    h = hashlib.sha256()

    def feed(v: Any) -> None:
        if isinstance(v, torch.Tensor):
            t = v.detach().cpu().contiguous()
            h.update(f"T{t.dtype}{tuple(t.shape)};".encode())
            h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
        elif isinstance(v, np.ndarray):
            h.update(f"A{v.dtype}{v.shape};".encode())
            h.update(np.ascontiguousarray(v).tobytes())
        elif isinstance(v, dict):
            h.update(f"D{len(v)};".encode())
            for key in sorted(v, key=repr):
                feed(key)
                feed(v[key])
        elif isinstance(v, (list, tuple)):
            h.update(f"L{len(v)};".encode())
            for item in v:
                feed(item)
        else:
            h.update(f"{type(v).__name__}:{v!r};".encode())

    feed(value)
    return h.hexdigest()


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write ``payload`` to ``path`` atomically (:func:`envs.atomic.write_atomically`), so a
    crash mid-write leaves the previous checkpoint intact, with its ``sha256``."""
    data = {"format": FORMAT, "version": VERSION, **payload}
    data["sha256"] = content_digest(data)
    return write_atomically(path, lambda f: torch.save(data, f))


def load_checkpoint(path: str | Path, game: str | None = None) -> dict[str, Any]:
    """Read a checkpoint; a missing, corrupt, foreign or other-game file is a ``ValueError``
    that says which and why."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} not found")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many types for a damaged file
        raise ValueError(
            f"checkpoint {path} is corrupt or not a unolab checkpoint ({type(err).__name__}: {err})"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"checkpoint {path} is not a unolab agent checkpoint (no format {FORMAT!r})")
    if data.get("version") != VERSION:
        raise ValueError(f"checkpoint {path} has format version {data.get('version')!r}; this lab reads {VERSION}")
    digest = data.pop("sha256", None)
    if digest is not None and digest != content_digest(data):
        raise ValueError(
            f"checkpoint {path} is damaged: its content does not match its checksum (sha256); "
            "use an earlier checkpoint or train again"
        )
    missing = [k for k in ("game", "num_players", "obs_dim", "num_actions", "hidden", "model") if k not in data]
    if missing:
        raise ValueError(f"checkpoint {path} lacks {', '.join(missing)}")
    if game is not None:
        check_game(data, path, game)
    return data


def check_game(data: dict[str, Any], path: str | Path, game: str) -> None:
    """A checkpoint of another game is refused, naming both."""
    if data["game"] != game:
        raise ValueError(f"checkpoint {path} holds a {data['game']} agent, not a {game} one")


def layout_names(game: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of this game's observation values and actions, as checkpoints record them."""
    module = game_module(game)
    return tuple(module.OBS_NAMES), tuple(module.ACTION_NAMES)


def _trained_names(data: dict[str, Any], game: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The layout a checkpoint was trained on: the names it records, or, for a file written
    before checkpoints recorded them, today's layout without the entries added since
    (``ADDED_OBS_NAMES``, ``ADDED_ACTIONS`` of the game package) when the sizes say so."""
    if "obs_names" in data and "action_names" in data:
        names = tuple(data["obs_names"]), tuple(data["action_names"])
        sizes = (int(data["obs_dim"]), int(data["num_actions"]))
        if (len(names[0]), len(names[1])) != sizes or len(set(names[0])) != sizes[0] or len(set(names[1])) != sizes[1]:
            return None  # names that do not describe the network: refused by the caller
        return names
    module = game_module(game)
    obs_names, action_names = layout_names(game)
    sizes = (int(data["obs_dim"]), int(data["num_actions"]))
    if sizes == (len(obs_names), len(action_names)):
        return obs_names, action_names
    older = (
        tuple(n for n in obs_names if n not in module.ADDED_OBS_NAMES),
        tuple(n for n in action_names if n not in module.ADDED_ACTIONS),
    )
    return older if sizes == (len(older[0]), len(older[1])) else None


def fit_to_layout(data: dict[str, Any], path: str | Path) -> dict[str, Any]:
    """The checkpoint's network fitted to its game's layout now, by entry name.

    An observation value or an action added since the network was trained gets zero weights
    (the input is ignored; the new action's logit starts at 0 among the legal ones), so an
    agent trained before a house rule added a decision plays exactly as before wherever that
    decision does not arise. A checkpoint whose layout cannot be matched by name (sizes that
    fit no known layout, or an entry that is gone) is refused, saying both sizes."""
    try:
        module = game_module(str(data["game"]))
    except ValueError as err:
        raise ValueError(f"checkpoint {path}: {err}") from None
    obs_names, action_names = layout_names(str(data["game"]))
    trained = _trained_names(data, str(data["game"]))
    have = (int(data["obs_dim"]), int(data["num_actions"]))
    gone = (
        []
        if trained is None
        else sorted(set(trained[0]) - set(obs_names)) + sorted(set(trained[1]) - set(action_names))
    )
    if trained is None or gone:
        why = f": {', '.join(gone[:3])} no longer exist" if gone else ""
        raise ValueError(
            f"checkpoint {path} was trained on {have[0]} observation values and {have[1]} actions; "
            f"the {data['game']} game here has {module.Engine.obs_size} and {module.NUM_ACTIONS} "
            f"(its layout changed{why}): train it again with its config"
        )
    fitted = {**data, "obs_names": list(obs_names), "action_names": list(action_names)}
    if trained == (obs_names, action_names):
        return fitted
    if "sym_weights" in data["model"]:  # its colour tables index the layout it was trained on
        raise ValueError(
            f"checkpoint {path} sees colours relabelled on the layout it was trained on ({have[0]} observation "
            f"values, {have[1]} actions); the {data['game']} game's layout has changed since: train it again"
        )
    model = dict(data["model"])
    inputs = torch.as_tensor([obs_names.index(n) for n in trained[0]])
    outputs = torch.as_tensor([action_names.index(n) for n in trained[1]])
    first, trained_obs = model["trunk.0.weight"], len(trained[0])
    fitted_first = first.new_zeros(first.shape[0], len(obs_names) + first.shape[1] - trained_obs)
    fitted_first[:, : len(obs_names)].index_copy_(1, inputs, first[:, :trained_obs])
    fitted_first[:, len(obs_names) :] = first[:, trained_obs:]  # the fine counts' inputs (agents.network)
    model["trunk.0.weight"] = fitted_first
    if "fine_cols" in model:
        model["fine_cols"] = inputs[model["fine_cols"]]
    scale = model["obs_scale"]
    model["obs_scale"] = scale.new_ones(len(obs_names)).index_copy_(0, inputs, scale)
    for key in ("policy_head.weight", "policy_head.bias"):
        head = model[key]
        model[key] = head.new_zeros((len(action_names), *head.shape[1:])).index_copy_(0, outputs, head)
    fitted.update(model=model, obs_dim=len(obs_names), num_actions=len(action_names))
    return fitted


def _check_fine_counts(data: dict[str, Any], path: str | Path) -> None:
    """Refuse a checkpoint whose fine-count inputs (:mod:`agents.network`) cannot be what
    training wrote: indices outside its observation, or a cap missing or not above 0."""
    model = data.get("model", {})
    if "fine_cols" not in model and "fine_cap" not in model:
        return
    cols, cap = model.get("fine_cols"), model.get("fine_cap")
    obs_dim = int(data["obs_dim"])
    if not isinstance(cols, torch.Tensor) or cols.dim() != 1 or cols.is_floating_point():
        raise ValueError(f"{path}: fine_cols must be a 1-D tensor of observation indices")
    if cols.numel() and not (0 <= int(cols.min()) and int(cols.max()) < obs_dim):
        raise ValueError(f"{path}: fine_cols must index the {obs_dim} observation values (0 to {obs_dim - 1})")
    if not isinstance(cap, torch.Tensor) or cap.numel() != 1 or not float(cap) > 0:
        raise ValueError(f"{path}: fine_cap must be one number above 0 (the fine counts' cap)")


def network_from(data: dict[str, Any], path: str | Path = "checkpoint") -> ActorCritic:
    """The network a checkpoint describes, with its weights, fitted to its game's layout now
    (:func:`fit_to_layout`; a mismatch is a ``ValueError``)."""
    if data.get("kind") is not None:
        raise ValueError(f"{path} is a {data['kind']} model (agents/belief.py), not an agent's network")
    try:  # a file with a valid checksum but parts missing or of the wrong kind: named, not a traceback
        _check_fine_counts(data, path)
        data = fit_to_layout(data, path)
        model = data["model"]
        fine = (model["fine_cols"].tolist(), float(model["fine_cap"])) if "fine_cols" in model else ((), 0.0)
        symmetry = {key: model[f"sym_{key}"] for key in SYMMETRY_KEYS} if "sym_weights" in model else None
        sizes = int(data["obs_dim"]), int(data["num_actions"]), [int(h) for h in data["hidden"]]
        int(data["num_players"])
    except (KeyError, TypeError, IndexError, AttributeError, ValueError) as err:
        if isinstance(err, ValueError) and str(path) in str(err):
            raise
        raise ValueError(f"{path}: a damaged agent checkpoint ({type(err).__name__}: {err}); train it again") from None
    net = ActorCritic(*sizes, None, *fine, symmetry)
    try:
        net.load_state_dict(data["model"])
    except (RuntimeError, KeyError) as err:
        raise ValueError(f"{path}: the weights do not fit the network it describes ({err})") from None
    return net.eval()


class LearnedPolicy(SeededPolicy):
    """A trained network as a batched policy: ``greedy`` plays the most probable legal
    action, ``sample`` draws from the network's distribution (seeded)."""

    name = "agent"
    game: ClassVar[str] = "any"

    @staticmethod
    def files_read(params: dict[str, Any], game: str, players: int) -> list[str]:
        return [params["checkpoint"]] if isinstance(params.get("checkpoint"), str) else []

    def __init__(self, seed: int | None = None, checkpoint: str = "", mode: str = "greedy") -> None:
        super().__init__(seed)
        if mode not in MODES:
            raise ValueError(f"mode={mode!r}; allowed: {', '.join(MODES)}")
        if not checkpoint:
            files = [f for g in GAMES.values() for f in g.shipped_agents.values()]
            shipped = ", ".join(f"agent:{MODELS_DIR.name}/{f}" for f in files)
            raise ValueError(f"an agent policy needs checkpoint: <path to a .pt file> (the shipped agents: {shipped})")
        data = load_checkpoint(checkpoint, None if self.game == "any" else self.game)
        self.net = network_from(data, checkpoint)
        self.checkpoint, self.mode = str(checkpoint), mode
        self.num_players = int(data["num_players"])

    @classmethod
    def from_network(cls, net: ActorCritic, seed: int | None = None, mode: str = "sample") -> LearnedPolicy:
        """A policy over a network in memory (a frozen snapshot of the opponent pool)."""
        policy = cls.__new__(cls)
        SeededPolicy.__init__(policy, seed)
        policy.net, policy.checkpoint, policy.mode, policy.num_players = net.eval(), "", mode, 0
        return policy

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = as_masks(mask)
        with torch.no_grad():
            logits, _ = self.net(torch.as_tensor(np.asarray(obs, np.float32)), torch.as_tensor(mask))
        scores = logits.numpy()
        if self.mode == "sample":
            return check_chosen(mask, sample_masked(scores, mask, self.rng))
        return check_chosen(mask, np.where(mask, scores, -np.inf).argmax(axis=1))


def _agent_policy(name: str) -> type[LearnedPolicy]:
    """``{name: agent, checkpoint: ...}`` of one game: a LearnedPolicy refusing other games'
    checkpoints, a module attribute (``UnoAgentPolicy``) so that it pickles."""
    cls = type(f"{name.capitalize()}AgentPolicy", (LearnedPolicy,), {"game": name, "__module__": __name__})
    globals()[cls.__name__] = cls
    return cls


AGENT_POLICIES: dict[str, type[LearnedPolicy]] = {name: _agent_policy(name) for name in GAMES}
