"""One person at a table with the lab's agents: whose turn it is, what they see, what happened.

A :class:`TableSession` holds a one-game engine (the only place rules live), the agents'
batched policies for the other seats, and the game record. The person's moves arrive as
action names (:meth:`TableSession.act`) or typed text (:meth:`TableSession.parse`); the
agents then play until it is the person's turn again, and every move comes back as an
:class:`Event` that carries only what the person may know (``text``, ``view``).

Classic UNO is played as a match to ``target`` points (docs/uno.md: 500 by default) with the
standings after every hand. The trick game has no match target (docs/tricks.md): each deal is
one game and the session keeps a tally of deals won per team.
"""

from __future__ import annotations

import secrets
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import AGENT, check_spec, make_policy, spec_label, table_notes
from envs.config import MAX_SEED
from envs.games import game as game_info
from envs.records import GameRecord, game_module
from tabletop.moves import Choice, Move, MoveError, list_moves, parse_move
from tabletop.table_game import table_game

#: Agents' moves in a row before the session gives up (a bug guard: games end far sooner).
MAX_AGENT_MOVES = 100_000
#: Lines of the move list a session keeps for a screen that is opened again (a page reloaded):
#: the latest ones; a long session's first lines go.
LOG_LINES = 500


#: Why a game's record waits for its end (the terminal's ``save``, the web page's download).
RECORD_WHEN_OVER = "the game record is offered once the game is over: it holds every hand and the draw pile"


def opponent_spec(game: str, num_players: int, text: str | Mapping[str, Any]) -> str | dict[str, Any]:
    """A policy spec from the command line: ``heuristic``, ``agent`` (the shipped agent for
    this game and table size, the nearest one shipped: ``agents.learned.shipped_agent``) or
    ``agent:path/to/checkpoint.pt``."""
    if isinstance(text, Mapping):
        spec: str | dict[str, Any] = dict(text)
    else:
        name, _, path = text.strip().partition(":")
        if name == AGENT:
            from agents.learned import shipped_agent

            spec = (
                {"name": AGENT, "checkpoint": path}
                if path
                else {
                    "name": AGENT,
                    "checkpoint": str(shipped_agent(game, num_players)),
                    "label": AGENT,
                }
            )
        elif path and not path.endswith(".pt") and all(p.isidentifier() for p in path.split(".")):  # module:Class
            spec = text.strip()
        elif path:
            raise ValueError(f"only 'agent' takes a checkpoint after ':' (or 'package.module:Class'), got {text!r}")
        else:
            spec = name
    check_spec(game, spec, players=num_players)
    return spec


@dataclass
class Event:
    """One move as the person may know it, and the person's view after it."""

    player: int
    name: str
    action: str  # the action, or its public form ("return a card") for another player's hidden move
    text: str
    view: dict[str, Any]
    hand_over: dict[str, Any] | None = None
    trick_over: dict[str, Any] | None = None  # the trick, its winning team, the points after it
    game_over: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Tally:
    """Games finished in this session: who won how many (seats for UNO, teams for tricks)."""

    games: int = 0
    wins: dict[str, int] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)  # trick game: points summed over deals


class TableSession:
    """A person in seat ``seat`` against policies in the other seats (see the module doc).

    ``opponents`` lists the specs of the other seats in seat order (one spec is used for
    all; the trick game's partner, seat ``seat + 2``, is one of them). ``rules`` are the
    game's rules options; for UNO a match to ``target`` points is played. ``position``
    starts from a given position (a puzzle, a saved game) instead of a fresh deal.
    """

    def __init__(
        self,
        game: str = "uno",
        num_players: int | None = None,
        opponents: Sequence[str | Mapping[str, Any]] | None = None,
        seat: int = 0,
        rules: Mapping[str, Any] | None = None,
        target: int | None = None,
        seed: int | None = 0,
        names: Sequence[str] | None = None,
        position: Mapping[str, Any] | None = None,
    ) -> None:
        secret = seed is None  # no seed: the deals follow from none that a record shows (below)
        if seed is None:
            seed = secrets.randbelow(2**31)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed must be an integer from 0 to {MAX_SEED:,}, got {seed!r}")
        self.game = game
        self.module = game_module(game)
        self.table = table_game(game)  # how this game is shown and told
        options = dict(rules or {})
        if {"match", "target_score"} <= set(self.module.Rules().to_dict()):  # a game played as a match
            options.setdefault("match", True)
            if target is not None:  # else the rules' own default (500)
                if options.get("target_score", target) != target:
                    raise ValueError(
                        f"target {target} and the rules' target_score {options['target_score']} disagree: give one"
                    )
                options["target_score"] = target
        self.rules = self.module.Rules.from_dict(options)
        if target is not None and not getattr(self.rules, "match", False):
            raise ValueError(f"target is the target score of a match; {game} with these rules plays no match")
        if position is not None and "num_players" in position:
            num_players = int(position["num_players"])
        if num_players is None:  # the game's smallest table: 2 for classic UNO, the trick game's 4
            num_players = game_info(game).table_sizes.start
        self.rules.check_players(num_players)
        if position is not None:
            self.engine = self.module.Engine.from_positions(
                [dict(position)], rules=self.rules, seed=seed, auto_reset=False
            )
        else:
            self.engine = self.module.Engine(1, num_players, self.rules, seed=seed, auto_reset=False)
            self.engine.reset()
        if not 0 <= seat < num_players:
            raise ValueError(f"seat must lie in 0..{num_players - 1}, got {seat}")
        self.seat, self.num_players = seat, num_players
        others = [s for s in range(num_players) if s != seat]
        if opponents is None:  # the game's default opponent on every other seat
            opponents = [game_info(game).default_opponent]
        if not opponents:
            raise ValueError("give at least one opponent policy (e.g. heuristic)")
        if len(opponents) not in (1, len(others)):
            each = f" or {len(others)} (one per other seat)" if len(others) > 1 else ""
            raise ValueError(
                f"give 1 opponent policy (it plays every other seat){each} for {num_players} players, "
                f"got {len(opponents)}"
            )
        specs = list(opponents) * len(others) if len(opponents) == 1 else list(opponents)
        self.specs: dict[int, str | dict[str, Any]] = {
            s: opponent_spec(game, num_players, spec) for s, spec in zip(others, specs, strict=True)
        }
        # The next game's seed: drawn from the session's own generator, not continued from the
        # engine's stream, whose seed and counter the finished game's record shows. That record
        # gives the session's seed away (the engine's seeding can be undone), so a session
        # without a given seed also mixes in a secret: its record tells nothing of the next
        # deal, nor of the opponents' random choices (their seeds come from the same mix). A
        # given seed replays the whole session, every deal and choice following from it.
        key = [int(seed) % 2**64, 0x7AB1E] + ([secrets.randbits(64)] if secret else [])
        self._next_seeds = np.random.default_rng(key)
        secret_seeds = np.random.default_rng([*key, 0x5EA7])  # its own stream: dealing draws no policy seed
        self.policies = {
            s: make_policy(
                game,
                spec,
                seed=int(secret_seeds.integers(2**63)) if secret else seed * 1000 + s,
                rules=self.rules.to_dict(),
            )
            for s, spec in self.specs.items()
        }
        # an agent at a table it was not fitted to (another size, a house rule): said, not refused
        self.notes = table_notes(game, list(self.specs.values()), self.rules.to_dict(), num_players)
        self.names = list(names) if names else self._default_names()
        if len(self.names) != num_players:
            raise ValueError(f"give {num_players} player names, got {len(self.names)}")
        self.tally = Tally()
        #: the events of the game in play (a new game starts a new list: a long session keeps one game's)
        self.history: list[Event] = []
        #: the move list as the person was told it ({"text", "you"}: their own move), the latest LOG_LINES
        self.log: deque[dict[str, Any]] = deque(maxlen=LOG_LINES)
        self._others_moved = False  # another seat moved since the person's own last move (see view)
        self._deal_due = True  # a hand was dealt and not yet announced (its first card's effect)
        self._start_record()

    # ------------------------------------------------------------------ state
    def _default_names(self) -> list[str]:
        names = []
        for s in range(self.num_players):
            if s == self.seat:
                names.append("You")
            else:
                info = game_info(self.game)
                partner = info.teams and info.side_of(s, self.num_players) == info.side_of(self.seat, self.num_players)
                names.append(f"P{s} {spec_label(self.specs[s])}" + (" (partner)" if partner else ""))
        return names

    def _start_record(self) -> None:
        self.record = GameRecord(
            self.game, self.num_players, self.rules.to_dict(), self.engine.position(0), moves=[], result=None
        )

    @property
    def over(self) -> bool:
        return int(self.engine.phase[0]) == self.engine.over_phase

    @property
    def current_player(self) -> int:
        return int(self.engine.current_player[0])

    @property
    def human_to_act(self) -> bool:
        return not self.over and self.current_player == self.seat

    def legal_actions(self) -> list[str]:
        """The person's legal actions now (none when it is not their turn)."""
        if not self.human_to_act:
            return []
        mask = self.engine.legal_action_mask[0]
        return [self.module.ACTION_NAMES[a] for a in np.flatnonzero(mask)]

    def moves(self) -> list[Move]:
        return list_moves(self.game, self.legal_actions())

    def view(self) -> dict[str, Any]:
        """What the person may see now, with their legal moves and the session's tally.

        A hand the person's challenge showed (``revealed``) is shown until another seat moves:
        the engine keeps it in the person's observation until their next decision, but by then
        the shown player may have played from it, and every screen would show a stale hand."""
        pos = self.engine.position(0)
        view = self.table.view(pos, self.seat, self.rules, self.names)
        if self._others_moved and view.get("revealed"):
            view["revealed"] = None  # the move list keeps what the challenge showed
        view["moves"] = [{"key": m.key, "label": m.label, "actions": list(m.actions)} for m in self.moves()]
        view["over"] = self.over
        view["tally"] = asdict(self.tally)
        return view

    # ------------------------------------------------------------------ moves
    def parse(self, text: str) -> str | Choice:
        """Typed input -> an action name or a follow-up question; :class:`MoveError` if neither."""
        if not self.human_to_act:
            raise MoveError("it is not your turn")
        view = self.view()
        return parse_move(self.game, text, self.moves(), view["hand"], phase=view.get("phase"))

    def act(self, action: str) -> list[Event]:
        """The person's move (an action name), then the agents' moves until the person's
        next turn or the end of the game. An illegal move raises :class:`MoveError` and
        changes nothing."""
        if self.over:
            raise MoveError("the game is over: start the next one")
        if not self.human_to_act:
            raise MoveError(f"it is not your turn: {self.names[self.current_player]} is to act")
        legal = self.legal_actions()
        if action not in legal:
            raise MoveError(f"{action!r} is not legal now; legal: {', '.join(legal)}")
        events = [self._step(self.module.action_id(action))]
        return events + self._deal_events() + self.advance()

    def advance(self) -> list[Event]:
        """Let the agents play until the person is to act or the game is over."""
        events = self._deal_events()
        while not self.over and self.current_player != self.seat:
            if len(events) >= MAX_AGENT_MOVES:
                raise RuntimeError("the agents made too many moves in a row")
            obs, mask = self.engine.observe()
            action = int(self.policies[self.current_player](obs, mask)[0])
            events.append(self._step(action))
            events += self._deal_events()
        return events

    def _deal_events(self) -> list[Event]:
        """The announcement of a hand just dealt (what its first card did), once per hand."""
        if not self._deal_due or self.over:
            return []
        self._deal_due = False
        story = self.table.opening(self, self.engine.position(0))
        if story is None:
            return []
        event = Event(-1, "", "deal", story, self.view())
        self._tell(event)
        return [event]

    def next_game(self) -> list[Event]:
        """Deal the next game (a new match in UNO) once this one is over."""
        if not self.over:
            raise MoveError("the game is still being played")
        self.engine.reset(seed=int(self._next_seeds.integers(2**31)))
        self.history = []
        self._start_record()
        self._deal_due = True
        return self.advance()

    def record_lines(self) -> list[str]:
        """The finished game's record as JSON lines; ``ValueError`` while it is in play, as the
        record holds every hand and the draw pile, which the person must not see."""
        if not self.over:
            raise ValueError(RECORD_WHEN_OVER)
        return self.record.to_lines()

    def save_record(self, path: str | Path) -> Path:
        """Save the finished game as a JSON-lines game record (atomically; ``ValueError`` while in play)."""
        if not self.over:
            raise ValueError(RECORD_WHEN_OVER)
        self.record.save(path)
        return Path(path)

    # ------------------------------------------------------------------ one step and its story
    def _step(self, action: int) -> Event:
        player = self.current_player
        name = self.module.action_name(action)
        before = self.engine.position(0)
        _, _, rewards, done = self.engine.step(np.array([action]))
        after = self.engine.position(0)
        self.record.moves.append((player, name))
        self._others_moved = player != self.seat
        event = Event(player, self.names[player], name, "", {})
        self.table.story(self, event, before, after)
        if done[0]:
            self.record.result = {"rewards": rewards[0].tolist()}
            event.game_over = self._game_over()
        elif event.hand_over:  # a match goes on: the engine dealt the next hand in this step
            self._deal_due = True
        event.view = self.view()
        self._tell(event)
        return event

    def _tell(self, event: Event) -> None:
        """Keep a move as the person is told it: in the history, and its line in the move list."""
        self.history.append(event)
        self.log.append({"text": event.text, "you": event.player == self.seat})

    def received(self, before: dict[str, Any], after: dict[str, Any], key: str = "hands") -> list[str]:
        """Cards that arrived in the person's own hand with this move."""
        return sorted((Counter(after[key][self.seat]) - Counter(before[key][self.seat])).elements())

    def who(self, seat: int, you: str = "You") -> str:
        """How a move's story names a seat: ``You`` (or ``you``) for the person, else its name."""
        return you if seat == self.seat else self.names[seat]

    def _game_over(self) -> dict[str, Any]:
        eng = self.engine
        winners = [int(s) for s in np.flatnonzero(eng.game_winners[0])]
        scores = [int(x) for x in eng.final_scores[0]]
        self.tally.games += 1
        info = self.table.game_over(self, winners, scores)
        info["line"] = self.table.over_line(info)  # the result in words, as every screen shows it
        return info
