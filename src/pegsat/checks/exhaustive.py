"""``exhaustive``: the breadth-first search by jumps of ``planners.layers`` met no plan: the
integer pagodas it pruned with (each with the levels it was in force) and the size of every
level. Checked by two routes.

Route 1 verifies every weighting exactly (no jump increases it; its floor is at most the goal's
weight, or, backwards, at most the start's) and re-runs the search with exactly those
weightings: it must again meet nothing, with the same level sizes (it trusts the search code
and takes as long as the search did).

Route 2 (``refute``) shares no search code: written to be read in one sitting and to depend on
nothing of the engine but the verifier's jump rule (``engine.bitboard.engine``: a jump needs its
source and middle full and its target empty, and flips the three). It checks each forward
pagoda itself (no jump raises its weight; every goal position weighs at least its floor, so a
position below the floor can never reach the goal) and walks every position reachable from the
start, one jump level at a time, with plain Python sets, dropping positions below a floor
(weighed a batch at a time by one matrix product in numpy). No symmetry reduction, no two-ended
meeting, no tables: if no goal position is ever reached and the levels run dry, nothing reaches
the goal. It stops with "too large" past ``MAX_POSITIONS``; the check says which routes ran.
"""

from __future__ import annotations

import time

import numpy as np

from ..deadline import Deadline, Timeout
from ..engine.bitboard import engine
from ..model.problem import Problem, goal_positions, holes_of
from .closure import BATCH, weight
from .evidence import Context
from .verdict import Verdict, holds, judged, rejected, unsettled

MAX_POSITIONS = 3_000_000  # positions in all levels; beyond, the route is not run to the end


def refute(problem: Problem, pagodas: list[tuple[list[int], int]], deadline: Deadline | None = None,
           limit: int = MAX_POSITIONS) -> Verdict:
    """Walk every start-reachable position (pruned by ``pagodas``: (weights, floor)) and
    report whether a goal position is among them."""
    t0 = time.perf_counter()

    def done(ok: bool | None, reason: str, seen: int) -> Verdict:
        return judged(ok, reason, seen, time.perf_counter() - t0)

    deadline = deadline or Deadline()
    board, goal = problem.board, problem.goal
    goals = goal_positions(problem)
    rules = engine(board)
    names = board.names
    for k, (w, floor) in enumerate(pagodas):
        for a, b, c in board.jumps:
            if w[c] > w[a] + w[b]:
                return done(False, f"pagoda {k} increases on jump {names[a]}-{names[b]}-{names[c]}", 0)
        if goals is None:
            return done(None, "the goal has too many positions to check pagodas", 0)
        if any(weight(w, g) < floor for g in goals):
            return done(False, f"pagoda {k}: a goal weighs less than its floor", 0)

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
            return [p for p in batch if all(weight(w, p) >= f for w, f in pagodas)]
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
                return done(False, f"a goal position is reachable in {depth} jumps: the certificate is wrong",
                            seen)
        nxt: set[int] = set()
        parents = list(level)
        for lo in range(0, len(parents), BATCH):
            if deadline.expired():
                return done(None, f"time limit after {seen} positions", seen)
            children = {pos ^ flip[k] for pos in parents[lo:lo + BATCH] for k in jumps
                        if pos & need[k] == need[k] and not pos & land[k]}
            nxt.update(alive(list(children - nxt)))
        seen += len(nxt)
        if seen > limit:
            return done(None, f"too large: more than {limit} positions", seen)
        level, depth = nxt, depth + 1
    return judged(True, f"every one of the {seen} reachable positions (pruned by {len(pagodas)} pagodas) "
                "walked; none is a goal", seen, time.perf_counter() - t0)


def check_exhaustive(problem: Problem, ev: dict, ctx: Context) -> Verdict:
    """An ``exhaustive`` certificate, by route 1 and, when small enough, route 2 (the module's docstring)."""
    deadline = ctx.deadline
    from ..planners.layers import Layers

    board = problem.board
    index = {h: i for i, h in enumerate(board.names)}
    goals = goal_positions(problem) or []
    given: dict[str, list] = {}
    for side in ("forward", "backward"):
        items = []
        for k, it in enumerate(ev["pagodas"][side]):
            w = [0] * board.n
            for h, v in it["weights"].items():
                if not isinstance(v, int):
                    return rejected(f"{side} weighting {k} is not integer")
                w[index[h]] = v
            floor, (first, last) = int(it["floor"]), it["levels"]
            sign = 1 if side == "forward" else -1
            for a, b, c in board.jumps:
                if sign * w[c] > sign * (w[a] + w[b]):
                    n = board.names
                    return rejected(f"{side} weighting {k} increases on jump {n[a]}-{n[b]}-{n[c]}")
            if side == "forward":
                if not goals or any(sum(w[h] for h in holes_of(g)) < floor for g in goals):
                    return rejected(f"forward weighting {k}: a goal position weighs less than its floor")
            elif sum(w[h] for h in holes_of(problem.start)) < floor:
                return rejected(f"backward weighting {k}: the start weighs less than its floor")
            items.append((tuple(w), floor, int(first), None if last is None else int(last)))
        given[side] = items
    search = Layers(problem, deadline, learn=False, given=given)
    try:
        if search.run() is not None:
            return rejected("route 1: the re-run search found a plan")
    except Timeout:
        return unsettled("route 1 (re-run of the level search) stopped at the time limit")
    got = search.record()
    for key in ("forward_levels", "backward_levels"):
        if got[key] != ev[key]:
            return rejected(f"route 1: the re-run search gives other {key.replace('_', ' ')}")
    used = sum(len(v) for v in given.values())
    size = sum(got["forward_levels"]) + sum(got["backward_levels"])
    one = (f"route 1 (re-run of pegsat's level search): {used} integer pagodas checked exactly, no plan "
           f"met, level sizes identical ({size} positions)")
    walk = refute(problem, [(list(w), floor) for w, floor, _, _ in given["forward"]], deadline)
    if walk.refused:
        return rejected(f"route 2 (independent walk): {walk.reason}")
    if not walk.finished:
        return holds(f"{one}; route 2 (independent walk) not run to the end: {walk.reason}", "route 1 only")
    return holds(f"{one}; route 2 (independent walk, no search code shared, {walk.seconds:.2f} s): "
                 f"{walk.reason}", "both routes")
