"""Readable positions of classic UNO games: engine state <-> JSON-serialisable dict.

A position is how a game is shown, saved, shared in a bug report or set up as a puzzle.
``UnoEngine.from_positions([eng.position(i)])`` continues game ``i`` exactly: the
position carries the game's random stream (``rng``), so even reshuffles and the next
hands of a match repeat. A position may hold only part of the deck; no card may appear
more often than in the 108-card deck.

Keys (required first; the others default as shown)::

    num_players      2..10
    hands            list per seat of card names, e.g. [["R7", "W"], ["GS", "Y+2"]]; no
                     hand is empty until the hand is over (phase "over", where one is;
                     a finished game loads as finished, its result is its record's)
    draw_pile        card names, top card first (draws take them in this order)
    discard_pile     card names, top card last (must not be empty)
    colour           colour in force "R"/"Y"/"G"/"B" (a coloured top card's own colour;
                     a Wild's named colour); null only in phase "colour"
    direction        +1 (seat order) or -1
    current_player   seat to act
    phase            "play", "drawn", "challenge", "uno", "colour", "swap" (or "over")
    scores           match points per seat, 0..target_score + 1240    [0, ...]
    pending_draw     stacked draw cards to draw (stacking rules), 2 per Draw Two
                     and 4 per stacked Wild Draw Four: an even number 0..32   0
    drawn_card       the card just drawn, in phase "drawn"           null
    challenge        in phase "challenge": {"player": seat that played the Wild Draw
                     Four, "previous_colour": colour in force before it, "guilty":
                     whether that player held a card of that colour}    null
    uno_declared     per seat: declared UNO and not played since (true/false)  all false
    revealed         {"to": seat, "player": seat, "hand": [...]}: the hand of the Wild Draw
                     Four's player (next to the challenger) as it was when challenged,
                     shown to the challenger until its next decision; the shown player
                     may have drawn or played since, so it need not be the hand held now,
                     but it is never empty and holds only cards of this game; a list of
                     such, one per seat, when several challengers still see one   null
    hand_number      hands played before this one in the match, 0..10**9  0
    hand_starter     first player of the current hand                   0
    match_rewards    points reward summed over the match so far: finite numbers,
                     at most 1240 per hand played (hand_number + 1) either way   [0.0, ...]
    void_draws       per seat, per colour R Y G B: -1, or that seat was seen without the
                     colour (it drew with nothing to play) and has taken this many unseen
                     cards since, 0..its hand size (public history)   all -1
    chosen_colours   per seat: the colour it last chose in this hand (named for a wild,
                     or switched to with a card of another colour than the one in
                     force), R, Y, G or B, or null (public history)   all null
    rng              {"game_seed": int, "counter": int}, both 0..2**64-1   from the seed

Every value is checked for its type and range: a mistake is a ``ValueError`` naming the key
and what is allowed (booleans are true/false, never strings or numbers).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.cards import (
    COLOURS,
    DECK_SIZE,
    KIND_DRAW_TWO,
    NUM_CARD_TYPES,
    TYPE_COLOUR,
    TYPE_COPIES,
    TYPE_KIND,
    TYPE_NAMES,
    WILD,
    WILD_DRAW_FOUR,
    card_name,
    card_type,
    check_within_deck,
    colour_index,
    names_from_counts,
)
from envs.core import check_rng_state, read_bool, read_int, read_list, read_number, shown_value
from envs.positions import check_keys, read_rng, read_seat, rng_state
from envs.uno.engine import PHASE_NAMES, UnoEngine
from envs.uno.kernel import (
    DRAW_TWO_DRAW,
    SWAP_KIND,
    WILD_DRAW_FOUR_DRAW,
    holds_colour,
    pending_bluffers,
    playable,
)
from envs.uno.observation import DECK_POINTS
from envs.uno.rules import match_over_one

REQUIRED = ("num_players", "hands", "draw_pile", "discard_pile", "colour", "direction", "current_player", "phase")
OPTIONAL = (
    "game",
    "scores",
    "pending_draw",
    "drawn_card",
    "challenge",
    "uno_declared",
    "revealed",
    "hand_number",
    "hand_starter",
    "match_rewards",
    "void_draws",
    "chosen_colours",
    "rng",
)
#: Most hands a position's match may have played (``hand_number``): far more than any match needs.
MAX_HAND_NUMBER = 10**9
#: Stacked draw cards: 2 for each of the deck's 8 Draw Twos, 4 for each of its 4 Wild Draw Fours.
MOST_FROM_DRAW_TWOS = DRAW_TWO_DRAW * int(TYPE_COPIES[TYPE_KIND == KIND_DRAW_TWO].sum())
MAX_PENDING_DRAW = MOST_FROM_DRAW_TWOS + WILD_DRAW_FOUR_DRAW * int(TYPE_COPIES[WILD_DRAW_FOUR])


def position_of(eng: UnoEngine, i: int) -> dict[str, Any]:
    """The position of game ``i`` of ``eng``."""
    P = eng.num_players
    phase = int(eng.phase[i])
    challenge = None
    if eng.challenge_colour[i] >= 0:  # a Wild Draw Four waits for its answer (phase challenge, or uno before it)
        bluffer = int(pending_bluffers(eng.current[i], phase, eng.direction[i], P))
        challenge = {
            "player": int(bluffer),
            "previous_colour": COLOURS[eng.challenge_colour[i]],
            "guilty": bool(eng.challenge_guilty[i]),
        }
    shown = [
        {"to": v, "player": int(eng.revealed_from[i, v]), "hand": names_from_counts(eng.revealed_hand[i, v])}
        for v in range(P)
        if eng.revealed_from[i, v] >= 0
    ]
    revealed = shown[0] if len(shown) == 1 else (shown or None)  # one shown hand, or a list of them
    return {
        "game": "uno",
        "num_players": P,
        "hands": [names_from_counts(eng.hands[i, p]) for p in range(P)],
        "draw_pile": [TYPE_NAMES[t] for t in eng.draw_pile[i, eng.draw_top[i] : eng.draw_end[i]]],
        "discard_pile": [TYPE_NAMES[t] for t in eng.discard[i, : eng.discard_len[i]]],
        "colour": COLOURS[eng.colour[i]] if eng.colour[i] >= 0 else None,
        "direction": int(eng.direction[i]),
        "current_player": int(eng.current[i]),
        "phase": PHASE_NAMES[phase],
        "scores": [int(s) for s in eng.scores[i]],
        "pending_draw": int(eng.pending_draw[i]),
        "drawn_card": card_name(eng.drawn_card[i]) if eng.drawn_card[i] >= 0 else None,
        "challenge": challenge,
        "uno_declared": [bool(x) for x in eng.uno_declared[i]],
        "revealed": revealed,
        "hand_number": int(eng.hand_number[i]),
        "hand_starter": int(eng.hand_starter[i]),
        "match_rewards": [float(x) for x in eng.match_rewards[i]],
        "void_draws": eng.void_draws[i].tolist(),
        "chosen_colours": [COLOURS[c] if c >= 0 else None for c in eng.chosen_colour[i]],
        "rng": rng_state(eng, i),
    }


def _cards(value: Any, what: str) -> list[int]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{what} must be a list of card names, got {shown_value(value)}")
    try:
        return [card_type(c) for c in value]
    except ValueError as err:
        raise ValueError(f"{what}: {err}") from None


def shown_hands(pos: dict[str, Any]) -> list[Any]:
    """A position's ``revealed`` as a list: none, the one hand a challenge showed, or several
    (each seat sees the hand its own last challenge showed, until its next decision)."""
    revealed = pos.get("revealed")
    if revealed is None:
        return []
    return list(revealed) if isinstance(revealed, list) else [revealed]


def shown_to(pos: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """The hand shown to ``seat`` in a position (``{"to", "player", "hand"}``), or None."""
    return next((r for r in shown_hands(pos) if r["to"] == seat), None)


def _check_revealed(
    revealed: Any, P: int, hand_counts: np.ndarray, pile_counts: np.ndarray, hands_move: bool = False
) -> tuple[np.ndarray, int, int]:
    """The hand a challenge showed: ``(cards, to, player)``, refused when no challenge can have shown it."""
    if not isinstance(revealed, dict) or set(revealed) != {"to", "player", "hand"}:
        raise ValueError(
            f"revealed must be {{'to': seat, 'player': seat, 'hand': [cards]}}, got {shown_value(revealed)}"
        )
    to = read_seat(revealed["to"], P, "revealed.to")
    player = read_seat(revealed["player"], P, "revealed.player")
    if not hands_move and (player - to) % P not in (1, P - 1):  # seven_zero moves the shown hand on
        raise ValueError(
            f"revealed.player must sit next to revealed.to ({to}): a challenge shows the hand of the player "
            f"who played the Wild Draw Four, the seat before the challenger; got {player}"
        )
    shown = np.bincount(_cards(revealed["hand"], "revealed.hand"), minlength=NUM_CARD_TYPES)
    if not shown.sum():
        raise ValueError("revealed.hand is empty: the challenged player still held a card (else the hand was over)")
    # The shown cards and the challenged Wild Draw Four are cards of this game (no hand has been
    # dealt since the challenge, or the reveal would be gone). The shown player may have played
    # or drawn since, so the cards need not be in that hand now.
    needed = shown.copy()
    needed[WILD_DRAW_FOUR] += 1
    in_game = hand_counts.sum(axis=0) + pile_counts
    missing = np.flatnonzero(needed > in_game)
    if missing.size:
        detail = ", ".join(
            f"{TYPE_NAMES[t]} x{int(needed[t])}" + (" (with the challenged W+4)" if t == WILD_DRAW_FOUR else "")
            for t in missing
        )
        raise ValueError(
            f"revealed.hand shows cards this game does not hold: {detail}; the game has "
            + ", ".join(f"{TYPE_NAMES[t]} x{int(in_game[t])}" for t in missing)
        )
    return shown, to, player


def load_position(eng: UnoEngine, j: int, pos: dict[str, Any]) -> None:
    """Set game ``j`` of ``eng`` to ``pos``, refusing anything inconsistent."""
    check_keys(pos, REQUIRED, OPTIONAL, "uno", "classic UNO")
    P = eng.num_players
    if pos["num_players"] != P:
        raise ValueError(
            f"num_players {shown_value(pos['num_players'])} differs from position 0's {P}: one engine, one table size"
        )
    rules = eng.rules

    hands = read_list(pos["hands"], "hands", P, "hands (one per seat)")
    hand_counts = np.zeros((P, NUM_CARD_TYPES), np.int64)
    for p, hand in enumerate(hands):
        np.add.at(hand_counts[p], _cards(hand, f"hands[{p}]"), 1)
    draw = _cards(pos["draw_pile"], "draw_pile")
    discard = _cards(pos["discard_pile"], "discard_pile")
    if not discard:
        raise ValueError("discard_pile must hold at least its top card")
    pile_counts = np.bincount(draw + discard, minlength=NUM_CARD_TYPES)
    total = hand_counts.sum(axis=0) + pile_counts
    check_within_deck(total, "hands, draw pile and discard pile together")

    phase_name = pos["phase"]
    if not isinstance(phase_name, str) or phase_name not in PHASE_NAMES:
        raise ValueError(f"phase {shown_value(phase_name)} is not one of {', '.join(PHASE_NAMES)}")
    phase = PHASE_NAMES.index(phase_name)
    if phase_name == "over" and eng.auto_reset:
        raise ValueError("phase 'over' (a finished game) loads only with auto_reset=False")
    if phase_name == "over" and all(hand_counts[p].sum() > 0 for p in range(P)):
        raise ValueError("phase 'over' needs a hand played out: a game ends when a player plays its last card")
    if phase_name != "over":
        empty = [p for p in range(P) if hand_counts[p].sum() == 0]
        if empty:
            raise ValueError(
                f"hands[{empty[0]}] is empty in phase '{phase_name}': a hand ends when a player plays its last "
                "card, so every player holds a card until phase 'over'"
            )
    top = discard[-1]
    colour_value = pos["colour"]
    if phase_name == "colour":
        if top != WILD or colour_value is not None:
            raise ValueError("phase 'colour' (naming a starting Wild's colour) needs top card W and colour null")
        colour = -1
    else:
        if colour_value is None:
            raise ValueError("colour must be R, Y, G or B (null only in phase 'colour')")
        if not isinstance(colour_value, str):
            raise ValueError(f"colour must be R, Y, G or B, got {shown_value(colour_value)}")
        colour = colour_index(colour_value)
        if TYPE_COLOUR[top] >= 0 and colour != TYPE_COLOUR[top]:
            raise ValueError(
                f"colour {colour_value} differs from the top card {card_name(top)}: the colour in force is "
                f"{COLOURS[TYPE_COLOUR[top]]} (only a Wild or Wild Draw Four on top names another colour)"
            )
    direction = pos["direction"]
    if isinstance(direction, bool) or not isinstance(direction, (int, np.integer)) or direction not in (1, -1):
        raise ValueError(f"direction must be 1 or -1, got {shown_value(direction)}")
    direction = int(direction)
    current = read_seat(pos["current_player"], P, "current_player")

    pending = read_int(pos.get("pending_draw", 0), "pending_draw", 0, MAX_PENDING_DRAW)
    if pending % DRAW_TWO_DRAW:
        raise ValueError(
            f"pending_draw must be a sum of {DRAW_TWO_DRAW}s and {WILD_DRAW_FOUR_DRAW}s (a Draw Two's and a Wild "
            f"Draw Four's), got {pending}"
        )
    if pending > MOST_FROM_DRAW_TWOS and not rules.stack_wild_draw_four:
        raise ValueError(f"pending_draw {pending} is more than the deck's Draw Twos make without stack_wild_draw_four")
    stack_tops = (KIND_DRAW_TWO, TYPE_KIND[WILD_DRAW_FOUR]) if rules.stack_wild_draw_four else (KIND_DRAW_TWO,)
    if pending and (not rules.stacking or phase_name not in ("play", "uno") or TYPE_KIND[top] not in stack_tops):
        raise ValueError(
            "pending_draw > 0 needs the stacking rule, phase 'play' or 'uno' and a Draw Two on top "
            "(or a Wild Draw Four with stack_wild_draw_four)"
        )
    if pending and TYPE_KIND[top] == KIND_DRAW_TWO and pending > MOST_FROM_DRAW_TWOS:
        raise ValueError(
            f"pending_draw {pending} on a Draw Two: only Draw Twos lie under one, at most {MOST_FROM_DRAW_TWOS}"
        )
    if pending and top == WILD_DRAW_FOUR and phase_name == "play" and pending < WILD_DRAW_FOUR_DRAW + DRAW_TWO_DRAW:
        raise ValueError(
            f"pending_draw {pending} on a stacked Wild Draw Four: it counts its own 4 and what it answered (at least 6)"
        )
    if phase_name == "swap" and (not rules.seven_zero or TYPE_KIND[top] != SWAP_KIND):
        raise ValueError("phase 'swap' (whom to swap hands with) needs the seven_zero rule and a 7 on top")

    drawn = pos.get("drawn_card")
    drawn_type = -1
    if phase_name == "drawn":
        if drawn is None:
            raise ValueError("phase 'drawn' needs drawn_card")
        drawn_type = _cards([drawn], "drawn_card")[0]
        if hand_counts[current, drawn_type] == 0:
            raise ValueError(f"drawn_card {card_name(drawn_type)} is not in the hand of player {current}")
        if not playable(drawn_type, top, colour, 0):
            raise ValueError(
                f"drawn_card {card_name(drawn_type)} cannot be played on {card_name(top)} (colour {colour_value})"
            )
    elif drawn is not None:
        raise ValueError("drawn_card is only set in phase 'drawn'")

    challenge = pos.get("challenge")
    challenge_colour, guilty = -1, False
    # A Wild Draw Four waits for its answer in phase 'challenge', and in phase 'uno' when it
    # was the second-to-last card (the UNO decision comes first).
    if phase_name == "challenge" or (phase_name == "uno" and top == WILD_DRAW_FOUR and not pending):
        if top != WILD_DRAW_FOUR:
            raise ValueError("phase 'challenge' needs a Wild Draw Four on top of the discard pile")
        if (
            not isinstance(challenge, dict)
            or "previous_colour" not in challenge
            or not set(challenge) <= {"player", "previous_colour", "guilty"}
        ):
            raise ValueError(
                f"phase '{phase_name}' after a Wild Draw Four needs "
                "challenge = {'player': seat, 'previous_colour': ..., 'guilty': true/false}, "
                f"got {shown_value(challenge)}"
            )
        previous = challenge["previous_colour"]
        if not isinstance(previous, str):
            raise ValueError(f"challenge.previous_colour must be R, Y, G or B, got {shown_value(previous)}")
        challenge_colour = colour_index(previous)
        bluffer = int(pending_bluffers(current, phase, direction, P))
        if "player" in challenge and read_seat(challenge["player"], P, "challenge.player") != bluffer:
            raise ValueError(
                f"challenge.player must be {bluffer}: the player who just played the Wild Draw Four "
                "(in phase 'challenge' the seat before the current player, in phase 'uno' the current one)"
            )
        holds = bool(holds_colour(hand_counts[bluffer], challenge_colour))
        if "guilty" in challenge:
            guilty = read_bool(challenge["guilty"], "challenge.guilty")
            # Until the answer the bluffer's hand only takes cards: a UNO penalty, when the Wild
            # Draw Four was its second-to-last card and it was caught (hand: 1 + uno_penalty, or
            # fewer where the piles ran short, but at least 2).
            caught = phase_name == "challenge" and 2 <= hand_counts[bluffer].sum() <= 1 + rules.uno_penalty
            if guilty and not holds:
                raise ValueError(
                    f"challenge.guilty is true, but hands[{bluffer}] holds no {previous} card: the cards held "
                    "then are still held until the challenge"
                )
            if not guilty and holds and not caught:
                raise ValueError(
                    f"challenge.guilty is false, but hands[{bluffer}] holds a {previous} card, which it can have "
                    f"taken since only as a UNO penalty (a hand of 2 to 1 + uno_penalty = {1 + rules.uno_penalty} "
                    "cards)"
                )
        else:  # derive it from the hand as it is now
            guilty = holds
    elif challenge is not None:
        raise ValueError(
            "challenge is only set while a Wild Draw Four waits for its answer (a stacked one is not challenged)"
        )
    if phase_name == "uno" and rules.uno_penalty == 0:
        raise ValueError("phase 'uno' asks for a declaration, which uno_penalty=0 leaves out of the game")
    if phase_name == "uno" and hand_counts[current].sum() != 1:
        raise ValueError("phase 'uno' follows playing the second-to-last card: the current player holds 1 card")

    most = rules.target_score + DECK_POINTS
    scores = read_list(pos.get("scores", [0] * P), "scores", P, f"integers (one per seat, 0..{most:,})")
    scores = [read_int(x, f"scores[{p}]", 0, most) for p, x in enumerate(scores)]
    declared = read_list(pos.get("uno_declared", [False] * P), "uno_declared", P, "booleans (one per seat)")
    declared = [read_bool(x, f"uno_declared[{p}]") for p, x in enumerate(declared)]
    hand_number = read_int(pos.get("hand_number", 0), "hand_number", 0, MAX_HAND_NUMBER)
    # A hand moves each seat's points reward by at most the deck's points; the hand being
    # played counts once the match is over (its rewards are added, the hand number is not).
    reach = float((hand_number + 1) * DECK_POINTS)
    match_rewards = read_list(pos.get("match_rewards", [0.0] * P), "match_rewards", P, "numbers (one per seat)")
    match_rewards = [read_number(x, f"match_rewards[{p}]", -reach, reach) for p, x in enumerate(match_rewards)]
    hand_starter = read_seat(pos.get("hand_starter", 0), P, "hand_starter")
    if phase_name != "over":  # a game in play: its match (if any) is not decided yet
        if not rules.match and (any(scores) or any(match_rewards) or hand_number):
            raise ValueError(
                "scores, match_rewards and hand_number stay 0 in a game of one hand (match=False) until it is over"
            )
        if rules.match and match_over_one(np.array(scores, np.int64), rules.target_score, rules.reverse_scoring):
            ended = "passes" if rules.reverse_scoring else "reaches"
            raise ValueError(
                f"scores {scores}: a match ends when a total {ended} target_score={rules.target_score}, "
                f"so a match in phase '{phase_name}' has none that does"
            )
    void = read_list(pos.get("void_draws", [[-1] * 4] * P), "void_draws", P, "lists (one per seat) of 4 integers")
    void_draws = np.full((P, 4), -1, np.int64)
    for p, row in enumerate(void):
        held = int(hand_counts[p].sum())
        row = read_list(row, f"void_draws[{p}]", 4, f"integers, one per colour R Y G B (-1..{held}, its hand size)")
        void_draws[p] = [read_int(x, f"void_draws[{p}][{c}]", -1, held) for c, x in enumerate(row)]
        of_colour = [int(hand_counts[p][TYPE_COLOUR == c].sum()) for c in range(4)]
        for c in range(4):
            if 0 <= void_draws[p, c] < of_colour[c]:
                raise ValueError(
                    f"void_draws[{p}][{c}] is {void_draws[p, c]}, but hands[{p}] holds {of_colour[c]} "
                    f"{COLOURS[c]} cards: a seat seen without a colour holds at most the unseen cards it took since"
                )
    if rules.draw_anytime and (void_draws >= 0).any():
        raise ValueError("void_draws must be all -1 under draw_anytime (drawing then tells nothing)")
    chosen = read_list(
        pos.get("chosen_colours", [None] * P), "chosen_colours", P, "colours R, Y, G, B or null (one per seat)"
    )
    chosen_colour = np.full(P, -1, np.int64)
    for p, value in enumerate(chosen):
        if value is not None:
            if not isinstance(value, str) or value not in COLOURS:
                raise ValueError(f"chosen_colours[{p}] must be R, Y, G, B or null, got {shown_value(value)}")
            chosen_colour[p] = COLOURS.index(value)
    if pos.get("rng") is not None:
        check_rng_state(pos["rng"])

    eng.revealed_from[j] = -1
    eng.revealed_hand[j] = 0
    for k, revealed in enumerate(shown_hands(pos)):
        shown, to, player = _check_revealed(revealed, P, hand_counts, pile_counts, rules.seven_zero)
        if eng.revealed_from[j, to] >= 0:
            raise ValueError(f"revealed[{k}]: seat {to} is shown two hands; a seat sees one, its last challenge's")
        eng.revealed_hand[j, to] = shown
        eng.revealed_from[j, to] = player

    eng.hands[j] = hand_counts
    eng.hand_size[j] = hand_counts.sum(axis=1)
    eng.draw_pile[j, : len(draw)] = draw
    eng.draw_top[j] = 0
    eng.draw_end[j] = len(draw)
    eng.discard[j, : len(discard)] = discard
    eng.discard_len[j] = len(discard)
    eng.discard_counts[j] = np.bincount(discard, minlength=NUM_CARD_TYPES)
    eng.top[j] = top
    eng.colour[j] = colour
    eng.direction[j] = direction
    eng.current[j] = current
    eng.phase[j] = phase
    eng.pending_draw[j] = pending
    eng.drawn_card[j] = drawn_type
    eng.challenge_colour[j] = challenge_colour
    eng.challenge_guilty[j] = guilty
    eng.uno_declared[j] = declared
    eng.scores[j] = scores
    eng.match_rewards[j] = match_rewards
    eng.hand_number[j] = hand_number
    eng.hand_starter[j] = hand_starter
    eng.void_draws[j] = void_draws
    eng.chosen_colour[j] = chosen_colour
    read_rng(eng, j, pos)
    assert len(draw) + len(discard) <= DECK_SIZE
