"""``beam``: beam search by jumps toward exact backward levels (``engine.beam``).

Beams of doubling width (25,000 positions, then 50,000, ...), each with its own random
tie-breaking, until a plan or the deadline. Incomplete by design: it never answers
"unsolvable", only a plan or "unknown". The ``search`` planner gives it a turn beside its
depth-first games on the larger boards; alone it is for the problems a depth-first search
drowns in (German e2 -> e2, d1 -> a4: a plan in 3-12 s, where the depth-first search had
none after 150-400 s).
"""

from __future__ import annotations

import time

from ..analysis import pagoda
from ..deadline import Deadline
from ..engine.beam import Ladder
from ..engine.dfs import Pagoda
from ..engine.kernel import MAX_HOLES
from ..model.problem import Problem
from ..model.result import Result, Stats, Status
from .config import Config

NAME = "beam"
OPTIMAL = False  # its plans are not proven to have the fewest moves


def supports(problem: Problem) -> str | None:
    """None, or why the beam cannot take the problem."""
    if problem.special is not None:
        return "a special peg is not supported; use --planner search"
    if problem.board.n > MAX_HOLES:
        return f"board {problem.board.name} has {problem.board.n} holes; at most {MAX_HOLES}"
    return None


def covers_open_goal(problem: Problem) -> bool:
    """Its backward levels start from every goal position at once."""
    return True


def pagodas_for(problem: Problem, deadline: Deadline) -> list[Pagoda]:
    """Integer pagodas for the problem's goal, learned from random play (``pagoda.learn_for``)."""
    return [Pagoda(w, floor) for w, floor in pagoda.learn_for(problem, deadline)]


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    """Beams of doubling width: a plan, or unknown (never a proof)."""
    t0 = time.perf_counter()
    ladder = Ladder(problem, pagodas_for(problem, deadline))
    found = ladder.run(deadline)
    stats: Stats = {"beam_width": ladder.width, "beams": ladder.seed + (found is not None),
             "pagodas": len(ladder.pagodas), "solve_s": round(time.perf_counter() - t0, 3), "encode_s": 0.0}
    if found is not None:
        return Result(Status.SOLVED, problem, NAME, plan=found[1], stats=stats,
                      detail=f"plan from a beam of {ladder.width} positions")
    why = (f"every beam up to {ladder.width // 2} positions died out" if ladder.spent
           else "time limit reached")
    return Result(Status.UNKNOWN, problem, NAME, stats=stats, detail=f"{why} (a beam proves nothing)")
