"""Fuzzing every reader of untrusted files: each input loads or is refused with a ``ValueError``, fast.

Real documents (positions of games played a few random moves, game records, the shipped
configs, a Score Buddy store) are mutated at random: values replaced by wrong types, huge
or negative integers, NaN and infinities, unknown card names; keys deleted or added; lists
cut, grown or reordered; record lines deleted, duplicated, swapped or replaced. Each reader
must then either accept the input (and a position it accepts must play on and save the
same again) or raise ``ValueError`` (``IllegalActionError`` is one); any other exception,
or a call that takes more than a few seconds, fails.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import signal
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.cards import TYPE_NAMES
from envs.records import GameRecord, Recorder, main, verify
from envs.uno import UnoEngine, UnoRules
from envs.uno_tricks import TricksEngine, TricksRules

ROOT = Path(__file__).resolve().parent.parent
SECONDS = 60  # a hang guard, not a speed check: the slowest call (a replay, a config check) takes well under 1 s
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextlib.contextmanager
def bounded(what: str, seconds: float = SECONDS) -> Iterator[None]:
    """Fail if the block hangs: an alarm interrupts it after ``seconds`` (no timing is asserted)."""

    def timeout(signum: int, frame: Any) -> None:
        raise TimeoutError(f"{what} did not return within {seconds} s")

    previous = signal.signal(signal.SIGALRM, timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def loads_or_refuses(what: str, call: Callable[[], Any]) -> Any:
    """``call()``'s result, or None when it raised ``ValueError``; anything else fails the test
    (but for the crashes already known in files this suite does not fix, see ``KNOWN``)."""
    with bounded(what):
        try:
            return call()
        except ValueError:
            return None
        except Exception as err:
            if not any(known(err) for known in KNOWN):
                raise
            return None


def raised_in(err: BaseException, path: str, line_text: str) -> bool:
    """Whether ``err`` was raised at a line of ``path`` that contains ``line_text``."""
    last = traceback.extract_tb(err.__traceback__)[-1]
    return last.filename.endswith(path) and line_text in (last.line or "")


#: Crashes found by this suite in files it may not change, each with an xfail test below that
#: reproduces it (strict: once the crash is fixed the xfail fails, and its entry goes).
KNOWN: list[Callable[[BaseException], bool]] = []


# ---------------------------------------------------------------- mutations of JSON-ish documents
HUGE = [10**30, -(10**30), 2**63, 2**64, -(2**63) - 1, 10**400]
ODD_STRINGS = ["", "abc", "Z9", "R10", "W+5", "r7", " 7 ", "play", "over", "uno", "R", "None", "true", "1e309", "\x00"]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.integers(-(2**70), 2**70),
    st.sampled_from(HUGE),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), -0.0, 0.5, 1.0, -1.0]),
    st.sampled_from(ODD_STRINGS),
    st.text(max_size=6),
)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=4),
    st.dictionaries(
        st.sampled_from(["to", "player", "hand", "card", "x", "game_seed", "counter"]), scalars, max_size=3
    ),
)


def paths_of(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``doc`` (dict keys and list indices), the root included."""
    out = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += paths_of(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            out += paths_of(value, (*prefix, i))
    return out


def get(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


CARD_NAMES = [*TYPE_NAMES, "7", "0", "skip", "reverse", "+2", "wild", "+4"]
WORDS = [*CARD_NAMES, "R", "Y", "G", "B", "play", "drawn", "challenge", "uno", "colour", "over", "lay", "draw", "swap"]


def nudged(data: st.DataObject, value: Any) -> Any:
    """A plausible neighbour of ``value``: a near integer, the other boolean, another card or word."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + data.draw(st.sampled_from([-2, -1, 1, 2, 5]), label="delta")
    if isinstance(value, float):
        return value + data.draw(st.sampled_from([-1240.0, -0.5, 0.5, 1240.0]), label="delta")
    if isinstance(value, str):
        return data.draw(st.sampled_from(WORDS), label="word")
    return data.draw(values, label="value")


def move_item(data: st.DataObject, doc: Any) -> None:
    """Move an item from one list of ``doc`` to another (a card from a hand to a pile, ...)."""
    lists = [
        path
        for path in paths_of(doc)
        if isinstance(get(doc, path), list) and not any(isinstance(x, (list, dict)) for x in get(doc, path))
    ]  # lists of plain values (cards), the empty ones included
    source = [path for path in lists if get(doc, path)]
    if not source:
        return
    take = get(doc, data.draw(st.sampled_from(source), label="from"))
    item = take.pop(data.draw(st.integers(0, len(take) - 1), label="item"))
    get(doc, data.draw(st.sampled_from(lists), label="to")).append(item)


def mutate(data: st.DataObject, doc: Any, extra_keys: list[str]) -> Any:
    """``doc`` with one random change: a value replaced (by anything, or by a plausible
    neighbour), a key deleted or added, a list cut, grown, duplicated or reordered, an item
    moved from one list to another."""
    doc = copy.deepcopy(doc)
    path = data.draw(st.sampled_from(paths_of(doc)[1:] or [()]), label="path")
    ops = ["replace", "replace", "nudge", "nudge", "nudge", "move", "delete", "add", "list"]
    op = data.draw(st.sampled_from(ops), label="op")
    parent, key = (get(doc, path[:-1]), path[-1]) if path else (None, None)
    target = get(doc, path)
    if op == "nudge" and parent is not None:
        parent[key] = nudged(data, target)
    elif op == "move":
        move_item(data, doc)
    elif op == "delete" and parent is not None:
        del parent[key]
    elif op == "add" and isinstance(target, dict):
        target[data.draw(st.sampled_from([*extra_keys, "x", ""]), label="key")] = data.draw(values, label="value")
    elif op == "list" and isinstance(target, list):
        how = data.draw(st.sampled_from(["cut", "grow", "double", "reverse", "shuffle"]), label="how")
        if how == "cut":
            del target[data.draw(st.integers(0, len(target)), label="keep") :]
        elif how == "grow":
            target.append(data.draw(values, label="item"))
        elif how == "double":
            target.extend(copy.deepcopy(target))
        elif how == "reverse":
            target.reverse()
        else:
            target[:] = data.draw(st.permutations(target), label="order")
    elif parent is not None:
        parent[key] = data.draw(values, label="value")
    else:
        return data.draw(values, label="document")
    return doc


def mutated(data: st.DataObject, doc: Any, extra_keys: list[str]) -> Any:
    for _ in range(data.draw(st.sampled_from([1, 1, 1, 2, 3]), label="changes")):
        doc = mutate(data, doc, extra_keys)
    return doc


# ---------------------------------------------------------------- positions
def play_positions(make: Callable[[], Any], steps: int, every: int, seed: int) -> list[tuple[Any, dict[str, Any]]]:
    """Positions of a batch of games played at random (auto_reset off): every ``every`` steps,
    and every one in a rarer state (a phase other than the first, a stacked draw, a reveal)."""
    eng = make()
    _, mask = eng.reset()
    rng = np.random.default_rng(seed)
    found = []
    for step in range(steps):
        over = eng.phase == eng.over_phase
        keys = rng.random(mask.shape) + np.where(mask | over[:, None], 1.0, 0.0)
        _, mask, _, _ = eng.step(keys.argmax(axis=1))
        for i in range(eng.num_games):
            pos = eng.position(i)
            rare = eng.phase[i] not in (0, eng.over_phase) or pos.get("pending_draw") or pos.get("revealed")
            if rare or step % every == every - 1:
                found.append((eng.rules, pos))
    return found


def uno_pool() -> list[tuple[UnoRules, dict[str, Any]]]:
    pool = []
    for players, rules, seed in [
        (2, UnoRules(stacking=True, draw_anytime=True, must_play_drawn=False), 1),
        (3, UnoRules(match=True, target_score=60, reward="points", stacking=True), 2),
        (4, UnoRules(), 3),
        (10, UnoRules(hand_size=3, uno_penalty=4), 4),
    ]:
        make = lambda p=players, r=rules, s=seed: UnoEngine(8, p, r, seed=s, auto_reset=False)  # noqa: E731
        pool += play_positions(make, 80, 10, seed)
    return pool


def tricks_pool() -> list[tuple[TricksRules, dict[str, Any]]]:
    pool = []
    for rules, seed in [(TricksRules(), 1), (TricksRules(exchange_returns="two", reward="points"), 2)]:
        make = lambda r=rules, s=seed: TricksEngine(8, 4, r, seed=s, auto_reset=False)  # noqa: E731
        pool += play_positions(make, 80, 10, seed)
    return pool


UNO_POOL = uno_pool()
TRICKS_POOL = tricks_pool()
UNO_KEYS = ["game", "scores", "pending_draw", "drawn_card", "challenge", "uno_declared", "revealed", "guilty"]
TRICKS_KEYS = ["game", "num_players", "trick", "annulled", "draw_limit", "returns_left", "points", "laid_by"]


def test_the_pools_cover_every_phase():
    assert {pos["phase"] for _, pos in UNO_POOL} >= {"play", "drawn", "challenge", "uno", "over"}
    assert any(pos["revealed"] for _, pos in UNO_POOL) and any(pos["pending_draw"] for _, pos in UNO_POOL)
    assert {pos["phase"] for _, pos in TRICKS_POOL} >= {"lay", "draw", "return", "swap", "over"}


def check_loaded(eng: Any, pos: dict[str, Any], rules: Any, rng: np.random.Generator) -> None:
    """An accepted position plays on: a player to act has a legal move, and every position
    along the way saves and loads as itself."""
    for _ in range(6):
        saved = eng.position(0)
        assert type(eng).from_positions([saved], rules=rules, auto_reset=False).position(0) == saved
        if eng.phase[0] == eng.over_phase:
            return
        _, mask = eng.observe()
        assert mask[0].any(), f"an accepted position has no legal move: {saved}"
        eng.step(np.array([rng.choice(np.flatnonzero(mask[0]))]))


def fuzz_position(data: st.DataObject, pool: list, engine: type, extra_keys: list[str]) -> None:
    rules, pos = data.draw(st.sampled_from(pool), label="position")
    bad = mutated(data, pos, extra_keys)
    eng = loads_or_refuses("from_positions", lambda: engine.from_positions([bad], rules=rules, auto_reset=False))
    if eng is not None:
        with bounded("playing an accepted position"):
            check_loaded(eng, bad, rules, np.random.default_rng(0))


@FUZZ
@given(st.data())
def test_mutated_uno_positions_load_or_are_refused(data):
    fuzz_position(data, UNO_POOL, UnoEngine, UNO_KEYS)


@FUZZ
@given(st.data())
def test_mutated_trick_positions_load_or_are_refused(data):
    fuzz_position(data, TRICKS_POOL, TricksEngine, TRICKS_KEYS)


# ---------------------------------------------------------------- game records
def record_pool() -> list[GameRecord]:
    records = []
    for eng in (
        UnoEngine(4, 2, UnoRules(stacking=True), seed=5, auto_reset=False),
        UnoEngine(4, 3, UnoRules(match=True, target_score=40), seed=6, auto_reset=False),
        TricksEngine(4, seed=7, auto_reset=False),
    ):
        recorder = Recorder(eng)
        _, mask = recorder.reset()
        rng = np.random.default_rng(0)
        while len(recorder.completed) < 2:
            over = eng.phase == eng.over_phase
            keys = rng.random(mask.shape) + np.where(mask | over[:, None], 1.0, 0.0)
            _, mask, _, _ = recorder.step(keys.argmax(axis=1))
        records += recorder.completed[:2]
    return records


RECORDS = record_pool()
LINE_KEYS = ["type", "player", "action", "rewards", "game", "version", "num_players", "rules", "start"]
NOT_OBJECTS = ["[]", "[1, 2]", '"move"', "null", "7", "true", "{", "", "NaN", "[" * 2000 + "]" * 2000]


def mutated_lines(data: st.DataObject, lines: list[str]) -> list[str]:
    lines = list(lines)
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        n = data.draw(st.integers(0, len(lines) - 1), label="line")
        op = data.draw(st.sampled_from(["field", "field", "delete", "duplicate", "swap", "replace", "cut"]), label="op")
        if op == "field":
            with contextlib.suppress(ValueError, RecursionError):  # a line replaced before is no JSON
                lines[n] = json.dumps(mutated(data, json.loads(lines[n]), LINE_KEYS))
        elif op == "delete" and len(lines) > 1:
            del lines[n]
        elif op == "duplicate":
            lines.insert(data.draw(st.integers(0, len(lines)), label="to"), lines[n])
        elif op == "swap":
            m = data.draw(st.integers(0, len(lines) - 1), label="with")
            lines[n], lines[m] = lines[m], lines[n]
        elif op == "replace":
            lines[n] = data.draw(st.sampled_from(NOT_OBJECTS), label="text")
        elif op == "cut":
            del lines[max(n, 1) :]
        if not lines:
            lines = [""]
    return lines


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_game_records_replay_or_are_refused(data):
    record = data.draw(st.sampled_from(RECORDS), label="record")
    lines = mutated_lines(data, record.to_lines())
    loaded = loads_or_refuses("GameRecord.from_lines", lambda: GameRecord.from_lines(lines))
    if loaded is not None:
        loads_or_refuses("verify", lambda: verify(loaded))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.jsonl"
        path.write_text("\n".join(lines) + "\n")
        out, err = io.StringIO(), io.StringIO()
        with bounded("records show"), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["show", str(path)])
    assert code in (0, 1)
    assert (code == 1) == err.getvalue().startswith("error: "), err.getvalue()


def test_the_unchanged_records_replay():
    for record in RECORDS:
        assert verify(GameRecord.from_lines(record.to_lines()), complete=True).done


# ---------------------------------------------------------------- tournament and training configs
TOURNAMENT = yaml.safe_load((ROOT / "configs/eval/default.yaml").read_text())
TOURNAMENT_KEYS = [*TOURNAMENT, "stacking", "name", "label", "team", "bluff", "games", "policies"]
TRAINING_KEYS = [
    "game",
    "players",
    "rules",
    "num_games",
    "num_steps",
    "total_steps",
    "self_play",
    "opponents",
    "hidden",
    "learning_rate",
    "gamma",
    "seed",
    "device",
    "eval_opponents",
    "target",
    "rules.stacking",
    "rules.hand_size",
    "log_dir",
    "export",
    "backend",
    "imitation_teacher",
    "imitation_steps",
    "pool_size",
]
YAML_VALUES = st.one_of(
    st.sampled_from(
        [
            "0",
            "-1",
            "1e400",
            "nan",
            ".nan",
            ".inf",
            "10" * 20,
            "true",
            "null",
            "[]",
            "{}",
            "[1, [2]]",
            "{a: 1}",
            "heuristic",
            "random",
            "[random, heuristic]",
            "'x'",
            "&a [*a]",
            "{",
            "]",
            "!!python/object:os.system",
            "tricks",
            "uno",
            "4",
            "2",
        ]
    ),
    st.integers(-(10**25), 10**25).map(str),
    st.text(max_size=8),
)


@pytest.mark.parametrize("game", ["[]", "{a: 1}"])
def test_a_training_game_that_is_not_a_name_is_refused(game):
    from train import load_training_config

    with pytest.raises(ValueError, match="game must be one of"):
        load_training_config(ROOT / "configs/uno_2p_ppo.yaml", [f"game={game}"])


@FUZZ
@given(st.data())
def test_mutated_tournament_configs_are_checked_or_refused(data):
    from tournament.config import TournamentConfig

    TournamentConfig.from_mapping(TOURNAMENT)  # the imports a first check makes are not timed
    config = mutated(data, TOURNAMENT, TOURNAMENT_KEYS)
    loads_or_refuses("TournamentConfig.from_mapping", lambda: TournamentConfig.from_mapping(config))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_training_configs_with_random_overrides_are_checked_or_refused(data):
    from train import load_training_config

    name = data.draw(st.sampled_from(["uno_2p_ppo.yaml", "uno_4p_ppo.yaml", "tricks_ppo.yaml"]), label="config")
    load_training_config(ROOT / "configs" / name, [])  # the imports a first check makes are not timed
    base = yaml.safe_load((ROOT / "configs" / name).read_text())
    if data.draw(st.booleans(), label="mutate the file"):
        base = mutated(data, base, TRAINING_KEYS)
    overrides = [
        f"{data.draw(st.sampled_from(TRAINING_KEYS) | st.text(max_size=5), label='key')}={data.draw(YAML_VALUES)}"
        for _ in range(data.draw(st.integers(0, 3), label="overrides"))
    ]
    if data.draw(st.booleans(), label="a malformed override"):
        overrides.append(data.draw(st.sampled_from(["games", "=1", "rules.=1", ".x=1", "a..b=2", "seed"])))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(yaml.safe_dump(base) if isinstance(base, dict) else json.dumps(base, default=str))
        loads_or_refuses("load_training_config", lambda: load_training_config(path, overrides))


# ---------------------------------------------------------------- Score Buddy stores
def score_book() -> dict[str, Any]:
    from tabletop.scorebuddy import ScoreBook

    book = ScoreBook(["Ann", "Bo", "Cy"], target=200)
    book.record_hand("Ann", 35)
    book.record_hand("Cy", 80)
    reverse = ScoreBook(["Ann", "Bo"], target=100, variant="reverse")
    reverse.record_reverse_hand({"Ann": 12, "Bo": 40}, closer="Ann")
    return {"standard": book.to_dict(), "reverse": reverse.to_dict()}


BOOKS = score_book()
BOOK_KEYS = ["format", "version", "players", "target", "variant", "hands", "closer", "points", "Ann", "Bo"]


@FUZZ
@given(st.data())
def test_mutated_score_buddy_stores_load_or_are_refused(data):
    from tabletop.scorebuddy import ScoreBook

    book = mutated(data, BOOKS[data.draw(st.sampled_from(sorted(BOOKS)), label="book")], BOOK_KEYS)
    text = json.dumps(book, default=str)
    if data.draw(st.booleans(), label="damage the text"):
        cut = data.draw(st.integers(0, len(text)), label="cut")
        text = text[:cut] + data.draw(st.sampled_from(["", "}", "\udcff", "[" * 5000, "\x00", "1" * 5000]))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "book.json"
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        loads_or_refuses("ScoreBook.load", lambda: ScoreBook.load(path))


@pytest.mark.parametrize("name", sorted(BOOKS))
def test_the_unchanged_store_loads(name, tmp_path):
    from tabletop.scorebuddy import ScoreBook

    path = tmp_path / "book.json"
    path.write_text(json.dumps(BOOKS[name]))
    assert ScoreBook.load(path).to_dict() == BOOKS[name]
