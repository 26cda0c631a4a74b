"""One config layer for every command: YAML files and dotted ``key=value`` overrides.

``train.py``, ``evaluate.py``, ``play.py`` and ``python -m envs.records`` read their
configs and overrides here, so ``stacking=true``, ``rules.stacking=true`` and
``target_score=300`` mean the same everywhere: a value is read as YAML (``true``, ``300``,
``[random, heuristic]``, ``{name: agent, checkpoint: m.pt}``), a dotted key reaches into a
mapping. Each command's dataclass (``PPOConfig``, ``TournamentConfig``, a game's ``Rules``)
then validates the result and names the key and what is allowed.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

#: The largest seed a command takes (seeds are 0 to 2**63 - 1 everywhere: numpy's and torch's range).
MAX_SEED = 2**63 - 1

#: Limits on what a config may hold: a hostile file must fail fast, not expand or nest without end.
MAX_CONFIG_BYTES = 1 << 20
MAX_CONFIG_DEPTH = 32


class _ConfigLoader(yaml.SafeLoader):
    """YAML's safe loader without aliases and with a nesting limit: a 400-byte file of nested
    aliases (the "billion laughs") would otherwise expand into billions of values."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not accepted in configs: write the value out", mark
            )
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_CONFIG_DEPTH:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_CONFIG_DEPTH} levels", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


# YAML 1.2's floats without a decimal point (3e-4, 1e6): PyYAML reads YAML 1.1, where they are text
# and a learning rate of 3e-4 would be refused as "not a number" (a value this lab reads as a number)
_ConfigLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"), list("-+0123456789")
)
_YAML_11_ONLY = {  # the int, float and timestamp resolvers of PyYAML's YAML 1.1, replaced below
    regexp.pattern
    for resolvers in yaml.SafeLoader.yaml_implicit_resolvers.values()
    for tag, regexp in resolvers
    if tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp")
}
# YAML 1.2's integers and no dates: YAML 1.1 reads seed=010 as 8 (octal), eval_every=1:30 as 90
# and 1:30.5 as 90.5 (base 60), and run_name=2026-12-07 as a date. Here 010 is ten, 0x10 and
# 0o10 say their base, and anything else stays text (refused where a number is asked, by name).
_ConfigLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if regexp.pattern not in _YAML_11_ONLY]
    for first, resolvers in _ConfigLoader.yaml_implicit_resolvers.items()
}
_INT = re.compile(r"^[-+]?(?:[0-9][0-9_]*|0x[0-9a-fA-F][0-9a-fA-F_]*|0o[0-7][0-7_]*)$")
_ConfigLoader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
_FLOAT = re.compile(  # YAML 1.1's floats less base 60 (1:30.5), the exponent's sign optional
    r"^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_ConfigLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node)).replace("_", "")
    return int(text, 0) if re.match(r"^[-+]?0[xo]", text) else int(text, 10)


_ConfigLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def load_yaml(text: str, what: str) -> Any:
    """``text`` read as YAML for configs and overrides (no aliases, bounded size and depth);
    ``ValueError`` naming ``what`` otherwise."""
    if len(text) > MAX_CONFIG_BYTES:
        raise ValueError(f"{what} is larger than {MAX_CONFIG_BYTES:,} characters")
    try:
        return yaml.load(text, Loader=_ConfigLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as err:
        raise ValueError(f"{what} is not valid YAML: {err}") from None


class Whole(dict):
    """A mapping written out whole in an override (``rules={stacking: true}``): it replaces the
    config's mapping, where dotted keys (``rules.stacking=true``) change one entry of it."""


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """``["games=500", "rules.stacking=true"]`` as a nested mapping (values read as YAML; a
    mapping value is :class:`Whole`)."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"overrides are key=value (e.g. games=5000, rules.stacking=true), got {item!r}")
        node = out
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"override {item!r}: {part} is not a mapping")
        value = load_yaml(value, f"override {key}")
        node[parts[-1]] = Whole(value) if isinstance(value, dict) else value
    return out


def merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``extra``, nested mappings merged key by key (a :class:`Whole`
    one replaces the mapping); the result holds plain dicts only."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and not isinstance(value, Whole) and isinstance(out.get(key), Mapping):
            out[key] = merge(dict(out[key]), value)
        else:
            out[key] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    """``value`` with every mapping in it a plain dict (a :class:`Whole` one too)."""
    return {k: _plain(v) for k, v in value.items()} if isinstance(value, Mapping) else value


def read_yaml(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"config file {str(path)!r} not found")
    data = load_yaml(path.read_text(), f"config file {str(path)!r}")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"config file {str(path)!r} must hold a mapping of keys, got {type(data).__name__}")
    return data


def rules_options(items: Sequence[str]) -> dict[str, Any]:
    """Rules options given on a command line: ``key=value`` or ``rules.key=value`` (the same
    option either way), values read as YAML."""
    for item in items:
        key, sep, _ = item.partition("=")
        if not sep or not key:
            raise ValueError(f"rules options are key=value (e.g. stacking=true), got {item!r}")
    options = parse_overrides(items)
    nested = options.pop("rules", {})
    if not isinstance(nested, dict):
        raise ValueError("rules options are key=value or rules.key=value, e.g. stacking=true")
    return merge(options, nested)


def rules_mapping(value: Any) -> dict[str, Any]:
    """A config's ``rules`` value as a dict of rules options, the same in every command:
    ``None`` (``rules:`` left empty in a YAML file, or ``rules: null``) is no house rule,
    anything but a mapping is refused by name."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"rules must be a mapping of rules options (e.g. {{stacking: true}}), got {value!r}")
    return dict(value)


def check_flags(values: Mapping[str, Any], names: Sequence[str], where: str = "") -> None:
    """Refuse a switch that is not ``true``/``false``: a study reading ``retrain: "no"`` as
    true would delete hours of finished runs."""
    for name in names:
        if name in values and not isinstance(values[name], bool):
            raise ValueError(f"{where}{name} must be true or false, got {values[name]!r}")


def check_overrides(value: Any, what: str) -> None:
    """Refuse ``overrides`` that are not a list of ``key=value`` strings (a bare string would
    be read one character at a time)."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{what} must be a list of key=value strings (e.g. [total_steps=1000000]), got {value!r}")


def table_size(value: Any) -> Any:
    """A config's ``players`` as an integer where it is one (``players=4.0`` is 4); anything
    else is returned as it is, for the caller to refuse with its allowed sizes."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An ``argparse`` type: an integer from ``low`` to ``high`` (no upper bound if ``None``),
    so that a bad value is refused by the option's name (``argument --games: must be ...``)
    before any work starts, not met as a traceback deep inside it."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if value < low or (high is not None and value > high):
            allowed = f"from {low:,} to {high:,}" if high is not None else f"of at least {low:,}"
            raise argparse.ArgumentTypeError(f"must be an integer {allowed}, got {value:,}")
        return value

    return parse


def number_in(low: float, high: float | None = None) -> Callable[[str], float]:
    """:func:`int_in` for a finite number (``nan`` and ``inf`` refused): from ``low`` to ``high``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            allowed = f"from {low:g} to {high:g}" if high is not None else f"of at least {low:g}"
            raise argparse.ArgumentTypeError(f"must be a finite number {allowed}, got {text}")
        return value

    return parse


#: ``--seed`` of every command line.
seed_arg = int_in(0, MAX_SEED)
