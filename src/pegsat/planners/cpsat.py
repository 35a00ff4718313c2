"""CP-SAT planner: the same time-indexed formula as an OR-Tools CP-SAT model.

Clauses become ``AddBoolOr``; the cardinality groups are posted natively
(``AddExactlyOne``, ``AddAtMostOne``, linear bounds on the final peg count) instead of a
CNF encoding. One model covers every plan length, so there is no horizon loop.
``--workers`` sets CP-SAT's portfolio size; the time limit is CP-SAT's own.
"""

from __future__ import annotations

import time
from typing import Any

from ..encoder import encode
from ..problem import Problem
from .base import Config, Deadline, Proof, Result, Status

NAME = "cpsat"


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    f = encode(problem, config.encode)
    model = cp_model.CpModel()
    xs = [None] + [model.NewBoolVar(f"v{i}") for i in range(1, f.pool.top + 1)]

    def lit(v: int):
        return xs[v] if v > 0 else xs[-v].Not()

    for cl in f.clauses:
        model.AddBoolOr([lit(v) for v in cl])
    for group in f.exactly_one:
        model.AddExactlyOne([lit(v) for v in group])
    for group in f.at_most_one:
        model.AddAtMostOne([lit(v) for v in group])
    for lits, lo, hi in f.bounds:
        model.AddLinearConstraint(sum(lit(v) for v in lits), lo, len(lits) if hi is None else hi)
    encode_s = time.perf_counter() - t0

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = max(1, config.workers)
    remaining = deadline.remaining()
    if remaining is not None:
        solver.parameters.max_time_in_seconds = max(0.01, remaining)
    t1 = time.perf_counter()
    status = solver.Solve(model)
    stats: dict[str, Any] = {
        "encode_s": encode_s,
        "solve_s": time.perf_counter() - t1,
        "variables": f.pool.top,
        "clauses": len(f.clauses),
        "horizon": f.horizon,
        "workers": solver.parameters.num_workers,
    }
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        true_vars = {v for v in range(1, f.pool.top + 1) if solver.BooleanValue(xs[v])}
        return Result(Status.SOLVED, problem, NAME, plan=f.decode(true_vars), stats=stats)
    if status == cp_model.INFEASIBLE:
        return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.CP_INFEASIBLE,
                      detail="CP-SAT proved the model infeasible", stats=stats)
    if status == cp_model.UNKNOWN:
        return Result(Status.UNKNOWN, problem, NAME, detail="time limit reached", stats=stats)
    return Result(Status.ERROR, problem, NAME, detail=f"CP-SAT status {solver.StatusName(status)}",
                  stats=stats)
