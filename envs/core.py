"""What every batched engine of the lab shares: the step cycle, action checks, random streams.

A game engine subclasses :class:`BatchedEngine` and supplies the rules through its
compiled kernels: ``_allocate`` (its state arrays, which include ``current`` and
``phase``), ``_new_episode`` (deal), ``_step_kernel`` (one whole step),
``_observe_games``, ``_legal_mask`` and ``_observation``, plus ``position`` /
``from_positions``. The base class keeps the public interface identical
across games (``reset``, ``observe``, ``step``, ``current_player``, rewards for every
seat, auto-restart) and refuses bad actions the same way.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from envs import rng


class IllegalActionError(ValueError):
    """An action the rules do not allow in that game's state (the state is unchanged)."""


def dataclass_from_mapping(cls: type, data: Mapping[str, Any] | None, what: str) -> Any:
    """``cls(**data)`` for a config dataclass; an unknown key is a ``ValueError`` naming it
    and the allowed ones (``what`` says what the keys are, e.g. ``"config key(s)"``)."""
    if data is not None and not isinstance(data, Mapping):
        raise ValueError(f"expected a mapping of {what}, got {type(data).__name__}")
    data = dict(data or {})
    allowed = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(str(k) for k in set(data) - set(allowed))  # str: YAML keys may be numbers
    if unknown:
        raise ValueError(f"unknown {what} {', '.join(unknown)}; allowed: {', '.join(allowed)}")
    return cls(**data)


# ---------------------------------------------------------------------- reading untrusted values
# Positions, records and stores are read from files people write or edit: each value is
# checked for its type and range before it reaches a fixed-width array, so a mistake is a
# ``ValueError`` naming the field and what is allowed (never an ``OverflowError`` or a value
# silently read as something else).

#: The range of a 64-bit random stream's seed and counter (``envs.rng``).
UINT64_MAX = (1 << 64) - 1


def field_docs(cls: type) -> dict[str, str]:
    """Each dataclass field's one-line doc: the comment at the end of its line in the class's
    source (where a reader of the code finds it), for ``--help``; '' for a field without one."""
    import inspect
    import re

    docs = dict.fromkeys((f.name for f in dataclasses.fields(cls)), "")
    for line in inspect.getsource(cls).splitlines():
        match = re.match(r"\s+(\w+)\s*:[^#]*#\s*(.*\S)\s*$", line)
        if match and match.group(1) in docs and not docs[match.group(1)]:
            docs[match.group(1)] = match.group(2)
    return docs


def shown_value(value: Any, limit: int = 40) -> str:
    """``repr(value)`` for an error message, cut when it is long (a huge integer, a long list)."""
    try:
        text = repr(value)
    except ValueError:  # an integer too long for repr (sys.get_int_max_str_digits)
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    return text if len(text) <= limit else f"{text[: limit - 12]}...({len(text)} characters)"


def read_int(value: Any, what: str, low: int, high: int) -> int:
    """``value`` as an ``int`` in ``low..high``: a bool, a float or a number out of range is a ``ValueError``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{what} must be an integer from {low:,} to {high:,}, got {shown_value(value)}")
    return int(value)


def read_ints(value: Any, what: str, low: int, high: int) -> np.ndarray:
    """``value`` (an integer or an array of them) as ``int64``, each in ``low..high``: a bool,
    a float or a number out of range is a ``ValueError``, never rounded or wrapped."""
    values = np.asarray(value)
    if values.dtype == np.bool_ or not np.issubdtype(values.dtype, np.integer) or values.size == 0:
        raise ValueError(f"{what} must be integers from {low:,} to {high:,}, got {shown_value(value)}")
    if ((values < low) | (values > high)).any():
        raise ValueError(f"{what} must lie in {low:,}..{high:,}, got {shown_value(value)}")
    return values.astype(np.int64)


def policy_answer(answer: Any, n: int, who: str, error: type[Exception] = ValueError) -> np.ndarray:
    """A policy's answer for ``n`` games as ``int64``, checked: one whole action id each (an
    outside policy that returns fewer, floats or huge unsigned ids is named, not cut to fit
    or failing somewhere inside numpy)."""
    out = np.asarray(answer)
    huge = out.dtype.kind == "u" and out.size and out.max() > np.iinfo(np.int64).max  # would wrap negative
    if out.shape != (n,) or out.dtype.kind not in "iu" or huge:
        raise error(
            f"{who} returned {out.dtype} actions of shape {out.shape}"
            + (f" (up to {out.max()})" if huge else "")
            + f"; a policy returns one integer action id per game, shape ({n},)"
        )
    return out.astype(np.int64, copy=False)


def read_bool(value: Any, what: str) -> bool:
    """``value`` as a ``bool``: only true or false (a string such as ``"abc"`` or a number is refused)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be true or false, got {shown_value(value)}")
    return bool(value)


def read_number(value: Any, what: str, low: float, high: float) -> float:
    """``value`` as a finite ``float`` in ``[low, high]`` (NaN, infinities and bools are refused)."""
    ok = not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))
    if ok:
        try:
            number = float(value)
        except OverflowError:  # an integer beyond any float
            ok = False
        else:
            ok = bool(np.isfinite(number)) and low <= number <= high
    if not ok:
        raise ValueError(f"{what} must be a finite number from {low:g} to {high:g}, got {shown_value(value)}")
    return number


def read_list(value: Any, what: str, length: int | None = None, of: str = "entries") -> list[Any]:
    """``value`` as a list (a JSON array), of ``length`` items when given."""
    if not isinstance(value, (list, tuple)) or (length is not None and len(value) != length):
        wanted = f"be a list of {of}" if length is None else f"list {length} {of}"
        raise ValueError(f"{what} must {wanted}, got {shown_value(value)}")
    return list(value)


def check_rng_state(state: Any, what: str = "rng") -> None:
    """A position's random stream: ``{"game_seed": int, "counter": int}``, both in 0..2**64-1."""
    if not isinstance(state, dict) or set(state) != {"game_seed", "counter"}:
        raise ValueError(f"{what} must be {{'game_seed': int, 'counter': int}}, got {shown_value(state)}")
    read_int(state["game_seed"], f"{what}.game_seed", 0, UINT64_MAX)
    read_int(state["counter"], f"{what}.counter", 0, UINT64_MAX)


def seats_after(seat, steps, direction, num_players):  # ints or numpy arrays
    """The seat ``steps`` places on in the direction of play (negative: back; ``direction``
    1 or -1, 1 in a game without one), for ints or numpy arrays alike (broadcast). UNO's
    kernel compiles it as ``seat_after``."""
    return (seat + steps * direction) % num_players


def floats_as_declared(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a dataclass's fields) with a whole number in a ``float`` (or ``float | None``)
    field as that float: ``1`` and ``1.0`` are one value, so one spelling of it."""
    floats = {f.name for f in dataclasses.fields(cls) if str(f.type).replace(" ", "") in ("float", "float|None")}
    return {
        k: float(v) if k in floats and isinstance(v, int) and not isinstance(v, bool) else v for k, v in data.items()
    }


class RulesBase:
    """Config round trip for the games' frozen rules dataclasses."""

    @classmethod
    def from_dict(cls, options: Mapping[str, Any] | None) -> Any:
        """Rules from a config mapping; an unknown key is a ``ValueError`` naming the allowed ones."""
        return dataclass_from_mapping(cls, options, f"{cls.__name__} option(s)")

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping of every field (JSON/YAML serialisable)."""
        return dataclasses.asdict(self)

    def changes(self) -> dict[str, Any]:
        """The options away from their defaults: what these rules mean, as a config would
        write it (``{stacking: false}`` and ``{}`` are both ``{}``)."""
        default = type(self)()
        values = floats_as_declared(type(self), self.to_dict())  # uno_catch_prob 0 is 0.0
        return {k: v for k, v in values.items() if v != getattr(default, k)}

    @classmethod
    def option_names(cls) -> list[str]:
        """The rule options, in their order."""
        return [field.name for field in dataclasses.fields(cls)]


def action_lookup(names: Sequence[str], forms: str) -> tuple[Callable[[str], int], Callable[[int], str]]:
    """``action_id`` and ``action_name`` for a fixed list of action names (``forms`` lists them for errors)."""
    by_key = {name.upper(): i for i, name in enumerate(names)}

    def action_id(name: str) -> int:
        """Id of an action name (case and spacing forgiven)."""
        try:
            return by_key[" ".join(str(name).split()).upper()]
        except KeyError:
            raise ValueError(f"unknown action {name!r}: {forms}") from None

    def action_name(action: int) -> str:
        """Name of an action id (inverse of ``action_id``)."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"an action is an integer id 0..{len(names) - 1}, got {shown_value(action)}")
        if not 0 <= action < len(names):
            raise ValueError(f"action {action!r} out of range: actions are 0..{len(names) - 1}")
        return names[int(action)]

    return action_id, action_name


class BatchedEngine:
    """Base of the batched engines: ``num_games`` games of one table size stepped together."""

    game: ClassVar[str]
    obs_size: ClassVar[int]
    action_names: ClassVar[tuple[str, ...]]
    phase_names: ClassVar[tuple[str, ...]]  # the last one is "over"
    rules_type: ClassVar[type]
    positions_module: ClassVar[str]  # defines position_of(engine, i) and load_position(engine, j, pos)
    table_size: ClassVar[int | None] = None  # the number of players, for a game that fixes it
    #: Every per-game state array (batch dimension first) by attribute name, what
    #: :meth:`select` carries over: the per-game parts of the kernel's state table
    #: (``envs.state_table.saved_names``). Index helpers built from the batch size (``_ar``,
    #: ``_row_base``) and one step's outputs are not state.
    state_fields: ClassVar[tuple[str, ...]]
    _STREAM_FIELDS = ("game_seeds", "rng_counter")

    def __init__(
        self,
        num_games: int,
        num_players: int,
        rules: Any,
        seed: int | Sequence[int] | None,
        auto_reset: bool,
    ) -> None:
        self.rules = self.rules_type() if rules is None else rules
        if not isinstance(self.rules, self.rules_type):
            name = self.rules_type.__name__
            raise ValueError(
                f"rules must be a {name} ({name}.from_dict(mapping) reads a config), got {type(rules).__name__}"
            )
        self.rules.check_players(num_players)
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        self.num_games = int(num_games)
        self.num_players = int(num_players)
        self.num_actions = len(self.action_names)
        self.auto_reset = auto_reset
        self.over_phase = len(self.phase_names) - 1
        self._ar = np.arange(self.num_games)
        # Each game's random stream (updated in place: kernels hold these arrays).
        self.game_seeds = rng.game_seeds(seed, self.num_games)
        self.rng_counter = np.zeros(self.num_games, np.uint64)
        self.game_winners = np.zeros((self.num_games, self.num_players), bool)  # of games ended in the last step
        self.final_scores = np.zeros((self.num_games, self.num_players), np.int64)
        self._allocate()
        #: Optional ``f(games) -> seeds``: where the next games of restarting slots start from
        #: (a tournament schedules its duplicate deals this way); None: the slot's own stream.
        self.next_game_seeds: Callable[[np.ndarray], np.ndarray] | None = None
        self._mask: np.ndarray | None = None
        self._dealt = False  # reset() or from_positions() fills the state

    # ------------------------------------------------------------------ to supply
    def _allocate(self) -> None:
        raise NotImplementedError

    def _new_episode(self, games: np.ndarray) -> None:
        raise NotImplementedError

    def _step_kernel(self, actions: np.ndarray, obs: np.ndarray, mask: np.ndarray, deal_here: bool) -> int:
        """Check, apply, restart and observe in one go (one call of the game's compiled kernel).

        Returns the first game whose action is out of range or not legal in ``self._mask``,
        having changed nothing, or -1. Otherwise applies every action (a finished game's is
        ignored), writes the outputs (``_rewards``, ``_done``, ``game_winners``,
        ``final_scores``), deals the games that ended again when ``deal_here``, puts them
        in phase ``over`` without ``auto_reset`` (else leaves them to the caller, which
        deals them from ``next_game_seeds``), and writes the next ``obs`` and ``mask``.
        """
        raise NotImplementedError

    def _observe_games(self, games: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> None:
        """Rewrite the rows of ``games`` in ``obs`` and ``mask`` (their players to act)."""
        raise NotImplementedError

    def _legal_mask(self) -> np.ndarray:
        raise NotImplementedError

    def _observation(self, viewer: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _begin_step(self) -> None:
        """Clear the last step's events before ``reset`` deals (a step's kernel does it itself)."""

    @classmethod
    def _engine_for(cls, positions: Sequence[dict[str, Any]], rules: Any, seed: Any, auto_reset: bool) -> BatchedEngine:
        """An engine of the right table size for these positions (the state is loaded next)."""
        players = cls.table_size
        if players is None:
            first = positions[0]
            if not isinstance(first, dict) or "num_players" not in first:
                raise ValueError("position 0: a position is a dict with at least 'num_players'")
            players = first["num_players"]
        return cls(len(positions), players, rules, seed=seed, auto_reset=auto_reset)

    # ------------------------------------------------------------------ positions
    def position(self, i: int) -> dict[str, Any]:
        """Readable, JSON-serialisable dict of game ``i`` (the keys are listed in the game's
        ``positions`` module); ``from_positions([eng.position(i)])`` continues it exactly."""
        self._require_dealt()
        if not 0 <= i < self.num_games:
            raise IndexError(f"game {i} out of range 0..{self.num_games - 1}")
        return importlib.import_module(self.positions_module).position_of(self, i)

    @classmethod
    def from_positions(
        cls,
        positions: Sequence[dict[str, Any]],
        rules: Any = None,
        seed: int | Sequence[int] | None = None,
        auto_reset: bool = True,
    ) -> BatchedEngine:
        """Games that start from given positions. ``seed`` sets the random streams of
        positions without their own ``rng`` entry; every error names the position."""
        if isinstance(positions, dict) or not len(positions):
            raise ValueError("from_positions takes a non-empty list of position dicts")
        eng = cls._engine_for(positions, rules, seed, auto_reset)
        load_position = importlib.import_module(cls.positions_module).load_position
        for j, pos in enumerate(positions):
            try:
                load_position(eng, j, pos)
            except ValueError as err:
                raise ValueError(f"position {j}: {err}") from None
        eng._dealt = True
        eng._mask = None
        return eng

    def select(self, games: Sequence[int] | np.ndarray) -> BatchedEngine:
        """A new engine holding only these games; each continues exactly as it would have here
        (same state, same random streams, so the same later deals).

        For referees that stop stepping slots with nothing left to play: a tournament
        shrinks its batch once most of its games are over instead of stepping idle slots.
        """
        self._require_dealt()
        games = np.asarray(games).reshape(-1)
        if not games.size or games.dtype.kind not in "iu" or games.min() < 0 or games.max() >= self.num_games:
            raise ValueError(f"select takes a non-empty list of game indices in 0..{self.num_games - 1}")
        eng = type(self)(games.size, self.num_players, self.rules, 0, self.auto_reset)
        eng.load_state_arrays({path: array[games] for path, array in self.state_arrays().items()})
        eng.next_game_seeds = self.next_game_seeds
        return eng

    def step_games(self, games: Sequence[int] | np.ndarray, actions: Any) -> tuple[np.ndarray, ...]:
        """Step only ``games`` (distinct indices, one action each); every other game waits,
        its state, random stream and events untouched (a hand revealed to its player to act
        stays shown). Returns ``obs, mask, rewards, done`` of these games, in their order;
        an illegal action raises as :meth:`step` does (naming the game by its index here)
        and changes nothing.

        For a driver that must bring every game to one seat's turn before it asks that seat
        (the Gymnasium vector env): the games to catch up step while the others wait.
        """
        self._require_dealt()
        games = self._game_indices(games, "step_games")
        if games.size == self.num_games and (games == self._ar).all():
            return self.step(actions)
        if self._mask is None:
            self._mask = self._legal_mask()
        fields = self._STREAM_FIELDS + self.state_fields
        sub = self._sub_engine(games.size)
        for path in fields:
            sub._state_field(path)[...] = self._state_field(path)[games]
        sub._dealt, sub._mask = True, self._mask[games]
        sub.next_game_seeds, sub.auto_reset = None, self.auto_reset
        if self.next_game_seeds is not None:
            sub.next_game_seeds = lambda rows: self.next_game_seeds(games[rows])
        try:
            out = sub.step(actions)
        except IllegalActionError as err:
            raise IllegalActionError(_renumber(str(err), games)) from None
        finally:
            sub.next_game_seeds = None  # the cached scratch engine keeps no reference to this call
        for path in fields:
            self._state_field(path)[games] = sub._state_field(path)
        self._mask[games] = sub._mask
        B, P = self.num_games, self.num_players
        self.game_winners = np.zeros((B, P), bool)
        self.final_scores = np.zeros((B, P), np.int64)
        self.game_winners[games], self.final_scores[games] = sub.game_winners, sub.final_scores
        return out

    def __getstate__(self) -> dict[str, Any]:
        """A pickle or copy holds the games, not the scratch engines of :meth:`_sub_engine`
        (rebuilt on use; up to 64 of them were most of a vector env's pickle)."""
        state = dict(self.__dict__)
        state.pop("_sub_engines", None)
        return state

    def _sub_engine(self, size: int) -> BatchedEngine:
        """A scratch engine of ``size`` games for :meth:`step_games`, kept for the next call of
        that size (its whole state is overwritten before use)."""
        cache = self.__dict__.setdefault("_sub_engines", {})
        if size not in cache:
            if len(cache) >= 64:
                cache.clear()
            cache[size] = type(self)(size, self.num_players, self.rules, 0, self.auto_reset)
        return cache[size]

    def restart_games(self, games: Sequence[int] | np.ndarray) -> None:
        """Deal a new game in each of ``games`` from its own random stream (``next_game_seeds``
        is not asked); the others are untouched. For a driver that ends a game itself (an
        illegal action that loses, a time limit)."""
        self._require_dealt()
        self._new_episode(self._game_indices(games, "restart_games"))
        self._mask = None

    def _game_indices(self, games: Sequence[int] | np.ndarray, what: str) -> np.ndarray:
        """Distinct integer game indices as ``int64 [k]``; anything else is a ``ValueError``."""
        arr = np.asarray(games).reshape(-1)
        if (
            not arr.size
            or arr.dtype.kind not in "iu"
            or arr.min() < 0
            or arr.max() >= self.num_games
            or np.unique(arr).size < arr.size
        ):
            raise ValueError(f"{what} takes a non-empty list of distinct game indices in 0..{self.num_games - 1}")
        return arr.astype(np.int64, copy=False)

    def state_arrays(self) -> dict[str, np.ndarray]:
        """Every game's whole state and random streams, as copies by attribute path: what a
        trainer's checkpoint stores so that a resumed run continues the same games."""
        self._require_dealt()
        return {path: self._state_field(path).copy() for path in self._STREAM_FIELDS + self.state_fields}

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        """Restore :meth:`state_arrays` (of an engine of the same game, batch and table size)."""
        expected = self._STREAM_FIELDS + self.state_fields
        if sorted(arrays) != sorted(expected):
            raise ValueError(f"engine state must hold exactly the fields {', '.join(expected)}")
        for path in expected:
            target, value = self._state_field(path), np.asarray(arrays[path])
            if value.shape != target.shape:
                raise ValueError(f"engine state {path}: shape {value.shape}, this engine needs {target.shape}")
            target[...] = value
        self._dealt = True
        self._mask = None

    def _state_field(self, path: str) -> np.ndarray:
        obj: Any = self
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    # ------------------------------------------------------------------ public API
    def hidden_hands(self, seats: np.ndarray | int | None = None, in_play_order: bool = False) -> np.ndarray:
        """``float32 [B, (P-1) * card types]``: the hands of every other seat, in seat order
        after the viewer (``seats``, default the player to act), one count per card type;
        ``in_play_order``: the seat ``k`` on in the direction of play first (as the
        observation's relative seats; the same order in a game without a ``direction``).

        What a player may **not** know: for an asymmetric critic during training only
        (``critic: oracle``, :mod:`agents.oracle_critic`), never for a policy.
        """
        self._require_dealt()
        chosen = self.current if seats is None else read_ints(seats, "seats", 0, self.num_players - 1)
        viewer = np.broadcast_to(chosen, (self.num_games,))
        step = np.asarray(getattr(self, "direction", 1))[..., None] if in_play_order else 1
        others = seats_after(viewer[:, None], np.arange(1, self.num_players), step, self.num_players)  # [B, P-1]
        return self.hands[self._ar[:, None], others].reshape(self.num_games, -1).astype(np.float32)

    @property
    def current_player(self) -> np.ndarray:
        """Seat to act in each game, ``int64 [B]``."""
        return self.current

    @property
    def legal_action_mask(self) -> np.ndarray:
        """Legal actions of the player to act, ``bool [B, A]`` (a copy)."""
        self._require_dealt()
        return self._legal_mask() if self._mask is None else self._mask.copy()

    def reset(self, seed: int | Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Deal a new game everywhere; returns the observation and mask of the players to act.

        Without ``seed`` the games continue their random streams (new deals); with a seed
        they restart from it, so ``reset(seed=s)`` always deals the same games.
        """
        if seed is not None:
            self.game_seeds[:] = rng.game_seeds(seed, self.num_games)
            self.rng_counter[:] = 0
        self._begin_step()
        self._new_episode(self._ar)
        self._dealt = True
        return self.observe()

    def observe(self, seats: np.ndarray | int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Observation and legal mask of each game's player to act (or of given seats).

        A seat that is not to act gets its own view and an all-False mask.
        """
        self._require_dealt()
        mask = self._legal_mask()
        self._mask = mask
        if seats is None:
            return self._observation(self.current), mask.copy()
        viewer = np.broadcast_to(read_ints(seats, "seats", 0, self.num_players - 1), (self.num_games,))
        return self._observation(viewer), mask & (viewer == self.current)[:, None]

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply one action per game; returns ``obs, mask, rewards [B, P], done [B]``.

        Rewards reach every seat of a game when it ends, whoever made the last move.
        Raises :class:`IllegalActionError` (naming the game, the action and the legal
        ones) before changing anything if any action is illegal. Finished games restart
        at once (``auto_reset``), so their returned observation is the first of the next
        game; with ``auto_reset`` off they stay in phase ``over`` and ignore their action.
        """
        actions = self._action_array(actions)
        if self._mask is None:
            self._mask = self._legal_mask()
        B, P = self.num_games, self.num_players
        last_step = (  # the last step's report, kept if this one is refused
            getattr(self, "_rewards", None),
            getattr(self, "_done", None),
            self.game_winners,
            self.final_scores,
        )
        self._rewards = np.zeros((B, P), np.float32)
        self._done = np.zeros(B, bool)
        self.game_winners = np.zeros((B, P), bool)
        self.final_scores = np.zeros((B, P), np.int64)
        obs = np.empty((B, self.obs_size), np.float32)
        mask = np.empty((B, self.num_actions), bool)
        # One compiled call checks every action, applies them, deals where games restarted
        # from their own streams, and writes the next observations and masks.
        deal_here = self.auto_reset and self.next_game_seeds is None
        bad = self._step_kernel(actions, obs, mask, deal_here)
        if bad >= 0:  # nothing changed: the last step's report (who won, the scores) stands too
            self._rewards, self._done, self.game_winners, self.final_scores = last_step
            self._refuse(actions, bad)
        finished = self._done.nonzero()[0] if self.auto_reset and not deal_here else ()
        if len(finished):
            self.game_seeds[finished] = self.next_game_seeds(finished)
            self.rng_counter[finished] = 0
            self._new_episode(finished)
            self._observe_games(finished, obs, mask)
        self._mask = mask
        return obs, mask.copy(), self._rewards, self._done

    # ------------------------------------------------------------------ checks
    def _require_dealt(self) -> None:
        if not self._dealt:
            raise RuntimeError("no game dealt yet: call reset() first (or build the engine with from_positions)")

    def _action_array(self, actions: Any) -> np.ndarray:
        """One integer action per game as ``int64 [B]``; a wrong shape or type is a ``ValueError``."""
        self._require_dealt()
        B = self.num_games
        if type(actions) is np.ndarray and actions.shape == (B,) and actions.dtype == np.int64:
            # the common case, as policies return it; a strided view (a column of a 2-D array)
            # is copied, as the compiled kernels take contiguous arrays only (else they recompile)
            return np.ascontiguousarray(actions)
        arr = np.asarray(actions)
        if arr.ndim == 0 and B == 1:
            arr = arr.reshape(1)
        if arr.shape != (B,):
            raise ValueError(f"actions must have shape ({B},): one action per game; got shape {arr.shape}")
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind == "f" and np.all(np.mod(arr, 1) == 0) and np.all(np.abs(arr) < 2**31):
                arr = arr.astype(np.int64)
            else:
                raise ValueError(f"actions must be integers (action ids), got dtype {arr.dtype}")
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:  # would wrap negative
            i = int(np.argmax(arr > np.iinfo(np.int64).max))
            raise IllegalActionError(
                f"game {i}: action {int(arr[i])} is out of range 0..{self.num_actions - 1}; "
                f"legal here: {self._legal_names(i)}"
            )
        return np.ascontiguousarray(arr, dtype=np.int64)

    def _refuse(self, actions: np.ndarray, i: int) -> None:
        """Raise the error for game ``i``'s action (out of range or illegal); nothing has changed."""
        A = self.num_actions
        bad = ((actions < 0) | (actions >= A)).nonzero()[0]
        if bad.size:
            i = int(bad[0])
            raise IllegalActionError(
                f"game {i}: action {int(actions[i])} is out of range 0..{A - 1}; legal here: {self._legal_names(i)}"
            )
        live = self.phase != self.over_phase
        illegal = (~self._mask[self._ar, actions] & live).nonzero()[0]
        raise IllegalActionError(
            f"game {i}: player {int(self.current[i])} may not '{self.action_names[actions[i]]}' "
            f"(action {int(actions[i])}) in phase '{self.phase_names[self.phase[i]]}'; "
            f"legal here: {self._legal_names(i)}"
            + (f" ({illegal.size} games had illegal actions)" if illegal.size > 1 else "")
        )

    def _legal_names(self, i: int) -> str:
        if self._mask is None:
            self._mask = self._legal_mask()
        return ", ".join(f"'{self.action_names[a]}'" for a in self._mask[i].nonzero()[0]) or "none"


def _renumber(message: str, games: np.ndarray) -> str:
    """A sub-batch's error message ("game 3: ...") with the game's index in the whole batch."""
    head, sep, rest = message.partition(": ")
    if sep and head.startswith("game ") and head[5:].isdigit() and int(head[5:]) < games.size:
        return f"game {int(games[int(head[5:])])}: {rest}"
    return message
