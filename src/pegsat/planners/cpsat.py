"""CP-SAT planner: the same time-indexed formula as an OR-Tools CP-SAT model.

Clauses become ``AddBoolOr``; the cardinality groups are posted natively
(``AddExactlyOne``, ``AddAtMostOne``, linear bounds on the final peg count) instead of a
CNF encoding. One model covers every plan length, so there is no horizon loop. Like the SAT
planner, it first tries short parallel horizons with small budgets (``horizon_schedule``);
only the full horizon can prove infeasibility. ``--workers`` sets CP-SAT's portfolio size;
the time limit is CP-SAT's own.
"""

from __future__ import annotations

import time
from typing import Any

from ..encoder import Formula, encode
from ..problem import Problem
from .base import Config, Deadline, Proof, Result, Status, horizon_schedule

NAME = "cpsat"


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    from ortools.sat.python import cp_model

    stats: dict[str, Any] = {"encode_s": 0.0, "solve_s": 0.0, "attempts": []}
    for steps, budget in horizon_schedule(problem, config):
        t0 = time.perf_counter()
        f = encode(problem, config.encode, steps=steps)
        model, xs = _model(f)
        stats["encode_s"] += time.perf_counter() - t0
        stats.update(variables=f.pool.top, clauses=len(f.clauses), horizon=f.horizon)
        stats["attempts"].append(f.horizon)

        solver = cp_model.CpSolver()
        solver.parameters.num_workers = max(1, config.workers)
        limits = [x for x in (deadline.remaining(), budget) if x is not None]
        if limits:
            solver.parameters.max_time_in_seconds = max(0.01, min(limits))
        t1 = time.perf_counter()
        status = solver.Solve(model)
        stats["solve_s"] += time.perf_counter() - t1
        stats["workers"] = solver.parameters.num_workers
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            true_vars = {v for v in range(1, f.pool.top + 1) if solver.BooleanValue(xs[v])}
            return Result(Status.SOLVED, problem, NAME, plan=f.decode(true_vars), stats=stats)
        if steps is not None:  # a short horizon proves nothing either way
            if deadline.expired():
                return Result(Status.UNKNOWN, problem, NAME, detail="time limit reached", stats=stats)
            continue
        if status == cp_model.INFEASIBLE:
            return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.CP_INFEASIBLE,
                          detail="CP-SAT proved the model infeasible", stats=stats)
        if status == cp_model.UNKNOWN:
            return Result(Status.UNKNOWN, problem, NAME, detail="time limit reached", stats=stats)
        return Result(Status.ERROR, problem, NAME,
                      detail=f"CP-SAT status {solver.StatusName(status)}", stats=stats)
    raise AssertionError("the schedule always ends with the full horizon")


def _model(f: Formula):
    from ortools.sat.python import cp_model

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
    return model, xs
