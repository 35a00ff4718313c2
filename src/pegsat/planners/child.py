"""Run a planner in a forked child process, so that it can race others and be killed.

Used by ``auto`` to race CP-SAT against the search and the SAT solver: CP-SAT's own time limit
would also stop it, but a child can be stopped the moment another planner has answered.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
from dataclasses import replace

from ..problem import Problem
from .base import Config, Deadline, Result, Status, die_with_parent


def _child(conn, name: str, problem: Problem, config: Config, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C means
    die_with_parent(parent)
    try:
        from . import get_planner

        r = get_planner(name).solve(problem, Deadline(config.time_limit), config)
        conn.send(replace(r, problem=problem))
    except Exception as exc:  # reported to the parent as an error result
        conn.send(Result(Status.ERROR, problem, name, detail=f"{type(exc).__name__}: {exc}"))


class PlannerProcess:
    def __init__(self, name: str, problem: Problem, config: Config) -> None:
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        self.name, self.problem = name, problem
        self.conn, child = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_child, args=(child, name, problem, config, os.getpid()), daemon=True)
        self.proc.start()
        child.close()
        self.result: Result | None = None

    def poll(self, timeout: float = 0.0) -> Result | None:
        if self.result is None and self.conn.poll(timeout):
            try:
                self.result = self.conn.recv()
            except EOFError:
                self.result = Result(Status.ERROR, self.problem, self.name,
                                     detail=f"planner process died (exit code {self.proc.exitcode})")
        return self.result

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()
