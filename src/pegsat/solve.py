"""Solving a problem: cheap proofs first, open goals split, every plan verified.

The pipeline, cheapest first:

1. the start already satisfies the goal: the empty plan;
2. counting: no legal jump at all from the start;
3. position classes (``invariants``): an exact goal pattern in another class than the start
   is impossible; for a one-peg goal only the holes in the start's class can be survivors;
4. a one-peg goal that leaves the survivor's hole open is split into one fixed-goal
   subproblem per possible survivor, one per orbit of the symmetries fixing the start (a
   SAT solver given "one peg anywhere" on the English board did not finish in 5 minutes,
   the same game with the hole fixed takes a fraction of a second), vacated holes first;
5. the chosen backend on each subproblem, under one shared deadline.

Whatever a backend returns is replayed by the verifier before it leaves this module; a plan
that does not replay becomes an ERROR result, never a solution.
"""

from __future__ import annotations

import time
from dataclasses import replace

from .bitboard import engine, replay_plan, stabilizer
from .errors import PlanError
from .invariants import possible_survivors, separating_weight
from .planners import get_planner
from .planners.base import Config, Deadline, Proof, Result, Status
from .problem import Goal, Problem, holes_of


def solve(problem: Problem, planner: str = "auto", config: Config | None = None) -> Result:
    config = config or Config()
    t0 = time.perf_counter()
    backend = get_planner(planner)
    result = _solve(problem, planner, backend, Deadline(config.time_limit), config)
    result = _verified(result, problem)
    stats = dict(result.stats, total_s=time.perf_counter() - t0)
    return replace(result, stats=stats)


def _solve(problem: Problem, name: str, backend, deadline: Deadline, config: Config) -> Result:
    board, goal, start = problem.board, problem.goal, problem.start
    if 0 in problem.horizons and goal.satisfied(start):
        return Result(Status.SOLVED, problem, name, plan=(), detail="the start satisfies the goal",
                      lower_bound=0 if getattr(backend, "MIN_MOVES", False) else None)
    if not _any_jump(problem):
        return Result(Status.UNSOLVABLE, problem, name, proof=Proof.COUNTING,
                      detail="no jump is possible from the start")
    if goal.full | goal.empty == board.full:
        w = separating_weight(board, start, goal.full)
        if w is not None:
            return Result(Status.UNSOLVABLE, problem, name, proof=Proof.INVARIANT,
                          detail=_class_detail(problem, w.weights))
    if goal.fixed_count == 1 and not goal.full:
        return _split_survivors(problem, name, backend, deadline, config)
    return backend.solve(problem, deadline, config)


def _any_jump(problem: Problem) -> bool:
    legal = engine(problem.board).legal(problem.start)
    if problem.special is not None:
        legal = [k for k in legal if problem.board.jumps[k][1] != problem.special]
    return bool(legal)


def _class_detail(problem: Problem, weights: int) -> str:
    names = problem.board.names
    return ("position classes: the weighting on " + " ".join(names[h] for h in holes_of(weights))
            + " is even on every line and has different parity at start and goal")


def survivor_candidates(problem: Problem) -> tuple[list[int], list[int]]:
    """(orbit representatives to try, holes ruled out by the class invariant)."""
    board = problem.board
    allowed = board.full & ~problem.goal.empty
    cands = possible_survivors(board, problem.start, allowed)
    ruled_out = [h for h in holes_of(allowed) if h not in cands]
    group = stabilizer(problem)  # the goal names no full hole here
    reps = [h for h in cands if min(p[h] for p in group) == h]
    vacated = board.full & ~problem.start
    reps.sort(key=lambda h: (not vacated >> h & 1, h))
    return reps, ruled_out


def _split_survivors(problem: Problem, name: str, backend, deadline: Deadline, config: Config) -> Result:
    board = problem.board
    reps, ruled_out = survivor_candidates(problem)
    if not reps:
        return Result(Status.UNSOLVABLE, problem, name, proof=Proof.INVARIANT,
                      detail="position classes: no hole is in the start's class")
    if getattr(backend, "covers_open_goal", lambda p: False)(problem):
        return backend.solve(problem, deadline, config)
    totals = {"encode_s": 0.0, "solve_s": 0.0, "subproblems": 0}
    unknown = []
    refuted = []
    for h in reps:
        sub = replace(problem, goal=Goal(full=1 << h, empty=board.full & ~(1 << h), min_pegs=1, max_pegs=1))
        r = backend.solve(sub, deadline, config)
        totals["subproblems"] += 1
        totals["encode_s"] += r.stats.get("encode_s", 0.0)
        totals["solve_s"] += r.stats.get("solve_s", 0.0)
        if r.status is Status.SOLVED:
            return replace(r, problem=problem, stats={**r.stats, **totals, "survivor": board.names[h]})
        if r.status is Status.UNSOLVABLE:
            refuted.append(board.names[h])
        elif r.status is Status.ERROR:
            return replace(r, problem=problem, stats={**r.stats, **totals})
        else:
            unknown.append(board.names[h])
    if unknown:
        return Result(Status.UNKNOWN, problem, name, stats=totals,
                      detail=f"survivor undecided at {' '.join(unknown)} (time limit)"
                      + (f"; refuted {' '.join(refuted)}" if refuted else ""))
    return Result(Status.UNSOLVABLE, problem, name, proof=Proof.SPLIT, stats=totals,
                  detail=f"{len(ruled_out)} holes ruled out by position classes; survivors "
                  f"{' '.join(refuted)} (up to symmetry) refuted by {name}")


def _verified(result: Result, problem: Problem) -> Result:
    if result.plan is None:
        return replace(result, problem=problem)
    try:
        rep = replay_plan(problem, result.plan)
    except PlanError as exc:
        return Result(Status.ERROR, problem, result.planner, stats=result.stats,
                      detail=f"{result.planner} returned a plan that does not replay: {exc}")
    return replace(result, problem=problem, moves=rep.moves)
