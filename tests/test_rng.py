"""The per-game random streams: pinned word for word, and the shuffle checked against numpy.

Every published result (duplicate deals, tournaments, the bluffing study) depends on these
streams: a change to them changes every deal, so the first test pins values.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs import rng

MUL2, GOLDEN = 0x94D049BB133111EB, 0x9E3779B97F4A7C15
seeds_st = st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=6)


def stream_words(seed: int, counter: int, width: int) -> np.ndarray:
    """The documented stream, spelled out with the vectorised finaliser."""
    with np.errstate(over="ignore"):
        base = rng.splitmix64(np.array([seed ^ ((counter * MUL2) % 2**64)], np.uint64))
        return rng.splitmix64(base + np.arange(1, width + 1, dtype=np.uint64) * np.uint64(GOLDEN))


def test_the_stream_is_pinned():
    seeds = rng.game_seeds(7, 1)
    counters = np.array([3], np.uint64)
    words = np.empty(4, np.uint64)
    rng.random_words_one(seeds, counters, 0, words)
    assert [hex(int(w)) for w in words] == [
        "0xe0f129dd0eaa9b88",
        "0x54fa7f2b1fa035b1",
        "0xb73a451f7140e4b8",
        "0x7782622f47bd8e05",
    ]
    assert counters[0] == 4
    rng.next_deal_one(seeds, counters, 0)
    assert hex(int(seeds[0])) == "0x30e221978cb69949" and counters[0] == 0


@settings(max_examples=50, deadline=None)
@given(seeds_st, st.integers(0, 2**40), st.integers(1, 256))
def test_kernel_words_follow_the_documented_stream(seeds, counter, width):
    s = np.array(seeds, np.uint64)
    c = np.full(s.size, counter, np.uint64)
    for g, seed in enumerate(seeds):
        out = np.empty(width, np.uint64)
        rng.random_words_one(s, c, g, out)
        assert (out == stream_words(seed, counter, width)).all()
    assert (c == counter + 1).all()


@settings(max_examples=30, deadline=None)
@given(seeds_st, st.integers(0, 2**40))
def test_uniform_draws_are_the_top_53_bits_of_one_word(seeds, counter):
    s = np.array(seeds, np.uint64)
    c = np.full(s.size, counter, np.uint64)
    for g, seed in enumerate(seeds):
        u = rng.random_uniform_one(s, c, g)
        assert 0.0 <= u < 1.0
        assert u == (int(stream_words(seed, counter, 1)[0]) >> 11) / 2**53


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 108))
def test_shuffle_puts_the_cards_in_the_order_of_their_words(seed, size):
    pile = np.random.default_rng(seed % 1000).integers(0, 54, 108).astype(np.int8)
    words = stream_words(seed, 0, 108)
    shuffled = pile.copy()
    rng.shuffle_into(shuffled, size, words, np.empty(108, np.int64), np.empty(108, np.int8))
    assert (shuffled[:size] == pile[:size][np.argsort(words[:size], kind="stable")]).all()
    assert (shuffled[size:] == pile[size:]).all()
    again = pile.copy()
    rng.shuffle_one(again, size, words)
    assert (again == shuffled).all()


def test_row_streams_draw_the_kernels_words_and_each_row_its_own():
    from envs.rng import RowStreams, draw_words, random_words_one

    seeds = np.array([3, 99, 2**63 + 5], np.uint64)
    counter = np.array([0, 0, 0], np.uint64)
    out = np.zeros(7, np.uint64)
    words = draw_words(seeds, 0, 7)
    for g in range(3):
        random_words_one(seeds, counter, g, out)
        np.testing.assert_array_equal(words[g], out)  # one formula for the kernels and for numpy
    streams, alone = RowStreams(seeds), RowStreams(seeds[1:2])
    for shape, one in (((3, 4), (1, 4)), ((3, 2, 5), (1, 2, 5))):
        np.testing.assert_array_equal(streams.random(shape)[1:2], alone.random(one))  # no row sees another
    assert streams.integers(0, 2**63, 3).max() < 2**63 and streams.random((3, 9), np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="the first axis is the rows"):
        streams.random((4, 2))


def test_random_bits_from_a_generator_are_its_raw_words_cut_in_pieces():
    from agents.policy import random_bits

    for dtype, per_word, shape in ((np.uint16, 4, (5, 7)), (np.uint8, 8, (2, 3, 11))):
        a, b = np.random.default_rng(1), np.random.default_rng(1)
        n = int(np.prod(shape))
        raw = b.bit_generator.random_raw((n + per_word - 1) // per_word).view(dtype)[:n].reshape(shape)
        np.testing.assert_array_equal(random_bits(a, shape, dtype), raw)  # the scripted policies' draws as before
