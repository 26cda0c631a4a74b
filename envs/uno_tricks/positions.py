"""Readable positions of trick games: engine state <-> JSON-serialisable dict.

Card names are those of ``envs.cards`` (``R7``, ``GS``, ``Y+2``, ``W``, ``W+4``). Since
colours never matter in this game, a position may also name a card without its colour:
``"7"`` for a number card, ``"skip"``, ``"reverse"``, ``"+2"``, ``"wild"``, ``"+4"`` for
specials; such a card takes the first colour the deck still has. Positions written by
the engine always carry full names. A position may hold part of the deck.

Keys (required first; the others default as shown)::

    hands            per seat, its number cards             [["R7", "G0", ...], ...] x4;
                     with exchange_returns "drawn" (hand sizes never change) a seat holds
                     at most 11 - trick, one fewer once it has laid this trick (plus
                     returns_left while it puts cards back); with "two" hands may grow
    specials         per seat, its special cards            [["Y+2", "W"], ...] x4
    number_pile      number cards, top first
    special_pile     special cards, top first
    table            per seat: null (not laid this trick) or {"card": "R7", "forced": false,
                     "added": "G3" or null (card a Wild added), "specials": ["W"],
                     "laid_by": seat that laid the card (another after a Reverse swap;
                     default the seat itself)}
    leader           seat that led this trick
    current_player   seat to act
    phase            "lay", "draw", "return", "swap" (or "over")
    trick            trick number, from 1 (at most 10**6; ten tricks with "drawn")   1
    annulled         a Skip was laid this trick (true/false)                 false
    draw_limit       phase draw: 2 after a +2, 4 after a +4     from the table
    returns_left     phase return: number cards still to put back (1..4 with "drawn",
                     1..2 with "two")                                        0
    points_piles     per team (A: seats 0+2, B: 1+3), the cards it took       [[], []]
    points           per team, checked against points_piles             derived
    rng              {"game_seed": int, "counter": int}, both 0..2**64-1   from the seed

Every value is checked for its type and range: a mistake is a ``ValueError`` naming the key
and what is allowed (booleans are true/false, never strings or numbers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.cards import (
    KIND_DRAW_TWO,
    KIND_REVERSE,
    KIND_SKIP,
    KIND_WILD,
    KIND_WILD_DRAW_FOUR,
    NUM_CARD_TYPES,
    TYPE_COPIES,
    TYPE_KIND,
    TYPE_NAMES,
    TYPE_NUMBER,
    card_type,
    check_within_deck,
)
from envs.core import check_rng_state, read_bool, read_int, read_list, shown_value
from envs.positions import check_keys, read_rng, read_seat, rng_state
from envs.uno_tricks.engine import PHASE_NAMES, TricksEngine
from envs.uno_tricks.kernel import NUMBER_TYPE_IDS, SPECIAL_TYPE_IDS
from envs.uno_tricks.observation import FIELDS, SPECIAL_KINDS, SPECIAL_NAMES
from envs.uno_tricks.rules import LITERAL_RETURNS, NUM_PLAYERS, NUMBERS_DEALT, PLUS2_DRAW, PLUS4_DRAW

REQUIRED = ("hands", "specials", "number_pile", "special_pile", "table", "leader", "current_player", "phase")
OPTIONAL = (
    "game",
    "num_players",
    "trick",
    "annulled",
    "draw_limit",
    "returns_left",
    "points_piles",
    "points",
    "rng",
)
_SPECIAL_ALIASES = {name.upper(): i for i, name in enumerate(SPECIAL_NAMES)}
#: Most tricks a game may have played: the observation's bound (the literal exchange rule
#: has no fixed end; with ``exchange_returns="drawn"`` a game has ten).
MAX_TRICK = int(FIELDS["trick"].high)


def face(name: str) -> str:
    """A card as this game reads it, without its colour (``"7"``, ``"skip"``, ``"+2"``): what
    a seat may be shown of a card another seat lays. The engine lays the first colour a hand
    holds, so a laid card's colour would tell what else that hand holds."""
    t = card_type(name)
    number = int(TYPE_NUMBER[t])
    return str(number) if number >= 0 else SPECIAL_NAMES[SPECIAL_KINDS.index(int(TYPE_KIND[t]))]


def _names(types: Sequence[int] | np.ndarray) -> list[str]:
    return [TYPE_NAMES[int(t)] for t in types]


def _hand_names(counts: np.ndarray, numbers: bool) -> list[str]:
    keep = (TYPE_NUMBER >= 0) == numbers
    return _names(np.repeat(np.arange(NUM_CARD_TYPES), np.where(keep, counts, 0)))


def position_of(eng: TricksEngine, i: int) -> dict[str, Any]:
    """The position of game ``i`` of ``eng``."""
    table = []
    for seat in range(NUM_PLAYERS):
        if eng.table_card[i, seat] < 0:
            table.append(None)
            continue
        added = eng.table_added[i, seat]
        table.append(
            {
                "card": TYPE_NAMES[eng.table_card[i, seat]],
                "forced": bool(eng.table_forced[i, seat]),
                "added": TYPE_NAMES[added] if added >= 0 else None,
                "specials": _names(t for t in eng.table_specials[i, seat] if t >= 0),
                "laid_by": int(eng.table_laid_by[i, seat]),
            }
        )
    return {
        "game": "tricks",
        "hands": [_hand_names(eng.hands[i, p], numbers=True) for p in range(NUM_PLAYERS)],
        "specials": [_hand_names(eng.hands[i, p], numbers=False) for p in range(NUM_PLAYERS)],
        "number_pile": _names(eng.numbers.listing(i)),
        "special_pile": _names(eng.specials.listing(i)),
        "table": table,
        "leader": int(eng.leader[i]),
        "current_player": int(eng.current[i]),
        "phase": PHASE_NAMES[eng.phase[i]],
        "trick": int(eng.trick[i]),
        "annulled": bool(eng.annulled[i]),
        "draw_limit": int(eng.draw_limit[i]),
        "returns_left": int(eng.returns_left[i]),
        "points": [int(x) for x in eng.points[i]],
        "points_piles": [_hand_names(eng.points_piles[i, t], numbers=True) for t in range(2)],
        "rng": rng_state(eng, i),
    }


class _CardNames:
    """Resolves the card names of one position: full names first, then colourless ones
    (each takes the first colour the deck still has), so every card stays within the deck."""

    def __init__(self) -> None:
        self.slots: list[tuple[str, str, bool]] = []  # (name, where, must be a number card)

    def add(self, names: Any, where: str, number: bool) -> list[int]:
        if not isinstance(names, (list, tuple)):
            raise ValueError(f"{where} must be a list of card names, got {names!r}")
        first = len(self.slots)
        self.slots += [(str(n), where, number) for n in names]
        return list(range(first, len(self.slots)))

    def resolve(self) -> list[int]:
        types: list[int | None] = [None] * len(self.slots)
        aliases = []
        for j, (name, where, number) in enumerate(self.slots):
            key = name.strip().upper()
            if (number and key.isdigit() and len(key) == 1) or (not number and key in _SPECIAL_ALIASES):
                aliases.append(j)
                continue
            try:
                t = card_type(name)
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
            if (TYPE_NUMBER[t] >= 0) != number:
                raise ValueError(f"{where}: {name} is {'a special' if number else 'a number'} card")
            types[j] = t
        used = np.bincount([t for t in types if t is not None], minlength=NUM_CARD_TYPES)
        check_within_deck(used, "the position's cards")
        for j in aliases:
            name, where, number = self.slots[j]
            key = name.strip().upper()
            options = NUMBER_TYPE_IDS[int(key)] if number else SPECIAL_TYPE_IDS[_SPECIAL_ALIASES[key]]
            free = [int(t) for t in options if used[t] < TYPE_COPIES[t]]
            if not free:
                raise ValueError(f"{where}: no {name} is left in the deck for this position")
            types[j] = free[0]
            used[free[0]] += 1
        return [int(t) for t in types]


def load_position(eng: TricksEngine, j: int, pos: dict[str, Any]) -> None:
    """Set game ``j`` of ``eng`` to ``pos``, refusing anything inconsistent."""
    check_keys(pos, REQUIRED, OPTIONAL, "tricks", "the trick game")
    num_players = pos.get("num_players", NUM_PLAYERS)
    if isinstance(num_players, bool) or num_players != NUM_PLAYERS:
        raise ValueError(
            f"num_players must be 4: the trick game is for exactly 4 players, got {shown_value(num_players)}"
        )
    for key, size in (("hands", NUM_PLAYERS), ("specials", NUM_PLAYERS), ("table", NUM_PLAYERS)):
        if not isinstance(pos[key], (list, tuple)) or len(pos[key]) != size:
            raise ValueError(f"{key} must list {size} entries, one per seat, got {shown_value(pos[key])}")
    piles = pos.get("points_piles", [[], []])
    if not isinstance(piles, (list, tuple)) or len(piles) != 2:
        raise ValueError(f"points_piles must list 2 piles (team A, team B), got {shown_value(piles)}")
    drawn_returns = eng.rules.exchange_returns == "drawn"

    names = _CardNames()
    hands = [names.add(pos["hands"][p], f"hands[{p}]", True) for p in range(NUM_PLAYERS)]
    specials = [names.add(pos["specials"][p], f"specials[{p}]", False) for p in range(NUM_PLAYERS)]
    number_pile = names.add(pos["number_pile"], "number_pile", True)
    special_pile = names.add(pos["special_pile"], "special_pile", False)
    team_piles = [names.add(piles[t], f"points_piles[{t}]", True) for t in range(2)]
    table = []
    for seat, entry in enumerate(pos["table"]):
        if entry is None:
            table.append(None)
            continue
        where = f"table[{seat}]"
        if not isinstance(entry, dict) or "card" not in entry:
            raise ValueError(
                f"{where} must be null or {{'card': ..., 'forced': ..., 'added': ..., 'specials': [...]}}, "
                f"got {shown_value(entry)}"
            )
        extra = set(entry) - {"card", "forced", "added", "specials", "laid_by"}
        if extra:
            raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
        card = names.add([entry["card"]], f"{where}.card", True)[0]
        added = entry.get("added")
        added_slot = None if added is None else names.add([added], f"{where}.added", True)[0]
        laid_specials = names.add(entry.get("specials", []), f"{where}.specials", False)
        laid_by = read_seat(entry.get("laid_by", seat), NUM_PLAYERS, f"{where}.laid_by")
        forced = read_bool(entry.get("forced", False), f"{where}.forced")
        table.append((card, forced, added_slot, laid_specials, laid_by))
    types = names.resolve()

    def counts(slots: list[int]) -> np.ndarray:
        return np.bincount([types[s] for s in slots], minlength=NUM_CARD_TYPES)

    phase_name = pos["phase"]
    if not isinstance(phase_name, str) or phase_name not in PHASE_NAMES:
        raise ValueError(f"phase {shown_value(phase_name)} is not one of {', '.join(PHASE_NAMES)}")
    if phase_name == "over" and eng.auto_reset:
        raise ValueError("phase 'over' (a finished game) loads only with auto_reset=False")
    leader = read_seat(pos["leader"], NUM_PLAYERS, "leader")
    current = read_seat(pos["current_player"], NUM_PLAYERS, "current_player")
    hand_counts = np.stack([counts(hands[p]) + counts(specials[p]) for p in range(NUM_PLAYERS)])
    numbers_held = (hand_counts * (TYPE_NUMBER >= 0)).sum(axis=1)
    if phase_name == "over" and (numbers_held.any() or any(entry is not None for entry in table)):
        raise ValueError(
            "phase 'over' needs the number cards played out and the table cleared: the game ends after the "
            "trick in which the last number card was laid (kernel.next_leader)"
        )

    eng._clear_table(np.array([j]))
    for seat, entry in enumerate(table):
        if entry is None:
            continue
        card, forced, added_slot, laid_specials, laid_by = entry
        if laid_by != seat and table[laid_by] is None:
            raise ValueError(f"table[{seat}].laid_by: seat {laid_by} has no card on the table to have swapped")
        eng.table_laid_by[j, seat] = laid_by
        kinds = sorted(TYPE_KIND[types[s]] for s in laid_specials)
        if len(kinds) > 2 or (len(kinds) == 2 and kinds != [KIND_DRAW_TWO, KIND_WILD_DRAW_FOUR]):
            raise ValueError(f"table[{seat}].specials: one special card, or the +2 and +4 pair")
        eng.table_card[j, seat] = types[card]
        eng.table_forced[j, seat] = forced
        eng.table_added[j, seat] = -1 if added_slot is None else types[added_slot]
        ordered = sorted((types[s] for s in laid_specials), key=lambda t: TYPE_KIND[t])  # +2 before +4
        eng.table_specials[j, seat, : len(ordered)] = ordered
    laid = [s for s in range(NUM_PLAYERS) if eng.table_card[j, s] >= 0]
    layers = sorted(int(eng.table_laid_by[j, s]) for s in laid)
    if layers != laid:  # a swap moves two cards: every laid card still has its own layer
        raise ValueError(
            f"table laid_by {layers} must name each seat with a card on the table once ({laid}): a Reverse "
            "swaps two cards, so every card laid still has its own layer"
        )
    reverses = [TYPE_KIND[t] for t in eng.table_specials[j].ravel() if t >= 0].count(KIND_REVERSE)
    if any(eng.table_laid_by[j, s] != s for s in laid) and not reverses:
        raise ValueError("table laid_by: cards change seats only by a Reverse swap, and none is on the table")
    laid_here = eng.table_card[j, current] >= 0
    own_specials = [TYPE_KIND[t] for t in eng.table_specials[j, current] if t >= 0]
    draw_limit = returns_left = 0
    if phase_name == "lay":
        if laid_here:
            raise ValueError(f"phase 'lay': player {current} has already laid this trick (table[{current}])")
        if numbers_held[current] == 0:
            raise ValueError(f"phase 'lay': player {current} holds no number card to lay")
    elif phase_name in ("draw", "return", "swap") and not laid_here:
        raise ValueError(f"phase '{phase_name}' follows the current player's card: table[{current}] is empty")
    if phase_name == "draw":
        limits = {PLUS2_DRAW: KIND_DRAW_TWO, PLUS4_DRAW: KIND_WILD_DRAW_FOUR}
        implied = PLUS4_DRAW if KIND_WILD_DRAW_FOUR in own_specials else PLUS2_DRAW
        draw_limit = read_int(pos.get("draw_limit", implied), "draw_limit", PLUS2_DRAW, PLUS4_DRAW)
        if draw_limit not in limits or limits[draw_limit] not in own_specials or len(own_specials) != 1:
            raise ValueError(
                f"phase 'draw' follows a +2 (draw_limit {PLUS2_DRAW}) or a +4 (draw_limit {PLUS4_DRAW}) laid alone"
            )
    elif read_int(pos.get("draw_limit", 0), "draw_limit", 0, PLUS4_DRAW):
        raise ValueError("draw_limit is only set in phase 'draw'")
    # Cards still to put back: as many as were drawn (at most a +4's) or exactly two (the literal rule).
    most_returns = PLUS4_DRAW if drawn_returns else LITERAL_RETURNS
    if phase_name == "return":
        exchanges = {KIND_DRAW_TWO: PLUS2_DRAW, KIND_WILD_DRAW_FOUR: PLUS4_DRAW}
        if len(own_specials) != 1 or own_specials[0] not in exchanges:
            raise ValueError("phase 'return' follows a +2 or a +4 laid alone (and its draw)")
        if drawn_returns:  # as many as drawn: at most the card's draw
            most_returns = exchanges[own_specials[0]]
        returns_left = read_int(pos.get("returns_left", 0), "returns_left", 1, most_returns)
        if returns_left > numbers_held[current]:
            raise ValueError(f"phase 'return' needs returns_left <= the {numbers_held[current]} number cards held")
    elif read_int(pos.get("returns_left", 0), "returns_left", 0, most_returns):
        raise ValueError("returns_left is only set in phase 'return'")
    if phase_name == "swap":
        others = [s for s in range(NUM_PLAYERS) if s != current and eng.table_card[j, s] >= 0]
        if KIND_REVERSE not in own_specials or not others:
            raise ValueError("phase 'swap' follows a Reverse, with another card on the table")

    if phase_name != "over":  # the trick's turn order (kernel.end_turn): from the leader, in seat order
        order = [(leader + i) % NUM_PLAYERS for i in range(NUM_PLAYERS)]
        at = order.index(current)
        for seat in order[:at]:  # before the player to act: laid, or passed over (no number card)
            if eng.table_card[j, seat] < 0 and numbers_held[seat] > 0:
                raise ValueError(
                    f"table[{seat}] is empty: seat {seat} lays before player {current} in this trick (led by "
                    f"{leader}) and holds a number card"
                )
        for seat in order[at + 1 :]:  # after it: not laid yet
            if eng.table_card[j, seat] >= 0:
                raise ValueError(
                    f"table[{seat}]: seat {seat} lays after player {current} in this trick (led by {leader}), "
                    "so it cannot have laid yet"
                )
        if current != leader and eng.table_card[j, leader] < 0:
            raise ValueError(f"table[{leader}] is empty: the leader lays first in its trick")
    for seat in range(NUM_PLAYERS):
        specials_here = [TYPE_KIND[t] for t in eng.table_specials[j, seat] if t >= 0]
        if eng.table_added[j, seat] >= 0 and KIND_WILD not in specials_here:
            raise ValueError(f"table[{seat}].added: a card is added only by a Wild laid at that seat")
    # A card is a forced duplicate exactly when its number was laid before it this trick (forced
    # ones included, a Wild's added card not): in laying order, each laid_by from the leader on.
    laid = [s for s in range(NUM_PLAYERS) if eng.table_card[j, s] >= 0]
    seen: set[int] = set()
    for seat in sorted(laid, key=lambda s: (eng.table_laid_by[j, s] - leader) % NUM_PLAYERS):
        number = int(TYPE_NUMBER[eng.table_card[j, seat]])
        if bool(eng.table_forced[j, seat]) != (number in seen):
            raise ValueError(
                f"table[{seat}].forced: a card is a forced duplicate exactly when its number ({number}) was "
                "laid before it this trick"
            )
        # ... laid only by a hand holding nothing else; only a lone +2/+4 (its exchange) changes
        # that hand's numbers within the trick (specials stay at their layer's seat)
        layer = int(eng.table_laid_by[j, seat])
        layer_kinds = [TYPE_KIND[t] for t in eng.table_specials[j, layer] if t >= 0]
        exchanged = (layer_kinds.count(KIND_DRAW_TWO) + layer_kinds.count(KIND_WILD_DRAW_FOUR)) == 1
        held = {int(n) for n in TYPE_NUMBER[hand_counts[layer] > 0] if n >= 0}
        if eng.table_forced[j, seat] and not exchanged and not held <= seen:
            raise ValueError(
                f"hands[{layer}] holds {sorted(held - seen)}, not laid before its forced duplicate "
                f"(table[{seat}]): a seat lays a forced duplicate only when every number it holds is on the table "
                "(after a lone +2/+4 the exchange may change that)"
            )
        seen.add(number)
    # The trick count: ten tricks when hand sizes never change (the hand sizes below keep a
    # live game within them), the observation's bound under the literal rule, where hands
    # grow and shrink. A finished game may come from either rule.
    trick = read_int(pos.get("trick", 1), "trick", 1, MAX_TRICK)
    if drawn_returns and phase_name != "over" and trick > NUMBERS_DEALT:  # (a finished game: either rule)
        raise ValueError(
            f"trick {trick}: with exchange_returns 'drawn' {NUMBERS_DEALT} tricks are played (one number card "
            f"laid per trick, hand sizes never change), so a game in play is at trick {NUMBERS_DEALT} at most"
        )
    if drawn_returns:
        # Every seat is dealt ten number cards and lays one per trick; an exchange puts back as
        # many as it drew, so a seat holds at most 11 - trick, one fewer once it has laid,
        # plus the cards still to put back.
        for seat in range(NUM_PLAYERS):
            laid = int(eng.table_card[j, seat] >= 0)
            limit = NUMBERS_DEALT + 1 - trick - laid + (returns_left if seat == current else 0)
            if numbers_held[seat] > max(limit, 0):
                raise ValueError(
                    f"hands[{seat}] holds {int(numbers_held[seat])} number cards; at trick {trick} a seat holds at "
                    f"most {max(limit, 0)} ({NUMBERS_DEALT} dealt, one laid per trick"
                    + (", this trick's already" if laid else "")
                    + (f", {returns_left} still to put back" if returns_left and seat == current else "")
                    + "): with exchange_returns 'drawn' hand sizes never change"
                )
    # a Skip laid this trick annuls it (kernel.lay_card): the flag follows the table, and a
    # position that leaves it out gets it from there
    skips = bool((TYPE_KIND[eng.table_specials[j][eng.table_specials[j] >= 0]] == KIND_SKIP).any())
    annulled = read_bool(pos.get("annulled", skips), "annulled")
    if annulled != skips and phase_name != "over":
        said = "a trick is annulled only by a Skip on the table" if annulled else "a Skip on the table annuls the trick"
        raise ValueError(f"annulled: {said}")
    if pos.get("rng") is not None:
        check_rng_state(pos["rng"])

    eng.hands[j] = hand_counts
    eng.numbers.set(j, [types[s] for s in number_pile])
    eng.specials.set(j, [types[s] for s in special_pile])
    eng.points_piles[j] = np.stack([counts(team_piles[t]) for t in range(2)])
    eng._sync_summaries(np.array([j]))
    if "points" in pos:
        points = read_list(pos["points"], "points", 2, "integers (team A, team B)")
        if any(isinstance(x, bool) for x in points) or points != eng.points[j].tolist():
            raise ValueError(
                f"points {shown_value(pos['points'])} differ from the points piles' {eng.points[j].tolist()}"
            )
    eng.leader[j] = leader
    eng.current[j] = current
    eng.phase[j] = PHASE_NAMES.index(phase_name)
    eng.trick[j] = trick
    eng.annulled[j] = annulled
    eng.draw_limit[j] = draw_limit
    eng.returns_left[j] = returns_left
    read_rng(eng, j, pos)
