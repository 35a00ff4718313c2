"""A second route for exhaustive certificates: a checker that shares no search code.

An exhaustive certificate (``proofs.certificate``, kind ``exhaustive``) says "the level
search, pruned by these integer pagodas, met no plan". Its first check re-runs that same
search (``planners.layers``): fast, but it trusts the search code. This module is the
second route, written to be read in one sitting and to depend on nothing of the engine:
only the board model, the goal, and the verifier's jump rule (``engine.bitboard.engine``:
a jump needs its source and middle full and its target empty, and flips the three).

It checks each forward pagoda itself (no jump raises its weight; every goal position weighs
at least its floor, so a position below the floor can never reach the goal) and then walks
every position reachable from the start, one jump level at a time, with plain Python sets,
dropping positions below a floor (weighed a batch at a time by one matrix product in numpy:
with 237 pagodas, one sum per pagoda and position in Python took over 20 minutes on the
diamond). No symmetry reduction, no two-ended meeting, no tables:
if no goal position is ever reached and the levels run dry, nothing reaches the goal.

It is slow (plain Python, every position of the pruned forward tree) and stops with
"too large" past ``MAX_POSITIONS``; the certificate check says which routes it used.
"""

from __future__ import annotations

import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, partial
from pathlib import Path
from typing import Any

import numpy as np

from ..deadline import Deadline
from ..engine.bitboard import engine
from ..limits import memory_budget
from ..model.problem import Problem, goal_positions, holes_of

Runner = Callable[[Callable[[int], Any], list[int]], list[Any]]  # (fn, items) -> [fn(item), ...]
MAX_POSITIONS = 3_000_000  # positions in all levels; beyond, the route is not run to the end
BATCH = 20_000  # parents whose children are tested against the floors together


def save_positions(fh, positions: np.ndarray) -> None:
    """Write sorted 64-bit positions compactly (``numpy.savez_compressed``): the gaps between
    neighbours, as 8 byte planes (all lowest bytes, then all second bytes, ...), so the
    planes of high bytes, nearly all zero, compress to almost nothing (an English dead set of
    13.2 M positions: 106 MB as ``.npy``, 4.7 MB packed; 1.2 s to write, 0.25 s to read).
    The first "gap" is the first position."""
    gaps = np.diff(positions.astype(np.uint64), prepend=np.uint64(0))
    np.savez_compressed(fh, planes=np.ascontiguousarray(gaps.view(np.uint8).reshape(-1, 8).T))


def load_positions(path, count: int) -> np.ndarray:
    """The ``count`` positions of ``save_positions`` (or of a plain ``.npy`` array, as older
    certificates hold). Raises ValueError on anything else, and before any decompression when
    the file says it holds more than ``count`` positions: a small file that would expand to
    gigabytes (a decompression bomb) is refused by its headers, not by running out of memory."""
    limit = 8 * count + NPY_HEADER
    with open(path, "rb") as raw:
        if raw.read(6) == b"\x93NUMPY":  # a plain array: its size on disk is its size in memory
            raw.seek(0, 2)
            if raw.tell() > limit:
                raise ValueError(f"the array holds more than the {count} positions stated")
            raw.seek(0)
            return _array(raw, (count,), np.uint64)
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        if [i.filename for i in infos] != ["planes.npy"]:
            raise ValueError("expected one array 'planes'")
        if infos[0].file_size > limit:
            raise ValueError(f"'planes' expands to {infos[0].file_size} bytes, more than {count} positions")
        with zf.open(infos[0]) as fh:  # reads at most the size its header states
            planes = _array(fh, (8, count), np.uint8)
    gaps = np.ascontiguousarray(planes.T).view(np.uint64).reshape(-1)
    return np.cumsum(gaps, dtype=np.uint64)


NPY_HEADER = 4096  # bytes an .npy header may take


def _array(fh, shape: tuple[int, ...], dtype) -> np.ndarray:
    """An .npy array of exactly this shape and dtype from ``fh`` (never a pickle)."""
    version = np.lib.format.read_magic(fh)
    if version not in ((1, 0), (2, 0)):
        raise ValueError(f".npy version {version}")
    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    got, fortran, kind = read(fh, max_header_size=NPY_HEADER)
    if tuple(got) != shape or fortran or np.dtype(kind) != np.dtype(dtype).newbyteorder("<"):
        raise ValueError(f"expected {np.dtype(dtype).name} {shape}, the file holds {kind} {tuple(got)}")
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    data = fh.read(size)
    if len(data) != size:
        raise ValueError("the array is cut short")
    return np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<")).astype(dtype).reshape(shape)


@dataclass(frozen=True)
class Walk:
    ok: bool | None  # True: no goal reachable; False: the certificate is wrong; None: not finished
    positions: int
    seconds: float
    message: str


def _weight(w: list[int], pos: int) -> int:
    return sum(w[h] for h in holes_of(pos))


def refute(problem: Problem, pagodas: list[tuple[list[int], int]], deadline: Deadline | None = None,
           limit: int = MAX_POSITIONS) -> Walk:
    """Walk every start-reachable position (pruned by ``pagodas``: (weights, floor)) and
    report whether a goal position is among them."""
    t0 = time.perf_counter()
    deadline = deadline or Deadline()
    board, goal = problem.board, problem.goal
    goals = goal_positions(problem)
    rules = engine(board)
    names = board.names
    for k, (w, floor) in enumerate(pagodas):
        for a, b, c in board.jumps:
            if w[c] > w[a] + w[b]:
                return Walk(False, 0, time.perf_counter() - t0,
                            f"pagoda {k} increases on jump {names[a]}-{names[b]}-{names[c]}")
        if goals is None:
            return Walk(None, 0, time.perf_counter() - t0, "the goal has too many positions to check pagodas")
        if any(_weight(w, g) < floor for g in goals):
            return Walk(False, 0, time.perf_counter() - t0, f"pagoda {k}: a goal weighs less than its floor")

    # The floors are tested a batch of children at a time: their holes as a 0/1 matrix times
    # the weights (float64 sums, exact below 2^53: checked here, else Python integers).
    weights = [w for w, _ in pagodas]
    floors = np.array([floor for _, floor in pagodas], dtype=np.float64)
    exact = all(sum(abs(x) for x in w) < 2**53 for w in weights)
    mat = np.array(weights, dtype=np.float64).T if pagodas else None
    width = (board.n + 7) // 8

    def alive(batch: list[int]) -> list[int]:
        if not pagodas or not batch:
            return batch
        if not exact:
            return [p for p in batch if all(_weight(w, p) >= f for w, f in pagodas)]
        raw = np.frombuffer(b"".join(p.to_bytes(width, "little") for p in batch), dtype=np.uint8)
        holes = np.unpackbits(raw.reshape(len(batch), width), axis=1, bitorder="little")[:, :board.n]
        assert mat is not None
        keep = np.asarray((holes.astype(np.float64) @ mat >= floors).all(axis=1))
        return [p for p, k in zip(batch, keep.tolist(), strict=True) if k]

    level = set(alive([problem.start]))
    seen = len(level)
    jumps = range(len(rules.need))
    need, land, flip = rules.need, rules.land, rules.flip
    depth = 0
    while level:
        for pos in level:
            if goal.satisfied(pos):
                return Walk(False, seen, time.perf_counter() - t0,
                            f"a goal position is reachable in {depth} jumps: the certificate is wrong")
        nxt: set[int] = set()
        parents = list(level)
        for lo in range(0, len(parents), BATCH):
            if deadline.expired():
                return Walk(None, seen, time.perf_counter() - t0, f"time limit after {seen} positions")
            children = {pos ^ flip[k] for pos in parents[lo:lo + BATCH] for k in jumps
                        if pos & need[k] == need[k] and not pos & land[k]}
            nxt.update(alive(list(children - nxt)))
        seen += len(nxt)
        if seen > limit:
            return Walk(None, seen, time.perf_counter() - t0, f"too large: more than {limit} positions")
        level, depth = nxt, depth + 1
    return Walk(True, seen, time.perf_counter() - t0,
                f"every one of the {seen} reachable positions (pruned by {len(pagodas)} pagodas) "
                "walked; none is a goal")


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
    return _weight(w, g.full) + sum(free[:take])


def dead_set(problem: Problem, dead: np.ndarray, group: list[list[int]], pagodas: list[tuple[list[int], int]],
             deadline: Deadline | None = None, classes: list[int] | None = None,
             compiled: bool = True) -> Walk:
    """Check a dead set (``proofs.deadset``) held in memory: ``dead_parts`` with one part."""
    return dead_parts(problem, [lambda: dead], group, pagodas, deadline, classes, compiled=compiled)


def rebuild_dead(problem: Problem, count: int, group: list[list[int]], pagodas: list[tuple[list[int], int]],
                 deadline: Deadline | None = None, classes: list[int] | None = None,
                 compiled: bool = True) -> Walk:
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

    def done(ok: bool | None, message: str) -> Walk:
        return Walk(ok, walked, time.perf_counter() - t0, message)

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
        level = distinct(np.concatenate(kids), compiled) if kids else level[:0]
        level = level[~closure.excluded(level)]  # weighed as least images (each stands for its orbit)
        jumps += 1
    return done(True, f"the positions the start reaches without an excluded one, rebuilt by the check jump "
                f"after jump ({total:,} up to {len(group)} symmetries; the certificate states {count:,}), "
                f"{len(pagodas)} pagodas: none is a goal position")


def dead_parts(problem: Problem, parts: Sequence[Callable[[], np.ndarray]], group: list[list[int]],
               pagodas: list[tuple[list[int], int]], deadline: Deadline | None = None,
               classes: list[int] | None = None, runner: Runner | None = None,
               scratch: str | None = None, walk: bool = True, compiled: bool = True) -> Walk:
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

    def done(ok: bool | None, message: str) -> Walk:
        return Walk(ok, total, time.perf_counter() - t0, message)

    if n > 64:
        return done(False, "dead sets are checked on boards of at most 64 holes")
    why = premises(problem, group, pagodas, classes)
    if why is not None:
        return done(False, why)
    closure = Closure(problem, tuple(parts), tuple(tuple(p) for p in group),
                      tuple((tuple(w), floor) for w, floor in pagodas),
                      None if classes is None else tuple(int(c) for c in classes), compiled=compiled)

    # First pass: every part sorted, distinct, on the board, above the part before, no goal.
    firsts: list[int] = []
    last = -1
    for i, load in enumerate(parts):
        dead = load()
        if dead.dtype != np.uint64 or dead.ndim != 1:
            return done(False, f"part {i} of the dead set is not a list of 64-bit positions")
        if not bool(np.all(dead[1:] > dead[:-1])):
            return done(False, f"part {i} of the dead set is not sorted without repeats")
        if len(dead) and int(dead[-1]) >> n:
            return done(False, "a position of the dead set names a hole the board does not have")
        if len(dead) and int(dead[0]) <= last:
            return done(False, f"part {i} of the dead set does not lie above the part before it")
        goals = closure.is_goal(dead)
        if goals.any():
            return done(False, f"a goal position is in the dead set: {int(dead[goals][0]):#x}")
        firsts.append(int(dead[0]) if len(dead) else last + 1)
        last = int(dead[-1]) if len(dead) else last
        total += len(dead)
    closure = replace(closure, firsts=tuple(firsts))
    start = np.array([problem.start], dtype=np.uint64)
    if not closure.excluded(start)[0]:
        s0 = closure.canonical(start)
        at = int(closure.home(s0)[0])
        if at < 0 or not _member(parts[at](), s0)[0]:
            return done(False, "the start is neither in the dead set nor excluded")

    if not walk:
        return done(None, f"all {total} positions in {len(parts)} parts read back sorted, in order and on "
                    "the board, no goal among them, the start in them or excluded; their closure under jumps "
                    "is not walked here")

    def run(fn: Callable[..., Any]) -> list[Any]:
        items = list(range(len(parts)))
        return runner(fn, items) if runner is not None else [fn(i) for i in items]

    with tempfile.TemporaryDirectory(prefix="pegsat-dead-", dir=scratch) as tmp:
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


WEIGH = 1 << 16  # positions weighed together by ``Closure.excluded``
UNSETTLED = "unsettled: "  # a task's answer that is not a verdict (its time ran out, the disk filled)


def distinct(x: np.ndarray, compiled: bool = False) -> np.ndarray:
    """``x`` sorted, without repeats (by a sort: numpy's ``unique`` hashes 64-bit words
    several times slower); ``compiled``: by ``_check.distinct``'s radix sort, on a copy."""
    if compiled:
        from . import _check

        y = np.array(x, dtype=np.uint64)
        return y[:_check.distinct(y)]
    x = np.sort(x)
    return x[np.concatenate(([True], x[1:] != x[:-1]))] if len(x) else x


def split(part: np.ndarray, x: np.ndarray, compiled: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(those of ``x`` the sorted ``part`` holds, those it does not); ``compiled``: each once,
    sorted (``_check.member``'s merge), else as ``x`` holds them."""
    if not compiled:
        held = _member(part, x)
        return x[held], x[~held]
    from . import _check

    x = distinct(x, compiled=True)
    held = np.empty(len(x), dtype=np.uint8)
    _check.member(np.ascontiguousarray(part, dtype=np.uint64), x, held)
    mask = held.view(bool)
    return x[mask], x[~mask]


def _member(part: np.ndarray, x: np.ndarray) -> np.ndarray:
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
    ``expand(i)`` walks part ``i``'s children: those in its own range must be in it or
    excluded, the others wait in bucket files (``buckets``, a directory every task sees);
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
        weigh = np.zeros((len(self.pagodas), nb, 256), dtype=np.int64)
        image = np.zeros((len(self.group), nb, 256), dtype=np.uint64)
        for i in range(nb):
            for v in range(256):
                bits = [8 * i + j for j in range(8) if v >> j & 1 and 8 * i + j < n]
                for k, (w, _) in enumerate(self.pagodas):
                    weigh[k, i, v] = sum(w[h] for h in bits)
                for s, p in enumerate(self.group):
                    image[s, i, v] = sum(1 << p[h] for h in bits)
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
        images, fimg = (t["image"], t["fimg_flat"]) if groups else (np.zeros(0, np.uint64),) * 2
        x = np.ascontiguousarray(x, dtype=np.uint64)
        kids = _check.children(x, t["need"], t["land"], t["flip"], images, fimg, groups, reverse)
        return np.frombuffer(kids, dtype=np.uint64)

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

    def excluded(self, x: np.ndarray) -> np.ndarray:
        """Which positions are excluded: by their pegs, or by the pagodas, weighed one
        pagoda at a time over the positions not yet settled; ``WEIGH`` positions at a time, so
        that a pagoda's byte-table sums run over arrays that stay in the cache (over tens of
        millions at once they run several times slower)."""
        if len(x) > WEIGH:
            return np.concatenate([self.excluded(x[lo:lo + WEIGH]) for lo in range(0, len(x), WEIGH)])
        t, g = self._tables, self.problem.goal
        lo_pegs = max(g.min_pegs, g.full.bit_count(), 1)
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
        return out

    @staticmethod
    def _missing(x: int) -> str:
        return (f"position {x:#x} follows a dead position by a jump but is neither excluded nor in the "
                "dead set")

    def expand(self, i: int, seconds: float | None = None) -> tuple[int, str | None]:
        """(children walked, None or why not) for part ``i``: every child's least image
        (``children``) in this part, or excluded, or sent to the part whose range holds it.
        A child missing from the set is weighed as its least image, which stands for every
        image (an image reaches a goal exactly when the child does: the symmetries map lines
        onto lines and the goal onto itself)."""
        deadline = Deadline().within(seconds)  # seconds <= 0: passed already
        dead = self.parts[i]()
        children = 0
        for lo in range(0, len(dead), BATCH * 10):
            if deadline.expired():
                return children, f"{UNSETTLED}time limit in part {i}, after {lo} of its {len(dead)} positions"
            canon = self.children(dead[lo:lo + BATCH * 10])
            children += len(canon)
            where = self.home(canon)
            mine = where == i
            _, missing = split(dead, canon[mine], self.compiled)
            loose = np.concatenate([missing, canon[where < 0]])  # (in no part's range: excluded, or wrong)
            bad = loose[~self.excluded(loose)] if len(loose) else loose
            if len(bad):
                return children, self._missing(int(bad[0]))
            rest = distinct(canon[~mine & (where >= 0)], self.compiled)
            where = self.home(rest)
            try:
                for q in np.unique(where):
                    np.save(Path(self.buckets) / f"{q}-{i}-{lo}.npy", rest[where == q])
            except OSError as exc:  # a full disk is a limit, not a verdict
                return children, f"{UNSETTLED}the check's buckets could not be written ({exc.strerror})"
        return children, None

    def lookup(self, q: int, seconds: float | None = None) -> str | None:
        """None, or why not: the children waiting for part ``q`` are in it or excluded. A
        missing child met as its canonical form is weighed as that form: it stands for
        every image, and an image reaches a goal exactly when the child does (the
        symmetries map lines onto lines, the goal onto itself)."""
        files = sorted(Path(self.buckets).glob(f"{q}-*.npy"))
        if not files:
            return None
        if Deadline().within(seconds).expired():
            return f"{UNSETTLED}time limit while looking up children across the parts"
        dead = self.parts[q]()
        for f in files:
            _, missing = split(dead, np.load(f), self.compiled)
            bad = missing[~self.excluded(missing)] if len(missing) else missing
            if len(bad):
                return self._missing(int(bad[0]))
        return None
