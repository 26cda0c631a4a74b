"""What one seat may see of a game: a whitelist of the engine's position, per game.

The terminal and the web page show only these views; the web page receives nothing else,
so it cannot show (or leak) another player's cards, the draw pile's order, whether a Wild
Draw Four was a bluff, or the random stream. A view is built from ``engine.position(i)``
and the rules object and decides no rule itself.
"""

from __future__ import annotations

from typing import Any

from envs.cards import COLOUR_NAMES, COLOURS, card_type

TEAM_NAMES = ("A", "B")


def team_of(seat: int) -> int:
    """Trick game: partners sit opposite, team A is seats 0 and 2, team B seats 1 and 3."""
    return seat % 2


def _sorted_cards(names: list[str]) -> list[str]:
    return sorted(names, key=card_type)


def uno_view(pos: dict[str, Any], seat: int, rules: Any, names: list[str]) -> dict[str, Any]:
    """Seat ``seat``'s view of a classic UNO position."""
    n = pos["num_players"]
    scores = pos.get("scores", [0] * n)
    target = rules.target_score if rules.match else None
    declared = pos.get("uno_declared", [False] * n)
    players = []
    for p in range(n):
        needed = None
        if target is not None:
            needed = max(target - scores[p], 0)
        players.append(
            {
                "seat": p,
                "name": names[p],
                "cards": len(pos["hands"][p]),
                "score": scores[p],
                "needed": needed,
                # declared UNO and still down to one card (the engine's flag outlives later draws)
                "uno": bool(declared[p]) and len(pos["hands"][p]) == 1,
                "you": p == seat,
            }
        )
    phase = pos["phase"]
    view: dict[str, Any] = {
        "game": "uno",
        "seat": seat,
        "num_players": n,
        "players": players,
        "hand": _sorted_cards(pos["hands"][seat]),
        "top": pos["discard_pile"][-1],
        "colour": pos["colour"],
        "colour_name": COLOUR_NAMES[COLOURS.index(pos["colour"])] if pos["colour"] else None,
        "direction": pos["direction"],
        "draw_pile": len(pos["draw_pile"]),
        "discard_pile": len(pos["discard_pile"]),
        "current_player": pos["current_player"],
        "phase": phase,
        "pending_draw": pos.get("pending_draw", 0),
        "hand_number": pos.get("hand_number", 0) + 1,
        "target": target,
        "scoring": rules.scoring,
        "drawn_card": None,
        "challenge_from": None,
        "revealed": None,
        "swap_seats": None,
    }
    if phase == "swap":
        view["swap_seats"] = swap_seats("uno", pos)
    if pos["current_player"] == seat and phase == "drawn":
        view["drawn_card"] = pos.get("drawn_card")
    if phase in ("challenge", "uno") and pos.get("challenge"):
        view["challenge_from"] = pos["challenge"]["player"]  # who played it; never whether it was a bluff
    revealed = pos.get("revealed")
    if revealed and revealed["to"] == seat:
        view["revealed"] = {"player": revealed["player"], "hand": _sorted_cards(revealed["hand"])}
    return view


def _table_entry(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    return {
        "card": entry["card"],
        "forced": bool(entry.get("forced", False)),
        "added": entry.get("added"),
        "specials": list(entry.get("specials") or []),
    }


def tricks_view(pos: dict[str, Any], seat: int, rules: Any, names: list[str]) -> dict[str, Any]:
    """Seat ``seat``'s view of a trick-game position (table cards are face up)."""
    points = pos.get("points", [0, 0])
    players = [
        {
            "seat": p,
            "name": names[p],
            "team": TEAM_NAMES[team_of(p)],
            "numbers": len(pos["hands"][p]),
            "specials": len(pos["specials"][p]),
            "table": _table_entry(pos["table"][p]),
            "you": p == seat,
            "partner": p != seat and team_of(p) == team_of(seat),
        }
        for p in range(4)
    ]
    return {
        "game": "tricks",
        "seat": seat,
        "num_players": 4,
        "players": players,
        "hand": _sorted_cards(pos["hands"][seat]),
        "specials": _sorted_cards(pos["specials"][seat]),
        "team": TEAM_NAMES[team_of(seat)],
        "points": {"A": points[0], "B": points[1]},
        "trick": pos.get("trick", 1),
        "leader": pos["leader"],
        "annulled": bool(pos.get("annulled", False)),
        "number_pile": len(pos["number_pile"]),
        "special_pile": len(pos["special_pile"]),
        "current_player": pos["current_player"],
        "phase": pos["phase"],
        "draw_limit": pos.get("draw_limit", 0) if pos["current_player"] == seat else None,
        "returns_left": pos.get("returns_left", 0) if pos["current_player"] == seat else None,
        # after a Reverse: the seat each "swap k" takes the table card of (the engine's rule)
        "swap_seats": swap_seats("tricks", pos) if pos["phase"] == "swap" else None,
    }


def swap_seats(game: str, pos: dict[str, Any]) -> dict[str, int]:
    """The seat each ``swap k`` of the player to act takes, by the engine's rule: in classic UNO
    (seven_zero, after a 7) the player ``k`` seats on in the direction of play, in the trick
    game (after a Reverse) the seat ``k`` places on in seat order."""
    current = pos["current_player"]
    if game == "uno":
        from envs.uno.kernel import seat_after

        n, step = pos["num_players"], pos["direction"]
        return {f"swap {k}": int(seat_after(current, k, step, n)) for k in range(1, n)}
    from envs.uno_tricks.kernel import KEEP_SEATS_ON, swap_target

    return {f"swap {k}": int(swap_target(current, k)) for k in range(1, KEEP_SEATS_ON)}


VIEWS = {"uno": uno_view, "tricks": tricks_view}
