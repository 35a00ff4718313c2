"""Merson regions: lower bounds on the number of moves.

A set R of holes is a *Merson region* when every line whose middle hole lies in R has an end
in R. While R is full, no jump can land in it, and a jump over one of its holes must start
in R; so the first jump that changes a full region starts inside it, made by a peg that sat
there when its move began. A move starts at one hole, hence disjoint full regions that must
be broken need distinct moves (R. Merson's argument, in J. D. Beasley, *The Ins and Outs of
Peg Solitaire*, OUP 1985, ch. 5; G. I. Bell, "Solving triangular peg solitaire", J. Integer
Sequences 11 (2008), uses the same bound to prune searches by moves).

Holes that are the middle of no line ("corners") are one-hole regions. On the English board
the 8 arm corners and the 4 three-hole L's around the inner corners (c2 b3 c3, ...) are
disjoint, so the central game needs at least 12 moves before any search.

This module only finds regions and counts; ``vector`` applies the count to arrays.
"""

from __future__ import annotations

from functools import lru_cache

from ..model.board import Board
from ..model.problem import Goal, holes_of

MAX_REGION = 4


@lru_cache(maxsize=64)
def minimal_regions(board: Board, max_size: int = MAX_REGION) -> tuple[int, ...]:
    """Merson regions of at most ``max_size`` holes that contain no smaller region.

    Grown from single holes: a hole that is the middle of a line whose ends are both
    outside needs one of the ends added, so every minimal region is reached by adding, one
    at a time, an end of a violated line.
    """
    found: set[int] = set()
    seen: set[int] = set()
    stack = [1 << h for h in range(board.n)]
    while stack:
        r = stack.pop()
        if r in seen:
            continue
        seen.add(r)
        if any(r & f == f for f in found):
            continue
        bad = next(((a, c) for a, b, c in board.lines
                    if r >> b & 1 and not (r >> a & 1 or r >> c & 1)), None)
        if bad is None:
            found.add(r)
            continue
        if r.bit_count() < max_size:
            stack.extend(r | 1 << e for e in bad)
    # Drop any region that contains another (found before its subset was).
    return tuple(sorted((r for r in found if not any(f != r and r & f == f for f in found)),
                        key=lambda r: (r.bit_count(), r)))


@lru_cache(maxsize=64)
def region_family(board: Board) -> tuple[int, ...]:
    """A family of pairwise disjoint minimal regions, smallest first (greedy)."""
    chosen: list[int] = []
    used = 0
    for r in minimal_regions(board):
        if not r & used:
            chosen.append(r)
            used |= r
    return tuple(chosen)


def regions_to_break(board: Board, goal: Goal) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """Split the family into regions the goal cannot leave full, and the others.

    Returns (must, optional, cap): every full region of ``must`` costs a move; of the full
    ``optional`` ones all but ``cap`` do (the goal has room for at most ``cap`` of them).
    """
    must, optional = [], []
    max_pegs = goal.max_pegs if goal.max_pegs is not None else board.n
    for r in region_family(board):
        if r & goal.empty or r.bit_count() > max_pegs:
            must.append(r)
        else:
            optional.append(r)
    inside = sum(1 for r in optional if r & goal.full == r)
    extra = [(r & ~goal.full).bit_count() for r in optional if r & goal.full != r]
    room = max(0, max_pegs - goal.full.bit_count())
    cap = min(len(optional), inside + (room // min(extra) if extra else 0))
    return tuple(must), tuple(optional), cap


def moves_lower_bound(board: Board, pos: int, goal: Goal) -> int:
    """Moves still needed from ``pos`` to the goal, by full regions (0 if it is a goal)."""
    if goal.satisfied(pos):
        return 0
    must, optional, cap = regions_to_break(board, goal)
    full_must = sum(1 for r in must if pos & r == r)
    full_opt = sum(1 for r in optional if pos & r == r)
    return max(1, full_must + max(0, full_opt - cap))


def describe(board: Board, region: int) -> str:
    """The regions as hole names, for a message."""
    return " ".join(board.names[h] for h in holes_of(region))
