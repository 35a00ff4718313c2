"""The compiled core (``engine.kernel``, ``engine.dfs``) against the pure-Python reference
(``engine.reference``): bulk operations exactly, searches by answer and level sizes, on one-
and two-word boards and on random small boards."""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest
from conftest import random_problems
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegsat.deadline import Deadline
from pegsat.engine import dfs as D
from pegsat.engine import reference as R
from pegsat.engine.bitboard import replay_plan
from pegsat.engine.kernel import Kernel, kernel
from pegsat.engine.levels import Levels
from pegsat.errors import PegsatError
from pegsat.model.board import Board
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, single_vacancy
from pegsat.model.result import Status
from pegsat.planners import search
from pegsat.planners.config import Config

ENGLISH = get_board("english")
# one-word boards, and two-word ones (81 and 78 holes)
BOARDS = ["english", "triangle-5", "hopping-dots", "german", "square-9x9", "triangle-12"]


def _random_positions(board: Board, n: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.getrandbits(board.n) for _ in range(n)]


@pytest.mark.parametrize("name", BOARDS)
@pytest.mark.parametrize("reverse", [False, True])
def test_steps_match_the_reference(name, reverse):
    b = get_board(name)
    k = kernel(b, b.symmetries)
    pos = _random_positions(b, 60, 1)
    got = set(k.ints(k.step(k.array(pos), reverse=reverse)))
    assert got == R.step(b, k.group, pos, reverse=reverse)
    raw = Kernel(b, ())  # no symmetry: plain successors, duplicates kept
    plain = raw.step(raw.array(pos), reverse=reverse, canon=False)
    assert set(raw.ints(plain)) == R.step(b, (), pos, reverse)


@pytest.mark.parametrize("name", ["english", "triangle-6", "square-9x9"])
@pytest.mark.parametrize("reverse", [False, True])
def test_moves_match_the_reference(name, reverse):
    b = get_board(name)
    k = Kernel(b, ())
    for pos in _random_positions(b, 25, 7):
        got = set(k.ints(k.moves(k.array([pos]), reverse=reverse, canon=False)))
        assert got == R.move_successors(b, pos, reverse)


@pytest.mark.parametrize("name", ["german", "square-9x9"])
def test_the_radix_sort_of_many_skewed_positions_is_a_sort(name):
    """More positions than the sort's cache-sized buckets hold (one word: German; two words:
    the 81-hole square), most of them under one highest digit (as least images are): the
    buckets are split again, and the answer is numpy's."""
    b = get_board(name)
    k = kernel(b, b.symmetries)
    rng = np.random.default_rng(4)
    small = [int(v) for v in rng.integers(0, 1 << 20, size=120_000)]
    wide = [int.from_bytes(rng.bytes(16), "little") & b.full for _ in range(40_000)]
    pos = small + wide + small[:5000] + [b.full] * 10
    assert k.ints(k.unique(k.array(pos))) == sorted(set(pos))


@pytest.mark.parametrize("name", ["english", "square-9x9"])
def test_a_small_set_is_sought_among_many_sorted_queries(name):
    """A set of fewer than an eighth as many members as the sorted queries (repeated ones
    among them, members below, between and above them): its members are galloped through
    the queries instead; the same answer as a plain test."""
    b = get_board(name)
    k = kernel(b, b.symmetries)
    rng = random.Random(8)
    queries = sorted(rng.getrandbits(b.n) for _ in range(3000))
    queries = sorted(queries + queries[100:130])  # repeats
    small = sorted({queries[0], queries[120], queries[-1], 0, b.full, *rng.sample(queries, 40),
                    *(rng.getrandbits(b.n) for _ in range(20))})
    got = k.member(k.unique(k.array(small)), k.array(queries))
    assert list(got) == [q in set(small) for q in queries]


@pytest.mark.parametrize("name", BOARDS)
def test_canonical_form_permutation_and_membership(name):
    b = get_board(name)
    k = kernel(b, b.symmetries)
    pos = _random_positions(b, 200, 5)
    arr = k.array(pos)
    assert k.ints(k.canon(arr)) == [R.canon(b, k.group, p) for p in pos]
    perm = k.group[-1]
    from pegsat.engine.bitboard import permute
    assert k.ints(k.permute(arr, perm)) == [permute(perm, p) for p in pos]
    u = k.unique(k.concat([arr, arr[:50]]))
    assert k.ints(u) == sorted(set(pos))
    probe = pos[:20] + _random_positions(b, 20, 6)
    assert list(k.member(u, k.array(probe))) == [p in set(pos) for p in probe]
    probe = sorted(probe + [min(pos), max(pos), 0, b.full])  # ascending: the merging path
    assert list(k.member(u, k.array(probe))) == [p in set(pos) for p in probe]
    probe = (probe + pos) * 3  # unsorted and more than the set: the hashed path
    random.Random(1).shuffle(probe)
    assert list(k.member(u, k.array(probe))) == [p in set(pos) for p in probe]
    assert list(k.popcount(arr)) == [p.bit_count() for p in pos]


@pytest.mark.parametrize("name", ["english", "square-9x9"])
def test_merge_grows_a_sorted_set_in_its_own_buffer(name):
    """``Kernel.merge``: new positions merged into a sorted set in place, in the room left
    after it in its buffer; a buffer of the wrong size is refused."""
    b = get_board(name)
    k = kernel(b, ())
    pos = sorted(set(_random_positions(b, 300, 12)))
    old, new = pos[::3], [p for i, p in enumerate(pos) if i % 3]
    buf = k.concat([k.array(old), k.array(new)])  # the room's contents do not matter
    k.merge(buf, len(old), k.array(new))
    assert k.ints(buf) == pos
    k.merge(buf, len(buf), k.empty())
    assert k.ints(buf) == pos
    small = k.concat([k.array([b.full]), k.array(pos[:3])])
    k.merge(small, 1, k.array(pos[:3]))
    assert k.ints(small) == [*pos[:3], b.full]
    with pytest.raises(ValueError):
        k.merge(buf[:-1], len(old), k.array(new))  # room for one fewer


@pytest.mark.parametrize("name", ["english", "diamond", "hopping-dots"])
def test_fresh_children_are_those_whose_canonical_form_the_set_misses(name):
    """``Kernel.fresh``: every child of the parents (repeats kept) whose canonical form is not
    in the sorted set, with that form, ordered by it: the reference's successors and
    canonical forms, filtered by the set."""
    b = get_board(name)
    k = kernel(b, b.symmetries)
    parents = _random_positions(b, 300, 21)
    raw = Kernel(b, ())
    kids = raw.ints(raw.step(raw.array(parents), canon=False))
    forms = [R.canon(b, k.group, c) for c in kids]
    dead = sorted(set(forms[::2]) | set(_random_positions(b, 50, 22)))
    want = sorted((f, c) for f, c in zip(forms, kids, strict=True) if f not in set(dead))
    got_kids, got_forms = k.fresh(k.array(parents), k.array(dead))
    assert k.ints(got_forms) == [f for f, _ in want]
    assert sorted(zip(k.ints(got_forms), k.ints(got_kids), strict=True)) == want
    assert len(want) > 100
    every, _ = k.fresh(k.array(parents), k.empty())
    assert len(every) == len(kids)
    none, _ = k.fresh(k.array(parents), k.array(sorted(set(forms))))
    assert not len(none)


def test_the_bulk_pagoda_cut_is_the_search_rule():
    """``Kernel.cut``: a position is cut when every column (survivor) has some pagoda
    weighing it below that column's floor; exact integer sums, any sign; the same whatever
    the pagodas' order (the core tries them in move-to-front order)."""
    b = get_board("english")
    k = kernel(b, ())
    rng = random.Random(5)
    weights = [[rng.randint(-3, 4) for _ in range(b.n)] for _ in range(30)]
    floors = [[rng.randint(-9, 6) for _ in range(3)] for _ in range(30)]
    pos = _random_positions(b, 400, 11)

    def weigh(w, x):
        return sum(w[h] for h in range(b.n) if x >> h & 1)

    want = [all(any(weigh(w, x) < f[j] for w, f in zip(weights, floors, strict=True)) for j in range(3))
            for x in pos]
    assert list(k.cut(k.array(pos), weights, floors)) == want
    ordered = sorted(pos)
    assert list(k.cut(k.array(ordered), weights[::-1], floors[::-1])) == [want[pos.index(x)] for x in ordered]
    assert 0 < sum(want) < len(pos)
    assert not k.cut(k.array(pos), [], []).any()


def test_the_cut_by_class_takes_each_position_s_columns_from_its_class():
    """``Kernel.cut_by_class``: a position's signature (the parities of its pegs on each
    class mask) picks its columns; a signature without any is never cut; otherwise as ``cut``."""
    b = get_board("english")
    k = kernel(b, ())
    rng = random.Random(8)
    weights = [[rng.randint(-3, 4) for _ in range(b.n)] for _ in range(12)]
    classes = [rng.getrandbits(b.n) for _ in range(3)]
    floors = {sig: [[rng.randint(-6, 6) for _ in range(sig % 3 + 1)] for _ in weights]
              for sig in (0, 2, 5, 7)}
    pos = _random_positions(b, 500, 13)

    def weigh(w, x):
        return sum(w[h] for h in range(b.n) if x >> h & 1)

    def want(x):
        sig = sum(((x & c).bit_count() & 1) << i for i, c in enumerate(classes))
        f = floors.get(sig)
        return f is not None and all(any(weigh(w, x) < f[p][j] for p, w in enumerate(weights))
                                     for j in range(len(f[0])))

    expect = [want(x) for x in pos]
    assert list(k.cut_by_class(k.array(pos), weights, classes, floors)) == expect
    assert 0 < sum(expect) < len(pos)


def test_routing_groups_positions_by_their_hash_and_keeps_their_order():
    """The core's counting sort puts each position where ``spill.route`` says, in the
    order given (sorted children stay sorted): the out-of-core searches route by it."""
    from pegsat.engine import spill

    b = get_board("french")
    k = kernel(b, b.symmetries)
    pos = k.array(_random_positions(b, 3000, 9))
    for parts in (1, 2, 8, 64):
        grouped, bounds = k.route(pos, parts)
        where = spill.route(pos, parts)
        assert bounds[0] == 0 and bounds[-1] == len(pos)
        for q in range(parts):
            assert k.ints(grouped[bounds[q]:bounds[q + 1]]) == k.ints(pos[where == q])
    with pytest.raises(ValueError):
        kernel(get_board("square-9x9"), ()).route(k.empty(), 4)


@pytest.mark.parametrize("name", ["english", "square-9x9"])
def test_pagoda_filter_is_an_exact_integer_sum(name):
    b = get_board(name)
    k = kernel(b, ())
    rng = random.Random(3)
    ws = [[rng.randint(-5, 5) for _ in range(b.n)] for _ in range(3)]
    floors = [0, -3, 2]
    pos = _random_positions(b, 3000, 4)
    kept, alone = k.keep(k.array(pos), ws, floors)

    def ok(p, w, f):
        return sum(w[h] for h in range(b.n) if p >> h & 1) >= f

    assert k.ints(kept) == [p for p in pos if all(ok(p, w, f) for w, f in zip(ws, floors, strict=True))]
    for i, (w, f) in enumerate(zip(ws, floors, strict=True)):
        others = [j for j in range(3) if j != i]
        want = sum(1 for p in pos if not ok(p, w, f) and all(ok(p, ws[j], floors[j]) for j in others))
        assert alone[i] == want


@pytest.mark.parametrize("name", ["german", "square-9x9"])
def test_full_regions_are_counted_as_covers_summed(name):
    """The compiled count of full masks (Merson's bounds) against numpy's ``covers``, one
    mask at a time, on one-word and two-word boards."""
    b = get_board(name)
    k = kernel(b, ())
    rng = random.Random(5)
    masks = [sum(1 << h for h in rng.sample(range(b.n), rng.randint(1, 4))) for _ in range(20)]
    pos = k.array(_random_positions(b, 3000, 6) + [b.full, 0])
    want = sum(k.covers(pos, m).astype(int) for m in masks)
    assert k.count_full(pos, masks).tolist() == want.tolist()
    assert k.count_full(pos, []).tolist() == [0] * len(pos)


def test_boards_over_128_holes_are_refused_by_the_core_but_searched_by_the_reference():
    big = get_board("square-12x12")
    with pytest.raises(PegsatError, match="at most 128"):
        kernel(big, ())
    # a 3-peg game on the 144-hole board: the reference search still answers
    start = (1 << big.hole("a1")) | (1 << big.hole("b1")) | (1 << big.hole("d1"))
    r = search.solve(Problem(big, start, Goal.at_most(1)), Deadline(30), Config(workers=1))
    assert r.status is Status.SOLVED
    replay_plan(Problem(big, start, Goal.at_most(1)), r.plan)


# --- random small problems: compiled search against the reference ---------------------------

def problems():
    return random_problems((3, 4), (3, 4), special=False)  # the reference is slow: keep them small


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(0, 3), st.sampled_from([6, 10, 16]))
def test_compiled_depth_first_agrees_with_the_reference(problem, seed, bits):
    """Same answer; the plan replays; a tiny (lossy) table only costs time, never answers
    (it costs a lot: keep the boards small)."""
    order = D.far_first(problem, random.Random(seed) if seed else None)
    want, _ = R.depth_first(problem, Deadline(60), order, D.goal_group(problem))
    search_ = D.DepthFirst(problem, table_bits=bits)
    code = search_.attempt(order, 10**9)
    assert code == (D.FOUND if want is not None else D.EXHAUSTED)
    if code == D.FOUND:
        replay_plan(problem, search_.plan())
        if not D.goal_group(problem)[1:]:  # no symmetry: the same tree in the same order
            assert search_.plan() == want


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_pagodas_and_restarts_never_change_the_answer(problem):
    """The planner (learned pagodas, restarts, shared table) against the reference."""
    want, _ = R.depth_first(problem, Deadline(60), D.far_first(problem))
    r = search.solve(problem, Deadline(60), Config(workers=1))
    assert r.status is (Status.SOLVED if want is not None else Status.UNSOLVABLE), r.detail
    if r.plan is not None:
        replay_plan(problem, r.plan)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.booleans())
def test_level_sizes_match_the_reference(problem, reverse):
    b = problem.board
    group = D.goal_group(problem)
    lv = Levels(b, group, (problem.start,), None)
    ref = {R.canon(b, lv.group, problem.start)}
    for _ in range(min(problem.pegs - 1, 8)):
        got = lv.grow("forward", Deadline(30))
        ref = R.step(b, lv.group, ref)
        assert lv.kernel.ints(got) == sorted(ref)


def _wins(board: Board, survivor: int):
    """Brute force: does a position lead to one peg on ``survivor``? (memoised recursion)"""
    jumps = [((1 << a) | (1 << o), 1 << c) for a, o, c in board.jumps]

    @lru_cache(None)
    def win(pos: int) -> bool:
        return pos == 1 << survivor or any(win(pos ^ need ^ land) for need, land in jumps
                                           if pos & need == need and not pos & land)

    return win


def test_every_triangle5_game_exhausted_or_solved_as_brute_force_says():
    """Sleep sets (jumps on disjoint holes tried at a node sleep in its later children) and
    batched look-ups skip only dead positions: on every vacancy -> survivor game of the
    15-hole triangle the compiled search agrees with a brute-force recursion, with a table
    large enough to keep everything and with a tiny lossy one."""
    b = get_board("triangle-5")
    for s in range(b.n):
        win = _wins(b, s)
        for v in range(b.n):
            p = single_vacancy(b, v, Goal.survivor(b, s))
            for bits in (4, 16):
                code = D.DepthFirst(p, table_bits=bits).attempt(D.far_first(p), 10**8)
                assert code == (D.FOUND if win(p.start) else D.EXHAUSTED), (v, s, bits)


def test_lanes_answer_as_brute_force_says():
    """Descents interleaved in one thread (``lanes``), sharing the table: with a table large
    enough that a lane yields after prefetching (2^21 slots) and with a tiny one (no yields),
    any lane's plan replays and an exhausted lane means no plan, on triangle-5's games."""
    b = get_board("triangle-5")
    rng = random.Random(7)
    for s in (0, 4, 12):
        win = _wins(b, s)
        for v in range(b.n):
            p = single_vacancy(b, v, Goal.survivor(b, s))
            for bits in (5, 21):
                search_ = D.DepthFirst(p, table_bits=bits)
                lanes = [D.far_first(p, rng) for _ in range(2)]
                code = search_.attempt(D.far_first(p), 10**8, lanes=lanes)
                assert code == (D.FOUND if win(p.start) else D.EXHAUSTED), (v, s, bits)
                if code == D.FOUND:
                    replay_plan(p, search_.plan())
                assert search_.stats()["nodes"] > 0


def test_lanes_stop_at_their_budget_and_resume():
    """A budget counts the lanes' nodes together; the next attempt starts afresh, with the
    dead positions the lanes stored."""
    p = single_vacancy(get_board("english"), get_board("english").hole("d1"), Goal.one_peg())
    search_ = D.DepthFirst(p, table_bits=21)
    rng = random.Random(3)
    assert search_.attempt(D.far_first(p, rng), 30_000, lanes=[D.far_first(p, rng)]) == D.BUDGET
    assert 30_000 <= search_.nodes < 30_000 + 3 * 4096
    assert search_.stored_now() == search_.stored > 0
    with pytest.raises(ValueError, match="every jump once"):
        search_.attempt(D.far_first(p), 10, lanes=[[0, 0]])


# --- two-word boards end to end ------------------------------------------------------------

def test_two_word_board_search_plans_and_dead_table():
    b = get_board("square-9x9")
    # a 3x3 block of pegs in the corner, one peg to be left anywhere
    start = sum(1 << b.hole(f"{c}{r}") for c in "abc" for r in (1, 2, 3))
    p = Problem(b, start, Goal.one_peg())
    order = D.far_first(p)
    s = D.DepthFirst(p, table_bits=12)
    want, _ = R.depth_first(p, Deadline(60), order, D.goal_group(p))
    assert s.attempt(order, 10**8) == (D.FOUND if want else D.EXHAUSTED)
    if want:
        replay_plan(p, s.plan())
    lanes = D.DepthFirst(p, table_bits=21)  # two-word lanes, yielding
    code = lanes.attempt(order, 10**8, lanes=[D.far_first(p, random.Random(1))])
    assert code == (D.FOUND if want else D.EXHAUSTED)
    if want:
        replay_plan(p, lanes.plan())


def test_two_word_board_layers_and_moves():
    from pegsat.planners import layers, moves
    b = get_board("square-9x9")
    start = sum(1 << b.hole(f"{c}{r}") for c in "abcd" for r in (1, 2)) & ~(1 << b.hole("b1"))
    p = Problem(b, start, Goal.one_peg())
    a = layers.solve(p, Deadline(60), Config())
    m = moves.solve(p, Deadline(60), Config())
    want, _ = R.depth_first(p, Deadline(60), D.far_first(p))
    assert (a.plan is not None) == (want is not None) == (m.plan is not None)
    if a.plan:
        replay_plan(p, a.plan)
        replay_plan(p, m.plan)


@pytest.mark.slow  # 7 s on two workers, its answer within a deadline: a loaded machine could make it fail
def test_german_central_game_is_found_with_pagodas_and_a_shared_table():
    """Issue 13's headline case, kept short: german e5 -> one peg within 60 s, two workers."""
    b = get_board("german")
    p = single_vacancy(b, b.hole("e5"), Goal.one_peg())
    r = search.solve(p, Deadline(60), Config(workers=2))
    assert r.status is Status.SOLVED, r.detail
    replay_plan(p, r.plan)


# --- one-peg goals: pagodas weighed against each possible survivor ---------------------------

def test_a_position_is_cut_only_when_every_survivor_is_ruled_out():
    """The core's rule (``DepthFirst(survivors=...)``): a pagoda rules a position out for a
    survivor when the position weighs less than the pagoda's weight on that hole; the
    position is cut when that holds for every survivor, by any pagodas."""
    b = ENGLISH
    s1, s2 = b.hole("d4"), b.hole("d1")
    start = b.full & ~(1 << s1) & ~(1 << s2)  # weighs 0 under both weightings below
    one_a = D.Pagoda(tuple(int(h == s1) for h in range(b.n)), 0)  # rules out d4 alone
    one_b = D.Pagoda(tuple(int(h == s2) for h in range(b.n)), 0)  # rules out d1 alone
    p = Problem(b, start, Goal.one_peg())
    for pagodas, cut in (([one_a], False), ([one_b], False), ([one_a, one_b], True)):
        s = D.DepthFirst(p, table_bits=12, pagodas=pagodas, survivors=(s1, s2))
        code = s.attempt(D.far_first(p), 1_000)
        assert (code == D.EXHAUSTED and s.nodes == 0 and s.cuts == 1) is cut
    # without survivors the floors are used (0: nothing is below them)
    s = D.DepthFirst(p, table_bits=12, pagodas=[one_a, one_b])
    assert s.attempt(D.far_first(p), 1_000) == D.BUDGET
    with pytest.raises(ValueError, match="one-peg goal"):
        D.DepthFirst(single_vacancy(b, s1, Goal.survivor(b, s1)), survivors=(s1,))


def test_survivors_are_the_holes_the_classes_allow():
    from pegsat.analysis import pagoda
    from pegsat.analysis.invariants import possible_survivors

    d = get_board("diamond")
    p = single_vacancy(d, d.hole("e1"), Goal.one_peg())
    assert [d.names[h] for h in pagoda.survivors_of(p)] == ["e3", "b6", "e6", "h6", "e9"]
    e = single_vacancy(ENGLISH, ENGLISH.hole("d4"), Goal.one_peg())
    assert set(pagoda.survivors_of(e)) == set(possible_survivors(ENGLISH, e.start, ENGLISH.full))
    assert pagoda.survivors_of(single_vacancy(ENGLISH, 0, Goal.survivor(ENGLISH, 0))) == ()


def test_pagodas_learned_and_mined_for_each_survivor_are_exact():
    """Every pagoda learned or mined against the survivors one by one adds no weight in any
    jump, and its floor is its least weight on a survivor; the mined ones rule out, for every
    survivor, dead positions no known pagoda did."""
    import numpy as np

    from pegsat.analysis import pagoda

    d = get_board("diamond")
    p = single_vacancy(d, d.hole("e1"), Goal.one_peg())
    surv = pagoda.survivors_of(p)
    known = pagoda.learn(p, 40, random.Random(2), Deadline(20), surv)
    s = D.DepthFirst(p, table=D.new_table(16), pagodas=[D.Pagoda(w, f) for w, f in known], survivors=surv)
    assert s.attempt(D.far_first(p), 40_000) == D.BUDGET
    dead = s.table[s.table != 0][:1500]
    new = pagoda.mine(p, dead, known, keep=4, deadline=Deadline(30), survivors=surv)
    assert known and new and not set(new) & set(known)
    has = ((dead[:, None] >> np.arange(d.n, dtype=np.uint64)) & np.uint64(1)).astype(np.int64)

    def out(items):  # [position, survivor]: some pagoda of items weighs the position below it
        w = np.array([x[0] for x in items], dtype=np.int64)
        return ((has @ w.T)[:, :, None] < w[:, list(surv)][None, :, :]).any(axis=1)

    for w, floor in known + new:
        assert all(w[c] <= w[a] + w[b] for a, b, c in d.jumps)
        assert floor == min(w[h] for h in surv)
    before, after = out(known).all(axis=1), out(known + new).all(axis=1)
    assert not before.all() and after.sum() > before.sum()


def test_a_search_moved_to_another_start_is_that_start_s_own_search():
    """``DepthFirst.from_start`` (the repair pass's sub-searches share one set-up per class)
    runs exactly the search built for that start: the same pagoda weights of the start, the
    same answer, the same nodes."""
    from pegsat.analysis import pagoda

    b = get_board("english")
    goal = Goal.one_peg()
    first = single_vacancy(b, b.hole("d4"), goal)
    pagodas = tuple(D.Pagoda(w, f) for w, f in pagoda.learn_for(first, Deadline()))
    assert pagodas
    order = D.far_first(first)
    base = D.DepthFirst(first, pagodas=pagodas)
    for v in ("c1", "a3", "b4"):
        p = single_vacancy(b, b.hole(v), goal)
        own, moved = D.DepthFirst(p, pagodas=pagodas), base.from_start(p.start)
        moved.table = D.new_table(22, own.kernel.width)  # each its own dead table
        assert moved._values == own._values and moved.problem == p
        assert moved.attempt(order, 1 << 40) == own.attempt(order, 1 << 40)
        assert moved.nodes == own.nodes > 0


def test_a_probes_sieve_is_the_reference_and_misses_nothing():
    """The core's sieve sets the reference's words and answers as it does; every position it
    was made of may be held (a miss would hide a meeting), few others are."""
    b = get_board("german")
    k = Kernel(b, b.symmetries)
    rng = np.random.default_rng(5)
    held = np.unique(rng.integers(0, 1 << b.n, 3000, dtype=np.uint64))
    words = k.sieve(held, len(held) * 16 // 64)
    assert words.tolist() == R.sieve(held.tolist(), len(held) * 16 // 64)
    others = rng.integers(0, 1 << b.n, 20_000, dtype=np.uint64)
    x = np.concatenate([held, others])
    got = k.sieved(words, x)
    assert got.tolist() == R.sieved(words.tolist(), x.tolist())
    assert got[:len(held)].all() and got[len(held):].mean() < 0.02
    with pytest.raises(ValueError, match="1 to 2"):
        k.sieved(np.zeros(0, np.uint64), x)


def test_a_mirrored_probe_meets_the_images_of_raw_children_as_of_canonical_ones(tmp_path):
    """A probe by buckets of a self-dual search expands its children raw (neither canonical
    nor distinct) before their mirror images: the images it writes, sieved or not, and what a
    streaming probe meets, are those of the canonical, distinct children."""
    from pegsat.engine import spill
    from pegsat.engine.disk import Search, _mirrored

    b = get_board("english")
    search = Search("jumps", single_vacancy(b, b.hole("d1"), Goal.survivor(b, b.hole("d7"))))
    k, image = search.kernel, _mirrored(search)  # the mirror swaps rows 1 and 7; c <-> e fixes both
    assert image is not None and search.mirror != tuple(range(b.n)) and len(k.group) == 2
    level = k.unique(k.canon(k.array([search.problem.start])))
    for _ in range(5):
        level = k.unique(k.step(level))
    want = k.unique(image(k.unique(k.step(level))))
    spill.write_part(tmp_path, "fp", 0, 0, level)
    rng = np.random.default_rng(7)
    there = k.unique(np.concatenate([want[rng.random(len(want)) < 0.3],
                                     rng.integers(0, 1 << b.n, 500, dtype=np.uint64)]))
    routed, bounds = k.route(there, 4)
    sieves = [k.sieve(routed[bounds[q]:bounds[q + 1]], max(1, (bounds[q + 1] - bounds[q]) * 16 // 64))
              for q in range(4)]
    for sieved in (None, sieves):
        spill.drop_level(tmp_path, 1)
        spill.expand(k, tmp_path, "fp", 0, 0, 4, 50, 1 << 30, image=image, sieves=sieved)
        got = k.unique(k.concat([spill._buckets(tmp_path, "fp", 1, q, 1 << 30) for q in range(4)]))
        if sieved is None:
            assert np.array_equal(got, want)
        else:  # every image that meets is kept; few others are
            assert np.array_equal(got[k.member(there, got)], want[k.member(there, want)])
            assert len(got) < len(want)

    def meets(q: int, kids: np.ndarray) -> np.ndarray:
        return k.member(routed[bounds[q]:bounds[q + 1]], kids)

    hits, least = spill.probe(k, tmp_path, "fp", 0, 0, 4, 50, 1 << 30, meets, 1 << 30, image=image)
    met = want[k.member(there, want)]
    assert (hits, least) == (len(met), int(met[0]))
