"""What every planner shares: the typed result, the configuration, the deadline."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ..bitboard import Plan
from ..encoder import EncodeOptions
from ..problem import Problem


class Status(Enum):
    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    UNKNOWN = "unknown"
    ERROR = "error"


class Proof(Enum):
    """How an "unsolvable" was established. Never a timeout."""

    COUNTING = "counting"  # no legal jump, or too few pegs
    INVARIANT = "invariant"  # GF(2) position classes
    UNSAT = "unsat"  # the SAT solver refuted every horizon
    CP_INFEASIBLE = "cp-infeasible"  # CP-SAT proved the model infeasible
    EXHAUSTED = "exhausted-search"  # every reachable position explored
    SPLIT = "split"  # every survivor either ruled out by the invariant or refuted


@dataclass(frozen=True)
class Config:
    """Options for every planner; each backend reads what concerns it."""

    solver: str = "cadical195"
    workers: int = 2
    encode: EncodeOptions = field(default_factory=EncodeOptions)
    time_limit: float | None = None


@dataclass(frozen=True)
class Result:
    status: Status
    problem: Problem
    planner: str
    plan: Plan | None = None
    moves: int | None = None
    proof: Proof | None = None
    detail: str = ""
    stats: dict[str, Any] = field(default_factory=dict)
    lower_bound: int | None = None  # minimum-moves mode: proven fewest moves of any plan

    @property
    def optimal(self) -> bool:
        """A minimum-moves answer whose plan meets its proven lower bound."""
        return self.moves is not None and self.lower_bound == self.moves

    def to_json(self) -> dict[str, Any]:
        from ..notation import format_plan

        b = self.problem.board
        out: dict[str, Any] = {
            "status": self.status.value,
            "problem": self.problem.describe(),
            "board": b.name,
            "planner": self.planner,
            "proof": self.proof.value if self.proof else None,
            "detail": self.detail,
            "stats": self.stats,
        }
        if self.plan is not None:
            out.update(
                plan=format_plan(b, self.plan),
                jumps=[list(b.jumps[k]) for k in self.plan],
                jump_count=len(self.plan),
                moves=self.moves,
            )
        if self.lower_bound is not None:
            out.update(lower_bound=self.lower_bound, optimal=self.optimal)
        return out


#: Short parallel horizons tried first, as (fraction of the jumps, seconds). They can only
#: find plans; the last attempt, at the full horizon, is the one that can refute.
SHORT_HORIZONS = ((0.45, 3.0), (0.65, 6.0))
MIN_JUMPS_FOR_SHORT = 12


def horizon_schedule(problem: Problem, config: Config) -> list[tuple[int | None, float | None]]:
    """(steps, budget) attempts: short parallel horizons, then the full one (None, None)."""
    full = problem.horizons.stop - 1
    out: list[tuple[int | None, float | None]] = []
    if config.encode.steps == "parallel" and full >= MIN_JUMPS_FOR_SHORT:
        for frac, budget in SHORT_HORIZONS:
            n = max(1, round(full * frac))
            if n < full and all(n != a for a, _ in out):
                out.append((n, budget))
    out.append((None, None))
    return out


class Deadline:
    """Wall-clock budget shared by the subproblems of one solve."""

    def __init__(self, seconds: float | None) -> None:
        self.end = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float | None:
        return None if self.end is None else max(0.0, self.end - time.monotonic())

    def expired(self) -> bool:
        return self.end is not None and time.monotonic() >= self.end


def die_with_parent(parent_pid: int) -> None:
    """In a solver child: be killed when the parent dies, even by SIGKILL.

    Solvers run in forked children that the parent kills at its deadline; if the parent is
    killed first (a Dask worker killed mid-job, ``kill -9`` of the CLI) the child would run on
    forever. Linux's PR_SET_PDEATHSIG delivers SIGKILL to the child when the parent exits;
    elsewhere this does nothing.
    """
    import os
    import signal
    import sys

    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            return
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
