"""Driving the compiled depth-first search (``engine.dfs``) to an answer: restarts, lanes and
a portfolio of threads, with a typed ``Outcome``.

- **restarts**: a first descent in far-first order (the jumping peg farthest from the goal
  first) for ``PROBE`` nodes, then descents with random tie-breaking on Luby budgets
  (``BASE`` nodes a unit); the dead table carries over, so nothing proven is lost and a
  descent that exhausts the tree is a proof. From the second descent on, each thread runs
  ``LANES`` descents interleaved (one lane's memory misses overlap another's work).
- **a portfolio**: ``workers`` threads (the core releases the GIL), each with its own random
  order, share one dead table (one-word positions; wider ones give each its own). The first
  answer wins and stops the others within a slice.

Runs are repeatable: the orders come from a fixed seed; ``PEGSAT_SEED=N`` shifts it (and
randomises the first descent too), for measuring run-to-run spread.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from ..deadline import Deadline, Timeout
from ..limits import memory_budget
from ..model.problem import Problem
from ..model.result import Stats, summed
from . import dfs as D
from .kernel import words

PROBE = 400_000  # nodes of the first descent with pagodas (deterministic order)
BASE = 100_000  # nodes per Luby unit of the later descents (per lane)
#: descents run at once in each thread from the second on; more lanes' state crowds the
#: caches (measured by bench/engine.py's node-rate rows)
LANES = 2
SEED = 20261122


class Answer(Enum):
    FOUND = "found"  # a plan (to be replayed by the caller's verifier)
    EXHAUSTED = "exhausted"  # every reachable position visited: a proof
    UNKNOWN = "unknown"  # the deadline came first
    MEMORY = "memory"  # the system refused memory: a limit, "unknown"
    ERROR = "error"  # a failure inside (never a verdict)


@dataclass(frozen=True)
class Outcome:
    answer: Answer
    plan: tuple[int, ...] | None = None
    stats: Stats = field(default_factory=lambda: Stats())
    message: str = ""

    @property
    def final(self) -> bool:
        return self.answer in (Answer.FOUND, Answer.EXHAUSTED)


def table_bits(problem: Problem) -> int:
    """Dead-table size (2**bits slots): 32 MB up to 36 holes, 512 MB (one word) or 256 MB
    (two words) above, never more than a quarter of the memory budget."""
    bits = 22 if problem.board.n <= 36 else 26 if words(problem.board) == 1 else 24
    while bits > 16 and (8 * words(problem.board)) << bits > memory_budget() // 4:
        bits -= 1
    return bits


def descend(problem: Problem, pagodas: list[D.Pagoda], table: np.ndarray, seed: int, deadline: Deadline,
            survivors: Sequence[int] = ()) -> Outcome:
    """Restarts until a plan, a proof or the deadline. ``survivors``: the holes a one-peg goal
    may end on, each pagoda weighed against each (``analysis.pagoda.survivors_of``)."""
    search = D.DepthFirst(problem, table=table, table_bits=table_bits(problem), pagodas=pagodas,
                          survivors=survivors)
    shift = int(os.environ.get("PEGSAT_SEED", "0")) if os.environ.get("PEGSAT_SEED", "").isdigit() else 0
    rng = random.Random(SEED + shift * 1009 + seed)
    i = 0
    while True:
        order = D.far_first(problem) if i == 0 and seed == 0 and not shift else D.far_first(problem, rng)
        budget = PROBE if i == 0 else BASE * D.luby(i)
        lanes = [D.far_first(problem, rng) for _ in range(LANES - 1)] if i > 0 else []
        try:
            code = search.attempt(order, budget * (1 + len(lanes)), deadline.check, lanes)
        except Timeout:
            return Outcome(Answer.UNKNOWN, stats=search.stats())
        if code == D.FOUND:
            return Outcome(Answer.FOUND, search.plan(), search.stats())
        if code == D.EXHAUSTED:
            return Outcome(Answer.EXHAUSTED, stats=search.stats())
        i += 1


def portfolio(problem: Problem, pagodas: list[D.Pagoda], workers: int, deadline: Deadline,
              table: np.ndarray | None, survivors: Sequence[int] = ()) -> Outcome:
    """``workers`` descents with different orders on threads; the first answer wins.
    ``table``: the dead table they share (one-word positions: a slot is read and written
    atomically), or None (each its own: a two-word slot could be read half-written)."""
    won = threading.Event()
    mine = deadline.stopping(won.is_set)

    def one(seed: int) -> Outcome:
        try:
            own = table if table is not None else D.new_table(table_bits(problem), words(problem.board))
            out = descend(problem, pagodas, own, seed, mine, survivors)
        except MemoryError:  # a limit: this member knows nothing
            out = Outcome(Answer.MEMORY, message="out of memory")
        except Exception as exc:  # one member's failure is reported, not raised past the race
            out = Outcome(Answer.ERROR, message=f"{type(exc).__name__}: {exc}")
        if out.final:
            won.set()
        return out

    with ThreadPoolExecutor(workers) as pool:
        futures = [pool.submit(one, seed) for seed in range(workers)]
        try:
            answers = [f.result() for f in futures]
        except BaseException:  # Ctrl-C: stop the members before leaving
            won.set()
            raise
    for i, a in enumerate(answers):
        if a.final:
            return Outcome(a.answer, a.plan, {**a.stats, "winner": i})
    errors = [a for a in answers if a.answer is Answer.ERROR]
    if errors and len(errors) == len(answers):
        return errors[0]
    total: Stats = {}
    for a in answers:
        total = summed(total, a.stats)
    memory = [a for a in answers if a.answer is Answer.MEMORY]
    return Outcome(Answer.MEMORY if memory else Answer.UNKNOWN, stats=total,
                   message=memory[0].message if memory else "")
