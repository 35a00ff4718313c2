"""Exact tests of the clause builders on tiny boards, and model counts against enumeration."""

import pytest
from pysat.solvers import Solver

from pegsat.encoding.encoder import EncodeOptions, encode
from pegsat.engine.bitboard import engine, replay_plan
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, bits


def tiny():
    # square-1x5: holes a1..e1 = 0..4, lines (0,1,2) (1,2,3) (2,3,4)
    b = get_board("square-1x5")
    return Problem(b, bits([0, 1]), Goal.survivor(b, 2))


def test_variables_and_initial_goal_units():
    f = encode(tiny(), EncodeOptions(steps="sequential", symmetry=False, order=False))
    assert f.horizon == 1
    assert [f.peg(h, 0) for h in range(5)] == [1, 2, 3, 4, 5]
    units = sorted(c[0] for c in f.clauses if len(c) == 1)
    want = sorted([1, 2, -3, -4, -5] + [-6, -7, 8, -9, -10])
    assert units == want


def test_transition_clauses_exact():
    p = tiny()
    f = encode(p, EncodeOptions(steps="sequential", symmetry=False, order=False))
    b = p.board
    k = b.jump_index[(0, 1, 2)]
    j = f.jump(k, 0)
    P = f.peg
    for clause in ([-j, P(0, 0)], [-j, P(1, 0)], [-j, -P(2, 0)],
                   [-j, -P(0, 1)], [-j, -P(1, 1)], [-j, P(2, 1)]):
        assert clause in f.clauses
    # frame: hole 0 empties only by a jump from it (0,1,2); hole 2 fills only by jumps into it
    into2 = sorted(f.jump(b.jump_index[jj], 0) for jj in [(0, 1, 2), (4, 3, 2)])
    assert [-P(0, 0), P(0, 1), f.jump(b.jump_index[(0, 1, 2)], 0)] in f.clauses
    assert any(c[:2] == [P(2, 0), -P(2, 1)] and sorted(c[2:]) == into2 for c in f.clauses)
    assert f.exactly_one == [[f.jump(k2, 0) for k2 in range(len(b.jumps))]]


def count_projected(f, over):
    n = 0
    with Solver(name="cadical195", bootstrap_with=f.to_cnf().clauses) as s:
        while s.solve():
            m = set(v for v in s.get_model() if v > 0)
            yield f.decode(m)
            n += 1
            s.add_clause([-v if v in m else v for v in over])


def all_plans(p):
    eng = engine(p.board)
    out = []

    def go(pos, plan):
        if len(plan) == p.horizons.stop - 1:
            if p.goal.satisfied(pos):
                out.append(tuple(plan))
            return
        for k in eng.legal(pos):
            go(eng.apply(pos, k), plan + [k])

    go(p.start, [])
    return out


@pytest.mark.parametrize("start, survivor", [((0, 1, 3, 4), 2), ((0, 1, 3), 4), ((1, 2, 3, 4), 1)])
def test_sequential_models_are_exactly_the_plans(start, survivor):
    b = get_board("square-1x5")
    p = Problem(b, bits(start), Goal.survivor(b, survivor))
    f = encode(p, EncodeOptions(steps="sequential", symmetry=False, order=False))
    jumps = [f.jump(k, t) for t in range(f.horizon) for k in range(len(b.jumps))]
    got = sorted(count_projected(f, jumps))
    assert got == sorted(all_plans(p))


def test_parallel_models_replay_and_cover_every_plan():
    b = get_board("square-4x4")
    p = Problem(b, b.full & ~bits([0, 5]), Goal(min_pegs=12, max_pegs=12))
    f = encode(p, EncodeOptions(steps="parallel", symmetry=False, process=False))
    jumps = [f.jump(k, t) for t in range(f.horizon) for k in range(len(b.jumps))]
    plans = list(count_projected(f, jumps))
    for plan in plans:
        replay_plan(p, plan)
    # every sequential plan is a model with one jump per step
    seq = all_plans(p)
    assert set(seq) <= set(plans) and len(seq) > 0


def test_symmetry_keeps_one_first_jump_per_orbit():
    b = get_board("english")
    p = Problem(b, b.full & ~(1 << b.hole("d4")), Goal.survivor(b, b.hole("d4")))
    f = encode(p, EncodeOptions(steps="sequential"))
    banned = [c[0] for c in f.clauses if len(c) == 1 and c[0] < 0 and f.pool.obj(-c[0])[0] == "jump"]
    assert len(banned) == 3  # four first jumps, one orbit


def test_encoder_imports_no_solver():
    import subprocess
    import sys
    code = ("import sys, pegsat.encoding.encoder, pegsat.encoding.dimacs; "
            "print(any(m.startswith(('pysat.solvers', 'ortools')) for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _pagodas(p):
    """Learned pagodas, and the peg count as one (every weight 1, its floor the goal's pegs)."""
    from pegsat.analysis.pagoda import for_levels
    from pegsat.deadline import Deadline

    return [*for_levels(p, Deadline(5)), ((1,) * p.board.n, p.goal.min_pegs)]


REDUNDANT = [EncodeOptions(steps="sequential", symmetry=False, order=False, pagodas=True),
             EncodeOptions(steps="sequential", symmetry=False, order=False, classes=True),
             EncodeOptions(steps="sequential", symmetry=False, order=False, count=True),
             EncodeOptions(steps="sequential", symmetry=False, order=False, pagodas=True, classes=True,
                           count=True, card="totalizer")]


@pytest.mark.parametrize("options", REDUNDANT, ids=["pagodas", "classes", "count", "all"])
@pytest.mark.parametrize("board, start, survivor", [
    ("square-1x5", (0, 1, 3, 4), 2), ("square-1x5", (1, 2, 3, 4), 1),
    ("triangle-4", None, "a1"), ("triangle-5", None, 11), ("triangle-5", (0, 1, 2, 3, 4, 5, 7), 11)])
def test_redundant_constraints_keep_exactly_the_plans(options, board, start, survivor):
    """Every redundant constraint is sound: with it, the models are still exactly the plans
    brute force finds (none, for a problem without one). ``survivor`` a number: the goal is
    that many pegs anywhere (triangle-5 from a1 vacant, or from the start given)."""
    b = get_board(board)
    if survivor == 11:
        start_ = bits(start) | bits(range(10, 15)) if start else b.full & ~1
        goal = Goal(min_pegs=start_.bit_count() - 3, max_pegs=start_.bit_count() - 3)
        p = Problem(b, start_, goal)
    else:
        s = b.hole(survivor) if isinstance(survivor, str) else survivor
        p = Problem(b, bits(start) if start else b.full & ~(1 << s), Goal.survivor(b, s))
    f = encode(p, options, pagodas=_pagodas(p) if options.pagodas else ())
    assert not options.pagodas or f.weighted
    jumps = [f.jump(k, t) for t in range(f.horizon) for k in range(len(b.jumps))]
    assert sorted(count_projected(f, jumps)) == sorted(all_plans(p))


def test_redundant_constraints_keep_every_parallel_plan():
    b = get_board("square-4x4")
    p = Problem(b, b.full & ~bits([0, 5]), Goal(min_pegs=12, max_pegs=12))
    options = EncodeOptions(symmetry=False, pagodas=True, classes=True, process=False)
    f = encode(p, options, pagodas=_pagodas(p))
    jumps = [f.jump(k, t) for t in range(f.horizon) for k in range(len(b.jumps))]
    plans = list(count_projected(f, jumps))
    for plan in plans:
        replay_plan(p, plan)
    assert set(all_plans(p)) <= set(plans)


def test_a_pagoda_that_could_cut_a_plan_is_refused():
    b = get_board("triangle-4")
    p = Problem(b, b.full & ~(1 << b.hole("a1")), Goal.survivor(b, b.hole("a1")))
    ones = (1,) * b.n
    with pytest.raises(ValueError, match="floor"):  # a floor above the goal's weight
        encode(p, EncodeOptions(pagodas=True), pagodas=[(ones, 2)])
    raised = list(ones)
    raised[b.jumps[0][2]] = 3  # a jump into this hole raises the weight
    with pytest.raises(ValueError, match="raises"):
        encode(p, EncodeOptions(pagodas=True), pagodas=[(tuple(raised), 1)])
    with pytest.raises(ValueError, match="options"):
        encode(p, EncodeOptions(), pagodas=[(ones, 1)])
    with pytest.raises(ValueError, match="sequential"):
        encode(p, EncodeOptions(count=True))


def test_xor_chains_are_exact():
    """The XOR gate chain: its models on the inputs are exactly the assignments of the parity."""
    from itertools import product

    from pegsat.encoding.encoder import _xor_cnf

    for parity in (0, 1):
        clauses = _xor_cnf([1, 2, 3, 4], parity, lambda j: 10 + j)
        for bits_ in product((0, 1), repeat=4):
            with Solver(name="cadical195", bootstrap_with=clauses) as s:
                ok = s.solve(assumptions=[v if x else -v for v, x in zip((1, 2, 3, 4), bits_, strict=True)])
            assert ok == (sum(bits_) % 2 == parity)


def _earliest(p, plan):
    """A sequential plan's jumps each at the earliest parallel step: one after the last earlier
    jump it shares a hole with."""
    masks = [1 << a | 1 << b | 1 << c for a, b, c in p.board.jumps]
    steps: list[int] = []
    for i, k in enumerate(plan):
        steps.append(1 + max((steps[j] for j in range(i) if masks[plan[j]] & masks[k]), default=-1))
    return frozenset(zip(plan, steps, strict=True))


@pytest.mark.parametrize("board, vacant, survivor", [("triangle-5", "a1", None), ("triangle-5", "b3", "b3"),
                                                     ("triangle-4", "a1", "a1")])
def test_process_semantics_keeps_one_model_a_plan(board, vacant, survivor):
    """With ``process``, the models are exactly the plans' earliest-step forms: every plan
    once (and none for a problem without a plan)."""
    b = get_board(board)
    goal = Goal.survivor(b, b.hole(survivor)) if survivor else Goal(min_pegs=b.n - 5, max_pegs=b.n - 5)
    p = Problem(b, b.full & ~(1 << b.hole(vacant)), goal)
    f = encode(p, EncodeOptions(symmetry=False, process=True))
    models = _models(f, p)
    assert len(models) == len(set(models))
    assert set(models) == {_earliest(p, plan) for plan in all_plans(p)}
    plain = encode(p, EncodeOptions(symmetry=False, process=False))
    assert len(f.clauses) > len(plain.clauses)


def test_an_encoding_takes_the_lightest_few_pagodas():
    from pegsat.encoding.encoder import ENCODED_PAGODAS, ENCODED_WEIGHT, encodable

    heavy = ((ENCODED_WEIGHT + 1,), 0)
    light = [((k,), 0) for k in range(ENCODED_PAGODAS + 2, 0, -1)]
    got = encodable([heavy, *light])
    assert got == sorted(light)[:ENCODED_PAGODAS] and heavy not in got


def _models(f, p):
    """Each model's jumps as (jump, step) pairs."""
    b = p.board
    jumps = {f.jump(k, t): (k, t) for t in range(f.horizon) for k in range(len(b.jumps))}
    out = []
    with Solver(name="cadical195", bootstrap_with=f.to_cnf().clauses) as s:
        while s.solve():
            m = {v for v in s.get_model() if v > 0}
            out.append(frozenset(jumps[v] for v in m if v in jumps))
            s.add_clause([-v if v in m else v for v in jumps])
    return out


@pytest.mark.parametrize("board, vacant, survivor, pegs, cuts", [
    ("triangle-5", "a1", None, 9, False), ("triangle-5", "c3", None, 9, False),
    ("triangle-4", "a1", "a1", None, False), ("square-4x4", "b2", None, 11, False),
    ("english", "d4", None, 28, True), ("english", "d4", None, 27, True)])
def test_lex_leader_keeps_one_plan_an_orbit(board, vacant, survivor, pegs, cuts):
    """With ``lex`` the models are plans in earliest-step form, no two the image of each other
    under a symmetry of the problem, and their images are every plan's earliest form; where
    the first jump leaves a symmetric position (``cuts``), fewer than without ``lex``."""
    from pegsat.engine.bitboard import stabilizer

    b = get_board(board)
    goal = Goal.survivor(b, b.hole(survivor)) if survivor else Goal(min_pegs=pegs, max_pegs=pegs)
    p = Problem(b, b.full & ~(1 << b.hole(vacant)), goal)
    group = stabilizer(p)
    lex = _models(encode(p, EncodeOptions(lex=True)), p)

    def image(m, s):
        return frozenset((b.jump_index[tuple(s[h] for h in b.jumps[k])], t) for k, t in m)

    orbits = {min(tuple(sorted(image(m, s))) for s in group) for m in lex}
    assert len(orbits) == len(lex)  # one model an orbit
    every = {_earliest(p, plan) for plan in all_plans(p)}
    assert {image(m, s) for m in lex for s in group} == every
    first = _models(encode(p, EncodeOptions(lex=False)), p)  # the first step's representative only
    assert len(lex) < len(first) if cuts else len(lex) <= len(first)
