"""``layers``: exhaustive bidirectional breadth-first search by jumps, pruned by pagodas.

Every jump removes one peg, so the positions reachable from the start in ``k`` jumps form a
level of its own, and a plan of ``T = pegs(start) - pegs(goal)`` jumps passes through forward
level ``F_a`` (reachable from the start in ``a`` jumps) and backward level ``B_b`` (a goal
reachable in ``b`` jumps) with ``a + b = T``. Both sides grow, the smaller frontier first,
until ``a + b = T - 1``; the last step only tests the successors of one side against the
other side's level, stopping at the first common position (the largest level is never
built). The problem is solvable exactly when they meet, and a plan is read back level by
level. Levels are sorted numpy arrays of positions, each reduced
to the least image under the board symmetries that fix the start and the goal
(``engine.levels``).

Pruning (Bell's and Beasley's searches prune with hand-made pagoda functions; here the LP
of ``pagoda.find`` makes them): a forward position ``P`` lies on a plan only if it can still
reach the goal, so ``w(P) >= w(goal)`` for every pagoda function ``w``; a backward position
``Q`` only if the start reaches it: ``w(Q) <= w(start)``. Pagodas are *learned*: a sample of
each large new level is handed to the LP, every exactly-checked pagoda that rules out a
sampled position joins the set (integer weights), and the level is filtered again. On the
French board's middle levels the LP rules out about four positions in five.

Self-dual problems (a board symmetry ``s`` maps the start's complement onto the goal and the
goal's complement onto the start, e.g. French d3 -> d5 under the row flip) need one side
only: ``B_j`` is ``F_j`` complemented and mapped by ``s``.

Measured (bench/results-layers.txt): French d3 -> d5, which ``auto``, SAT and CP-SAT all
left unknown, has a plan, found in 600 s and 4.3 GB on 2 cores; the kept levels are about
5x smaller than the reachable ones. On the English board the pagodas do not pay for
themselves (plain search 1.4-2x faster); they matter where plain levels outgrow memory.

Nothing is pruned that lies on a plan, so when the levels do not meet the problem is
unsolvable. The record of that proof is the list of pagodas with the level each came into
play and the level sizes: ``certificate`` kind "exhaustive" checks every pagoda exactly and
re-runs the search with exactly those pagodas, which must give the same sizes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import progress
from ..analysis import pagoda
from ..deadline import Deadline, Timeout
from ..engine.bitboard import mirror, stabilizer
from ..engine.kernel import MAX_HOLES
from ..engine.levels import SLICE, Levels
from ..errors import PegsatError
from ..files import plural
from ..limits import MemoryBudget
from ..model.problem import Goal, Problem, goal_positions
from ..model.result import Proof, Result, Stats, Status, certificate
from . import ondisk
from .config import Config

NAME = "layers"
OPTIMAL = False  # its plans are not proven to have the fewest moves
LEARN_MIN = 200_000  # smaller levels are not worth an LP sample (triangle-6 tests: 20x slower at 20k)
SAMPLE = 150  # positions per LP sample
ROUNDS = 4  # LP samples per level at most
ENOUGH = 0.04  # stop sampling a level when fewer than this share of the sample is prunable


def supports(problem: Problem) -> str | None:
    """None, or why the level search cannot take the problem."""
    if problem.special is not None:
        return "the special-peg rule is not handled"
    if problem.board.n > MAX_HOLES:
        return f"board {problem.board.name} has {problem.board.n} holes; at most {MAX_HOLES}"
    goals = goal_positions(problem)
    if not goals or len({g.bit_count() for g in goals}) != 1:
        return "needs a goal with a fixed number of pegs (one peg at a hole, or an exact pattern)"
    return None


def covers_open_goal(problem: Problem) -> bool:
    """A one-peg-anywhere goal is split first: the level search needs exact goal positions."""
    return False


@dataclass
class Pagodas:
    """Integer weightings with a floor: a position is kept when ``w . pos >= floor`` for all
    weightings in force at its level. Each is in force from the level where it was learned
    until it is *retired*: after a level where it alone ruled out no position (the others
    covered all it did), it costs time and buys nothing, so it is dropped for the levels
    after. Dropping a weighting only prunes less: never unsound."""

    board: Any
    #: [weights, floor, first level, last level or None]
    items: list[list] = field(default_factory=list)
    _seen: set = field(default_factory=set)
    _alone: dict = field(default_factory=dict)  # item index -> positions only it ruled out

    def add(self, w: tuple[int, ...], floor: int, level: int, last: int | None = None) -> bool:
        """A pagoda, in force from level ``first`` on."""
        if (w, floor) in self._seen:
            return False
        self._seen.add((w, floor))
        self.items.append([w, floor, level, last])
        return True

    def active(self, depth: int) -> list[int]:
        """The pagodas in force at a level, as the core's filter takes them."""
        return [k for k, (_, _, a, z) in enumerate(self.items) if a <= depth and (z is None or depth <= z)]

    def retire(self, depth: int) -> None:
        """Close every weighting older than ``depth`` that alone ruled out nothing at it."""
        for k in self.active(depth):
            if self.items[k][2] < depth and not self._alone.get(k):
                self.items[k][3] = depth
        self._alone = {}

    def keep(self, kern, pos: np.ndarray, depth: int) -> np.ndarray:
        """The positions of level ``depth`` that every weighting in force there lets through
        (exact integer sums in the compiled core, ``Kernel.keep``)."""
        ks = self.active(depth)
        if not ks or not len(pos):
            return pos
        kept, alone = kern.keep(pos, [self.items[k][0] for k in ks], [self.items[k][1] for k in ks])
        for i, k in enumerate(ks):
            self._alone[k] = self._alone.get(k, 0) + int(alone[i])
        return kept


class Layers:
    """The levels of one problem, grown from both ends and pruned by learned pagodas."""

    def __init__(self, problem: Problem, deadline: Deadline, *, learn: bool = True,
                 learn_min: int = LEARN_MIN,
                 given: dict[str, list[tuple[tuple[int, ...], int, int, int | None]]] | None = None) -> None:
        """``given``: replay mode (certificate check): fixed pagodas per side, no learning."""
        why = supports(problem)
        if why is not None:
            raise PegsatError(f"planner layers: {why}")
        p = self.problem = problem
        self.learn, self.learn_min, self.given = learn, learn_min, given
        self.board = b = p.board
        goals = goal_positions(p)
        assert goals is not None  # supports() asked for a goal of a fixed peg count
        self.goals = goals
        self.total = p.pegs - self.goals[0].bit_count()
        self.deadline = deadline
        self.levels = Levels(b, stabilizer(p), (p.start,), self.goals, by="jumps",
                             mirror=mirror(p, self.goals[0]) if len(self.goals) == 1 else None)
        self.pagodas = {"forward": Pagodas(b), "backward": Pagodas(b)}
        for side, items in (given or {}).items():
            for w, floor, first, last in items:
                self.pagodas[side].add(tuple(w), floor, first, last)
        self.rng = np.random.default_rng(20261122)
        self.lp_calls = 0
        self.lp_s = 0.0

    @property
    def fwd(self) -> list[np.ndarray]:
        return self.levels.fwd

    @property
    def self_dual(self) -> bool:
        return self.levels.mirror is not None

    # --- growing ----------------------------------------------------------------------

    def _keep(self, side: str):
        prune = self.pagodas[side]

        def keep(new: np.ndarray, depth: int) -> np.ndarray:
            new = prune.keep(self.levels.kernel, new, depth)
            if self.learn and len(new) >= self.learn_min:
                for _ in range(ROUNDS):
                    self.deadline.check()
                    found = self._learn(side, new, depth)
                    if found:
                        new = prune.keep(self.levels.kernel, new, depth)
                    if found < ENOUGH * SAMPLE:
                        break
            if self.given is None:
                prune.retire(depth)
            return new
        return keep

    def _learn(self, side: str, level: np.ndarray, depth: int) -> int:
        """LP on a sample of ``level``: add every pagoda that rules out a sampled position."""
        b, p = self.board, self.problem
        sample = level if len(level) <= SAMPLE else self.rng.choice(level, SAMPLE, replace=False)
        found = 0
        t = time.perf_counter()
        for x in self.levels.kernel.ints(sample):
            q = Problem(b, x, p.goal) if side == "forward" else Problem(b, p.start, Goal.pattern(b, x))
            self.lp_calls += 1
            w = pagoda.find(q)
            if w is None:
                continue
            found += 1
            if side == "forward":
                least = pagoda.goal_bound(q, w)
                if least is None:
                    continue
                iw, floor = pagoda.integral(w, least[0])
            else:
                start = sum((w[h] for h in range(b.n) if p.start >> h & 1), w[0] * 0)
                iw, floor = pagoda.integral(w, start)
                iw, floor = tuple(-v for v in iw), -floor
            self.pagodas[side].add(iw, floor, depth)
        self.lp_s += time.perf_counter() - t
        return found

    def run(self) -> tuple[int, int] | None:
        """The meeting (a, b) levels with a common position, or None: no plan exists."""
        lv = self.levels
        while True:
            a = lv.depth("forward")
            if self.self_dual:
                b = min(a, self.total - a)
                side = "forward"
            else:
                b = lv.depth("backward")
                side = "backward" if len(lv.side("backward")[-1]) < len(lv.fwd[-1]) else "forward"
            if a + b == self.total:
                return (a, b) if lv.kernel.member(lv.level("backward", b), lv.fwd[a]).any() else None
            if a + b + 1 == self.total:
                return self._final(side, a, b)
            new = lv.grow(side, self.deadline, self._keep(side))
            progress.say(f"{side} level {lv.depth(side)} by jumps: {plural(len(new), 'position')} up to "
                         f"symmetry (a plan has {self.total} jumps)")
            if not len(new):
                return None

    def _final(self, side: str, a: int, b: int) -> tuple[int, int] | None:
        """The last step: successors of one side tested against the other side's level.

        This level is never stored, pruned or learned from (a position in the other level
        lies on a plan by definition), and the first hit ends the search: the largest
        level's cost is mostly saved (French d3 -> d5: the 18th level)."""
        lv = self.levels
        levels = lv.side(side)
        target = lv.level("backward", b) if side == "forward" else lv.fwd[a]
        cur = levels[-1]
        for lo in range(0, len(cur), SLICE):
            self.deadline.check()
            nxt = lv.expand(cur[lo:lo + SLICE], reverse=side == "backward")
            hit = nxt[lv.kernel.member(target, nxt)]
            if len(hit):
                levels.append(hit[:1].copy())
                return (a + 1, b) if side == "forward" else (a, b + 1)
        return None

    def plan(self, a: int, b: int) -> tuple[int, ...]:
        """The plan through a meeting position, walked back through the levels."""
        lv = self.levels
        mid = lv.fwd[a][lv.kernel.member(lv.level("backward", b), lv.fwd[a])]
        return lv.walk(lv.kernel.ints(mid[:1])[0], a, b)[1]

    def record(self) -> dict[str, Any]:
        """What a re-run needs to reproduce this search: pagodas per side and level sizes."""
        names = self.board.names
        lv = self.levels
        return {
            "self_dual": self.self_dual,
            "symmetries": len(lv.group),
            "pagodas": {side: [{"weights": dict(zip(names, w, strict=True)), "floor": floor,
                                "levels": [first, last]}
                               for w, floor, first, last in pg.items] for side, pg in self.pagodas.items()},
            "forward_levels": [len(x) for x in lv.fwd],
            "backward_levels": [] if self.self_dual else [len(x) for x in lv.side("backward")],
        }


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    """The exhaustive search by jumps: in memory while the levels fit, on disk as
    ``config.disk`` says (``planners.ondisk``)."""
    return ondisk.levels(problem, deadline, config, "jumps", NAME, _in_memory)


def on_disk(problem: Problem, root: Path, **options) -> Result:
    """The search by jumps with its levels on disk in ``root`` (``planners.ondisk.on_disk``,
    its options)."""
    return ondisk.on_disk(problem, root, kind="jumps", name=NAME, **options)


def _in_memory(problem: Problem, deadline: Deadline, config: Config) -> Result:
    """The exhaustive search by jumps: a plan, a proof, or unknown."""
    t0 = time.perf_counter()
    search = Layers(problem, deadline)
    try:
        meeting = search.run()
    except Timeout as exc:
        if config.disk is not None and isinstance(exc, MemoryBudget):
            raise  # ``ondisk.levels`` goes on with the levels on disk
        lv = search.levels
        why = str(exc) or "time limit"
        return Result(Status.UNKNOWN, problem, NAME, stats=_stats(search, t0),
                      detail=f"{why}: {len(lv.fwd) - 1} forward + {max(0, len(lv.bwd or []) - 1)} "
                      f"backward levels of {search.total} searched")
    stats = _stats(search, t0)
    if meeting is None:
        record = search.record()
        evidence = {k: record[k] for k in ("pagodas", "forward_levels", "backward_levels", "self_dual")}
        return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.EXHAUSTED, stats=stats,
                      certificate=certificate(problem, "exhaustive", evidence),
                      detail=f"breadth-first search by jumps with {stats['pagodas']} learned pagodas "
                      "met no plan: every position on one was ruled out")
    return Result(Status.SOLVED, problem, NAME, plan=search.plan(*meeting), stats=stats)


def _stats(search: Layers, t0: float) -> Stats:
    lv = search.levels
    return {
        "search_s": round(time.perf_counter() - t0, 3),
        "forward_levels": [len(x) for x in lv.fwd],
        "backward_levels": [len(x) for x in lv.bwd or []],
        "self_dual": search.self_dual,
        "pagodas": sum(len(p.items) for p in search.pagodas.values()),
        "lp_calls": search.lp_calls,
        "lp_s": round(search.lp_s, 2),
        "positions": sum(map(len, lv.fwd)) + sum(map(len, lv.bwd or [])),
    }
