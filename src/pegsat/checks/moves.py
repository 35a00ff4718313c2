"""The independent check of a ``moves`` certificate: no plan has fewer than ``M`` moves.

A move is a chain of jumps by one peg. A plan of ``L`` moves passes through one position a
move, ``x_0`` (the start) to ``x_L`` (a goal position). The certificate gives the levels of
a breadth-first search by moves from both ends (``planners.moves``), each a sorted array of
positions up to the symmetries ``group`` (each stored as its least image): forward
``F_0 .. F_a``, backward ``B_0 .. B_b``; the upper bound ``U`` (a plan's moves) the search
pruned under; the integer pagodas it pruned with; and pairwise disjoint Merson regions
(``analysis.merson``: every line whose middle hole is in a region has an end in it). The
check, sharing no search code (the board model, ``closure.Closure``'s least images and
weights), verifies:

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
   greater depth). Every pagoda (integer weights, raised by no jump, with a floor no goal
   position weighs less than) excludes, at any depth, a forward position weighing less than
   its floor (it cannot reach the goal) and a backward one weighing more than the start (the
   start cannot reach it);
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

A level is one file (a search in memory) or split into partitions, a position's being the
top bits of its product with ``MULTIPLIER`` (a search on disk, ``engine.disk``;
checked for every position read). Partition counts are powers of two, so the partition of a
level split fewer ways holding a position is named by the top bits of its partition in one
split more ways: children are sent by the most partitions among the levels they are looked
up in, and partition ``q`` is looked up in one part of each. While the levels fit this
process's memory each is loaded once and children are looked up as they are made; otherwise
each step (a level's children; the meeting; the probe) runs in two rounds of tasks on
``kit.run_steps`` (here, or Dask's map): every partition expanded, its children's least
images written to bucket files by target partition, then every target partition looked up
holding one part of each level (delayed duplicate detection, as the levels check does); a
level whose buckets do not fit the disk in rounds of its partitions, each looked up (or
added to the level rebuilt) before the next is expanded. A check of hours keeps a journal of
its steps and goes on where it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from .. import sealed
from ..deadline import Deadline
from ..limits import memory_budget
from ..model.codec import problem_to_json
from ..model.problem import Problem, goal_positions
from .closure import (
    BUCKET,
    UNSETTLED,
    Buckets,
    Closure,
    Runner,
    absent,
    distinct,
    member,
    merged,
    premises,
    split,
    whole,
)
from .evidence import Context, companion, pagodas_of, scratch, sha256
from .kit import (
    MULTIPLIER,
    REBUILT,
    SIDES,
    Journal,
    Loader,
    Step,
    built_path,
    drop_kept,
    grouped,
    journal_key,
    kept_levels,
    load_built,
    load_level_part,
    overstated,
    part_fault,
    partition,
    run_steps,
    save_built,
    scratch_dir,
    with_built,
)
from .positions import read_part
from .verdict import Verdict, judged, rejected, restated, unsettled

CHUNK = 1 << 15  # positions of a level moved together (a chain's children: tens a position)
#: bytes of memory a check takes per position of the certificate: the levels, held once, and
#: room for a chunk's children and their lookups
BYTES_PER_POSITION = 10
#: bytes of memory a rebuild takes per position of the certificate: each side's levels as one
#: sorted set, remade as a level joins it, and the last level (German d4 -> d4: 1.2 GB for 31
#: million positions stated)
REBUILD_BYTES = 40
SLICE = 1 << 16  # children weighed and mapped together: arrays under 1 MB, which a process that
# returns large blocks to the system at once (``limits.give_back_freed_memory``) keeps in its heap


def one_move(x: np.ndarray, jumps: Sequence[tuple[int, int, int]], back: bool = False,
             compiled: bool = False) -> np.ndarray:
    """Every position one move (a chain of jumps by one peg) from each of ``x``, with repeats;
    ``back``: one move undone (a peg walked back along its chain: a jump undone leaves a peg
    on its first hole and on the hole jumped, its landing hole empty). ``compiled``: by
    ``_check.moves`` (parent by parent), else hop by hop in numpy, the reference."""
    flip = [np.uint64((1 << a) | (1 << b) | (1 << c)) for a, b, c in jumps]
    want = [np.uint64(1 << c) if back else np.uint64((1 << a) | (1 << b)) for a, b, c in jumps]
    frm = [c if back else a for a, _, c in jumps]  # the moving peg's hole before the jump
    to = [a if back else c for a, _, c in jumps]
    if compiled:
        from . import _check

        order = sorted(range(len(jumps)), key=lambda j: frm[j])
        holes = max([*frm, *to], default=0) + 1
        first = np.searchsorted(np.array([frm[j] for j in order]), np.arange(holes + 1)).astype(np.uint64)
        f, w, a, t = (np.array([seq[j] for j in order], dtype=np.uint64) for seq in (flip, want, frm, to))
        got = _check.moves(np.ascontiguousarray(x, dtype=np.uint64), f, w, a, t, first)
        return np.frombuffer(got, dtype=np.uint64)
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
    """Merson's bounds and the pagodas' cuts over arrays of positions (the module's
    docstring, 1)."""

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

    def cut(self, side: str, x: np.ndarray) -> np.ndarray:
        """Which of ``x`` a pagoda cuts: forward, weighing below its floor (no goal position
        does, and no jump raises a pagoda: the goal is out of reach); backward, weighing
        more than the start (out of the start's reach)."""
        backward = side == "backward"
        return self.closure.cut(x, floors=not backward, above=backward)

    def excluded(self, side: str, x: np.ndarray, depth: int) -> np.ndarray:
        """Which of ``x``, ``depth`` moves from ``side``'s end, lie on no plan of fewer than
        ``upper`` moves."""
        h = self.forward(x) if side == "forward" else self.backward(x)
        out = depth + h >= self.upper
        return out | self.cut(side, x) if self.closure.pagodas else out




@dataclass(frozen=True)
class Moves:
    """A moves check, a task at a time (everything a task needs: picklable for Dask).
    ``levels[side][d][p]`` loads partition ``p`` of ``side``'s level ``d``. ``inline``: the
    levels are held in this process (each part loaded once) and children are looked up as
    they are made; otherwise they wait in bucket files under ``buckets`` (a directory every
    task sees) and a lookup task holds one partition of each level it reads."""

    bound: Bound
    levels: dict[str, tuple[tuple[Loader, ...], ...]]
    buckets: str
    inline: bool
    held: dict[tuple[str, int, int], np.ndarray] = field(default_factory=dict, compare=False, repr=False)
    built: str = ""  # rebuilding on disk: where the levels the check builds go ("": levels read)
    stated: dict[str, tuple[int, ...]] = field(default_factory=dict)  # rebuilding: each side's stated sizes

    @property
    def closure(self) -> Closure:
        return self.bound.closure

    def parts(self, side: str, d: int) -> int:
        """The partitions of ``side``'s level ``d``."""
        return len(self.levels[side][d])

    def finest(self, side: str, upto: int) -> int:
        """The most partitions of ``side``'s levels 0 .. ``upto``: children are sent by it (a
        level of fewer partitions holds a partition's positions in the one its top bits name)."""
        return max(self.parts(side, k) for k in range(upto + 1))

    def part(self, side: str, d: int, q: int, of: int,
             kept: dict[tuple[str, int, int], np.ndarray] | None = None) -> np.ndarray:
        """The part of ``side``'s level ``d`` holding what partition ``q`` of ``of`` would
        (``of`` at least its partitions), checked; ``_Bad`` says why it is not one. Loaded
        once: ``held`` keeps it (inline), or ``kept`` (a lookup task, for its bucket files)."""
        parts = self.parts(side, d)
        p = q >> (of.bit_length() - parts.bit_length())
        key = (side, d, p)
        store = self.held if self.inline else kept
        if store is not None and key in store:
            return store[key]
        name = f"{_name(side, d)} part {p}"
        try:
            x = self.levels[side][d][p]()
        except ValueError as exc:
            raise _Bad(str(exc)) from None
        n = self.closure.problem.board.n
        if not isinstance(x, np.ndarray) or x.dtype != np.uint64 or x.ndim != 1:
            raise _Bad(f"{name} is not a list of 64-bit positions")
        if (fault := part_fault(x, n, None, parts, p, self.closure.compiled)) is not None:
            raise _Bad(f"{name} {fault}")
        if store is not None:
            store[key] = x
        return x

    def kept(self, side: str, x: np.ndarray, depth: int) -> np.ndarray:
        """The least images of ``x`` not excluded at ``depth`` (weighed as least images, as
        the levels were pruned; the bound holds for any image: a symmetry maps plans onto
        plans)."""
        out = []
        for lo in range(0, len(x), SLICE):
            y = self.closure.canonical(x[lo:lo + SLICE])
            out.append(y[~self.bound.excluded(side, y, depth)])
        return np.concatenate(out) if out else x

    def bucket_dir(self, key: str) -> Path:
        """Where step ``key``'s children wait for their lookups."""
        return Path(self.buckets) / key.replace(" ", "-")

    def aim(self, how: str, side: str, d: int) -> tuple[str, int, int]:
        """Where ``side``'s level ``d``'s children are looked up: (side, its last level read,
        the partitions they are sent by)."""
        if how == "closed":
            return side, d + 1, self.finest(side, d + 1)
        other = SIDES[side == "forward"]
        last = len(self.levels[other]) - 1
        return other, last, self.finest(other, last)

    def expand(self, how: str, side: str, d: int, p: int, targets: tuple[int, ...] | None = None,
               seconds: float | None = None) -> tuple[int, str | None]:
        """(children, None or why not) of partition ``p`` of ``side``'s level ``d``: every
        position one move away (backward: one move undone) that is not excluded at ``d + 1``,
        as its least image, looked up (``how``: "closed", in the side's levels up to ``d + 1``;
        "probe", in none of the other side's), now (``inline``) or from buckets by ``lookup``;
        of the target partitions ``targets`` only (a pass; None: all)."""
        deadline = Deadline().within(seconds)
        try:
            x = self.part(side, d, p, self.parts(side, d))
        except _Bad as exc:
            return 0, str(exc)
        _, _, parts = self.aim(how, side, d)
        wanted = range(parts) if targets is None else sorted(set(targets))
        out = self.bucket_dir(f"{how} {side} {d}")
        if not self.inline:
            out.mkdir(exist_ok=True)
        children = 0
        buckets = Buckets(out, parts, p)
        for lo in range(0, len(x), CHUNK):
            if deadline.expired():
                return children, f"{UNSETTLED}time limit in {_name(side, d)}"
            kids = one_move(x[lo:lo + CHUNK], self.closure.problem.board.jumps, side == "backward",
                            self.closure.compiled)
            children += len(kids)
            compiled = self.closure.compiled
            kids = distinct(self.kept(side, distinct(kids, compiled), d + 1), compiled)
            cut = [0, len(kids)]
            if parts > 1:  # by partition, each still sorted
                kids, cut = grouped(kids, parts, compiled)
            for q in wanted:
                if cut[q + 1] > cut[q]:
                    mine = kids[cut[q]:cut[q + 1]]
                    why = self.look(how, side, d, q, mine) if self.inline else buckets.add(q, mine)
                    if why is not None:
                        return children, why
        return children, None if self.inline else buckets.flush()

    def lookup(self, how: str, side: str, d: int, q: int, seconds: float | None = None) -> str | None:
        """None, or why not: the children ``side``'s level ``d`` sent to partition ``q`` pass
        (``expand``'s ``how``)."""
        files = sorted(self.bucket_dir(f"{how} {side} {d}").glob(f"{q}-*.bkt"))
        kept: dict[tuple[str, int, int], np.ndarray] = {}  # the parts read, for every file
        deadline = Deadline().within(seconds)
        try:  # the files' sorted runs merged, millions looked up at a time (``merged``)
            runs = (sealed.read(f, BUCKET, 1, "", 1 << 40) for f in files)
            for kids in merged(runs, self.closure.compiled):
                if deadline.expired():
                    return f"{UNSETTLED}time limit while looking up {_name(side, d)}'s children"
                why = self.look(how, side, d, q, kids, kept)
                if why is not None:
                    return why
        except sealed.Stale as exc:
            return f"{UNSETTLED}a bucket file of the check was lost ({exc})"
        return None

    def look(self, how: str, side: str, d: int, q: int, kids: np.ndarray,
             kept: dict[tuple[str, int, int], np.ndarray] | None = None) -> str | None:
        """``kids`` (of target partition ``q``, sorted without repeats) looked up: None, or why
        they fail (``kept``: the parts a lookup task has read)."""
        tside, last, parts = self.aim(how, side, d)
        compiled = self.closure.compiled
        try:
            if how == "closed":
                for k in range(last, -1, -1):  # the next level first: most are there
                    kids = absent(self.part(side, k, q, parts, kept), kids, compiled, ordered=True)
                if len(kids):
                    by = "one move" if side == "forward" else "one move undone"
                    return (f"position {int(kids[0]):#x} follows {_name(side, d)} by {by} but is neither "
                            f"excluded nor in {_name(side, 0)} .. {_name(side, d + 1)}")
                return None
            for k in range(last + 1):
                met, _ = split(self.part(tside, k, q, parts, kept), kids, compiled, ordered=True)
                if len(met):
                    return (f"position {int(met[0]):#x}, one move beyond the probed {_name(side, d)}, "
                            f"is in a {tside} level")
        except _Bad as exc:
            return str(exc)
        return None

    def build(self, side: str, d: int, q: int, seconds: float | None = None) -> str | None:
        """Rebuild partition ``q`` of ``side``'s level ``d + 1``: the children level ``d`` sent
        it (least images, not excluded) that no level ``0 .. d`` holds, a bucket file at a
        time (the fresh ones merged as they grow: the memory stays about the part's), written
        for the next step to read with what the rounds before built of it (``kit.run_steps``;
        a round walked again adds nothing); None, or why not."""
        deadline = Deadline().within(seconds)
        parts = self.finest(side, d + 1)  # the rebuilt levels' partitions never shrink: q is a part
        kept: dict[tuple[str, int, int], np.ndarray] = {}
        compiled = self.closure.compiled
        fresh: list[np.ndarray] = []
        size = 0
        for f in sorted(self.bucket_dir(f"closed {side} {d}").glob(f"{q}-*.bkt")):
            if deadline.expired():
                return f"{UNSETTLED}time limit while rebuilding {_name(side, d + 1)}"
            try:
                kids = sealed.read(f, BUCKET, 1, "", 1 << 40)
                for k in range(d, -1, -1):
                    kids = kids[~member(self.part(side, k, q, parts, kept), kids)]
            except sealed.Stale as exc:
                return f"{UNSETTLED}a bucket file of the check was lost ({exc})"
            except _Bad as exc:
                return str(exc)
            fresh.append(kids)
            size += len(kids)
            if len(fresh) > 1 and size > 2 * len(fresh[0]):  # files share children: merged as they grow
                fresh = [distinct(np.concatenate(fresh), compiled, mine=True)]
                size = len(fresh[0])
        path = built_path(self.built, side, d + 1, q)
        if path.exists() and not fresh:  # the rounds before's, and nothing to add
            return None
        x = (distinct(np.concatenate(fresh), compiled, mine=True) if fresh
             else np.zeros(0, dtype=np.uint64))
        try:
            x = with_built(path, x)
        except ValueError as exc:
            return str(exc)
        return self.write_built(side, d + 1, q, x)

    def write_built(self, side: str, d: int, q: int, x: np.ndarray) -> str | None:
        """Partition ``q`` of ``side``'s rebuilt level ``d`` written; None, or why not (a part
        larger than the whole level the certificate states: it could not have been closed)."""
        return save_built(self.built, side, d, q, x, _name(side, d), self.stated[side][d],
                          " for the whole level")

    def meet(self, q: int, seconds: float | None = None) -> str | None:
        """None, or why not: no position of partition ``q`` (of the most partitions of any
        level) is in a forward level and a backward one."""
        parts = max(self.finest(s, len(self.levels[s]) - 1) for s in SIDES)
        try:
            back = [self.part("backward", j, q, parts) for j in range(len(self.levels["backward"]))]
            for k in range(len(self.levels["forward"])):
                if Deadline().within(seconds).expired():
                    return f"{UNSETTLED}time limit while the forward levels are met with the backward ones"
                x = self.part("forward", k, q, parts)
                for lo in range(0, len(x), SLICE):
                    y = x[lo:lo + SLICE]
                    y = y[partition(y, parts) == q] if self.parts("forward", k) < parts else y
                    met = np.zeros(len(y), dtype=bool)
                    for level in back:
                        met |= member(level, y)
                    if met.any():
                        return (f"position {int(y[met][0]):#x} is in a forward and a backward level: a plan "
                                "may pass through it")
        except _Bad as exc:
            return str(exc)
        return None


def check(problem: Problem, forward: Sequence[Sequence[Any]], backward: Sequence[Sequence[Any]],
          group: Sequence[Sequence[int]], regions: Sequence[int], upper: int, probe: str,
          deadline: Deadline | None = None, *, pagodas: Sequence[tuple[Sequence[int], int]] = (),
          sizes: dict[str, list[int]] | None = None, inline: bool = True,
          runner: Runner | None = None, scratch: str | None = None, room: int | None = None,
          journal: Journal | None = None, progress: Callable[[str], None] | None = None,
          compiled: bool = True, rebuild: bool = False) -> tuple[Verdict, int]:
    """(the walk, the moves ``M`` every plan has at least) of a ``moves`` certificate (the
    module's docstring): ``forward[d][p]`` loads partition ``p`` of forward level ``d``
    (``partition``'s; each level's partitions a power of two), ``backward``
    likewise; ``sizes``: each side's level sizes as the certificate states them (default:
    loaded). ``inline``: the levels held in this process; otherwise children wait in bucket
    files in ``scratch``, a step at a time, on ``runner`` (Dask's map: ``kit.run_steps``,
    with ``room``, ``journal`` and ``progress``). ``rebuild``: no level file is read;
    ``forward[d][p]`` is the count the certificate states for that part, and the check builds
    every level on disk from the one before (``Moves.build``: closed by construction; level 0
    the start, the goal positions), then meets and probes the levels it built, which may hold
    no more positions through each depth than the stated ones (as ``rebuild`` in memory).
    The walk's ``ok`` is None when the deadline came first. ``compiled``: the hot loops in C
    (``_check.c``), else numpy's, the reference."""
    t0 = time.perf_counter()
    deadline = deadline or Deadline()
    walked = 0

    def done(ok: bool | None, message: str, moves: int = 0) -> tuple[Verdict, int]:
        return judged(ok, message, walked, time.perf_counter() - t0), moves

    why = _grounds(problem, group, regions, upper, pagodas)
    if why is not None:
        return done(False, why)
    goals = goal_positions(problem)
    assert goals is not None
    if not forward or not backward:
        return done(False, "a level search by moves has a forward and a backward level 0")
    if any(not len(lv) or len(lv) & (len(lv) - 1) for lv in [*forward, *backward]):
        return done(False, "every level must be a power of two of partitions")
    if probe not in ("", *SIDES):
        return done(False, f"the probed side is {probe!r}")
    cuts = tuple((tuple(w), f) for w, f in pagodas)
    closure = Closure(problem, (), tuple(tuple(p) for p in group), cuts, None, compiled=compiled)
    # a journal's rebuilt levels beside it, by its key, so that a stopped rebuild goes on
    kept = kept_levels(journal) if rebuild else None
    with scratch_dir("pegsat-moves-", scratch) as tmp:
        built, stated = str(kept or Path(tmp) / "levels") if rebuild else "", {}
        if rebuild:
            ends = (forward, backward)
            stated = {s: tuple(sum(lv) for lv in lvs) for s, lvs in zip(SIDES, ends, strict=True)}
            sizes = {s: list(v) for s, v in stated.items()}
            forward, backward = (_built_loaders(built, s, lvs) for s, lvs in zip(SIDES, ends, strict=True))
        levels = {"forward": tuple(map(tuple, forward)), "backward": tuple(map(tuple, backward))}
        check = Moves(Bound(problem, regions, goals, closure, upper), levels, tmp, inline and not rebuild,
                      built=built, stated=stated)
        try:
            if sizes is None:
                sizes = {s: [sum(len(check.part(s, d, p, len(lv))) for p in range(len(lv)))
                             for d, lv in enumerate(check.levels[s])] for s in SIDES}
            a, b = len(forward) - 1, len(backward) - 1
            dry = next((s for s in SIDES if not sizes[s][-1]), "")
            moves, why = _claimed(a, b, dry, probe, upper)
            if why is not None:
                return done(False, why)
            if dry and not rebuild:  # said empty: each of its files read, to see that it is
                last, parts = (a if dry == "forward" else b), check.parts(dry, a if dry == "forward" else b)
                if any(len(check.part(dry, last, p, parts)) for p in range(parts)):
                    return done(False, f"{_name(dry, last)}, said to be empty, holds positions")
            why = _level_zero(problem, check, goals, rebuild)
            if why is not None:
                return done(None if why.startswith(UNSETTLED) else False, why.removeprefix(UNSETTLED))
        except _Bad as exc:
            return done(False, str(exc))

        def step(how: str, side: str, d: int) -> Step:
            tside, last, parts = check.aim(how, side, d)
            key = f"{how} {side} {d}"
            into = f"{_name(side, 0)} .. {_name(side, d + 1)}" if how == "closed" else f"the {tside} levels"
            builds = rebuild and how == "closed"
            look = partial(check.build, side, d) if builds else partial(check.lookup, how, side, d)
            into = f"{_name(side, d + 1)} rebuilt" if builds else into
            return Step(key, _name(side, d), into,
                        partial(check.expand, how, side, d), check.parts(side, d), look, parts,
                        check.bucket_dir(key), None if check.inline else sizes[side][d],  # inline: no rounds
                        folds=True)

        def nothing(p: int, targets: object = None, seconds: object = None) -> tuple[int, None]:
            return 0, None
        every = max(check.finest(s, len(check.levels[s]) - 1) for s in SIDES)
        steps = [step("closed", s, d) for s, top in (("forward", a), ("backward", b)) for d in range(top)]
        steps.append(Step("meet", "the forward levels", "the backward levels", nothing, 0, check.meet, every,
                          check.bucket_dir("meet"), None))
        if probe:
            steps.append(step("probe", probe, len(check.levels[probe]) - 1))
        ran, taken_steps = run_steps(steps, deadline, runner, room, journal, progress, t0, tmp)
        walked = ran.walked
        made = 0
        if rebuild and ran.ok:
            why, made = _rebuilt_sizes(check, sizes, dry)
            if why is not None:
                return done(None if why.startswith(UNSETTLED) else False, why.removeprefix(UNSETTLED))
        if ran.finished:
            drop_kept(kept)
        if not ran.ok:
            return done(False if ran.finished else None, ran.reason)
    how = (f"the {dry} side ran dry" if dry else "no forward level meets a backward one"
           + (f", nor does one move beyond the {probe} side" if probe else ""))
    split = sum(len(lv) for lv in [*forward, *backward])
    split_note = f" in {split} partitions" if split > a + b + 2 else ""
    taken = f" ({taken_steps} of the {len(steps)} steps taken from the journal)" if taken_steps else ""
    states = sum(map(sum, stated.values()))
    said = f", rebuilt by the check ({made:,} positions; the certificate states {states:,})" if rebuild \
        else ""
    return done(True, f"forward levels 0..{a} and backward levels 0..{b} by moves{split_note}{said} checked "
                f"({len(group)} symmetries, {len(regions)} Merson regions, bound {upper}, {len(pagodas)} "
                f"pagodas): each closed under moves into the levels up to the next (backward: moves undone), "
                f"{how}; {walked} positions one move away walked{taken}: every plan has at least {moves} "
                "moves", moves)


def _built_loaders(built: str, side: str, stated: Sequence[Sequence[int]]) -> list[list[Loader]]:
    """The loaders of ``side``'s levels as a rebuild writes them: as many partitions as the
    certificate's level, or as the most of any level before it (so that a rebuilt level's
    partition is always one part of each level before it, which its children are told from)."""
    out: list[list[Loader]] = []
    most = 1
    for d, lv in enumerate(stated):
        most = max(most, len(lv))
        out.append([partial(load_built, built_path(built, side, d, q)) for q in range(most)])
    return out


def _level_zero(problem: Problem, check: Moves, goals: Sequence[int], rebuild: bool) -> str | None:
    """Why the start (a goal position) is neither in its side's level 0 nor excluded, or None;
    when rebuilding, level 0 written as the check sees it (``_Bad`` from a part that is not one)."""
    for side, positions in (("forward", [problem.start]), ("backward", list(goals))):
        x = check.kept(side, np.array(positions, dtype=np.uint64), 0)
        parts = check.parts(side, 0)
        if rebuild:
            x = distinct(x, check.closure.compiled)
            where = partition(x, parts)
            for q in range(parts):
                if (why := check.write_built(side, 0, q, x[where == q])) is not None:
                    return why
            continue
        for q in np.unique(partition(x, parts)).tolist():
            if not member(check.part(side, 0, q, parts), x[partition(x, parts) == q]).all():
                what = "the start is" if side == "forward" else "a goal position is"
                return f"{what} neither in {_name(side, 0)} nor excluded"
    return None


def _rebuilt_sizes(check: Moves, sizes: dict[str, list[int]], dry: str) -> tuple[str | None, int]:
    """(why the rebuilt levels refute the certificate, or None; the positions they hold): more
    through a depth than the certificate states (a stated level was not closed), or a side said
    to run dry whose last level is not empty (then unsettled: a rebuild on disk stops at the
    stated levels; one in memory builds on)."""
    made = 0
    for side in SIDES:
        total = count = 0
        for d in range(len(check.levels[side])):
            try:
                count = sum(sealed.header(built_path(check.built, side, d, q), REBUILT, 1, "",
                                          1 << 40)["count"] for q in range(check.parts(side, d)))
            except sealed.Stale as exc:
                return f"{UNSETTLED}a level the check rebuilt could not be read ({exc})", made
            total += count
            said = sum(sizes[side][:d + 1])
            if total > said:
                return (f"{_name(side, 0)} .. {_name(side, d)} rebuilt hold {total:,} positions, more than "
                        f"the {said:,} the certificate states"), made
        if side == dry and count:
            return (f"{UNSETTLED}{_name(side, len(check.levels[side]) - 1)} rebuilt is not empty as the "
                    "certificate states; a rebuild on disk stops at the stated levels (one in memory, "
                    "without --workers, builds on)"), made
        made += total
    return None, made


def _claimed(a: int, b: int, dry: str, probe: str, upper: int) -> tuple[int, str | None]:
    """(the moves that levels ``0 .. a`` forward and ``0 .. b`` backward prove, with a ``probe``
    of a side or a ``dry`` side, or why they prove nothing): ``a + b + 1`` (one more with the
    probe), or ``upper`` when a side ran dry; never more than the bound they were pruned
    under."""
    if dry and probe:
        return 0, f"the {dry} side ran dry: there is nothing beyond its last level to probe"
    moves = upper if dry else a + b + 1 + bool(probe)
    if moves > upper:
        probed = " and a probe" if probe else ""
        return moves, (f"{a + 1} forward and {b + 1} backward levels{probed} say {moves} moves, more than "
                       f"the bound {upper} they were pruned under")
    return moves, None


def _grounds(problem: Problem, group: Sequence[Sequence[int]], regions: Sequence[int], upper: int,
             pagodas: Sequence[tuple[Sequence[int], int]]) -> str | None:
    """Why the premises fail (the module's docstring, 1), or None: the board, the symmetries
    and the pagodas (``closure.premises``), a goal whose positions can be listed, the
    bound, the regions disjoint Merson regions."""
    board = problem.board
    n = board.n
    if n > 64:
        return "move bounds are checked on boards of at most 64 holes"
    why = premises(problem, group, pagodas, start=True)
    if why is not None:
        return why
    if goal_positions(problem) is None:
        return "move bounds are checked for a goal whose positions can be listed"
    if not isinstance(upper, int) or upper < 1:
        return "the upper bound is not a positive whole number of moves"
    used = 0
    for i, r in enumerate(regions):
        if not isinstance(r, int) or r <= 0 or r >> n:
            return f"region {i} is not a set of the board's holes"
        if r & used:
            return f"region {i} shares a hole with another"
        used |= r
        open_line = next(((a, b, c) for a, b, c in board.jumps
                          if r >> b & 1 and not (r >> a & 1 or r >> c & 1)), None)
        if open_line is not None:
            a, b, c = open_line
            return (f"region {i} is not a Merson region: line {board.names[a]}-{board.names[b]}-"
                    f"{board.names[c]} has its middle in it and neither end")
    return None


def rebuild(problem: Problem, stated: dict[str, list[int]], group: Sequence[Sequence[int]],
            regions: Sequence[int], upper: int, probe: str, deadline: Deadline | None = None, *,
            pagodas: Sequence[tuple[Sequence[int], int]] = (), compiled: bool = True) -> tuple[Verdict, int]:
    """``check`` with no level file read: the checker builds every level itself, in memory.
    Level 0 of each side is the least images of the start (the goal positions) not excluded;
    level ``d + 1`` the least images of the positions one move from level ``d`` (backward:
    one move undone) that are not excluded at depth ``d + 1`` nor in an earlier level. So
    every level is closed (3) by construction, and the meeting and the probe (4) are checked
    on the levels built, with as many levels as the certificate ``stated`` (each side's
    level sizes); a side stated to run dry is built until it does. The levels built through
    depth ``d`` may hold no more positions than the stated ones through ``d`` (the search
    pruned with no more than these rules, so it kept no fewer; more means a stated level was
    not closed). The certificate file alone is then the evidence."""
    t0 = time.perf_counter()
    deadline = deadline or Deadline()
    walked = 0

    def done(ok: bool | None, message: str, moves: int = 0) -> tuple[Verdict, int]:
        return judged(ok, message, walked, time.perf_counter() - t0), moves

    why = _grounds(problem, group, regions, upper, pagodas)
    if why is not None:
        return done(False, why)
    if probe not in ("", *SIDES) or any(not stated[s] for s in SIDES):
        return done(False, "a level search by moves has a forward and a backward level 0, and probes a side")
    if REBUILD_BYTES * sum(sum(stated[s]) for s in SIDES) > memory_budget():
        return done(None, "the levels to rebuild are more than this machine's memory budget holds "
                    "(PEGSAT_MEMORY_GB): check their files instead")
    goals = goal_positions(problem)
    assert goals is not None
    cuts = tuple((tuple(w), f) for w, f in pagodas)
    closure = Closure(problem, (), tuple(tuple(p) for p in group), cuts, None, compiled=compiled)
    check = Moves(Bound(problem, regions, goals, closure, upper), {s: () for s in SIDES}, "", True)
    a, b = len(stated["forward"]) - 1, len(stated["backward"]) - 1
    dry = next((s for s in SIDES if not stated[s][-1]), "")
    moves, why = _claimed(a, b, dry, probe, upper)
    if why is not None:
        return done(False, why)
    seen: dict[str, np.ndarray] = {}  # each side's levels as one sorted set
    last: dict[str, np.ndarray] = {}  # and its last level
    depth: dict[str, int] = {}
    for side, ends in (("forward", [problem.start]), ("backward", list(goals))):
        level = distinct(check.kept(side, np.array(ends, dtype=np.uint64), 0), compiled)
        known, d, stop = level, 0, len(stated[side]) - 1
        while d < stop or (side == dry and len(level)):
            if deadline.expired():
                return done(None, f"time limit while {_name(side, d + 1)} was rebuilt")
            fresh, size = [], 0  # chunks' positions one move on, kept, not in an earlier level
            for lo in range(0, len(level), CHUNK):
                kids = one_move(level[lo:lo + CHUNK], problem.board.jumps, side == "backward", compiled)
                walked += len(kids)
                kids = distinct(check.kept(side, distinct(kids, compiled), d + 1), compiled)
                fresh.append(absent(known, kids, compiled))
                size += len(fresh[-1])
                if size > 1 << 22 and size > 2 * len(fresh[0]):  # chunks share children: merged as
                    # they grow, the memory stays
                    fresh = [distinct(np.concatenate(fresh), compiled, mine=True)]
                    size = len(fresh[0])  # about the new level's
            level = distinct(np.concatenate(fresh), compiled, mine=True) if fresh else level[:0]
            d += 1
            said = sum(stated[side][:d + 1])
            if len(known) + len(level) > said:
                return done(False, f"{_name(side, 0)} .. {_name(side, d)} rebuilt hold "
                            f"{len(known) + len(level):,} positions, more than the {said:,} the certificate "
                            "states")
            known = distinct(np.concatenate([known, level]), compiled)
        seen[side], last[side], depth[side] = known, level, d
    if len(split(seen["backward"], seen["forward"], compiled)[0]):
        return done(False, "a rebuilt forward level shares a position with a backward level: a plan may pass "
                    "through it")
    for lo in range(0, len(last[probe]) if probe else 0, CHUNK):  # the probe, a chunk at a time
        kids = one_move(last[probe][lo:lo + CHUNK], problem.board.jumps, probe == "backward", compiled)
        walked += len(kids)
        kids = distinct(check.kept(probe, distinct(kids, compiled), depth[probe] + 1), compiled)
        if len(split(seen[SIDES[probe == "forward"]], kids, compiled)[0]):
            return done(False, f"a position one move beyond the rebuilt {_name(probe, depth[probe])} is in a "
                        "level of the other side")
    made = sum(len(seen[s]) for s in SIDES)
    said = sum(sum(stated[s]) for s in SIDES)
    rules = f"{len(group)} symmetries, {len(regions)} Merson regions, bound {upper}, {len(pagodas)} pagodas"
    return done(True, f"forward levels 0..{depth['forward']} and backward levels "
                f"0..{depth['backward']} by moves rebuilt by the check ({made:,} positions; the "
                f"certificate states {said:,}) ({rules}): each closed under moves by construction, "
                + (f"the {dry} side ran dry" if dry else "no forward level meets a backward one"
                   + (f", nor does one move beyond the {probe} side" if probe else ""))
                + f"; {walked} positions one move away walked: every plan has at least {moves} moves", moves)


class _Bad(Exception):
    """A level's part is not what the certificate says."""


def _name(side: str, d: int) -> str:
    return f"level {d}" if side == "forward" else f"backward level {d}"


def check_moves(problem: Problem, ev: dict, ctx: Context) -> Verdict:
    """A ``moves`` certificate: its levels read (or, ``walking.rebuild``, rebuilt) and walked; the bound they
    prove must be the one claimed."""
    base, staged, deadline, walking = ctx.base, ctx.staged, ctx.deadline, ctx.walking

    claim, upper, probe = ev["moves"], ev["upper"], ev["probe"] or ""
    if not whole(claim) or not whole(upper) or not isinstance(probe, str):
        return rejected("the moves, the bound or the probed side is malformed")
    index = {h: i for i, h in enumerate(problem.board.names)}
    regions = [sum(1 << index[h] for h in set(r)) for r in ev["regions"]]
    if any(len(set(r)) != len(r) for r in ev["regions"]):
        return rejected("a region names a hole twice")
    # a level is one file of positions (``save_positions``: a search in memory) or a
    # list of partitions (``engine.spill``'s sealed files, by ``partition``: out of core)
    parted = "partition" in ev
    if parted and ev["partition"] != f"{MULTIPLIER:#x}":
        return rejected("the levels' partitions are by another rule than the top bits of a product with "
                        f"{MULTIPLIER:#x}")
    sides: dict[str, list[list[dict]]] = {}
    for side in SIDES:
        items = ev[side]
        lvs = items if parted else [[it] for it in items] if isinstance(items, list) else None
        if not isinstance(lvs, list) or not all(
                isinstance(lv, list) and lv and all(isinstance(it, dict) and whole(it["count"])
                                                    and isinstance(it["sha256"], str) for it in lv)
                for lv in lvs):
            each = "list of parts" if parted else "file"
            return rejected(f"\"{side}\" is not a list of levels, each a {each} with its count and SHA-256")
        sides[side] = lvs
    counts = [it["count"] for lvs in sides.values() for lv in lvs for it in lv]
    total = sum(counts)
    group = [[int(x) for x in p] for p in ev["symmetries"]]
    sizes = {side: [sum(it["count"] for it in lv) for lv in lvs] for side, lvs in sides.items()}
    pagodas = pagodas_of(problem, ev) if "pagodas" in ev else []
    key = {"problem": problem_to_json(problem), "evidence": ev, "rebuild": walking.rebuild}
    kept = None if walking.journal is None else Journal(walking.journal, journal_key(key, Path(__file__)))
    if walking.rebuild and walking.walk_above is not None and total > walking.walk_above:
        why = _grounds(problem, group, regions, upper, pagodas)  # an atlas built: the walk is ``check``'s
        return rejected(why) if why is not None else unsettled(
            f"the premises checked; the {len(counts)} parts of levels of {total} positions are rebuilt by a "
            "whole check only")
    if walking.rebuild:  # no level file read: the checker builds the levels, in memory or on disk
        if walking.runner is None and REBUILD_BYTES * total <= memory_budget():
            walk, moves = rebuild(problem, sizes, group, regions, upper, probe, deadline,
                                  pagodas=pagodas, compiled=not walking.reference)
        else:
            stated = {side: [[it["count"] for it in lv] for lv in lvs] for side, lvs in sides.items()}
            walk, moves = check(problem, stated["forward"], stated["backward"], group, regions, upper, probe,
                                deadline, pagodas=pagodas, inline=False, runner=walking.runner,
                                scratch=scratch(base, walking.runner), room=walking.room, journal=kept,
                                progress=walking.progress, compiled=not walking.reference, rebuild=True)
        return _moves_verdict(walk, moves, claim, "rebuilt and checked")
    entire = walking.walk_above is None or total <= walking.walk_above
    inline = walking.runner is None and BYTES_PER_POSITION * total <= memory_budget()
    held = sum(max(it["count"] for it in lv) for lvs in sides.values() for lv in lvs)  # a part of each level
    if entire and not inline and 2 * 8 * held > memory_budget():
        return unsettled(f"levels of {total} positions, a part of each held at once, are more than this "
                "machine's memory budget holds (PEGSAT_MEMORY_GB)")
    loaders: dict[str, list[list[Any]]] = {}
    for side, lvs in sides.items():
        loaders[side] = []
        for lv in lvs:
            row = []
            for it in lv:
                f = companion(base, it["file"], staged)
                if not f.is_file():
                    return rejected(f"{f} is missing")
                lie = overstated(f, it) if parted else None
                if lie is not None:
                    return lie
                if parted:
                    load = partial(load_level_part, f.resolve(), it["count"], it["sha256"], entire)
                    if not entire:
                        try:
                            load()  # its header: its count and SHA-256
                        except ValueError as exc:
                            return rejected(f"{exc}")
                elif sha256(f) != it["sha256"]:
                    return rejected(f"{f} does not match its SHA-256 in the certificate")
                else:
                    load = partial(read_part, f.resolve(), it["count"])
                row.append(load)
            loaders[side].append(row)
    if not entire:  # an atlas rebuilt (``walk_above``): the walk of a large set is ``check``'s
        return unsettled(f"the {len(counts)} level files of {total} positions are there with their "
                "SHA-256; their closure under moves is not walked here")
    where = scratch(base, walking.runner)
    walk, moves = check(problem, loaders["forward"], loaders["backward"], group, regions, upper,
                                probe, deadline, pagodas=pagodas, sizes=sizes, inline=inline,
                                runner=walking.runner, scratch=where, room=walking.room, journal=kept,
                                progress=walking.progress, compiled=not walking.reference)
    return _moves_verdict(walk, moves, claim, "checked")


def _moves_verdict(walk: Any, moves: int, claim: int, how: str) -> Verdict:
    """A moves check's finding from its walk: the bound it proves must be the one claimed."""
    if walk.ok and moves != claim:
        return rejected(f"the levels prove at least {moves} moves, the certificate claims {claim}")
    return restated(walk, f"move bound {how} by the independent checker "
                    f"({walk.seconds:.2f} s): {walk.reason}")


