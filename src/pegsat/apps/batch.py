"""Batch solving on a Dask cluster: many independent problems, results as they complete.

Jobs are lines of a file, each a problem as on the command line (``english --vacant c1
--survivor e1``, ``instances/foo.toml``, ``p01.pddl``; ``#`` starts a comment), or a board
name meaning its survey set: one single-vacancy -> single-survivor problem per symmetry orbit.

The engine is ``dask.distributed``: a ``LocalCluster`` of single-threaded worker processes by
default, or an existing scheduler. Each finished job is appended to a JSON-lines results file
at once (flushed and fsynced), so a killed batch loses only the jobs in flight; a rerun skips
every job already answered solved, unsolvable or error (unknown ones are tried again). A job
whose worker dies is reported unknown ("worker died"): the scheduler is told not to retry
tasks on other workers (``allowed-failures = 0``), and nothing but a finished proof is ever
recorded as unsolvable. Each job's own ``--time-limit`` bounds it inside the worker.

Cores are not oversubscribed: a job may use ``cores // workers`` processes (the search's
portfolio, CP-SAT's workers; at least one) on a local cluster, and one on an external
scheduler (give its workers one thread per core).
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import PegsatError
from ..files import JsonLines, read_jsonl, read_text
from ..model.options import ProblemOptions

FINAL = ("solved-optimal", "solved", "unsolvable", "error")


@dataclass(frozen=True)
class Job:
    id: str  # the line itself: the key in the results file
    problem: str
    options: ProblemOptions = ProblemOptions()


def parse_line(line: str, where: str) -> Job:
    """A job line: a problem as on the command line, with its ``--option value`` pairs."""
    try:
        toks = shlex.split(line, comments=True)
    except ValueError as exc:
        raise PegsatError(f"{where}: {exc}") from None
    problem, rest = toks[0], toks[1:]
    pairs = []
    while rest:
        key = rest.pop(0)
        if not key.startswith("--") or not rest:
            raise PegsatError(f"{where}: expected --OPTION VALUE, got {key!r}")
        pairs.append((key[2:], rest.pop(0)))
    return Job(" ".join(toks), problem, ProblemOptions.from_pairs(pairs, where))


def load_jobs(spec: str) -> list[Job]:
    """A jobs file, or a board name (its survey set)."""
    path = Path(spec)
    if path.is_file() and path.suffix not in (".toml", ".pddl", ".board"):
        jobs: dict[str, Job] = {}
        for i, line in enumerate(read_text(path, "job file").splitlines(), start=1):
            if line.split("#", 1)[0].strip():
                job = parse_line(line, f"{spec}:{i}")
                jobs.setdefault(job.id, job)  # the same job twice is one job
        if not jobs:
            raise PegsatError(f"{spec}: no jobs in the file")
        return list(jobs.values())
    from ..model.boardfile import load_board
    from .survey import orbit_pairs

    board = load_board(spec)
    names = board.names
    return [Job(f"{spec} --vacant {names[v]} --survivor {names[s]}", spec,
                ProblemOptions(vacant=names[v], survivor=names[s])) for v, s in orbit_pairs(board)]


def run_job(job: Job, planner: str, time_limit: float | None, cores: int = 1) -> dict[str, Any]:
    """Runs on a worker: pose the problem, solve it, return a JSON-able record. The job's
    deadline starts here, when the worker takes it up."""
    from ..deadline import Deadline
    from ..formats.report import record
    from ..planners.config import Config
    from .pose import pose
    from .solve import solve

    t = time.perf_counter()
    out: dict[str, Any] = {"job": job.id}
    try:
        deadline = Deadline(time_limit) if time_limit else Deadline()
        problem = pose(job.problem, job.options).problem
        r = solve(problem, planner, Config(workers=cores), deadline=deadline)
        out.update(record(r), cores=cores)
    except PegsatError as exc:  # bad input: an answer, not a worker death
        out.update(status="error", detail=str(exc))
    except Exception as exc:  # a bug: recorded as an error with its type, never retried as unknown
        out.update(status="error", detail=f"internal error: {type(exc).__name__}: {exc}")
    out["seconds"] = round(time.perf_counter() - t, 3)
    out["worker_pid"] = os.getpid()
    return out


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """Records of an earlier run by job id; torn lines (a kill mid-write) are skipped."""
    return {rec["job"]: rec for rec in read_jsonl(path) if "job" in rec}


def run(jobs: list[Job], results: Path, *, workers: int = 2, scheduler: str | None = None,
        planner: str = "auto", time_limit: float | None = 60.0, quiet: bool = False,
        on_submit: Callable[[Any, dict], None] | None = None) -> dict[str, dict[str, Any]]:
    """Solve the jobs not yet answered in ``results``; return every job's record.

    ``on_submit(client, futures_by_job_id)`` is called once the first window of jobs is
    submitted (tests use it to kill a worker mid-run)."""
    from ..engine.cluster import client as connect
    from ..process import cores as local_cores

    previous = read_results(results)
    todo = [j for j in jobs if previous.get(j.id, {}).get("status") not in FINAL]
    records = {j.id: previous[j.id] for j in jobs if j.id in previous}
    if not todo:
        return records
    settings = {"distributed.scheduler.allowed-failures": 0,  # a dead worker's job is not retried
                "distributed.worker.daemon": False}  # the planners start solver processes
    with connect(workers, scheduler, settings) as client:
        from distributed import as_completed
        from tqdm import tqdm

        # A sliding window of one job per worker thread: a worker that dies takes only the
        # job it was running with it (queued jobs would be charged with its death too).
        window = max(1, sum(client.nthreads().values()))
        share = max(1, local_cores() // window) if scheduler is None else 1
        pending = iter(todo)
        futures: dict[str, Any] = {}
        by_key: dict[Any, str] = {}
        flow = as_completed()

        def submit_next() -> None:
            job = next(pending, None)
            if job is not None:
                fut = client.submit(run_job, job, planner, time_limit, share, pure=False,
                                    key=f"pegsat-job-{len(futures)}")
                futures[job.id] = fut
                by_key[fut.key] = job.id
                flow.add(fut)

        for _ in range(window):
            submit_next()
        if on_submit is not None:
            on_submit(client, futures)
        with JsonLines(results) as out, tqdm(total=len(jobs), initial=len(jobs) - len(todo),
                                              unit="job", disable=quiet, smoothing=0.1) as bar:
            for fut in flow:
                jid = by_key[fut.key]
                try:
                    rec = fut.result()
                except Exception as exc:  # KilledWorker, lost connection: never "unsolvable"
                    rec = {"job": jid, "status": "unknown",
                           "detail": f"worker died ({type(exc).__name__}); rerun to retry"}
                out.write(rec)
                records[jid] = rec
                bar.update(1)
                submit_next()
    return records
