"""Named slices of a flat observation vector, shared by the games' observation layouts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Field:
    """One named slice of the observation vector, with the range of its values."""

    name: str
    start: int
    size: int
    high: float
    low: float = 0.0
    labels: tuple[str, ...] = ()  # names of the entries (a one-hot over named things), else their indices

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.size)


def build_layout(spec: Sequence[tuple]) -> dict[str, Field]:
    """Consecutive fields from ``(name, size, high[, low])`` entries; a size given as a tuple
    of strings names the entries (the field has that many)."""
    fields, start = {}, 0
    for name, size, high, *low in spec:
        labels = tuple(size) if isinstance(size, (tuple, list)) else ()
        count = len(labels) if labels else int(size)
        fields[name] = Field(name, start, count, float(high), float(low[0]) if low else 0.0, labels)
        start += count
    return fields


def entry_names(fields: dict[str, Field]) -> tuple[str, ...]:
    """The name of every value of a layout: ``field[label]`` for named entries, else
    ``field[index]``. Checkpoints record these, so that a network trained on an older layout
    can be fitted to a newer one by name (``agents.learned``)."""
    return tuple(f"{f.name}[{f.labels[i] if f.labels else i}]" for f in fields.values() for i in range(f.size))


def layout_bounds(fields: dict[str, Field]) -> tuple[np.ndarray, np.ndarray]:
    """``float32`` low and high vectors of a layout."""
    size = sum(f.size for f in fields.values())
    low, high = np.zeros(size, np.float32), np.zeros(size, np.float32)
    for field in fields.values():
        low[field.slice] = field.low
        high[field.slice] = field.high
    return low, high
