"""Pagoda functions: weights that the pegs' total can never increase.

A weighting ``w`` of the holes is a *pagoda function* when ``w(c) <= w(a) + w(b)`` for every
jump from ``a`` over ``b`` into ``c``: a jump replaces the weight of ``a`` and ``b`` by that of
``c``, so the total weight of the pegs never goes up (Berlekamp, Conway and Guy, *Winning
Ways*, ch. 23; Beasley, *The Ins and Outs of Peg Solitaire*, ch. 4). If every goal position
weighs more than the start, the goal is unreachable.

Every goal position weighs at least ``w(goal.full)`` when ``w >= 0`` on the holes the goal
leaves free; for a one-peg goal it weighs ``w(h)`` for the survivor ``h``. A weighting is
found by linear programming (OR-Tools' GLOP): maximise the margin of the goal over the start
with weights in [-1, 1]. The floating-point answer is turned into fractions with small
denominators and re-checked exactly; only an exactly checked weighting is returned, so LP
rounding can never produce a false certificate (at worst no certificate).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from ..deadline import Deadline
from ..engine.bitboard import engine
from ..model.board import Board
from ..model.problem import Goal, Problem, holes_of
from .invariants import possible_survivors

DENOMINATORS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128, 1000, 10**4, 10**6)


def applies(problem: Problem) -> bool:
    """A pagoda argument needs the goal's weight bounded below: a pattern or one peg."""
    g = problem.goal
    return problem.special is None and (g.full != 0 or g.fixed_count == 1)


def goal_bound(problem: Problem, w: dict[int, Fraction]) -> tuple[Fraction, str] | None:
    """The least weight of any goal position under ``w``, or None if ``w`` does not bound it."""
    g, board = problem.goal, problem.board
    if g.fixed_count == 1 and not g.full:
        allowed = holes_of(board.full & ~g.empty)
        return min(w[h] for h in allowed), "one peg on any allowed hole"
    free = holes_of(board.full & ~(g.full | g.empty))
    if any(w[h] < 0 for h in free):
        return None
    return sum((w[h] for h in holes_of(g.full)), Fraction(0)), "the goal's pegs"


def check(problem: Problem, w: dict[int, Fraction]) -> str | None:
    """None when ``w`` proves the goal unreachable, else the reason it does not (exact)."""
    board = problem.board
    if set(w) != set(range(board.n)):
        return "the weights do not cover every hole exactly once"
    for a, b, c in board.jumps:
        if w[c] > w[a] + w[b]:
            n = board.names
            return f"jump {n[a]} over {n[b]} into {n[c]} increases the weight ({w[c]} > {w[a]} + {w[b]})"
    bound = goal_bound(problem, w)
    if bound is None:
        return "a hole the goal leaves free has negative weight"
    start = sum((w[h] for h in holes_of(problem.start)), Fraction(0))
    if not bound[0] > start:
        return f"the goal weighs {bound[0]}, not more than the start's {start}"
    return None


def find(problem: Problem) -> dict[int, Fraction] | None:
    """An exactly checked pagoda certificate, or None (no LP solution, or it did not round)."""
    if not applies(problem):
        return None
    from ortools.linear_solver import linear_solver_pb2, pywraplp

    g, n = problem.goal, problem.board.n
    one_peg = g.fixed_count == 1 and not g.full
    model = linear_solver_pb2.MPModelProto()
    model.ParseFromString(_model(problem.board, g.full, g.empty, one_peg))
    for h in holes_of(g.full):
        model.variable[h].objective_coefficient = 1.0
    for h in holes_of(problem.start):
        model.variable[h].objective_coefficient -= 1.0
    if one_peg:
        model.variable[n].objective_coefficient = 1.0  # t
    model.maximize = True
    lp = pywraplp.Solver.CreateSolver("GLOP")
    lp.LoadModelFromProto(model)
    if lp.Solve() != pywraplp.Solver.OPTIMAL or lp.Objective().Value() <= 1e-9:
        return None
    values = [v.solution_value() for v in lp.variables()[:n]]
    for d in DENOMINATORS:
        cand = {h: Fraction(x).limit_denominator(d) for h, x in enumerate(values)}
        if check(problem, cand) is None:
            return cand
    return None


@lru_cache(maxsize=64)
def _model(board: Board, full: int, empty: int, one_peg: bool) -> bytes:
    """``find``'s LP for a board and a goal, all but the objective (which depends on the
    start), as GLOP's serialized model: weights ``w0..w(n-1)`` in [-1, 1] (in [0, 1] on a hole
    a pattern goal leaves free), ``w(c) <= w(a) + w(b)`` for every jump, and for a one-peg goal
    a last variable ``t`` at most the weight of every allowed hole. Built once: building it
    took most of an LP's time, and the searches pose hundreds of LPs per goal; each LP is
    still solved from scratch (the same weights, whatever was solved before)."""
    from ortools.linear_solver import linear_solver_pb2, pywraplp

    lp = pywraplp.Solver.CreateSolver("GLOP")
    free = set(holes_of(board.full & ~(full | empty)))
    w = [lp.NumVar(0.0 if (h in free and not one_peg) else -1.0, 1.0, f"w{h}") for h in range(board.n)]
    for a, b, c in board.jumps:
        row = lp.Constraint(-lp.infinity(), 0.0)
        for h, k in ((c, 1.0), (a, -1.0), (b, -1.0)):
            row.SetCoefficient(w[h], k)
    if one_peg:
        t = lp.NumVar(-1.0, 1.0, "t")
        for h in holes_of(board.full & ~empty):
            row = lp.Constraint(-lp.infinity(), 0.0)
            row.SetCoefficient(t, 1.0)
            row.SetCoefficient(w[h], -1.0)
    proto = linear_solver_pb2.MPModelProto()
    lp.ExportModelToProto(proto)
    return proto.SerializeToString()


def integral(w: dict[int, Fraction], bound: Fraction) -> tuple[tuple[int, ...], int]:
    """(integer weights per hole, integer floor): ``w`` and ``bound`` scaled by the least
    common denominator, so the compiled searches compare exact integers."""
    den = 1
    for v in list(w.values()) + [bound]:
        den = math.lcm(den, v.denominator)
    return tuple(int(w[h] * den) for h in range(len(w))), int(bound * den)


@lru_cache(maxsize=256)
def survivors_of(problem: Problem) -> tuple[int, ...]:
    """For a goal of one peg on any of several holes: the holes the position classes allow
    for the last peg (``analysis.invariants.possible_survivors``), else (). Every position a
    search reaches from the start shares the start's class, so a pagoda need only rule out
    these survivors, one by one (``engine.dfs.DepthFirst``'s ``survivors``)."""
    g, board = problem.goal, problem.board
    if problem.special is not None or g.full or g.max_pegs != 1 or board.n > 64 * 2:
        return ()
    found = tuple(sorted(possible_survivors(board, problem.start, board.full & ~g.empty)))
    return found if 0 < len(found) <= 64 else ()


def _at(problem: Problem, pos: int, hole: int) -> Problem:
    """From ``pos`` to one peg on ``hole``."""
    board = problem.board
    return Problem(board, pos, Goal(full=1 << hole, empty=board.full & ~(1 << hole), min_pegs=1, max_pegs=1))


def _weighs(pos: int, w: tuple[int, ...]) -> int:
    return sum(w[h] for h in holes_of(pos))


def _refute(problem: Problem, pos: int, found: list[tuple[tuple[int, ...], int]],
            survivors: tuple[int, ...], out: Sequence[bool] | None = None
            ) -> list[tuple[tuple[int, ...], int]]:
    """New pagodas that, with ``found``, rule out ``pos``: for the problem's goal, or, with
    ``survivors``, for each survivor that ``found`` does not rule out yet (one LP each; the
    first survivor no pagoda rules out ends the attempt: the position stays possible).
    ``out``: per survivor, whether ``found`` rules it out, when the caller knows already
    (``mine`` does, for all its positions at once: weighing each here cost seconds)."""
    g = problem.goal
    if pos.bit_count() < max(g.min_pegs, g.full.bit_count()):
        return []  # too few pegs for the goal: no pagoda needed (nor can the LP's problem be posed)
    if not survivors:
        if any(_weighs(pos, w) < floor for w, floor in found):
            return []
        q = Problem(problem.board, pos, problem.goal)
        w = find(q)
        bound = None if w is None else goal_bound(q, w)
        return [] if w is None or bound is None else [integral(w, bound[0])]
    new: list[tuple[tuple[int, ...], int]] = []
    for k, s in enumerate(survivors):
        if out[k] if out is not None else any(_weighs(pos, w) < w[s] for w, _ in found):
            continue
        if any(_weighs(pos, w) < w[s] for w, _ in new):
            continue
        w = find(_at(problem, pos, s))
        if w is None:
            break
        new.append(integral(w, min(w[h] for h in survivors)))
    return new


def learn(problem: Problem, samples: int, rng: random.Random, deadline: Deadline | None = None,
          survivors: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], int]]:
    """Integer pagodas (weights, floor) that rule out positions a search will meet.

    Positions are sampled by random play from the start (``samples`` playouts to a random
    depth); one already ruled out by a pagoda found so far costs nothing, any other goes to
    ``find`` with the problem's goal, or with ``survivors`` (``survivors_of``) with one peg on
    each survivor not yet ruled out for it: a pagoda then rules a position out for the
    survivors it weighs more than the position, and the floor returned is its least weight on
    a survivor. Every pagoda returned is exactly checked: a position weighing less than its
    floor (or than its weight on the survivor) cannot reach the goal (that survivor)."""
    if not applies(problem):
        return []
    board = problem.board
    eng = engine(board)
    found: list[tuple[tuple[int, ...], int]] = []
    lo, hi = 3, max(4, problem.pegs - 3)
    for _ in range(samples):
        if deadline is not None and deadline.expired():
            break
        pos = problem.start
        for _ in range(rng.randrange(lo, hi)):
            legal = eng.legal(pos)
            if not legal:
                break
            pos ^= eng.flip[rng.choice(legal)]
        found.extend(item for item in _refute(problem, pos, found, survivors) if item not in found)
    return found


#: the searches' recipe (``search``, ``beam``, dead-set proofs): random playouts offered to
#: the LP, seconds at most, and a fixed seed (the same pagodas every run)
LEARN_SAMPLES, LEARN_SECONDS, LEARN_SEED = 200, 2.0, 20261122


def learn_for(problem: Problem, deadline: Deadline, survivors: tuple[int, ...] = ()
              ) -> list[tuple[tuple[int, ...], int]]:
    """``learn`` by the searches' recipe, within ``LEARN_SECONDS`` of ``deadline``. What
    every playout was offered for is kept for the process (the same answer a second learning
    would give: a search on disk learns once for its first plan and once for its levels)."""
    key = (problem, survivors, LEARN_SAMPLES, LEARN_SEED)
    if key in _learned:
        return list(_learned[key])
    within = deadline.within(LEARN_SECONDS)
    found = learn(problem, LEARN_SAMPLES, random.Random(LEARN_SEED), within, survivors)
    if not within.expired():  # every playout ran: no deadline cut it short
        if len(_learned) >= 64:
            _learned.clear()
        _learned[key] = tuple(found)
    return found


_learned: dict[tuple[Problem, tuple[int, ...], int, int], tuple[tuple[tuple[int, ...], int], ...]] = {}


def for_levels(problem: Problem, deadline: Deadline) -> list[tuple[tuple[int, ...], int]]:
    """Integer pagodas (weights, floor) for a level search grown from both ends: a forward
    position ``P`` lies on a plan only if ``w(P) >= floor`` (it can still reach the goal), a
    backward position ``Q`` only if ``w(Q) <= w(start)`` (the start can reach it); cutting
    the others keeps every plan, and every position of a plan at its depth (the positions
    before it on its shortest way from the start reach the goal too: none is cut).

    ``learn_for`` the problem, and, when the goal is one position, its time-reversed
    problem (start and goal complemented and swapped: a backward position ``Q`` is its
    position ``~Q``): a pagoda ``w`` that weighs ``~Q`` below the reversed goal ``~start``
    weighs ``Q`` above the start. Each pagoda's floor is its least weight on a goal position
    (a reversed one's too: it cuts forward as well). German e5 -> e5 by moves: 0.85 x 10^9
    positions instead of 1.41 x 10^9 (``bench/results-tables.txt``)."""
    if not applies(problem):
        return []
    board = problem.board
    found = list(learn_for(problem, deadline))
    g = problem.goal
    if g.full | g.empty == board.full and not g.full & g.empty and g.full.bit_count() < problem.pegs:
        reversed_ = Problem(board, board.full & ~g.full, Goal.pattern(board, board.full & ~problem.start))
        for w, _ in learn_for(reversed_, deadline):
            floor = _weighs(g.full, w)  # the one goal position's weight
            if (w, floor) not in found:
                found.append((w, floor))
    return found


#: a board of at most this many holes has at most 2^20 positions: its whole level search costs
#: less than learning pagodas (two ``learn_for``), so a search by moves on disk there learns none
SMALL_BOARD = 20


def worth_learning(problem: Problem) -> bool:
    """Whether a level search of ``problem`` can be long enough for ``for_levels`` to pay."""
    return problem.board.n > SMALL_BOARD


Cut = tuple[list[tuple[int, ...]], list[int]]  # integer weightings, and the floor each must reach


def cuts(problem: Problem, pagodas: Sequence[tuple[tuple[int, ...], int]]) -> dict[str, Cut | None]:
    """``for_levels``'s pagodas as each side's cut (``engine.kernel.Kernel.keep``'s weights
    and floors: a position is kept when it weighs at least the floor under every one):
    forward ``w(P) >= floor``; backward ``w(Q) <= w(start)``, as ``-w(Q) >= -w(start)``."""
    if not pagodas:
        return {"forward": None, "backward": None}
    ws = [tuple(w) for w, _ in pagodas]
    return {"forward": (ws, [f for _, f in pagodas]),
            "backward": ([tuple(-x for x in w) for w in ws], [-_weighs(problem.start, w) for w in ws])}


def mine(problem: Problem, dead: np.ndarray, known: list[tuple[tuple[int, ...], int]], keep: int,
         deadline: Deadline | None = None, survivors: tuple[int, ...] = ()
         ) -> list[tuple[tuple[int, ...], int]]:
    """At most ``keep`` new integer pagodas that rule out many of ``dead`` (one-word positions
    a search proved dead the hard way: no pagoda in ``known`` rules them out).

    Each such position is offered to ``_refute`` (with ``survivors``: one LP per survivor not
    ruled out yet), until the deadline; of the pagodas found, the ones ruling out the most
    of what is left are kept, greedily (each pagoda costs the search a little on every node,
    so a few broad ones beat many narrow ones). With survivors a position counts once per
    survivor, and only positions the pagodas found rule out for every survivor count.
    Diamond e1 -> e9: 4 pagodas learned from playouts, 20 more mined from the dead
    positions of 20 M nodes; the exhaustion went from 201 M to 133 M nodes. Every pagoda is
    exactly checked by ``find``."""
    if not applies(problem) or not len(dead):
        return []
    board = problem.board
    shifts = np.arange(board.n, dtype=np.uint64)
    # [position, hole]; float64, so the weighing is one BLAS product (numpy multiplies int64
    # matrices without BLAS: 2 s for 20,000 positions and 700 pagodas), and exact: the sums
    # are integers far below 2^53
    has = ((dead[:, None] >> shifts) & np.uint64(1)).astype(np.float64)
    parts: list[int | None] = list(survivors) or [None]

    def cuts(items: list[tuple[tuple[int, ...], int]]) -> np.ndarray:
        """[position, item, part]: the item rules the position out for the part."""
        if not items:
            return np.zeros((len(dead), 0, len(parts)), dtype=bool)
        w = np.array([x[0] for x in items], dtype=np.float64)
        floors = np.array([[x[1] if h is None else x[0][h] for h in parts] for x in items], dtype=np.float64)
        return (has @ w.T)[:, :, None] < floors[None, :, :]

    known_cut = np.asarray(cuts(known).any(axis=1))  # [position, part]
    done = known_cut.copy()
    found: list[tuple[tuple[int, ...], int]] = []
    for i in range(len(dead)):
        if deadline is not None and deadline.expired():
            break
        if done[i].all():
            continue
        new = _refute(problem, int(dead[i]), known + found, survivors, done[i] if survivors else None)
        if new:
            found.extend(new)
            done |= cuts(new).any(axis=1)
    if not found:
        return []
    c = cuts(found)
    full = np.asarray((known_cut | c.any(axis=1)).all(axis=1))  # positions the found pagodas finish off
    c &= (full[:, None] & ~known_cut)[:, None, :]
    # one row per (position, part) some new pagoda counts for; the gains are one product
    # each round (summing the boolean cube took 2.3 s for 16,000 positions, 800 pagodas)
    rows = c.transpose(0, 2, 1).reshape(-1, len(found))
    rows = rows[rows.any(axis=1)].astype(np.float32)  # counts stay exact below 2^24
    left = np.ones(len(rows), dtype=np.float32)
    chosen: list[int] = []
    for _ in range(keep):
        gain = left @ rows
        j = int(gain.argmax())
        if gain[j] == 0:
            break
        chosen.append(j)
        left[rows[:, j] > 0] = 0
    return [found[j] for j in chosen]


def named_pagodas(problem: Problem, pagodas: Sequence[tuple[Sequence[int], int]]) -> list[dict[str, Any]]:
    """Integer pagodas as certificates write them: weights by hole name (0 left out), a floor."""
    names = problem.board.names
    return [{"weights": {names[h]: x for h, x in enumerate(w) if x}, "floor": f} for w, f in pagodas]
