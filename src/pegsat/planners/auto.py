"""``auto``: exhaustive search on small boards; on larger ones search and SAT side by side.

Up to ``SEARCH_MAX_HOLES`` holes the depth-first search with its dead-position table settles
every problem fastest (bench/planners.py). Above, neither dominates: the search finds the
English central game in a tenth of a second but wanders for minutes on other vacancies,
where the SAT planner answers in seconds. So the SAT solver runs in its child process while
the search runs here (two cores), and the first finished answer wins; the other is stopped.
"""

from __future__ import annotations

from dataclasses import replace

from ..problem import Problem
from . import sat, search
from .base import Config, Deadline, Result, Status

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
    try:
        r = search.solve(problem, deadline, config, stop=job.poll)
        if r.status is not Status.UNKNOWN:
            return replace(r, planner=f"{NAME}:{r.planner}", stats={**r.stats, "winner": "search"})
        r = job.wait(deadline.remaining())
        return replace(r, planner=f"{NAME}:{r.planner}", stats={**r.stats, "winner": "sat"})
    finally:
        job.stop()
