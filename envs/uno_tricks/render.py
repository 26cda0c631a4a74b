"""Human-readable text of trick-game positions (env ``ansi`` render, replays, logs). A view only."""

from __future__ import annotations

from typing import Any

from envs.games import game
from envs.uno_tricks.positions import face
from envs.uno_tricks.rules import NUM_PLAYERS, TEAM_NAMES, TricksRules


def _laid(entry: dict[str, Any] | None) -> str:
    """A seat's cards on the table, as every seat sees them: faces without colours (``face``)."""
    if entry is None:
        return "-"
    text = face(entry["card"]) + ("=0 (duplicate)" if entry["forced"] else "")
    if entry.get("added"):
        text += f" +{face(entry['added'])} (wild)"
    if entry.get("specials"):
        text += " with " + " ".join(face(s) for s in entry["specials"])
    return text


def render_position(pos: dict[str, Any], viewer: int | None = None, rules: TricksRules | None = None) -> str:
    """Multi-line table: teams and points, the trick on the table, and the hands (with
    ``viewer``, the other hands as counts only)."""
    points = pos.get("points", [0, 0])
    lines = [
        f"Trick game  trick {pos.get('trick', 1)}  leader P{pos['leader']}  P{pos['current_player']} to act, "
        f"phase {pos['phase']}" + ("  (trick annulled by a Skip)" if pos.get("annulled") else ""),
        f"team A (P0+P2) {points[0]} points   team B (P1+P3) {points[1]} points   "
        f"number pile {len(pos['number_pile'])}  special pile {len(pos['special_pile'])}",
    ]
    if pos["phase"] == "draw":
        lines.append(f"  may draw up to {pos.get('draw_limit', 0)} number cards")
    elif pos["phase"] == "return":
        lines.append(f"  {pos.get('returns_left', 0)} card(s) still to put back")
    for seat in range(NUM_PLAYERS):
        marker = ">" if seat == pos["current_player"] and pos["phase"] != "over" else " "
        numbers, specials = pos["hands"][seat], pos["specials"][seat]
        if viewer is None or viewer == seat:
            shown = " ".join(sorted((face(c) for c in numbers), key=int)) + "  | " + " ".join(specials)
        else:
            shown = f"{len(numbers)} numbers, {len(specials)} specials"
        team = TEAM_NAMES[game("tricks").side_of(seat, NUM_PLAYERS)]
        lines.append(f"{marker} P{seat} ({team})  table {_laid(pos['table'][seat]):<24s} {shown}")
    return "\n".join(lines)


def describe_turn(index: int, player: int, action: str, pos_before: dict[str, Any]) -> str:
    """One replay line: move number, player, action, and the table it was made on."""
    table = " ".join(_laid(e) if e else "-" for e in pos_before["table"])
    return f"{index:4d}. P{player} {action:<16s} trick {pos_before.get('trick', 1):2d}  table [{table}]"
