"""``auto``: exhaustive search on small boards; on larger ones a race of three planners.

Up to ``SEARCH_MAX_HOLES`` holes the depth-first search with its dead-position table settles
every problem fastest (bench/planners.py). Above, none dominates: the search finds the
English central game in a tenth of a second but wanders for minutes on other vacancies; SAT
solves French c1 -> e1 in 1.6 s where CP-SAT times out; CP-SAT solves English d1 -> d1 in
1.6 s where SAT and the search both ran out of 60 s (measured during the English survey).
So the SAT solver and a one-worker CP-SAT run in child processes while the search runs here,
and the first finished answer wins; the others are stopped. All three share the caller's
deadline (a forked child reads the same monotonic clock).
"""

from __future__ import annotations

from dataclasses import replace

from ..deadline import Deadline
from ..model.problem import Problem
from ..model.result import Result, Status
from ..process import Child, ChildDied
from . import sat, search
from .config import Config, any_problem

NAME = "auto"
OPTIMAL = False  # its plans are not proven to have the fewest moves
supports = any_problem
SEARCH_MAX_HOLES = 21


def covers_open_goal(problem: Problem) -> bool:
    """One search covers every survivor at once; SAT needs the goal split per survivor."""
    return problem.board.n <= SEARCH_MAX_HOLES


def _run_planner(send, name: str, problem: Problem, deadline: Deadline, config: Config) -> None:
    from . import get_planner

    send(get_planner(name).solve(problem, deadline, config))


class PlannerProcess:
    """One planner in a child process, answering with its Result."""

    def __init__(self, name: str, problem: Problem, deadline: Deadline, config: Config) -> None:
        self.name, self.problem = name, problem
        self.child = Child(_run_planner, name, problem, deadline, config)
        self.result: Result | None = None

    def poll(self, timeout: float = 0.0) -> Result | None:
        if self.result is None:
            try:
                msg = self.child.receive(timeout)
            except ChildDied as exc:
                msg = Result(Status.ERROR, self.problem, self.name, detail=str(exc))
            if isinstance(msg, tuple):  # ("error", text) from process.Child
                msg = Result(Status.ERROR, self.problem, self.name, detail=str(msg[1]))
            self.result = msg
        return self.result

    def stop(self) -> None:
        self.child.stop()


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    if problem.board.n <= SEARCH_MAX_HOLES:
        r = search.solve(problem, deadline, config)
        return replace(r, planner=f"{NAME}:{r.planner}")
    job = sat.SatJob(problem, deadline, config)
    cp = PlannerProcess("cpsat", problem, deadline, replace(config, workers=1))
    try:
        r = search.solve(problem, deadline.stopping(lambda: job.poll() or cp.poll() is not None), config)
        if r.status is not Status.UNKNOWN:
            return _won(r, "search")
        while True:
            if job.poll():
                r = job.wait()
                if r.status is not Status.UNKNOWN:
                    return _won(r, "sat")
            got = cp.poll(0.05)
            if got is not None and got.status is not Status.UNKNOWN:
                return _won(got, "cpsat")
            if deadline.expired():
                return Result(Status.UNKNOWN, problem, NAME, detail="time limit reached (search, sat, cpsat)")
    finally:
        job.stop()
        cp.stop()


def _won(r: Result, winner: str) -> Result:
    return replace(r, planner=f"{NAME}:{r.planner}", stats={**r.stats, "winner": winner})
