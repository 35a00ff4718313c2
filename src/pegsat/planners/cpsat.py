"""CP-SAT planner: the same time-indexed formula as an OR-Tools CP-SAT model.

Clauses become ``AddBoolOr``; the cardinality groups are posted natively
(``AddExactlyOne``, ``AddAtMostOne``, linear bounds on the final peg count) instead of a
CNF encoding. One model covers every plan length, so there is no horizon loop. Like the SAT
planner, it first tries short parallel horizons with small budgets (``horizon_schedule``);
only the full horizon can prove infeasibility. ``--workers`` sets CP-SAT's portfolio size.

The deadline is CP-SAT's own time limit, and a solution callback polls the deadline's stop
condition so a race can end it early; Ctrl-C reaches CP-SAT through its ``StopSearch``.
"""

from __future__ import annotations

import time
from typing import Any

from ..deadline import Deadline
from ..encoding.encoder import Formula, encode
from ..model.problem import Problem
from ..model.result import Proof, Result, Stats, Status
from .config import Config, any_problem, horizon_schedule, learned_pagodas, split_open_goals

NAME = "cpsat"
OPTIMAL = False  # its plans are not proven to have the fewest moves
supports = any_problem
covers_open_goal = split_open_goals


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    """The formula as a CP-SAT model, solved on ``config.workers`` workers."""
    from ortools.sat.python import cp_model

    stats: Stats = {"encode_s": 0.0, "solve_s": 0.0, "attempts": []}
    pagodas = learned_pagodas(problem, config, deadline)
    refuted = 0  # the longest short horizon found infeasible: no shorter one has a plan either
    for steps, budget, seed in horizon_schedule(problem, config):
        if steps is not None and steps <= refuted:
            continue
        t0 = time.perf_counter()
        f = encode(problem, config.encode, steps=steps, pagodas=pagodas)
        model, xs = _model(f)
        stats["encode_s"] += time.perf_counter() - t0
        stats.update({"variables": f.pool.top, "clauses": len(f.clauses), "horizon": f.horizon})
        stats["attempts"].append(f.horizon)

        solver = cp_model.CpSolver()
        solver.parameters.num_workers = max(1, config.workers)
        solver.parameters.random_seed = seed
        solver.parameters.catch_sigint_signal = False  # Ctrl-C is ours (see _solve_interruptibly)
        limit = (deadline if budget is None else deadline.within(budget)).remaining()
        if limit is not None:
            solver.parameters.max_time_in_seconds = max(0.01, limit)
        t1 = time.perf_counter()
        status = _solve_interruptibly(solver, model, deadline)
        stats["solve_s"] += time.perf_counter() - t1
        stats["workers"] = solver.parameters.num_workers
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            true_vars = {v for v in range(1, f.pool.top + 1) if solver.boolean_value(xs[v])}
            return Result(Status.SOLVED, problem, NAME, plan=f.decode(true_vars), stats=stats)
        if steps is not None:  # a short horizon proves nothing either way
            if status == cp_model.INFEASIBLE:
                refuted = max(refuted, steps)
            if deadline.expired():
                return Result(Status.UNKNOWN, problem, NAME, detail="time limit reached", stats=stats)
            continue
        if status == cp_model.INFEASIBLE:
            return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.CP_INFEASIBLE,
                          detail="CP-SAT proved the model infeasible", stats=stats)
        if status == cp_model.UNKNOWN:
            return Result(Status.UNKNOWN, problem, NAME, detail="time limit reached", stats=stats)
        return Result(Status.ERROR, problem, NAME,
                      detail=f"CP-SAT status {solver.status_name(status)}", stats=stats)
    raise AssertionError("the schedule always ends with the full horizon")


def _solve_interruptibly(solver, model, deadline: Deadline) -> int:
    """``solver.Solve`` in a helper thread, so that Ctrl-C in the main thread or the deadline's
    stop condition ends it at once (``StopSearch`` stops CP-SAT within milliseconds).

    The wait is on an Event, not ``Thread.join``: a join interrupted by KeyboardInterrupt can
    mark a running thread as finished (CPython bpo-45274), and leaving while CP-SAT's threads
    run aborts the process."""
    import threading

    out: list[int] = []
    done = threading.Event()

    def run() -> None:
        try:
            out.append(solver.solve(model))
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    try:
        while not done.wait(0.05):
            if deadline.stopped():
                solver.StopSearch()
    except BaseException:
        solver.StopSearch()
        while True:  # a second Ctrl-C must not leave CP-SAT's threads running either
            try:
                done.wait()
                break
            except KeyboardInterrupt:
                continue
        raise
    return out[0]


def _model(f: Formula):
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    xs: list[Any] = [None] + [model.new_bool_var(f"v{i}") for i in range(1, f.pool.top + 1)]

    def lit(v: int):
        return xs[v] if v > 0 else xs[-v].negated()

    for cl in f.clauses:
        model.add_bool_or([lit(v) for v in cl])
    for group in f.exactly_one:
        model.add_exactly_one([lit(v) for v in group])
    for group in f.at_most_one:
        model.add_at_most_one([lit(v) for v in group])
    for lits, lo, hi in f.bounds:
        model.add_linear_constraint(sum(lit(v) for v in lits), lo, len(lits) if hi is None else hi)
    for lits, weights, low, high in f.weighted:
        total = sum(w * lit(v) for v, w in zip(lits, weights, strict=True))
        if low is not None:
            model.add(total >= low)
        if high is not None:
            model.add(total <= high)
    for lits, parity in f.xors:  # CP-SAT's XOR is true: an even parity negates one literal
        ls = [lit(v) for v in lits]
        model.add_bool_xor(ls if parity else [ls[0].negated(), *ls[1:]])
    return model, xs
