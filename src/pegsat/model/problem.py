"""Problems: a board, a start position and a goal.

Positions are ints, one bit per hole id. A goal is a partial pattern (holes that must hold a
peg, holes that must be empty) plus a range for the number of pegs left; every goal the users
ask for is one of these:

============================  ===========================================================
exact pattern P               full = P, empty = the rest, pegs = |P|
one peg at hole h             full = {h}, empty = the rest, pegs = 1
one peg anywhere              pegs = 1
at most k pegs                pegs in 1..k
partial pattern (IPC invasion) full / empty as given, any number of pegs
============================  ===========================================================

The Hopping Dots rule ("the red peg must be the survivor and may never be jumped over") is
``special``: the hole of the marked peg at the start; it forces a one-peg goal.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

from ..errors import ProblemError
from .board import Board
from .catalogue import HOME


def bits(holes) -> int:
    """The position with pegs on ``holes``."""
    out = 0
    for h in holes:
        out |= 1 << h
    return out


def holes_of(pos: int) -> list[int]:
    """The holes of a position, lowest first."""
    out = []
    while pos:
        low = pos & -pos
        out.append(low.bit_length() - 1)
        pos ^= low
    return out


@dataclass(frozen=True)
class Goal:
    full: int = 0
    empty: int = 0
    min_pegs: int = 1
    max_pegs: int | None = None

    @classmethod
    def pattern(cls, board: Board, pos: int) -> Goal:
        """Exactly the pegs of ``pos``."""
        k = pos.bit_count()
        return cls(full=pos, empty=board.full & ~pos, min_pegs=k, max_pegs=k)

    @classmethod
    def survivor(cls, board: Board, hole: int) -> Goal:
        """One peg, on ``hole``."""
        return cls.pattern(board, 1 << hole)

    @classmethod
    def one_peg(cls) -> Goal:
        """One peg, anywhere."""
        return cls(min_pegs=1, max_pegs=1)

    @classmethod
    def at_most(cls, k: int) -> Goal:
        """At most ``k`` pegs, anywhere."""
        return cls(min_pegs=1, max_pegs=k)

    def satisfied(self, pos: int) -> bool:
        """Whether ``pos`` meets the goal."""
        k = pos.bit_count()
        return (
            pos & self.full == self.full
            and not pos & self.empty
            and k >= self.min_pegs
            and (self.max_pegs is None or k <= self.max_pegs)
        )

    @property
    def fixed_count(self) -> int | None:
        """The number of pegs left, when the goal fixes it (and so fixes the horizon)."""
        return self.min_pegs if self.max_pegs == self.min_pegs else None

    def describe(self, board: Board) -> str:
        """The goal in words."""
        names = board.names
        if self.full | self.empty == board.full and self.fixed_count == self.full.bit_count():
            if self.fixed_count == 1:
                return f"one peg at {names[self.full.bit_length() - 1]}"
            return "exactly " + " ".join(names[h] for h in holes_of(self.full))
        parts = []
        if self.full:
            parts.append("pegs at " + " ".join(names[h] for h in holes_of(self.full)))
        if self.empty:
            parts.append("empty " + " ".join(names[h] for h in holes_of(self.empty)))
        if self.fixed_count is not None:
            parts.append(f"{self.fixed_count} peg{'s' if self.fixed_count != 1 else ''} left")
        elif self.max_pegs is not None:
            parts.append(f"at most {self.max_pegs} pegs left")
        return ", ".join(parts) if parts else "any position"


@dataclass(frozen=True)
class Problem:
    board: Board
    start: int
    goal: Goal
    special: int | None = None
    name: str = ""

    def __post_init__(self) -> None:
        b, g = self.board, self.goal
        if self.start & ~b.full or g.full & ~b.full or g.empty & ~b.full:
            raise ProblemError("a position names holes that are not on the board")
        pegs = self.start.bit_count()
        if g.full & g.empty:
            raise ProblemError("the goal asks for a hole to be both full and empty")
        need = max(g.min_pegs, g.full.bit_count())
        if need > pegs:
            raise ProblemError(
                f"the goal needs at least {need} pegs but the start has only {pegs}: "
                "jumps only remove pegs"
            )
        if g.max_pegs is not None and (g.max_pegs < g.min_pegs or g.max_pegs < g.full.bit_count()):
            raise ProblemError("the goal allows fewer pegs than it requires")
        free = b.n - g.empty.bit_count()
        if g.min_pegs > free:
            raise ProblemError(f"the goal needs {g.min_pegs} pegs but leaves only {free} holes")
        if self.special is not None:
            if not self.start >> self.special & 1:
                raise ProblemError(f"the special peg's hole {b.names[self.special]} is empty at the start")
            if g.fixed_count != 1:
                raise ProblemError("a special peg must be the single survivor: the goal must leave one peg")

    @property
    def pegs(self) -> int:
        return self.start.bit_count()

    @property
    def horizons(self) -> range:
        """Possible plan lengths in jumps: every jump removes exactly one peg."""
        g = self.goal
        lo_left = max(g.min_pegs, g.full.bit_count())
        hi_left = self.pegs if g.max_pegs is None else min(g.max_pegs, self.pegs)
        return range(self.pegs - hi_left, self.pegs - lo_left + 1)

    def __repr__(self) -> str:
        return f"<Problem {self.describe()}>"

    def describe(self) -> str:
        """The problem in words: board, start and goal."""
        b = self.board
        vac = holes_of(b.full & ~self.start)
        start = (
            "full board" if not vac else
            ("vacancy " if len(vac) == 1 else "vacant ") + " ".join(b.names[h] for h in vac)
            if len(vac) <= b.n // 2 else "pegs at " + " ".join(b.names[h] for h in holes_of(self.start))
        )
        text = f"{b.name}: {start} -> {self.goal.describe(b)}"
        if self.special is not None:
            text += f" (special peg from {b.names[self.special]})"
        return text


def default_vacancy(board: Board) -> int:
    """The centre where one exists, else the catalogue's home hole, else hole 0."""
    if board.centre is not None:
        return board.centre
    if board.name in HOME and board.has_hole(HOME[board.name]):
        return board.hole(HOME[board.name])
    return 0


def single_vacancy(board: Board, hole: int, goal: Goal | None = None, name: str = "") -> Problem:
    """Full board minus ``hole``; goal defaults to one peg left in that hole (the complement)."""
    return Problem(board, board.full & ~(1 << hole), goal or Goal.survivor(board, hole), name=name)


def dual(problem: Problem) -> Problem | None:
    """The time-reversed game on complements, for an exact goal pattern (else None).

    Playing jump a-over-b-into-c takes X to Y; on complements it takes ~Y to ~X. So a plan
    from S to the pattern G, reversed, is a plan from ~G to the pattern ~S, and back: the two
    problems are solvable together (vacancy v -> survivor s is vacancy s -> survivor v).
    """
    b, g = problem.board, problem.goal
    if problem.special is not None or g.full | g.empty != b.full or g.fixed_count != g.full.bit_count():
        return None
    return Problem(b, g.full ^ b.full, Goal.pattern(b, problem.start ^ b.full), name=problem.name)


#: goals with more positions than this are not listed (searches test them instead)
GOAL_LIMIT = 1_000_000


def goal_positions(problem: Problem, limit: int = GOAL_LIMIT) -> list[int] | None:
    """Every position satisfying the goal, or None when there are more than ``limit``."""
    board, g = problem.board, problem.goal
    free = holes_of(board.full & ~(g.full | g.empty))
    base = g.full.bit_count()
    lo = max(g.min_pegs, base) - base
    hi = min(problem.pegs, g.max_pegs if g.max_pegs is not None else board.n) - base
    if sum(comb(len(free), k) for k in range(lo, hi + 1)) > limit:
        return None
    out = []
    for k in range(lo, hi + 1):
        for extra in combinations(free, k):
            pos = g.full
            for h in extra:
                pos |= 1 << h
            out.append(pos)
    return out
