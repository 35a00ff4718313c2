"""A problem as games: a one-peg goal split by survivor, and time reversal, in one place.

``solve``, the ``search`` planner's turns, ``prove`` and ``survey`` settle a problem through
other, fixed problems that are solvable exactly when it is:

- **the split**: a goal of one peg anywhere is solvable exactly when one of its
  class-compatible survivors is (``invariants.survivor_candidates``: one per orbit of the
  symmetries fixing the problem, vacated holes first; the other holes are ruled out by the
  position classes), each a game with the survivor fixed;
- **time reversal**: a game with an exact goal pattern played backwards on complements
  (``model.problem.dual``): a plan of it, reversed, is a plan of the game, and its
  refutation refutes the game. One direction is often far easier than the other.

On boards of more than ``SPLIT_ABOVE`` holes the search takes turns over these games and
``prove`` refutes a one-peg goal survivor by survivor; on smaller boards one search of the
whole problem is cheaper than the split.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Unpack

from ..model.problem import Goal, Problem
from ..model.result import Result, Stats
from .invariants import both_ways, fixed_survivor, survivor_candidates

SPLIT_ABOVE = 36  # holes: bigger boards take turns on each survivor, and each game both ways

Plan = tuple[int, ...]


@dataclass(frozen=True)
class Game:
    """A fixed problem that settles part of another: its one-peg goal fixed at ``survivor``
    (None: the goal as it was), and played time-reversed when ``reverse``."""

    problem: Problem
    survivor: int | None = None
    reverse: bool = False

    def lift(self, plan: Plan) -> Plan:
        """A plan of this game as a plan of the problem it came from."""
        return tuple(reversed(plan)) if self.reverse else tuple(plan)

    def lift_result(self, r: Result, parent: Problem, **stats: Unpack[Stats]) -> Result:
        """This game's result as a result of ``parent``, the problem it came from: a plan
        lifted, the statistics joined by ``stats``. (A refutation of one survivor's game is
        not one of the parent: the caller decides what the parent's verdict is.)"""
        plan = None if r.plan is None else self.lift(r.plan)
        return replace(r, problem=parent, plan=plan, moves=None if self.reverse else r.moves,
                       stats={**r.stats, **stats})


@dataclass(frozen=True)
class Split:
    """A one-peg-anywhere goal's survivors: the class-compatible ones (one per orbit) and
    the holes the position classes rule out."""

    problem: Problem
    survivors: tuple[int, ...]
    ruled_out: tuple[int, ...]

    def games(self, survivor: int, both: bool = True) -> list[Game]:
        """The game with ``survivor`` fixed, and with ``both`` its time-reversed game too
        (unless it is the same game up to a symmetry)."""
        fixed = fixed_survivor(self.problem, survivor)
        if not both:
            return [Game(fixed, survivor)]
        return [Game(g, survivor, rev) for g, rev in both_ways(fixed)]


def large(problem: Problem) -> bool:
    """Big enough that the split and the reversed games pay (``SPLIT_ABOVE``)."""
    return problem.board.n > SPLIT_ABOVE


def one_peg_anywhere(goal: Goal) -> bool:
    """A goal of one peg, on any hole."""
    return not goal.full and goal.min_pegs <= 1 and goal.max_pegs == 1


def split(problem: Problem) -> Split | None:
    """The problem's survivors, or None when its goal is not one peg anywhere."""
    if not one_peg_anywhere(problem.goal):
        return None
    reps, out = survivor_candidates(problem)
    return Split(problem, tuple(reps), tuple(out))


def reversed_game(problem: Problem) -> Game | None:
    """The time-reversed game, or None when there is none (no exact goal pattern) or it is
    the same game up to a symmetry (a self-dual problem)."""
    pair = both_ways(problem)
    return Game(pair[1][0], None, True) if len(pair) > 1 else None
