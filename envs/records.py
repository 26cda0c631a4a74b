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

Reading checks every line: each is a JSON object of a known type with exactly its keys, one
header first, the moves, and at most one result line last. A mistake is a ``ValueError``
naming the line and what is wrong: a move after the game has ended, a header whose player
count contradicts its start position, a result line whose game has not ended, and (for
``verify``) a game that ends with no result line. A record saved mid-game (Score Buddy's
table sessions may save one) has no result line; ``show`` replays it and then reports that
it ends before the game does, with exit code 1.

Command line::

    python -m envs.records record --players 3 --seed 7 --out game.jsonl   # random play
    python -m envs.records show game.jsonl                                # turn by turn
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from envs.atomic import check_file_writable, write_atomically
from envs.config import rules_options, seed_arg
from envs.core import IllegalActionError, shown_value
from envs.games import GAMES, game_module
from envs.games import game as game_info

FORMAT_VERSION = 1
#: The keys of each line type (``type`` included).
LINE_KEYS = {
    "header": {"type", "game", "version", "num_players", "rules", "start"},
    "move": {"type", "player", "action"},
    "result": {"type", "rewards"},
}


def _check_version(version: Any) -> None:
    if isinstance(version, bool) or version != FORMAT_VERSION:
        raise ValueError(f"record format version {shown_value(version)}; this lab reads {FORMAT_VERSION}")


def _finite_number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return bool(np.isfinite(float(value)))
    except OverflowError:  # an integer beyond any float
        return False


@dataclass
class GameRecord:
    """One game: where it started, every move, and how it ended."""

    game: str
    num_players: int
    rules: dict[str, Any]
    start: dict[str, Any]
    moves: list[tuple[int, str]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    #: Line numbers in the file read (1 is the header): of each move, and of the result line.
    #: A record built in memory has none; its lines are numbered as :meth:`to_lines` writes them.
    move_lines: list[int] = field(default_factory=list, compare=False, repr=False)
    result_line: int | None = field(default=None, compare=False, repr=False)

    def line_of_move(self, index: int) -> int:
        """The line of move ``index`` (0-based) in the file it was read from, or as saved."""
        return self.move_lines[index] if index < len(self.move_lines) else index + 2

    def line_of_result(self) -> int:
        return self.result_line if self.result_line is not None else len(self.moves) + 2

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
        """Read a record's lines; every line is checked (see the module docstring)."""
        rows: list[tuple[int, dict[str, Any]]] = []
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"line {n} is not JSON: {err}") from None
            except (ValueError, RecursionError) as err:  # a huge integer, nesting too deep
                raise ValueError(f"line {n} is not a usable JSON line: {err}") from None
            if not rows and (not isinstance(row, dict) or row.get("type") != "header"):
                raise ValueError(f"a game record starts with a header line; line {n} is {shown_value(row)}")
            if not isinstance(row, dict):
                raise ValueError(
                    f"line {n} must be a JSON object with a 'type', got {type(row).__name__} {shown_value(row)}"
                )
            kind = row.get("type")
            if not isinstance(kind, str) or kind not in LINE_KEYS:
                raise ValueError(f"line {n}: unknown type {shown_value(kind)}; a line is one of {', '.join(LINE_KEYS)}")
            if kind == "header" and "version" in row:  # another version may have other keys
                _check_version(row["version"])
            missing = sorted(LINE_KEYS[kind] - set(row))
            unknown = sorted(str(k) for k in set(row) - LINE_KEYS[kind])
            if missing or unknown:
                raise ValueError(
                    f"line {n}: a {kind} line has exactly the keys {', '.join(sorted(LINE_KEYS[kind]))}"
                    + (f"; missing {', '.join(missing)}" if missing else "")
                    + (f"; unknown {', '.join(unknown)}" if unknown else "")
                )
            rows.append((n, row))
        if not rows:
            raise ValueError("a game record starts with a header line; this one is empty")
        record = cls._from_header(*rows[0])
        for n, row in rows[1:]:
            kind = row["type"]
            if kind == "header":
                raise ValueError(f"line {n}: a second header line (a record holds one game)")
            if record.result is not None:
                raise ValueError(f"line {n}: a {kind} line after the result line (line {record.result_line})")
            if kind == "move":
                player, action = row["player"], row["action"]
                if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < record.num_players:
                    raise ValueError(
                        f"line {n}: player must be a seat 0..{record.num_players - 1}, got {shown_value(player)}"
                    )
                if not isinstance(action, str):
                    raise ValueError(f"line {n}: action must be an action name (a string), got {shown_value(action)}")
                record.moves.append((player, action))
                record.move_lines.append(n)
            else:
                rewards = row["rewards"]
                if (
                    not isinstance(rewards, list)
                    or len(rewards) != record.num_players
                    or not all(_finite_number(r) for r in rewards)
                ):
                    raise ValueError(
                        f"line {n}: rewards must list {record.num_players} finite numbers (one per seat), "
                        f"got {shown_value(rewards)}"
                    )
                record.result = {"rewards": [float(r) for r in rewards]}
                record.result_line = n
        return record

    @classmethod
    def _from_header(cls, n: int, head: dict[str, Any]) -> GameRecord:
        game = head["game"]
        if not isinstance(game, str) or game not in GAMES:
            raise ValueError(f"line {n}: unknown game {shown_value(game)}; known: {', '.join(GAMES)}")
        players, rules, start = head["num_players"], head["rules"], head["start"]
        if isinstance(players, bool) or not isinstance(players, int) or players < 1:
            raise ValueError(f"line {n}: num_players must be the table size (an integer), got {shown_value(players)}")
        if not isinstance(rules, dict):
            raise ValueError(f"line {n}: rules must be a mapping of rules options, got {shown_value(rules)}")
        if not isinstance(start, dict):
            raise ValueError(f"line {n}: start must be a position (a JSON object), got {shown_value(start)}")
        table_size = game_module(game).Engine.table_size
        start_players = start.get("num_players", table_size)
        if start_players is not None and start_players != players:
            raise ValueError(
                f"line {n}: the header says num_players {players}, its start position "
                f"{shown_value(start_players)}: a record is one game at one table"
            )
        return cls(game, players, rules, start)

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


def start_engine(record: GameRecord) -> tuple[ModuleType, Any]:
    """The game module and a one-game engine at the record's start position (line 1 checked)."""
    module = game_module(record.game)
    if not isinstance(record.start, dict) or record.start.get("rng") is None:
        raise ValueError(
            "line 1: the start position has no rng: a record's start carries the game's random stream, "
            "without which its reshuffles (and so its moves) would differ at every replay"
        )
    try:
        rules = module.Rules.from_dict(record.rules)
        eng = module.Engine.from_positions([record.start], rules=rules, auto_reset=False)
    except ValueError as err:
        raise ValueError(f"line 1: {err}") from None
    if eng.num_players != record.num_players:
        raise ValueError(
            f"line 1: the header says num_players {record.num_players}, its start position is a game of "
            f"{eng.num_players}: a record is one game at one table"
        )
    return module, eng


def replay(record: GameRecord) -> Iterator[Turn]:
    """Step a record's moves from its start position; refuses a move the rules forbid, out of
    turn, or after the game has ended, naming its line."""
    module, eng = start_engine(record)
    ended_at = 1 if int(eng.phase[0]) == eng.over_phase else None  # a start position already over
    for index, (player, action) in enumerate(record.moves):
        line = record.line_of_move(index)
        if ended_at is not None:
            where = "in its start position" if ended_at == 1 else f"at line {ended_at}"
            raise ValueError(f"line {line}: move {index} comes after the game has ended ({where})")
        before = eng.position(0)
        if int(eng.current_player[0]) != player:
            raise ValueError(
                f"line {line}: move {index}: the record says P{player} acts, the game says P{before['current_player']}"
            )
        try:
            _, _, rewards, done = eng.step(np.array([module.action_id(action)]))
        except IllegalActionError as err:
            raise IllegalActionError(f"line {line}: move {index}: {err}") from None
        except ValueError as err:
            raise ValueError(f"line {line}: move {index}: {err}") from None
        if done[0]:
            ended_at = line
        yield Turn(index, player, action, before, rewards[0].tolist(), bool(done[0]))


def verify(record: GameRecord, complete: bool = False) -> Turn | None:
    """Replay to the end and check it reproduces the recorded result; returns the last turn.

    A game that ends without a result line is refused (the record was cut short); so is one
    that has not ended when ``complete`` (a record of a game still being played has no result
    line: ``complete=False`` accepts it).
    """
    last = None
    for last in replay(record):  # noqa: B007
        pass
    if last is None:
        _, eng = start_engine(record)
        if int(eng.phase[0]) == eng.over_phase:  # no move could follow, and no result comes from none
            raise ValueError("the record's start position is a finished game: there is nothing to replay")
    ended = last.done if last is not None else False
    if record.result is not None:
        if not ended:
            raise ValueError(
                f"line {record.line_of_result()}: a result line, but the replay did not reach the end of the game"
            )
        # exact at the engine's precision (float32): another tool's -1/3 in float64 is the same reward
        if not np.array_equal(np.float32(last.rewards), np.float32(record.result["rewards"])):
            raise ValueError(
                f"line {record.line_of_result()}: replayed rewards {last.rewards} differ from recorded "
                f"{record.result['rewards']}"
            )
    elif ended:
        raise ValueError(
            f"the record has no result line: the game ends at line {record.line_of_move(last.index)} "
            "(the record was cut short)"
        )
    elif complete:
        last_line = record.line_of_move(last.index) if last is not None else 1
        raise ValueError(
            f"the record ends before the game does: no result line, and the game goes on after line {last_line} "
            "(a record cut short, or saved mid-game)"
        )
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
        if not hasattr(self, "_starts"):  # before the engine moves: a game without its start is no record
            raise RuntimeError("Recorder.reset() deals the games it records: call it before step()")
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m envs.records", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="print a recorded game turn by turn")
    show.add_argument("path")
    show.add_argument("--full", action="store_true", help="print the whole table before every move")
    rec = sub.add_parser("record", help="play games with random policies and save them")
    rec.add_argument("--game", default="uno", choices=sorted(GAMES))
    rec.add_argument("--players", type=int, default=None, help="table size (default: the game's smallest)")
    rec.add_argument("--seed", type=seed_arg, default=0)
    rec.add_argument("--out", required=True)
    rec.add_argument(
        "rules", nargs="*", metavar="key=value", help="rules options, e.g. stacking=true (values read as YAML)"
    )
    args = parser.parse_args(argv)

    if args.command == "record":
        module = game_module(args.game)
        try:
            check_file_writable(args.out, "--out")
            rules = module.Rules.from_dict(rules_options(args.rules))
            players = game_info(args.game).table_sizes.start if args.players is None else args.players
            eng = module.Engine(1, players, rules, seed=args.seed, auto_reset=False)
        except ValueError as err:
            parser.error(str(err))
        recorder, choices = Recorder(eng), np.random.default_rng(args.seed)
        obs, mask = recorder.reset()
        while not recorder.completed:  # uniformly random legal moves (Gumbel-max over the mask)
            obs, mask, _, _ = recorder.step(np.argmax(np.where(mask, choices.gumbel(size=mask.shape), -np.inf), axis=1))
        recorder.completed[0].save(args.out)
        print(f"saved {len(recorder.completed[0].moves)} moves to {args.out}")
        return 0

    try:
        record = GameRecord.load(args.path)
        module, eng = start_engine(record)
        print(f"{record.game}: {record.num_players} players, rules {record.rules}")
        print(module.render_position(eng.position(0)))
        last = None
        for last in replay(record):
            if args.full:
                print(module.render_position(last.before))
            print(module.describe_turn(last.index, last.player, last.action, last.before))
        verify(record, complete=True)
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if last is not None and last.done:
        print("result: " + ", ".join(f"P{i} {r:+.3f}" for i, r in enumerate(last.rewards)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
