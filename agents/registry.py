"""Policies by name, as configs and the command line give them.

A *policy spec* is a name (``"heuristic"``) or a mapping with a ``name`` and the
policy's parameters (``{"name": "heuristic", "bluff": 0.5, "challenge": "smart"}``).
A name ``"package.module:Class"`` is a policy from outside the lab: importable code whose
class implements the batched policy interface (:func:`outside_policy_class`), and
``"agent:path/to/model.pt"`` is short for ``{"name": "agent", "checkpoint": "path/to/model.pt"}``.
Configs, overrides and the command lines of ``evaluate.py``, ``train.py`` and ``play.py``
all take these same forms.
:func:`make_policy` turns a spec into a seeded policy object of the given game and
refuses an unknown name or parameter with the allowed ones, before any game is played.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.policy import FIRST_LEGAL, FirstLegalPolicy
from envs.games import game as game_info
from envs.games import resolve

AGENT = "agent"
SEARCH = "search"


def policy_table(game: str) -> dict[str, type]:
    """Scripted policy classes of a game, by name (where its descriptor says they are)."""
    return resolve(game_info(game).policies)


def strategies(game: str) -> list[str]:
    """The scripted policies that play by themselves: the table less the wrappers of another
    policy (a class with ``wraps = True``, such as UNO's ``restrained``), which would only
    repeat their base as an opponent offered or an evaluation opponent by default."""
    return [name for name, cls in policy_table(game).items() if not getattr(cls, "wraps", False)]


def outside_policy_class(game: str, name: str) -> type:
    """The class a ``"package.module:Class"`` name imports: a policy written outside the lab.

    The interface is the lab's own (:mod:`agents.policy`): ``Class(seed=None, **params)``
    builds it (``seed``: its random stream, so tournaments repeat), and the instance is called
    with a batch, ``policy(obs [B, OBS], mask [B, A]) -> actions [B]``. A class attribute
    ``game = "uno"`` (or ``"tricks"``) says which game it plays; then it is refused for the
    other. The module is imported as Python imports it (from the working directory or an
    installed package): a config naming it runs that code, as a config naming a checkpoint reads it.
    """
    module_name, _, attr = name.partition(":")
    parts = [*module_name.split("."), *attr.split(".")]
    if not module_name or not attr or not all(part.isidentifier() for part in parts):
        raise ValueError(f"an outside policy is named 'package.module:Class', got {name!r}")
    try:
        obj: Any = resolve(name)
    except ImportError as err:
        raise ValueError(f"policy {name!r}: cannot import {module_name!r} ({err})") from None
    except AttributeError:
        raise ValueError(f"policy {name!r}: {module_name!r} has no {attr!r}") from None
    if not inspect.isclass(obj) or not callable(getattr(obj, "__call__", None)):  # noqa: B004
        raise ValueError(f"policy {name!r}: {attr!r} is not a policy class (callable instances, policy(obs, mask))")
    declared = getattr(obj, "game", None)
    if declared not in (None, "any") and declared != game:
        raise ValueError(f"policy {name!r} plays {declared!r}, not {game!r}")
    return obj


def policy_class(game: str, name: str) -> type:
    """The class of a policy name: a scripted one; ``first_legal`` (the weakest sane rule, the
    sanity target of a best response); ``agent``, a trained network read from a checkpoint
    (``{name: agent, checkpoint: path, mode: greedy}``; torch is imported then); or
    ``search``, flat Monte Carlo planning with the engine (:mod:`agents.search`)."""
    if ":" in name:
        policy_table(game)
        return outside_policy_class(game, name)
    if name == AGENT:
        policy_table(game)  # refuses an unknown game
        from agents.learned import AGENT_POLICIES

        return AGENT_POLICIES[game]
    if name == SEARCH:
        policy_table(game)
        from agents.search import search_class

        return search_class(game)
    table = {**policy_table(game), FIRST_LEGAL: FirstLegalPolicy}
    if name not in table:
        known = ", ".join(sorted([*table, AGENT, SEARCH]))
        raise ValueError(f"unknown {game} policy {name!r}; policies: {known}, or 'package.module:Class' (outside code)")
    return table[name]


def files_read(game: str, spec: str | Mapping[str, Any], players: int) -> list[str]:
    """The files a policy spec's policy reads at this table size (its checkpoint; the search's
    value network, the shipped agent's by default): what a run's digest must hash, so that a
    retrained file changes it. A class says so with a ``files_read(params, game, players)``."""
    name, params = split_spec(spec)
    cls = policy_class(game, name)
    reader = getattr(cls, "files_read", None)
    if reader is None:
        return []
    try:
        return [str(p) for p in reader(params, game, players)]
    except TypeError as err:  # an outside class's files_read of another shape
        raise ValueError(f"{game} policy {name!r}: files_read(params, game, players) failed: {err}") from None


def fitted_table(path: str | Path) -> dict[str, Any] | None:
    """The rules options and table size a checkpoint (an agent, a belief model) records it was
    fitted under: ``{"rules": ..., "num_players": ...}`` with what it has, or None (unreadable,
    or it records neither)."""
    import torch

    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception:  # a missing or damaged file: the policy's own loading says what is wrong
        return None
    if not isinstance(data, Mapping):
        return None
    table = {k: data[k] for k in ("rules", "num_players") if k in data}
    return table or None


#: Rules options that shape only a learner's reward, not the game a policy plays.
TRAINING_ONLY = ("reward",)


def table_notes(game: str, specs: list[str | Mapping[str, Any]], rules: Mapping[str, Any], players: int) -> list[str]:
    """Where a policy plays another table than its files were fitted to: a checkpoint trained
    under other rules options (a house rule on or off) or at another table size. Such play is
    allowed (how an agent transfers is a fair question), but a reader of the results must be
    told, since the agent never saw that game. One note per policy spec that has any."""
    rules_cls = game_info(game).engine.Rules
    table = rules_cls.from_dict(rules).to_dict()
    fitted: dict[str, dict[str, Any] | None] = {}
    notes = []
    for spec in specs:
        said = []
        for path in files_read(game, spec, players):
            if path not in fitted:
                fitted[path] = fitted_table(path)
            mismatch = _mismatch(fitted[path], rules_cls, table, players)
            if mismatch:
                shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
                said.append(f"{shown} was fitted under {mismatch}")
        if said:
            notes.append(f"{spec_label(spec)}: {'; '.join(said)}")
    return list(dict.fromkeys(notes))  # a spec met twice (both seats of a team) is noted once


def _mismatch(fitted: dict[str, Any] | None, rules_cls: type, table: dict[str, Any], players: int) -> str:
    """How a checkpoint's :func:`fitted_table` differs from this table ("" where it does not)."""
    if fitted is None:
        return ""
    said = []
    if isinstance(fitted.get("rules"), Mapping):
        try:
            own = rules_cls.from_dict(fitted["rules"]).to_dict()
        except ValueError:
            own = None
            said.append(f"rules this version does not know ({dict(fitted['rules'])})")
        differ = [k for k in table if own is not None and k not in TRAINING_ONLY and own[k] != table[k]]
        if differ:
            said.append(
                "rules "
                + ", ".join(f"{k}={own[k]!r}" for k in differ)
                + " (this table: "
                + ", ".join(f"{k}={table[k]!r}" for k in differ)
                + ")"
            )
    seats = fitted.get("num_players")
    if isinstance(seats, int) and not isinstance(seats, bool) and seats != players:
        said.append(f"{seats} players (this table: {players})")
    return " and ".join(said)


def split_spec(spec: str | Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """``(name, params)`` of a policy spec (``"agent:m.pt"``: ``("agent", {"checkpoint": "m.pt"})``)."""
    if isinstance(spec, str):
        name, sep, path = spec.partition(":")
        if sep and name == AGENT:
            return AGENT, {"checkpoint": path}
        return spec, {}
    if isinstance(spec, Mapping):
        params = dict(spec)
        name = params.pop("name", None)
        if not isinstance(name, str):
            raise ValueError(f"a policy spec mapping needs a 'name' (string), got {dict(spec)!r}")
        return name, params
    raise ValueError(f"a policy spec is a name or a mapping with 'name' and parameters, got {spec!r}")


def spec_mapping(spec: str | Mapping[str, Any]) -> dict[str, Any]:
    """A policy spec in its mapping form, ``{"name": ..., **params}``: what a caller that adds
    keys (a ``label``) builds on, so that the short ``"agent:m.pt"`` reaches a tournament as
    ``{"name": "agent", "checkpoint": "m.pt"}``, not as the name of outside code."""
    name, params = split_spec(spec)
    return {"name": name, **params}


def check_label(label: object) -> None:
    """A label names an entrant in tables, files and lineups: a non-empty text (YAML reads
    ``label: 5`` or ``label: 2024-01-01`` as a number or a date, which would not match a lineup)."""
    if not isinstance(label, str) or not label.strip():
        raise ValueError(f"a label is a non-empty text (quote it in YAML), got {label!r}")


def spec_label(spec: str | Mapping[str, Any]) -> str:
    """Short readable label: ``heuristic`` or ``heuristic(bluff=0.5, challenge=smart)``."""
    name, params = split_spec(spec)
    if "label" in params:
        return str(params["label"])
    if name == AGENT and isinstance(params.get("checkpoint"), str):  # the file's name says which agent
        stem = Path(params.pop("checkpoint")).stem
        return stem if not params else f"{stem}({', '.join(f'{k}={v}' for k, v in params.items())})"
    if ":" in name:  # an outside policy: its class's name
        name = name.rpartition(":")[2]
    if not params:
        return name
    return f"{name}({', '.join(f'{k}={v}' for k, v in params.items())})"


def parameters(cls: type) -> list[str]:
    """The parameters a policy class takes (a subclass that passes ``**params`` on to its base
    takes the base's too)."""
    names: list[str] = []
    for klass in cls.__mro__:
        if klass is object:
            break
        if "__init__" not in vars(klass):
            continue
        signature = inspect.signature(klass.__init__).parameters.values()
        named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        names += [p.name for p in signature if p.name != "self" and p.kind in named and p.name not in names]
        if not any(p.kind is p.VAR_KEYWORD for p in signature):
            break
    return names


def _with_rules(cls: type, params: dict[str, Any], rules: Mapping[str, Any] | None) -> dict[str, Any]:
    """A policy that plans with the engine (its class takes ``rules``) plays under the table's
    rules unless its spec names its own: tournaments and trainers pass theirs here."""
    if rules is not None and "rules" in parameters(cls) and "rules" not in params:
        params["rules"] = dict(rules)
    return params


def check_spec(
    game: str, spec: str | Mapping[str, Any], rules: Mapping[str, Any] | None = None, players: int | None = None
) -> None:
    """Raise ``ValueError`` for an unknown policy or parameter (what :func:`make_policy` would refuse),
    and, given the table size, for a file the policy would read there that is missing (a policy may
    load one only at its first decision, when it learns the table size: a search's shipped belief)."""
    name, params = split_spec(spec)
    check_label(params.pop("label", "-"))
    cls = policy_class(game, name)
    params = _with_rules(cls, params, rules)
    allowed = [p for p in parameters(cls) if p != "seed"]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(unknown)} for {game} policy {name!r}; "
            f"allowed: {', '.join(allowed) or 'none'}"
        )
    try:
        cls(seed=0, **params)  # cheap: refuses bad parameter values (or checkpoints) now, not mid-tournament
    except (TypeError, ValueError) as err:
        raise ValueError(f"{game} policy {name!r}: {err}") from None
    if players is not None:
        missing = [path for path in files_read(game, spec, players) if not Path(path).is_file()]
        if missing:
            raise ValueError(
                f"{game} policy {name!r} at a table of {players} players reads {', '.join(missing)}, "
                "which does not exist (train or name a file for this table size)"
            )


def make_policy(
    game: str, spec: str | Mapping[str, Any], seed: int | None = None, rules: Mapping[str, Any] | None = None
) -> Any:
    """A seeded policy object from its spec (its parameters are checked by its class).
    ``rules`` (the table's rules options) reach a policy whose class takes them (search)."""
    check_spec(game, spec, rules)
    name, params = split_spec(spec)
    check_label(params.pop("label", "-"))
    cls = policy_class(game, name)
    return cls(seed=seed, **_with_rules(cls, params, rules))
