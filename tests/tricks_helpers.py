"""Scenario helpers for the trick game: build positions by hand, play them by action name."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.uno_tricks import TricksEngine, TricksRules, action_id, action_name

NUMBER_PILE = ["R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9"]
SPECIAL_PILE = ["RS", "YS", "GS"]


def position(
    hands: list[list[str]],
    specials: list[list[str]] | None = None,
    table: list[Any] | None = None,
    leader: int = 0,
    current: int | None = None,
    phase: str = "lay",
    number_pile: list[str] | None = None,
    special_pile: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    pos = {
        "hands": hands,
        "specials": specials if specials is not None else [[], [], [], []],
        "number_pile": list(NUMBER_PILE if number_pile is None else number_pile),
        "special_pile": list(SPECIAL_PILE if special_pile is None else special_pile),
        "table": table if table is not None else [None] * 4,
        "leader": leader,
        "current_player": leader if current is None else current,
        "phase": phase,
    }
    pos.update(extra)
    return pos


def laid(
    card: str, forced: bool = False, added: str | None = None, specials: list[str] | None = None, by: int | None = None
) -> dict:
    """A table entry; ``by`` (who laid the card) is left out unless given (it defaults to the seat)."""
    entry = {"card": card, "forced": forced, "added": added, "specials": specials or []}
    if by is not None:
        entry["laid_by"] = by
    return entry


def engine(pos: dict[str, Any] | list[dict[str, Any]], seed: int = 0, **rules: Any) -> TricksEngine:
    positions = pos if isinstance(pos, list) else [pos]
    return TricksEngine.from_positions(positions, rules=TricksRules(**rules), seed=seed, auto_reset=False)


def legal(eng: TricksEngine, game: int = 0) -> set[str]:
    return {action_name(a) for a in np.flatnonzero(eng.legal_action_mask[game])}


def act(eng: TricksEngine, *names: str) -> tuple[np.ndarray, bool]:
    rewards, done = np.zeros(4, np.float32), False
    for name in names:
        _, _, r, d = eng.step(np.array([action_id(name)]))
        rewards, done = r[0], bool(d[0])
    return rewards, done


def numbers_of(cards: list[str]) -> list[int]:
    """The numbers of number cards, sorted (colours never matter in this game)."""
    return sorted(int(c[1:]) for c in cards)
