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

import time
from dataclasses import dataclass

import numpy as np

from ..deadline import Deadline
from ..engine.bitboard import engine
from ..model.problem import Problem, goal_positions, holes_of

MAX_POSITIONS = 3_000_000  # positions in all levels; beyond, the route is not run to the end
BATCH = 20_000  # parents whose children are tested against the floors together


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
        keep = (holes.astype(np.float64) @ mat >= floors).all(axis=1)
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
