"""One game searched depth-first: the quick descent, the pagodas, then ``engine.drive``.

A game may be searched in several turns (``planners.turns``): its ``State`` — its dead table
and its pagodas — carries over, so a later turn resumes where the last one stopped.

- **a quick descent** of ``QUICK`` nodes in this process, far-first, before anything else:
  most English and French problems end there, before the LP and the threads would cost more
  than the search;
- **pagodas**: integer pagodas for the game's goal learned by LP from randomly played
  positions (``analysis.pagoda.learn_for``); on a goal of one peg anywhere each is weighed
  against each survivor the position classes allow (``analysis.pagoda.survivors_of``);
- **restarts, lanes and a portfolio** of threads sharing the table (``engine.drive``).

A special peg, or a board of more than 128 holes, goes to the pure-Python reference
(``engine.reference.depth_first``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..analysis import pagoda
from ..deadline import Deadline, Timeout
from ..engine import dfs as D
from ..engine import reference
from ..engine.drive import Answer, Outcome, descend, portfolio, table_bits
from ..engine.kernel import MAX_HOLES, words
from ..model.problem import Problem
from ..model.result import Proof, Result, Stats, Status, summed
from .config import Config

NAME = "search"
QUICK = 200_000  # nodes of the first descent, in process, without pagodas


@dataclass
class State:
    """What a game keeps between its turns."""

    table: np.ndarray | None = None  # its dead positions
    pagodas: list[D.Pagoda] | None = None  # learned once
    smaller: int = 0  # halve the table this many times (many games share the memory)


def whole(problem: Problem, deadline: Deadline, config: Config, state: State | None = None) -> Result:
    """The game searched until a plan, a proof (exhausted) or the deadline."""
    t0 = time.perf_counter()
    if problem.special is not None or problem.board.n > MAX_HOLES:
        return _reference(problem, deadline, t0)
    state = state or State()
    workers = max(1, config.workers)
    shared = workers > 1 and words(problem.board) == 1
    if state.table is None:  # the dead positions carry over to the game's next turn
        state.table = D.new_table(table_bits(problem) - state.smaller, words(problem.board))
    table = state.table
    # A short descent here first: its dead positions stay in the table.
    quick = D.DepthFirst(problem, table=table)
    try:
        code = quick.attempt(D.far_first(problem), QUICK, deadline.check)
    except Timeout:
        code = D.BUDGET
    learn_s = 0.0
    pagodas: list[D.Pagoda] = []
    if code == D.FOUND:
        out = Outcome(Answer.FOUND, quick.plan(), quick.stats())
    elif code == D.EXHAUSTED:
        out = Outcome(Answer.EXHAUSTED, stats=quick.stats())
    elif deadline.expired():
        out = Outcome(Answer.UNKNOWN, stats=quick.stats())
    else:
        t1 = time.perf_counter()
        survivors = pagoda.survivors_of(problem)
        if state.pagodas is None:
            learned = pagoda.learn_for(problem, deadline, survivors)
            state.pagodas = [D.Pagoda(w, floor) for w, floor in learned]
        pagodas = state.pagodas
        learn_s = time.perf_counter() - t1
        if workers == 1:
            out = descend(problem, pagodas, table, 0, deadline, survivors)
        else:
            out = portfolio(problem, pagodas, workers, deadline, table if shared else None, survivors)
        out = Outcome(out.answer, out.plan, summed(out.stats, quick.stats()), out.message)
    stats: Stats = {**out.stats, "pagodas": len(pagodas), "learn_s": round(learn_s, 3), "workers": workers,
             "solve_s": round(time.perf_counter() - t0, 3), "encode_s": 0.0}
    if out.answer is Answer.FOUND:
        return Result(Status.SOLVED, problem, NAME, plan=out.plan, stats=stats)
    if out.answer is Answer.EXHAUSTED:
        return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.EXHAUSTED, stats=stats,
                      detail="depth-first search exhausted every reachable position")
    if out.answer is Answer.ERROR:
        return Result(Status.ERROR, problem, NAME, stats=stats, detail=out.message)
    if out.answer is Answer.MEMORY:
        return Result(Status.UNKNOWN, problem, NAME, stats=stats, detail=out.message)
    return Result(Status.UNKNOWN, problem, NAME, stats=stats, detail=deadline.reason())


def _reference(problem: Problem, deadline: Deadline, t0: float) -> Result:
    """The pure-Python search: a special peg, or a board too wide for the core."""
    group = () if problem.special is not None else D.goal_group(problem)
    try:
        plan, counted = reference.depth_first(problem, deadline, D.far_first(problem), group)
    except Timeout:
        return Result(Status.UNKNOWN, problem, NAME, detail=deadline.reason(),
                      stats={"engine": "reference", "solve_s": round(time.perf_counter() - t0, 3)})
    stats: Stats = {**counted, "engine": "reference", "solve_s": round(time.perf_counter() - t0, 3),
                    "encode_s": 0.0}
    if plan is None:
        return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.EXHAUSTED, stats=stats,
                      detail="depth-first search exhausted every reachable position")
    return Result(Status.SOLVED, problem, NAME, plan=plan, stats=stats)
