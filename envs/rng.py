"""Counter-based random numbers, one independent stream per game.

Engines must give the same game for the same seed whatever the batch size, and a saved
position must continue exactly. A shared ``np.random.Generator`` cannot do either, and
one Generator object per game would mean a Python loop over games at every deal. Instead
every game has a 64-bit *game seed* and a *counter*; each random draw hashes
(game seed, counter, slot) with the SplitMix64 finaliser, in the engines' kernels, and
advances that game's counter by one. The stream of a game is then a pure function of
its seed and counter, both of which a position records.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
_MASK64 = (1 << 64) - 1
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser of a ``uint64`` array (a bijective 64-bit mixer)."""
    x = np.asarray(x, dtype=np.uint64)
    x = (x ^ (x >> _S30)) * _MUL1  # uint64 array arithmetic wraps silently
    x = (x ^ (x >> _S27)) * _MUL2
    return x ^ (x >> _S31)


def game_seeds(seed: int | np.ndarray | list[int] | None, num_games: int) -> np.ndarray:
    """Per-game seeds ``uint64 [num_games]``.

    An int seed gives game ``i`` a seed that depends only on ``(seed, i)``, so game ``i``
    is the same in a batch of 1 or of 8192. A sequence gives each game its own seed
    verbatim (replays, duplicate deals). ``None`` draws fresh entropy.
    """
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) & _MASK64
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        if not 0 <= int(seed) <= _MASK64:
            raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, got {seed}")
        base = splitmix64(np.array([int(seed)], dtype=np.uint64))
        with np.errstate(over="ignore"):
            return splitmix64(base + np.arange(num_games, dtype=np.uint64) * _GOLDEN)
    if isinstance(seed, (list, tuple)):  # element by element: np.asarray would make a mixed list floats
        values = [s.item() if isinstance(s, np.generic) else s for s in seed]
    else:
        values = np.asarray(seed).ravel().tolist() if not isinstance(seed, (str, bytes)) else [seed]
    odd = [s for s in values if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= _MASK64]
    if odd:
        raise ValueError(f"seed must be an integer from 0 to 2**64 - 1, or one such integer per game; got {odd[0]!r}")
    seeds = np.array(values, dtype=np.uint64)
    if seeds.shape != (num_games,):
        raise ValueError(f"seed: expected an int or {num_games} per-game seeds, got {len(seeds)} seeds")
    return seeds


_NEXT_STREAM = np.uint64(0xD1B54A32D192ED03)  # a deal's stream seed -> the next deal's
_SLOTS = np.arange(1, 257, dtype=np.uint64) * _GOLDEN  # slot j of a draw hashes base + (j + 1) * golden


def draw_words(seeds: np.ndarray, counter: int, width: int) -> np.ndarray:
    """``uint64 [R, width]``: the draw at ``counter`` of each of ``R`` streams (``seeds``): the
    words the kernels' :func:`random_words_one` gives, for any width (compiled: the search
    draws this way at every rollout step, where numpy's per-call cost dominated)."""
    return _draw_words(np.ascontiguousarray(seeds, np.uint64).ravel(), np.uint64(counter), int(width))


def mix_keys(keys: np.ndarray, tags: np.ndarray | int) -> np.ndarray:
    """``uint64``: one new stream seed per (key, tag), broadcast (a world of a decision, a step
    of a rollout): independent streams from one key."""
    if isinstance(tags, (int, np.integer)) and isinstance(keys, np.ndarray) and keys.ndim == 1:
        return _mix_keys_one_tag(keys.astype(np.uint64, copy=False), np.uint64(tags))  # a rollout's step
    keys, tags = np.asarray(keys, np.uint64), np.asarray(tags, np.uint64)
    shape = np.broadcast_shapes(keys.shape, tags.shape)
    flat = _mix_keys(_flat(keys, shape), _flat(tags, shape))
    return flat.reshape(shape) if shape else flat[0]


def _flat(words: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``words`` broadcast to ``shape``, as a flat contiguous writable array."""
    if words.shape == shape:
        return np.ascontiguousarray(words).ravel()
    return np.broadcast_to(words, shape).flatten()


class RowStreams:
    """One counter-based stream per row, in place of a ``np.random.Generator`` for a caller
    that draws arrays whose first axis is the rows (``random``, ``integers``, ``words``).

    Row ``r``'s numbers depend on ``seeds[r]`` and on how many draws came before alone: never
    on the other rows, the batch's size or its order. The search deals its worlds and plays
    its rollouts with them, so that its decision is a function of its key and the view."""

    def __init__(self, seeds: np.ndarray) -> None:
        self.seeds = np.asarray(seeds, np.uint64).ravel()
        self.counter = 0

    def words(self, shape: int | tuple[int, ...]) -> np.ndarray:
        """``uint64`` of ``shape``, its first axis the rows."""
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        if not shape or shape[0] != self.seeds.size:
            raise ValueError(f"a draw of shape {shape} from {self.seeds.size} row streams: the first axis is the rows")
        out = _draw_words(self.seeds, np.uint64(self.counter), math.prod(shape[1:])).reshape(shape)
        self.counter += 1
        return out

    def random(self, size: int | tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
        """Floats in [0, 1), like ``Generator.random``."""
        w = self.words(size)
        if np.dtype(dtype) == np.float32:
            return ((w >> np.uint64(40)).astype(np.float32) * np.float32(2.0**-24)).astype(np.float32)
        return (w >> _U11).astype(np.float64) * _U53

    def integers(self, low: int, high: int, size: int | tuple[int, ...], dtype: type = np.int64) -> np.ndarray:
        """Integers in [low, high), like ``Generator.integers`` (the spans used here are powers of 2)."""
        return (self.words(size) % np.uint64(high - low)).astype(dtype) + dtype(low)


# ---------------------------------------------------------------------- compiled kernels
# The engines' kernels draw one game at a time. A draw at (seed, counter) of width w is
# the words splitmix64(splitmix64(seed ^ counter * MUL2) + (j + 1) * GOLDEN), j < w, and
# moves the counter on by one. These functions are compiled without reference counting
# (numba's ``_nrt=False``) and allocate nothing, so the engines' step kernels, compiled the
# same way, can call them. ``tests/test_rng.py`` pins the stream.

_U11, _U53 = np.uint64(11), 1.0 / (1 << 53)
_U1 = np.uint64(1)


@njit(cache=True, inline="always", _nrt=False)
def splitmix64_one(x: np.uint64) -> np.uint64:
    """:func:`splitmix64` of one word, inside a compiled kernel."""
    x = (x ^ (x >> _S30)) * _MUL1
    x = (x ^ (x >> _S27)) * _MUL2
    return x ^ (x >> _S31)


@njit(cache=True)
def _draw_words(seeds: np.ndarray, counter: np.uint64, width: int) -> np.ndarray:
    """:func:`draw_words`, compiled: splitmix64(splitmix64(seed ^ counter * MUL2) + (j + 1) * GOLDEN)."""
    out = np.empty((seeds.size, width), np.uint64)
    salt = counter * _MUL2
    for r in range(seeds.size):
        base = splitmix64_one(seeds[r] ^ salt)
        for j in range(width):
            out[r, j] = splitmix64_one(base + np.uint64(j + 1) * _GOLDEN)
    return out


@njit(cache=True)
def _mix_keys_one_tag(keys: np.ndarray, tag: np.uint64) -> np.ndarray:
    """:func:`mix_keys` of a flat array of keys and one tag, compiled."""
    out = np.empty(keys.size, np.uint64)
    mixed_tag = splitmix64_one(tag * _GOLDEN + _GOLDEN)
    for i in range(keys.size):
        out[i] = splitmix64_one(keys[i] ^ mixed_tag)
    return out


@njit(cache=True)
def _mix_keys(keys: np.ndarray, tags: np.ndarray) -> np.ndarray:
    """:func:`mix_keys` of two flat arrays of one size, compiled."""
    out = np.empty(keys.size, np.uint64)
    for i in range(keys.size):
        out[i] = splitmix64_one(keys[i] ^ splitmix64_one(tags[i] * _GOLDEN + _GOLDEN))
    return out


@njit(cache=True, _nrt=False)
def next_deal_one(game_seeds: np.ndarray, rng_counter: np.ndarray, g: int) -> None:
    """Game ``g`` moves on to its next deal's stream (seed hashed, counter 0), before dealing.

    Each deal starts a fresh stream whose seed is a hash of the previous one and whose
    counter is 0, so the k-th deal of a game (and the deck order it leaves) depends only on
    its first seed and k, not on how the earlier deals were played. That is what makes
    duplicate deals work: games started from the same seed get the same sequence of decks
    whatever their players do.
    """
    game_seeds[g] = splitmix64_one(game_seeds[g] ^ _NEXT_STREAM)
    rng_counter[g] = np.uint64(0)


@njit(cache=True, _nrt=False)
def random_words_one(game_seeds: np.ndarray, rng_counter: np.ndarray, g: int, out: np.ndarray) -> None:
    """Fill ``out`` (``uint64``, width <= 256) with game ``g``'s next random words."""
    base = splitmix64_one(game_seeds[g] ^ (rng_counter[g] * _MUL2))
    for j in range(out.size):
        out[j] = splitmix64_one(base + _SLOTS[j])
    rng_counter[g] += _U1


@njit(cache=True, _nrt=False)
def random_uniform_one(game_seeds: np.ndarray, rng_counter: np.ndarray, g: int) -> float:
    """One float in [0, 1) from game ``g``'s stream: the top 53 bits of a one-word draw."""
    base = splitmix64_one(game_seeds[g] ^ (rng_counter[g] * _MUL2))
    rng_counter[g] += _U1
    return float(splitmix64_one(base + _SLOTS[0]) >> _U11) * _U53


@njit(cache=True, _nrt=False)
def shuffle_into(pile: np.ndarray, size: int, words: np.ndarray, order: np.ndarray, cards: np.ndarray) -> None:
    """``pile[:size]`` put in the order of ``words[:size]`` in place (card j goes where word j
    ranks), using ``order`` (int64) and ``cards`` (the pile's dtype), each at least ``size``
    long, as scratch: it allocates nothing, so kernels compiled without reference counting
    can shuffle. An insertion sort: a deck is at most 108 cards, shuffled once per deal."""
    for j in range(size):
        order[j] = j
        cards[j] = pile[j]
    for j in range(1, size):
        k = order[j]
        key = words[k]
        i = j - 1
        while i >= 0 and words[order[i]] > key:
            order[i + 1] = order[i]
            i -= 1
        order[i + 1] = k
    for j in range(size):
        pile[j] = cards[order[j]]


@njit(cache=True)
def shuffle_one(pile: np.ndarray, size: int, words: np.ndarray) -> None:
    """:func:`shuffle_into` with scratch of its own."""
    shuffle_into(pile, size, words, np.empty(size, np.int64), np.empty(size, pile.dtype))
