"""Pagoda functions (``analysis.pagoda``): the LPs posed on one stored model per goal, and the
searches' learning kept for the process only when every playout ran."""

import random

from pegsat.analysis import pagoda
from pegsat.deadline import Deadline
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, single_vacancy

ENGLISH = get_board("english")


def _reference(problem: Problem):
    """The LP of ``find``'s docstring posed afresh through OR-Tools' own expressions."""
    from ortools.linear_solver import pywraplp

    board, g = problem.board, problem.goal
    lp = pywraplp.Solver.CreateSolver("GLOP")
    one_peg = g.fixed_count == 1 and not g.full
    free = set(pagoda.holes_of(board.full & ~(g.full | g.empty)))
    w = [lp.NumVar(0.0 if (h in free and not one_peg) else -1.0, 1.0, f"w{h}") for h in range(board.n)]
    for a, b, c in board.jumps:
        lp.Add(w[c] <= w[a] + w[b])
    start = sum(w[h] for h in pagoda.holes_of(problem.start))
    if one_peg:
        t = lp.NumVar(-1.0, 1.0, "t")
        for h in pagoda.holes_of(board.full & ~g.empty):
            lp.Add(t <= w[h])
        lp.Maximize(t - start)
    else:
        lp.Maximize(sum(w[h] for h in pagoda.holes_of(g.full)) - start)
    return lp.Solve() == pywraplp.Solver.OPTIMAL and lp.Objective().Value() > 1e-9


def test_the_stored_model_answers_as_a_fresh_one_whatever_came_before():
    """Random positions to a pattern, to one peg on a hole, to one peg anywhere: ``find`` has a
    certificate exactly where the LP posed afresh has an optimum above zero (rounding aside),
    each certificate checks exactly, and asking again after other goals gives the same one."""
    rng = random.Random(3)
    goals = [Goal.survivor(ENGLISH, ENGLISH.hole("d4")), Goal.one_peg(),
             Goal.pattern(ENGLISH, sum(1 << ENGLISH.hole(h) for h in ("c3", "e5", "d1")))]
    first = {}
    for _ in range(2):
        for k in range(30):
            pos = rng.getrandbits(ENGLISH.n) & ENGLISH.full
            for g in goals:
                p = Problem(ENGLISH, pos, g)
                w = pagoda.find(p)
                if w is not None:
                    assert pagoda.check(p, w) is None and _reference(p)
                first.setdefault((k, g), w)
                assert first[(k, g)] == w or first[(k, g)] is None
        rng = random.Random(3)
    assert sum(v is not None for v in first.values()) > 10


def test_learning_is_kept_only_when_every_playout_ran(monkeypatch):
    p = single_vacancy(ENGLISH, ENGLISH.hole("c1"), Goal.survivor(ENGLISH, ENGLISH.hole("d4")))
    pagoda._learned.clear()
    assert pagoda.learn_for(p, Deadline(stop=lambda: True)) == [] and not pagoda._learned  # cut short
    whole = pagoda.learn(p, pagoda.LEARN_SAMPLES, random.Random(pagoda.LEARN_SEED))
    monkeypatch.setattr(pagoda, "LEARN_SECONDS", 600.0)
    assert pagoda.learn_for(p, Deadline()) == whole and len(pagoda._learned) == 1
    monkeypatch.setattr(pagoda, "learn", lambda *a, **k: [])  # kept: not learned again
    assert pagoda.learn_for(p, Deadline()) == whole
    monkeypatch.setattr(pagoda, "LEARN_SAMPLES", 3)  # another recipe: learned again
    assert pagoda.learn_for(p, Deadline()) == []
