#!/usr/bin/env python3
"""Benchmark: the IPC peg solitaire tracks, pegsat beside Fast Downward, same limits, one run.

    python bench/ipc.py [--time-limit 120] [--tracks 08,opt11,sat11] [--no-fd]

Optimal tracks (``pegsol-08-strips``, ``pegsol-opt11-strips``): pegsat ``--min-moves``
against Fast Downward ``astar(lmcut())``. Satisficing track (``pegsol-sat11-strips``): pegsat
``auto`` (first plan) and ``--min-moves`` against Fast Downward ``--alias lama-first``.
Fast Downward is the PyPI package ``up-fast-downward`` (``pip install -e '.[bench]'``); when
it is missing its columns say so. Problems that repeat an earlier one byte for byte (the
``body_sha`` column of ``optimal_costs.tsv``) reuse the earlier measurement for Fast Downward
and are marked ``dup``. Every plan, Fast Downward's included, is replayed by pegsat's
verifier (``pegsat.formats.pddl.read_ipc_plan`` checks the move bookkeeping, then the jumps).
``ratio`` = Fast Downward seconds / pegsat seconds (">" when Fast Downward hit the limit).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from pegsat.apps.solve import solve  # noqa: E402
from pegsat.deadline import Deadline  # noqa: E402
from pegsat.engine.bitboard import replay  # noqa: E402
from pegsat.errors import PlanError  # noqa: E402
from pegsat.formats.pddl import read_ipc_plan, read_task  # noqa: E402

IPC = ROOT.parent / "shared" / "instances" / "ipc-pegsol"
TRACKS = {"08": "pegsol-08-strips", "opt11": "pegsol-opt11-strips", "sat11": "pegsol-sat11-strips"}


def fast_downward() -> Path | None:
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or not spec.submodule_search_locations:
        return None
    script = Path(list(spec.submodule_search_locations)[0]) / "downward" / "fast-downward.py"
    return script if script.is_file() else None


def run_fd(script: Path, domain: Path, problem: Path, config: str, limit: float, task):
    """(cost or None, seconds, note); the plan is replayed before its cost is believed."""
    with tempfile.TemporaryDirectory() as tmp:
        plan = Path(tmp) / "plan"
        driver = [sys.executable, str(script), "--plan-file", str(plan), "--overall-time-limit",
                  f"{int(limit)}s"]
        if config == "lama-first":
            cmd = [*driver, "--alias", "lama-first", str(domain), str(problem)]
        else:
            cmd = [*driver, str(domain), str(problem), "--search", "astar(lmcut())"]
        t = time.perf_counter()
        subprocess.run(cmd, cwd=tmp, capture_output=True, timeout=limit + 30)
        secs = time.perf_counter() - t
        plans = sorted(Path(tmp).glob("plan*"))
        if not plans:
            return None, secs, "no plan"
        text = plans[-1].read_text()  # lama writes plan.1, plan.2, ...: the last is the best
        try:
            rep = replay(task.problem, read_ipc_plan(task.problem.board, text, task))
        except PlanError as exc:
            return None, secs, f"INVALID: {exc}"
        return rep.moves, secs, "timeout" if secs >= limit else ""


def rows():
    with open(IPC / "optimal_costs.tsv") as fh:
        yield from csv.DictReader((ln for ln in fh if not ln.startswith("#")), delimiter="\t")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--tracks", default="08,opt11,sat11")
    ap.add_argument("--no-fd", action="store_true")
    args = ap.parse_args()
    wanted = {TRACKS[t] for t in args.tracks.split(",")}
    fd = None if args.no_fd else fast_downward()
    print(f"Fast Downward: {fd or 'not installed (pip install up-fast-downward)'}")
    print(f"{'problem':<18}{'pegs':>5}{'opt':>5}  {'pegsat':<10}{'cost':>5}{'s':>8}  "
          f"{'FD':<11}{'cost':>5}{'s':>8}{'ratio':>9}  note")
    print("-" * 100)
    fd_cache: dict[tuple[str, str], tuple] = {}
    summary: dict[str, list] = {}
    for row in rows():
        variant = row["variant"]
        if variant not in wanted:
            continue
        d = IPC / variant
        task = read_task(d / f"{row['problem']}.pddl", d / "domain.pddl")
        optimal_track = "sat11" not in variant
        methods = [("moves", "moves")] if optimal_track else [("auto", "auto"), ("moves", "moves")]
        fd_config = "astar-lmcut" if optimal_track else "lama-first"
        fd_res = None
        if fd is not None:
            key = (row["body_sha"], fd_config)
            dup = key in fd_cache
            if not dup:
                fd_cache[key] = run_fd(fd, d / "domain.pddl", d / f"{row['problem']}.pddl", fd_config,
                                       args.time_limit, task)
            fd_res = fd_cache[key] + (dup,)
        for label, planner in methods:
            t = time.perf_counter()
            r = solve(task.problem, planner, deadline=Deadline(args.time_limit))
            secs = time.perf_counter() - t
            opt = int(row["optimal_cost"])
            note = []
            if planner == "moves":
                note.append("optimal" if r.optimal else "UNPROVEN")
                if r.moves != opt:
                    note.append(f"MISMATCH (listed {opt})")
            ratio = ""
            fd_cols = f"{'-':<11}{'-':>5}{'-':>8}"
            if fd_res is not None:
                cost, fsecs, fnote, dup = fd_res
                fd_cols = f"{fd_config:<11}{str(cost):>5}{fsecs:>8.2f}"
                ratio = f"{'>' if cost is None else ''}{fsecs / secs:.1f}x"
                if fnote:
                    note.append(f"FD {fnote}")
                if dup:
                    note.append("FD dup")
                summary.setdefault(f"{variant} {label}", []).append((secs, fsecs, cost, r.moves, opt))
            else:
                summary.setdefault(f"{variant} {label}", []).append((secs, None, None, r.moves, opt))
            print(f"{variant[7:-7] + '/' + row['problem']:<18}{row['pegs']:>5}{opt:>5}  {label:<10}"
                  f"{str(r.moves):>5}{secs:>8.2f}  {fd_cols}{ratio:>9}  {' '.join(note)}", flush=True)
    print()
    for key, vals in summary.items():
        ps = [v[0] for v in vals]
        line = (f"{key}: {len(vals)} problems, pegsat at the listed optimum on "
                f"{sum(1 for v in vals if v[3] == v[4])}, median {statistics.median(ps):.2f} s, "
                f"max {max(ps):.2f} s")
        fds = [v[1] for v in vals if v[1] is not None]
        if fds:
            solved = sum(1 for v in vals if v[2] is not None)
            at_opt = sum(1 for v in vals if v[2] == v[4])
            line += (f"; FD solved {solved}, at optimum {at_opt}, median {statistics.median(fds):.2f} s; "
                     f"median ratio FD/pegsat {statistics.median(fds) / statistics.median(ps):.1f}x")
        print(line)
    print(f"time limit {args.time_limit:.0f} s per run")


if __name__ == "__main__":
    main()
