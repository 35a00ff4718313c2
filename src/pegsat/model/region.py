"""Regions: a problem cut down to the holes near its goal, for finding plans on huge boards.

When the goal fixes only some holes (the planning competition's invasion goals: "a peg in
row 4"; any partial pattern) and does not cap the number of pegs, a plan on a *region* of
the board is a plan on the whole board: the pegs outside the region never move, the jumps
inside it are jumps of the board, and the goal's holes are inside it. So a search may look
for a plan on the holes within distance r of the goal first, for growing r, and only then
on the whole board. This is the reasoning behind Conway's "soldiers" argument read
constructively: his golden-ratio pagoda (Berlekamp, Conway, Guy, *Winning Ways*, ch. 23)
shows a peg contributes ``phi**-d`` at distance d from the target, so the pegs that can
matter are close to it, and the rest of a 200-hole field is never touched.

Only plans cross back: a region without a plan proves nothing about the whole board (pegs
outside it might have helped), so callers never report a region's "unsolvable".

Distances are steps between neighbouring holes of a line (``a-b`` and ``b-c`` of ``a-b-c``),
so on a square lattice they are Manhattan distances.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from .board import Board
from .problem import Goal, Problem, holes_of


@dataclass(frozen=True)
class Region:
    """A problem on some of a board's holes, and the way back to the whole board."""

    problem: Problem
    holes: tuple[int, ...]  # region hole id -> hole id of the whole board
    radius: int

    def lift(self, plan, board: Board) -> tuple[int, ...]:
        """A plan of jump ids on the region as jump ids on the whole ``board``."""
        sub, h = self.problem.board, self.holes
        index = board.jump_index
        return tuple(index[(h[a], h[b], h[c])] for a, b, c in (sub.jumps[k] for k in plan))


def applies(problem: Problem) -> bool:
    """A region's plan is the whole board's: a goal on some holes only, no peg-count cap."""
    g = problem.goal
    constrained = g.full | g.empty
    return (problem.special is None and g.max_pegs is None and constrained != 0
            and constrained != problem.board.full)


def distances(board: Board, seeds) -> list[int | None]:
    """Steps from the nearest seed hole to every hole (None: unreachable)."""
    near: list[set[int]] = [set() for _ in range(board.n)]
    for a, b, c in board.lines:
        near[a].add(b)
        near[b].update((a, c))
        near[c].add(b)
    dist: list[int | None] = [None] * board.n
    queue = deque(seeds)
    for s in seeds:
        dist[s] = 0
    while queue:
        x = queue.popleft()
        dx = dist[x]
        assert dx is not None  # queued holes have their distance
        for y in near[x]:
            if dist[y] is None:
                dist[y] = dx + 1
                queue.append(y)
    return dist


def regions(problem: Problem, max_holes: int):
    """Regions by growing radius from the goal's holes, each of at most ``max_holes`` holes
    and fewer than the board's, each with a jump and a peg to move; smallest first."""
    board, g = problem.board, problem.goal
    dist = distances(board, holes_of(g.full | g.empty))
    last = -1
    for r in range(1, max(d for d in dist if d is not None) + 1):
        keep = [h for h in range(board.n) if dist[h] is not None and dist[h] <= r]  # type: ignore[operator]
        if len(keep) > max_holes or len(keep) >= board.n:
            return
        if len(keep) == last:
            continue
        last = len(keep)
        region = cut(problem, keep, r)
        if region is not None:
            yield region


def cut(problem: Problem, keep: list[int], radius: int) -> Region | None:
    """The problem on the holes ``keep`` (None when nothing could happen there)."""
    board, g = problem.board, problem.goal
    index = {h: i for i, h in enumerate(keep)}
    lines = tuple((index[a], index[b], index[c]) for a, b, c in board.lines
                  if a in index and b in index and c in index)
    if not lines:
        return None

    def mask(pos: int) -> int:
        return sum(1 << index[h] for h in holes_of(pos) if h in index)

    start, outside = mask(problem.start), (problem.start & ~sum(1 << h for h in keep)).bit_count()
    full, empty = mask(g.full), mask(g.empty)
    need = max(1, g.min_pegs - outside, full.bit_count())
    if start.bit_count() < need:
        return None
    sub = Board(f"{board.name} (holes within {radius} of the goal)", "graph",
                tuple(board.names[h] for h in keep), lines,
                tuple(board.coords[h] for h in keep) if board.coords is not None else None)
    goal = Goal(full=full, empty=empty, min_pegs=need)
    return Region(Problem(sub, start, goal, name=problem.name), tuple(keep), radius)
