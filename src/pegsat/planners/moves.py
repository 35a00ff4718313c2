"""``moves``: the fewest moves, and the proof that no plan has fewer.

A move is a maximal chain of jumps by one peg. The method is breadth-first search *by moves*
on whole sets of positions (``engine.levels``), from both ends at once:

* forward levels ``F_i``: positions whose fewest moves from the start is ``i``;
* backward levels ``B_j``: positions whose fewest moves to a goal position is ``j`` (a move
  undone is a peg walked back along its chain, re-filling the holes it jumped);
* positions are reduced to one per orbit of the board symmetries fixing start and goal.

If an optimal plan has ``L <= a + b`` moves, its position after ``min(a, L)`` moves lies in
some ``F_i ∩ B_{L-i}`` with ``i <= a`` and ``L - i <= b``. So once all levels up to ``a``
and ``b`` are built without any meeting, every plan has more than ``a + b`` moves; the first
meeting ``F_i ∩ B_j`` found this way is optimal. The side with the smaller last level is
grown next. Exhausting a side without a meeting proves that no plan exists. Since no plan is
shorter than the levels built, a new level can only meet the other side's *last* level; it is
tested slice by slice as it is expanded, and the search stops at the first slice that meets.

An upper bound ``U`` (the moves of a first plan: from a beam search by moves,
``Search.beam``, else from the ``auto`` planner) stops the search as soon as
``a + b >= U - 1`` and prunes: a position ``i`` moves from the
start that still needs ``h`` moves by its full Merson regions (``analysis.merson``) cannot be
on a plan of fewer than ``U`` moves if ``i + h >= U``; backwards, regions full at the start
but broken in the position count the same way. The last level such a search needs (``a + b =
U - 2`` before it) is only probed for a meeting, never sorted or stored.

A search that lasts past its first second also cuts with pagodas (``Search.learn``,
``analysis.pagoda.for_levels``): a forward position weighing less than a pagoda's floor can no
longer reach the goal, a backward one weighing more than the start cannot be reached from it.
Neither lies on any plan. A position of a plan stays at its depth (the positions on its
shortest way from the start reach the goal too, so none of them is cut); a position kept that
can reach no goal may come a level late (its shortest way passed a cut position: a pagoda
weighs a level's least image, not its whole orbit), and so meets nothing. The first meeting is
still optimal.

The anchor is G. I. Bell's breadth-first search by moves ("Solving triangular peg
solitaire", J. Integer Sequences 11, 2008; the English central game: 18 moves, first proven
optimal by J. D. Beasley). Goals with too many positions to list (``GOAL_LIMIT``) are
searched forward only, testing each level against the goal.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from .. import progress
from ..analysis import merson, pagoda
from ..analysis.bounds import Bounds
from ..deadline import Deadline, Timeout
from ..engine.bitboard import count_moves, replay_plan, stabilizer
from ..engine.kernel import MAX_HOLES
from ..engine.levels import Levels
from ..errors import PlanError
from ..files import plural
from ..limits import MemoryBudget
from ..model.board import Board, Perm
from ..model.problem import Goal, Problem, goal_positions, single_vacancy
from ..model.result import Proof, Result, Stats, Status
from . import ondisk
from .config import GIVEN, Config

NAME = "moves"
OPTIMAL = True  # answers with the fewest moves, proven
#: share of the time limit (and at most this many seconds) spent finding a first plan
UPPER_SHARE, UPPER_MAX_S = 0.1, 10.0
#: a search on disk (hours, where every move the bound saves prunes whole levels): the plan
#: from ``auto`` when no beam meets may take this long (German e2 -> e2: ~15 s, 27 moves
#: compacted, where the beams meet nowhere)
UPPER_LONG_S = 120.0
#: the search runs alone this long (and at most this share of the limit), and until a level
#: holds more than QUICK_LEVEL positions, before a first plan is fetched: the IPC problems
#: finish in a few hundredths of a second without one, while on the English board the plan
#: (0.1 s) prunes every level past the eighth
QUICK_S, QUICK_SHARE, QUICK_LEVEL = 1.0, 0.05, 20_000
#: positions a beam keeps per level when it looks for that first plan (see ``Search.beam``)
BEAM = 20_000
#: a search on disk's beams (``first_for_disk``): wider beams find fewer moves (German e5 ->
#: e5: 23 moves at 100,000 positions, 22, the optimum, at 300,000; e3, d1, e2: the optimum at
#: 1,000,000, about 20 s), and a bound one move tighter spares the search its largest level
DISK_WIDTHS = (BEAM, 5 * BEAM, 15 * BEAM, 50 * BEAM)
COMPACT_WIDTH, COMPACT_LONG = 100, 2000  # ``compact``'s beam: a quick search's first plan, a long one's


class Paused(Timeout):
    """A level outgrew ``Search.pause_above`` before an upper bound was known."""


def supports(problem: Problem) -> str | None:
    """None, or why the search by moves cannot take the problem."""
    if problem.special is not None:
        return "minimum moves with a special peg is not supported; solve without --min-moves"
    if problem.board.n > MAX_HOLES:
        return f"board {problem.board.name} has {problem.board.n} holes; at most {MAX_HOLES}"
    return None


def covers_open_goal(problem: Problem) -> bool:
    """A one-peg-anywhere goal is searched whole (its goal positions listed)."""
    return True


class Search:
    """Bidirectional breadth-first search by moves, cut by pagodas and, under a bound, by
    Merson's regions."""

    def __init__(self, problem: Problem, deadline: Deadline, *, upper: int | None = None,
                 starts: Sequence[int] | None = None, group: Sequence[Perm] | None = None,
                 bidirectional: bool = True, pagodas: Sequence[tuple[tuple[int, ...], int]] = ()) -> None:
        """``starts``: several starts at once (the fewest moves from any of them); they and
        the goal must be invariant under ``group`` (default: the problem's stabilizer).
        ``pagodas``: cut the levels with these (``Bounds``; see ``learn``)."""
        p = self.problem = problem
        self.board = p.board
        self.upper = upper  # moves of a known plan: look for fewer only
        goals = goal_positions(p) if bidirectional else None
        self.levels = Levels(p.board, group or stabilizer(p), starts or (p.start,), goals, by="moves")
        self.deadline = deadline  # the budget of the search's next steps (``solve`` extends it)
        self.single = starts is None or len(starts) == 1  # pagodas cut backward against one start
        self.bounds = Bounds(p, pagodas if self.single else ())
        self.pruned = 0
        self.narrowed = False  # whether the last ``beam`` dropped a position (else it was exact)
        self.probed: str | None = None  # the side whose last level was probed, not built
        self.pause_above: int | None = None  # see ``Paused``

    @property
    def fwd(self) -> list[np.ndarray]:
        return self.levels.fwd

    @property
    def bwd(self) -> list[np.ndarray] | None:
        return self.levels.bwd

    def _h_forward(self, pos: np.ndarray) -> np.ndarray:
        return self.bounds.forward(pos)

    def goal_mask(self, pos: np.ndarray) -> np.ndarray:
        """Which positions satisfy the goal."""
        return self.bounds.goal_mask(pos)

    @property
    def pagodas(self) -> list[tuple[tuple[int, ...], int]]:
        """The pagodas the levels are cut with (``Bounds``)."""
        return self.bounds.pagodas

    def learn(self, deadline: Deadline) -> None:
        """Cut the levels still to grow with the pagodas of ``analysis.pagoda.for_levels``
        (a search of more than seconds: learning takes up to a few). The levels grown
        before stay as they are: a position of a plan is at its depth either way (see the
        module's docstring)."""
        if self.single and not self.pagodas:
            self.bounds = Bounds(self.problem, pagoda.for_levels(self.problem, deadline))

    def run_learning(self, deadline: Deadline) -> tuple[int | None, int, tuple[int, int, int] | None]:
        """``run``, alone for ``QUICK_S`` (small problems end there); a search that lasts
        longer learns its pagodas (``learn``: a second or two of LPs, which pay on a long
        search only) and goes on until ``deadline``."""
        self.deadline = deadline.share(QUICK_SHARE, QUICK_S).within(QUICK_S)
        try:
            return self.run()
        except Timeout as exc:
            if deadline.expired() or isinstance(exc, MemoryBudget):
                raise
        self.deadline = deadline
        self.learn(deadline)
        return self.run()

    def _prune(self, side: str):
        """The pagodas' and the bound's pruning of the side's next level, a slice at a time
        (on the slices' threads, before the slices are merged: the whole level's bounds,
        eight bytes and more a position, never exist at once)."""
        if self.upper is None and not self.pagodas:
            return None
        depth, upper = len(self.levels.side(side)), self.upper

        def prune(part: np.ndarray) -> np.ndarray:
            kept = self.bounds.keep(side, part, depth, upper)
            self.pruned += len(part) - len(kept)  # slices overlap: a position may count twice
            return kept
        return prune

    def grow(self, side: str) -> np.ndarray:
        """Build a side's next level, pruned under the bound."""
        return self.levels.grow_until(side, self.deadline, prune=self._prune(side))[0]

    # --- the search ---------------------------------------------------------------------

    def run(self) -> tuple[int | None, int, tuple[int, int, int] | None]:
        """(optimum or None, proven lower bound, meeting (position, i, j) or None).

        Returns the optimum None with the lower bound when the levels ran out (no plan below
        ``upper``, or none at all); raises Timeout when the deadline passes."""
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
            if self.upper is not None and a + b + 2 == self.upper:
                # The last level: only its meeting with the other side's last level matters
                # (a plan of upper - 1 moves), so it is probed, never sorted and stored.
                hit = self._probe(side)
                return (self.upper - 1, self.upper - 1, hit) if hit else (None, self.upper, None)
            new, met = self.levels.grow_until(side, self.deadline, meet=self._meets(side),
                                                     prune=self._prune(side))
            if met:
                return a + b + 1, a + b + 1, self._beyond(side, new)
            bound = "" if self.upper is None else f" (a plan of {self.upper} moves known)"
            d = len(self.levels.side(side)) - 1
            progress.say(f"{side} level {d} by moves: {plural(len(new), 'position')} up to symmetry; "
                         f"proven >= {a + b + 2} moves{bound}")
            if not len(new):
                # This side is exhausted: nothing lies beyond, so no plan (below ``upper``).
                return None, self.upper if self.upper is not None else -1, None
            if self.upper is None and self.pause_above is not None and len(new) > self.pause_above:
                raise Paused(f"a level of {len(new)} positions")

    def _first(self, pos: np.ndarray) -> int:
        return self.levels.kernel.ints(pos[:1])[0]

    def _meet_initial(self):
        start = self.fwd[0]
        m = self.goal_mask(start) if self.bwd is None else self.levels.kernel.member(self.bwd[0], start)
        return (self._first(start[m]), 0, 0) if m.any() else None

    def _meets(self, side: str):
        """The mask of a new level's positions that meet the other side: its last level (no
        earlier one can: every plan is longer than the levels built so far), or the goal."""
        if self.bwd is None:
            return self.goal_mask
        other = self.bwd[-1] if side == "forward" else self.fwd[-1]
        return lambda pos: self.levels.kernel.member(other, pos)

    def _probe(self, side: str):
        """A meeting one step beyond the side's last level (see ``_meets``), the level itself
        not built."""
        self.probed = side
        hits = self.levels.probe(side, self._meets(side), self.deadline)
        return self._beyond(side, hits) if len(hits) else None

    def _beyond(self, side: str, hits: np.ndarray) -> tuple[int, int, int]:
        """The meeting (position, i, j) at the first of ``hits``, one step beyond the side's
        last level."""
        a, b = len(self.fwd) - 1, (len(self.bwd) - 1 if self.bwd else 0)
        return (self._first(hits), a + 1, b) if side == "forward" else (self._first(hits), a, b + 1)

    def walk(self, meeting: tuple[int, int, int], fwd: Sequence[np.ndarray] | None = None
             ) -> tuple[int, tuple[int, ...]]:
        """(start, plan) through the meeting position (``fwd``: a beam's levels)."""
        return self.levels.walk(*meeting, fwd=fwd)

    def beam(self, width: int = BEAM, fewest_pegs: bool = True
             ) -> tuple[tuple[int, int, int], list[np.ndarray]] | None:
        """A first plan with few moves, fast, but not proven the fewest: from the forward
        side's last level on, each level is expanded only from its ``width`` positions with
        the fewest full Merson regions left to break (then the fewest pegs, or the most),
        its children cut by the search's pagodas (``learn``), until a level meets a backward
        level. Returns (meeting, the beam's forward levels)
        for ``walk``, or None (the beam died out). English central game: 18 moves, the
        optimum, in about 0.15 s, where the ``auto`` plan has 29 and prunes nothing. Fewest
        pegs first is the better guide there (d4 -> d4: 18 against 19 moves at 10,000
        positions), but can strand its pegs (d1 -> d1: no plan up to 20,000; most pegs
        first: 20 moves at 5,000)."""
        if self.bwd is None:
            return None
        k = self.levels.kernel

        def narrow(pos: np.ndarray) -> np.ndarray:
            if len(pos) <= width:
                return pos
            self.narrowed = True
            pegs = k.popcount(pos).astype(np.int64)
            score = self._h_forward(pos) * (self.board.n + 1) + (pegs if fewest_pegs else -pegs)
            return np.sort(pos[np.argpartition(score, width)[:width]])

        levels = list(self.fwd)  # then the positions kept: each is a child of the level before
        self.narrowed = False
        cur = narrow(levels[-1])
        while len(cur):
            self.deadline.check()
            kids = self.bounds.keep("forward", k.unique(k.moves(cur), own=True), len(levels), None)
            for j, other in enumerate(self.bwd):
                hit = k.member(other, kids)
                if hit.any():
                    return (self._first(kids[hit]), len(levels), j), [*levels, kids]
            cur = narrow(kids)
            levels.append(cur)
        return None

    def warm(self, limit: int) -> None:
        """Both sides grown, the smaller first, until a last level holds more than ``limit``
        positions or a side runs out (no meeting is looked for): a beam from deeper levels
        meets sooner and finds fewer moves (German e5 -> e5: 23-24 moves from levels of a
        few million, 36 from the bare ends)."""
        if self.bwd is None:
            return
        while True:
            side = "backward" if len(self.bwd[-1]) < len(self.fwd[-1]) else "forward"
            last = self.levels.side(side)[-1]
            if not len(last) or len(last) > limit:
                return
            self.grow(side)

    def sizes(self) -> dict[str, list[int]]:
        """Positions per level, each side."""
        return {"forward": [len(x) for x in self.fwd], "backward": [len(x) for x in self.bwd or []]}


def survivor_distances(board: Board, vacancy: int, deadline: Deadline | None = None) -> dict[int, int]:
    """Fewest moves from the board minus ``vacancy`` to one peg on each hole that allows it.

    One forward search to exhaustion (every reachable position): holes missing from the
    answer are proven impossible survivors."""
    problem = single_vacancy(board, vacancy, Goal.one_peg())
    search = Search(problem, deadline or Deadline(), bidirectional=False)
    depth: dict[int, int] = {}
    kern = search.levels.kernel
    singles = dict(zip(range(board.n), kern.ints(kern.canon(kern.array([1 << h for h in range(board.n)]))),
                       strict=True))
    while len(search.fwd[-1]):
        level = search.fwd[-1]
        for key in kern.ints(level[kern.popcount(level) == 1]):
            for h, k in singles.items():
                if k == key:
                    depth.setdefault(h, len(search.fwd) - 1)
        search.grow("forward")
    return depth


def fewest_over_vacancies(board: Board, deadline: Deadline | None = None):
    """The fewest moves of any single-vacancy -> single-survivor game on ``board``.

    One bidirectional search from all single vacancies to all single pegs (both sets are
    invariant under every board symmetry). Returns (moves, vacancy, plan) or None if no such
    game is solvable."""
    starts = tuple(board.full & ~(1 << h) for h in range(board.n))
    problem = single_vacancy(board, 0, Goal.one_peg())
    search = Search(problem, deadline or Deadline(), starts=starts, group=board.symmetries)
    best, _, meeting = search.run()
    if best is None or meeting is None:
        return None
    start, plan = search.walk(meeting)
    vacancy = (board.full & ~start).bit_length() - 1
    return best, vacancy, plan


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    """The fewest moves: in memory while the levels fit, on disk as ``config.disk`` says
    (``planners.ondisk``)."""
    return ondisk.levels(problem, deadline, config, "moves", NAME, _in_memory, first_for_disk)


def on_disk(problem: Problem, root: Path, **options) -> Result:
    """The search by moves with its levels on disk in ``root`` (``planners.ondisk.on_disk``,
    its options)."""
    return ondisk.on_disk(problem, root, kind="moves", name=NAME, first=first_for_disk, **options)


def _in_memory(problem: Problem, deadline: Deadline, config: Config) -> Result:
    """Search alone first (small problems end here); past a short budget, fetch a plan from
    ``auto`` as the upper bound and go on with pruning."""
    t0 = time.perf_counter()
    lower0 = merson.moves_lower_bound(problem.board, problem.start, problem.goal)
    first: Result | None = None
    upper: int | None = None
    upper_s = 0.0
    if config.upper_plan is not None:  # the bound given: the search looks for fewer from the start
        upper = count_moves(problem.board, config.upper_plan)
        first = Result(Status.SOLVED, problem, GIVEN, plan=config.upper_plan)
        search = Search(problem, deadline, upper=upper)
    else:
        search = Search(problem, deadline.share(QUICK_SHARE, QUICK_S).within(QUICK_S))
        search.pause_above = QUICK_LEVEL
    try:
        try:
            given = config.upper_plan is not None
            best, lower, meeting = search.run_learning(deadline) if given else search.run()
        except Timeout:
            if deadline.expired() or config.upper_plan is not None:
                raise
            search.deadline = deadline
            search.pause_above = None
            t = time.perf_counter()
            progress.say("no quick answer: looking for a first plan, whose moves bound the search")
            first, upper = first_plan(search, deadline, config)
            upper_s = time.perf_counter() - t
            if upper is not None:
                progress.say(f"a first plan of {upper} moves (by {first.planner if first else '?'}): "
                             f"the search looks for fewer")
            if first is not None and first.status is Status.UNSOLVABLE:
                return replace_planner(first)
            search.upper = upper
            search.learn(deadline)
            best, lower, meeting = search.run()
    except Timeout as exc:
        if config.disk is not None and isinstance(exc, MemoryBudget):
            raise  # ``ondisk.levels`` goes on with the levels on disk
        why = str(exc) or "time limit"
        a, b = len(search.fwd) - 1, (len(search.bwd) - 1 if search.bwd else 0)
        lower = max(lower0, a + b + 1)
        stats = _stats(search, t0, upper_s, lower0)
        if first is not None and first.plan is not None:
            return Result(Status.UNKNOWN, problem, NAME, plan=first.plan, lower_bound=lower, stats=stats,
                          detail=f"{why}: best found {upper} moves, proven >= {lower}")
        return Result(Status.UNKNOWN, problem, NAME, lower_bound=lower, stats=stats,
                      detail=f"{why}: no plan found; any plan needs >= {lower} moves")
    stats = _stats(search, t0, upper_s, lower0)
    how = _how(search)
    if best is not None and meeting is not None:
        _, plan = search.walk(meeting)
        moves = count_moves(problem.board, plan)
        return Result(Status.SOLVED_OPTIMAL, problem, NAME, plan=plan, lower_bound=best, stats=stats,
                      detail=f"optimal: {moves} moves; {how} found none with {best - 1}")
    if upper is not None and first is not None:
        return Result(Status.SOLVED_OPTIMAL, problem, NAME, plan=first.plan, lower_bound=upper, stats=stats,
                      detail=f"optimal: {upper} moves (plan from {first.planner}); "
                      f"{how} found none with {upper - 1}")
    return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.EXHAUSTED, stats=stats,
                  detail=f"{how} exhausted every reachable position without reaching the goal")


def replace_planner(r: Result) -> Result:
    """A result of another planner, reported as this one's."""
    return replace(r, planner=f"{NAME}:{r.planner}")


def _how(search: Search) -> str:
    """The levels searched, named as ``pegsat check`` names a certificate's: by their depths."""
    a = len(search.fwd) - 1
    probe = f", one move beyond the {search.probed} side probed" if search.probed else ""
    if search.bwd is None:
        return f"breadth-first search by moves (levels 0..{a}{probe})"
    b = len(search.bwd) - 1
    return f"breadth-first search by moves (forward levels 0..{a}, backward 0..{b}{probe})"


def _stats(search: Search, t0: float, upper_s: float, lower0: int) -> Stats:
    sizes = search.sizes()
    return {
        "merson_bound": lower0,
        "upper_s": upper_s,
        "search_s": time.perf_counter() - t0 - upper_s,
        "forward_levels": sizes["forward"],
        "backward_levels": sizes["backward"],
        "positions": sum(sizes["forward"]) + sum(sizes["backward"]),
        "pruned": search.pruned,
        "pagodas": len(search.pagodas),
        "symmetries": len(search.levels.group),
    }


def compact(board: Board, plan: Sequence[int], width: int = COMPACT_WIDTH) -> tuple[int, ...]:
    """The plan's jumps reordered into fewer moves, where they can be: two jumps that share
    no hole commute (each reads and writes its own three holes only), so every order that
    keeps each pair sharing a hole in its order is a plan from the same start to the same
    end. A beam over those orders: states (the jumps played, the hole the last one landed
    on), the ``width`` with the fewest moves kept at each step; never more moves than the
    plan's own. A bound for the search by moves: the beams' or ``auto``'s first plan, often
    many moves above the fewest, prunes the levels more the shorter it is (German e2 -> e2's
    first plan: 39 moves, 27 at ``COMPACT_LONG``; ``tests/test_moves.py``)."""
    jumps = [board.jumps[k] for k in plan]
    n = len(plan)
    need = [sum(1 << i for i in range(k) if set(jumps[i]) & set(jumps[k])) for k in range(n)]
    beam: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {(0, -1): (0, ())}
    for _ in range(n):
        nxt: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {}
        for (done, last), (moves, order) in beam.items():
            for k in range(n):
                if not done >> k & 1 and not need[k] & ~done:
                    key, m = (done | 1 << k, jumps[k][2]), moves + (jumps[k][0] != last)
                    if key not in nxt or m < nxt[key][0]:
                        nxt[key] = (m, (*order, k))
        beam = dict(heapq.nsmallest(width, nxt.items(), key=lambda kv: kv[1][0]))
    moves, order = min(beam.values())
    return tuple(plan[k] for k in order) if moves < count_moves(board, plan) else tuple(plan)


def first_plan(search: Search, deadline: Deadline, config: Config, widths: Sequence[int] = (BEAM,),
               lower: int = 0):
    """A first plan, the upper bound: from the beam (``Search.beam``), else from ``auto``
    under a short budget (which may also prove that there is none). With one width, the
    first beam that meets; with several (a search that will run for hours, where every move
    the bound saves prunes whole levels), the fewest moves of every width and both guides,
    each try given up to ``UPPER_LONG_S``, until a plan has ``lower`` moves (a lower bound:
    none can have fewer) or a beam dropped no position (every other is the same)."""
    from . import auto

    problem = search.problem
    cap = UPPER_MAX_S if len(widths) == 1 else UPPER_LONG_S

    def short() -> Deadline:  # each try: a share of what is left, at most ``cap``
        return deadline.share(UPPER_SHARE, cap).within(cap)

    best: tuple[int, tuple[int, ...]] | None = None
    width = COMPACT_LONG if len(widths) > 1 else COMPACT_WIDTH  # ``compact``'s, by the search's length
    exact = False  # a beam that dropped no position: the other guide and every wider beam are the same
    for beam_width in widths:
        for fewest_pegs in (True, False):
            search.deadline = short()
            try:
                found = search.beam(beam_width, fewest_pegs=fewest_pegs)
                exact = not search.narrowed
            except Timeout:
                exact = False
                if deadline.expired():
                    raise
                found = None
            finally:
                search.deadline = deadline
            if found is None:
                if exact:
                    break
                continue
            _, plan = search.walk(*found)
            plan = compact(problem.board, plan, width)
            try:
                moves = replay_plan(problem, plan).moves
            except PlanError:
                continue  # the final verification would reject it: go on without it
            if best is None or moves < best[0]:
                best = (moves, plan)
            if len(widths) == 1 or best[0] <= lower or exact:
                break
        if exact or best is not None and (len(widths) == 1 or best[0] <= lower):
            break
    if best is not None:
        return Result(Status.SOLVED, problem, "beam search by moves", plan=best[1]), best[0]
    fallback = short() if len(widths) == 1 else deadline.share(UPPER_SHARE, UPPER_LONG_S).within(UPPER_LONG_S)
    r = auto.solve(problem, fallback, config)
    if r.status is Status.SOLVED and r.plan is not None:
        plan = compact(problem.board, r.plan, width)
        try:
            return replace(r, plan=plan), replay_plan(problem, plan).moves
        except PlanError:
            return None, None  # the final verification would reject it; search without it
    if r.status is Status.UNSOLVABLE:
        return r, None
    return None, None


WARM = 1 << 20  # in-memory levels of at most about this many positions before a search on disk's beams


def first_for_disk(problem: Problem, deadline: Deadline, config: Config) -> tuple[Result | None, int | None]:
    """The first plan of a search on disk, and its moves, the bound: beams over in-memory
    levels of about ``WARM`` positions, both cut by the learned pagodas (``first_plan``, the
    ``DISK_WIDTHS``, both guides), the fewest moves kept. A one-peg-anywhere goal is also
    tried survivor by survivor (the class-compatible ones, one per orbit): a fixed survivor's
    backward levels are narrow and its beams meet with fewer moves (German e5 -> anywhere: 33
    moves from the open goal, 23 with e5 alone). A refutation comes back only for the problem itself."""
    from ..analysis import games

    tries = [problem]
    split = games.split(problem)
    if split is not None and len(split.survivors) > 1:
        tries += [game.problem for h in split.survivors for game in split.games(h, both=False)]
    best: tuple[Result | None, int | None] = (None, None)
    floor = merson.moves_lower_bound(problem.board, problem.start, problem.goal)
    for q in tries:
        if best[1] is not None and best[1] <= floor:
            break  # no plan has fewer moves
        search = Search(q, deadline)
        search.learn(deadline)  # the pagodas keep the beams alive (diamond d2 -> f2: none meet without)
        search.warm(WARM)
        lower = merson.moves_lower_bound(q.board, q.start, q.goal)
        first, bound = first_plan(search, deadline, config, widths=DISK_WIDTHS, lower=lower)
        del search
        if first is not None and first.status is Status.UNSOLVABLE:
            if q is problem:
                return first, None
            continue  # that survivor has no plan; the others may
        if first is None or first.plan is None or bound is None:
            continue
        if best[1] is None or bound < best[1]:  # a survivor's plan is one of the problem's (the
            best = (replace(first, problem=problem), bound)  # same start): its moves, replayed there
    return best
