"""Minimum-moves mode: Merson bounds, moves, the search and its proofs."""

import os
import random
import tempfile
from pathlib import Path

import pytest
from conftest import reference_min_moves
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegsat.analysis import merson, pagoda
from pegsat.apps.solve import solve
from pegsat.deadline import Deadline
from pegsat.engine.bitboard import engine, replay_plan
from pegsat.engine.levels import moves_from as _moves
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, single_vacancy
from pegsat.model.result import Status
from pegsat.planners.moves import Search, fewest_over_vacancies, survivor_distances
from pegsat.proofs.prove import prove_moves

T5 = get_board("triangle-5")
ENGLISH = get_board("english")


# --- Merson regions -----------------------------------------------------------------------

def test_english_regions():
    names = ENGLISH.names
    fam = [merson.describe(ENGLISH, r) for r in merson.region_family(ENGLISH)]
    assert fam[:8] == ["c1", "e1", "a3", "g3", "a5", "g5", "c7", "e7"]
    assert "c2 b3 c3" in fam and len(fam) == 12
    assert not is_region(ENGLISH, 1 << names.index("d1"))
    for r in merson.minimal_regions(ENGLISH):
        assert is_region(ENGLISH, r)


def test_central_game_lower_bound_is_twelve():
    p = single_vacancy(ENGLISH, ENGLISH.centre)
    assert merson.moves_lower_bound(ENGLISH, p.start, p.goal) == 12
    assert merson.moves_lower_bound(ENGLISH, p.goal.full, p.goal) == 0


@pytest.mark.parametrize("v", sorted({min(g[h] for g in T5.symmetries) for h in range(T5.n)}))
def test_merson_bound_is_admissible_on_triangle5(v):
    """One vacancy of each orbit of the board's symmetries (the bound and the optimum are both
    invariant under them; the other vacancies repeat these games), every survivor."""
    for s in range(T5.n):
        p = single_vacancy(T5, v, Goal.survivor(T5, s))
        opt = reference_min_moves(p)
        if opt is not None:
            assert merson.moves_lower_bound(T5, p.start, p.goal) <= opt


# --- moves ----------------------------------------------------------------------------------

def test_moves_undo_each_other():
    rng = random.Random(3)
    for _ in range(30):
        pos = rng.getrandbits(ENGLISH.n)
        for q, chain in _moves(ENGLISH, pos):
            assert pos in {r for r, _ in _moves(ENGLISH, q, reverse=True)}
            cur = pos
            for k in chain:  # the chain is one peg's jumps, in play order
                cur = engine(ENGLISH).apply(cur, k)
            assert cur == q


# --- exact answers ---------------------------------------------------------------------------

def test_triangle5_matches_bells_catalogue():
    """G. I. Bell, "Solving triangular peg solitaire" (2008), table for the 15-hole board."""
    h = T5.hole
    want = {("c5", "c5"): 9, ("a1", "a1"): 10, ("a1", "c5"): 10, ("a1", "a4"): 11,
            ("a4", "a4"): 11, ("c5", "b3"): 10, ("b3", "c5"): 11}
    for (v, s), m in want.items():
        assert survivor_distances(T5, h(v))[h(s)] == m
    assert set(survivor_distances(T5, h("b3"))) == {h("c5")}  # b3 -> b3, a1, a4 impossible
    # The bidirectional search agrees pair by pair.
    for (v, s), m in want.items():
        r = solve(single_vacancy(T5, h(v), Goal.survivor(T5, h(s))), "moves")
        assert r.status is Status.SOLVED_OPTIMAL and r.moves == m and r.optimal


def test_triangle4_every_solvable_pair_needs_five():
    b = get_board("triangle-4")
    counts = [m for v in range(b.n) for m in survivor_distances(b, v).values()]
    assert counts and set(counts) == {5}


def test_fewest_over_vacancies_triangle6():
    m, v, plan = fewest_over_vacancies(get_board("triangle-6"))  # OEIS A127500
    b = get_board("triangle-6")
    assert m == 9
    assert replay_plan(single_vacancy(b, v, Goal.one_peg()), plan).moves == 9


@pytest.mark.slow
def test_fewest_over_vacancies_triangle7():
    assert fewest_over_vacancies(get_board("triangle-7"))[0] == 12


def test_english_central_game_is_eighteen_moves():
    p = single_vacancy(ENGLISH, ENGLISH.centre)
    r = solve(p, "moves")
    assert r.status is Status.SOLVED_OPTIMAL and r.moves == 18 and r.lower_bound == 18 and r.optimal
    assert "found none with 17" in r.detail
    assert replay_plan(p, r.plan).moves == 18


@pytest.mark.slow
def test_english_d4_to_d1_is_seventeen_moves():
    p = single_vacancy(ENGLISH, ENGLISH.centre, Goal.survivor(ENGLISH, ENGLISH.hole("d1")))
    r = solve(p, "moves")
    assert r.optimal and r.moves == 17


def _small_problems():
    boards = [T5, get_board("hopping-dots"), get_board("square-4x4"), get_board("triangle-4")]
    goals = st.sampled_from(["one", "at-most-2", "pattern"])
    return st.tuples(st.sampled_from(boards), st.integers(0, 1 << 30), goals)


@settings(max_examples=int(os.environ.get("PEGSAT_EXAMPLES", 40)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_small_problems())
def test_search_by_moves_agrees_with_dijkstra(case):
    board, seed, kind = case
    rng = random.Random(seed)
    start = board.full & ~(1 << rng.randrange(board.n))
    if rng.random() < 0.5:
        start &= ~(1 << rng.randrange(board.n))
    if rng.random() < 0.3:  # a sparse start, like the IPC problems
        start = rng.getrandbits(board.n) | 0b111
    if kind == "one":
        goal = Goal.one_peg()
    elif kind == "at-most-2":
        goal = Goal.at_most(2)
    else:
        # a reachable pattern: play a few random jumps
        pos, eng = start, engine(board)
        for _ in range(rng.randrange(1, 6)):
            legal = eng.legal(pos)
            if not legal:
                break
            pos = eng.apply(pos, rng.choice(legal))
        goal = Goal.pattern(board, pos)
    p = Problem(board, start, goal)
    want = reference_min_moves(p)
    r = solve(p, "moves")
    if want is None:
        assert r.status is Status.UNSOLVABLE
    else:
        assert r.status is Status.SOLVED_OPTIMAL and r.optimal and r.moves == want
    if want:  # its certificate (``proofs.bymoves``) proves the same fewest moves
        with tempfile.TemporaryDirectory() as tmp:
            c = prove_moves(p, r.plan, certificate_path=Path(tmp) / "c.json")
            assert c.status is Status.SOLVED_OPTIMAL and c.certificate["evidence"]["moves"] == want, c.detail
    if want:  # under a known bound the last level is probed, not built
        for upper in (want, want + 1):
            s = Search(p, Deadline(), upper=upper)
            best, lower, meeting = s.run()
            if upper == want:
                assert best is None and lower == want
            else:
                assert best == want
                start, plan = s.walk(meeting)
                assert start == p.start and replay_plan(p, plan).moves == want


@pytest.fixture
def whole_learning(monkeypatch):
    """Pagodas learned from every one of the recipe's playouts, however loaded the machine:
    the same pagodas every run (the recipe's seconds cap it otherwise)."""
    monkeypatch.setattr(pagoda, "LEARN_SECONDS", 600.0)


def _with_and_without_pagodas(board, v, s, upper=None):
    """The search by moves of ``v`` -> ``s`` without pagodas and cut by ``for_levels``'s:
    (its problem, the plain search, the cut one, each one's optimum)."""
    p = single_vacancy(board, board.hole(v), Goal.survivor(board, board.hole(s)))
    plain = Search(p, Deadline(), upper=upper)
    cut = Search(p, Deadline(), upper=upper, pagodas=pagoda.for_levels(p, Deadline(30)))
    assert cut.pagodas
    best, _, meeting = plain.run()
    fewest = cut.run()[0]
    _inside(p, cut, plain, meeting)
    return p, best, fewest


def _inside(p, cut, plain, meeting):
    """The cut search holds fewer positions, and each position of the plain search's plan
    in its level: no position of a plan is cut, and each stays at its depth (a position that
    can reach no goal may be kept a level late, where the plain search has it earlier)."""
    assert sum(map(sum, cut.sizes().values())) < sum(map(sum, plain.sizes().values()))
    if meeting is None:  # no plan: both searches ran dry
        return
    _, plan = plain.walk(meeting)
    k, eng = cut.levels.kernel, engine(p.board)
    pos, last, depth = p.start, None, 0
    for j in plan:
        a, _, c = p.board.jumps[j]
        if a != last:  # a move begins at ``pos``, ``depth`` moves from the start
            if depth < len(cut.fwd):
                assert k.member(cut.fwd[depth], k.canon(k.array([pos])))[0], depth
            depth += 1
        pos, last = eng.apply(pos, j), c


@pytest.mark.usefixtures("whole_learning")
@pytest.mark.parametrize("v,s", [("a1", "a1"), ("a2", "c3"), ("b3", "c5"), ("a1", "c5"), ("c3", "a3")])
def test_pagodas_cut_positions_and_keep_the_fewest_moves(v, s):
    """Differential: with and without the pagodas of ``analysis.pagoda.for_levels``, the
    same fewest moves, Dijkstra's; fewer positions, the plan's each at its depth."""
    p, best, fewest = _with_and_without_pagodas(T5, v, s)
    assert best == fewest == reference_min_moves(p)


@pytest.mark.slow  # 27 s (Dijkstra's)
@pytest.mark.usefixtures("whole_learning")
def test_pagodas_cut_triangle_6_as_brute_force_says():
    """Triangle-6 (21 holes): the optimum with pagodas is Dijkstra's, with far fewer
    positions."""
    p, best, fewest = _with_and_without_pagodas(get_board("triangle-6"), "a1", "a1")
    assert best == fewest == reference_min_moves(p)


@pytest.mark.slow  # 15 s
@pytest.mark.usefixtures("whole_learning")
@pytest.mark.parametrize("v,s,moves", [("d4", "d1", 17), ("d1", "d1", 18)])
def test_pagodas_cut_english_levels_and_keep_the_optimum(v, s, moves):
    _, best, fewest = _with_and_without_pagodas(ENGLISH, v, s)
    assert best == fewest == moves


@pytest.mark.parametrize("vacancy", ["a1", "b2", "c3", "c5"])
def test_the_beam_bound_keeps_the_optimum(vacancy, monkeypatch):
    """Past a level of QUICK_LEVEL positions the search takes its bound from a beam (here a
    narrow one, from the first level on): the plan it finds is valid, and the optimum under
    that bound is the one Dijkstra finds."""
    from pegsat.planners import moves

    p = single_vacancy(T5, T5.hole(vacancy), Goal.one_peg())
    want = reference_min_moves(p)
    for fewest in (True, False):
        s = Search(p, Deadline())
        found = s.beam(width=3, fewest_pegs=fewest)
        if found is not None:
            start, plan = s.walk(*found)
            assert start == p.start and replay_plan(p, plan).moves >= want
    monkeypatch.setattr(moves, "QUICK_LEVEL", 1)
    monkeypatch.setattr(moves, "BEAM", 2)
    r = solve(p, "moves")
    assert r.status is Status.SOLVED_OPTIMAL and r.moves == want == r.lower_bound
    assert replay_plan(p, r.plan).moves == want


def test_the_first_plan_of_several_widths_stops_at_a_lower_bound(monkeypatch):
    """A search on disk's first plan tries every width and guide, keeping the fewest moves,
    unless a plan already has as few as the lower bound allows: then it stops there."""
    from pegsat.planners import moves
    from pegsat.planners.config import Config

    p = single_vacancy(ENGLISH, ENGLISH.hole("d4"), Goal.survivor(ENGLISH, ENGLISH.hole("d4")))
    widths = []
    beam = Search.beam

    def counted(self, width, fewest_pegs=True):
        widths.append((width, fewest_pegs))
        return beam(self, width, fewest_pegs)

    monkeypatch.setattr(Search, "beam", counted)
    for lower, tries in ((0, 4), (99, 1)):
        widths.clear()
        search = Search(p, Deadline())
        search.warm(10_000)
        first, bound = moves.first_plan(search, Deadline(), Config(), widths=(2000, 5000), lower=lower)
        assert len(widths) == tries
        assert first is not None and replay_plan(p, first.plan).moves == bound >= 18


def test_a_beam_that_drops_no_position_is_the_only_one_tried(monkeypatch):
    """A beam whose levels all fit its width is the breadth-first search: the other guide and
    every wider beam would find the same plan, so the first plan stops there."""
    from pegsat.planners import moves
    from pegsat.planners.config import Config

    t5 = get_board("triangle-5")
    p = single_vacancy(t5, t5.hole("a1"), Goal.survivor(t5, t5.hole("a1")))
    tried = []
    beam = Search.beam

    def counted(self, width, fewest_pegs=True):
        found = beam(self, width, fewest_pegs)
        tried.append(self.narrowed)
        return found

    monkeypatch.setattr(Search, "beam", counted)
    for widths, want in (((20_000, 50_000), [False]), ((3, 20_000), [True, True, False])):
        tried.clear()
        search = Search(p, Deadline())
        first, bound = moves.first_plan(search, Deadline(), Config(), widths=widths)
        assert tried == want and first is not None and replay_plan(p, first.plan).moves == bound


def test_a_timeout_is_never_a_proof():
    p = single_vacancy(get_board("german"), get_board("german").centre)
    r = solve(p, "moves", deadline=Deadline(1.0))
    assert r.status in (Status.UNKNOWN, Status.SOLVED)
    assert r.proof is None and not r.optimal
    assert r.lower_bound is not None and r.lower_bound >= 16  # the Merson bound at least


def test_search_upper_bound_stops_early():
    p = single_vacancy(T5, T5.hole("c5"))
    s = Search(p, Deadline(), upper=9)
    best, lower, _ = s.run()
    assert best is None and lower == 9  # nothing with 8 moves: the known 9 is optimal


def is_region(board, region: int) -> bool:
    """Merson's definition, checked directly: a line whose middle is in the region has an end in it."""
    return all(not region >> b & 1 or region >> a & 1 or region >> c & 1 for a, b, c in board.lines)


def test_compact_reorders_a_plan_into_fewer_moves_to_the_same_end():
    """``compact``: jumps sharing no hole commute, so the reordered plan replays from the
    same start to the same end; a German e2 -> e2 plan of 39 moves (the depth-first search's
    first) comes back with at most 29 (27 at a beam of 1000), and a plan of the fewest moves
    keeps its count."""
    from pegsat.engine.bitboard import count_moves, replay
    from pegsat.formats.notation import parse_plan
    from pegsat.planners.moves import compact

    b = get_board("german")
    p = single_vacancy(b, b.hole("e2"), Goal.survivor(b, b.hole("e2")))
    text = ("e4-e2 c4-e4 d6-d4 d8-d6 f7-d7 f9-f7 e9-e7 d6-d8 d9-d7 e5-e3 g4-e4 i4-g4 f2-f4 b6-d6 a4-c4 f4-h4 "
            "i6-i4 d4-b4 i4-g4 h6-h4-f4 a6-a4 g5-e5 a4-c4 d6-d8 e6-e8 d8-f8 g6-e6 f8-f6-d6 b5-d5 d6-d4 d2-f2 "
            "f1-f3 d1-f1 d4-d2 f4-f2 f1-f3-d3 d2-d4 e5-e3 c4-e4-e2")
    plan = replay(p, parse_plan(b, text)).plan
    assert count_moves(b, plan) == 39
    short = compact(b, plan)
    got = replay_plan(p, short)
    assert sorted(short) == sorted(plan) and got.moves == count_moves(b, short) <= 29
    assert replay_plan(p, compact(b, plan, 1000)).moves <= 27
    e = get_board("english")
    central = single_vacancy(e, e.hole("d4"), Goal.survivor(e, e.hole("d4")))
    best = solve(central, "moves", deadline=Deadline(120))
    assert best.plan is not None
    assert count_moves(e, compact(e, best.plan)) == count_moves(e, best.plan) == 18
    assert compact(e, best.plan, 1) == tuple(best.plan)  # a narrow beam: never worse than the plan


def test_a_level_search_says_each_level_to_whoever_listens(monkeypatch):
    """Progress: each level finished, its positions and the moves proven so far, heard by the
    ``reporting`` block's listener only (after ``QUIET_S``: a quick run stays silent)."""
    from pegsat import progress
    from pegsat.deadline import Deadline
    from pegsat.model.catalogue import get_board
    from pegsat.model.problem import Goal, single_vacancy
    from pegsat.planners import moves
    from pegsat.planners.config import Config

    b = get_board("triangle-6")
    p = single_vacancy(b, b.hole("a1"), Goal.survivor(b, b.hole("a1")))
    lines: list[str] = []
    with progress.reporting(lines.append):
        moves.solve(p, Deadline(), Config())
    assert lines == []  # under a second: silent
    monkeypatch.setattr(progress, "QUIET_S", 0.0)
    with progress.reporting(lines.append):
        r = moves.solve(p, Deadline(), Config())
    assert any("level 1 by moves:" in line and "proven >= " in line for line in lines), lines
    assert all(line.endswith(" s)") for line in lines)
    lines.clear()
    moves.solve(p, Deadline(), Config())  # nobody listening: nothing said
    assert lines == [] and r.plan is not None
