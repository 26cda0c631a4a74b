"""A game's state declared once: one table of named arrays drives everything that lists them.

Each engine's kernel module declares its state as a tuple of :class:`Part` entries (name,
dtype, shape after the batch axis, initial value, meaning). From that one table come:

* the arrays themselves (:func:`allocate`, which also sets them as engine attributes);
* ``state_fields``, what positions, checkpoints and :meth:`~envs.core.BatchedEngine.select`
  carry (:func:`saved_names`);
* the kernels' view of the state: a namedtuple type with a field per part
  (:func:`state_type`), so kernel code reads ``s.hands``, ``s.phase``;
* the argument passing: an entry point is ``@njit def f(*args)``, called with the state's
  arrays followed by the call's own arguments, and splits them with :data:`state_type`'s
  length (``State(*args[:NUM_STATE])``, ``args[NUM_STATE:]``). numba types separate
  arrays far faster than a tuple of them (a batch of one pays that at every step), and
  star-args keep them separate without listing them again.

Scratch space for one game at a time (the kernels compile without reference counting and
so cannot allocate) is declared the same way with ``per_game=False``; the random streams
that :class:`~envs.core.BatchedEngine` allocates itself are ``stream=True``. Neither is in
``state_fields``.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: In a shape, the table size (players).
PLAYERS = "P"


@dataclass(frozen=True)
class Part:
    """One named array of a game's state."""

    name: str
    dtype: Any
    shape: tuple = ()  # after the batch axis; PLAYERS stands for the table size
    fill: float = 0  # initial value
    doc: str = ""
    per_game: bool = True  # False: scratch for one game at a time (no batch axis, not saved)
    stream: bool = False  # the engine's own random streams (allocated by BatchedEngine)

    def full_shape(self, num_games: int, num_players: int) -> tuple[int, ...]:
        rest = tuple(num_players if d == PLAYERS else d for d in self.shape)
        return (num_games, *rest) if self.per_game else rest


def state_type(name: str, parts: Sequence[Part]) -> type:
    """The namedtuple the kernels see the state as: one field per part, in table order."""
    return namedtuple(name, [p.name for p in parts])


def saved_names(parts: Sequence[Part]) -> tuple[str, ...]:
    """The parts that are a game's state (``state_fields``): not scratch, not the streams."""
    return tuple(p.name for p in parts if p.per_game and not p.stream)


def allocate(engine: Any, parts: Sequence[Part]) -> tuple[np.ndarray, ...]:
    """Every part's array, set as an attribute of ``engine`` (the streams are the engine's
    own), in table order: the tuple an entry point's ``*args`` starts with."""
    arrays = []
    for part in parts:
        if part.stream:
            array = getattr(engine, part.name)
        else:
            array = np.full(part.full_shape(engine.num_games, engine.num_players), part.fill, part.dtype)
            setattr(engine, part.name, array)
        arrays.append(array)
    return tuple(arrays)
