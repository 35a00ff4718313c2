#!/usr/bin/env python3
"""Benchmark: minimum moves. problem x method -> optimum, proof, seconds, peak memory.

    python bench/minmoves.py [--time-limit 300] [--only english,ipc,triangle] [--no-baseline]

Methods:

* ``forward`` (baseline): breadth-first search by moves from the start only, testing each
  level against the goal, no bounds: the classic method (Bell's programs).
* ``moves``: the ``moves`` planner end to end (first plan from ``auto``, then the
  bidirectional search by moves with Merson pruning).
* ``certify`` (English rows): ``prove_moves`` on the planner's plan: the search by moves
  again under the plan's moves, its levels written as a ``moves`` certificate and checked
  by the independent checker before they are kept; ``check``: ``pegsat check`` of that
  certificate in a process of its own (``proofs.bymoves``). Their ratio is over the
  ``moves`` row's seconds.

``ratio`` is the baseline's seconds over the row's, both measured in this run (">" when the
baseline hit the time limit). Every row runs in a fresh forked process, so ``peak MiB`` is
that row's own maximum resident set. Shared, noisy machines: compare rows of one run.
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing as mp
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from pegsat.apps.solve import solve  # noqa: E402
from pegsat.deadline import Deadline, Timeout  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402
from pegsat.model.problem import Goal, single_vacancy  # noqa: E402
from pegsat.planners.moves import (  # noqa: E402
    Search,
    fewest_over_vacancies,
    survivor_distances,
)

#: the competitions' files: the directory ``PEGSAT_IPC_DIR`` names
IPC = Path(os.environ.get("PEGSAT_IPC_DIR") or "/nonexistent/pegsat-ipc")
#: George Bell's triangle-5 values quoted in issue 4 (vacancy, survivor) -> moves; None = impossible
BELL_T5 = {("c5", "c5"): 9, ("a1", "a1"): 10, ("a1", "c5"): 10, ("a1", "a4"): 11, ("a4", "a4"): 11,
           ("c5", "b3"): 10, ("b3", "c5"): 11, ("b3", "b3"): None}


def _in_child(fn, args, q):
    t = time.perf_counter()
    try:
        out = fn(*args)
    except Exception as exc:  # report, do not hide
        out = ("error", f"{type(exc).__name__}: {exc}")
    q.put((out, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def measured(fn, *args):
    q = mp.get_context("fork").Queue()
    p = mp.get_context("fork").Process(target=_in_child, args=(fn, args, q))
    p.start()
    out = q.get()
    p.join()
    return out


def run_moves(problem, limit):
    r = solve(problem, "moves", deadline=Deadline(limit))
    proof = "optimal" if r.optimal else (r.proof.value if r.proof else "-")
    return r.moves, proof, r.lower_bound, r.detail


def run_forward(problem, limit):
    s = Search(problem, Deadline(limit), bidirectional=False)
    try:
        best, lower, _ = s.run()
    except Timeout:
        return None, "timeout", len(s.fwd), "time limit"
    return best, "optimal" if best is not None else "exhausted", lower, f"{len(s.fwd) - 1} levels"


def run_certify(problem, limit, path):
    from pegsat.proofs.prove import prove_moves

    r = solve(problem, "moves", deadline=Deadline(limit))
    c = prove_moves(problem, r.plan, Deadline(limit), certificate_path=path)
    return c.lower_bound, "certified" if c.certificate else c.status.value, c.lower_bound, c.detail


def run_check(path, expect):
    """``pegsat check FILE`` in a process of its own: (holds, its peak MiB)."""
    import subprocess

    cmd = [sys.executable, "-c", "from pegsat.cli import main; main()", "check", str(path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    held = out.returncode == 0 and f"at least {expect} moves" in out.stdout
    return held, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def english_rows(args):
    e = get_board("english")
    yield "english central d4->d4", single_vacancy(e, e.hole("d4")), 18
    yield "english d4->d1", single_vacancy(e, e.hole("d4"), Goal.survivor(e, e.hole("d1"))), 17


def ipc_rows():
    seen = set()
    with open(IPC / "optimal_costs.tsv") as fh:
        rows = csv.DictReader((ln for ln in fh if not ln.startswith("#")), delimiter="\t")
        for row in rows:
            yield row["variant"], row["problem"], int(row["optimal_cost"]), row["body_sha"] in seen
            seen.add(row["body_sha"])


def header():
    print(f"{'problem':<30}{'method':<10}{'optimum':>8}{'expect':>7}  {'proof':<10}{'seconds':>9}"
          f"{'peak MiB':>10}{'ratio':>9}")
    print("-" * 93)


def row(name, method, optimum, expect, proof, secs, mem, ratio=""):
    print(f"{name:<30}{method:<10}{str(optimum):>8}{str(expect):>7}  {proof:<10}{secs:>9.2f}{mem:>10.0f}"
          f"{ratio:>9}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-limit", type=float, default=300.0)
    ap.add_argument("--only", default="english,ipc,triangle")
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    only = args.only.split(",")
    header()
    if "english" in only:
        for name, problem, expect in english_rows(args):
            base = None
            if not args.no_baseline:
                (opt, proof, _, _), secs, mem = measured(run_forward, problem, args.time_limit)
                base = (secs, proof == "timeout")
                row(name, "forward", opt, expect, proof, secs, mem, "1.0x")
            (opt, proof, lower, detail), secs, mem = measured(run_moves, problem, args.time_limit)
            ratio = "" if base is None else f"{'>' if base[1] else ''}{base[0] / secs:.1f}x"
            row(name, "moves", opt, expect, proof, secs, mem, ratio)
            import tempfile

            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "c.json"
                (got, how, _, _), csecs, cmem = measured(run_certify, problem, args.time_limit, path)
                row(name, "certify", got, expect, how, csecs, cmem, f"{csecs / secs:.1f}x")
                (held, kmem), ksecs, _ = measured(run_check, path, expect)
                row(name, "check", expect if held else None, expect, "holds" if held else "FAILED", ksecs,
                    kmem, f"{ksecs / secs:.1f}x")
    if "ipc" in only and not (IPC / "optimal_costs.tsv").is_file():
        print(f"(ipc: no optimal_costs.tsv in {IPC}; set PEGSAT_IPC_DIR to the competitions' files)")
    elif "ipc" in only:
        times, bad = [], []
        for variant, prob, cost, dup in ipc_rows():
            from pegsat.formats.pddl import read_task

            problem = read_task(IPC / variant / f"{prob}.pddl", IPC / variant / "domain.pddl").problem
            (opt, proof, lower, detail), secs, mem = measured(run_moves, problem, args.time_limit)
            times.append(secs)
            if opt != cost or proof != "optimal":
                bad.append(f"{variant}/{prob}")
            row(f"{variant[:-7]}/{prob}" + (" (dup)" if dup else ""), "moves", opt, cost, proof, secs, mem)
        print(f"IPC: {len(times)} problems, {len(times) - len(bad)} proven optimal at the listed cost; "
              f"median {statistics.median(times):.2f} s, max {max(times):.2f} s"
              + (f"; MISMATCH {' '.join(bad)}" if bad else ""))
    if "triangle" in only:
        def t5_table():
            b = get_board("triangle-5")
            table = {(b.names[v], b.names[s]): m for v in range(b.n)
                     for s, m in survivor_distances(b, v).items()}
            ok = all(table.get(k) == m for k, m in BELL_T5.items())
            return sum(1 for _ in table), ok

        (pairs, ok), secs, mem = measured(t5_table)
        # optimum column: how many of the 225 vacancy -> survivor pairs are solvable
        row("triangle-5 all 225 pairs", "moves", pairs, "Bell", "match" if ok else "MISMATCH", secs, mem)
        for n, expect in ((4, 5), (5, 9), (6, 9), (7, 12)):
            out, secs, mem = measured(lambda n=n: fewest_over_vacancies(get_board(f"triangle-{n}")))
            row(f"triangle-{n} min over pairs", "moves", out[0], expect, "optimal", secs, mem)
    print(f"\ntime limit {args.time_limit:.0f} s per row; {mp.cpu_count()} cores")


if __name__ == "__main__":
    main()
