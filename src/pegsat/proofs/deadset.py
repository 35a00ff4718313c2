"""Dead-set certificates: an exhausted depth-first search, written down so anyone can check it.

When the compiled depth-first search (``engine.dfs``) exhausts a problem, its table holds
positions from which it proved the goal unreachable. Those positions, one per orbit of the
board symmetries that fix the goal, form a set ``D`` that a sceptic can check *locally*,
without re-running any search (``checks.deadset``):

1. the start is in ``D`` (up to symmetry) or excluded;
2. no position of ``D`` is a goal position;
3. every child (one legal jump on) of every position of ``D`` is excluded, or lies in ``D``
   up to symmetry;

where a position is *excluded* when it weighs less than a pagoda's floor (no jump raises a
pagoda's weight and every goal position weighs at least the floor), or holds no more pegs
than the goal's least count without being a goal (every jump removes a peg). By induction on
the jumps played, every position reachable from the start is then in ``D`` up to symmetry
or past an excluded one, so none is a goal. The symmetries need only map lines onto lines
and the goal onto itself (an image of a pagoda is a pagoda with the same floor).

The set read from the table may miss some dead positions: the table is lossy (a full probe
window overwrites a slot), and a stored position is one image of the position searched,
whose children the search cut by pagodas that need not rule out the images of those
children (the certificate therefore carries every pagoda's images too). A *repair* pass
finds every child that is neither excluded nor in ``D``, searches from it with the same table
and pagodas, adds it and what that search stores, and repeats until ``D`` is closed; each
round adds every child it found open, so it ends. The set is kept to ``LIMIT`` positions
(8 bytes each in memory; the certificate's file packs them, ``checks.positions.save_positions``):
past it the answer is "unknown", never a proof.

The method is the dead-position table of the classic brute-force solvers; written as an
inductive invariant it is the certificate style of model checking (a closed set of states
that holds the initial state and no bad one).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..analysis import pagoda
from ..analysis.invariants import class_basis, position_class
from ..deadline import Deadline, Timeout
from ..engine import dfs as D
from ..engine.kernel import Kernel
from ..model.problem import Problem
from ..model.result import Stats
from ..process import cores

LIMIT = 1 << 25  # dead positions at most (256 MB in memory)
FILL = 0.5  # the table grows past this share of its slots (a lost position costs a repair)
CHUNK = 1 << 18  # positions whose children are checked together
SLICE = 1 << 24  # table slots read back together
RANGE = 1 << 25  # positions read out of a large table in one pass over it (256 MB)
ROOM = 32  # the set's buffer has 1/ROOM more room for the repairs' positions
#: children to repair in one round at most (32 MB; diamond e1's open game repairs 1.5 x 10^5):
#: each is a search of its own, and a table that lost far more (diamond d2 -> f8's, full at
#: 2^29 slots) would hold them all in memory before the first one is searched
LOOSE = 1 << 22


class _Full(Exception):
    """The dead table is half full (or past the limit): grow it, or give up."""


class Inconsistent(RuntimeError):
    """A position the search stored as dead reaches the goal: a bug, never a result."""


@dataclass(frozen=True)
class Outcome:
    kind: str  # "plan", "dead" (a closed dead set), "unknown"
    plan: tuple[int, ...] | None = None
    dead: np.ndarray | None = None  # sorted canonical positions (uint64)
    pagodas: tuple[D.Pagoda, ...] = ()
    group: tuple[tuple[int, ...], ...] = ()  # the symmetries of the canonical forms
    why: str = ""
    stats: Stats | None = None
    classes: tuple[int, ...] = ()  # the open game's class weightings (hole by hole: ``Rule``)


def supports(problem: Problem) -> str | None:
    """None, or why a dead-set certificate cannot be made for the problem."""
    if problem.special is not None:
        return "a special peg"
    if problem.board.n > 64:
        return f"{problem.board.n} holes (dead-set certificates take boards of at most 64)"
    return None


@dataclass(frozen=True)
class Rule:
    """What excludes a position: its pegs (no more than the goal's least count, not a goal),
    or pagodas. For a fixed goal, a pagoda's floor: no goal position weighs less. For the
    open game of a one-peg goal (``classes`` given), hole by hole, as the search cuts with
    ``survivors``: every hole the position's class allows (its parities under the class
    weightings, which no jump changes) weighs more, under some pagoda, than the position."""

    problem: Problem
    pagodas: tuple[D.Pagoda, ...]
    classes: tuple[int, ...] = ()

    @cached_property
    def _allowed(self) -> dict[int, list[int]]:
        """The holes each class allows (by the class's parities: bit i under weighting i)."""
        g = self.problem.goal
        out: dict[int, list[int]] = {}
        for h in range(self.problem.board.n):
            if not g.empty >> h & 1:
                out.setdefault(sum(((c >> h) & 1) << i for i, c in enumerate(self.classes)), []).append(h)
        return out

    def cut(self, k: Kernel, pos: np.ndarray) -> np.ndarray:
        """Which of ``pos`` (as played: no symmetry applied) are excluded."""
        g = self.problem.goal
        min_left = max(g.min_pegs, g.full.bit_count(), 1)
        out = ~(k.goals(pos, g) | (k.popcount(pos) > min_left))
        weights = [p.weights for p in self.pagodas]
        if not self.classes:
            return out | k.cut(pos, weights, [[p.floor] for p in self.pagodas])
        return out | k.cut_by_class(pos, weights, self.classes, self._floors)

    @cached_property
    def _floors(self) -> dict[int, list[list[int]]]:
        """Each class's columns: per pagoda, its weights on the holes the class allows (the
        survivors a position of that class may leave)."""
        return {cls: [[p.weights[h] for h in holes] for p in self.pagodas]
                for cls, holes in self._allowed.items()}


def refute(problem: Problem, deadline: Deadline, limit: int = LIMIT) -> Outcome:
    """A plan, a closed dead set, or "unknown" (time, or more than ``limit`` dead positions).
    A goal of one peg anywhere is searched whole, its pagodas weighed hole by hole against
    the survivors its class allows (``Rule``)."""
    survivors = pagoda.survivors_of(problem)
    learned = pagoda.learn_for(problem, deadline, survivors)
    pagodas = tuple(D.Pagoda(w, floor) for w, floor in learned)
    search = D.DepthFirst(problem, table=D.new_table(22), pagodas=pagodas,  # 32 MB, grown as it fills
                          survivors=survivors)
    order = D.far_first(problem)

    def check() -> None:  # every few hundred thousand nodes
        deadline.check()
        if search.stored_now() > min(limit, FILL * len(search.table)):
            raise _Full

    try:
        while True:
            try:
                code = search.attempt(order, 1 << 62, check)
            except _Full:
                if search.stored > limit:
                    return Outcome("unknown", why=f"more than {limit} dead positions", stats=search.stats())
                # a fuller table overwrites more, and every lost position costs a repair:
                # four times the slots, and a new descent (dead positions carry over)
                search.table = D.grown(problem, search.table)
                continue
            if code == D.FOUND:
                return Outcome("plan", plan=search.plan(), stats=search.stats())
            break
    except Timeout:
        return Outcome("unknown", why="time limit", stats=search.stats())
    return close(problem, search.table, pagodas, deadline, limit, search.stats())


def close(problem: Problem, table: np.ndarray, pagodas: tuple[D.Pagoda, ...], deadline: Deadline,
          limit: int = LIMIT, stats: Stats | None = None,
          say: Callable[[str], None] | None = None) -> Outcome:
    """The closed dead set of an exhausted search of ``problem`` whose dead table is
    ``table`` and whose pagodas are ``pagodas`` (this module's own search, or a game of the
    ``search`` planner's turns): the table's positions, and a repair pass until every child
    of every one of them is excluded or in the set; "unknown" past the deadline or ``limit``
    positions. ``say`` hears a line per repair round."""
    survivors = pagoda.survivors_of(problem)
    k = D.DepthFirst(problem, table=table, pagodas=pagodas, survivors=survivors).kernel
    every = _images(pagodas, k.group)
    rule = Rule(problem, every, class_basis(problem.board) if survivors else ())
    order = D.far_first(problem)
    repairs = rounds = 0
    subs: dict[int, D.DepthFirst] = {}  # the repair searches' set-up, one per position class
    t0 = time.perf_counter()
    try:
        dead = _read(k, table)
        fresh = dead
        while True:
            loose = _loose(k, rule, dead, fresh, deadline)
            if loose is None:
                return Outcome("unknown", why=f"more than {LOOSE:,} children of the set to repair (the "
                               "search's table lost too many positions)", stats=stats)
            rounds += 1
            if say is not None:
                say(f"dead set: {len(dead):,} positions ({len(fresh):,} new), {len(loose):,} of their "
                    f"children to repair (round {rounds}, {time.perf_counter() - t0:.0f} s)")
            if not len(loose):
                break
            repairs += len(loose)
            told = time.perf_counter()
            for i, pos in enumerate(k.ints(loose)):
                if say is not None and time.perf_counter() - told > 60:
                    told = time.perf_counter()
                    say(f"  repaired {i:,} of {len(loose):,} ({told - t0:.0f} s)")
                # searched as a game of its own: its survivors are those its own class allows
                # (an image of a reachable position may allow images of the start's survivors)
                c = position_class(problem.board, pos)
                if c not in subs:
                    at = Problem(problem.board, pos, problem.goal)
                    subs[c] = D.DepthFirst(at, table=table, pagodas=pagodas,
                                           survivors=pagoda.survivors_of(at))
                sub = subs[c].from_start(pos)
                if sub.attempt(order, 1 << 62, deadline.check) != D.EXHAUSTED:
                    raise Inconsistent("a child of a position the search proved dead reaches the goal")
            # the loose ones too: a repair's own start may be overwritten in the table
            fresh = k.unique(k.concat([_missing(k, table, dead), loose]))
            # merged in place (the set is 2.2 GB for diamond e1, beside its 4 GB table)
            dead = _add(k, dead, fresh)
            if len(dead) > limit:
                return Outcome("unknown", why=f"more than {limit} dead positions", stats=stats)
    except Timeout:
        return Outcome("unknown", why="time limit", stats=stats)
    said: Stats = {**(stats or {}), "dead_set": len(dead), "repaired": repairs}
    if rule.classes:  # hole by hole the floors are not used: each says what a goal weighs at least
        g = problem.goal
        allowed = [h for h in range(problem.board.n) if not g.empty >> h & 1]
        every = tuple(D.Pagoda(p.weights, min(p.weights[h] for h in allowed)) for p in every)
    return Outcome("dead", dead=dead, pagodas=every, group=tuple(k.group), stats=said, classes=rule.classes)


def _images(pagodas: tuple[D.Pagoda, ...], group) -> tuple[D.Pagoda, ...]:
    """Every pagoda under every symmetry (each a pagoda with the same floor: the symmetries
    map jumps onto jumps and the goal onto itself). The set stores one image of each
    position, so a child the search cut by a pagoda may appear, from the stored image, as the
    image of that child, which only the pagoda's image rules out."""
    out: dict[tuple[int, ...], D.Pagoda] = {}
    for pg in pagodas:
        for p in group:
            w = [0] * len(p)
            for h, x in enumerate(pg.weights):
                w[p[h]] = x
            out.setdefault((*w, pg.floor), D.Pagoda(tuple(w), pg.floor))
    return tuple(out.values())


def _read(k: Kernel, table: np.ndarray) -> np.ndarray:
    """The distinct positions a one-word dead table holds, sorted (the core's sort: numpy's
    ``unique`` took 1.4 s for 2 million positions here, 10x its own sort). A large table is
    read a range of values at a time, each range a pass over the table ``SLICE`` slots at a
    time: beside the table only the set and one range are held (read whole, the positions,
    the sort's buffer and the set were three copies: 6.6 GB beside diamond e1's 4 GB table)."""
    if len(table) <= SLICE:
        return k.unique(table[table != 0], own=True)
    stored = int(np.count_nonzero(table))  # at least the distinct positions
    cuts = _cuts(table, stored)
    out = np.empty(stored + stored // ROOM + 1, dtype=np.uint64)
    m = 0
    for lo, hi in zip(cuts, [*cuts[1:], None], strict=True):
        got = []
        for s in range(0, len(table), SLICE):
            x = table[s:s + SLICE]
            got.append(x[(x >= lo) if hi is None else (x >= lo) & (x < hi)])
        mine = k.unique(k.concat(got), own=True, view=True)
        out[m:m + len(mine)] = mine
        m += len(mine)
    return out[:m]  # a view: the buffer past it is the room the repairs merge into (``_add``)


def _add(k: Kernel, dead: np.ndarray, fresh: np.ndarray) -> np.ndarray:
    """The sorted set ``dead`` with ``fresh`` (sorted, none of them in it) merged in: in
    place in the room its buffer has after it (``_read`` leaves some), else once copied into
    a buffer with room again."""
    n, f = len(dead), len(fresh)
    base = dead.base if isinstance(dead.base, np.ndarray) else None
    if base is None or base.ndim != 1 or dead.ctypes.data != base.ctypes.data or len(base) < n + f:
        base = np.empty(n + f + (n + f) // ROOM + 1, dtype=np.uint64)
        base[:n] = dead
    k.merge(base[:n + f], n, fresh)
    return base[:n + f]


def _cuts(table: np.ndarray, stored: int) -> list[np.uint64]:
    """Bounds of value ranges of about ``RANGE`` positions each of a dead table holding
    ``stored`` (by a sample of its slots; the first bound is 1: an empty slot is 0)."""
    rng = np.random.default_rng(0)
    sample = np.sort(table[rng.integers(0, len(table), size=1 << 20)])
    sample = sample[sample != 0]
    ranges = -(-stored // RANGE)
    if not len(sample) or ranges < 2:
        return [np.uint64(1)]
    inner = {sample[len(sample) * i // ranges] for i in range(1, ranges)} - {np.uint64(0), np.uint64(1)}
    return [np.uint64(1), *sorted(inner)]


def _missing(k: Kernel, table: np.ndarray, dead: np.ndarray) -> np.ndarray:
    """The positions of ``table`` missing from ``dead``, sorted: read ``SLICE`` slots at a
    time, so that the whole set is never held twice (diamond e1's: 2.8 x 10^8 positions)."""
    out = []
    for lo in range(0, len(table), SLICE):
        got = _read(k, table[lo:lo + SLICE])
        out.append(got[~k.member(dead, got)])
    return k.unique(k.concat(out)) if out else k.empty()


def _loose(k: Kernel, rule: Rule, dead: np.ndarray, fresh: np.ndarray,
           deadline: Deadline) -> np.ndarray | None:
    """The canonical children of ``fresh`` that are neither in ``dead`` nor excluded (the
    search's own pruning, ``rule``, on the child as played from the stored position; only
    the children missing from the set are weighed: ``Kernel.fresh``), or None when there
    are more than ``LOOSE``. Chunks run on every core: the core's operations release the GIL."""

    def chunk(lo: int) -> np.ndarray:
        deadline.check()
        kids, forms = k.fresh(fresh[lo:lo + CHUNK], dead)
        if not len(kids):
            return k.empty()
        return k.unique(forms[~rule.cut(k, kids)])

    out: list[np.ndarray] = []
    held = 0
    with ThreadPoolExecutor(cores()) as pool:
        for part in pool.map(chunk, range(0, len(fresh), CHUNK)):
            out.append(part)
            held += len(part)
            if held > LOOSE:
                pool.shutdown(wait=False, cancel_futures=True)
                return None
    return k.unique(k.concat(out)) if out else k.empty()
