"""What cuts a level search's positions: pagodas, and Merson's bounds under a known plan.

One object holds every rule a level search by moves (``planners.moves``, in memory, and
``engine.disk``, on disk) prunes with, applied to whole arrays of positions, and the same
object is what a Dask task receives (it pickles as the problem and the pagodas; the kernel it
filters with is made where it runs). The certificate of a pruned search lists the same rules
(``checks.certificate``), and the checker verifies each (``checks.moves``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..engine.kernel import Kernel, kernel
from ..model.problem import Problem
from . import merson, pagoda


class Bounds:
    """What cuts a level's positions, over arrays of them. Merson's lower bounds on the moves
    of a plan through a position (``analysis.merson``): forward, the full regions still to
    break before the goal; backward, the regions full at the start that the position has
    broken. Under an upper bound ``U`` (a known plan's moves) a position ``depth`` moves from
    its side's end whose bound ``h`` has ``depth + h >= U`` lies on no plan of fewer moves.
    And, with or without a bound, ``pagodas`` (``analysis.pagoda.for_levels``): a forward
    position that can no longer reach the goal, a backward one the start cannot reach, lies
    on no plan at all."""

    def __init__(self, problem: Problem, pagodas: Sequence[tuple[tuple[int, ...], int]] = ()) -> None:
        self.problem = problem
        self.pagodas = list(pagodas)
        self.cuts = pagoda.cuts(problem, self.pagodas)
        self.must, self.optional, self.cap = merson.regions_to_break(problem.board, problem.goal)
        self.start_full = [r for r in merson.region_family(problem.board) if problem.start & r == r]

    @property
    def kernel(self) -> Kernel:
        """The core's operations for the board (none of the rules depends on symmetries)."""
        return kernel(self.problem.board, ())

    def forward(self, pos: np.ndarray) -> np.ndarray:
        """Moves still needed to reach the goal (admissible): full regions to break."""
        k = self.kernel
        h = k.count_full(pos, self.must).astype(np.int16)
        if self.optional:
            h += np.maximum(0, k.count_full(pos, self.optional).astype(np.int16) - self.cap)
        return np.maximum(h, 1)  # ``keep`` zeroes it on goal positions

    def backward(self, pos: np.ndarray) -> np.ndarray:
        """Moves needed from the start to reach ``pos``: regions full at the start, broken."""
        return len(self.start_full) - self.kernel.count_full(pos, self.start_full).astype(np.int16)

    def goal_mask(self, pos: np.ndarray) -> np.ndarray:
        """Which positions satisfy the goal."""
        return self.kernel.goals(pos, self.problem.goal)

    def keep(self, side: str, new: np.ndarray, depth: int, upper: int | None) -> np.ndarray:
        """The positions of a new level ``depth`` of ``side`` that may lie on a plan (of fewer
        than ``upper`` moves, when there is a bound: by jumps there is none, and only the
        pagodas cut)."""
        cut = self.cuts[side]
        if cut is not None:
            new = self.kernel.keep(new, *cut)[0]
        if upper is None:
            return new
        if side == "backward":
            return new[depth + self.backward(new) <= upper - 1]
        ok = depth + self.forward(new) <= upper - 1
        out = ~ok  # a goal position needs no more moves: looked for among these only
        ok[out] = self.goal_mask(new[out]) & (depth <= upper - 1)
        return new[ok]
