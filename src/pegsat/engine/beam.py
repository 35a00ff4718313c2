"""Beam search by jumps toward exact backward levels: plans where depth-first search drowns.

The goal's side is built exactly, by jumps (``engine.levels``): backward levels ``B_0 ..
B_m`` (positions ``j`` jumps before a goal position), until one holds more than
``BACK_LIMIT`` positions. The start's side is a beam: forward level ``d`` is the distinct
children (one per orbit of the problem's symmetries) of the kept positions of level
``d - 1``, less those a pagoda rules out (they weigh below its floor: no goal is reachable);
each new level is tested against the backward level of its peg count, and a common position
is a plan (read back through the kept levels and the backward levels, ``Levels.walk``). Of a
level only ``width`` positions are kept, the best by a score (``Kernel.score``): fewest
*isolated* pegs (no peg beside them along a line: they cannot move until one comes), then
the least summed squared distance of the pegs from the goal (far pegs first, as in
``dfs.far_first``), ties broken by random noise that differs per attempt.

A beam is incomplete: one that dies out or reaches the goal's peg count without meeting
proves nothing, and its answer is "unknown" (never "unsolvable"). Beam search is the
textbook way to trade completeness for reach; the score was chosen by measurement on the
German board, where the depth-first search left e2 -> e2, d1 -> a4 and e1 <-> e4 open after
150-400 s each: a width of 100,000 finds each in about 8 s, 30,000 only some of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..deadline import Deadline, Timeout
from ..model.problem import Problem, goal_positions
from .bitboard import stabilizer
from .dfs import Pagoda, goal_distances
from .levels import Levels, MemoryBudget

BACK_LIMIT = 2_000_000  # the goal's side grows while its last level is smaller
FIRST_WIDTH, MAX_WIDTH = 25_000, 1 << 20  # the ladder's widths (German: 1 s and 40 s a beam)
ISO = 4000  # score of one isolated peg ...
NOISE = 2000  # ... against the noise breaking ties, and squared distances (German: up to 80 a peg)


class Beam:
    """One problem's beam: the backward levels are built once (over as many deadlines as it
    takes: a level cut off is built again, the ones before it kept), then any number of
    attempts."""

    def __init__(self, problem: Problem, pagodas: Sequence[Pagoda]) -> None:
        self.problem = problem
        goals = goal_positions(problem)  # None: too many to list; the goal is tested instead
        self.levels = Levels(problem.board, stabilizer(problem), (problem.start,), goals)
        self.weights = [p.weights for p in pagodas]
        self.floors = [p.floor for p in pagodas]
        dist = goal_distances(problem)
        self.dist = [round(x) for x in dist] if dist is not None else [0] * problem.board.n
        self.counts: list[set[int]] = []
        self.ready = goals is None

    def _backward(self) -> None:
        lv, k = self.levels, self.levels.kernel
        jumps = self.problem.pegs - self.problem.goal.min_pegs
        back = lv.side("backward")
        while len(back[-1]) and len(back[-1]) <= BACK_LIMIT and len(back) <= jumps:
            lv.grow("backward", Deadline())
        # peg counts per backward level, to test a forward level only against its own
        self.counts = [set(np.unique(k.popcount(b)).tolist()) for b in back]
        self.ready = True

    def _meeting(self, pegs: int):
        """(a mask over positions of ``pegs`` pegs: true where one meets a backward level, the
        indices of the levels it tests), or (None, []) when no backward level holds positions
        of that many pegs."""
        lv, k = self.levels, self.levels.kernel
        if lv.bwd is None:
            return (lambda part: k.goals(part, self.problem.goal)), [0]
        js = [j for j, c in enumerate(self.counts) if pegs in c]
        if not js:
            return None, []

        back = lv.side("backward")

        def meets(part: np.ndarray) -> np.ndarray:
            hit = np.zeros(len(part), dtype=bool)
            for j in js:
                hit |= k.member(back[j], part)
            return hit
        return meets, js

    def _walk(self, pos: np.ndarray, i: int, js: list[int]) -> tuple[int, tuple[int, ...]]:
        lv, k = self.levels, self.levels.kernel
        p = k.ints(pos[:1])[0]
        j = next(j for j in js if lv.bwd is None or lv.contains("backward", j, p))
        return lv.walk(p, i, j)

    def attempt(self, width: int, seed: int, deadline: Deadline) -> tuple[int, tuple[int, ...]] | None:
        """(start, plan) from one beam of ``width`` positions, or None (it died out, or
        reached the goal's peg count without meeting). Raises ``Timeout``."""
        lv, k = self.levels, self.levels.kernel
        if not self.ready:
            self._backward()
        lv.fwd = [lv.level_of(lv.starts)]
        rng = np.random.default_rng(seed)
        pegs, low = self.problem.pegs, self.problem.goal.min_pegs

        def pagodas(part: np.ndarray) -> np.ndarray:
            return k.keep(part, self.weights, self.floors)[0]

        def narrow(new: np.ndarray, depth: int) -> np.ndarray:
            if len(new) <= width:
                return new
            score = k.score(new, self.dist, ISO) + rng.integers(0, NOISE, len(new))
            return k.unique(new[np.argpartition(score, width)[:width]], own=True)

        meets, js = self._meeting(pegs)
        if meets is not None and meets(lv.fwd[0]).any():
            return self._walk(lv.fwd[0], 0, js)
        while len(lv.fwd[-1]) and pegs - (len(lv.fwd) - 1) > low:
            meets, js = self._meeting(pegs - len(lv.fwd))
            hits, met = lv.grow_until("forward", deadline, narrow, meets, pagodas)
            if met:
                return self._walk(hits, len(lv.fwd), js)
        return None


class Ladder:
    """Beams of doubling width (iterative broadening), resumable across a caller's turns: an
    attempt cut off by the deadline is tried again at the same width next time, one that
    failed gives way to twice its width and a new seed; past ``MAX_WIDTH`` (or the levels'
    memory budget) the ladder is ``spent``."""

    def __init__(self, problem: Problem, pagodas: Sequence[Pagoda], width: int | None = None) -> None:
        self.problem, self.pagodas = problem, pagodas
        self.width, self.seed = width or FIRST_WIDTH, 0
        self.beam: Beam | None = None
        self.spent = False

    def run(self, deadline: Deadline) -> tuple[int, tuple[int, ...]] | None:
        """(start, plan), or None (the deadline passed, or the ladder is spent)."""
        try:
            if self.beam is None:
                self.beam = Beam(self.problem, self.pagodas)
            while not self.spent:
                found = self.beam.attempt(self.width, self.seed, deadline)
                if found is not None:
                    return found
                self.width, self.seed = 2 * self.width, self.seed + 1
                self.spent = self.width > MAX_WIDTH
        except MemoryBudget:
            self.spent = True
        except Timeout:
            pass
        return None
