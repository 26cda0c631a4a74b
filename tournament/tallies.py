"""What a tournament tallies for each game beyond wins, named by the game's descriptor
(``envs.games.Game.tally``): the per-game events counted during play, whether the game is
played in hands, the extra statistics of an entrant's row and the report's columns.

Classic UNO counts Wild Draw Fours (bluffs among them, decided by the rule itself,
``kernel.holds_colour``) and challenges, and points per hand; the trick game reports team
points and drawn games. A new game gives its own tally here and names it in its descriptor.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Tally:
    """The statistics every game has: none beyond wins (the base of the games' tallies)."""

    events: tuple[str, ...] = ()  # per-seat counters kept for every game
    hands = False  # the game is played in hands (points per hand; hands per match)

    def count(self, eng: Any, actions: np.ndarray, counts: dict[str, np.ndarray]) -> None:
        """Referee's tally of this step's ``actions``, before the engine applies them."""

    def row(self, row: dict[str, Any], results: Any, played: np.ndarray, at: np.ndarray, rules: Any) -> None:
        """Add an entrant's statistics to its ``row`` (``at``: its seats in the played games)."""

    def columns(self, rows: list[dict[str, Any]]) -> list[str]:
        return []

    def cells(self, row: dict[str, Any]) -> list[str]:
        return []


class UnoTally(Tally):
    """Classic UNO: Wild Draw Fours played and bluffed, challenges made and won, points per hand."""

    events = ("wd4_played", "wd4_bluffs", "challenges", "challenges_won")
    hands = True

    def count(self, eng: Any, actions: np.ndarray, counts: dict[str, np.ndarray]) -> None:
        from envs.uno.actions import CHALLENGE, PLAY_WILD_DRAW_FOUR
        from envs.uno.kernel import bluffs

        wd4 = ((actions >= PLAY_WILD_DRAW_FOUR) & (actions < PLAY_WILD_DRAW_FOUR + 4)).nonzero()[0]
        if wd4.size:
            seat = eng.current[wd4]
            bluff = np.zeros(wd4.size, bool)
            bluffs(eng.hands, eng.colour, eng.pending_draw, eng.phase, wd4, seat, bluff)
            np.add.at(counts["wd4_played"], (wd4, seat), 1)
            np.add.at(counts["wd4_bluffs"], (wd4[bluff], seat[bluff]), 1)
        ch = (actions == CHALLENGE).nonzero()[0]
        if ch.size:
            seat = eng.current[ch]
            np.add.at(counts["challenges"], (ch, seat), 1)
            won = eng.challenge_guilty[ch]
            np.add.at(counts["challenges_won"], (ch[won], seat[won]), 1)

    def row(self, row: dict[str, Any], results: Any, played: np.ndarray, at: np.ndarray, rules: Any) -> None:
        hands = np.broadcast_to(results.hands[played][:, None], at.shape)[at].sum()
        row["points_per_hand"] = float(results.hand_points[played][at].sum() / max(hands, 1))
        if rules.match:
            final = results.scores[played][at]
            row["mean_final_score"] = float(final.mean())
            # how far from the target: what a player still needs, or under reverse scoring (where the
            # target is a limit and the lowest total wins) the room it has left below it
            gap = "mean_room_under_target" if rules.reverse_scoring else "mean_points_missing"
            row[gap] = float(np.maximum(rules.target_score - final, 0).mean())
            row["hands_per_match"] = float(results.hands[played][at.any(axis=1)].mean())  # its own matches
        for name, counts in results.events.items():
            row[name] = int(counts[played][at].sum())
        row["bluff_rate"] = row["wd4_bluffs"] / row["wd4_played"] if row["wd4_played"] else float("nan")
        row["challenge_success"] = row["challenges_won"] / row["challenges"] if row["challenges"] else float("nan")

    def columns(self, rows: list[dict[str, Any]]) -> list[str]:
        match = [label for key, label in _MATCH_COLUMNS.items() if key in rows[0]]
        return ["points/hand", *match, "W+4 bluffs", "challenges won"]

    def cells(self, row: dict[str, Any]) -> list[str]:
        match = [f"{row[key]:.0f}" for key in _MATCH_COLUMNS if key in row]
        return [
            f"{row['points_per_hand']:.1f}",
            *match,
            f"{row['wd4_bluffs']:,}/{row['wd4_played']:,}",
            f"{row['challenges_won']:,}/{row['challenges']:,}",
        ]


#: A match's columns, by the row's key: the final score, and its distance from the target by the
#: scoring's direction (points still missing, or under reverse scoring the room left below it).
_MATCH_COLUMNS = {
    "mean_final_score": "final score",
    "mean_points_missing": "missing to target",
    "mean_room_under_target": "room under target",
}


class TricksTally(Tally):
    """The trick game: the team's points and the drawn games."""

    def row(self, row: dict[str, Any], results: Any, played: np.ndarray, at: np.ndarray, rules: Any) -> None:
        row["team_points"] = float(results.scores[played][at].mean())
        row["draws"] = float((results.winners[played].sum(axis=1) == 0)[at.any(axis=1)].sum())

    def columns(self, rows: list[dict[str, Any]]) -> list[str]:
        return ["team points", "draws"]

    def cells(self, row: dict[str, Any]) -> list[str]:
        return [f"{row['team_points']:.1f}", f"{row['draws']:,.0f}"]


UNO_TALLY = UnoTally()
TRICKS_TALLY = TricksTally()


def tally_of(game: str) -> Tally:
    """The tally of a game, where its descriptor says it is."""
    from envs.games import game as game_info
    from envs.games import resolve

    return resolve(game_info(game).tally)
