"""Score Buddy: the scorekeeper for UNO played with real cards (scoring: docs/uno.md, "Decisions and phases").

A :class:`ScoreBook` is one table: its players, the match target, the scoring variant and
the hands recorded so far. Nothing here knows a card value or a match-end rule: card
points come from :mod:`envs.cards` and "is the match over / who won" from
:class:`envs.uno.rules.UnoRules`, so the scorekeeper can never disagree with the engines.

The book is stored as one small JSON file, written atomically (a temporary file in the
same folder, flushed to disk, then renamed over the old one), so a crash or a killed
server never leaves half a file behind::

    {"format": "unolab-scorebuddy", "version": 1, "players": ["Anna", "Bo"], "target": 500,
     "variant": "standard", "hands": [{"closer": "Anna", "points": {"Anna": 37, "Bo": 0}}]}

Every method that is given bad input raises ``ValueError`` saying what was wrong and what
is allowed, and changes nothing.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from envs.atomic import write_atomically
from envs.cards import TYPE_COPIES, TYPE_VALUE, check_within_deck, counts_from_names, hand_points
from envs.uno.rules import MAX_PLAYERS, MAX_TARGET_SCORE, MIN_PLAYERS, SCORING_CHOICES, UnoRules, shown_int

FORMAT = "unolab-scorebuddy"
FORMAT_VERSION = 1
VARIANTS: tuple[str, ...] = SCORING_CHOICES  # the rules' own ``scoring`` options
#: The score book's file when none is named (``play.py --score``, the web app's Score Buddy).
DEFAULT_STORE = "scorebuddy.json"
DEFAULT_TARGET = UnoRules().target_score  # 500, the rules' own default
#: Targets the page and the terminal offer with one tap (any positive target is allowed).
TARGET_PRESETS: tuple[int, ...] = (200, 300, 500)
#: Quick keys: the value of an action card (Skip, Reverse, Draw Two) is 20 and of a wild
#: 50, so tapping +20 / +50 once per such card left in a hand counts it (the seed text).
QUICK_KEYS: tuple[int, ...] = (10, 20, 50)
MAX_NAME_LENGTH = 24
#: A store larger than this is not a score book (thousands of hands fit in far less).
MAX_STORE_BYTES = 8 << 20
#: The value of the whole 108-card deck (1240): no hand can score more, so a larger
#: entry is a typo. Derived from envs.cards, not written down a second time.
DECK_POINTS = int(TYPE_VALUE.astype(np.int64) @ TYPE_COPIES.astype(np.int64))
#: A name starting with one of these would read as points in the terminal and as a
#: formula when the CSV export is opened in a spreadsheet.
_BAD_NAME_START = "+-=@"


def hand_value(cards: str | Iterable[str]) -> int:
    """Point value of cards in the lab's notation: ``"R7 GS W+4"`` (or a list) is 7 + 20 + 50 = 77.

    Cards may be separated by spaces or commas; an empty string is 0 points. The values come
    from :func:`envs.cards.hand_points`; an unknown card raises ``ValueError`` explaining the
    notation, and more copies of a card than the deck holds are refused.
    """
    names = re.split(r"[\s,;]+", cards.strip()) if isinstance(cards, str) else [str(c) for c in cards]
    names = [n for n in names if n]
    counts = counts_from_names(names)
    check_within_deck(counts, "these cards")
    return int(hand_points(counts))


def _check_points(value: Any, what: str) -> int:
    """An entry of points: a whole number from 0 to the value of the whole deck."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be a whole number of points (0-{DECK_POINTS}), got {value!r}")
    if not 0 <= int(value) <= DECK_POINTS:
        raise ValueError(f"{what} must lie between 0 and {DECK_POINTS} (the whole deck), got {value}")
    return int(value)


@dataclass(frozen=True)
class Hand:
    """One recorded hand: who closed it (``None`` if not given, reverse scoring only) and the
    points each player added to their total (every player is listed, most with 0 in standard
    scoring)."""

    closer: str | None
    points: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"closer": self.closer, "points": dict(self.points)}


@dataclass(frozen=True)
class Standing:
    """One line of the leaderboard.

    ``needed``: in standard scoring, the points still missing to reach the target
    (``max(target - total, 0)``). In reverse scoring it is the room left: how many points the
    player can still take without passing the threshold (the match ends on *more* than the
    target), also ``max(target - total, 0)``; a player at exactly the target has 0 room and is
    still in the match.
    ``rank``: 1 for the best total; tied totals share a rank (1, 1, 3).
    ``leader``: holds the best total (the winner, once the match is over); ``False`` for
    everyone before the first hand.
    """

    name: str
    total: int
    needed: int
    rank: int
    leader: bool

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "total": self.total, "needed": self.needed, "rank": self.rank, "leader": self.leader}


@dataclass
class ScoreBook:
    """The scores of one table: players in seat order, target, variant and the hands so far."""

    players: list[str]
    target: int = DEFAULT_TARGET
    variant: str = "standard"
    hands: list[Hand] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.players = check_players(self.players)
        if isinstance(self.target, bool) or not isinstance(self.target, (int, np.integer)) or self.target < 1:
            raise ValueError(
                f"the target must be a positive whole number (e.g. {', '.join(map(str, TARGET_PRESETS))}), "
                f"got {shown_int(self.target)}"
            )
        self.target = int(self.target)
        if self.target > MAX_TARGET_SCORE:
            raise ValueError(f"the target must be at most {MAX_TARGET_SCORE:,} points, got {shown_int(self.target)}")
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown scoring variant {self.variant!r}; allowed: {', '.join(VARIANTS)}")
        hands, self.hands = list(self.hands), []
        for n, hand in enumerate(hands, start=1):
            try:
                self._replay(hand)
            except ValueError as err:
                raise ValueError(f"hand {n}: {err}") from None

    # ----------------------------------------------------------------- rules
    @property
    def rules(self) -> UnoRules:
        """The engines' rules for this match: the single source of the match-end rule."""
        return UnoRules(match=True, target_score=self.target, scoring=self.variant)

    def totals(self) -> dict[str, int]:
        """Each player's total, in seat order."""
        totals = dict.fromkeys(self.players, 0)
        for hand in self.hands:
            for name, pts in hand.points.items():
                totals[name] += pts
        return totals

    def _total_array(self) -> np.ndarray:
        return np.array(list(self.totals().values()), dtype=np.int64)

    @property
    def match_over(self) -> bool:
        """Standard scoring: someone reached the target (>=); reverse: someone passed it (>)."""
        return bool(self.rules.match_over(self._total_array()))

    def winners(self) -> list[str]:
        """The match winners (ties share), or ``[]`` while the match is still being played."""
        if not self.match_over:
            return []
        return self._leaders()

    def _leaders(self) -> list[str]:
        best = self.rules.match_winners(self._total_array())
        return [name for name, lead in zip(self.players, best, strict=True) if lead]

    def standings(self) -> list[Standing]:
        """The leaderboard, best first (highest total in standard scoring, lowest in reverse);
        ties keep seat order and share a rank."""
        totals = self.totals()
        order = [self.players[p] for p in self.rules.standing_order([totals[name] for name in self.players])]
        leaders = set(self._leaders()) if self.hands else set()
        rows: list[Standing] = []
        for i, name in enumerate(order):
            tied = rows and rows[-1].total == totals[name]
            rank = rows[-1].rank if tied else i + 1
            needed = max(self.target - totals[name], 0)
            rows.append(Standing(name, totals[name], needed, rank, name in leaders))
        return rows

    # ------------------------------------------------------------- recording
    def player(self, name: str) -> str:
        """The player called ``name`` (case and surrounding spaces ignored)."""
        key = str(name).strip().casefold()
        for player in self.players:
            if player.casefold() == key:
                return player
        raise ValueError(f"no player called {name!r}; the players are {', '.join(self.players)}")

    def check_open(self) -> None:
        """Raise ``ValueError`` if the match is over (no more hands until undo or a new match)."""
        if self.match_over:
            raise ValueError(
                f"the match is over ({' and '.join(self.winners())} won): undo the last hand or start a new match"
            )

    def record_hand(self, closer: str, points: int) -> Hand:
        """Standard scoring: ``closer`` went out and collects ``points`` (the others' cards)."""
        if self.variant != "standard":
            raise ValueError("this table plays reverse scoring: record each player's own hand (record_reverse_hand)")
        closer = self.player(closer)
        points = _check_points(points, "the hand's points")
        self.check_open()
        hand = Hand(closer, {name: (points if name == closer else 0) for name in self.players})
        self.hands.append(hand)
        return hand

    def record_reverse_hand(self, points_by_player: Mapping[str, int], closer: str | None = None) -> Hand:
        """Reverse scoring: every player adds the value of their own remaining hand (the player
        who went out, ``closer`` if given, usually adds 0). Every player must be listed."""
        if self.variant != "reverse":
            raise ValueError("this table plays standard scoring: record who closed and the points (record_hand)")
        if not isinstance(points_by_player, Mapping):
            raise ValueError(f"give the points as a mapping from player to points, got {points_by_player!r}")
        points: dict[str, int] = {}
        for name, value in points_by_player.items():
            player = self.player(name)
            if player in points:
                raise ValueError(f"{player} is listed twice")
            points[player] = _check_points(value, f"{player}'s points")
        missing = [p for p in self.players if p not in points]
        if missing:
            raise ValueError(f"every player's hand is needed; missing: {', '.join(missing)}")
        if sum(points.values()) > DECK_POINTS:
            raise ValueError(f"the hands add up to {sum(points.values())}, more than the whole deck ({DECK_POINTS})")
        closer = None if closer is None else self.player(closer)
        self.check_open()
        hand = Hand(closer, {name: points[name] for name in self.players})
        self.hands.append(hand)
        return hand

    def _replay(self, hand: Hand | Mapping[str, Any]) -> None:
        """Record a stored hand through the public methods, so a file is checked like input."""
        if isinstance(hand, Hand):
            closer, points = hand.closer, hand.points
        elif isinstance(hand, Mapping) and isinstance(hand.get("points"), Mapping):
            closer, points = hand.get("closer"), hand["points"]
        else:
            raise ValueError(f"a hand is {{'closer': name, 'points': {{player: points}}}}, got {hand!r}")
        if self.variant == "reverse":
            self.record_reverse_hand(points, closer)
            return
        if closer is None:
            raise ValueError("a standard-scoring hand needs its closer")
        closer = self.player(closer)
        if set(points) != set(self.players) or any(v != 0 for k, v in points.items() if k != closer):
            raise ValueError(f"a standard-scoring hand lists every player with 0 except the closer, got {points!r}")
        self.record_hand(closer, points[closer])

    def undo(self, shown: int | None = None) -> Hand:
        """Remove the last hand (also after the match ended, to correct a mistake). ``shown``:
        how many hands the asker saw; another count (a second page undid or added one since)
        is refused, so an undo never removes a hand its asker did not see."""
        if shown is not None and shown != len(self.hands):
            raise ValueError(
                f"the table now has {len(self.hands)} hand(s), not the {shown} shown here "
                "(changed from another page): reload before undoing"
            )
        if not self.hands:
            raise ValueError("there is no hand to undo")
        return self.hands.pop()

    def new_match(self) -> None:
        """Start again from zero with the same players, target and variant."""
        self.hands = []

    # --------------------------------------------------------------- storage
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "players": list(self.players),
            "target": self.target,
            "variant": self.variant,
            "hands": [hand.to_dict() for hand in self.hands],
        }

    @classmethod
    def from_dict(cls, data: Any) -> ScoreBook:
        """A book from its JSON form; every field and hand is checked as if typed in."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a score book is a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"not a Score Buddy book (expected format {FORMAT!r} version {FORMAT_VERSION}, "
                f"got {data.get('format')!r} version {data.get('version')!r})"
            )
        unknown = set(data) - {"format", "version", "players", "target", "variant", "hands"}
        if unknown:
            raise ValueError(f"unknown fields {', '.join(sorted(unknown))}")
        hands = data.get("hands", [])
        if not isinstance(hands, list):
            raise ValueError(f"hands must be a list, got {type(hands).__name__}")
        return cls(data.get("players"), data.get("target", DEFAULT_TARGET), data.get("variant", "standard"), hands)

    def save(self, path: str | Path) -> None:
        """Write the book atomically: a temporary file in the same folder, synced, then renamed."""
        write_atomically(path, json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> ScoreBook:
        """Read a book saved by :meth:`save`; a damaged file raises ``ValueError`` naming it."""
        path = Path(path)
        if path.stat().st_size > MAX_STORE_BYTES:
            raise ValueError(f"{path}: larger than a score book can be ({MAX_STORE_BYTES:,} bytes)")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, RecursionError) as err:  # JSONDecodeError, UnicodeDecodeError, huge integers
            raise ValueError(f"{path}: not a valid JSON score book ({err})") from None
        try:
            return cls.from_dict(data)
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from None

    def to_csv(self) -> str:
        """The hands as CSV: hand number, closer, each player's points, then running totals."""
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["hand", "closer", *self.players, *(f"{name} total" for name in self.players)])
        running = dict.fromkeys(self.players, 0)
        for n, hand in enumerate(self.hands, start=1):
            for name in self.players:
                running[name] += hand.points[name]
            writer.writerow(
                [n, hand.closer or "", *(hand.points[p] for p in self.players), *(running[p] for p in self.players)]
            )
        return out.getvalue()


def check_players(players: Any) -> list[str]:
    """The players' names, tidied (spaces), or a ``ValueError`` saying what is wrong with them."""
    if isinstance(players, str) or not isinstance(players, Iterable):
        raise ValueError(f"the players are a list of {MIN_PLAYERS}-{MAX_PLAYERS} names, got {players!r}")
    names: list[str] = []
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"every player needs a non-empty name, got {name!r}")
        name = " ".join(name.split())
        if len(name) > MAX_NAME_LENGTH:
            raise ValueError(f"the name {name!r} is too long (at most {MAX_NAME_LENGTH} characters)")
        if name[0] in _BAD_NAME_START or name.isdigit():
            raise ValueError(f"the name {name!r} may not be a number or start with {' '.join(_BAD_NAME_START)}")
        if any(name.casefold() == other.casefold() for other in names):
            raise ValueError(f"two players are called {name!r}: names must differ")
        names.append(name)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ValueError(f"a table has {MIN_PLAYERS}-{MAX_PLAYERS} players, got {len(names)}")
    return names
