"""What every planner shares: its configuration, and the short-horizon schedule."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from ..deadline import Deadline
from ..encoding.encoder import EncodeOptions
from ..model.problem import Problem
from ..model.result import Result
from ..process import cores

#: who a plan given by the user (``--upper-plan``) is said to come from
GIVEN = "you"


@dataclass(frozen=True)
class Disk:
    """Where a level search (``moves``, ``layers``) keeps its levels once they leave memory,
    and what grows them there (``planners.ondisk``)."""

    #: the levels' directory; None: a new temporary one, removed once the answer is final
    directory: Path | None = None
    #: on disk from the start (``solve --spill DIR``): the levels, and the certificate they
    #: are the evidence of, stay; False: only past the memory budget
    first: bool = False
    scheduler: str | None = None  # an existing Dask scheduler; None: local worker processes
    memory: int | None = None  # bytes per worker process; None: the memory budget shared
    limit: int | None = None  # the most bytes the directory may hold; None: what the disk has free

    def within(self, name: str) -> Disk:
        """The same, in the subdirectory ``name`` (one search of several sharing the directory)."""
        return replace(self, directory=None if self.directory is None else self.directory / name)


@dataclass(frozen=True)
class Config:
    """Options for every planner; each backend reads what concerns it. The time budget is not
    here: it is the ``Deadline`` passed beside it."""

    solver: str = "cadical195"
    workers: int = field(default_factory=cores)  # processes (search) or threads (CP-SAT) per problem
    encode: EncodeOptions = field(default_factory=EncodeOptions)
    #: ``moves``, ``layers``: where their levels go once they are on disk (``planners.ondisk``);
    #: None: in memory only, "unknown" past the memory budget
    disk: Disk | None = None
    #: ``moves`` (in memory or out of core): a plan known to solve the problem, replayed by the
    #: caller: its moves are the first upper bound (no first-plan search), and only shorter
    #: plans are looked for. A puzzle's known solution, or the bound of a related problem's plan.
    upper_plan: tuple[int, ...] | None = None


class Backend(Protocol):
    """The one signature of a planner module (``planners/NAME.py``)."""

    NAME: str
    OPTIMAL: bool  # its plans have the fewest moves, with the proof (unified-planning's guarantee)

    def supports(self, problem: Problem) -> str | None:
        """None when the planner handles ``problem``, else why not (one line)."""

    def covers_open_goal(self, problem: Problem) -> bool:
        """True when a "one peg anywhere" goal is better searched whole than per survivor."""

    def solve(self, problem: Problem, deadline: Deadline, config: Config) -> Result:
        """A result for ``problem`` within ``deadline``."""


def any_problem(problem: Problem) -> str | None:
    """``supports`` for a planner that handles every problem."""
    return None


def split_open_goals(problem: Problem) -> bool:
    """``covers_open_goal`` for a planner that wants a "one peg anywhere" goal split."""
    return False


#: Short parallel horizons tried first, as (fraction of the jumps, seconds), in rounds of
#: doubling budgets: a short horizon can only find a plan, and the shortest that has one
#: finds it fastest (English central game: 0.2-2.4 s at 13 steps of 31, 9-15 s at 22, 80 s
#: at 31; ``bench/results-sat.txt``). A horizon tried again is solved with its clauses in
#: another order (a solver's run time varies by tens of times with it). The last attempt, at
#: the full horizon, is the one that can refute.
SHORT_HORIZONS = ((0.42, 3.0), (0.5, 3.0), (0.42, 6.0), (0.5, 6.0), (0.58, 6.0), (0.42, 12.0), (0.5, 12.0))
MIN_JUMPS_FOR_SHORT = 12


def learned_pagodas(problem: Problem, config: Config, deadline: Deadline
                    ) -> list[tuple[tuple[int, ...], int]]:
    """The pagodas an encoding with ``pagodas`` imposes at every step
    (``analysis.pagoda.for_levels``: learned within seconds, with a fixed seed; the lightest
    few, ``encoding.encoder.encodable``), or none."""
    if not config.encode.pagodas:
        return []
    from ..analysis.pagoda import for_levels
    from ..encoding.encoder import encodable

    return encodable(for_levels(problem, deadline))


def horizon_schedule(problem: Problem, config: Config) -> list[tuple[int | None, float | None, int]]:
    """(steps, budget, seed) attempts: short parallel horizons, then the full one (None, None,
    0). ``seed``: 0 the first time a horizon is tried, else the order its clauses are shuffled
    in (the CP-SAT planner's random seed)."""
    full = problem.horizons.stop - 1
    out: list[tuple[int | None, float | None, int]] = []
    if config.encode.steps == "parallel" and full >= MIN_JUMPS_FOR_SHORT:
        for frac, budget in SHORT_HORIZONS:
            n = max(1, round(full * frac))
            if n < full:
                tried = sum(a == n for a, _, _ in out)
                out.append((n, budget, len(out) + 1 if tried else 0))
    out.append((None, None, 0))
    return out
