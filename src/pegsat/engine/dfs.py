"""Depth-first search with a table of dead positions, in the compiled core.

The method of the classic brute-force solvers (Bell's and Bergholt's programs): play jumps
depth first; remember every position from which the goal was shown unreachable, keyed by its
least image under the board symmetries that fix the goal, so each orbit is refuted once.
A branch also ends when the peg count reaches the goal's minimum, and when a *pagoda*
(integer weights no jump increases, ``analysis.pagoda``) weighs the position below what
every goal position weighs.

``DepthFirst`` is one problem's search state: the dead table (a flat hash table of
positions, possibly shared by several threads: the core releases the GIL) and the pruning
data. Each ``attempt(order, budget)`` runs a fresh descent in the given jump order for at
most ``budget`` nodes; the dead table carries over, so restarts lose little, and an attempt
that ends with the whole tree exhausted is a proof that no plan exists. The table is lossy (a
full probe window overwrites a slot), which only costs a search again: only positions whose
whole subtree was explored are ever stored, so nothing false can be read.

Orders matter more than speed (issue 13: one order solves German e5 -> e5 in a second,
another not in minutes), so ``far_first`` orders jumps by decreasing squared distance of the
jumping peg from the goal, with random tie-breaking for restarts (Gomes, Selman, Kautz,
"Boosting combinatorial search through randomization", AAAI 1998: heavy-tailed run times are
cut by randomised restarts), and ``luby`` gives the restart budgets (Luby, Sinclair,
Zuckerman, 1993).

*Lanes*: ``attempt`` may run several descents at once in one thread, interleaved by the
core's ``run_lanes``. A node's children are looked up in a table of gigabytes, one memory
miss each; the core asks for all of a node's slots first (prefetch), and a lane then yields
to the next instead of waiting, so the misses of one lane overlap the other's work. Every
lane is a whole descent with its own order and sleep sets, so any lane's plan is a plan and
any lane's exhaustion a proof; they share the table as threads do. Diamond e1's open game,
one thread, 60 M nodes: 3.7 M nodes/s with one lane, 5.0 with two, 4.7 with three.

The pure-Python reference is ``engine.reference.depth_first``.
"""

from __future__ import annotations

import copy
import math
import mmap
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..model.board import Perm
from ..model.problem import Problem
from ..model.result import Stats
from ._core import run_lanes
from .bitboard import permute
from .kernel import Kernel, kernel

BUDGET = 0
FOUND = 1
EXHAUSTED = 2
SLICE = 200_000  # nodes between checks of the deadline (about 0.1 s)
HUGE_FROM = 27  # table bits: from 2^27 slots (1 GB) on, ask for huge pages


@dataclass(frozen=True)
class Pagoda:
    """Integer weights per hole and a floor: a position weighing less reaches no goal."""

    weights: tuple[int, ...]
    floor: int


def goal_group(problem: Problem) -> tuple[Perm, ...]:
    """Board symmetries that fix the goal (dead positions are dead in every image)."""
    g = problem.goal
    return tuple(p for p in problem.board.symmetries
                 if permute(p, g.full) == g.full and permute(p, g.empty) == g.empty)


def new_table(bits: int, width: int = 1) -> np.ndarray:
    """A zeroed table of ``2**bits`` slots of ``width`` words, in anonymous memory backed by
    huge pages where the kernel offers them (transparent huge pages, ``madvise`` mode): the
    search reads one random slot per child, and with 4 KB pages a table of gigabytes misses
    the TLB on nearly every read (diamond e1 -> e9, 2^28 slots: 0.67 -> 1.01 M nodes/s).
    Only from ``HUGE_FROM`` slots: the kernel may compact memory to find huge pages at first
    touch (1.4 s for 512 MB once here), which a long search repays and a short one does not.
    Threads of one process share it (``planners.search``'s portfolio); a one-word slot is
    read and written whole, atomically."""
    try:
        buf = mmap.mmap(-1, (8 * width) << bits, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except OSError as exc:  # ENOMEM: the same limit as a refused malloc
        raise MemoryError(f"a dead table of 2^{bits} slots: {exc.strerror}") from None
    if hasattr(mmap, "MADV_HUGEPAGE") and bits >= HUGE_FROM:
        try:
            buf.madvise(mmap.MADV_HUGEPAGE)
        except OSError:  # no transparent huge pages here: plain pages
            pass
    return np.frombuffer(buf, dtype=np.uint64)


def grown(problem: Problem, table: np.ndarray, factor: int = 4) -> np.ndarray:
    """A table ``factor`` times larger holding every dead position of ``table``: a dead
    table that fills up loses positions to overwriting, and an exhaustive search that keeps
    re-proving them may never end (diamond e1 -> e9 needs 2^28 slots: ``tests/test_turns.py``,
    slow)."""
    k = kernel(problem.board, goal_group(problem))
    slots = len(table) // k.width * factor
    bits = slots.bit_length() - 1
    new = new_table(bits, k.width)
    k.core.rehash(table, new)
    return new


def filled(table: np.ndarray) -> float:
    """The share of the table's words that hold (part of) a position."""
    return float(np.count_nonzero(table)) / len(table)


def _b16(x: int) -> bytes:
    return x.to_bytes(16, "little")


class DepthFirst:
    """One problem's compiled depth-first search; ``attempt`` runs one descent."""

    def __init__(self, problem: Problem, *, table: np.ndarray | None = None, table_bits: int = 22,
                 pagodas: Sequence[Pagoda] = (), target: np.ndarray | None = None,
                 target_pegs: int = 0, survivors: Sequence[int] = ()) -> None:
        """``target``: the sorted canonical positions (under ``goal_group``) with
        ``target_pegs`` pegs from which a goal can be reached; any other position with that
        many pegs is dead (``engine.levels`` builds them backwards from the goals).
        ``survivors``: for a one-peg goal, the holes the last peg can be on (at most 64, closed
        under ``goal_group``; the planner leaves out those the position classes rule out): a
        position is then cut when, for every survivor, some pagoda weighs it below its weight
        on that survivor (the pagodas' floors are not used)."""
        if problem.special is not None:
            raise ValueError("the compiled search does not handle a special peg")
        self.problem = p = problem
        b, g = p.board, p.goal
        group = goal_group(p)
        self.kernel: Kernel = kernel(b, group)
        self.canon = len(self.kernel.group) > 1
        if table is None:
            table = new_table(table_bits, self.kernel.width)
        self.table = table
        self.min_pegs = max(g.min_pegs, 1)
        self.max_pegs = g.max_pegs if g.max_pegs is not None else b.n
        self.min_left = max(g.min_pegs, g.full.bit_count(), 1)
        self.pagodas = tuple(pagodas)
        P = len(self.pagodas)
        delta = np.zeros((len(b.jumps), P), dtype=np.int64)
        for k, (a, m, c) in enumerate(b.jumps):
            for i, pg in enumerate(self.pagodas):
                delta[k, i] = pg.weights[c] - pg.weights[a] - pg.weights[m]
        self._delta = delta.tobytes()
        if survivors and not (g.full == 0 and g.max_pegs == 1 and len(survivors) <= 64):
            raise ValueError("survivors are for a one-peg goal, at most 64 of them")
        self._floors = np.array([[pg.weights[h] for h in survivors] if survivors else [pg.floor]
                                 for pg in self.pagodas], dtype=np.int64).tobytes()
        self._weights = np.array([pg.weights for pg in self.pagodas], dtype=np.int64).reshape(P, b.n)
        self._values = self._values_at(p.start)
        self.target, self.target_pegs = target, target_pegs
        self.nodes = self.stored = self.hits = self.cuts = 0
        self.attempts = 0
        self._last: Any = None  # the core search whose plan ``plan`` reads
        self._live: tuple[Any, ...] | None = None  # the descents under way

    def _values_at(self, start: int) -> bytes:
        """Each pagoda's weight of ``start``, as the core takes them."""
        held = [h for h in range(self.problem.board.n) if start >> h & 1]
        return np.ascontiguousarray(self._weights[:, held].sum(axis=1), dtype=np.int64).tobytes()

    def from_start(self, start: int) -> DepthFirst:
        """This search from another start (the same goal, table, pagodas and survivors): the
        per-jump tables shared, not built again in Python. A repair pass searches thousands
        of positions of one class this way (``proofs.deadset.close``)."""
        other = copy.copy(self)
        other.problem = replace(self.problem, start=start)
        other._values = self._values_at(start)
        other.nodes = other.stored = other.hits = other.cuts = other.attempts = 0
        other._last = other._live = None
        return other

    def attempt(self, order: Sequence[int], budget: int, check: Callable[[], None] | None = None,
                lanes: Sequence[Sequence[int]] = ()) -> int:
        """One descent from the start: BUDGET (spent), FOUND (``plan()``), or EXHAUSTED.
        ``check()`` is called every ``SLICE`` nodes (a deadline's check raises Timeout).
        ``lanes``: more orders, each a descent of its own run interleaved with this one in
        this thread (the core's ``run_lanes``): a lane yields once it has asked for a node's
        children's table slots, so one lane's memory misses overlap another's work. Any lane's
        plan is the plan; any lane that exhausts its tree is the proof."""
        p, b = self.problem, self.problem.board
        J = len(b.jumps)
        for o in (order, *lanes):
            if sorted(o) != list(range(J)):
                raise ValueError("a jump order names every jump once")
        searches = tuple(self.kernel.core_search(
            _b16(p.start), _b16(p.goal.full), _b16(p.goal.empty), self.min_pegs, self.max_pegs,
            self.min_left, np.asarray(o, dtype=np.int32).tobytes(), self.table, self.canon,
            self._delta, self._floors, self._values, self.target, self.target_pegs)
            for o in (order, *lanes))
        self._last = searches[0]
        self._live = searches
        self.attempts += 1
        try:
            left, code = budget, BUDGET
            while left > 0:
                if check is not None:
                    check()
                if len(searches) == 1:
                    code = searches[0].run(min(SLICE, left))
                else:
                    who, code = run_lanes(searches, min(SLICE, left))
                    if code != BUDGET:
                        self._last = searches[who]
                if code != BUDGET:
                    break
                left -= SLICE
            return code
        finally:
            self._live = None
            for s in searches:
                st = s.stats()
                self.nodes += st["nodes"]
                self.stored += st["stored"]
                self.hits += st["table_hits"]
                self.cuts += st["pagoda_cuts"]

    def plan(self) -> tuple[int, ...]:
        """The jump ids of the plan the last descent found."""
        if self._last is None:
            raise ValueError("no descent has run")
        return tuple(self._last.path())

    def stored_now(self) -> int:
        """Dead positions stored so far, the running descent's included (for ``check``)."""
        return self.stored + sum(s.stats()["stored"] for s in self._live or ())

    def stats(self) -> Stats:
        """Stats of every descent so far."""
        return {"nodes": self.nodes, "dead_positions": self.stored, "table_hits": self.hits,
                "pagoda_cuts": self.cuts, "descents": self.attempts}


def goal_distances(problem: Problem) -> list[float] | None:
    """Per hole, its squared Euclidean distance from the goal's centroid (the board's when the
    goal fixes no peg); None for a board without coordinates."""
    board, goal = problem.board, problem.goal
    if board.coords is None:
        return None
    tri = board.lattice == "triangular"  # columns are doubled there; rows are sqrt(3)/2 apart
    sx, sy = (0.5, math.sqrt(3) / 2) if tri else (1.0, 1.0)
    target = [board.coords[h] for h in range(board.n) if goal.full >> h & 1] or list(board.coords)
    tr = sum(r for r, _ in target) / len(target)
    tc = sum(c for _, c in target) / len(target)
    return [((r - tr) * sy) ** 2 + ((c - tc) * sx) ** 2 for r, c in board.coords]


def far_first(problem: Problem, rng: random.Random | None = None, noise: float = 0.5) -> list[int]:
    """Jump ids, the jumping peg farthest from the goal's centroid first (squared Euclidean
    distance); ties by id, or, with ``rng``, broken by uniform noise in [0, ``noise``)."""
    board = problem.board
    J = len(board.jumps)
    dist = goal_distances(problem)
    if dist is None:
        order = list(range(J))
        if rng is not None:
            rng.shuffle(order)
        return order

    def far(k: int) -> float:
        return dist[board.jumps[k][0]]

    if rng is None:
        return sorted(range(J), key=lambda k: (-far(k), k))
    return sorted(range(J), key=lambda k: -far(k) + rng.random() * noise)


def luby(i: int) -> int:
    """The i-th term (from 1) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 ...: restart budgets
    within a log factor of the best fixed cutoff for any run-time distribution."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while i != (1 << k) - 1:
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)
