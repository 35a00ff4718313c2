"""``moves``: the fewest moves, and the proof that no plan has fewer.

A move is a maximal chain of jumps by one peg. The method is breadth-first search *by moves*
on whole sets of positions (``pegsat.vector``), from both ends at once:

* forward levels ``F_i``: positions whose fewest moves from the start is ``i``;
* backward levels ``B_j``: positions whose fewest moves to a goal position is ``j`` (a move
  undone is a peg walked back along its chain, re-filling the holes it jumped);
* positions are reduced to one per orbit of the board symmetries fixing start and goal.

If an optimal plan has ``L <= a + b`` moves, its position after ``min(a, L)`` moves lies in
some ``F_i ∩ B_{L-i}`` with ``i <= a`` and ``L - i <= b``. So once all levels up to ``a``
and ``b`` are built without any meeting, every plan has more than ``a + b`` moves; the first
meeting ``F_i ∩ B_j`` found this way is optimal. The side with the smaller last level is
grown next. Exhausting a side without a meeting proves that no plan exists.

An upper bound ``U`` (a plan found first by the ``auto`` planner, whose moves are counted)
stops the search as soon as ``a + b >= U - 1`` and prunes: a position ``i`` moves from the
start that still needs ``h`` moves by its full Merson regions (``pegsat.merson``) cannot be
on a plan of fewer than ``U`` moves if ``i + h >= U``; backwards, regions full at the start
but broken in the position count the same way.

The anchor is G. I. Bell's breadth-first search by moves ("Solving triangular peg
solitaire", J. Integer Sequences 11, 2008; the English central game: 18 moves, first proven
optimal by J. D. Beasley). Goals with too many positions to list (``GOAL_LIMIT``) are
searched forward only, testing each level against the goal.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from .. import merson
from .. import vector as V
from ..bitboard import count_moves, engine, permute, replay_plan, stabilizer, symmetry
from ..errors import PegsatError, PlanError
from ..problem import Problem, holes_of
from .base import Config, Deadline, Proof, Result, Status

NAME = "moves"
MIN_MOVES = True  # results carry a proven lower bound on the moves
GOAL_LIMIT = 1_000_000
#: share of the time limit (and at most this many seconds) spent finding a first plan
UPPER_SHARE, UPPER_MAX_S = 0.1, 10.0
#: the search runs alone this long (and at most this share of the limit) before a first plan
#: is fetched: the IPC problems finish in a few hundredths of a second without one
QUICK_S, QUICK_SHARE = 1.0, 0.05


def covers_open_goal(problem: Problem) -> bool:
    return True


class _Timeout(Exception):
    pass


class _PhaseOver(Exception):
    """The search-alone budget is spent: time to fetch an upper bound."""


def goal_positions(problem: Problem, limit: int = GOAL_LIMIT) -> list[int] | None:
    """Every position satisfying the goal, or None when there are more than ``limit``."""
    board, g = problem.board, problem.goal
    free = holes_of(board.full & ~(g.full | g.empty))
    base = g.full.bit_count()
    lo = max(g.min_pegs, base) - base
    hi = min(problem.pegs, g.max_pegs if g.max_pegs is not None else board.n) - base
    from math import comb

    if sum(comb(len(free), k) for k in range(lo, hi + 1)) > limit:
        return None
    out = []
    for k in range(lo, hi + 1):
        for extra in combinations(free, k):
            pos = g.full
            for h in extra:
                pos |= 1 << h
            out.append(pos)
    return out


@dataclass
class Search:
    """Bidirectional breadth-first search by moves; levels are sorted canonical arrays."""

    problem: Problem
    deadline: Deadline
    upper: int | None = None  # moves of a known plan: look for fewer only
    #: several starts at once (the fewest moves from any of them); they and the goal must be
    #: invariant under ``group`` (default: the problem's start and its stabilizer)
    starts: tuple[int, ...] | None = None
    group: tuple | None = None
    bidirectional: bool = True  # False: forward only, testing each level against the goal

    def __post_init__(self) -> None:
        p = self.problem
        self.board = p.board
        self.starts = self.starts or (p.start,)
        self.group = self.group or stabilizer(p)
        self.canon = V.canon(self.board, self.group)
        self.sym = symmetry(self.board, self.group)
        self.jumps = V.jumps(self.board)
        goals = goal_positions(p) if self.bidirectional else None
        self.fwd = [self._level(list(self.starts))]
        self.bwd = None if goals is None else [self._level(goals)]
        self.must, self.optional, self.cap = merson.regions_to_break(self.board, p.goal)
        self.start_full = [r for r in merson.region_family(self.board) if p.start & r == r]
        self.sizes = {"forward": [len(self.fwd[0])], "backward": [len(self.bwd[0])] if self.bwd else []}
        self.pruned = 0
        self.phase_end: float | None = None  # monotonic time; past it _check raises _PhaseOver

    def _level(self, positions) -> np.ndarray:
        return V.unique(self.canon(np.array(positions, dtype=V.U64)))

    def _check(self) -> None:
        if self.deadline.expired():
            raise _Timeout
        if self.phase_end is not None and time.monotonic() > self.phase_end:
            raise _PhaseOver

    # --- pruning bounds, vectorised ---------------------------------------------------

    def _h_forward(self, pos: np.ndarray) -> np.ndarray:
        """Moves still needed to reach the goal (admissible): full regions to break."""
        h = np.zeros(len(pos), dtype=np.int64)
        for r in self.must:
            h += (pos & V.U64(r)) == V.U64(r)
        if self.optional:
            opt = np.zeros(len(pos), dtype=np.int64)
            for r in self.optional:
                opt += (pos & V.U64(r)) == V.U64(r)
            h += np.maximum(0, opt - self.cap)
        return np.maximum(h, 1)  # the caller zeroes it on goal positions

    def _h_backward(self, pos: np.ndarray) -> np.ndarray:
        """Moves needed from the start to reach ``pos``: regions full at the start, broken."""
        h = np.zeros(len(pos), dtype=np.int64)
        for r in self.start_full:
            h += (pos & V.U64(r)) != V.U64(r)
        return h

    def _goal_mask(self, pos: np.ndarray) -> np.ndarray:
        g = self.problem.goal
        ok = (pos & V.U64(g.full)) == V.U64(g.full)
        ok &= (pos & V.U64(g.empty)) == 0
        k = V.popcount(pos)
        ok &= k >= g.min_pegs
        if g.max_pegs is not None:
            ok &= k <= g.max_pegs
        return ok

    # --- the search ---------------------------------------------------------------------

    def _grow(self, side: str) -> np.ndarray:
        levels = self.fwd if side == "forward" else self.bwd
        depth = len(levels)
        raw = self.jumps.successors(levels[-1], reverse=side == "backward", check=self._check)
        raw = V.unique(raw)
        self._check()
        new = V.unique(self.canon(raw))
        del raw
        self._check()
        for old in levels:
            new = new[~V.member(old, new)]
        if self.upper is not None:
            if side == "forward":
                h = self._h_forward(new)
                h[self._goal_mask(new)] = 0
            else:
                h = self._h_backward(new)
            keep = depth + h <= self.upper - 1
            self.pruned += int(len(new) - keep.sum())
            new = new[keep]
        levels.append(new)
        self.sizes[side].append(len(new))
        return new

    def run(self) -> tuple[int | None, int, tuple[int, int, int] | None]:
        """(optimum or None, proven lower bound, meeting (position, i, j) or None).

        Returns the optimum None with the lower bound when the levels ran out (no plan below
        ``upper``, or none at all) and raises _Timeout when the deadline passes.
        """
        hit = self._meet_initial()
        if hit:
            return hit[1] + hit[2], hit[1] + hit[2], hit
        while True:
            a, b = len(self.fwd) - 1, (len(self.bwd) - 1 if self.bwd else 0)
            if self.upper is not None and a + b + 1 >= self.upper:
                return None, a + b + 1, None
            side = "forward"
            if self.bwd is not None and len(self.bwd[-1]) < len(self.fwd[-1]):
                side = "backward"
            new = self._grow(side)
            hit = self._meet(side, new)
            if hit:
                return hit[1] + hit[2], hit[1] + hit[2], hit
            if not len(new):
                # This side is exhausted: nothing lies beyond, so no plan (below ``upper``).
                return None, a + b + 1 if self.upper is not None else -1, None

    def _meet_initial(self):
        start = self.fwd[0]
        if self.bwd is None:
            m = self._goal_mask(start)
            return (int(start[m][0]), 0, 0) if m.any() else None
        m = V.member(self.bwd[0], start)
        return (int(start[m][0]), 0, 0) if m.any() else None

    def _meet(self, side: str, new: np.ndarray):
        i = len(self.fwd) - 1 if side == "forward" else None
        if self.bwd is None:
            m = self._goal_mask(new)
            return (int(new[m][0]), i, 0) if m.any() else None
        others = self.bwd if side == "forward" else self.fwd
        for j, other in enumerate(others):
            m = V.member(other, new)
            if m.any():
                pos = int(new[m][0])
                if side == "forward":
                    return pos, len(self.fwd) - 1, j
                return pos, j, len(self.bwd) - 1
        return None

    # --- the plan -------------------------------------------------------------------------

    def _in(self, levels, d: int, pos: int) -> bool:
        arr = levels[d]
        key = self.sym.canonical(pos)
        i = int(np.searchsorted(arr, V.U64(key)))
        return i < len(arr) and int(arr[i]) == key

    def plan(self, meeting: tuple[int, int, int]) -> tuple[int, ...]:
        return self.walk(meeting)[1]

    def walk(self, meeting: tuple[int, int, int]) -> tuple[int, tuple[int, ...]]:
        """(start, plan): from the meeting position back to a start and on to a goal."""
        pos, i, j = meeting
        board = self.board
        head: list[int] = []
        cur = pos
        for d in range(i, 0, -1):
            cur, chain = next((q, c) for q, c in _moves(board, cur, reverse=True)
                              if self._in(self.fwd, d - 1, q))
            head[:0] = chain
        tail: list[int] = []
        end = pos
        for d in range(j, 0, -1):
            end, chain = next((z, c) for z, c in _moves(board, end) if self._in(self.bwd, d - 1, z))
            tail.extend(chain)
        # ``cur`` is an image of a start under the group: map the plan back.
        starts = set(self.starts)
        g = next(p for p in self.group if permute(p, cur) in starts)
        jumps, index = board.jumps, board.jump_index
        plan = []
        for k in head + tail:
            a, b, c = jumps[k]
            plan.append(index[(g[a], g[b], g[c])])
        return permute(g, cur), tuple(plan)


def _moves(board, pos: int, reverse: bool = False):
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
        cands = range(len(jumps)) if peg is None else (by_dst if reverse else by_src).get(peg, ())
        for k in cands:
            a, b, c = jumps[k]
            if reverse:
                ok = cur >> c & 1 and not cur >> a & 1 and not cur >> b & 1
            else:
                ok = cur & eng.need[k] == eng.need[k] and not cur & eng.land[k]
            if ok:
                nxt = cur ^ eng.flip[k]
                seq = [k] + chain if reverse else chain + [k]
                yield nxt, seq
                stack.append((nxt, a if reverse else c, seq))


def survivor_distances(board, vacancy: int, deadline: Deadline | None = None) -> dict[int, int]:
    """Fewest moves from the board minus ``vacancy`` to one peg on each hole that allows it.

    One forward search to exhaustion (every reachable position): holes missing from the
    answer are proven impossible survivors.
    """
    from ..problem import Goal, single_vacancy

    problem = single_vacancy(board, vacancy, Goal.one_peg())
    search = Search(problem, deadline or Deadline(None))
    search.bwd = None
    depth: dict[int, int] = {}
    singles = {h: search.sym.canonical(1 << h) for h in range(board.n)}
    while len(search.fwd[-1]):
        level = search.fwd[-1]
        ones = level[V.popcount(level) == 1]
        for key in map(int, ones):
            for h, k in singles.items():
                if k == key:
                    depth.setdefault(h, len(search.fwd) - 1)
        search._grow("forward")
    return depth


def fewest_over_vacancies(board, deadline: Deadline | None = None):
    """The fewest moves of any single-vacancy -> single-survivor game on ``board``.

    One bidirectional search from all single vacancies to all single pegs (both sets are
    invariant under every board symmetry). Returns (moves, vacancy, plan) or None if no such
    game is solvable.
    """
    from ..problem import Goal, single_vacancy

    starts = tuple(board.full & ~(1 << h) for h in range(board.n))
    problem = single_vacancy(board, 0, Goal.one_peg())
    search = Search(problem, deadline or Deadline(None), starts=starts, group=board.symmetries)
    best, _, meeting = search.run()
    if best is None:
        return None
    start, plan = search.walk(meeting)
    vacancy = (board.full & ~start).bit_length() - 1
    return best, vacancy, plan


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    """Search alone first (small problems end here); past a short budget, fetch a plan from
    ``auto`` as the upper bound and go on with pruning."""
    t0 = time.perf_counter()
    if problem.special is not None:
        raise PegsatError("minimum moves with a special peg is not supported; solve without --min-moves")
    V.check_size(problem.board)
    lower0 = merson.moves_lower_bound(problem.board, problem.start, problem.goal)
    search = Search(problem, deadline)
    rem = deadline.remaining()
    search.phase_end = time.monotonic() + (QUICK_S if rem is None else min(QUICK_S, QUICK_SHARE * rem))
    first = upper = None
    upper_s = 0.0
    try:
        try:
            best, lower, meeting = search.run()
        except _PhaseOver:
            search.phase_end = None
            t = time.perf_counter()
            first, upper = _first_plan(problem, deadline, config)
            upper_s = time.perf_counter() - t
            if first is not None and first.status is Status.UNSOLVABLE:
                return replace(first, planner=f"{NAME}:{first.planner}")
            search.upper = upper
            best, lower, meeting = search.run()
    except _Timeout:
        a, b = len(search.fwd) - 1, (len(search.bwd) - 1 if search.bwd else 0)
        lower = max(lower0, a + b + 1)
        stats = _stats(search, t0, upper_s, lower0)
        if first is not None and first.plan is not None:
            return Result(Status.SOLVED, problem, NAME, plan=first.plan, lower_bound=lower, stats=stats,
                          detail=f"time limit: best found {upper} moves, proven >= {lower}")
        return Result(Status.UNKNOWN, problem, NAME, lower_bound=lower, stats=stats,
                      detail=f"time limit: no plan found; any plan needs >= {lower} moves")
    stats = _stats(search, t0, upper_s, lower0)
    how = _how(search)
    if best is not None:
        plan = search.plan(meeting)
        moves = count_moves(problem.board, plan)
        return Result(Status.SOLVED, problem, NAME, plan=plan, lower_bound=best, stats=stats,
                      detail=f"optimal: {moves} moves; {how} found none with {best - 1}")
    if upper is not None:
        return Result(Status.SOLVED, problem, NAME, plan=first.plan, lower_bound=upper, stats=stats,
                      detail=f"optimal: {upper} moves (plan from {first.planner}); "
                      f"{how} found none with {upper - 1}")
    return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.EXHAUSTED, stats=stats,
                  detail=f"{how} exhausted every reachable position without reaching the goal")


def _how(search: Search) -> str:
    a = len(search.fwd) - 1
    if search.bwd is None:
        return f"breadth-first search by moves ({a} levels)"
    return f"breadth-first search by moves ({a} forward + {len(search.bwd) - 1} backward levels)"


def _stats(search: Search, t0: float, upper_s: float, lower0: int) -> dict:
    return {
        "merson_bound": lower0,
        "upper_s": upper_s,
        "search_s": time.perf_counter() - t0 - upper_s,
        "forward_levels": search.sizes["forward"],
        "backward_levels": search.sizes["backward"],
        "positions": sum(search.sizes["forward"]) + sum(search.sizes["backward"]),
        "pruned": search.pruned,
        "symmetries": len(search.group),
    }


def _first_plan(problem: Problem, deadline: Deadline, config: Config):
    """A first plan from ``auto`` under a short budget: the upper bound (or a proof)."""
    from . import auto

    rem = deadline.remaining()
    budget = UPPER_MAX_S if rem is None else min(UPPER_MAX_S, UPPER_SHARE * rem)
    r = auto.solve(problem, Deadline(budget), replace(config, time_limit=budget))
    if r.status is Status.SOLVED and r.plan is not None:
        try:
            return r, replay_plan(problem, r.plan).moves
        except PlanError:
            return None, None  # the final verification would reject it; search without it
    if r.status is Status.UNSOLVABLE:
        return r, None
    return None, None
