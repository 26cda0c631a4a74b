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

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.size)


def build_layout(spec: Sequence[tuple[str, int, float] | tuple[str, int, float, float]]) -> dict[str, Field]:
    """Consecutive fields from ``(name, size, high[, low])`` entries."""
    fields, start = {}, 0
    for name, size, high, *low in spec:
        fields[name] = Field(name, start, size, float(high), float(low[0]) if low else 0.0)
        start += size
    return fields


def layout_bounds(fields: dict[str, Field]) -> tuple[np.ndarray, np.ndarray]:
    """``float32`` low and high vectors of a layout."""
    size = sum(f.size for f in fields.values())
    low, high = np.zeros(size, np.float32), np.zeros(size, np.float32)
    for field in fields.values():
        low[field.slice] = field.low
        high[field.slice] = field.high
    return low, high
