"""Ray, imported only where a Ray backend is asked for (the default install has no Ray):
the rollout actors here and the tournament's Ray backend both get it through this module."""

from __future__ import annotations

from typing import Any

INSTALL_HINT = "pip install -e '.[ray]'"


def import_ray() -> Any:
    """The ``ray`` module, or a ``RuntimeError`` that says how to install it."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(f"the ray backend needs Ray: {INSTALL_HINT}") from None
    return ray
