"""SAT planner: the time-indexed encoding solved by a python-sat solver (CaDiCaL by default).

With parallel steps (the default) one call at the full horizon decides the problem, whatever
the goal, since every plan length fits; before it, short horizons (fewer parallel steps than
jumps) are tried with small budgets, Madagascar-style, because they often find a plan much
faster. Only the full horizon can answer "unsolvable". With sequential steps and an open peg
count the formula allows every length and the lengths are tried shortest first on one
incremental solver with assumptions (``Formula.length_assumptions``), so learnt clauses
carry over from one horizon to the next.

The solver runs in a forked child process that the parent kills at the deadline or on
Ctrl-C: python-sat's CaDiCaL and Kissat cannot be interrupted from Python (measured here:
``interrupt()`` raises NotImplementedError for both), and a time limit must hold for every
solver. A killed solve is "unknown", with the horizons already refuted reported.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
from typing import Any

from ..encoder import encode
from ..errors import PegsatError
from ..problem import Problem
from .base import Config, Deadline, Proof, Result, Status, die_with_parent, horizon_schedule

NAME = "sat"


def solver_names() -> list[str]:
    from pysat.solvers import SolverNames

    return sorted(k for k in vars(SolverNames) if not k.startswith("_"))


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    job = start(problem, config)
    try:
        return job.wait(deadline.remaining())
    finally:
        job.stop()


class SatJob:
    """An encoded problem being solved in child processes (see the module docstring).

    With parallel steps it first tries ``horizon_schedule``'s short horizons, each attempt
    killed after its budget, then the full horizon for the rest of the time."""

    def __init__(self, problem: Problem, config: Config) -> None:
        if config.solver not in solver_names():
            raise PegsatError(
                f"unknown SAT solver {config.solver!r}; python-sat has {', '.join(solver_names())}"
            )
        self.problem, self.config = problem, config
        self.attempts = horizon_schedule(problem, config)
        self.stats: dict[str, Any] = {"encode_s": 0.0, "solver": config.solver, "attempts": []}
        self.t1 = time.perf_counter()
        self.index = -1
        self._start_next()

    def _start_next(self) -> None:
        self.index += 1
        steps, _ = self.attempts[self.index]
        t0 = time.perf_counter()
        self.formula = f = encode(self.problem, self.config.encode, steps=steps)
        cnf = f.to_cnf()
        if f.variable_length and self.config.encode.steps == "sequential":
            self.lengths = list(f.lengths)
            assumptions = [f.length_assumptions(n) for n in self.lengths]
        else:
            self.lengths = [f.horizon]
            assumptions = [[]]
        self.stats["encode_s"] += time.perf_counter() - t0
        self.stats.update(variables=cnf.nv, clauses=len(cnf.clauses), horizon=f.horizon)
        self.stats["attempts"].append(f.horizon)
        self.started = time.monotonic()
        self.proc = SolverProcess(self.config.solver, cnf.clauses, assumptions)

    def _final(self, timeout: float | None) -> tuple[str, Any] | None:
        """Advance through the schedule for up to ``timeout`` seconds; the last answer or None."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            last = self.index == len(self.attempts) - 1
            budget = self.attempts[self.index][1]
            waits = [] if end is None else [max(0.0, end - time.monotonic())]
            if budget is not None:
                waits.append(max(0.0, self.started + budget - time.monotonic()))
            got = self.proc.poll(min(waits) if waits else None)
            if got is not None and (got[0] == "sat" or last):
                return got
            if got is None and (budget is None or time.monotonic() < self.started + budget):
                return None  # the caller's time is up
            self.proc.stop()  # a short horizon without a plan: it proves nothing, go on
            self._start_next()

    def poll(self) -> bool:
        return self._final(0.0) is not None

    def wait(self, timeout: float | None) -> Result:
        got = self._final(timeout)
        kind, payload = got if got is not None else ("timeout", list(self.proc.refuted))
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
        return Result(Status.ERROR, problem, NAME, detail=str(payload), stats=stats)

    def stop(self) -> None:
        self.proc.stop()


def start(problem: Problem, config: Config) -> SatJob:
    return SatJob(problem, config)


def _child(conn, name: str, clauses, assumption_sets, proof_path: str | None = None,
           parent: int = 0) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C means
    die_with_parent(parent)
    try:
        from pysat.solvers import Solver

        with Solver(name=name, bootstrap_with=clauses, with_proof=proof_path is not None) as s:
            for i, assumptions in enumerate(assumption_sets):
                if s.solve(assumptions=assumptions):
                    conn.send(("sat", (i, s.get_model())))
                    return
                conn.send(("refuted", i))
            if proof_path is not None:
                from pathlib import Path

                from ..files import write_atomic

                proof = s.get_proof() or []
                write_atomic(Path(proof_path), lambda fh: fh.writelines(line + "\n" for line in proof))
        conn.send(("unsat", None))
    except Exception as exc:  # reported to the parent as an error result
        conn.send(("error", f"{type(exc).__name__}: {exc}"))


class SolverProcess:
    """A python-sat solver in a forked child; killed by ``stop`` (deadline, Ctrl-C, race)."""

    def __init__(self, name: str, clauses, assumption_sets, proof_path: str | None = None) -> None:
        """``proof_path``: on UNSAT the child writes the solver's DRAT proof there."""
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        self.conn, child = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_child, daemon=True,
                                args=(child, name, clauses, assumption_sets, proof_path, os.getpid()))
        self.proc.start()
        child.close()
        self.refuted: list[int] = []
        self.final: tuple[str, Any] | None = None

    def poll(self, timeout: float | None) -> tuple[str, Any] | None:
        """The final answer if it arrives within ``timeout`` seconds (None: wait)."""
        end = None if timeout is None else time.monotonic() + timeout
        while self.final is None:
            wait = None if end is None else max(0.0, end - time.monotonic())
            if not self.conn.poll(wait):
                return None
            try:
                kind, payload = self.conn.recv()
            except EOFError:
                self.final = ("error", f"solver process died (exit code {self.proc.exitcode})")
                break
            if kind == "refuted":
                self.refuted.append(payload)
            else:
                self.final = (kind, payload)
        return self.final

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()
