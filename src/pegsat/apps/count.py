"""``pegsat count``: the game tree of a problem in exact numbers, level by level.

From the start, one level per jump, in the compiled core (``engine.kernel``), with positions
up to the problem's symmetries (the board symmetries fixing its start and goal):

- **reachable**: the positions after k jumps, as classes (one per orbit; OEIS A112737 counts
  these for the English central game) and raw (each class weighs its orbit's size, |G| over
  the number of symmetries fixing it);
- **alive**: the reachable positions from which the goal can still be reached (A112738),
  found backwards: a goal position is alive, and so is a position with an alive successor;
  computed by stepping back from the alive set, which is small, not by testing every edge;
- **winning sequences** and **games**: for each class, T = the number of jump sequences from
  the start ending anywhere in that class, pushed forward along the jumps (for a class's
  representative p and each jump from it to q, T[class of q] += T[class of p]: every member
  of p's class has the same number of jumps into q's class). The winning sequences are the
  sum of T over goal classes; the games (played until no jump is left) over the classes
  with no jump.

T exceeds 64 bits (the English games), so it is carried exactly modulo 2**64 (numpy's uint64
wraps) beside a float64 estimate; the float fixes which multiple of 2**64 is meant. Positive
sums lose at most a relative 2**-53 per addition, so after L levels of at most J additions
the estimate is within (1 + 2**-53)**(J L) - 1 < 1e-9 of the truth, and the reconstruction is
exact while 2e-9 * value < 2**63, i.e. below about 4e27; beyond, count refuses rather than
guess.

Boards of at most 64 holes (one word per position).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..deadline import Deadline, Timeout
from ..engine.bitboard import mirror, stabilizer
from ..engine.kernel import kernel, words
from ..errors import PegsatError, Unknown
from ..files import plural
from ..limits import MemoryBudget, memory_budget
from ..model.problem import Problem, goal_positions
from ..process import cores

U64 = np.uint64
SLICE = 1 << 20  # parents per slice: bounds the successor arrays (8 bytes each, ~10 per parent)
KEEP_BYTES = 1 << 30  # a level's successors are kept for the push up to this size
TOL = 1e-9
LIMIT = 4e27


class Unfinished(Unknown):
    """A limit (time, the memory budget, memory refused) came first: the levels finished are
    the facts reported; no total is. ``budget``: the limit was the memory budget."""

    def __init__(self, message: str, facts: dict | None = None, budget: bool = False) -> None:
        super().__init__(message, facts)
        self.budget = budget


@dataclass(frozen=True)
class Level:
    jumps: int
    pegs: int
    classes: int
    positions: int
    alive_classes: int
    alive_positions: int
    dead_classes: int  # no jump left
    dead_positions: int


@dataclass(frozen=True)
class Census:
    problem: Problem
    symmetries: int
    levels: tuple[Level, ...]
    winning: int  # jump sequences from the start to a goal position
    games: int  # jump sequences from the start until no jump is left
    seconds: float
    peak_bytes: int

    def total(self, field: str) -> int:
        """The sum of one ``Level`` field over every level."""
        return sum(getattr(lv, field) for lv in self.levels)

    def to_dict(self) -> dict:
        """The census as plain JSON values (``to_json``)."""
        return self.to_json()

    def to_json(self) -> dict:
        """The census as ``count --json`` prints it."""
        fields = ("classes", "positions", "alive_classes", "alive_positions", "dead_classes",
                  "dead_positions")
        return {"problem": self.problem.describe(), "symmetries": self.symmetries,
                "levels": [lv.__dict__ for lv in self.levels],
                "totals": {f: self.total(f) for f in fields},
                "winning_sequences": self.winning, "games": self.games, "seconds": round(self.seconds, 3)}

    def table(self) -> list[str]:
        """The census as ``count`` prints it, a line each."""
        head = (f"{'jumps':>5} {'pegs':>4} {'reachable':>12} {'(raw)':>14} {'alive':>11} {'(raw)':>13} "
                f"{'no jump left':>12} {'(raw)':>13}")
        out = [f"{self.problem.describe()}  (positions up to {self.symmetries} symmetries; "
               "raw: every position)", head, "-" * len(head)]
        for lv in self.levels:
            out.append(f"{lv.jumps:>5} {lv.pegs:>4} {lv.classes:>12,} {lv.positions:>14,} "
                       f"{lv.alive_classes:>11,} {lv.alive_positions:>13,} {lv.dead_classes:>12,} "
                       f"{lv.dead_positions:>13,}")
        out.append("-" * len(head))
        out.append(f"{'total':>10} {self.total('classes'):>12,} {self.total('positions'):>14,} "
                   f"{self.total('alive_classes'):>11,} {self.total('alive_positions'):>13,} "
                   f"{self.total('dead_classes'):>12,} {self.total('dead_positions'):>13,}")
        out.append(f"winning jump sequences (start to goal): {self.winning:,}")
        out.append(f"games (jump sequences until no jump is left): {self.games:,}")
        out.append(f"{self.seconds:.1f} s")
        return out


def exact(mod: int, approx: float) -> int:
    """The integer that is ``mod`` modulo 2**64 and within TOL of ``approx``."""
    if approx < 2.0**62:
        return int(mod)
    if approx > LIMIT:
        raise PegsatError(f"count: a total near {approx:.3g} is beyond the exact range (about 4e27)")
    m = round((approx - mod) / 2.0**64)
    value = int(mod) + m * (1 << 64)
    if abs(value - approx) > TOL * approx + 1:
        raise PegsatError("count: the exact reconstruction failed (estimate and residue disagree)")
    return value


def count(problem: Problem, deadline: Deadline | None = None,
          progress: Callable[[str], None] | None = None) -> Census:
    """The census of ``problem``; past ``deadline`` or the memory budget, ``Unfinished``
    (exit 20) with the positions of each level finished so far."""
    board = problem.board
    if problem.special is not None:
        raise PegsatError("count does not handle the special-peg rule")
    if words(board) != 1:
        raise PegsatError(f"count: boards of at most 64 holes ({board.name} has {board.n})")
    threads = cores()
    with ThreadPoolExecutor(threads) as pool:
        sweep = _Sweep(problem, pool, threads, deadline or Deadline(), progress)
        try:
            return sweep.run()
        except (Timeout, MemoryError) as exc:
            why = ("the time limit" if type(exc) is Timeout else "the memory budget"
                   if isinstance(exc, MemoryBudget) else "the system's memory")
            done = sweep.done
            raise Unfinished(f"{why} came before the count was complete; {len(done)} levels by jumps "
                             "were finished, no total is reported",
                             {"levels_finished": len(done), "classes_per_level": done,
                              "positions_per_level": sweep.raw},
                             budget=isinstance(exc, MemoryBudget)) from None


def count_or_spill(problem: Problem, deadline: Deadline | None = None,
                   progress: Callable[[str], None] | None = None, workers: int = 2) -> Any:
    """``count`` while its levels fit the memory budget; past it, the reachable positions
    go on out of core (``apps.reach``, ``workers`` local Dask workers) in a new temporary
    directory, removed once the census is complete (kept, and named, when a limit stops it:
    ``count --spill`` there goes on). Out of core is the census forward only: which positions
    still win, the winning sequences and the games need the levels backwards, in memory."""
    import shutil
    import tempfile
    from pathlib import Path

    from .reach import reach

    deadline = deadline or Deadline()
    try:
        return count(problem, deadline, progress)
    except Unfinished as exc:
        if not exc.budget:
            raise
        why = str(exc)
    root = Path(tempfile.mkdtemp(prefix="pegsat-levels-"))  # the levels in memory are gone by now
    if progress is not None:
        progress(f"{why}: going on with the reachable positions on disk in {root} (the positions "
                 "still winning, winning sequences and games are counted in memory only)")
    got = reach(problem, root, workers=workers, deadline=deadline, progress=progress)
    shutil.rmtree(root, ignore_errors=True)
    return got


class _Sweep:
    """One forward sweep by jumps carrying T, then the backward pass for the alive sets.

    Every slice of a level checks the deadline and the memory budget (the levels held, and
    the slices' successors found so far), so a limit stops a level part way, not after it."""

    def __init__(self, problem: Problem, pool: ThreadPoolExecutor, threads: int, deadline: Deadline,
                 progress: Callable[[str], None] | None) -> None:
        self.problem, self.pool, self.deadline, self.progress = problem, pool, deadline, progress
        self.k = kernel(problem.board, tuple(tuple(p) for p in stabilizer(problem)))
        self.threads = threads
        self.peak = 0
        self.budget = memory_budget()
        self.held = 0  # bytes of the levels kept
        self.done: list[int] = []  # classes of each level finished
        self.raw: list[int] = []  # the raw positions they stand for (what published tables count)

    def account(self, extra: int) -> None:
        """Deadline and memory budget, with ``extra`` bytes of a level under way."""
        self.deadline.check()
        if self.held + extra > self.budget:
            raise MemoryBudget(f"the count would outgrow its memory budget "
                               f"({self.budget / (1 << 30):.1f} GB, PEGSAT_MEMORY_GB)")

    def keep(self, level: np.ndarray) -> None:
        self.held += level.nbytes
        self.done.append(len(level))
        self.raw.append(int(self.k.orbit_sizes(level).sum()))

    def slices(self, n: int) -> list[slice]:
        """Slices of a level: at most SLICE long, and at least one per thread."""
        size = min(SLICE, max(1, -(-n // self.threads)))
        return [slice(lo, lo + size) for lo in range(0, n, size)]

    def next_level(self, cur: np.ndarray, parts: list[slice], keep: bool = False):
        """The next level (sorted, canonical); with ``keep``, also each slice's successors
        in ``step`` order, for ``push`` to read instead of generating them again."""
        k = self.k
        lock = threading.Lock()
        pending = [0]  # bytes the slices have produced so far

        def one(s: slice):
            self.account(pending[0])
            kids = k.step(cur[s])
            u = k.unique(kids)
            with lock:
                pending[0] += u.nbytes + (kids.nbytes if keep else 0)
            self.account(pending[0])
            return u, (kids if keep else None)

        found = list(self.pool.map(one, parts))
        self.peak = max(self.peak, sum(u.nbytes + (0 if c is None else c.nbytes) for u, c in found))
        uniq = [u for u, _ in found]
        nxt = k.unique(np.concatenate(uniq)) if len(uniq) > 1 else uniq[0]
        return (nxt, [c for _, c in found]) if keep else nxt

    def push(self, cur, t_mod, t_apx, nxt, parts: list[slice], kids, degree) -> tuple[np.ndarray, np.ndarray]:
        """T one jump on: each thread pushes its share of the slices into its own counts
        (the core releases the GIL), then the threads' counts are summed. One pair of
        count arrays per thread, not per slice: a wide level has dozens of slices."""
        k = self.k

        def one(t: int) -> tuple[np.ndarray, np.ndarray]:
            out = (np.zeros(len(nxt), dtype=U64), np.zeros(len(nxt)))
            for i in range(t, len(parts), self.threads):
                self.deadline.check()
                s = parts[i]
                k.push(cur[s], t_mod[s], t_apx[s], nxt, kids[i], degree[s], out=out)
            return out

        pushed = list(self.pool.map(one, range(min(self.threads, len(parts)))))
        n_mod, n_apx = pushed[0]
        for m, a in pushed[1:]:
            n_mod += m
            n_apx += a
        return n_mod, n_apx

    def run(self) -> Census:
        t0 = time.perf_counter()
        problem, k, deadline = self.problem, self.k, self.deadline
        goal = problem.goal
        levels = [k.unique(k.canon(k.array([problem.start])))]
        self.keep(levels[0])
        t_mod, t_apx = np.ones(1, dtype=U64), np.ones(1)
        win_mod, win_apx, games_mod, games_apx = 0, 0.0, 0, 0.0
        dead_masks = []
        while True:
            deadline.check()
            cur = levels[-1]
            is_goal = k.goals(cur, goal)
            win_mod = (win_mod + int(np.sum(t_mod[is_goal]))) % (1 << 64)
            win_apx += math.fsum(t_apx[is_goal])
            degree = k.degree(cur)
            dead = degree == 0
            dead_masks.append(dead)
            games_mod = (games_mod + int(np.sum(t_mod[dead]))) % (1 << 64)
            games_apx += math.fsum(t_apx[dead])
            if dead.all():
                break
            parts = self.slices(len(cur))
            keep = int(degree.sum()) * 8 <= KEEP_BYTES  # else push generates them again
            found = self.next_level(cur, parts, keep=keep)
            nxt, kids = found if keep else (found, [None] * len(parts))
            deadline.check()
            t_mod, t_apx = self.push(cur, t_mod, t_apx, nxt, parts, kids, degree)
            del kids, found
            levels.append(nxt)
            self.keep(nxt)
            if self.progress is not None:
                self.progress(f"level {len(levels) - 1}: {plural(len(nxt), 'position')} up to symmetry, "
                              f"{self.raw[-1]:,} raw ({time.perf_counter() - t0:.1f} s)")
        alive = _alive(k, levels, goal, deadline)
        G = len(k.group)
        out = []
        for j, (lv, ok, dead) in enumerate(zip(levels, alive, dead_masks, strict=True)):
            orbit = k.orbit_sizes(lv)
            out.append(Level(j, problem.pegs - j, len(lv), int(orbit.sum()), int(ok.sum()),
                             int(orbit[ok].sum()), int(dead.sum()), int(orbit[dead].sum())))
        held = sum(a.nbytes for a in levels) + self.peak + 16 * max(len(a) for a in levels)
        return Census(problem, G, tuple(out), exact(win_mod, win_apx), exact(games_mod, games_apx),
                      time.perf_counter() - t0, held)


def solvable(problem: Problem, deadline: Deadline | None = None) -> np.ndarray:
    """Every position reachable from the start that can still reach the goal, as sorted
    canonical positions under ``stabilizer(problem)`` (the set ``hint`` answers from). A
    self-dual game (``engine.bitboard.mirror``) is swept forward to its middle only."""
    deadline = deadline or Deadline()
    if problem.special is not None or words(problem.board) != 1:
        raise PegsatError("the solvable set needs a board of at most 64 holes and no special peg")
    goals = goal_positions(problem)
    s = mirror(problem, goals[0]) if goals is not None and len(goals) == 1 else None
    total = problem.pegs - goals[0].bit_count() if goals and s is not None else 0  # jumps in a game
    m = total // 2
    threads = cores()
    with ThreadPoolExecutor(threads) as pool:
        sweep = _Sweep(problem, pool, threads, deadline, None)
        k, levels = sweep.k, [sweep.k.unique(sweep.k.canon(sweep.k.array([problem.start])))]
        while s is None or len(levels) <= total - m:  # self-dual: to the middle only
            deadline.check()
            cur = levels[-1]
            if (k.degree(cur) == 0).all():
                break
            levels.append(sweep.next_level(cur, sweep.slices(len(cur))))
            sweep.keep(levels[-1])
    if s is None or len(levels) <= total - m:  # not self-dual, or the game ended early
        alive = _alive(k, levels, problem.goal, deadline)
        return k.unique(np.concatenate([lv[ok] for lv, ok in zip(levels, alive, strict=True)]))

    # Self-dual: the positions j jumps before the goal are s(~F_j). The middle level m is
    # alive where it meets s(~F_{total-m}); below it, a position is alive when one of its
    # children is; above it, the alive positions are s(~alive_{total-i}).
    def mirrored(lv: np.ndarray) -> np.ndarray:
        return k.unique(k.canon(k.permute(k.complement(lv), s)))

    alive = [levels[m][k.member(mirrored(levels[total - m]), levels[m])]]
    for j in range(m - 1, -1, -1):
        deadline.check()
        lv = levels[j]
        alive.append(lv[k.member(k.unique(k.step(alive[-1], reverse=True)), lv)])
    alive.reverse()  # alive[i] for i = 0 .. m
    upper = [mirrored(alive[total - i]) for i in range(m + 1, total + 1)]
    return k.unique(np.concatenate(alive + upper))


def _alive(k, levels: list[np.ndarray], goal, deadline: Deadline) -> list[np.ndarray]:
    """Per level, which classes can still reach the goal (stepping back from the alive set)."""
    out: list[np.ndarray] = [np.zeros(0, dtype=bool)] * len(levels)
    above = None  # the alive classes of the level after
    for j in range(len(levels) - 1, -1, -1):
        deadline.check()
        lv = levels[j]
        mask = k.goals(lv, goal)
        if above is not None and len(above):
            before = k.unique(k.step(above, reverse=True))
            mask |= k.member(before, lv)
        out[j] = mask
        above = lv[mask]
    return out
