"""The compiled kernels' random streams are the vectorised ones, word for word.

An engine's deals must not depend on whether numpy or a numba kernel drew them: the
same seed gives the same decks, positions continue exactly, and duplicate deals hold.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from envs import rng

seeds_st = st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=6)


@settings(max_examples=50, deadline=None)
@given(seeds_st, st.integers(0, 2**40), st.integers(1, 256))
def test_kernel_words_match_vectorised_words(seeds, counter, width):
    seeds = np.array(seeds, np.uint64)
    counters = np.full(seeds.size, counter, np.uint64)
    expected = rng.random_bits(seeds, counters, width)
    s, c = seeds.copy(), counters.copy()
    for g in range(seeds.size):
        out = np.empty(width, np.uint64)
        rng.random_words_one(s, c, g, out)
        assert (out == expected[g]).all()
    assert (c == counters + 1).all()


@settings(max_examples=30, deadline=None)
@given(seeds_st, st.integers(0, 2**40))
def test_kernel_uniform_and_next_stream_match(seeds, counter):
    seeds = np.array(seeds, np.uint64)
    counters = np.full(seeds.size, counter, np.uint64)
    expected = rng.uniform(rng.random_bits(seeds, counters, 1)[:, 0])
    s, c = seeds.copy(), counters.copy()
    assert [rng.random_uniform_one(s, c, g) for g in range(seeds.size)] == expected.tolist()
    s, c = seeds.copy(), counters.copy()
    for g in range(seeds.size):
        rng.next_deal_one(s, c, g)
    assert (s == rng.next_stream(seeds)).all() and not c.any()


@settings(max_examples=30, deadline=None)
@given(seeds_st, st.data())
def test_kernel_shuffle_matches_vectorised_shuffle(seeds, data):
    seeds = np.array(seeds, np.uint64)
    sizes = np.array([data.draw(st.integers(0, 108)) for _ in seeds])
    piles = np.random.default_rng(int(seeds[0] % 1000)).integers(0, 54, (seeds.size, 108)).astype(np.int8)
    words = rng.random_bits(seeds, np.zeros(seeds.size, np.uint64), 108)
    expected = rng.shuffle_rows(piles.copy(), sizes, words.copy())
    for g in range(seeds.size):
        pile = piles[g].copy()
        rng.shuffle_one(pile, int(sizes[g]), words[g])
        assert (pile[: sizes[g]] == expected[g, : sizes[g]]).all()
        assert sorted(pile[: sizes[g]]) == sorted(piles[g, : sizes[g]])
