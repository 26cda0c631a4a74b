"""Scenario helpers: build classic UNO positions by hand and play them by action name."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.cards import COLOURS, TYPE_COLOUR, card_type
from envs.uno import UnoEngine, UnoRules, action_id, action_name


def position(
    hands: list[list[str]],
    top: str = "R5",
    colour: str | None = "",
    draw: list[str] | None = None,
    discard: list[str] | None = None,
    current: int = 0,
    direction: int = 1,
    phase: str = "play",
    **extra: Any,
) -> dict[str, Any]:
    """A position with sensible defaults: the colour in force is the top card's colour."""
    discard = list(discard) if discard is not None else [top]
    if colour == "":
        c = TYPE_COLOUR[card_type(discard[-1])]
        colour = COLOURS[c] if c >= 0 else None
    pos = {
        "num_players": len(hands),
        "hands": hands,
        "draw_pile": list(draw) if draw is not None else ["G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8"],
        "discard_pile": discard,
        "colour": colour,
        "direction": direction,
        "current_player": current,
        "phase": phase,
    }
    pos.update(extra)
    return pos


def engine(pos: dict[str, Any] | list[dict[str, Any]], seed: int = 0, **rules: Any) -> UnoEngine:
    positions = pos if isinstance(pos, list) else [pos]
    return UnoEngine.from_positions(positions, rules=UnoRules(**rules), seed=seed, auto_reset=False)


def legal(eng: UnoEngine, game: int = 0) -> set[str]:
    return {action_name(a) for a in np.flatnonzero(eng.legal_action_mask[game])}


def act(eng: UnoEngine, *names: str) -> tuple[np.ndarray, bool]:
    """Play the named actions in turn in a one-game engine; returns (rewards, done) of the last."""
    rewards, done = np.zeros(eng.num_players, np.float32), False
    for name in names:
        _, _, r, d = eng.step(np.array([action_id(name)]))
        rewards, done = r[0], bool(d[0])
    return rewards, done


def hand(eng: UnoEngine, seat: int, game: int = 0) -> list[str]:
    return sorted(eng.position(game)["hands"][seat])
