"""The core's pool of large blocks (``engine/_pool.h``): numpy's arrays and the core's own
buffers reuse freed blocks, as they were, trimmed or grown, never returning stale bytes where
zeroes were asked for, never holding more idle than the limit; the core's results through it
are the reference's, from threads side by side."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from pegsat.engine import reference as R
from pegsat.engine.kernel import kernel, pool_limit, pool_release, pool_stats
from pegsat.model.catalogue import get_board

MB = 1 << 20
WORDS = 8 * MB // 8  # 8 MB of uint64


def _handler() -> str:
    return np._core.multiarray.get_handler_name()


@pytest.fixture
def pool():
    """A kernel made (numpy's arrays pooled in this context), the pool empty, its limit back after."""
    kernel(get_board("english"), ())
    limit = pool_stats().limit
    pool_release()
    yield
    pool_limit(limit)


def test_numpy_arrays_come_from_the_pool_once_a_kernel_is_made(pool):
    assert _handler() == "pegsat_pool"


def test_a_freed_block_serves_the_next_request_of_its_size_and_zeroes_are_zero(pool):
    a = np.full(8 * WORDS, 7, dtype=np.uint64)  # 64 MB
    del a
    s = pool_stats()
    assert s.blocks == 1 and s.idle >= 64 * MB
    b = np.zeros(8 * WORDS, dtype=np.uint64)  # the same block, its sevens zeroed
    t = pool_stats()
    assert (t.hits, t.fresh, t.idle) == (s.hits + 1, s.fresh, 0)
    assert not b.any()


def test_a_larger_block_is_trimmed_and_a_smaller_one_grown(pool):
    a = np.full(8 * WORDS, 7, dtype=np.uint64)  # 64 MB
    del a
    s = pool_stats()
    c = np.zeros(2 * WORDS, dtype=np.uint64)  # 16 MB: the 64 MB block, its tail unmapped
    t = pool_stats()
    assert (t.reshaped, t.fresh, t.idle) == (s.reshaped + 1, s.fresh, 0)
    assert not c.any()
    c[:] = 3
    del c
    d = np.zeros(8 * WORDS, dtype=np.uint64)  # 64 MB again: the 16 MB block grown in place
    u = pool_stats()
    assert (u.reshaped, u.fresh, u.idle) == (t.reshaped + 1, t.fresh, 0)
    assert not d.any()


def test_a_resized_array_keeps_its_contents(pool):
    x = np.arange(WORDS, dtype=np.uint64)
    x.resize(4 * WORDS, refcheck=False)  # numpy's realloc: the block grows by mremap
    assert np.array_equal(x[:WORDS], np.arange(WORDS, dtype=np.uint64))
    x.resize(WORDS // 16, refcheck=False)  # and shrinks
    assert np.array_equal(x, np.arange(WORDS // 16, dtype=np.uint64))
    small = np.arange(1000, dtype=np.uint64)  # malloc's, then the pool's
    small.resize(2 * WORDS, refcheck=False)
    assert np.array_equal(small[:1000], np.arange(1000, dtype=np.uint64))


def test_the_pool_keeps_no_more_idle_than_its_limit(pool):
    pool_limit(40 * MB)
    arrays = [np.ones(2 * WORDS, dtype=np.uint64) for _ in range(5)]  # 5 x 16 MB
    del arrays
    s = pool_stats()
    assert s.idle <= 40 * MB and s.blocks == 2
    pool_limit(0)
    assert pool_stats().idle == 0


def test_core_results_through_the_pool_are_the_references_from_threads():
    """Eight threads expand, sort and filter side by side (the core's buffers from one pool,
    under its lock): every result is the reference's."""
    board = get_board("english")
    k = kernel(board, ())
    rng = random.Random(5)
    chunks = [[rng.getrandbits(board.n) for _ in range(800)] for _ in range(8)]
    weights = [[rng.randrange(-2, 4) for _ in range(board.n)]]

    def work(chunk: list[int]) -> tuple[list[int], list[int]]:
        kids = k.unique(k.moves(k.array(chunk), canon=False))
        kept = k.keep(kids, weights, [2])[0]
        return k.ints(kids), k.ints(kept)

    with ThreadPoolExecutor(8) as ex:
        got = list(ex.map(work, chunks))
    for chunk, (kids, kept) in zip(chunks, got, strict=True):
        want = sorted({q for p in chunk for q in R.move_successors(board, p)})
        assert kids == want
        assert kept == [p for p in want if sum(weights[0][h] for h in range(board.n) if p >> h & 1) >= 2]
