"""Level-by-level search from both ends: the core of the ``moves`` and ``layers`` planners.

A *level* is a sorted array of canonical positions: each position is replaced by its least
image under a group ``G`` of board symmetries that maps the starts onto starts and the goals
onto goals, so a level holds one position per orbit. Forward level ``F_i`` holds the
positions first reached ``i`` steps from a start; backward level ``B_j`` those from which a
goal is ``j`` steps away. A step is one jump (``by="jumps"``: every jump removes a peg, so the
levels are disjoint by peg count) or one move (``by="moves"``: a chain of jumps by one peg;
a position reached again later is dropped from the later level).

Membership is orbit-wise: ``G`` maps plans onto plans, so if a position lies on a plan, so
does every image of it. A plan is read back from a position common to ``F_i`` and ``B_j``:
step back through ``F_{i-1} .. F_0`` to an image of a start, forward through ``B_{j-1} ..
B_0`` to a goal, and map the whole plan by the symmetry that takes that image to the start.

For a *self-dual* problem (a board symmetry ``s`` maps every start's complement onto a goal
and back) the backward side is never built: ``B_j = s(~F_j)``, since playing a game
backwards on complements is playing it forwards (``mirror``).

The planners decide what prunes a level (``keep``) and when to stop. Every slice of work
checks the deadline, which raises ``Timeout``, and the memory the levels hold: past
``memory_budget()`` bytes (a survey's 60 s of German levels took 10 GB) it raises
``MemoryBudget``, a kind of ``Timeout``: the answer is "unknown", never a proof.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..deadline import Deadline
from ..limits import MemoryBudget, memory_budget
from ..model.board import Board, Perm
from ..process import cores
from .bitboard import engine, permute
from .kernel import Kernel, kernel, use_pool

SLICE = 1 << 19  # positions expanded per deadline check
Keep = Callable[[np.ndarray, int], np.ndarray]


class Levels:
    """The levels of one search, grown from both ends on demand."""

    def __init__(self, board: Board, group: Sequence[Perm], starts: Sequence[int],
                 goals: Sequence[int] | None, *, by: str = "jumps", mirror: Perm | None = None) -> None:
        if by not in ("jumps", "moves"):
            raise ValueError(f"levels by {by!r}: jumps or moves")
        self.board, self.by = board, by
        self.kernel: Kernel = kernel(board, tuple(tuple(p) for p in group))
        self.group = self.kernel.group
        self.starts = tuple(starts)
        self.mirror = mirror
        self.budget = memory_budget()
        self.fwd: list[np.ndarray] = [self.level_of(self.starts)]
        #: the backward levels (None: no goal positions listed, or mirrored: never grown)
        self.bwd: list[np.ndarray] | None = None if goals is None else [self.level_of(goals)]

    def level_of(self, positions: Sequence[int]) -> np.ndarray:
        """The canonical level of the given positions."""
        k = self.kernel
        return k.unique(k.canon(k.array(positions)))

    def depth(self, side: str) -> int:
        """The index of the side's last level (the mirrored backward side follows forward)."""
        if side == "forward" or self.mirror is not None:
            return len(self.fwd) - 1
        return len(self.bwd) - 1 if self.bwd is not None else 0

    def level(self, side: str, d: int) -> np.ndarray:
        """Level ``d`` of a side (the mirrored backward side derived from the forward one)."""
        if side == "forward":
            return self.fwd[d]
        if self.mirror is not None:
            k = self.kernel
            return k.unique(k.canon(k.permute(k.complement(self.fwd[d]), self.mirror)))
        return self.side(side)[d]

    def side(self, side: str) -> list[np.ndarray]:
        """The levels kept of one side (the backward side only when it is grown)."""
        if side == "forward":
            return self.fwd
        if self.bwd is None:
            raise ValueError("this search has no backward levels")
        return self.bwd

    def expand(self, pos: np.ndarray, reverse: bool) -> np.ndarray:
        """The canonical positions one step after (``reverse``: before) some of ``pos``."""
        if self.by == "jumps":
            return self.kernel.step(pos, reverse=reverse)
        return self.kernel.moves(pos, reverse=reverse)

    def _slices(self, side: str, work: Callable[[np.ndarray], Any], deadline: Deadline) -> Iterator:
        """``work(children)`` of each slice of the side's last level, in order. At most
        ``SLICE`` positions per slice, and one slice per core at least: the core and numpy's
        sort release the GIL, so slices expand side by side."""
        levels = self.side(side)
        cur, reverse = levels[-1], side == "backward"
        size = min(SLICE, max(1024, -(-len(cur) // cores())))

        def one(lo: int) -> Any:
            deadline.check()
            use_pool()  # a pool thread's own context: its arrays from the pool too (``kernel.use_pool``)
            return work(self.expand(cur[lo:lo + size], reverse))

        los = range(0, len(cur), size)
        threads = min(cores(), len(los))
        with ThreadPoolExecutor(max(1, threads)) as pool:
            try:
                yield from (pool.map(one, los) if threads > 1 else map(one, los))
            except BaseException:
                pool.shutdown(cancel_futures=True)
                raise

    def grow(self, side: str, deadline: Deadline, keep: Keep | None = None) -> np.ndarray:
        """Build the side's next level; ``keep(level, depth)`` prunes it before it is stored."""
        return self.grow_until(side, deadline, keep)[0]

    def grow_until(self, side: str, deadline: Deadline, keep: Keep | None = None,
                   meet: Callable[[np.ndarray], np.ndarray] | None = None,
                   prune: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[np.ndarray, bool]:
        """(the side's next level, False), or, as soon as ``meet(part)`` (a mask over a slice's
        distinct new positions) holds somewhere, (those positions, True) with the level left
        unbuilt: a search that stops at its first meeting skips the rest of its last level.
        ``prune(part)``: the slice's positions worth keeping, on the slices' threads."""
        k = self.kernel
        levels = self.side(side)
        held = sum(a.nbytes for a in self.fwd + (self.bwd or []))

        def distinct(children: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
            part = k.unique(children, own=True)
            if self.by == "moves":  # a move may reach a position of any earlier level
                for old in levels:
                    part = part[~k.member(old, part)]
            if prune is not None:
                part = prune(part)
            return part, (None if meet is None else part[meet(part)])

        parts = []
        for part, hits in self._slices(side, distinct, deadline):
            if hits is not None and len(hits):
                return hits, True
            parts.append(part)
            if held + 2 * sum(p.nbytes for p in parts) > self.budget:
                gb = self.budget / (1 << 30)
                raise MemoryBudget(f"memory budget: the levels would outgrow {gb:.1f} GB (PEGSAT_MEMORY_GB)")
        # Each distinct successor once: the slices' successors overlap a lot. The slices go
        # as soon as they are copied out: the sort's own buffer, as large again, comes on
        # top (held + twice the slices: what the budget above is checked against).
        if len(parts) > 1:
            new = k.concat(parts)
            parts.clear()
            new = k.unique(new, own=True)
        else:
            new = parts[0] if parts else k.empty()
        del parts
        deadline.check()
        if keep is not None:
            new = keep(new, len(levels))
        levels.append(new)
        return new, False

    def probe(self, side: str, wanted: Callable[[np.ndarray], np.ndarray], deadline: Deadline) -> np.ndarray:
        """The canonical positions one step beyond the side's last level for which
        ``wanted(children)`` is true, without building that level: a search that only needs
        to know whether its last level would meet the other side skips the sort."""
        k = self.kernel
        hits = list(self._slices(side, lambda c: c[wanted(c)], deadline))
        deadline.check()
        return k.unique(k.concat(hits), own=True)

    def contains(self, side: str, d: int, pos: int) -> bool:
        """``pos`` (any member of its orbit) lies in the side's level ``d``."""
        if side == "backward" and self.mirror is not None:
            pos = permute(self.mirror, pos ^ self.board.full)
            side = "forward"
        return self._in(self.side(side)[d], pos)

    def _in(self, level: np.ndarray, pos: int) -> bool:
        k = self.kernel
        return bool(k.member(level, k.canon(k.array([pos])))[0])

    def steps(self, pos: int, reverse: bool = False) -> Iterator[tuple[int, list[int]]]:
        """(position, jumps in play order) one step after (``reverse``: before) ``pos``."""
        return steps(self.board, self.by, pos, reverse)

    def walk(self, pos: int, i: int, j: int, fwd: Sequence[np.ndarray] | None = None
             ) -> tuple[int, tuple[int, ...]]:
        """(start, plan) through a position of ``F_i`` whose orbit lies in ``B_j``. ``fwd``:
        other forward levels (sorted, canonical; each position one step after one of the
        level before), such as a beam's."""
        fwd = self.fwd if fwd is None else fwd
        return walk(self.board, self.group, self.starts, self.by, pos, i, j,
                    lambda d, q: self._in(fwd[d], q), lambda d, z: self.contains("backward", d, z))


Member = Callable[[int, int], bool]  # (level, position): the position's orbit lies in the level


def steps(board: Board, by: str, pos: int, reverse: bool = False) -> Iterator[tuple[int, list[int]]]:
    """(position, jumps in play order) one step (a jump, or a move) after (``reverse``:
    before) ``pos``."""
    if by == "moves":
        yield from moves_from(board, pos, reverse)
        return
    eng = engine(board)
    for k in (eng.unplayable(pos) if reverse else eng.legal(pos)):
        yield pos ^ eng.flip[k], [k]


def walk(board: Board, group: Sequence[Perm], starts: Sequence[int], by: str, pos: int, i: int, j: int,
         in_forward: Member, in_backward: Member) -> tuple[int, tuple[int, ...]]:
    """(start, plan) through ``pos``, a position of forward level ``i`` whose orbit lies in
    backward level ``j``: back through the forward levels to an image of a start, on through
    the backward levels to a goal, and the whole plan mapped by the symmetry that takes that
    image to the start. The levels are asked through ``in_forward`` and ``in_backward``
    (arrays in memory, or partition files on disk: ``engine.disk``)."""
    head: list[int] = []
    cur = pos
    for d in range(i, 0, -1):
        cur, chain = next((q, c) for q, c in steps(board, by, cur, reverse=True) if in_forward(d - 1, q))
        head[:0] = chain
    tail: list[int] = []
    end = pos
    for d in range(j, 0, -1):
        end, chain = next((z, c) for z, c in steps(board, by, end) if in_backward(d - 1, z))
        tail.extend(chain)
    # ``cur`` is an image of a start under the group: map the plan back.
    wanted = set(starts)
    g = next(p for p in group if permute(p, cur) in wanted)
    jumps, index = board.jumps, board.jump_index
    plan = [index[(g[a], g[b], g[c])] for a, b, c in (jumps[k] for k in head + tail)]
    return permute(g, cur), tuple(plan)


def moves_from(board: Board, pos: int, reverse: bool = False) -> Iterator[tuple[int, list[int]]]:
    """(position, jumps of the move in play order) one move after (before) ``pos``."""
    eng = engine(board)
    jumps = board.jumps
    by_src: dict[int, list[int]] = {}
    by_dst: dict[int, list[int]] = {}
    for k, (a, _, c) in enumerate(jumps):
        by_src.setdefault(a, []).append(k)
        by_dst.setdefault(c, []).append(k)
    stack: list[tuple[int, int | None, list[int]]] = [(pos, None, [])]
    while stack:
        cur, peg, chain = stack.pop()
        if peg is None:
            cands = eng.unplayable(cur) if reverse else eng.legal(cur)
        else:
            follow = by_dst if reverse else by_src
            cands = [k for k in follow.get(peg, ())
                     if (cur & eng.flip[k] == eng.land[k] if reverse else
                         cur & eng.need[k] == eng.need[k] and not cur & eng.land[k])]
        for k in cands:
            a, _, c = jumps[k]
            nxt = cur ^ eng.flip[k]
            seq = [k] + chain if reverse else chain + [k]
            yield nxt, seq
            stack.append((nxt, a if reverse else c, seq))
