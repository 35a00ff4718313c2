"""Exhaustive depth-first search on bitboards with a table of dead positions.

The method of the classic brute-force solvers (e.g. Bell's and Bergholt's programs): play
jumps depth first; remember every position from which the goal was shown unreachable, keyed
by its least image under the board symmetries that fix the goal, so each orbit is refuted
once. A peg count at or below the goal's minimum ends a branch. When the search finishes
without reaching the goal, every reachable position has been explored: that is a proof.

Jumps are tried far pegs first: by decreasing distance of the jumping peg from the goal
(the centroid of the goal's pegs, or of the board). Clearing the far corners early is the
usual hand strategy, and it matters: measured here with a 3-million-node budget, id order
did not solve French c1 -> e1 or English d4 -> d1, far-first solved them in 342k and 174k
nodes (bench/planners.py).
With a special peg the state is (position, special hole) and no symmetry is used.
"""

from __future__ import annotations

import sys
import time

from ..deadline import Deadline, Timeout
from ..engine.bitboard import engine, permute, symmetry
from ..model.problem import Problem
from ..model.result import Proof, Result, Status
from .config import Config, any_problem

NAME = "search"
OPTIMAL = False  # its plans are not proven to have the fewest moves
supports = any_problem


def covers_open_goal(problem: Problem) -> bool:
    """One search covers every survivor at once: no split needed."""
    return True


class _Restart(Exception):
    pass


#: (jump order, node budget) phases; the dead table carries over, so a restart loses
#: little. A short probe in id order first: it finds the English central game in 9k nodes.
PHASES = (("id", 50_000), ("far", None))


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    t0 = time.perf_counter()
    board, goal = problem.board, problem.goal
    eng = engine(board)
    need, land, flip = eng.need, eng.land, eng.flip
    jumps = board.jumps
    special = problem.special
    if special is None:
        group = [
            p for p in board.symmetries
            if permute(p, goal.full) == goal.full and permute(p, goal.empty) == goal.empty
        ]
    else:
        group = [tuple(range(board.n))]
    sym = symmetry(board, group)
    canonical = sym.canonical if len(group) > 1 else (lambda pos: pos)
    order: list[int] = []
    min_left = max(goal.min_pegs, goal.full.bit_count())
    satisfied = goal.satisfied
    dead: set = set()
    path: list[int] = []
    nodes = 0

    budget = [0]

    def dfs(pos: int, sp: int | None) -> bool:
        nonlocal nodes
        if satisfied(pos):
            return True
        if pos.bit_count() <= min_left:
            return False
        key = canonical(pos) if sp is None else (pos, sp)
        if key in dead:
            return False
        nodes += 1
        if not nodes & 0x3FF:
            deadline.check()
            if nodes > budget[0]:
                raise _Restart
        for k in order:
            if pos & need[k] == need[k] and not pos & land[k]:
                nsp = sp
                if sp is not None:
                    a, b, c = jumps[k]
                    if b == sp:
                        continue
                    if a == sp:
                        nsp = c
                path.append(k)
                if dfs(pos ^ flip[k], nsp):
                    return True
                path.pop()
        dead.add(key)
        return False

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * board.n + 100))
    orders = {"id": list(range(len(jumps))), "far": jump_order(problem)}
    try:
        for name, cap in PHASES:
            order[:] = orders[name]
            budget[0] = nodes + cap if cap is not None else float("inf")
            path.clear()
            try:
                found = dfs(problem.start, special)
                break
            except _Restart:
                continue
    except Timeout:
        why = "stopped" if deadline.stop is not None and deadline.stop() else "time limit reached"
        return _result(problem, Status.UNKNOWN, t0, nodes, dead, detail=why)
    finally:
        sys.setrecursionlimit(limit)
    if found:
        return _result(problem, Status.SOLVED, t0, nodes, dead, plan=tuple(path))
    return _result(problem, Status.UNSOLVABLE, t0, nodes, dead, proof=Proof.EXHAUSTED)


def jump_order(problem: Problem) -> list[int]:
    """Jump ids, the jumping peg farthest from the goal's centroid first (ties by id)."""
    board, goal = problem.board, problem.goal
    if board.coords is None:
        return list(range(len(board.jumps)))
    target = [board.coords[h] for h in range(board.n) if goal.full >> h & 1] or list(board.coords)
    tr = sum(r for r, _ in target) / len(target)
    tc = sum(c for _, c in target) / len(target)
    scale = 0.5 if board.lattice == "triangular" else 1.0  # columns are doubled there

    def far(k: int) -> float:
        r, c = board.coords[board.jumps[k][0]]
        return abs(r - tr) + scale * abs(c - tc)

    return sorted(range(len(board.jumps)), key=lambda k: (-far(k), k))


def _result(problem, status, t0, nodes, dead, plan=None, proof=None, detail="") -> Result:
    elapsed = time.perf_counter() - t0
    stats = {"nodes": nodes, "dead_positions": len(dead), "solve_s": elapsed, "encode_s": 0.0}
    return Result(status, problem, NAME, plan=plan, proof=proof, detail=detail, stats=stats)
