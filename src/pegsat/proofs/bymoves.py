"""The independent check of a ``moves`` certificate: no plan has fewer than ``M`` moves.

A move is a chain of jumps by one peg. A plan of ``L`` moves passes through one position a
move, ``x_0`` (the start) to ``x_L`` (a goal position). The certificate gives the levels of
a breadth-first search by moves from both ends (``planners.moves``), each a sorted array of
positions up to the symmetries ``group`` (each stored as its least image): forward
``F_0 .. F_a``, backward ``B_0 .. B_b``; the upper bound ``U`` (a plan's moves) the search
pruned under; and pairwise disjoint Merson regions (``analysis.merson``: every line whose
middle hole is in a region has an end in it). The check, sharing no search code (the board
model, ``independent.Closure``'s least images), verifies:

1. the premises: every symmetry maps lines onto lines and fixes the start and the goal;
   every region is a Merson region, and no two share a hole. While a region is full no jump
   lands in it, so the first jump that changes it starts inside it, by a peg that sat there
   when its move began; a move begins at one hole, so disjoint full regions that must be
   broken need distinct moves (R. Merson's bound; J. D. Beasley, *The Ins and Outs of Peg
   Solitaire*, OUP 1985, ch. 5). Hence a position needs at least ``h(x)`` more moves (the
   regions full in it but in no goal position, the least over goal positions; 1 for a
   position that is not a goal), and at least ``h_b(x)`` moves from the start (the regions
   full at the start, not in it). A position ``d`` moves from its end with ``d + h >= U``
   lies on no plan of fewer than ``U`` moves: it is *excluded at depth d* (and at any
   greater depth);
2. every level sorted, without repeats, on the board; the start in ``F_0`` (its least
   image) or excluded, every goal position in ``B_0`` or excluded;
3. closure: every position one move from ``F_d`` (``d < a``) is excluded at depth ``d + 1``
   or has its least image in one of ``F_0 .. F_{d+1}``; backwards, every position one move
   *undone* from ``B_d`` (the peg walked back along its chain) likewise in ``B_0 ..
   B_{d+1}``. By induction a plan of fewer than ``U`` moves has ``x_i`` (``i <= a``) in
   ``F_0 .. F_i`` up to a symmetry (a symmetry maps chains onto chains), and ``x_{L-j}``
   (``j <= b``) in ``B_0 .. B_j``;
4. the meeting: no forward level shares a position with a backward level, so no plan has at
   most ``a + b`` moves (its ``x_min(a, L)`` would be in both); with a ``probe`` of a side,
   no position one move beyond its last level (not excluded at that depth) is in a level of
   the other side, so none has ``a + b + 1`` either. A side whose last level is empty holds
   every position of a plan of fewer than ``U`` moves, its goal position too, which no
   level of the other side may then share: every plan has at least ``U`` moves.

So every plan has at least ``M`` moves: ``a + b + 1`` (one more with a probe), or ``U``
when a side ran dry; ``M`` is at most ``U``. With a plan of ``M`` moves (replayed by the
verifier) the fewest moves are proven.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ..deadline import Deadline
from ..model.problem import Problem, goal_positions
from .independent import Closure, Walk, _member, distinct, premises

CHUNK = 1 << 15  # positions of a level moved together (a chain's children: tens a position)
#: bytes of memory a check takes per position of the certificate: the levels, held once, and
#: room for a chunk's children and their lookups
BYTES_PER_POSITION = 10
SLICE = 1 << 16  # children weighed and mapped together: arrays under 1 MB, which a process that
# returns large blocks to the system at once (``limits.give_back_freed_memory``) keeps in its heap
SIDES = ("forward", "backward")


def one_move(x: np.ndarray, jumps: Sequence[tuple[int, int, int]], back: bool = False) -> np.ndarray:
    """Every position one move (a chain of jumps by one peg) from each of ``x``, with repeats;
    ``back``: one move undone (a peg walked back along its chain: a jump undone leaves a peg
    on its first hole and on the hole jumped, its landing hole empty)."""
    flip = [np.uint64((1 << a) | (1 << b) | (1 << c)) for a, b, c in jumps]
    want = [np.uint64(1 << c) if back else np.uint64((1 << a) | (1 << b)) for a, b, c in jumps]
    frm = [c if back else a for a, _, c in jumps]  # the moving peg's hole before the jump
    to = [a if back else c for a, _, c in jumps]
    by_hole: dict[int, list[int]] = {}
    for j, h in enumerate(frm):
        by_hole.setdefault(h, []).append(j)
    out: list[np.ndarray] = []
    frontier: dict[int, list[np.ndarray]] = {}
    for j in range(len(jumps)):  # the chain's first jump: any peg
        ok = (x & flip[j]) == want[j]
        if ok.any():
            frontier.setdefault(to[j], []).append(x[ok] ^ flip[j])
    while frontier:  # its next jumps: the same peg, from where it landed
        nxt: dict[int, list[np.ndarray]] = {}
        for h, ys in frontier.items():
            y = distinct(np.concatenate(ys))
            out.append(y)
            for j in by_hole.get(h, ()):
                ok = (y & flip[j]) == want[j]
                if ok.any():
                    nxt.setdefault(to[j], []).append(y[ok] ^ flip[j])
        frontier = nxt
    return np.concatenate(out) if out else np.zeros(0, dtype=np.uint64)


class Bound:
    """Merson's bounds over arrays of positions (the module's docstring, 1)."""

    def __init__(self, problem: Problem, regions: Sequence[int], goals: Sequence[int], closure: Closure,
                 upper: int) -> None:
        self.regions = [np.uint64(r) for r in regions]
        self.closure, self.upper = closure, upper
        # per goal position, the regions it leaves full (those cost no move there): a
        # position's count is its full regions less the most of them one goal position
        # keeps; goal positions keeping the same ones are taken once
        kept = {tuple(i for i, r in enumerate(regions) if g & r == r) for g in goals}
        self.kept = sorted(k for k in kept if k)
        self.start_full = [i for i, r in enumerate(regions) if problem.start & r == r]

    def _full(self, x: np.ndarray) -> list[np.ndarray]:
        """Per region, which of ``x`` hold it full."""
        return [(x & r) == r for r in self.regions]

    @staticmethod
    def _count(masks: Sequence[np.ndarray], size: int) -> np.ndarray:
        out = np.zeros(size, dtype=np.int64)
        for m in masks:
            out += m
        return out

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Moves still needed to reach a goal position from each of ``x``."""
        full = self._full(x)
        h = self._count(full, len(x))
        if self.kept:
            h -= np.max([self._count([full[i] for i in k], len(x)) for k in self.kept], axis=0)
        h = np.maximum(h, 1)
        h[self.closure.is_goal(x)] = 0
        return h

    def backward(self, x: np.ndarray) -> np.ndarray:
        """Moves needed from the start to reach each of ``x``: the regions full at the start
        that it has broken."""
        full = self._full(x)
        return self._count([~full[i] for i in self.start_full], len(x))

    def excluded(self, side: str, x: np.ndarray, depth: int) -> np.ndarray:
        """Which of ``x``, ``depth`` moves from ``side``'s end, lie on no plan of fewer than
        ``upper`` moves."""
        h = self.forward(x) if side == "forward" else self.backward(x)
        return depth + h >= self.upper


def check(problem: Problem, forward: Sequence[np.ndarray], backward: Sequence[np.ndarray],
          group: Sequence[Sequence[int]], regions: Sequence[int], upper: int, probe: str,
          deadline: Deadline | None = None) -> tuple[Walk, int]:
    """(the walk, the moves ``M`` every plan has at least) of a ``moves`` certificate (the
    module's docstring); the walk's ``ok`` is None when the deadline came first."""
    t0 = time.perf_counter()
    deadline = deadline or Deadline()
    board = problem.board
    n = board.n
    walked = 0

    def done(ok: bool | None, message: str, moves: int = 0) -> tuple[Walk, int]:
        return Walk(ok, walked, time.perf_counter() - t0, message), moves

    if n > 64:
        return done(False, "move bounds are checked on boards of at most 64 holes")
    why = premises(problem, group, [], start=True)
    if why is not None:
        return done(False, why)
    goals = goal_positions(problem)
    if goals is None:
        return done(False, "move bounds are checked for a goal whose positions can be listed")
    if not isinstance(upper, int) or upper < 1:
        return done(False, "the upper bound is not a positive whole number of moves")
    used = 0
    for i, r in enumerate(regions):
        if not isinstance(r, int) or r <= 0 or r >> n:
            return done(False, f"region {i} is not a set of the board's holes")
        if r & used:
            return done(False, f"region {i} shares a hole with another")
        used |= r
        open_line = next(((a, b, c) for a, b, c in board.jumps
                          if r >> b & 1 and not (r >> a & 1 or r >> c & 1)), None)
        if open_line is not None:
            a, b, c = open_line
            return done(False, f"region {i} is not a Merson region: line {board.names[a]}-{board.names[b]}-"
                        f"{board.names[c]} has its middle in it and neither end")
    if not forward or not backward:
        return done(False, "a level search by moves has a forward and a backward level 0")
    if probe not in ("", *SIDES):
        return done(False, f"the probed side is {probe!r}")
    levels = {"forward": list(forward), "backward": list(backward)}
    for side, lvs in levels.items():
        for d, x in enumerate(lvs):
            if not isinstance(x, np.ndarray) or x.dtype != np.uint64 or x.ndim != 1:
                return done(False, f"{_name(side, d)} is not a list of 64-bit positions")
            if not bool(np.all(x[1:] > x[:-1])):
                return done(False, f"{_name(side, d)} is not sorted without repeats")
            if len(x) and int(x[-1]) >> n:
                return done(False, f"{_name(side, d)} names a hole the board does not have")
    a, b = len(forward) - 1, len(backward) - 1
    dry = next((s for s in SIDES if not len(levels[s][-1])), "")
    if dry and probe:
        return done(False, f"the {dry} side ran dry: there is nothing beyond its last level to probe")
    moves = upper if dry else a + b + 1 + bool(probe)
    if moves > upper:
        return done(False, f"{a + 1} forward and {b + 1} backward levels{' and a probe' if probe else ''} "
                    f"say {moves} moves, more than the bound {upper} they were pruned under")

    closure = Closure(problem, (), tuple(tuple(p) for p in group), (), None)
    bound = Bound(problem, regions, goals, closure, upper)

    def least(x: np.ndarray) -> np.ndarray:
        return closure.canonical(x)

    def kept(side: str, x: np.ndarray, depth: int) -> np.ndarray:
        """The least images of ``x`` not excluded at ``depth`` (weighed as least images, as
        the levels were pruned; the bound holds for any image: a symmetry maps plans onto
        plans)."""
        out = []
        for lo in range(0, len(x), SLICE):
            y = least(x[lo:lo + SLICE])
            out.append(y[~bound.excluded(side, y, depth)])
        return np.concatenate(out) if out else x

    ends = {"forward": [problem.start], "backward": list(goals)}
    for side, positions in ends.items():
        x = kept(side, np.array(positions, dtype=np.uint64), 0)
        if not _member(levels[side][0], x).all():
            what = "the start is" if side == "forward" else "a goal position is"
            return done(False, f"{what} neither in {_name(side, 0)} nor excluded")

    def within(side: str, x: np.ndarray) -> np.ndarray:
        """Which of ``x`` are in a level of ``side`` (the levels held once, never merged)."""
        hit = np.zeros(len(x), dtype=bool)
        for level in levels[side]:
            hit |= _member(level, x)
        return hit

    def beyond(side: str, d: int):
        """The positions one move beyond ``side``'s level ``d`` that are not excluded, as
        least images, a chunk at a time."""
        nonlocal walked
        x = levels[side][d]
        for lo in range(0, len(x), CHUNK):
            if deadline.expired():
                raise _Late(f"time limit in {_name(side, d)}")
            kids = one_move(x[lo:lo + CHUNK], board.jumps, back=side == "backward")
            walked += len(kids)
            yield distinct(kept(side, distinct(kids), d + 1))

    try:
        for side, last in (("forward", a), ("backward", b)):
            for d in range(last):
                for kids in beyond(side, d):
                    for k in range(d + 1, -1, -1):  # the next level first: most are there
                        kids = kids[~_member(levels[side][k], kids)]
                    if len(kids):
                        by = "one move" if side == "forward" else "one move undone"
                        return done(False, f"position {int(kids[0]):#x} follows {_name(side, d)} by {by} but "
                                    f"is neither excluded nor in {_name(side, 0)} .. {_name(side, d + 1)}")
        for x in levels["forward"]:
            for lo in range(0, len(x), SLICE):
                if deadline.expired():
                    raise _Late("time limit while the forward levels are met with the backward ones")
                met = within("backward", x[lo:lo + SLICE])
                if met.any():
                    return done(False, f"position {int(x[lo:lo + SLICE][met][0]):#x} is in a forward and a "
                                "backward level: a plan may pass through it")
        if probe:
            other = SIDES[probe == "forward"]
            for kids in beyond(probe, len(levels[probe]) - 1):
                hit = within(other, kids)
                if hit.any():
                    return done(False, f"position {int(kids[hit][0]):#x}, one move beyond the probed "
                                f"{_name(probe, len(levels[probe]) - 1)}, is in a {other} level")
    except _Late as exc:
        return done(None, str(exc))
    how = (f"the {dry} side ran dry" if dry else "no forward level meets a backward one"
           + (f", nor does one move beyond the {probe} side" if probe else ""))
    return done(True, f"{a + 1} forward and {b + 1} backward levels by moves checked ({len(group)} "
                f"symmetries, {len(regions)} Merson regions, bound {upper}): each closed under moves into "
                f"the levels up to the next (backward: moves undone), {how}; {walked} positions one move "
                f"away walked: every plan has at least {moves} moves", moves)


class _Late(Exception):
    """The deadline came in the middle of a walk."""


def _name(side: str, d: int) -> str:
    return f"level {d}" if side == "forward" else f"backward level {d}"
