"""How a policy uses the Wild Draw Four: every bluff it could make and every challenge it could
answer, with the situation, for the bluffing study's chapter on learned play.

:func:`survey` plays one policy (the *player*) in a seat turning with the game number against
``others`` on every other seat, all games stepped together, and records two kinds of decision
of the player's:

- a **bluff chance**: a Wild Draw Four is legal and the player holds the colour in force
  (``kernel.bluffs``, the rule), so playing it is a bluff. Recorded: whether it bluffed, the
  target's hand size (the next player), its own, how many cards of the colour it holds, and,
  for a bluff, whether the target challenged it;
- a **challenge decision**: the player faces a Wild Draw Four. Recorded: whether it
  challenged, whether the card was a bluff (``challenge_guilty``), and both hand sizes.

Cards are what the immediate result is measured in (docs/uno.md): an unchallenged Wild Draw
Four gives the target 4 cards, a caught bluff gives them to the bluffer instead, and a failed
challenge costs the challenger 6 instead of 4. So against playing another card, a bluff swings
``4 (1 - c) - 4 c`` cards where ``c`` is the share caught, and a challenge swings ``+8`` against
accepting when the card was a bluff and ``-2`` when it was not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.uno import actions as A
from envs.uno.kernel import CHALLENGE_SWING_GUILTY, CHALLENGE_SWING_INNOCENT, challenged_seats, seats_after
from envs.uno.kernel import WILD_DRAW_FOUR_DRAW as W4
from envs.uno.observation import CHALLENGE, PLAY

# Situations: the target's (or the bluffer's) hand size, the player's own, the colour cards held.
SIZE_BINS = ((1, 1), (2, 2), (3, 4), (5, 7), (8, 108))
COLOUR_BINS = ((1, 1), (2, 2), (3, 25))


def bin_label(low: int, high: int) -> str:
    return str(low) if low == high else (f"{low}+" if high >= 25 else f"{low}-{high}")


def survey(
    player: Any,
    others: Any,
    players: int,
    rules: dict[str, Any],
    games: int,
    seed: int,
    batch: int = 4096,
) -> dict[str, dict[str, np.ndarray]]:
    """Every bluff chance and challenge decision of ``player`` (a policy spec) in ``games`` games
    against ``others`` (a policy spec for every other seat). Returns ``{"bluff": {...},
    "challenge": {...}, "games": ...}`` of aligned arrays, one entry per decision.

    Each of the ``batch`` games in play (a slot) is surveyed for its first ``ceil(games /
    batch)`` games, played to their end, and the survey runs until every slot has finished
    them: every bluff recorded has had its answer, and the games are a fixed number per slot,
    so neither early play nor short games are favoured (stopping at a total and dropping the
    games in play would keep the short ones). A slot past its games plays on unrecorded."""
    from agents.registry import make_policy
    from envs.uno import Engine, Rules
    from envs.uno.kernel import TYPE_COLOUR, bluffs

    batch = min(batch, games)
    eng = Engine(batch, players, Rules.from_dict(rules), seed=seed)
    policies = [make_policy("uno", spec, seed + k, rules=rules) for k, spec in enumerate((player, others))]
    obs, mask = eng.reset()
    seat_of_player = np.arange(batch) % players
    bluff = {k: [] for k in ("bluffed", "target_size", "own_size", "colour_cards")}
    challenge = {k: [] for k in ("challenged", "guilty", "bluffer_size", "own_size")}
    open_bluff = np.full(batch, -1, np.int64)  # index of the player's bluff awaiting its answer
    chances = 0  # bluff chances so far: each one's index in the bluff arrays
    answers: list[tuple[np.ndarray, np.ndarray]] = []  # (chance index, caught) of each answered bluff
    quota = -(-games // batch)  # games surveyed in each slot
    finished = np.zeros(batch, np.int64)  # games each slot has finished
    of_colour = TYPE_COLOUR[None, :] == np.arange(4)[:, None]  # [colour, type]
    while (finished < quota).any():
        seat = eng.current.copy()
        plays = seat == seat_of_player
        mine = plays & (finished < quota)  # the player's decisions in surveyed games: recorded
        actions = np.zeros(batch, np.int64)
        for k, rows in enumerate((plays.nonzero()[0], (~plays).nonzero()[0])):
            if rows.size:
                actions[rows] = policies[k](obs[rows], mask[rows])
        phase = eng.phase.copy()
        # answers to the player's bluffs (the target's decision)
        answered = ((open_bluff >= 0) & (phase == CHALLENGE)).nonzero()[0]
        answers.append((open_bluff[answered], actions[answered] == A.CHALLENGE))
        open_bluff[answered] = -1
        # the player's bluff chances
        w4_legal = mask[:, A.PLAY_WILD_DRAW_FOUR : A.PLAY_WILD_DRAW_FOUR + 4].any(axis=1)
        rows = (mine & (phase == PLAY) & w4_legal).nonzero()[0]
        if rows.size:
            is_bluff = np.zeros(rows.size, bool)
            bluffs(eng.hands, eng.colour, eng.pending_draw, eng.phase, rows, seat[rows], is_bluff)
            rows = rows[is_bluff]
            played = (actions[rows] >= A.PLAY_WILD_DRAW_FOUR) & (actions[rows] < A.PLAY_WILD_DRAW_FOUR + 4)
            target = seats_after(seat[rows], 1, eng.direction[rows], players)
            colour = eng.colour[rows]
            held = eng.hands[rows, seat[rows]]
            bluff["bluffed"].append(played)
            bluff["target_size"].append(eng.hand_size[rows, target])
            bluff["own_size"].append(eng.hand_size[rows, seat[rows]])
            bluff["colour_cards"].append((held * of_colour[colour]).sum(axis=1))
            open_bluff[rows[played]] = chances + played.nonzero()[0]
            chances += rows.size
        # the player's challenge decisions
        rows = (mine & (phase == CHALLENGE)).nonzero()[0]
        if rows.size:
            challenge["challenged"].append(actions[rows] == A.CHALLENGE)
            challenge["guilty"].append(eng.challenge_guilty[rows].copy())
            bluffer = challenged_seats(seat[rows], eng.direction[rows], players)
            challenge["bluffer_size"].append(eng.hand_size[rows, bluffer])
            challenge["own_size"].append(eng.hand_size[rows, seat[rows]])
        obs, mask, _, done = eng.step(actions)
        finished += done
        open_bluff[done] = -1  # a bluff with the last card: unanswered (no challenge of a final card)
        seat_of_player[done] = (seat_of_player[done] + 1) % players  # the next deal, the next seat
    out_bluff = {k: np.concatenate(v) if v else np.zeros(0, np.int64) for k, v in bluff.items()}
    out_bluff["caught"] = np.zeros(chances, bool)
    for index, challenged in answers:
        out_bluff["caught"][index] = challenged
    out_challenge = {k: np.concatenate(v) if v else np.zeros(0, np.int64) for k, v in challenge.items()}
    return {"bluff": out_bluff, "challenge": out_challenge, "games": quota * batch}


def rate(hits: np.ndarray) -> dict[str, Any]:
    """A share with its 95% Wilson interval (``None`` for no decisions)."""
    from tournament.stats import wilson

    n = int(hits.size)
    if not n:
        return {"n": 0, "rate": None, "low": None, "high": None}
    low, high = wilson(float(hits.sum()), n)
    return {"n": n, "rate": float(hits.mean()), "low": low, "high": high}


def summarise(events: dict[str, Any]) -> dict[str, Any]:
    """Rates overall and by situation, and what they earn in cards (module docstring)."""
    b, c = events["bluff"], events["challenge"]
    bluffed = b["bluffed"].astype(bool)
    caught = b["caught"][bluffed]
    caught_rate = float(caught.mean()) if caught.size else float("nan")
    challenged = c["challenged"].astype(bool)
    guilty = c["guilty"].astype(bool)
    swing = np.where(guilty[challenged], float(CHALLENGE_SWING_GUILTY), float(CHALLENGE_SWING_INNOCENT))
    by_target = [
        {"bin": bin_label(lo, hi), **rate(bluffed[(b["target_size"] >= lo) & (b["target_size"] <= hi)])}
        for lo, hi in SIZE_BINS
    ]
    by_own = [
        {"bin": bin_label(lo, hi), **rate(bluffed[(b["own_size"] >= lo) & (b["own_size"] <= hi)])}
        for lo, hi in SIZE_BINS
    ]
    by_colour = [
        {"bin": bin_label(lo, hi), **rate(bluffed[(b["colour_cards"] >= lo) & (b["colour_cards"] <= hi)])}
        for lo, hi in COLOUR_BINS
    ]
    challenge_by_size = [
        {"bin": bin_label(lo, hi), **rate(challenged[(c["bluffer_size"] >= lo) & (c["bluffer_size"] <= hi)])}
        for lo, hi in SIZE_BINS
    ]
    return {
        "games": int(events["games"]),
        "bluff": rate(bluffed),
        "bluffs": int(bluffed.sum()),
        "caught": rate(caught),
        "bluff_card_swing": W4 * (1 - caught_rate) - W4 * caught_rate if caught.size else None,
        "bluff_by_target_size": by_target,
        "bluff_by_own_size": by_own,
        "bluff_by_colour_cards": by_colour,
        "challenge": rate(challenged),
        "challenge_when_bluff": rate(challenged[guilty]),
        "challenge_when_honest": rate(challenged[~guilty]),
        "challenge_success": rate(guilty[challenged]),
        "challenge_card_swing": float(swing.mean()) if swing.size else None,
        "challenge_by_bluffer_size": challenge_by_size,
        "bluffs_faced": int(guilty.sum()),
    }
