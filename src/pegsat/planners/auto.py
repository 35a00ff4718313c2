"""``auto``: the compiled search first, on every core; then SAT and CP-SAT, never more
processes than cores.

The schedule comes from measurement (bench/engine.py, bench/planners.py), not from the hole
count: with the compiled core, learned pagodas and restarts, the search settles the English
and French surveys, German e5 -> e5 and diamond d2 -> one peg in seconds, where SAT and
CP-SAT ran out of minutes on the 41- and 45-hole boards. SAT and CP-SAT stay as the second
stage, since what is hard for one method is not always hard for another. The search gets
``SEARCH_SHARE`` of the time budget (``BIG_SEARCH_SHARE`` on boards of more than 36 holes;
``SEARCH_ALONE`` seconds when there is none), and what
it leaves goes to SAT and a CP-SAT child racing, the first answer winning.
Racing them all at once on two cores starved the one planner that would have answered, so the
stages do not overlap. Every stage shares the
caller's deadline (a forked child reads the same monotonic clock).
"""

from __future__ import annotations

from dataclasses import replace

from ..analysis import games
from ..deadline import Deadline
from ..model.problem import Problem
from ..model.result import Result, Stats, Status
from ..process import OUT_OF_MEMORY, Child, ChildDied
from . import sat, search
from .config import Config, any_problem

NAME = "auto"
OPTIMAL = False  # its plans are not proven to have the fewest moves
supports = any_problem
SEARCH_SHARE = 0.6  # of the time budget, for the search alone
#: on boards where the search takes turns (more than ``analysis.games.SPLIT_ABOVE`` holes):
#: its turns grow, and SAT and CP-SAT solve none of these boards' hard problems in minutes
BIG_SEARCH_SHARE = 0.95
SEARCH_ALONE = 60.0  # seconds of search first when there is no time limit


def covers_open_goal(problem: Problem) -> bool:
    """The search covers every survivor at once; its stage comes first."""
    return True


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
        """The planner's result once it has answered (waiting up to ``timeout``)."""
        if self.result is None:
            try:
                msg = self.child.receive(timeout)
            except ChildDied as exc:
                msg = Result(Status.ERROR, self.problem, self.name, detail=str(exc))
            if isinstance(msg, tuple):  # ("error", text) or (OUT_OF_MEMORY, text) from process.Child
                status = Status.UNKNOWN if msg[0] == OUT_OF_MEMORY else Status.ERROR
                msg = Result(status, self.problem, self.name, detail=str(msg[1]))
            self.result = msg
        return self.result

    def stop(self) -> None:
        """Kill the planner's process."""
        self.child.stop()


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    """The search on every core first, then SAT and CP-SAT side by side."""
    share = BIG_SEARCH_SHARE if games.large(problem) else SEARCH_SHARE
    first = deadline.share(share, SEARCH_ALONE)
    r = search.solve(problem, first, config)
    if r.status is not Status.UNKNOWN or deadline.expired():
        return _won(r, "search")
    # the games the search took turns on
    searched: Stats = {"games": r.stats["games"]} if "games" in r.stats else {}
    cores = max(1, config.workers)
    job = sat.SatJob(problem, deadline, config)
    # one core (a batch job's share): SAT alone, no second process
    cp = PlannerProcess("cpsat", problem, deadline, replace(config, workers=cores - 1)) if cores > 1 else None
    try:
        if cp is None:
            got = job.wait()
            return _won(replace(got, stats={**searched, **got.stats}), "sat")
        while True:
            if job.poll():
                r = job.wait()
                if r.status is not Status.UNKNOWN:
                    return _won(r, "sat")
            polled = cp.poll(0.05)
            if polled is not None and polled.status is not Status.UNKNOWN:
                return _won(polled, "cpsat")
            if deadline.expired():
                return Result(Status.UNKNOWN, problem, NAME, stats=searched,
                              detail="time limit reached (search, sat, cpsat)")
    finally:
        job.stop()
        if cp is not None:
            cp.stop()


def _won(r: Result, winner: str) -> Result:
    return replace(r, planner=f"{NAME}:{r.planner}", stats={**r.stats, "winner": winner})
