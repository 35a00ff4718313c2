"""The independent check of a ``levels`` certificate: the levels of a search by jumps, each
closed under jumps into the next, and the last level's children meeting nothing a plan needs.

A plan of ``T`` jumps passes through one position a jump, ``x_0`` (the start) to ``x_T`` (a
goal position). The certificate gives the positions ``F_0 .. F_a`` a search kept at each
depth, up to the symmetries ``group`` (each stored as its least image; every symmetry maps
lines onto lines and fixes the start and the goal), and integer pagodas with floors. The
check, sharing no search code (the board model, the verifier's jump rule and
``closure.Closure``'s byte tables), verifies:

1. the premises (``closure.premises``): every symmetry maps lines onto lines and the
   goal onto itself, and here the start onto itself too; no jump raises a pagoda and no goal
   position weighs less than its floor, so a position below a floor never reaches the goal
   (it is *excluded*; so is one with no more pegs than the goal that is not a goal);
2. every part of every level is sorted and distinct, in its partition (below), and has the
   pegs of its depth; the start is in ``F_0`` or excluded;
3. closure: every child of every position of ``F_d`` (``d < a``) is excluded or has its
   least image in ``F_{d+1}``. By induction on ``d``, any plan's ``x_d`` (``d <= a``) has
   its least image in ``F_d``: ``x_d = g(y)`` for a ``y`` in ``F_d``, its child is ``g`` of a
   child of ``y``, and ``g`` maps plans onto plans;
4. the meeting: no child ``c`` of ``F_a`` that is not excluded can be a plan's ``x_{a+1}``.

   With a ``mirror`` ``s`` (a symmetry with ``s(~start) = goal`` and ``s(~goal) = start``,
   whose conjugates ``s g s^-1`` of the symmetries are symmetries): a plan reversed and
   complemented under ``s`` is a plan (a jump backwards on complements is a jump), and its
   position ``b = T - a - 1`` jumps in is ``s(~x_{a+1})``; so that has its least image in
   ``F_b`` (3). The check: for no such ``c`` is the least image of ``s(~c)`` in ``F_b``
   (``x_{a+1} = g(c)`` gives ``s(~x_{a+1}) = (s g s^-1)(s(~c))``, the same class).

   With backward levels ``B_0 .. B_b`` (a search grown from both sides, ``a + b + 1 = T``):
   every goal position is in ``B_0`` or excluded, and every *parent* of ``B_k`` (a jump
   reversed: two holes of a line empty, the third pegged, flipped) is excluded or in
   ``B_{k+1}``, where a position weighing more than the start under a pagoda is excluded
   too (no jump raises a pagoda, so no plan passes through it). So a plan's ``x_{T-k}`` is
   in ``B_k``, and the check: no child of ``F_a`` that is not excluded is in ``B_b`` — or,
   walked from the smaller side, no parent of ``B_b`` is in ``F_a`` (the same pairs).

   Otherwise ``a = T - 1`` and no such ``c`` is a goal position. A search that ran dry
   ends a side with an empty level: nothing to meet.

Either way no plan exists. A level is split into partitions, a position's being the top
bits of its product with ``MULTIPLIER`` modulo 2^64 (checked for every position read), so a
child is looked up in one partition. A level becomes the next in two rounds of tasks
(``runner``: one after the other here, or Dask's map): every partition of ``F_d`` is
expanded, its children's least images written to bucket files by their partition of
``F_{d+1}``; then every partition of ``F_{d+1}`` looks up its buckets (delayed duplicate
detection, as ``closure.Closure`` does for dead sets). A task holds one partition and
at most ``FLUSH`` children; the buckets of one level are on disk at a time (about 2 bytes a
child, compressed: tens of gigabytes for the German board's largest levels). When they would
not fit, the level goes in rounds of its partitions, each round's buckets looked up (or
added to the rebuilt ``F_{d+1}``, below) before the next is expanded, so no partition is
expanded twice; the last step's in passes of the partitions it meets, each sieved (``prepare``).

A check of hours can keep a ``Journal``: the steps (level ``d`` into ``d + 1``, a round's or
a pass's partitions at a time) it has walked, so a check stopped goes on where it was.

A check can also *rebuild* the levels (``check(rebuild=True)``) instead of reading them: no
level file is read; ``F_0`` is the start's least image (unless excluded) and ``F_{d+1}`` the
distinct least images of the children of ``F_d`` that are not excluded, written by the check
as it goes, so (3) holds by construction and (4) is checked on the levels it built. A part
may hold no more positions than the certificate states for it (the search's levels are
pruned by fewer pagodas at a time, so the check's are no larger; a larger one means the
stated level was not closed). The certificate file alone is then the evidence, at the cost
of a walk of the files (every child made, sorted and written once) and the disk of the
levels built.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, cast

import numpy as np

from .. import sealed
from ..deadline import Deadline
from ..limits import memory_budget
from ..model.codec import problem_to_json
from ..model.problem import Problem, goal_positions
from . import sieve
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
    union,
    whole,
)
from .evidence import Context, companion, pagodas_of, scratch
from .kit import (
    MULTIPLIER,
    REBUILT,
    SIDES,
    Journal,
    Loader,
    Step,
    built_path,
    drop_kept,
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
    sorted_groups,
    with_built,
)
from .verdict import Verdict, judged, rejected, restated, unsettled

CHUNK = 1 << 18  # positions of a part expanded together
CHILDREN = 16  # children a position, the buffers' room (a chunk with more goes in rounds)
SIEVED_BYTES = 4.0  # disk a position of a sieved last step takes, the first pass's guess: its
# sieve (``sieve.BITS``) and the buckets of the few children the sieve lets by




@dataclass(frozen=True)
class Levels:
    """A levels check, a task at a time (everything a task needs: picklable for Dask).
    ``levels[d][p]`` loads partition ``p`` of ``F_d``, ``back[d][p]`` of ``B_d``; ``mirror``
    checks the images under ``s`` (a Closure whose one symmetry is ``s``), or None; ``meet``
    is the level the mirror images meet."""

    closure: Closure
    levels: tuple[tuple[Loader, ...], ...]
    mirror: Closure | None
    meet: int
    pegs: int  # the start's
    buckets: str = ""
    ends_empty: str = ""  # the side whose last level is said to be empty, if any
    back: tuple[tuple[Loader, ...], ...] = ()
    built: str = ""  # rebuilding: where the levels the check builds go ("": levels read, not built)
    stated: tuple[tuple[tuple[int, ...], ...], ...] = ()  # rebuilding: each side's parts' stated counts

    def bucket_dir(self, side: str, d: int) -> Path:
        """Where the buckets of ``side``'s level ``d``'s children go."""
        return Path(self.buckets) / f"{side}-{d}"

    def _side(self, side: str) -> tuple[tuple[Loader, ...], ...]:
        return self.levels if side == "forward" else self.back

    def _pegs(self, side: str, d: int) -> int:
        return self.pegs - d if side == "forward" else self.closure.problem.goal.min_pegs + d

    def _part(self, d: int, p: int, side: str = "forward") -> tuple[np.ndarray | None, str | None]:
        """Partition ``p`` of ``side``'s level ``d``, or why it is not a part of that level."""
        name = _name(side, d)
        try:
            x = self._side(side)[d][p]()
        except ValueError as exc:
            return None, str(exc)
        n = self.closure.problem.board.n
        parts = len(self._side(side)[d])
        pegs = self._pegs(side, d)
        if x.dtype != np.uint64 or x.ndim != 1:
            return None, f"{name} part {p} is not a list of 64-bit positions"
        if (fault := part_fault(x, n, pegs, parts, p, self.closure.compiled)) is not None:
            return None, f"{name} part {p} {fault}"
        return x, None

    def target(self, side: str, d: int) -> tuple[str, str, int] | None:
        """Where the children of ``side``'s level ``d`` are looked up: (how, side, level),
        how being "closed" (each child there or excluded), "mirrored" (no child's mirror
        image there) or "met" (no child there); None: the last level's goal test."""
        if d < len(self._side(side)) - 1:
            return "closed", side, d + 1
        if self.mirror is not None:
            return "mirrored", "forward", self.meet
        if self.back:
            other = SIDES[side == "forward"]
            return "met", other, len(self._side(other)) - 1
        return None

    def excluded(self, side: str, x: np.ndarray) -> np.ndarray:
        """Positions no plan passes through: ``Closure.excluded``'s, and, backward, those
        weighing more than the start under a pagoda (no jump raises one)."""
        return self.closure.excluded(x, above=side == "backward")

    def expand(self, d: int, p: int, targets: tuple[int, ...] | None = None,
               seconds: float | None = None, side: str = "forward") -> tuple[int, str | None]:
        """(children, None or why not) of partition ``p`` of ``side``'s level ``d``: checked,
        and its children's (backward: its parents', by jumps reversed) least images written
        to the buckets of the level they are looked up in (``target``), or, from the last
        level without one, their goal test; those of the partitions ``targets`` only (a
        pass; None: all)."""
        deadline = Deadline().within(seconds)  # seconds <= 0: passed already
        c0 = self.closure
        x, why = self._part(d, p, side)
        if x is None:
            return 0, why
        last = d == len(self._side(side)) - 1
        if last and self.ends_empty == side:
            return 0, None if not len(x) else f"{_name(side, d)}, said to be empty, holds positions"
        aim = self.target(side, d)
        how = aim[0] if aim is not None else "goal"
        parts = len(self._side(aim[1])[aim[2]]) if aim is not None else 1
        full = np.uint64(c0.problem.board.full)
        out = self.bucket_dir(side, d)
        out.mkdir(exist_ok=True)
        children = 0
        buckets = Buckets(out, parts, p)
        wanted = range(parts) if targets is None else sorted(set(targets))
        try:
            sieves = self._sieves(side, d, parts, wanted) if how in ("mirrored", "met") else []
        except (OSError, ValueError) as exc:
            return 0, f"{UNSETTLED}a sieve of the check could not be read ({exc})"
        reverse = side == "backward"  # a jump undone: two holes of a line empty, the third pegged
        # the chunk's children, and their sorted groups: two buffers made once a task (the
        # compiled loops'; the reference makes its arrays)
        room = CHUNK * CHILDREN if c0.compiled else 0
        work, by = (np.empty(room, dtype=np.uint64) for _ in range(2))
        for lo in range(0, len(x), CHUNK):
            if deadline.expired():
                return children, f"{UNSETTLED}time limit in level {d} part {p}"
            y = x[lo:lo + CHUNK]
            if how == "closed":  # each child as its least image (``Closure.children``)
                for kids in c0.children_in(y, reverse, work):
                    children += len(kids)
                    if (why := self._send(kids, parts, wanted, buckets, by)) is not None:
                        return children, why
                continue
            else:
                c = c0.children(y, reverse, canon=False)
                children += len(c)
                if how == "goal":
                    c = c[~self.excluded(side, c)]
                    goals = c0.is_goal(c)
                    if goals.any():
                        return children, (f"position {int(c[goals][0]):#x} follows level {d} by a jump, is "
                                          "not excluded and is a goal position")
                    continue
                # the mirror image s(~c): the one image under the mirror
                kids = c0.canonical(self.mirror.canonical(c ^ full) if self.mirror is not None else c)
                may = sieve.sieved(sieves, kids, c0.compiled)  # none may be there: sieved first
                kids = kids[may][~self.excluded(side, c[may])]  # the child, not its image, weighed
            if (why := self._send(kids, parts, wanted, buckets, by)) is not None:
                return children, why
        return children, buckets.flush()

    def _send(self, kids: np.ndarray, parts: int, wanted: Sequence[int], buckets: Buckets,
              by: np.ndarray) -> str | None:
        """``kids`` (scratch: not needed again) to the buckets of the partitions ``wanted``:
        by partition, each partition's few sorted without repeats in the cache (the chunk's
        millions sorted whole took a quarter of a check), into ``by``; None, or why not."""
        if not len(kids):
            return None
        got, cut = sorted_groups(kids, parts, self.closure.compiled, by if len(by) >= len(kids) else None)
        for q in wanted:
            if cut[q + 1] > cut[q] and (why := buckets.add(q, got[cut[q]:cut[q + 1]])) is not None:
                return why
        return None

    def sieve_dir(self, side: str, d: int) -> Path:
        """Where the sieves of the level ``side``'s level ``d``'s children meet go."""
        return Path(self.buckets) / f"{side}-{d}-sieve"

    def _sieves(self, side: str, d: int, parts: int, wanted: Sequence[int]) -> list[np.ndarray | None]:
        """The sieves of the target partitions ``wanted`` of a last step (``prepare``), mapped;
        None for the others (not this pass's)."""
        out: list[np.ndarray | None] = [None] * parts
        for q in wanted:
            out[q] = sieve.load(self.sieve_dir(side, d) / f"{q}.npy")
        return out

    def prepare(self, d: int, q: int, seconds: float | None = None, side: str = "forward") -> str | None:
        """The sieve of partition ``q`` of the level ``side``'s last level ``d`` meets
        (``target``: "mirrored" or "met") written for its expansion; None, or why not."""
        if Deadline().within(seconds).expired():
            return f"{UNSETTLED}time limit while sieving the level {_name(side, d)} meets"
        aim = self.target(side, d)
        assert aim is not None and aim[0] != "closed"
        there, why = self._part(aim[2], q, aim[1])
        if there is None:
            return why
        try:
            sieve.save(self.sieve_dir(side, d) / f"{q}.npy",
                       sieve.build(there, sieve.words_for(len(there)), self.closure.compiled))
        except OSError as exc:
            return f"{UNSETTLED}the check's sieve could not be written ({exc.strerror})"
        return None

    def lookup(self, d: int, q: int, seconds: float | None = None, side: str = "forward") -> str | None:
        """None, or why not: the children ``side``'s level ``d`` sent to partition ``q`` of
        their target level are there or excluded ("closed"), or none is there ("mirrored",
        "met")."""
        files = sorted(self.bucket_dir(side, d).glob(f"{q}-*.bkt"))
        if not files:
            return None
        if Deadline().within(seconds).expired():
            return f"{UNSETTLED}time limit while looking up level {d}'s children"
        aim = self.target(side, d)
        assert aim is not None
        how, tside, td = aim
        there, why = self._part(td, q, tside)
        if there is None:
            return why
        name, mine = _name(tside, td), _name(side, d)
        try:  # the files' sorted runs merged, millions looked up at a time (``merged``)
            for c in merged((sealed.read(f, BUCKET, 1, "", 1 << 40) for f in files), self.closure.compiled):
                if how != "closed":
                    met, _ = split(there, c, self.closure.compiled, ordered=True)
                    if len(met):
                        what = "the mirror image of a child" if how == "mirrored" else "a child"
                        return (f"position {int(met[0]):#x} of {name} is {what} of {mine} that is not "
                                "excluded: a plan may pass through them")
                    continue
                missed = absent(there, c, self.closure.compiled, ordered=True)
                bad = missed[~self.excluded(tside, missed)] if len(missed) else missed
                if len(bad):
                    by = "a jump" if side == "forward" else "a jump reversed"
                    return f"position {int(bad[0]):#x} follows {mine} by {by} but is neither excluded " \
                           f"nor in {name}"
        except sealed.Stale as exc:
            return f"{UNSETTLED}a bucket file of the check was lost ({exc})"
        return None

    def build(self, d: int, q: int, seconds: float | None = None, side: str = "forward") -> str | None:
        """Rebuild partition ``q`` of ``side``'s level ``d + 1``: the distinct least images of
        the children level ``d`` sent it that are not excluded (weighed once each, after the
        repeats are gone, as a lookup weighs its misses), written for the next step to read,
        with what the rounds before built of it (a round: the children of some of level
        ``d``'s partitions; a round walked again adds nothing); None, or why not (more
        positions than the certificate states for that part: its level could not have been
        closed)."""
        if Deadline().within(seconds).expired():
            return f"{UNSETTLED}time limit while rebuilding {_name(side, d + 1)}"
        files = sorted(self.bucket_dir(side, d).glob(f"{q}-*.bkt"))
        path = built_path(self.built, side, d + 1, q)
        before = path.exists()
        if before and not files:
            return None
        try:
            counts = [sealed.header(f, BUCKET, 1, "", 1 << 40)["count"] for f in files]
            if before:
                counts.append(sealed.header(path, REBUILT, 1, "", 1 << 40)["count"])
            if 3 * 8 * sum(counts) > memory_budget():  # the children, their sort and the level
                return (f"{UNSETTLED}the {sum(counts):,} children sent to {_name(side, d + 1)} part {q} are "
                        "more than this machine's memory budget holds (PEGSAT_MEMORY_GB)")
            kids = [sealed.read(f, BUCKET, 1, "", 1 << 40) for f in files]
        except sealed.Stale as exc:
            return f"{UNSETTLED}a bucket file of the check was lost ({exc})"
        x = union(kids, self.closure.compiled) if kids else np.zeros(0, dtype=np.uint64)  # sorted runs
        try:
            x = with_built(path, x[~self.excluded(side, x)])
        except ValueError as exc:
            return str(exc)
        return self._write_built(side, d + 1, q, x)

    def _write_built(self, side: str, d: int, q: int, x: np.ndarray) -> str | None:
        stated = self.stated[SIDES.index(side)][d][q]
        return save_built(self.built, side, d, q, x, _name(side, d), stated)


def check(problem: Problem, levels: Sequence[Sequence[Loader]], group: list[list[int]],
          pagodas: list[tuple[list[int], int]], mirror: list[int] | None, deadline: Deadline | None = None,
          runner: Runner | None = None, scratch: str | None = None, ends_empty: str = "",
          walk: bool = True, sizes: Sequence[int] | None = None, room: int | None = None,
          journal: Journal | None = None, progress: Callable[[str], None] | None = None,
          back: Sequence[Sequence[Loader]] = (), back_sizes: Sequence[int] | None = None,
          rebuild: bool = False, compiled: bool = True) -> Verdict:
    """Check a levels certificate (the module's docstring): ``levels[d][p]`` loads partition
    ``p`` of level ``d`` (each level's partitions a power of two); ``mirror`` the symmetry
    ``s``, or None (then the levels must reach ``T - 1`` jumps, or meet the backward levels
    ``back``). ``ends_empty``: the side ("forward", "backward") whose last level is said to
    be empty (a search that ran dry: no meeting to check; its emptiness is checked as it is
    read). ``runner(fn, items)`` runs ``fn`` on every item (default: here, one after the
    other; ``engine.cluster`` passes Dask's map, with ``scratch`` a directory every worker
    sees). ``walk=False``: all but the walk of the levels' children (each loader is called
    once, to check its file's header: ``load_level_part(whole=False)``; the answer is then
    None, "not finished").
    ``sizes`` (``back_sizes``): the positions of each level, so that a level whose buckets
    would not fit the disk (``room`` bytes; default ``DISK_SHARE`` of what the scratch
    directory's disk has free) is checked in rounds of its partitions (the last level: in
    passes, each expanding it again for a group of the partitions it meets). ``journal``: the
    steps it holds are not walked again, and each round or pass walked is recorded in it.
    ``progress``: told a line as each round or pass ends.
    ``rebuild``: the level files are not read; ``levels[d]`` (``back[d]``) is the count the
    certificate states for each of its partitions, and the check builds every level itself
    (the module's docstring), in a scratch directory (beside the journal, in ``journal.path``
    + ".levels/" under the journal's key, when there is one, so that a stopped check goes on;
    removed at a verdict). ``compiled``: the hot loops in C (``checks/_check.c``), else in
    numpy, the reference the tests hold the C to."""
    t0 = time.perf_counter()
    deadline = deadline or Deadline()
    board, goal = problem.board, problem.goal
    n = board.n
    total = 0

    def done(ok: bool | None, message: str) -> Verdict:
        return judged(ok, message, total, time.perf_counter() - t0)

    if n > 64:
        return done(False, "levels are checked on boards of at most 64 holes")
    why = premises(problem, group, pagodas, start=True)
    if why is not None:
        return done(False, why)
    if goal.min_pegs != goal.max_pegs:
        return done(False, "the goal's pegs are not one number: a plan's jumps are not known")
    pegs = problem.start.bit_count()
    jumps = pegs - goal.min_pegs
    a, b = len(levels) - 1, len(back) - 1
    last = {"forward": a, "backward": b}  # each side's last level
    if not levels or any(not len(lv) or len(lv) & (len(lv) - 1) for lv in [*levels, *back]):
        return done(False, "every level must be a power of two of partitions")
    if ends_empty and last[ends_empty] > jumps:
        # a plan's positions are in levels 0..T of each side only: past them an empty level
        # (the goal's children, all with too few pegs) says nothing
        return done(False, f"the empty {_name(ends_empty, last[ends_empty])} lies past the {jumps} jumps "
                    "of a plan")
    goals = goal_positions(problem)
    why, meet, mirrored = _meeting(problem, group, mirror, goals, a, b, jumps, ends_empty, compiled)
    if why is not None:
        return done(False, why)
    closure = Closure(problem, (), tuple(tuple(p) for p in group), tuple((tuple(w), f) for w, f in pagodas),
                      None, compiled=compiled)
    if rebuild and not walk:
        return done(None, f"the premises checked; the {len(levels) + len(back)} levels are rebuilt by a "
                    "whole check only")
    if rebuild and not all(whole(c) for lv in [*levels, *back] for c in lv):
        return done(False, "a part of a level has no whole count")
    if not walk:  # the loaders check what the files' headers say
        for lv in [*levels, *back]:
            for load in lv:
                try:
                    load()
                except ValueError as exc:
                    return done(False, str(exc))
        return done(None, f"the premises and the {sum(len(lv) for lv in [*levels, *back])} files of "
                    f"{len(levels) + len(back)} levels checked; their closure under jumps is not walked here")
    # a journal's levels beside it, by its key (the same file may journal other checks)
    kept = kept_levels(journal) if rebuild else None
    with scratch_dir("pegsat-levels-", scratch) as tmp:
        built = str(kept if kept is not None else Path(tmp) / "levels") if rebuild else ""
        stated: tuple[tuple[tuple[int, ...], ...], ...] = ()
        if rebuild:  # each level read from the file the check writes as it builds it
            stated = tuple(tuple(tuple(cast(Sequence[int], lv)) for lv in lvs) for lvs in (levels, back))
            levels, back = ([[partial(load_built, built_path(built, side, d, q)) for q in range(len(lv))]
                             for d, lv in enumerate(lvs)]
                            for side, lvs in zip(SIDES, (levels, back), strict=True))
        check = Levels(closure, tuple(tuple(lv) for lv in levels), mirrored, meet, pegs, tmp, ends_empty,
                       tuple(tuple(lv) for lv in back), built, stated)
        why = _level_zero(problem, check, goals if back else None, rebuild)
        if why is not None:
            return done(None if why.startswith(UNSETTLED) else False, why.removeprefix(UNSETTLED))
        steps = [("forward", d) for d in range(a)] + [("backward", d) for d in range(b)]
        if ends_empty:  # its emptiness, checked as it is read
            steps.append((ends_empty, last[ends_empty]))
        elif mirror is not None or not back:
            steps.append(("forward", a))  # the mirrored meeting, or the goal test
        else:  # the sides' last levels met: the smaller one's children walked
            small = "backward" if back_sizes and sizes and back_sizes[b] < sizes[a] else "forward"
            steps.append((small, last[small]))

        def plan(side: str, d: int) -> Step:  # made as it is reached: a forged level may not have one
            size = (sizes if side == "forward" else back_sizes) or None
            aim = check.target(side, d)
            into = "the goal test" if aim is None else _name(aim[1], aim[2]) + (
                " mirrored" if aim[0] == "mirrored" else "")
            built_into = rebuild and aim is not None and aim[0] == "closed"  # the next level built here
            look = None if aim is None else partial(check.build if built_into else check.lookup, d, side=side)
            sieved = aim is not None and aim[0] != "closed"  # none may meet: the children sieved
            return Step(str(d) if side == "forward" else f"backward {d}", _name(side, d),
                        ("rebuilt " if built_into else "") + into,
                        partial(check.expand, d, side=side), len(check._side(side)[d]), look,
                        len(check._side(aim[1])[aim[2]]) if aim is not None else 1,
                        check.bucket_dir(side, d), None if size is None else size[d],
                        partial(check.prepare, d, side=side) if sieved else None,
                        check.sieve_dir(side, d) if sieved else None,
                        SIEVED_BYTES if sieved else None, folds=not sieved and aim is not None)
        ran, taken = run_steps((plan(side, d) for side, d in steps), deadline, runner, room, journal,
                               progress, t0, tmp)
        total = ran.walked
        made = None  # the positions rebuilt (unknown when the journal's levels are gone)
        if rebuild and ran.ok:
            try:
                made = sum(sealed.header(built_path(built, side, d, q), REBUILT, 1, "", 1 << 40)["count"]
                           for side, lvs in zip(SIDES, stated, strict=True) for d, lv in enumerate(lvs)
                           for q in range(len(lv)))
            except sealed.Stale:
                pass
        if ran.finished:
            drop_kept(kept)
        if not ran.ok:
            return done(False if ran.finished else None, ran.reason)
    total_note = ""
    if journal is not None and taken:
        total_note = f" ({taken} of the {len(steps)} steps taken from the journal {journal.path})"
    how = ("the last is empty" if ends_empty else f"their children's mirror images meet none of level {meet}"
           if mirror is not None else "no child of the last is a goal" if not back
           else f"no child of level {a} is in backward level {b}" if steps[-1][0] == "forward"
           else f"no parent of backward level {b} (by a jump reversed) is in level {a}")
    what = f"{a + 1} levels" if not back else f"{a + 1} forward and {b + 1} backward levels"
    closed = "each closed under jumps into the next" + (" (backward: jumps reversed)" if back else "")
    if rebuild:
        said = sum(c for lvs in stated for lv in lvs for c in lv)
        held = "" if made is None else f"{made:,} positions; "
        what = f"{what}, rebuilt by the check ({held}the certificate states {said:,}),"
    return done(True, f"{what} of a plan of {jumps} jumps checked ({len(group)} symmetries, "
                f"{len(pagodas)} pagodas): {closed}, {how}; {total} children walked{total_note}")


def _level_zero(problem: Problem, check: Levels, goals: list[int] | None, rebuild: bool) -> str | None:
    """Why the start (with ``goals``, every goal position of backward level 0) is neither in
    level 0 nor excluded, or None; when rebuilding, level 0 written as the check sees it."""
    firsts = [("forward", [problem.start], "the start is neither in level 0 nor excluded")]
    if goals is not None:
        firsts.append(("backward", goals, "a goal position is neither in backward level 0 nor excluded"))
    closure = check.closure
    for side, positions, missing in firsts:
        x = np.array(positions, dtype=np.uint64)
        x = distinct(closure.canonical(x[~check.excluded(side, x)]))
        parts = len(check._side(side)[0])
        where = partition(x, parts)
        if rebuild:  # level 0: the start (the goal positions), as the check sees them
            for q in range(parts):
                if (why := check._write_built(side, 0, q, x[where == q])) is not None:
                    return why
            continue
        for q in np.unique(where).tolist():
            zero, why = check._part(0, q, side)
            if zero is None:
                return why or ""
            if not member(zero, x[where == q]).all():
                return missing
    return None


def _meeting(problem: Problem, group: list[list[int]], mirror: list[int] | None, goals: list[int] | None,
             a: int, b: int, jumps: int, ends_empty: str,
             compiled: bool) -> tuple[str | None, int, Closure | None]:
    """Why the levels' shape cannot meet in a plan of ``jumps`` jumps, or None; with the level
    a mirror meets (``meet``) and the mirror's closure (the module's docstring, point 4);
    ``a``, ``b``: the forward and backward levels' last depths (``b`` -1: none)."""
    board, n = problem.board, problem.board.n
    if mirror is not None:
        if b >= 0:
            return "a mirror is for levels grown forward only", 0, None
        if goals is None or len(goals) != 1:
            return "a mirror is for a goal of one position", 0, None
        lines = {tuple(line) for line in board.jumps}
        if sorted(mirror) != list(range(n)) or any((mirror[x], mirror[y], mirror[z]) not in lines
                                                   for x, y, z in lines):
            return "the mirror is not a permutation mapping lines onto lines", 0, None
        image = lambda x: sum(1 << mirror[h] for h in range(n) if x >> h & 1)  # noqa: E731
        if image(board.full & ~problem.start) != goals[0] or image(board.full & ~goals[0]) != problem.start:
            return "the mirror does not map the start's complement onto the goal and back", 0, None
        inverse = [0] * n
        for h in range(n):
            inverse[mirror[h]] = h
        known = {tuple(p) for p in group}
        for i, p in enumerate(group):
            if tuple(mirror[p[inverse[h]]] for h in range(n)) not in known:
                return f"the mirror's conjugate of symmetry {i} is not among the symmetries", 0, None
        meet = jumps - a - 1
        if not 0 <= meet <= a and not ends_empty:
            return f"{a + 1} levels of a plan of {jumps} jumps do not reach halfway", 0, None
        return None, meet, Closure(problem, (), (tuple(mirror),), (), None, compiled=compiled)
    if b >= 0:
        if goals is None:
            return "backward levels are for a goal whose positions can be listed", 0, None
        if a + b + 1 != jumps and not ends_empty:
            return (f"{a + 1} forward and {b + 1} backward levels do not meet in a plan of {jumps} jumps",
                    0, None)
    elif a != jumps - 1 and not ends_empty:
        return f"without a mirror the levels must reach {jumps - 1} jumps, not {a}", 0, None
    return None, 0, None


def _name(side: str, d: int) -> str:
    return f"level {d}" if side == "forward" else f"backward level {d}"


def check_levels(problem: Problem, ev: dict, ctx: Context) -> Verdict:
    """A ``levels`` certificate: its partition files read (or, ``walking.rebuild``, the levels rebuilt) and
    walked."""
    base, staged, deadline, walking = ctx.base, ctx.staged, ctx.deadline, ctx.walking
    runner, walk_above, journal = walking.runner, walking.walk_above, walking.journal
    if ev["partition"] != f"{MULTIPLIER:#x}":
        return rejected("the levels' partitions are by another rule than the top bits of a product with "
                        f"{MULTIPLIER:#x}")
    levels, back = ev["levels"], ev.get("backward", [])  # backward: a search grown from both sides
    for name, lvs in (("levels", levels), ("backward", back)):
        if not isinstance(lvs, list) or (name == "levels" and not lvs) \
                or not all(isinstance(lv, list) and lv for lv in lvs):
            return rejected(f"\"{name}\" is not a list of levels, each a list of parts")
        if not all(isinstance(it, dict) for lv in lvs for it in lv):
            return rejected("a part of a level is not an object")
    total = sum(it["count"] if whole(it["count"]) else 0 for lv in [*levels, *back] for it in lv)
    entire = walk_above is None or total <= walk_above
    rebuild = walking.rebuild  # past ``walk_above``: the premises only (``check(walk=False)``)
    loaders: list[list[Any]] = []
    back_loaders: list[list[Any]] = []
    largest = 0
    for lvs, out in ((levels, loaders), (back, back_loaders)):
        for lv in lvs:
            row = []
            for it in lv:
                if not whole(it["count"]) or not isinstance(it["sha256"], str):
                    return rejected("a part of a level has no entire count or no SHA-256")
                if rebuild:  # its stated count only: the checker builds the level
                    row.append(it["count"])
                    largest = max(largest, it["count"])
                    continue
                f = companion(base, it["file"], staged)
                if not f.is_file():
                    return rejected(f"{f} is missing")
                lie = overstated(f, it)
                if lie is not None:
                    return lie
                row.append(partial(load_level_part, f.resolve(), it["count"], it["sha256"], entire))
                largest = max(largest, it["count"])
            out.append(row)
    if 3 * 8 * largest > memory_budget():
        return unsettled(f"a part of {largest} positions is more than this machine's memory budget holds "
                "(PEGSAT_MEMORY_GB)")
    group = [[int(x) for x in p] for p in ev["symmetries"]]
    mirror = None if ev["mirror"] is None else [int(x) for x in ev["mirror"]]
    where = scratch(base, runner)
    sizes = [sum(it["count"] for it in lv) for lv in levels]
    back_sizes = [sum(it["count"] for it in lv) for lv in back]
    empty = "forward" if sizes[-1] == 0 else "backward" if back_sizes and back_sizes[-1] == 0 else ""
    kept = None if journal is None else Journal(journal, journal_key(
        {"problem": problem_to_json(problem), "evidence": ev, "rebuild": rebuild}, Path(__file__),
        Path(sieve.__file__)))
    walk = check(problem, loaders, group, pagodas_of(problem, ev), mirror, deadline, runner, where,
                 empty, entire, sizes, room=walking.room, journal=kept, progress=walking.progress,
                 back=back_loaders, back_sizes=back_sizes, rebuild=rebuild, compiled=not walking.reference)
    how = "rebuilt and checked" if rebuild else "checked"
    return restated(walk, f"levels {how} by the independent checker ({walk.seconds:.2f} s): {walk.reason}")
