"""Classic UNO at the table: what a seat sees, how moves are typed and told, the terminal's board.

Presentation only (``tabletop.table_game`` says who asks for each piece): the engine's
position, legal mask and rules object decide everything shown here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from envs.cards import COLOUR_NAMES, COLOURS, card_type
from envs.uno.positions import shown_to
from tabletop.moves import Choice, Move
from tabletop.scorebuddy import DEFAULT_TARGET, TARGET_PRESETS
from tabletop.table_game import Position, TableGame, View, sorted_cards
from tabletop.terminal_cards import card_text, cards_text

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tabletop.session import Event, TableSession


# ---------------------------------------------------------------------- what a seat sees
def view(pos: Position, seat: int, rules: Any, names: list[str]) -> View:
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
    seen: View = {
        "game": "uno",
        "seat": seat,
        "num_players": n,
        "players": players,
        "hand": sorted_cards(pos["hands"][seat]),
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
        "needed_label": needed_label(rules.scoring),
        "standing": rules.standing_order(scores),  # seats, leader first
        "drawn_card": None,
        "challenge_from": None,
        "revealed": None,
        "swap_seats": None,
    }
    if phase == "swap":
        seen["swap_seats"] = swap_seats(pos)
    if pos["current_player"] == seat and phase == "drawn":
        seen["drawn_card"] = pos.get("drawn_card")
    if phase in ("challenge", "uno") and pos.get("challenge"):
        seen["challenge_from"] = pos["challenge"]["player"]  # who played it; never whether it was a bluff
    revealed = shown_to(pos, seat)
    if revealed:
        seen["revealed"] = {"player": revealed["player"], "hand": sorted_cards(revealed["hand"])}
    return seen


def swap_seats(pos: Position) -> dict[str, int]:
    """seven_zero, after a 7: ``swap k`` takes the hand of the player ``k`` seats on in the
    direction of play (the engine's ``seat_after``)."""
    from envs.uno.kernel import seat_after

    current, n, step = pos["current_player"], pos["num_players"], pos["direction"]
    return {f"swap {k}": int(seat_after(current, k, step, n)) for k in range(1, n)}


# ---------------------------------------------------------------------- typed moves
def label(action: str) -> str:
    """``play W G`` -> ``W``: a Wild's four colours are one entry; other plays are their card."""
    if action.startswith("play W"):
        return action[len("play ") :].rsplit(" ", 1)[0]
    if action.startswith("play "):
        return action[len("play ") :]
    return action


def colour_choice(move: Move) -> Choice:
    """The question that completes a Wild: which colour it names."""
    options: dict[str, str] = {}
    labels = []
    for key, action in enumerate(move.actions, start=1):
        letter = action.rsplit(" ", 1)[1]
        name = COLOUR_NAMES[COLOURS.index(letter)]
        for answer in (str(key), letter.lower(), name, name[0]):
            options[answer] = action
        labels.append(f"{key} {letter} ({name})")
    return Choice(f"Colour for {move.label}?", options, tuple(labels))


def forms(action: str) -> set[str]:
    """A play typed as its card (``r7``, ``w+4 blue``), a colour as its letter or name."""
    verb, _, rest = action.partition(" ")
    found: set[str] = set()
    if verb == "play":
        found.add(rest.lower())
        if rest.startswith("W"):
            card, letter = rest.rsplit(" ", 1)
            found.add(f"{card} {COLOUR_NAMES[COLOURS.index(letter)]}".lower())
    elif verb == "colour":
        name = COLOUR_NAMES[COLOURS.index(rest)]
        found |= {rest.lower(), name, f"colour {name}", f"color {rest.lower()}", f"color {name}"}
    return found


def explain(typed: str, hand: Sequence[str], legal: str) -> str:
    """A card typed that is not a card, not held, or not playable now."""
    card = typed.split(" ")[0].upper()
    try:
        card_type(card)
    except ValueError:
        return f"{typed!r} is not a move (cards are written like R7, GS, BR, Y+2, W, W+4). Legal: {legal}"
    if hand and card not in hand:
        return f"you do not hold {card}. Legal: {legal}"
    words = typed.split()
    colours = {c.lower() for c in COLOURS} | set(COLOUR_NAMES)
    if card.startswith("W") and len(words) > 1 and words[1].lower() not in colours:
        named = ", ".join(f"{c} ({n})" for c, n in zip(COLOURS, COLOUR_NAMES, strict=True))
        return f"{words[1]!r} is not a colour: a {card} names one of {named}. Legal: {legal}"
    return f"{card} cannot be played now. Legal: {legal}"


SHORTCUTS = {"d": "draw", "p": "pass", "c": "challenge", "a": "accept", "u": "uno", "s": "silent"}
WORD_MOVES = {
    "draw": "it draws a card, or the draw cards stacked on you (with draw_anytime off, only when "
    "no card of yours can be played)",
    "pass": "it keeps a card you have just drawn",
    "challenge": "it answers a Wild Draw Four played on you",
    "accept": "it answers a Wild Draw Four played on you",
    "uno": "it is said right after you play your second-to-last card",
    "silent": "it is said right after you play your second-to-last card",
    "swap": "it follows your own 7 under the seven_zero rule: swap hands with the player that many "
    "seats on in the direction of play",
}
PHASE_TASKS = {
    "play": "play a card",
    "drawn": "play the card you drew (or keep it with pass, where the rules let you)",
    "challenge": "challenge or accept the Wild Draw Four played on you",
    "uno": "declare UNO (uno) or stay silent",
    "colour": "name the colour of the starting Wild",
    "swap": "choose whom to swap hands with (swap 1: the next player in the direction of play)",
}
HELP = (
    "a card (R7, GS, Y+2), a Wild with its colour (W G, W+4 blue; W alone asks for the colour), "
    "draw, pass, uno, silent, challenge, accept, swap 1"
)


# ---------------------------------------------------------------------- what happened
def cards_phrase(n: int) -> str:
    """``a card``, ``3 cards``, ``no card`` (both piles empty)."""
    return "a card" if n == 1 else "no card" if n == 0 else f"{n} cards"


def story(session: TableSession, event: Event, before: Position, after: Position) -> None:
    """The sentence of one move: the card and colour, who drew, swaps, the hand's end."""
    eng, rules, p, action = session.engine, session.rules, event.player, event.action
    who = session.who(p)
    hand_ended = bool(eng.hand_ended[0])
    verb, _, rest = action.partition(" ")
    if verb == "play":
        card, _, colour = rest.partition(" ")
        text = f"{who} played {card}" + (f", naming {COLOUR_NAMES[COLOURS.index(colour)]}" if colour else "")
    elif verb == "colour":
        text = f"{who} named {COLOUR_NAMES[COLOURS.index(rest)]} for the starting Wild"
    elif verb == "swap":
        other = swap_seats(before)[action]
        text = f"{who} swapped hands with {session.who(other, 'you')}"
    else:
        text = {
            "draw": f"{who} drew {cards_phrase(len(after['hands'][p]) - len(before['hands'][p]))}",
            "pass": f"{who} kept the drawn card",
            "challenge": f"{who} challenged the Wild Draw Four",
            "accept": f"{who} accepted the Wild Draw Four",
            "uno": f"{who} declared UNO!",
            "silent": f"{who} did not declare UNO",
        }[action]
    # seven_zero: a 0 passes every hand on once its UNO decision, if any, is taken
    passed_on = (
        rules.seven_zero
        and not hand_ended
        and after["phase"] != "uno"
        and after["discard_pile"][-1][1:] == "0"
        and (verb == "play" or before["phase"] == "uno")
    )
    if passed_on:
        text += "; every hand passed one seat on"
    swapped_mine = verb == "swap" and session.seat in (p, swap_seats(before)[action])  # else others swapped
    if not hand_ended and (passed_on or swapped_mine):
        text += f" (your hand now: {' '.join(sorted(after['hands'][session.seat]))})"
    elif not hand_ended and verb != "swap":  # hands that only changed owners drew nothing
        grew = [
            (s, len(after["hands"][s]) - len(before["hands"][s]))
            for s in range(session.num_players)
            if len(after["hands"][s]) > len(before["hands"][s]) and not (s == p and action == "draw")
        ]
        for s, n in grew:
            text += f"; {session.who(s, 'you')} drew {n}"
        got = session.received(before, after)
        if got:
            text += f" (you got {' '.join(got)})"
    revealed = shown_to(after, session.seat)
    if action == "challenge" and p == session.seat and revealed:
        shown = sorted_cards(revealed["hand"])  # the challenger, and only it, sees the hand
        text += f"; you saw the hand of {session.names[revealed['player']]}: {' '.join(shown)}"
    if hand_ended:
        winner = int(eng.hand_winner[0])
        points = [int(x) for x in eng.hand_points[0]]
        scores = [int(x) for x in (eng.final_scores[0] if eng.phase[0] == eng.over_phase else eng.scores[0])]
        text += f". {session.names[winner]} went out and the hand is over"
        event.hand_over = {
            "winner": winner,
            "points": points,
            "scores": scores,
            "needed": [max(rules.target_score - s, 0) for s in scores] if rules.match else None,
            "order": rules.standing_order(scores),  # leader first
        }
    event.text = text


def opening(session: TableSession, pos: Position) -> str:
    """What the first card of a fresh hand did, read from the position the engine dealt
    (who drew, who plays first, which way play goes): the engine applied it, this tells it."""
    first, starter, current = pos["discard_pile"][0], pos["hand_starter"], pos["current_player"]
    hand = f"Hand {pos['hand_number'] + 1}" if session.rules.match else "New game"
    parts = [f"{hand}: the first card is {first}"]
    if pos["direction"] < 0:
        parts.append("play goes the other way")
    for s, cards in enumerate(pos["hands"]):
        if len(cards) > session.rules.hand_size:
            parts.append(f"{session.who(s)} drew {len(cards) - session.rules.hand_size}")
    if current != starter and pos["direction"] > 0:
        parts.append(f"{session.who(starter)} {'miss' if starter == session.seat else 'misses'} the turn")
    you = current == session.seat
    if pos["phase"] == "colour":
        name, play = ("name", "play") if you else ("names", "plays")
        parts.append(f"{session.who(current)} {name} its colour and {play}")
    else:
        parts.append(f"{session.who(current)} {'play' if you else 'plays'} first")
    return "; ".join(parts)


def game_over(session: TableSession, winners: list[int], scores: list[int]) -> dict[str, Any]:
    """The winners by name and the final scores, with every player's name and the leader-first
    order (so the result says whose score is whose); each winning seat counts a win in the tally."""
    names = [session.names[s] for s in winners]
    for name in names:
        session.tally.wins[name] = session.tally.wins.get(name, 0) + 1
    return {
        "winners": winners,
        "names": names,
        "scores": scores,
        "players": list(session.names),
        "order": session.rules.standing_order(scores),
        "match": bool(session.rules.match),
    }


def standings(info: dict[str, Any], names: list[str], rules: Any) -> Table:
    """After a hand of a match: each player's points for it, total and what it still needs,
    the leader first (the lowest total under reverse scoring)."""
    table = Table(title=f"Hand over: {names[info['winner']]} went out")
    for col in ("player", "this hand", "total", needed_label(rules.scoring)):
        table.add_column(col)
    order = rules.standing_order(info["scores"])
    for s in order:
        needed = "" if info["needed"] is None else str(info["needed"][s])
        table.add_row(names[s], f"+{info['points'][s]}", str(info["scores"][s]), needed)
    return table


def needed_label(scoring: str) -> str:
    """What the column of points left to the target means: to reach it, or room before it."""
    return "room left" if scoring == "reverse" else "needed"


def over_line(info: dict[str, Any]) -> str:
    """``Match over: You won (You 512 · P1 heuristic 130)``: each score beside its player's
    name, the leader first."""
    over = "Match over" if info.get("match") else "Game over"
    scores = " · ".join(f"{info['players'][s]} {info['scores'][s]}" for s in info["order"])
    return f"{over}: {', '.join(info['names'])} won ({scores})"


# ---------------------------------------------------------------------- the terminal
def board(seen: View) -> Table:
    """The players' cards, scores and what each still needs, with whose turn it is."""
    arrow = "→ seat order" if seen["direction"] == 1 else "← reverse order"
    title = f"UNO · hand {seen['hand_number']} · {arrow}"
    if seen["target"]:
        title += f" · match to {seen['target']} ({seen['scoring']} scoring)"
    table = Table(title=title, expand=False)
    for col in ("", "player", "cards", "score", seen["needed_label"], ""):
        table.add_column(col)
    for p in seen["players"]:
        turn = "▶" if p["seat"] == seen["current_player"] and not seen["over"] else ""
        needed = "" if p["needed"] is None else str(p["needed"])
        table.add_row(turn, p["name"], str(p["cards"]), str(p["score"]), needed, "UNO!" if p["uno"] else "")
    return table


def panel(seen: View) -> list[RenderableType]:
    """The board, the top card and colour, the person's hand and any hand a challenge showed."""
    top = Text("Top card ").append_text(card_text(seen["top"]))
    top.append(f"  colour {seen['colour_name'] or 'to be named'}  draw pile {seen['draw_pile']}")
    shown: list[RenderableType] = [board(seen), top, Text("Your hand: ").append_text(cards_text(seen["hand"]))]
    if seen["revealed"]:
        hand = seen["revealed"]
        name = seen["players"][hand["player"]]["name"]
        shown.append(Text(f"At your challenge {name} held: ").append_text(cards_text(hand["hand"])))
    return shown


def prompt(seen: View) -> str:
    """The question the person's phase asks."""
    phase = seen["phase"]
    if phase == "uno":
        return "You are down to one card: declare UNO? (u = uno, s = silent)"
    if phase == "challenge":
        who = seen["players"][seen["challenge_from"]]["name"] if seen["challenge_from"] is not None else "Someone"
        return f"{who} played a Wild Draw Four on you: challenge it? (c = challenge, a = accept)"
    if phase == "colour":
        return "The starting card is a Wild: name its colour (R, Y, G, B)"
    if phase == "drawn":
        keep = any("pass" in m["actions"] for m in seen.get("moves", []))
        return f"You drew {seen['drawn_card']}: " + ("play it or keep it (pass)" if keep else "play it")
    if phase == "swap" and seen.get("swap_seats"):
        names = [p["name"] for p in seen["players"]]
        seats = ", ".join(f"{k} = {names[s]}" for k, s in seen["swap_seats"].items())
        return f"You played a 7: choose whom to swap hands with ({seats})"
    if seen["pending_draw"]:  # what may be stacked is what the engine allows now (a Draw Two, a Wild Draw Four)
        plays = [m["label"] for m in seen.get("moves", []) if m["actions"][0].startswith("play ")]
        answer = f"stack {' or '.join(plays)}, or draw them" if plays else "draw them"
        return f"A stack of {seen['pending_draw']} draw cards waits: {answer}"
    return "Your move"


UNO_TABLE = TableGame(
    view=view,
    swap_seats=swap_seats,
    label=label,
    follow_up=colour_choice,
    asks_for="colour",
    forms=forms,
    explain=explain,
    shortcuts=SHORTCUTS,
    word_moves=WORD_MOVES,
    phase_tasks=PHASE_TASKS,
    counted=(),
    help=HELP,
    story=story,
    opening=opening,
    game_over=game_over,
    panel=panel,
    prompt=prompt,
    over_line=over_line,
    standings=standings,
    # a match's presets, and the house rules the form's checkboxes set
    page_options={"targets": list(TARGET_PRESETS), "default_target": DEFAULT_TARGET, "house_rules": True},
)
