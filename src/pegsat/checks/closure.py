"""The checkers' closure kit: a set's premises (``premises``: symmetries that form a group and
map lines onto lines, pagodas no jump raises, class weightings even on every line), the
positions a check excludes (below a pagoda's floor, or hole by hole), least images under the
symmetries, children by the jump rule (``Closure``), and sorted-set operations (``distinct``,
``split``, ``member``). It depends on nothing of the engine but the verifier's jump rule
(``engine.bitboard.engine``: a jump needs its source and middle full and its target empty,
and flips the three); its hot loops have a compiled twin in ``_check.c``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .. import sealed
from ..deadline import Deadline
from ..engine.bitboard import engine
from ..errors import PegsatError
from ..limits import memory_budget
from ..model.problem import Problem, holes_of

Runner = Callable[[Callable[[int], Any], list[int]], list[Any]]  # (fn, items) -> [fn(item), ...]
BATCH = 20_000  # parents whose children are tested against the floors together
FLUSH = 1 << 24  # children a task holds before it writes its buckets, at least: 128 MB
PER_PART = 1 << 18  # ... and at least this many a target partition, as memory allows: a flush makes
# a file for each, and making a file takes about a millisecond on the disks here (7 ns a child at
# 128 partitions, were 2^24 held)
BUCKET = "check-bucket"  # the sealed kind of a bucket file


def weight(w: list[int], pos: int) -> int:
    """The weight under ``w`` of the pegs of ``pos``."""
    return sum(w[h] for h in holes_of(pos))


def _least_goal_weight(problem: Problem, w: list[int]) -> int | None:
    """The least weight of any goal position (None: there is none), without listing them:
    the goal's full holes, plus the lightest free holes it must fill, plus every further
    free hole of negative weight it may fill."""
    g, n = problem.goal, problem.board.n
    fixed = g.full.bit_count()
    free = sorted(w[h] for h in range(n) if not (g.full | g.empty) >> h & 1)
    lo = max(g.min_pegs - fixed, 0)
    hi = min((g.max_pegs if g.max_pegs is not None else n) - fixed, len(free))
    if g.full & g.empty or lo > hi:
        return None
    take = lo + sum(1 for x in free[lo:hi] if x < 0)
    return weight(w, g.full) + sum(free[:take])


def premises(problem: Problem, group: Sequence[Sequence[int]], pagodas: Sequence[tuple[Sequence[int], int]],
             classes: Sequence[int] | None = None, start: bool = False) -> str | None:
    """Why the premises of a closure argument fail, or None: every symmetry a permutation
    mapping lines onto lines and the goal (and with ``start``, the start) onto itself, and the
    symmetries with the identity a
    group (closed under composition: a position's least image is then the same for its whole
    orbit, so two levels meet by value where their positions meet up to a symmetry; without
    it a certificate listing a rotation by a quarter turn alone could store one position as
    two different images on the two sides); every pagoda one integer weight a
    hole, raised by no jump, with no goal position below its floor; every class weighting
    (the hole-by-hole rule: a goal of one peg anywhere) even on every line."""
    board, goal = problem.board, problem.goal
    n, names = board.n, board.names
    lines = {(a, b, c) for a, b, c in board.jumps}
    for i, p in enumerate(group):
        if sorted(p) != list(range(n)) or any((p[a], p[b], p[c]) not in lines for a, b, c in lines):
            return f"symmetry {i} is not a permutation mapping lines onto lines"
        if any((goal.full >> h & 1, goal.empty >> h & 1) != (goal.full >> p[h] & 1, goal.empty >> p[h] & 1)
               for h in range(n)):
            return f"symmetry {i} does not map the goal onto itself"
        if start and any((problem.start >> h & 1) != (problem.start >> p[h] & 1) for h in range(n)):
            return f"symmetry {i} does not map the start onto itself"
    perms = {tuple(range(n))} | {tuple(p) for p in group}
    for i, p in enumerate(group):
        for j, q in enumerate(group):
            if tuple(p[q[h]] for h in range(n)) not in perms:
                return f"the symmetries are not a group: symmetry {i} after symmetry {j} is not among them"
    holewise = classes is not None
    if holewise and (goal.full or goal.max_pegs != 1):
        return "hole-by-hole exclusion is for a goal of one peg anywhere"
    for k, (w, floor) in enumerate(pagodas):
        if len(w) != n or not all(isinstance(x, int) for x in [*w, floor]):
            return f"pagoda {k} is not one integer weight per hole and an integer floor"
        for a, b, c in board.jumps:
            if w[c] > w[a] + w[b]:
                return f"pagoda {k} increases on jump {names[a]}-{names[b]}-{names[c]}"
        least = _least_goal_weight(problem, list(w))
        if least is not None and least < floor:
            return f"pagoda {k}: a goal position weighs less than its floor"
    for i, c in enumerate(classes or []):
        if not isinstance(c, int) or c < 0 or c >> n:
            return f"class weighting {i} is not a set of the board's holes"
        odd = next(((a, b, d) for a, b, d in board.jumps if ((c >> a & 1) + (c >> b & 1) + (c >> d & 1)) & 1),
                   None)
        if odd is not None:
            return f"class weighting {i} is odd on line {'-'.join(names[h] for h in odd)}"
    if any(sum(abs(x) for x in w) >= 1 << 62 for w, _ in pagodas):
        return "pagoda weights too large"
    return None


def whole(n: object) -> bool:
    """``n`` is a whole number (an int, not a bool, at least 0): a count read from a file."""
    return isinstance(n, int) and not isinstance(n, bool) and n >= 0


GROUPS_AT_ONCE = 64  # symmetries ``_check.children`` takes (a parent's images on its stack)
WEIGH = 1 << 16  # positions weighed together by ``Closure.excluded``
UNSETTLED = "unsettled: "  # a task's answer that is not a verdict (its time ran out, the disk filled)


def distinct(x: np.ndarray, compiled: bool = False, mine: bool = False) -> np.ndarray:
    """``x`` sorted, without repeats (by a sort: numpy's ``unique`` hashes 64-bit words
    several times slower); ``compiled``: sorted by whichever of numpy's sort and
    ``_check.distinct``'s radix sort this machine does faster (``radix_faster``), the repeats
    squeezed out in C, on a copy, or in ``x`` itself when it is ``mine`` (the caller's own
    array, not needed again)."""
    if compiled:
        from . import _check

        own = mine and x.dtype == np.uint64 and x.flags.c_contiguous and x.flags.writeable
        y = x if own else np.array(x, dtype=np.uint64)
        if not radix_faster():
            y.sort()  # in order: ``_check.distinct`` only squeezes
        return y[:_check.distinct(y)]
    x = np.sort(x)
    return x[np.concatenate(([True], x[1:] != x[:-1]))] if len(x) else x


@cache
def radix_faster() -> bool:
    """Whether ``_check.distinct``'s radix sort beats numpy's sort here, measured once a
    process (best of three on 2^19 keys of 40 bits, ~0.1 s): numpy's sort runs at 14 to 52 M
    keys/s on the machines here, by processor, the radix sort at 27 to 50
    (``bench/checkcore.py``); either gives the same array."""
    from . import _check

    keys = np.random.default_rng(0).integers(0, 1 << 40, 1 << 19, dtype=np.uint64)
    best = {}
    for name, sort in (("numpy", np.ndarray.sort), ("radix", _check.distinct)):
        times = []
        for _ in range(3):
            y = keys.copy()
            t = time.perf_counter()
            sort(y)
            times.append(time.perf_counter() - t)
        best[name] = min(times)
    return best["radix"] < best["numpy"]


def split(part: np.ndarray, x: np.ndarray, compiled: bool = False,
          ordered: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(those of ``x`` the sorted ``part`` holds, those it does not); ``compiled``: each once,
    sorted (``_check.member``'s merge; ``ordered``: ``x`` is sorted without repeats already,
    which the merge verifies), else as ``x`` holds them."""
    x, held = _held(part, x, compiled, ordered)
    return x[held], x[~held]


def absent(part: np.ndarray, x: np.ndarray, compiled: bool = False, ordered: bool = False) -> np.ndarray:
    """Those of ``x`` the sorted ``part`` does not hold (``split``'s second half alone)."""
    x, held = _held(part, x, compiled, ordered)
    return x[~held]


def _held(part: np.ndarray, x: np.ndarray, compiled: bool, ordered: bool) -> tuple[np.ndarray, np.ndarray]:
    """``x`` (compiled: sorted without repeats) and which of it ``part`` holds."""
    if not compiled:
        return x, member(part, x)
    from . import _check

    x = np.ascontiguousarray(x, dtype=np.uint64) if ordered else distinct(x, compiled=True)
    held = np.empty(len(x), dtype=np.uint8)
    _check.member(np.ascontiguousarray(part, dtype=np.uint64), x, held)
    return x, held.view(bool)


MERGE = 1 << 21  # children looked up together (16 MB, below the workers' mmap threshold): millions


def merged(runs: Iterable[np.ndarray], compiled: bool = False) -> Iterator[np.ndarray]:
    """Sorted runs (bucket files, read in turn) merged, ``MERGE`` children or more at a time,
    into sorted arrays without repeats (``union``). A lookup of a few thousand children in a
    part of millions jumps through the whole part; of millions, it walks it (a part of the
    diamond open game's dead set: its lookups 8.7 s file by file, 2.6 s merged)."""
    held: list[np.ndarray] = []
    size = 0
    for run in runs:
        held.append(run)
        size += len(run)
        if size >= MERGE:
            yield union(held, compiled)
            held, size = [], 0
    if held:
        yield union(held, compiled)


RUNS = 32  # sorted runs up to which numpy's merging sort beats its quicksort (``union``)


def union(runs: list[np.ndarray], compiled: bool = False) -> np.ndarray:
    """Arrays of sorted runs merged into one sorted array without repeats. numpy's stable sort
    merges the runs it finds: a few (a rebuilt part and a round's children) in a pass or two;
    past about ``RUNS`` its vectorised quicksort is faster (the buckets of a level's partition
    hold a run for each chunk of the level before: thousands, sorted 2.4x faster so).
    ``compiled``: past ``RUNS``, the radix sort where it is the faster (``radix_faster``:
    70-100 M keys/s against numpy's quicksort's 13-17 on a machine where numpy sorts slowly);
    the repeats squeezed out in place by ``_check.distinct``."""
    x = np.concatenate(runs).astype(np.uint64, copy=False)
    few = len(x) < 2 or np.count_nonzero(x[1:] < x[:-1]) < RUNS
    if few or not (compiled and radix_faster()):  # else ``_check.distinct`` sorts it
        x.sort(kind="stable" if few else "quicksort")
    if compiled:  # ``concatenate`` made ``x`` (always a copy): the caller's arrays are untouched
        from . import _check

        return x[:_check.distinct(x)]
    return x[np.concatenate(([True], x[1:] != x[:-1]))] if len(x) else x


def member(part: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Which of ``x`` the sorted ``part`` holds; the queries are sorted first, so each
    search starts where the last one ended (by a stable sort: timsort merges the sorted runs
    that buckets are made of, about twice as fast as numpy's default on them)."""
    if not len(part) or not len(x):
        return np.zeros(len(x), dtype=bool)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    at = np.searchsorted(part, xs)
    out = np.empty(len(x), dtype=bool)
    out[order] = part[np.minimum(at, len(part) - 1)] == xs
    return out


@dataclass(frozen=True)
class Closure:
    """The closure check of a dead set, a part at a time: everything a task needs, so that
    parts can be checked in other processes (a Dask cluster: ``dead_parts``'s ``runner``).
    ``expand(i)`` walks part ``i``'s children: each waits in a bucket file of the part whose
    range holds it (``buckets``, a directory every task sees; its own part's too);
    ``lookup(q)`` finds the children waiting for part ``q`` in it or excluded. Each
    answers None, or why the set fails (``UNSETTLED``: its time ran out)."""

    problem: Problem
    parts: tuple[Callable[[], np.ndarray], ...]
    group: tuple[tuple[int, ...], ...]
    pagodas: tuple[tuple[tuple[int, ...], int], ...]
    classes: tuple[int, ...] | None  # the hole-by-hole rule (``dead_parts``)
    firsts: tuple[int, ...] = ()  # each part's least position
    buckets: str = ""
    compiled: bool = True  # the loops of ``_check`` (C); False: this module's numpy, the reference

    @cached_property
    def _tables(self) -> dict[str, Any]:
        """Byte tables (the weight of each byte value per pagoda, its image per symmetry),
        the jumps as masks and their images, and the hole-by-hole ladders: per class the
        holes it allows; per pagoda its weights on the allowed holes in ascending order and,
        for each count of them, the mask of the holes from there on (a position weighing W
        rules out the holes weighing more, one search away)."""
        board, goal = self.problem.board, self.problem.goal
        n = board.n
        nb = (n + 7) // 8
        # a byte value's bits (256 x 8) times the weights of the byte's holes: integer
        # products, exact (``premises`` keeps every sum within 2^62; an image is a sum of
        # distinct powers of two)
        bits = (np.arange(256)[:, None] >> np.arange(8)) & 1
        holes = np.zeros((len(self.pagodas), 8 * nb), dtype=np.int64)
        holes[:, :n] = [list(weights) for weights, _ in self.pagodas] if self.pagodas else 0
        to = np.zeros((len(self.group), 8 * nb), dtype=np.uint64)
        to[:, :n] = [[1 << h for h in p] for p in self.group] if self.group else 0
        weigh = np.stack([holes[:, 8 * i:8 * i + 8] @ bits.T for i in range(nb)], axis=1)
        image = np.stack([to[:, 8 * i:8 * i + 8] @ bits.T.astype(np.uint64) for i in range(nb)], axis=1)
        allowed = [h for h in range(n) if not goal.empty >> h & 1]
        cls = list(self.classes or ())
        by_class = np.zeros(1 << len(cls), dtype=np.uint64)
        for h in allowed:
            by_class[sum(((c >> h) & 1) << i for i, c in enumerate(cls))] |= np.uint64(1 << h)
        ladders = []
        for w, _ in self.pagodas:
            order = sorted(allowed, key=lambda h: w[h])
            suffix = np.zeros(len(order) + 1, dtype=np.uint64)
            for i in range(len(order) - 1, -1, -1):
                suffix[i] = suffix[i + 1] | np.uint64(1 << order[i])
            ladders.append((np.array([w[h] for h in order], dtype=np.int64), suffix))
        rules = engine(board)
        flip = np.array(rules.flip, dtype=np.uint64)
        t: dict[str, Any] = {"nb": nb, "weigh": weigh, "image": image, "by_class": by_class,
                             "ladders": ladders, "cmask": np.array(cls, dtype=np.uint64),
                             "need": np.array(rules.need, dtype=np.uint64),
                             "land": np.array(rules.land, dtype=np.uint64), "flip": flip}
        t["fimg"] = self._images(flip, t)
        a = len(allowed)
        t["rows"] = np.ascontiguousarray(weigh.transpose(1, 2, 0))  # B x 256 x K: a byte's weights together
        if max((sum(abs(v) for v in w) for w, _ in self.pagodas), default=0) <= 1 << 30:
            t["rows"] = t["rows"].astype(np.int32)  # every sum fits 32 bits: twice the weights a vector
        t["floors"] = np.array([f for _, f in self.pagodas], dtype=np.int64)
        t["values"] = np.ascontiguousarray(np.stack([v for v, _ in ladders]) if ladders
                                           else np.zeros((0, a), np.int64))
        t["masks"] = np.ascontiguousarray(np.stack([m for _, m in ladders]) if ladders
                                          else np.zeros((0, a + 1), np.uint64))
        t["fimg_flat"] = np.ascontiguousarray(np.stack(t["fimg"]) if t["fimg"] else np.zeros(0, np.uint64))
        return t

    @staticmethod
    def _byte(x: np.ndarray, i: int) -> np.ndarray:
        return ((x >> np.uint64(8 * i)) & np.uint64(255)).astype(np.intp)

    def _images(self, x: np.ndarray, t: dict[str, Any] | None = None) -> list[np.ndarray]:
        t = t or self._tables
        out = []
        for s in range(len(self.group)):
            img = np.zeros_like(x)
            for i in range(t["nb"]):
                img |= t["image"][s, i][self._byte(x, i)]
            out.append(img)
        return out

    def weighs(self, x: np.ndarray, k: int) -> np.ndarray:
        """Each position's weight under pagoda ``k`` (exact integers, a byte table a byte)."""
        t = self._tables
        if self.compiled:
            from . import _check

            out = np.empty(len(x), dtype=np.int64)
            _check.weigh(np.ascontiguousarray(x, dtype=np.uint64), t["weigh"][k], out)
            return out
        return sum(t["weigh"][k, i][self._byte(x, i)] for i in range(t["nb"]))

    def children(self, x: np.ndarray, reverse: bool = False, canon: bool = True) -> np.ndarray:
        """Every child of ``x`` by one jump (``reverse``: every position one jump before),
        each as its least image (``canon``) or as it is. The compiled loop goes parent by
        parent, the reference jump by jump: the same children in another order."""
        t = self._tables
        if not self.compiled:
            mask = t["need"] | t["land"]
            want = t["land"] if reverse else t["need"]
            imgs = self._images(x) if canon else []
            out = []
            for j in range(len(t["flip"])):
                legal = (x & mask[j]) == want[j]
                c = x[legal] ^ t["flip"][j]
                if canon:
                    c = self.canonical(c, [im[legal] ^ fi[j] for im, fi in zip(imgs, t["fimg"], strict=True)])
                out.append(c)
            return np.concatenate(out) if out else np.zeros(0, dtype=np.uint64)
        from . import _check

        groups = len(self.group) if canon else 0
        if groups > GROUPS_AT_ONCE:  # the children as they are, then their least images
            return self.canonical(self.children(x, reverse, canon=False))
        images, fimg = (t["image"], t["fimg_flat"]) if groups else (np.zeros(0, np.uint64),) * 2
        x = np.ascontiguousarray(x, dtype=np.uint64)
        kids = _check.children(x, t["need"], t["land"], t["flip"], images, fimg, groups, reverse)
        return np.frombuffer(kids, dtype=np.uint64)

    def children_in(self, x: np.ndarray, reverse: bool, work: np.ndarray) -> Iterator[np.ndarray]:
        """Every child of ``x`` as its least image (``children``), in rounds: the compiled loop
        writes as many parents' as ``work`` holds into it, a round at a time (each round's
        view is overwritten by the next: use it first), with no array made a chunk; the
        reference yields ``children`` once."""
        if not self.compiled or len(self.group) > GROUPS_AT_ONCE:
            yield self.children(x, reverse)
            return
        from . import _check

        t = self._tables
        groups = len(self.group)
        images, fimg = (t["image"], t["fimg_flat"]) if groups else (np.zeros(0, np.uint64),) * 2
        x = np.ascontiguousarray(x, dtype=np.uint64)
        if len(work) < len(t["flip"]):
            raise ValueError("children_in: work holds fewer words than a parent has children at most")
        while len(x):
            done, written = _check.children(x, t["need"], t["land"], t["flip"], images, fimg, groups, reverse,
                                            work)
            yield work[:written]
            x = x[done:]

    @cached_property
    def tops(self) -> tuple[int, ...]:
        """Each pagoda's weight of the start, which no position of a plan exceeds (no jump
        raises a pagoda)."""
        start, n = self.problem.start, self.problem.board.n
        return tuple(sum(w[h] for h in range(n) if start >> h & 1) for w, _ in self.pagodas)

    def above_start(self, x: np.ndarray) -> np.ndarray:
        """Which positions weigh more than the start under a pagoda: the start cannot reach
        them (a backward level's exclusion)."""
        out = np.zeros(len(x), dtype=bool)
        for k, top in enumerate(self.tops):
            out |= self.weighs(x, k) > top
        return out

    def cut(self, x: np.ndarray, floors: bool = True, above: bool = False) -> np.ndarray:
        """Which positions a pagoda cuts: weighing below its floor (``floors``; no goal position
        does), or more than the start (``above``; the start cannot reach them). The compiled
        loop weighs a position under every pagoda at once (``_check.excluded`` with no rule by
        the pegs)."""
        if not self.compiled:
            out = self.above_start(x) if above else np.zeros(len(x), dtype=bool)
            for k, (_, floor) in enumerate(self.pagodas if floors else ()):
                out |= self.weighs(x, k) < floor
            return out
        lowest = self._tables["floors"] if floors else np.full(len(self.pagodas), np.iinfo(np.int64).min)
        return self._compiled_exclusion(x, lowest, above, (0, 0, 0, self.problem.board.n, -1), False)

    def _compiled_exclusion(self, x: np.ndarray, floors: np.ndarray, above: bool,
                            goal: tuple[int, int, int, int, int], holewise: bool) -> np.ndarray:
        """``_check.excluded`` with this closure's tables: ``goal`` is (full, empty, least and
        most pegs of a goal position, the count at or below which a position that is no goal
        is excluded: -1 for none)."""
        from . import _check

        t = self._tables
        out8 = np.empty(len(x), dtype=np.uint8)
        tops = np.array(self.tops if above else (), dtype=np.int64)
        _check.excluded(np.ascontiguousarray(x, dtype=np.uint64), t["weigh"] if holewise else t["rows"],
                        np.asarray(floors, dtype=np.int64), tops, t["values"], t["masks"], t["by_class"],
                        t["cmask"], goal, holewise, out8)
        return out8.view(bool)

    def canonical(self, x: np.ndarray, imgs: list[np.ndarray] | None = None) -> np.ndarray:
        """Each position's least image (given its images, or computed)."""
        if self.compiled and imgs is None and self.group:
            from . import _check

            least = np.empty(len(x), dtype=np.uint64)
            _check.least(np.ascontiguousarray(x, dtype=np.uint64), self._tables["image"], len(self.group),
                         least)
            return least
        out = None
        for img in self._images(x) if imgs is None else imgs:
            out = np.minimum(x, img) if out is None else np.minimum(out, img, out=out)
        return x.copy() if out is None else out

    def is_goal(self, x: np.ndarray) -> np.ndarray:
        """Which positions are goal positions."""
        g, n = self.problem.goal, self.problem.board.n
        pegs = np.bitwise_count(x)
        hi = g.max_pegs if g.max_pegs is not None else n
        return (((x & np.uint64(g.full)) == np.uint64(g.full)) & ((x & np.uint64(g.empty)) == 0)
                & (pegs >= g.min_pegs) & (pegs <= hi))

    def home(self, x: np.ndarray) -> np.ndarray:
        """The part whose range holds each position (-1: none)."""
        return np.searchsorted(np.array(self.firsts, dtype=np.uint64), x, side="right").astype(np.int64) - 1

    def excluded(self, x: np.ndarray, above: bool = False) -> np.ndarray:
        """Which positions are excluded: by their pegs, or by the pagodas (and with ``above``,
        those weighing more than the start under one: ``above_start``). The reference weighs
        one pagoda at a time over the positions not yet settled, ``WEIGH`` positions at a
        time, so that a pagoda's byte-table sums run over arrays that stay in the cache (over
        tens of millions at once they run several times slower); the compiled loop weighs a
        position under all the pagodas at once (by the floors), or hole by hole, trying
        first the pagodas that last ruled each hole out."""
        t, g = self._tables, self.problem.goal
        lo_pegs = max(g.min_pegs, g.full.bit_count(), 1)
        if self.compiled:
            most = g.max_pegs if g.max_pegs is not None else self.problem.board.n
            holewise = self.classes is not None
            out = self._compiled_exclusion(x, t["floors"], above and not holewise,
                                           (g.full, g.empty, g.min_pegs, most, lo_pegs), holewise)
            return out | self.above_start(x) if above and holewise else out
        if len(x) > WEIGH:
            return np.concatenate([self.excluded(x[lo:lo + WEIGH], above) for lo in range(0, len(x), WEIGH)])
        out = (np.bitwise_count(x) <= lo_pegs) & ~self.is_goal(x)
        todo = np.flatnonzero(~out)
        left = None
        if self.classes is not None:  # the holes still to rule out, by each position's class
            sig = np.zeros(len(todo), dtype=np.int64)
            for i, c in enumerate(t["cmask"]):
                sig |= (np.bitwise_count(x[todo] & c).astype(np.int64) & 1) << i
            left = t["by_class"][sig]
        for k, (vals, suffix) in enumerate(t["ladders"]):
            if not len(todo):
                break
            wsum = self.weighs(x[todo], k)
            if left is not None:
                left &= ~suffix[np.searchsorted(vals, wsum, side="right")]
                settled = left == 0
                left = left[~settled]
            else:
                settled = wsum < self.pagodas[k][1]
            out[todo[settled]] = True
            todo = todo[~settled]
        return out | self.above_start(x) if above else out

    def bounds(self, i: int) -> tuple[int, int, int] | str:
        """(least, greatest, count) of part ``i`` (-1, -1, 0: empty), or why it is no part of a
        dead set: not 64-bit positions sorted without repeats, a hole off the board, a goal."""
        dead = self.parts[i]()
        if dead.dtype != np.uint64 or dead.ndim != 1:
            return f"part {i} of the dead set is not a list of 64-bit positions"
        if not bool(np.all(dead[1:] > dead[:-1])):
            return f"part {i} of the dead set is not sorted without repeats"
        if not len(dead):
            return -1, -1, 0
        if int(dead[-1]) >> self.problem.board.n:
            return "a position of the dead set names a hole the board does not have"
        goals = self.is_goal(dead)
        if goals.any():
            return f"a goal position is in the dead set: {int(dead[goals][0]):#x}"
        return int(dead[0]), int(dead[-1]), len(dead)

    @staticmethod
    def _missing(x: int) -> str:
        return (f"position {x:#x} follows a dead position by a jump but is neither excluded nor in the "
                "dead set")

    def expand(self, i: int, seconds: float | None = None) -> tuple[int, str | None]:
        """(children walked, None or why not) for part ``i``: every child's least image
        (``children``) sent to the part whose range holds it (this one's too; ``Buckets``: held,
        then written compressed, ``FLUSH`` at a time), or, below
        every part's range, excluded.
        A child missing from the set is weighed as its least image, which stands for every
        image (an image reaches a goal exactly when the child does: the symmetries map lines
        onto lines and the goal onto itself)."""
        deadline = Deadline().within(seconds)  # seconds <= 0: passed already
        dead = self.parts[i]()
        children = 0
        firsts = np.array(self.firsts, dtype=np.uint64)
        out = Buckets(Path(self.buckets), len(firsts), i)  # held, then written compressed
        for lo in range(0, len(dead), BATCH * 10):
            if deadline.expired():
                return children, f"{UNSETTLED}time limit in part {i}, after {lo} of its {len(dead)} positions"
            kids = self.children(dead[lo:lo + BATCH * 10])
            children += len(kids)
            canon = distinct(kids, self.compiled, mine=True)  # sorted: each part's range is one slice
            cut = [*np.searchsorted(canon, firsts).tolist(), len(canon)]
            loose = canon[:cut[0]]  # in no part's range: excluded, or wrong
            bad = loose[~self.excluded(loose)] if len(loose) else loose
            if len(bad):
                return children, self._missing(int(bad[0]))
            for q in range(len(firsts)):  # its own part's too: looked up with the rest (``merged``)
                if cut[q + 1] > cut[q] and (why := out.add(q, canon[cut[q]:cut[q + 1]])) is not None:
                    return children, why
        return children, out.flush()

    def lookup(self, q: int, seconds: float | None = None) -> str | None:
        """None, or why not: the children waiting for part ``q`` are in it or excluded. A
        missing child met as its canonical form is weighed as that form: it stands for
        every image, and an image reaches a goal exactly when the child does (the
        symmetries map lines onto lines, the goal onto itself)."""
        files = sorted(Path(self.buckets).glob(f"{q}-*.bkt"))
        if not files:
            return None
        if Deadline().within(seconds).expired():
            return f"{UNSETTLED}time limit while looking up children across the parts"
        dead = self.parts[q]()
        for kids in merged((sealed.read(f, BUCKET, 1, "", 1 << 40) for f in files), self.compiled):
            missing = absent(dead, kids, self.compiled, ordered=True)  # each file: sorted runs
            bad = missing[~self.excluded(missing)] if len(missing) else missing
            if len(bad):
                return self._missing(int(bad[0]))
        return None


class Buckets:
    """The children one task sends to the partitions of a target level, held until there
    are ``most`` of them (``FLUSH``, or ``PER_PART`` a partition as memory allows), then
    written as one bucket file per target partition (part ``p``'s ``k``-th flush:
    ``q-p-k.bkt`` in ``out``). They are held copied into one buffer made once a task (a
    partition's runs joined in a second, kept too): no array is made a chunk, and the caller
    may reuse what it adds."""

    def __init__(self, out: Path, parts: int, p: int) -> None:
        self.out, self.p = out, p
        self.held: list[list[np.ndarray]] = [[] for _ in range(parts)]
        self.size = self.flushes = 0
        self.most = max(FLUSH, min(parts * PER_PART, memory_budget() // 128))  # words held at most
        self.room = np.zeros(0, dtype=np.uint64)
        self.joined = np.zeros(0, dtype=np.uint64)

    def add(self, q: int, kids: np.ndarray) -> str | None:
        """Hold ``kids`` for partition ``q`` (sorted); None, or why the flush they caused failed."""
        if self.size + len(kids) > self.most and (why := self.flush()) is not None:
            return why
        if len(kids) > self.most:  # more than the buffer holds: written by itself
            self.held[q].append(kids)
            return self.flush()
        if not len(self.room):
            self.room = np.empty(self.most, dtype=np.uint64)
        held = self.room[self.size:self.size + len(kids)]
        held[:] = kids
        self.held[q].append(held)
        self.size += len(kids)
        return None

    def flush(self) -> str | None:
        """Write what is held: None, or why not (a full disk is a limit, not a verdict)."""
        for q, arrays in enumerate(self.held):
            if arrays:
                total = sum(len(a) for a in arrays)
                if len(arrays) > 1 and len(self.joined) < total:
                    self.joined = np.empty(max(total, 2 * len(self.joined)), dtype=np.uint64)
                x = arrays[0] if len(arrays) == 1 else np.concatenate(arrays, out=self.joined[:total])
                try:
                    sealed.write(self.out / f"{q}-{self.p}-{self.flushes}.bkt", BUCKET, 1, "", x,
                                 durable=False, codec="zstd-planes")
                except (OSError, PegsatError) as exc:
                    return f"{UNSETTLED}the check's buckets could not be written ({exc})"
                arrays.clear()
        self.size, self.flushes = 0, self.flushes + 1
        return None
