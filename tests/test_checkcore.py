"""The independent checker's compiled loops (``checks/_check.c``) against their numpy
reference: every loop on random positions of real boards, and whole checks of levels
certificates, accepted and tampered, by both."""

import re
from pathlib import Path

import numpy as np
import pytest

from pegsat.checks import _check, closure
from pegsat.checks.closure import Closure, absent, distinct, merged, split, union
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, single_vacancy

SRC = Path(__file__).resolve().parent.parent / "src" / "pegsat" / "checks" / "_check.c"


def closures(name, vacant, pagodas=()):
    """The compiled and the reference closure of a problem of ``name``, with its symmetries."""
    b = get_board(name)
    p = single_vacancy(b, b.hole(vacant), Goal.survivor(b, b.hole(vacant)))
    group = tuple(tuple(s) for s in b.symmetries)
    return (Closure(p, (), group, pagodas, None, compiled=True),
            Closure(p, (), group, pagodas, None, compiled=False))


def positions(board, count, seed):
    """``count`` random positions of ``board`` (each hole pegged with probability 1/2)."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, size=(count, board.n), dtype=np.uint64)
    return (bits << np.arange(board.n, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)


@pytest.fixture(params=[True, False], ids=["avx2", "plain"])
def vector(request):
    """The legal jumps tested four at a time (where the processor has AVX2), and one by one."""
    was = _check.vector(request.param)
    yield request.param
    _check.vector(was)


@pytest.mark.parametrize("name,vacant", [("english", "d4"), ("german", "e1"), ("triangle-5", "a1")])
@pytest.mark.parametrize("reverse", [False, True])
def test_children_and_least_images_are_the_references(name, vacant, reverse, vector):
    fast, slow = closures(name, vacant)
    x = positions(fast.problem.board, 3000, 7)
    for canon in (True, False):
        a, b = fast.children(x, reverse, canon), slow.children(x, reverse, canon)
        assert len(a) == len(b) > 0 and np.array_equal(np.sort(a), np.sort(b))
    assert np.array_equal(fast.canonical(x), slow.canonical(x))


def test_children_of_a_parent_with_no_jump_are_none():
    fast, slow = closures("german", "e5")
    full = np.array([fast.problem.board.full], dtype=np.uint64)  # every hole pegged: no jump
    assert len(fast.children(full)) == len(slow.children(full)) == 0
    assert len(fast.children(full, reverse=True)) == len(slow.children(full, reverse=True)) == 0
    assert len(fast.children(np.zeros(0, dtype=np.uint64))) == 0


@pytest.mark.parametrize("name", ["english", "german", "triangle-5"])
@pytest.mark.parametrize("back", [False, True])
def test_one_move_is_the_references(name, back, vector):
    """Every chain of jumps by one peg (backward: walked back): the same positions (the
    reference merges a hop's states across parents, the compiled loop within one)."""
    from pegsat.checks.moves import one_move

    b = get_board(name)
    x = positions(b, 2000, 11)
    fast, slow = one_move(x, b.jumps, back, compiled=True), one_move(x, b.jumps, back)
    assert len(fast) > len(x) and np.array_equal(np.unique(fast), np.unique(slow))


@pytest.mark.parametrize("scale", [1, 1 << 26])  # sums in 32 bits, and past them (the 64-bit loop)
def test_pagoda_weights_are_the_references(scale):
    b = get_board("german")
    rng = np.random.default_rng(1)
    pagodas = tuple((tuple(scale * int(v) for v in rng.integers(-5, 6, size=b.n)), 0) for _ in range(3))
    fast, slow = closures("german", "e5", pagodas)
    assert fast._tables["rows"].dtype == (np.int32 if scale == 1 else np.int64)
    x = positions(b, 5000, 2)
    for k in range(3):
        assert np.array_equal(fast.weighs(x, k), slow.weighs(x, k))
    assert np.array_equal(fast.excluded(x), slow.excluded(x))
    # backward, beside the start's weights too (weights mostly positive: some positions above it)
    pagodas = tuple((tuple(scale * int(v) for v in rng.integers(-3, 6, size=b.n)), 10 * scale)
                    for _ in range(3))
    fast, slow = closures("german", "e5", pagodas)
    got = fast.excluded(x, above=True)
    assert 0 < got.sum() < len(x) and np.array_equal(got, slow.excluded(x, above=True))
    assert got.sum() > fast.excluded(x).sum()
    for floors, above in ((True, False), (False, True), (True, True)):  # the moves check's cuts
        cut = fast.cut(x, floors, above)
        assert 0 < cut.sum() < len(x) and np.array_equal(cut, slow.cut(x, floors, above))


@pytest.mark.parametrize("name", ["diamond", "english"])
def test_hole_by_hole_exclusion_is_the_reference(name):
    """The open game's rule (a position excluded when every hole its class allows weighs more
    than it under some pagoda): compiled and reference alike, with real pagodas and classes."""
    from pegsat.analysis.invariants import class_basis

    b = get_board(name)
    p = single_vacancy(b, b.hole("e1" if name == "diamond" else "d1"), Goal.one_peg())
    rng = np.random.default_rng(3)
    pagodas = tuple((tuple(int(v) for v in rng.integers(0, 7, size=b.n)), 1) for _ in range(40))
    group = tuple(tuple(s) for s in b.symmetries)
    classes = tuple(class_basis(b))
    fast, slow = (Closure(p, (), group, pagodas, classes, compiled=c) for c in (True, False))
    x = positions(b, 20000, 5)
    fewer = x & (x >> np.uint64(1))  # fewer pegs: more positions excluded
    x = np.concatenate([x, fewer, fewer & (x >> np.uint64(2))])
    got = fast.excluded(x)
    assert 0 < got.sum() < len(x)
    assert np.array_equal(got, slow.excluded(x))
    assert not fast.excluded(np.zeros(0, np.uint64)).size
    none = Closure(p, (), group, (), classes, compiled=True)  # no pagoda: only by the pegs
    assert np.array_equal(none.excluded(x), Closure(p, (), group, (), classes, compiled=False).excluded(x))


@pytest.mark.parametrize("radix", [True, False])
@pytest.mark.parametrize("size,bits", [(0, 8), (1, 8), (100, 8), (5000, 12), (200_000, 45), (300_000, 64)])
def test_distinct_is_a_sort_without_repeats(size, bits, radix, monkeypatch):
    """By the radix sort or numpy's (whichever this machine does faster: both kept right)."""
    monkeypatch.setattr(closure, "radix_faster", lambda: radix)
    rng = np.random.default_rng(size)
    x = rng.integers(0, 2**bits - 1, size=size, dtype=np.uint64, endpoint=True)
    x = np.concatenate([x, x[: size // 3]])  # repeats
    mine = x.copy()
    assert np.array_equal(distinct(x, compiled=True), distinct(x))
    assert np.array_equal(distinct(mine, compiled=True, mine=True), distinct(x))


def test_the_faster_sort_is_measured_once_a_process():
    assert closure.radix_faster() in (True, False)
    assert closure.radix_faster.cache_info().currsize == 1  # measured once, then remembered


def test_distinct_sorts_skewed_keys_bucket_by_bucket():
    """Most keys under one highest digit (least images are mostly small): that bucket, larger
    than the cache's share, is split again by its own highest digit."""
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.integers(0, 1 << 20, size=150_000, dtype=np.uint64),
                        rng.integers(0, 1 << 45, size=50_000, dtype=np.uint64),
                        np.full(1000, (1 << 45) - 1, dtype=np.uint64)])
    assert np.array_equal(distinct(x, compiled=True), np.unique(x))


def test_children_of_parents_with_many_jumps_are_all_there():
    """Parents with more than 16 children each: the compiled loop's buffer grows past its
    first guess."""
    fast, slow = closures("german", "e5")
    b = fast.problem.board
    rng = np.random.default_rng(3)
    bits = (rng.random((20_000, b.n)) < 2 / 3).astype(np.uint64)
    pool = (bits << np.arange(b.n, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    t = fast._tables
    legal = sum(((pool & (n | e)) == n).astype(int) for n, e in zip(t["need"], t["land"], strict=True))
    x = pool[np.argsort(legal)[-2000:]]  # those with the most legal jumps
    a, c = fast.children(x, canon=False), slow.children(x, canon=False)
    assert len(a) > 16 * len(x) and np.array_equal(np.sort(a), np.sort(c))


@pytest.mark.parametrize("size,queries",
                         [(50_000, 80_000), (1_000_000, 300), (300, 100_000), (1, 10), (0, 5)])
def test_split_finds_what_a_sorted_part_holds(size, queries):
    """Dense and sparse both ways (the merge gallops through the part past the queries' gaps)."""
    rng = np.random.default_rng(5)
    part = distinct(rng.integers(0, 1 << 20, size=size, dtype=np.uint64))
    x = np.concatenate([rng.integers(0, 1 << 20, size=queries, dtype=np.uint64), part[::97]])
    held, missed = split(part, x, compiled=True)
    ref_held, ref_missed = split(part, x)
    assert np.array_equal(held, np.unique(ref_held)) and np.array_equal(missed, np.unique(ref_missed))
    ordered = distinct(x)
    again = split(part, ordered, True, ordered=True)
    assert np.array_equal(again[0], held) and np.array_equal(again[1], missed)
    assert np.array_equal(absent(part, ordered, True, ordered=True), missed)  # the second half alone
    assert np.array_equal(absent(part, x), ref_missed)
    backwards = np.ascontiguousarray(ordered[::-1])
    with pytest.raises(ValueError, match="not sorted"):
        _check.member(part, backwards, np.empty(len(backwards), dtype=np.uint8))


@pytest.mark.parametrize("parts", [1, 2, 16, 1024])
def test_grouping_by_partition_is_the_references(parts):
    from pegsat.checks.kit import grouped, partition

    x = distinct(np.random.default_rng(parts).integers(0, 1 << 45, size=50_000, dtype=np.uint64))
    (a, ca), (b, cb) = grouped(x, parts, compiled=True), grouped(x, parts)
    assert np.array_equal(a, b) and ca == cb and ca[-1] == len(x)
    for q in range(parts):
        assert np.all(partition(a[ca[q]:ca[q + 1]], parts) == q)


@pytest.mark.parametrize("parts,bits,size", [(1, 45, 200_000), (16, 45, 600_000), (64, 45, 3_000),
                                            (1024, 20, 50_000), (4, 64, 70_000), (2, 3, 10_000), (8, 45, 0)])
def test_sorted_groups_are_the_references(parts, bits, size):
    """Each partition's children sorted without repeats, grouped: the compiled pass (by
    partition and highest bits, then radix sorts) against ``grouped`` and a sort a part."""
    from pegsat.checks.kit import partition, sorted_groups

    rng = np.random.default_rng(size + parts)
    x = rng.integers(0, 1 << min(bits, 63), size=size, dtype=np.uint64) << np.uint64(max(0, bits - 63))
    x = np.concatenate([x, x[: size // 3], x[: size // 7]])  # repeats, within a part and across
    rng.shuffle(x)
    (a, ca), (b, cb) = sorted_groups(x.copy(), parts, compiled=True), sorted_groups(x.copy(), parts)
    assert ca == cb and np.array_equal(a, b) and ca[-1] == len(np.unique(x))
    for q in range(parts):
        assert np.all(partition(a[ca[q]:ca[q + 1]], parts) == q) and np.all(np.diff(a[ca[q]:ca[q + 1]]) > 0)
    if size:
        with pytest.raises(ValueError, match="as long as"):
            _check.sorted_groups(x.copy(), np.empty(len(x) - 1, np.uint64), 3, 1)


@pytest.mark.parametrize("reverse", [False, True])
def test_children_in_rounds_are_all_the_children(reverse, vector):
    """``children_in``: a work buffer that holds a few parents' children at a time gives, round
    by round, the children ``children`` gives at once, in the same order."""
    fast, slow = closures("german", "e1")
    x = positions(fast.problem.board, 2000, 11)
    whole = fast.children(x, reverse)
    for room in (len(fast._tables["flip"]), 500, len(whole)):
        work = np.empty(room, dtype=np.uint64)
        rounds = [r.copy() for r in fast.children_in(x, reverse, work)]
        assert np.array_equal(np.concatenate(rounds), whole) and (len(rounds) > 1) == (room < len(whole))
    assert np.array_equal(np.sort(np.concatenate(list(slow.children_in(x, reverse, work)))), np.sort(whole))
    with pytest.raises(ValueError, match="fewer words"):
        next(fast.children_in(x, reverse, np.empty(3, dtype=np.uint64)))


def test_buckets_hold_copies_and_flush_before_they_overflow(tmp_path, monkeypatch):
    """``Buckets`` copies what it is given (the caller reuses its buffer) and writes a flush
    before the held children would pass ``FLUSH`` (here more than ``PER_PART`` a partition);
    one array larger than that goes alone."""
    from pegsat import sealed

    monkeypatch.setattr(closure, "FLUSH", 100)
    monkeypatch.setattr(closure, "PER_PART", 1)
    b = closure.Buckets(tmp_path, 2, 0)
    buf = np.arange(60, dtype=np.uint64)
    assert b.add(0, buf[:30]) is None and b.add(1, buf[30:]) is None
    buf[:] = 999  # reused by the caller: what is held stays
    assert b.add(0, np.arange(100, 160, dtype=np.uint64)) is None  # 120 > 100: the first 60 written first
    assert b.add(1, np.arange(200, 350, dtype=np.uint64)) is None  # more than FLUSH: alone, at once
    assert b.flush() is None
    got = {f.name: sealed.read(f, closure.BUCKET, 1, "", 1 << 20).tolist() for f in tmp_path.glob("*.bkt")}
    assert got == {"0-0-0.bkt": list(range(30)), "1-0-0.bkt": list(range(30, 60)),
                   "0-0-1.bkt": list(range(100, 160)), "1-0-2.bkt": list(range(200, 350))}


def test_a_part_s_faults_are_the_references():
    """A level's part checked in one compiled pass names the fault numpy's checks name first:
    none, a repeat, a hole off the board, a wrong number of pegs, another partition."""
    from pegsat.checks.kit import FAULTS, part_fault, partition

    n, parts, p = 45, 8, 3
    x = distinct(positions(get_board("german"), 4000, 5))
    x = x[(np.bitwise_count(x) == 22) & (partition(x, parts) == p)]
    more = x[-1] | np.uint64(1 << 44) if not x[-1] >> 44 & 1 else np.uint64((1 << 45) - 1)  # above, 23+ pegs
    cases = {"": x, FAULTS[1]: np.insert(x, 5, x[5]), FAULTS[2]: np.append(x, np.uint64(1 << 50) | x[-1]),
             "holds a position without 22 pegs": np.append(x, more)}
    other = distinct(positions(get_board("german"), 4000, 6))
    other = other[(np.bitwise_count(other) == 22) & (partition(other, parts) != p)]
    cases[FAULTS[4]] = distinct(np.concatenate([x, other[:1]]))
    cases["both: the first named"] = np.insert(cases[FAULTS[4]], 0, cases[FAULTS[4]][0])
    for what, y in cases.items():
        got = {part_fault(y, n, 22, parts, p, compiled) for compiled in (True, False)}
        assert len(got) == 1, what
        assert got.pop() == ({"": None, "both: the first named": FAULTS[1]}.get(what, what))
    assert part_fault(x, n, None, parts, p, True) is None and part_fault(x[:0], n, 3, 1, 0, True) is None
    assert part_fault(x, n, 21, parts, p, True) == part_fault(x, n, 21, parts, p) == FAULTS[3].format(pegs=21)


def test_bad_buffers_are_refused_not_read():
    out = np.empty(4, dtype=np.uint8)
    with pytest.raises(ValueError, match="items of 8 bytes"):
        _check.distinct(np.zeros(4, dtype=np.int32))
    with pytest.raises(ValueError, match="as long as"):
        _check.member(np.zeros(4, np.uint64), np.zeros(5, np.uint64), out)
    with pytest.raises(ValueError, match="B x 256"):
        _check.weigh(np.zeros(4, np.uint64), np.zeros(100, np.int64), np.zeros(4, np.int64))


def test_the_compiled_loops_share_nothing_with_the_search_core():
    """Written apart from ``engine/_core.c``: no local header, no name of the core's."""
    code = SRC.read_text().split("*/", 1)[1]  # past the header comment, which names the core
    assert re.findall(r'#include\s+"', code) == []
    assert "_core" not in code and "engine" not in code


def test_merged_runs_are_sorted_without_repeats_and_lose_nothing(monkeypatch):
    rng = np.random.default_rng(7)
    runs = [np.unique(rng.integers(0, 500, int(rng.integers(0, 40)), dtype=np.uint64)) for _ in range(30)]
    monkeypatch.setattr(closure, "MERGE", 64)  # several merged arrays, each of at least 64 children
    out = list(merged(iter(runs)))
    assert len(out) > 1 and all(len(x) >= 1 for x in out)
    for x in out:
        assert x.dtype == np.uint64 and bool(np.all(x[1:] > x[:-1]))
    assert set(np.concatenate(out).tolist()) == set(np.concatenate(runs).tolist())
    whole = union(runs)
    assert whole.tolist() == sorted(set(np.concatenate(runs).tolist()))
    many = [np.concatenate(runs[k:k + 3]) for k in range(0, 30, 3)] * 20  # 200 arrays of runs: past RUNS
    assert union(many).tolist() == whole.tolist()
    assert union([np.zeros(0, np.uint64)]).tolist() == [] and list(merged([])) == []
    kept = [r.copy() for r in runs]  # the compiled squeeze: the same answer, the runs given untouched
    for radix in (True, False):  # past RUNS by the radix sort or numpy's quicksort
        monkeypatch.setattr(closure, "radix_faster", lambda radix=radix: radix)
        for given in (runs, many, [runs[3]], [np.zeros(0, np.uint64)]):
            assert union(given, compiled=True).tolist() == union(given).tolist()
    assert [x.tolist() for x in merged(iter(runs), compiled=True)] == [x.tolist() for x in out]
    assert all(a.tolist() == b.tolist() for a, b in zip(runs, kept, strict=True))


@pytest.mark.parametrize("parts", [1, 4, 64])
def test_a_sieve_is_the_reference_and_misses_nothing(parts):
    """The compiled sieve sets the reference's words and answers as it does; it says
    "perhaps" for every position it was made of (a miss would let a met child through) and
    for few others; a partition whose sieve is not given (not this pass's) answers no."""
    from pegsat.checks import sieve
    from pegsat.checks.kit import partition

    rng = np.random.default_rng(parts)
    held = distinct(rng.integers(0, 1 << 45, size=40_000, dtype=np.uint64))
    where = partition(held, parts)
    sieves = []
    for q in range(parts):
        mine = held[where == q]
        fast, slow = (sieve.build(mine, sieve.words_for(len(mine)), c) for c in (True, False))
        assert np.array_equal(fast, slow)
        sieves.append(fast)
    others = rng.integers(0, 1 << 45, size=200_000, dtype=np.uint64)
    x = np.concatenate([held, others])
    fast, slow = sieve.sieved(sieves, x, True), sieve.sieved(sieves, x, False)
    assert np.array_equal(fast, slow) and fast[:len(held)].all()
    assert fast[len(held):].mean() < 0.02  # 16 bits a position: under 1% in fact
    assert np.array_equal(sieve.perhaps(sieves[0], x), sieve.perhaps(sieves[0], x, compiled=False))
    if parts > 1:
        sieves[1] = None
        gone = sieve.sieved(sieves, held, True)
        assert not gone[where == 1].any() and gone[where != 1].all()
        assert np.array_equal(gone, sieve.sieved(sieves, held, False))


def test_bad_sieves_are_refused_not_read():
    out = np.empty(3, dtype=np.uint8)
    x = np.zeros(3, np.uint64)
    with pytest.raises(ValueError, match="1 to 2"):
        _check.sieve(np.zeros(0, np.uint64), x, out)
    with pytest.raises(ValueError, match="2\\^bits partitions"):
        _check.sieves([np.ones(4, np.uint64)] * 3, x, 1, 1, out)
    with pytest.raises(ValueError, match="1 to 2"):
        _check.sieves([np.ones(4, np.uint64), np.zeros(0, np.uint64)], x, 1, 1, out)
