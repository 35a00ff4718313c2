"""``pegsat count``: the census against a plain reference count and the published English values."""

import json
import re
from functools import lru_cache

import pytest
from click.testing import CliRunner

from pegsat.apps.count import count, exact
from pegsat.cli import main
from pegsat.engine.bitboard import engine
from pegsat.errors import PegsatError
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, single_vacancy

# OEIS A112737: English central game, positions after n jumps up to symmetry
#: raw positions after 0, 1, 2, ... jumps of the English central game: the levels of A112737
#: without the reduction by symmetry (4 first jumps, 12 positions after two, ...)
RAW = [1, 4, 12, 60, 296, 1338, 5648, 21842, 77559]
A112737 = [1, 1, 2, 8, 39, 171, 719, 2757, 9751, 31312, 89927, 229614, 517854, 1022224, 1753737,
           2598215, 3312423, 3626632, 3413313, 2765623, 1930324, 1160977, 600372, 265865, 100565,
           32250, 8688, 1917, 348, 50, 7, 2]


def reference(problem: Problem):
    """Raw counts by plain recursion over every position (no symmetry, no compiled code)."""
    e, g = engine(problem.board), problem.goal

    @lru_cache(None)
    def winning(p):
        return int(g.satisfied(p)) + sum(winning(e.apply(p, k)) for k in e.legal(p))

    @lru_cache(None)
    def games(p):
        kids = e.legal(p)
        return 1 if not kids else sum(games(e.apply(p, k)) for k in kids)

    levels = [{problem.start}]
    while nxt := {e.apply(p, k) for p in levels[-1] for k in e.legal(p)}:
        levels.append(nxt)
    return ([len(lv) for lv in levels], [sum(1 for p in lv if winning(p)) for lv in levels],
            [sum(1 for p in lv if not e.legal(p)) for lv in levels], winning(problem.start),
            games(problem.start))


T5, T6 = get_board("triangle-5"), get_board("triangle-6")
CASES = [single_vacancy(T5, T5.hole(v)) for v in ("a1", "b2", "b3", "c3")] + [
    Problem(T5, T5.full & ~(1 << T5.hole("a1")), Goal.one_peg()),
    Problem(T5, T5.full & ~(1 << T5.hole("c3")), Goal.at_most(2)),
    single_vacancy(T6, T6.hole("a1")),
]


@pytest.mark.parametrize("problem", [pytest.param(p, marks=[pytest.mark.slow] if p.board is T6 else [])
                                     for p in CASES], ids=[p.describe() for p in CASES])
def test_census_matches_the_reference(problem):
    """Triangle-6 (7 s of brute force) under the slow marker: the five triangle-5 cases walk
    the same code in the default run."""
    c = count(problem)
    raw, alive, dead, winning, games = reference(problem)
    assert [lv.positions for lv in c.levels] == raw
    assert [lv.alive_positions for lv in c.levels] == alive
    assert [lv.dead_positions for lv in c.levels] == dead
    assert (c.winning, c.games) == (winning, games)


def test_triangle5_corner_has_29760_solutions_to_one_peg():
    c = count(Problem(T5, T5.full & ~(1 << T5.hole("a1")), Goal.one_peg()))
    assert c.winning == 29760


@pytest.mark.parametrize("true", [5, (1 << 64) - 1, 3 * (1 << 64) + 7, 577_116_156_815_309_849_672,
                                  4 * 10**26 + 123])
def test_exact_reconstruction(true):
    assert exact(true % (1 << 64), float(true) * (1 + 1e-12)) == true


def test_count_cli_json_and_refusals():
    r = CliRunner().invoke(main, ["count", "triangle-5", "--vacant", "a1", "--json", "--quiet"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["winning_sequences"] == 29760 and data["totals"]["positions"] == 3016
    r = CliRunner().invoke(main, ["count", "square-9x9", "--quiet"])
    assert r.exit_code == 2 and "at most 64 holes" in r.output
    r = CliRunner().invoke(main, ["count", "english", "--time-limit", "0.01", "--quiet"])
    assert r.exit_code == 20 and "unknown: the time limit" in r.output and "no total" in r.output


def test_count_limits_are_unknown_with_the_levels_finished(monkeypatch):
    """A time limit: exit 20, JSON status "unknown" (never "error") and the classes of every
    level finished, which are the published ones so far. (The memory budget sends the count
    out of core instead: ``tests/test_reach.py``; its own limit is still unknown there.)"""
    r = CliRunner().invoke(main, ["count", "english", "--json", "--quiet", "--time-limit", "1"])
    assert r.exit_code == 20, r.output
    data = json.loads(r.output.splitlines()[-1])
    assert data["status"] == "unknown" and "time limit" in data["message"]
    done = data["classes_per_level"]
    assert 3 <= len(done) < len(A112737) and done == A112737[:len(done)]
    raw = data["positions_per_level"]  # the raw positions, as published tables count them
    assert raw[:9] == RAW[:len(raw[:9])] and len(raw) == len(done)
    r = CliRunner().invoke(main, ["count", "english", "--quiet", "--time-limit", "1"])
    assert r.exit_code == 20 and "the levels finished before the limit" in r.output, r.output
    finished = int(re.search(r"(\d+) levels by jumps were finished", r.output).group(1))  # this run's own
    assert finished >= 3, r.output
    for k in range(min(finished, len(RAW))):  # each finished level's row: the published counts
        assert f"{k:>5}{32 - k:>5}{A112737[k]:>15,}{RAW[k]:>19,}" in r.output, r.output
    monkeypatch.setenv("PEGSAT_MEMORY_GB", "abc")
    r = CliRunner().invoke(main, ["count", "triangle-5", "--vacant", "a1", "--quiet"])
    assert r.exit_code == 2 and "PEGSAT_MEMORY_GB='abc'" in r.output and "Traceback" not in r.output


@pytest.mark.slow
def test_english_central_game_published_values():
    """A112737 by level, A112738's total, and the 40,861,647,040,079,968 solutions."""
    b = get_board("english")
    c = count(single_vacancy(b, b.hole("d4")))
    assert [lv.classes for lv in c.levels] == A112737
    assert c.total("classes") == 23_475_688
    assert c.total("alive_classes") == 1_679_072
    assert c.winning == 40_861_647_040_079_968
    assert c.games == 577_116_156_815_309_849_672
    with pytest.raises(PegsatError):
        exact(0, 1e30)


def test_regenerating_successors_gives_the_same_census(monkeypatch):
    """Levels too wide to keep their successors generate them again in the push."""
    from pegsat.apps import count as C

    p = CASES[0]
    kept = count(p)
    monkeypatch.setattr(C, "KEEP_BYTES", 0)
    again = count(p)
    assert (again.levels, again.winning, again.games) == (kept.levels, kept.winning, kept.games)


def test_self_dual_solvable_set_from_the_middle_equals_the_whole_sweep(monkeypatch):
    """A self-dual game (s(~start) = goal, s(~goal) = start) sweeps forward to the middle
    only, the rest by complements; the set must be the whole sweep's, position for position.
    Every such pair of triangle-5 (the symmetry s the identity or not), two of triangle-6."""
    import numpy as np

    import pegsat.apps.count as C

    t5, t6 = get_board("triangle-5"), get_board("triangle-6")
    cases = [single_vacancy(t5, v, Goal.survivor(t5, t)) for v in range(t5.n) for t in range(t5.n)]
    cases += [single_vacancy(t6, v, Goal.survivor(t6, v)) for v in (0, 4)]
    cases = [p for p in cases if C.mirror(p, p.goal.full) is not None]
    assert any(C.mirror(p, p.goal.full) != tuple(range(p.board.n)) for p in cases)
    for p in cases:
        fast = C.solvable(p)
        with monkeypatch.context() as m:
            m.setattr(C, "mirror", lambda problem, goal: None)
            whole = C.solvable(p)
        assert np.array_equal(fast, whole), p.describe()
