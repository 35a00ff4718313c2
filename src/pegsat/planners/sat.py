"""SAT planner: the time-indexed encoding solved by a python-sat solver (CaDiCaL by default).

With parallel steps (the default) one call at the full horizon decides the problem, whatever
the goal, since every plan length fits; before it, short horizons (fewer parallel steps than
jumps) are tried with small budgets, Madagascar-style, because they often find a plan much
faster. Only the full horizon can answer "unsolvable". With sequential steps and an open peg
count the formula allows every length and the lengths are tried shortest first on one
incremental solver with assumptions (``Formula.length_assumptions``), so learnt clauses
carry over from one horizon to the next.

The solver runs in a child process (``process.Child``) that is killed at the deadline or on
Ctrl-C: python-sat's CaDiCaL and Kissat cannot be interrupted from Python, and a time limit
must hold for every solver. A killed solve is "unknown", with the horizons already refuted.
"""

from __future__ import annotations

import time
from typing import Any, cast

from ..deadline import Deadline
from ..encoding.encoder import encode
from ..errors import PegsatError
from ..files import clip
from ..model.problem import Problem
from ..model.result import Proof, Result, Stats, Status
from ..process import OUT_OF_MEMORY, Child, ChildDied
from .config import Config, any_problem, horizon_schedule, learned_pagodas, split_open_goals

NAME = "sat"
OPTIMAL = False  # its plans are not proven to have the fewest moves
supports = any_problem
covers_open_goal = split_open_goals


def solver_names() -> list[str]:
    """The solvers python-sat offers."""
    from pysat.solvers import SolverNames

    return sorted(k for k in vars(SolverNames) if not k.startswith("_"))


def check_solver(name: str) -> None:
    """Refuse, in one line, a name that is not a python-sat solver."""
    if name not in solver_names():
        raise PegsatError(f"unknown SAT solver {clip(name)!r}; python-sat has {', '.join(solver_names())}")


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    """The formula solved horizon by horizon by a python-sat solver in a child process."""
    job = SatJob(problem, deadline, config)
    try:
        return job.wait()
    finally:
        job.stop()


def _solve_cnf(send, name: str, clauses, assumption_sets, proof_path: str | None) -> None:
    """In the child: each assumption set in turn; ("refuted", i) as each fails, then the answer."""
    from pysat.solvers import Solver

    with Solver(name=name, bootstrap_with=clauses, with_proof=proof_path is not None) as s:
        for i, assumptions in enumerate(assumption_sets):
            if s.solve(assumptions=assumptions):
                send(("sat", (i, s.get_model())))
                return
            send(("refuted", i))
        if proof_path is not None:
            from pathlib import Path

            from ..files import write_atomic

            proof = s.get_proof() or []
            write_atomic(Path(proof_path), lambda fh: fh.writelines(line + "\n" for line in proof))
    send(("unsat", None))


class SolverProcess:
    """A python-sat solver on ``clauses`` in a child process; ``stop`` kills it."""

    def __init__(self, name: str, clauses, assumption_sets, proof_path: str | None = None) -> None:
        """``proof_path``: on UNSAT the child writes the solver's DRAT proof there."""
        self.child = Child(_solve_cnf, name, clauses, assumption_sets, proof_path)
        self.refuted: list[int] = []
        self.final: tuple[str, Any] | None = None

    def poll(self, deadline: Deadline) -> tuple[str, Any] | None:
        """The final answer if it arrives before ``deadline`` (None if it does not)."""
        while self.final is None:
            wait = deadline.poll(0.05)
            try:
                msg = self.child.receive(wait)
            except ChildDied as exc:
                self.final = ("error", str(exc))
                break
            if msg is None:
                if deadline.expired():
                    return None
                continue
            kind, payload = msg
            if kind == "refuted":
                self.refuted.append(payload)
            else:
                self.final = (kind, payload)
        return self.final

    def stop(self) -> None:
        """Kill the solver's process."""
        self.child.stop()


class SatJob:
    """An encoded problem being solved in child processes (see the module docstring).

    With parallel steps it first tries ``horizon_schedule``'s short horizons, each killed
    after its budget, then the full horizon for the rest of the time."""

    def __init__(self, problem: Problem, deadline: Deadline, config: Config) -> None:
        check_solver(config.solver)
        self.problem, self.config, self.deadline = problem, config, deadline
        self.attempts = horizon_schedule(problem, config)
        self.pagodas = learned_pagodas(problem, config, deadline)
        self.stats: Stats = {"encode_s": 0.0, "solver": config.solver, "attempts": []}
        self.t1 = time.perf_counter()
        self.index = -1
        self.refuted = 0  # the longest short horizon found UNSAT: no shorter one has a plan either
        self._start_next()

    def _start_next(self) -> None:
        self.index += 1
        while 0 < (self.attempts[self.index][0] or 0) <= self.refuted:
            self.index += 1  # a plan in fewer steps is one in more (empty steps added): refuted too
        steps, budget, seed = self.attempts[self.index]
        t0 = time.perf_counter()
        self.formula = f = encode(self.problem, self.config.encode, steps=steps, pagodas=self.pagodas)
        cnf = f.to_cnf()
        if f.variable_length and self.config.encode.steps == "sequential":
            self.lengths = list(f.lengths)
            assumptions = [f.length_assumptions(n) for n in self.lengths]
        else:
            self.lengths = [f.horizon]
            assumptions = [[]]
        self.stats["encode_s"] += time.perf_counter() - t0
        self.stats.update({"variables": cnf.nv, "clauses": len(cnf.clauses), "horizon": f.horizon})
        self.stats["attempts"].append(f.horizon)
        self.attempt = self.deadline if budget is None else self.deadline.within(budget)
        clauses = cnf.clauses
        if seed:  # a horizon tried again: the same clauses in another order
            import random

            clauses = list(clauses)
            random.Random(seed).shuffle(clauses)
        self.proc = SolverProcess(self.config.solver, clauses, assumptions)

    def _final(self, deadline: Deadline) -> tuple[str, Any] | None:
        """Advance through the schedule until ``deadline``; the last answer or None."""
        while True:
            last = self.index == len(self.attempts) - 1
            got = self.proc.poll(self.attempt.earlier(deadline))
            if got is not None and (got[0] == "sat" or last):
                return got
            if got is None and (last or not self.attempt.expired()):
                return None  # the caller's time is up
            if self.deadline.expired():
                return None
            if got is not None and got[0] == "unsat":
                self.refuted = max(self.refuted, self.formula.horizon)
            self.proc.stop()  # a short horizon without a plan proves nothing: go on
            self._start_next()

    def poll(self) -> bool:
        """True when the answer is in (without waiting)."""
        return self._final(Deadline.passed()) is not None

    def wait(self) -> Result:
        """The job's result, waiting until its deadline."""
        got = self._final(self.deadline)
        kind, payload = got if got is not None else ("timeout", list(self.proc.refuted))
        payload = cast(Any, payload)
        f, problem, stats = self.formula, self.problem, self.stats
        stats["solve_s"] = time.perf_counter() - self.t1 - stats["encode_s"]
        if kind == "sat":
            plan = f.decode({v for v in payload[1] if v > 0})
            return Result(Status.SOLVED, problem, NAME, plan=plan, stats=stats)
        lengths = self.lengths
        if kind == "unsat":
            what = (f"horizon {f.horizon}" if len(lengths) == 1
                    else f"every horizon {lengths[0]}..{lengths[-1]}")
            return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.UNSAT,
                          detail=f"UNSAT at {what} ({self.config.solver})", stats=stats)
        if kind == "timeout":
            refuted = [lengths[i] for i in payload]
            knew = f"; refuted {len(refuted)} of {len(lengths)} horizons" if refuted else ""
            return Result(Status.UNKNOWN, problem, NAME, detail=f"time limit reached{knew}",
                          stats=stats)
        status = Status.UNKNOWN if kind == OUT_OF_MEMORY else Status.ERROR
        return Result(status, problem, NAME, detail=str(payload), stats=stats)

    def stop(self) -> None:
        """Kill the job's solver."""
        self.proc.stop()
