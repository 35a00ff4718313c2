"""Position classes: the GF(2) invariants of a board.

A jump toggles the three holes of its line. So for any 0/1 weighting ``w`` of the holes
whose sum over every line is even, the parity of the total weight of the pegs never changes.
These weightings form the null space of the line-hole incidence matrix over GF(2); a
position's *class* is its vector of parities against a basis of that space (Conway's
position classes, Winning Ways ch. 23; on square boards the familiar "rule of three" gives
16 classes on the English board). Computed for any board by Gaussian elimination, with rows
and vectors as int bitmasks.

If the start and a fully specified goal lie in different classes, no plan exists, and the
weighting that separates them is a certificate anyone can check by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from ..engine.bitboard import same_game, stabilizer
from ..model.board import Board
from ..model.problem import Goal, Problem, dual, holes_of


@lru_cache(maxsize=64)
def class_basis(board: Board) -> tuple[int, ...]:
    """A basis (as hole bitmasks) of the weightings that are even on every line."""
    n = board.n
    rows = [(1 << a) | (1 << b) | (1 << c) for a, b, c in board.lines]
    pivots: dict[int, int] = {}  # pivot column -> reduced row
    for row in rows:
        for col, prow in pivots.items():
            if row >> col & 1:
                row ^= prow
        if not row:
            continue
        col = row.bit_length() - 1
        for c2, prow in list(pivots.items()):
            if prow >> col & 1:
                pivots[c2] = prow ^ row
        pivots[col] = row
    basis = []
    for free in range(n):
        if free in pivots:
            continue
        w = 1 << free
        for col, prow in pivots.items():
            if prow >> free & 1:
                w |= 1 << col
        basis.append(w)
    return tuple(basis)


def position_class(board: Board, pos: int) -> int:
    """The class of a position: bit i is the parity of its pegs' weight under basis[i]."""
    out = 0
    for i, w in enumerate(class_basis(board)):
        out |= ((pos & w).bit_count() & 1) << i
    return out


@dataclass(frozen=True)
class ClassWitness:
    """A weighting even on every line whose parity differs between start and goal."""

    weights: int
    start_parity: int
    goal_parity: int


def separating_weight(board: Board, start: int, goal: int) -> ClassWitness | None:
    """A certificate that ``goal`` is unreachable from ``start``, or None if same class."""
    for w in class_basis(board):
        a, b = (start & w).bit_count() & 1, (goal & w).bit_count() & 1
        if a != b:
            return ClassWitness(w, a, b)
    return None


def odd_line(board: Board, weights: int) -> tuple[int, int, int] | None:
    """A line on which the weighting (a hole mask) is odd, or None: it is a class invariant."""
    return next((ln for ln in board.lines
                 if ((1 << ln[0] | 1 << ln[1] | 1 << ln[2]) & weights).bit_count() & 1), None)


def check_witness(board: Board, start: int, goal: int, weights: int) -> bool:
    """Independent check of a weighting (a hole mask): even on every line, and the parities
    of the start and the goal really differ."""
    if odd_line(board, weights) is not None:
        return False
    return ((start & weights).bit_count() & 1) != ((goal & weights).bit_count() & 1)


def possible_survivors(board: Board, start: int, allowed: int | None = None) -> list[int]:
    """Holes whose one-peg position is in the start's class (the only possible survivors)."""
    target = position_class(board, start)
    holes = range(board.n) if allowed is None else [h for h in range(board.n) if allowed >> h & 1]
    return [h for h in holes if position_class(board, 1 << h) == target]


def survivor_candidates(problem: Problem) -> tuple[list[int], list[int]]:
    """For a one-peg goal that leaves the survivor open: (one possible survivor per orbit of
    the symmetries fixing the problem, vacated holes first; holes ruled out by the classes)."""
    board = problem.board
    allowed = board.full & ~problem.goal.empty
    cands = possible_survivors(board, problem.start, allowed)
    ruled_out = [h for h in holes_of(allowed) if h not in cands]
    group = stabilizer(problem)  # the goal names no full hole here
    reps = [h for h in cands if min(p[h] for p in group) == h]
    vacated = board.full & ~problem.start
    reps.sort(key=lambda h: (not vacated >> h & 1, h))
    return reps, ruled_out


def fixed_survivor(problem: Problem, hole: int) -> Problem:
    """The problem with its one-peg goal fixed at ``hole``."""
    empty = problem.board.full & ~(1 << hole)
    return replace(problem, goal=Goal(full=1 << hole, empty=empty, min_pegs=1, max_pegs=1))


def both_ways(problem: Problem) -> list[tuple[Problem, bool]]:
    """(game, reversed) pairs that are solvable exactly when ``problem`` is: the problem
    itself, and its time-reversed game (``model.problem.dual``) unless there is none or it
    is the same game up to a symmetry (then once)."""
    back = dual(problem)
    return [(problem, False)] + ([(back, True)] if back is not None and not same_game(problem, back) else [])
