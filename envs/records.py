"""Game records: save any game as JSON lines, replay it to the identical end, print it.

A record is the rules, the position the game started from (which carries the game's
random stream) and the moves as action names; the engine replays it exactly. The file
is JSON lines, one object per line::

    {"type": "header", "game": "uno", "version": 1, "num_players": 3, "rules": {...}, "start": {...}}
    {"type": "move", "player": 0, "action": "play R7"}
    ...
    {"type": "result", "rewards": [1.0, -0.5, -0.5]}

The code is game-agnostic: a game is a package listed in ``GAMES`` exposing ``Engine``,
``Rules``, ``action_id``, ``action_name``, ``render_position`` and ``describe_turn``.

Command line::

    python -m envs.records record --players 3 --seed 7 --out game.jsonl   # random play
    python -m envs.records show game.jsonl                                # turn by turn
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from envs.atomic import write_atomically

FORMAT_VERSION = 1
GAMES = {"uno": "envs.uno", "tricks": "envs.uno_tricks"}


def game_module(game: str) -> ModuleType:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known: {', '.join(GAMES)}")
    return importlib.import_module(GAMES[game])


@dataclass
class GameRecord:
    """One game: where it started, every move, and how it ended."""

    game: str
    num_players: int
    rules: dict[str, Any]
    start: dict[str, Any]
    moves: list[tuple[int, str]] = field(default_factory=list)
    result: dict[str, Any] | None = None

    def to_lines(self) -> list[str]:
        header = {
            "type": "header",
            "game": self.game,
            "version": FORMAT_VERSION,
            "num_players": self.num_players,
            "rules": self.rules,
            "start": self.start,
        }
        lines = [json.dumps(header)]
        lines += [json.dumps({"type": "move", "player": p, "action": a}) for p, a in self.moves]
        if self.result is not None:
            lines.append(json.dumps({"type": "result", **self.result}))
        return lines

    def save(self, path: str | Path) -> None:
        """Write the record atomically (:func:`envs.atomic.write_atomically`)."""
        write_atomically(path, "\n".join(self.to_lines()) + "\n")

    @classmethod
    def from_lines(cls, lines: Sequence[str]) -> GameRecord:
        rows = []
        for n, line in enumerate(lines, start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as err:
                    raise ValueError(f"line {n} is not JSON: {err}") from None
        if not rows or rows[0].get("type") != "header":
            raise ValueError("a game record starts with a header line")
        head = rows[0]
        if head.get("version") != FORMAT_VERSION:
            raise ValueError(f"record format version {head.get('version')!r}; this lab reads {FORMAT_VERSION}")
        record = cls(head["game"], head["num_players"], head["rules"], head["start"])
        for n, row in enumerate(rows[1:], start=2):
            if row.get("type") == "move":
                record.moves.append((int(row["player"]), str(row["action"])))
            elif row.get("type") == "result":
                record.result = {k: v for k, v in row.items() if k != "type"}
            else:
                raise ValueError(f"record line {n}: unknown type {row.get('type')!r}")
        return record

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        return cls.from_lines(Path(path).read_text().splitlines())


@dataclass
class Turn:
    index: int
    player: int
    action: str
    before: dict[str, Any]  # position the move was made in
    rewards: list[float]
    done: bool


def replay(record: GameRecord) -> Iterator[Turn]:
    """Step a record's moves from its start position; refuses a move the rules forbid or out of turn."""
    module = game_module(record.game)
    rules = module.Rules.from_dict(record.rules)
    eng = module.Engine.from_positions([record.start], rules=rules, auto_reset=False)
    for index, (player, action) in enumerate(record.moves):
        before = eng.position(0)
        if int(eng.current_player[0]) != player:
            raise ValueError(f"move {index}: the record says P{player} acts, the game says P{before['current_player']}")
        _, _, rewards, done = eng.step(np.array([module.action_id(action)]))
        yield Turn(index, player, action, before, rewards[0].tolist(), bool(done[0]))


def verify(record: GameRecord) -> Turn | None:
    """Replay to the end and check it reproduces the recorded result; returns the last turn."""
    last = None
    for last in replay(record):  # noqa: B007
        pass
    if record.result is not None:
        if last is None or not last.done:
            raise ValueError("the replay did not reach the end of the game the record reports")
        if not np.allclose(last.rewards, record.result["rewards"]):
            raise ValueError(f"replayed rewards {last.rewards} differ from recorded {record.result['rewards']}")
    return last


class Recorder:
    """Records every game of a batched engine while it is played.

    Use ``recorder.reset()`` / ``recorder.step(actions)`` in place of the engine's; each
    finished game appends a :class:`GameRecord` to ``completed``. Recording costs a little
    Python per finished game (building its record), nothing per game per step.
    """

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.game = engine.game
        self.completed: list[GameRecord] = []
        self._log: list[tuple[np.ndarray, np.ndarray]] = []  # (players, actions) per step
        self._offset = 0  # step number of self._log[0]

    def _start(self, games: np.ndarray) -> None:
        for i in games:
            self._starts[i] = (self._offset + len(self._log), self.engine.position(int(i)))

    def reset(self, seed: int | Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        out = self.engine.reset(seed=seed)
        self._log, self._offset = [], 0
        self._starts: dict[int, tuple[int, dict[str, Any]]] = {}
        self._start(np.arange(self.engine.num_games))
        return out

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        players = self.engine.current_player.copy()
        out = self.engine.step(actions)
        self._log.append((players, np.asarray(actions, dtype=np.int64).copy()))
        rewards, done = out[2], out[3]
        finished = np.flatnonzero(done)
        if finished.size:
            module = game_module(self.game)
            now = self._offset + len(self._log)
            for i in finished:
                first, start = self._starts[i]
                steps = self._log[first - self._offset : now - self._offset]
                moves = [(int(p[i]), module.action_name(a[i])) for p, a in steps]
                result = {"rewards": rewards[i].tolist()}
                self.completed.append(
                    GameRecord(self.game, self.engine.num_players, self.engine.rules.to_dict(), start, moves, result)
                )
            self._start(finished)
            if self.engine.auto_reset is False:
                for i in finished:
                    del self._starts[i]
        oldest = min((s for s, _ in self._starts.values()), default=self._offset + len(self._log))
        drop = oldest - self._offset
        if drop > 256:
            del self._log[:drop]
            self._offset += drop
        return out


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m envs.records", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="print a recorded game turn by turn")
    show.add_argument("path")
    show.add_argument("--full", action="store_true", help="print the whole table before every move")
    rec = sub.add_parser("record", help="play games with random policies and save them")
    rec.add_argument("--game", default="uno", choices=sorted(GAMES))
    rec.add_argument("--players", type=int, default=2)
    rec.add_argument("--seed", type=int, default=0)
    rec.add_argument("--out", required=True)
    rec.add_argument("rules", nargs="*", metavar="key=value", help="rules options, e.g. stacking=true")
    args = parser.parse_args(argv)

    if args.command == "record":
        from agents.policy import RandomPolicy

        module = game_module(args.game)
        options = {}
        for item in args.rules:
            key, sep, value = item.partition("=")
            if not sep:
                parser.error(f"rules options are key=value, got {item!r}")
            options[key] = _parse_value(value)
        try:
            rules = module.Rules.from_dict(options)
            eng = module.Engine(1, args.players, rules, seed=args.seed, auto_reset=False)
        except ValueError as err:
            parser.error(str(err))
        recorder, policy = Recorder(eng), RandomPolicy(args.seed)
        obs, mask = recorder.reset()
        while not recorder.completed:
            obs, mask, _, _ = recorder.step(policy(obs, mask))
        recorder.completed[0].save(args.out)
        print(f"saved {len(recorder.completed[0].moves)} moves to {args.out}")
        return 0

    try:
        record = GameRecord.load(args.path)
        module = game_module(record.game)
        print(f"{record.game}: {record.num_players} players, rules {record.rules}")
        print(module.render_position(record.start))
        last = None
        for last in replay(record):
            if args.full:
                print(module.render_position(last.before))
            print(module.describe_turn(last.index, last.player, last.action, last.before))
        verify(record)
    except (OSError, ValueError, KeyError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if last is not None and last.done:
        print("result: " + ", ".join(f"P{i} {r:+.3f}" for i, r in enumerate(last.rewards)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
