"""Human-readable text of classic UNO positions (env ``ansi`` render, replays, logs).

A view only: it reads a position dict and knows no rule.
"""

from __future__ import annotations

from typing import Any

from envs.cards import COLOUR_NAMES, COLOURS
from envs.uno.positions import shown_hands
from envs.uno.rules import UnoRules


def _colour_name(letter: str | None) -> str:
    return COLOUR_NAMES[COLOURS.index(letter)] if letter else "to be named"


def render_position(pos: dict[str, Any], viewer: int | None = None, rules: UnoRules | None = None) -> str:
    """Multi-line table of a position; with ``viewer`` the other hands are shown as counts only.

    In a match (``rules.match``) each score shows the points still missing to the target.
    """
    target_score = rules.target_score if rules is not None and rules.match else None
    n, cur = pos["num_players"], pos["current_player"]
    arrow = "seat order" if pos["direction"] == 1 else "reverse seat order"
    lines = [
        f"UNO  {n} players  hand {pos.get('hand_number', 0) + 1}  play goes in {arrow}",
        f"top card {pos['discard_pile'][-1]}  colour {_colour_name(pos['colour'])}  "
        f"draw pile {len(pos['draw_pile'])}  discard pile {len(pos['discard_pile'])}",
    ]
    phase = pos["phase"]
    detail = ""
    if phase == "drawn":  # the card itself only to the one who drew it
        detail = f" (drew {pos['drawn_card'] if viewer is None or viewer == cur else 'a card'})"
    elif phase == "challenge" and pos.get("challenge"):
        detail = f" (Wild Draw Four by P{pos['challenge']['player']} on {pos['challenge']['previous_colour']})"
    elif pos.get("pending_draw"):
        detail = f" (facing +{pos['pending_draw']})"
    elif phase == "swap":
        detail = " (played a 7: whom to swap hands with, counted in the direction of play)"
    lines.append(f"P{cur} to act, phase {phase}{detail}")
    scores = pos.get("scores", [0] * n)
    declared = pos.get("uno_declared", [False] * n)
    for seat, hand in enumerate(pos["hands"]):
        marker = ">" if seat == cur and phase != "over" else " "
        shown = " ".join(hand) if viewer is None or viewer == seat else "#" * len(hand)
        uno = "  UNO!" if declared[seat] else ""
        missing = f" (needs {max(target_score - scores[seat], 0)})" if target_score else ""
        lines.append(f"{marker} P{seat} [{len(hand):2d}] score {scores[seat]:4d}{missing}{uno}  {shown}")
    for revealed in shown_hands(pos):
        if viewer is None or viewer == revealed["to"]:
            lines.append(f"  P{revealed['to']} saw the hand of P{revealed['player']}: {' '.join(revealed['hand'])}")
    return "\n".join(lines)


def describe_turn(index: int, player: int, action: str, pos_before: dict[str, Any]) -> str:
    """One replay line: move number, player, action, and what it was played on."""
    top = pos_before["discard_pile"][-1]
    colour = pos_before["colour"] or "-"
    size = len(pos_before["hands"][player])
    return f"{index:4d}. P{player} {action:<13s} on {top:<4s} colour {colour}  (held {size})"
