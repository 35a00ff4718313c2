"""``auto``: exhaustive search on small boards; on larger ones a race of three planners.

Up to ``SEARCH_MAX_HOLES`` holes the depth-first search with its dead-position table settles
every problem fastest (bench/planners.py). Above, none dominates: the search finds the
English central game in a tenth of a second but wanders for minutes on other vacancies; SAT
solves French c1 -> e1 in 1.6 s where CP-SAT times out; CP-SAT solves English d1 -> d1 in
1.6 s where SAT and the search both ran out of 60 s (measured during the English survey).
So the SAT solver and a one-worker CP-SAT run in child processes while the search runs here,
and the first finished answer wins; the others are stopped.
"""

from __future__ import annotations

import time
from dataclasses import replace

from ..problem import Problem
from . import sat, search
from .base import Config, Deadline, Result, Status
from .child import PlannerProcess

NAME = "auto"
SEARCH_MAX_HOLES = 21


def covers_open_goal(problem: Problem) -> bool:
    """One search covers every survivor at once; SAT needs the goal split per survivor."""
    return problem.board.n <= SEARCH_MAX_HOLES


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    if problem.board.n <= SEARCH_MAX_HOLES:
        r = search.solve(problem, deadline, config)
        return replace(r, planner=f"{NAME}:{r.planner}")
    job = sat.start(problem, config)
    cp = PlannerProcess("cpsat", problem, replace(config, workers=1, time_limit=deadline.remaining()))
    try:
        r = search.solve(problem, deadline, config, stop=lambda: job.poll() or cp.poll() is not None)
        if r.status is not Status.UNKNOWN:
            return _won(r, "search")
        while True:
            if job.poll():
                r = job.wait(0.0)
                if r.status is not Status.UNKNOWN:
                    return _won(r, "sat")
            got = cp.poll(0.05)
            if got is not None and got.status is not Status.UNKNOWN:
                return _won(got, "cpsat")
            if deadline.expired():
                return Result(Status.UNKNOWN, problem, NAME, detail="time limit reached (search, sat, cpsat)")
            time.sleep(0.01)
    finally:
        job.stop()
        cp.stop()


def _won(r: Result, winner: str) -> Result:
    return replace(r, planner=f"{NAME}:{r.planner}", stats={**r.stats, "winner": winner})
