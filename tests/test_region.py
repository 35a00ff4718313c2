"""Regions around a partial goal (model.region) and the search's use of them."""

import pytest
from conftest import invasion

from pegsat.apps.solve import solve
from pegsat.deadline import Deadline
from pegsat.engine.bitboard import replay_plan
from pegsat.model import region
from pegsat.model.lattice import board_from_cells
from pegsat.model.problem import Goal, Problem, holes_of
from pegsat.model.result import Status
from pegsat.planners import game, search
from pegsat.planners.config import Config


def soldiers(width: int, field: int, empty: int, reach: int) -> Problem:
    """Conway's soldiers on a finite board: ``field`` full rows under ``empty`` empty ones;
    the goal is a peg ``reach`` rows above the field, in the middle column."""
    rows = field + empty
    board = board_from_cells("soldiers", "square", [(r, c) for r in range(rows) for c in range(width)])
    at = {rc: h for h, rc in enumerate(board.coords)}
    start = sum(1 << at[(r, c)] for r in range(empty, rows) for c in range(width))
    target = at[(empty - reach, width // 2)]
    return Problem(board, start, Goal(full=1 << target))


def test_distances_are_manhattan_on_a_square_board():
    p = soldiers(7, 4, 4, 2)
    at = {rc: h for h, rc in enumerate(p.board.coords)}
    d = region.distances(p.board, [at[(2, 3)]])
    assert all(d[h] == abs(r - 2) + abs(c - 3) for (r, c), h in at.items())


def test_a_region_keeps_the_goal_and_its_plans_lift_to_the_board():
    p = soldiers(9, 6, 5, 3)  # 99 holes
    assert region.applies(p)
    regs = list(region.regions(p, 128))
    assert [r.radius for r in regs] == sorted(r.radius for r in regs)
    for reg in regs:
        sub = reg.problem
        assert sub.board.n < p.board.n
        assert [reg.holes[h] for h in holes_of(sub.goal.full)] == holes_of(p.goal.full)
        assert all(reg.holes[h] in holes_of(p.start) for h in holes_of(sub.start))
    reg = regs[-1]
    r = search.solve(reg.problem, Deadline(30), Config(workers=1))
    assert r.status is Status.SOLVED
    replay_plan(p, reg.lift(r.plan, p.board))  # raises if the lifted plan is not legal on the board


@pytest.mark.parametrize("goal", [Goal.one_peg(), Goal(full=1, max_pegs=5)])
def test_goals_that_count_pegs_get_no_region(goal):
    p = soldiers(5, 3, 3, 1)
    assert not region.applies(Problem(p.board, p.start, goal))


def test_search_finds_the_plan_on_a_region():
    p = soldiers(9, 6, 5, 3)
    r = solve(p, "search", deadline=Deadline(60))
    assert r.status is Status.SOLVED and "within" in r.detail, r.detail
    assert r.stats["region_holes"] < p.board.n


def test_a_region_without_a_plan_is_never_reported(monkeypatch):
    """Regions that end "unsolvable" leave the question to the whole board."""
    p = soldiers(9, 6, 5, 3)
    calls = []
    real = game.whole

    def whole(problem, deadline, config):
        calls.append(problem.board.n)
        if problem.board.n < p.board.n:
            from pegsat.model.result import Result
            return Result(Status.UNSOLVABLE, problem, "search")
        return real(problem, deadline, config)

    monkeypatch.setattr(game, "whole", whole)
    r = search.solve(p, Deadline(60), Config(workers=1))
    assert calls[-1] == p.board.n and len(calls) > 1
    assert r.status is Status.SOLVED and r.problem is p


@pytest.mark.slow
@pytest.mark.parametrize("n", range(1, 6))
def test_row5_solvable_problems(n):
    """The 2016 unsolvability track's row5 solvable problems (176-300 holes): reach row 4."""
    p = invasion(10 + n, 4)
    r = solve(p, "auto", deadline=Deadline(60))
    assert r.status is Status.SOLVED, r.detail
