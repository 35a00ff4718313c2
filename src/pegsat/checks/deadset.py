"""``dead-set``: an exhausted depth-first search (``proofs.deadset``): a file of positions
(sorted 64-bit positions packed by ``checks.positions.save_positions``; with its SHA-256), or,
for a set of more than ``proofs.prove.PART`` positions, a list of such files (each with its
count and SHA-256, each sorted and above the one before: the checker holds one at a time),
closed under jumps up to the given symmetries, with the integer pagodas that exclude
positions.

Checked sharing no search code: the symmetries map lines onto lines and the goal onto itself,
each pagoda is a pagoda whose floor no goal position is below, the start is in the set, no goal
is, and every child of every position in it is excluded or in it (``dead_parts``). The whole
argument is checked; nothing of pegsat's search is trusted. For a goal of one peg anywhere (the
open game) the certificate also holds the class weightings (``classes``): a position is then
excluded hole by hole, when every hole its position class allows weighs more than it under
some pagoda. ``rebuild_dead`` checks the certificate with no file read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from ..deadline import Deadline
from ..limits import memory_budget
from ..model.problem import Problem
from .closure import BATCH, UNSETTLED, Closure, Runner, distinct, member, premises, whole
from .evidence import Context, companion, pagodas_of, scratch, sha256
from .kit import scratch_dir
from .positions import read_part
from .verdict import Verdict, judged, rejected, restated, unsettled


def dead_set(problem: Problem, dead: np.ndarray, group: list[list[int]], pagodas: list[tuple[list[int], int]],
             deadline: Deadline | None = None, classes: list[int] | None = None,
             compiled: bool = True) -> Verdict:
    """Check a dead set (``proofs.deadset``) held in memory: ``dead_parts`` with one part."""
    return dead_parts(problem, [lambda: dead], group, pagodas, deadline, classes, compiled=compiled)


def rebuild_dead(problem: Problem, count: int, group: list[list[int]], pagodas: list[tuple[list[int], int]],
                 deadline: Deadline | None = None, classes: list[int] | None = None,
                 compiled: bool = True) -> Verdict:
    """A dead-set certificate checked with no file read: the checker builds the set it
    needs itself — the positions the start reaches (their least images) without passing
    through an excluded one, jump after jump, a level of one peg count at a time — and
    checks that none is a goal. That set is closed by construction and holds the start, so
    no plan exists; any dead set closed under jumps with the start in it holds it, so it may
    hold no more than the ``count`` positions the certificate states (more means the stated
    set was not closed)."""
    t0 = time.perf_counter()
    deadline = deadline or Deadline()
    total = walked = 0

    def done(ok: bool | None, message: str) -> Verdict:
        return judged(ok, message, walked, time.perf_counter() - t0)

    if problem.board.n > 64:
        return done(False, "dead sets are checked on boards of at most 64 holes")
    why = premises(problem, group, pagodas, classes)
    if why is not None:
        return done(False, why)
    closure = Closure(problem, (), tuple(tuple(p) for p in group), tuple((tuple(w), f) for w, f in pagodas),
                      None if classes is None else tuple(int(c) for c in classes), compiled=compiled)
    start = np.array([problem.start], dtype=np.uint64)
    level = distinct(closure.canonical(start[~closure.excluded(start)]), compiled)
    jumps = 0
    while len(level):
        total += len(level)
        if total > count:
            return done(False, f"the positions the start reaches, rebuilt by the check, are more than the "
                        f"{count:,} the certificate states: the stated set is not closed")
        goals = closure.is_goal(level)
        if goals.any():
            return done(False, f"position {int(level[goals][0]):#x}, {jumps} jumps from the start and "
                        "excluded by nothing, is a goal position")
        if deadline.expired():
            return done(None, f"time limit after {jumps} jumps from the start ({total:,} positions rebuilt)")
        if 3 * 8 * 16 * len(level) > memory_budget():  # its children (tens a position), their sort
            return done(None, f"the {len(level):,} positions {jumps} jumps from the start have more children "
                        "than this machine's memory budget holds (PEGSAT_MEMORY_GB): check the set's files "
                        "instead")
        kids = [closure.children(level[lo:lo + BATCH * 10]) for lo in range(0, len(level), BATCH * 10)]
        walked += sum(map(len, kids))
        level = distinct(np.concatenate(kids), compiled, mine=True) if kids else level[:0]
        level = level[~closure.excluded(level)]  # weighed as least images (each stands for its orbit)
        jumps += 1
    return done(True, f"the positions the start reaches without an excluded one, rebuilt by the check jump "
                f"after jump ({total:,} up to {len(group)} symmetries; the certificate states {count:,}), "
                f"{len(pagodas)} pagodas: none is a goal position")


def dead_parts(problem: Problem, parts: Sequence[Callable[[], np.ndarray]], group: list[list[int]],
               pagodas: list[tuple[list[int], int]], deadline: Deadline | None = None,
               classes: list[int] | None = None, runner: Runner | None = None,
               scratch: str | None = None, walk: bool = True, compiled: bool = True) -> Verdict:
    """Check a dead set (``proofs.deadset``): sorted positions closed under jumps up to the
    symmetries ``group`` and the exclusions (below a pagoda's floor, or no more pegs than the
    goal's least count without being a goal); the start in it and no goal in it.

    ``classes`` (weightings, as hole masks): the exclusion *hole by hole*, for a goal of one
    peg anywhere (the open game of a one-peg problem): a position is excluded when every
    hole its position class allows (the holes whose single peg has its parities under every
    weighting, each checked to be even on every line, so no jump changes a parity) is ruled
    out by some pagoda that weighs the position below its weight on that hole (no jump
    raises a pagoda's weight, and one peg on the hole weighs that much). The floors are not
    used then. The rule holds for any position, reachable or not. The set is
    given as ``parts``, each a loader of one sorted file, every part's positions above the
    one before's: only one part is held at a time (a set of any size is streamed). A part's
    children that belong to another part (by the parts' ranges) wait in bucket files of a
    temporary directory and are looked up when that part is loaded again: delayed duplicate
    detection, as Korf's disk-based search does it. Vectorised with numpy; boards of at
    most 64 holes. ``runner(fn, items)``: runs ``fn`` on every item, a part each (default:
    one after the other here; ``engine.cluster`` passes Dask's map, the parts' loaders and the
    scratch directory then being seen by every worker). ``walk=False``: all but the walk
    of the children (the answer is then None, "not finished"). ``compiled``: the hot loops in
    C (``_check.c``), else numpy's, the reference."""
    t0 = time.perf_counter()
    deadline = deadline or Deadline()
    n = problem.board.n
    total = 0

    def done(ok: bool | None, message: str) -> Verdict:
        return judged(ok, message, total, time.perf_counter() - t0)

    if n > 64:
        return done(False, "dead sets are checked on boards of at most 64 holes")
    why = premises(problem, group, pagodas, classes)
    if why is not None:
        return done(False, why)
    closure = Closure(problem, tuple(parts), tuple(tuple(p) for p in group),
                      tuple((tuple(w), floor) for w, floor in pagodas),
                      None if classes is None else tuple(int(c) for c in classes), compiled=compiled)

    def run(fn: Callable[..., Any]) -> list[Any]:
        items = list(range(len(parts)))
        return runner(fn, items) if runner is not None else [fn(i) for i in items]

    # First pass, a part a task: every part sorted, distinct, on the board, no goal; then
    # each above the part before.
    firsts: list[int] = []
    last = -1
    for i, got in enumerate(run(closure.bounds)):
        if isinstance(got, str):
            return done(False, got)
        first, top, size = got
        if size and first <= last:
            return done(False, f"part {i} of the dead set does not lie above the part before it")
        firsts.append(first if size else last + 1)
        last = top if size else last
        total += size
    closure = replace(closure, firsts=tuple(firsts))
    start = np.array([problem.start], dtype=np.uint64)
    if not closure.excluded(start)[0]:
        s0 = closure.canonical(start)
        at = int(closure.home(s0)[0])
        if at < 0 or not member(parts[at](), s0)[0]:
            return done(False, "the start is neither in the dead set nor excluded")

    if not walk:
        return done(None, f"all {total} positions in {len(parts)} parts read back sorted, in order and on "
                    "the board, no goal among them, the start in them or excluded; their closure under jumps "
                    "is not walked here")

    with scratch_dir("pegsat-dead-", scratch) as tmp:
        closure = replace(closure, buckets=tmp)
        got = run(partial(closure.expand, seconds=deadline.remaining()))
        children = sum(c for c, _ in got)
        whys = [why for _, why in got if why is not None]
        if not whys:
            whys = [why for why in run(partial(closure.lookup, seconds=deadline.remaining())) if why]
    if whys:
        worst = next((w for w in whys if not w.startswith(UNSETTLED)), whys[0])
        return done(None if worst.startswith(UNSETTLED) else False, worst.removeprefix(UNSETTLED))
    split = f" in {len(parts)} parts, one in memory at a time" if len(parts) > 1 else ""
    how = f"{len(pagodas)} pagodas"
    if classes is not None:
        how += f" hole by hole, {len(classes)} class weightings"
    return done(True, f"the start is in it or excluded; all {total} positions{split} and their {children} "
                f"children checked: closed under jumps (by {len(group)} symmetries, {how}), no goal among "
                "them")




def _class_masks(problem: Problem, ev: dict) -> list[int] | None:
    """A dead set's class weightings as hole masks (the open game's pagodas are weighed hole by
    hole), or None."""
    if "classes" not in ev:
        return None
    index = {h: i for i, h in enumerate(problem.board.names)}
    return [sum(1 << index[h] for h in set(c)) for c in ev["classes"]]


def check_dead_set(problem: Problem, ev: dict, ctx: Context) -> Verdict:
    """A ``dead-set`` certificate: its files read (or, ``walking.rebuild``, the set rebuilt) and walked."""
    base, staged, deadline, walking = ctx.base, ctx.staged, ctx.deadline, ctx.walking
    runner, walk_above = walking.runner, walking.walk_above
    count = ev["count"]
    if not whole(count):
        return rejected("the count of dead positions is not a whole number")
    given = ev["positions"]  # one file, or parts: [{"file", "count", "sha256"}, ...] in order
    items = [{"file": given, "count": count, "sha256": ev["sha256"]}] if isinstance(given, str) else given
    if not isinstance(items, list) or not items or not all(isinstance(it, dict) for it in items):
        return rejected("\"positions\" is neither a file nor a list of parts")
    if not all(whole(it["count"]) for it in items) or sum(it["count"] for it in items) != count:
        return rejected("the parts' counts do not add up to the count of dead positions")
    if walking.rebuild:  # no file read: the checker builds the set it needs
        group, pagodas, classes = [[int(x) for x in p] for p in ev["symmetries"]], pagodas_of(problem, ev), \
            _class_masks(problem, ev)
        if walk_above is not None and count > walk_above:  # an atlas built: the walk is ``check``'s
            why = premises(problem, group, pagodas, classes)
            return rejected(why) if why is not None else unsettled(
                f"the premises checked; the set of {count} dead positions is rebuilt by a whole check only")
        return rebuild_dead(problem, count, group, pagodas, deadline, classes, compiled=not walking.reference)
    largest = max(it["count"] for it in items)
    if 3 * 8 * largest > memory_budget():  # a part, its children and their canonical forms
        return unsettled(f"a part of {largest} dead positions is more than this machine's memory "
                "budget holds (PEGSAT_MEMORY_GB)")
    files = [companion(base, it["file"], staged) for it in items]
    for f, it in zip(files, items, strict=True):
        if not f.is_file():
            return rejected(f"{f} is missing")
        if sha256(f) != it["sha256"]:
            return rejected(f"{f} does not match its SHA-256 in the certificate")

    group = [[int(x) for x in p] for p in ev["symmetries"]]
    pagodas = pagodas_of(problem, ev)
    classes = _class_masks(problem, ev)
    try:
        loaders = [partial(read_part, f.resolve(), part["count"])
                   for f, part in zip(files, items, strict=True)]
        # on a cluster the buckets go beside the parts, which every worker reads anyway
        where = scratch(base, runner)
        walk = dead_parts(problem, loaders, group, pagodas, deadline, classes, runner, where,
                                      walk=walk_above is None or count <= walk_above,
                                      compiled=not walking.reference)
    except ValueError as exc:
        return rejected(str(exc))
    return restated(walk, f"dead set checked by the independent checker "
                    f"({walk.seconds:.2f} s): {walk.reason}")
