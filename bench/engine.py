#!/usr/bin/env python3
"""Benchmark for the compiled engine (issue 13): its target table, measured.

    python bench/engine.py                 # the quick cases (about 5 minutes on 2 cores)
    python bench/engine.py --surveys       # also the four surveys (up to an hour)
    python bench/engine.py --only german   # rows whose name contains a substring

Each case runs as users run it: ``pegsat ...`` in a fresh process, timed from start to exit
(so loading the compiled core counts), with its peak memory (the largest child's resident
set). The baseline is the pure-Python depth-first search (``engine.reference``, the engine
before the compiled core) on the same problem in the same run, given ``--baseline-limit``
seconds; the last column is baseline time / compiled time (">" when the baseline ran out).
Timings on shared machines are noisy: compare rows of one run, not runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from pegsat.analysis.invariants import possible_survivors  # noqa: E402
from pegsat.deadline import Deadline, Timeout  # noqa: E402
from pegsat.engine import dfs as D  # noqa: E402
from pegsat.engine import reference  # noqa: E402
from pegsat.engine.bitboard import symmetry  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402
from pegsat.model.problem import Goal, single_vacancy  # noqa: E402

PEGSAT = [sys.executable, "-m", "pegsat.cli"]


def run(args: list[str]) -> tuple[int, float, float, str]:
    """(exit code, wall seconds, peak MB of the process tree, output)."""
    t = time.perf_counter()
    p = subprocess.Popen(PEGSAT + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         cwd=ROOT)
    out = p.stdout.read()
    # wait4's ru_maxrss: the largest of the process and its waited-for descendants, in KB
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    return p.returncode, wall, usage.ru_maxrss / 1024, out


def status_of(code: int) -> str:
    return {0: "solved", 10: "unsolvable", 20: "unknown"}.get(code, f"exit {code}")


def baseline(problem, limit: float) -> tuple[str, float]:
    """The pure-Python search, far-first, dead table under the goal's symmetries; in a child
    process, so that its memory is not counted in the next case's peak (a forked child's peak
    includes what its parent held at the fork)."""
    import multiprocessing as mp

    with mp.get_context("fork").Pool(1) as pool:
        return pool.apply(_baseline, (problem, limit))


def _baseline(problem, limit: float) -> tuple[str, float]:
    t = time.perf_counter()
    try:
        plan, _ = reference.depth_first(problem, Deadline(limit), D.far_first(problem), D.goal_group(problem))
    except Timeout:
        return "unknown", limit
    return ("solved" if plan else "unsolvable"), time.perf_counter() - t


def ratio(base: tuple[str, float], secs: float) -> str:
    s, b = base
    return f"{'>' if s == 'unknown' else ''}{b / max(secs, 1e-3):.1f}x"


def solve_rows(args) -> list[list[str]]:
    rows = []
    g, d = get_board("german"), get_board("diamond")
    cases = [("german e5 -> one peg", ["german"], single_vacancy(g, g.hole("e5"), Goal.one_peg())),
             ("german e5 -> e5", ["german", "--survivor", "e5"],
              single_vacancy(g, g.hole("e5"), Goal.survivor(g, g.hole("e5"))))]
    # open after 150-400 s of depth-first search; the beam's turn finds them
    for v, s in (("e2", "e2"), ("d1", "a4")):
        cases.append((f"german {v} -> {s}", ["german", "--vacant", v, "--survivor", s],
                      single_vacancy(g, g.hole(v), Goal.survivor(g, g.hole(s)))))
    # the diamond: one vacancy per orbit of the class-compatible ones (the others are images)
    sym = symmetry(d)
    seen = set()
    for v in range(d.n):
        if not possible_survivors(d, d.full & ~(1 << v)):
            continue
        orbit = {sym.canonical(1 << v)}
        if orbit & seen:
            continue
        seen |= orbit
        size = len({p[v] for p in d.symmetries})
        cases.append((f"diamond {d.names[v]} -> one peg (x{size} images)",
                      ["diamond", "--vacant", d.names[v]], single_vacancy(d, v, Goal.one_peg())))
    f = get_board("french")
    cases.append(("french d3 -> d5", ["french", "--vacant", "d3", "--survivor", "d5"],
                  single_vacancy(f, f.hole("d3"), Goal.survivor(f, f.hole("d5")))))
    for name, cli, problem in cases:
        if args.only and not any(s in name for s in args.only.split(",")):
            continue
        code, wall, mb, _ = run(["solve", *cli, "--time-limit", str(args.time_limit)])
        base = baseline(problem, args.baseline_limit)
        rows.append([name, status_of(code), f"{wall:.2f}", f"{mb:.0f}", f"{base[0]} {base[1]:.1f} s",
                     ratio(base, wall)])
        print(" | ".join(rows[-1]), file=sys.stderr)
    return rows


def english_rows(args) -> list[list[str]]:
    rows = []
    e = get_board("english")
    if not args.only or "d1" in args.only or "english" in args.only:
        # run to run: 20 seeds of the restart order (the CLI itself is seeded, so repeatable)
        times = []
        for i in range(args.runs):
            code, wall, _, _ = run(["solve", "english", "--vacant", "d1", "--survivor", "d1",
                                    "--planner", "search", "--time-limit", "60"]) if i == 0 else _seeded(i)
            times.append(wall)
        p = single_vacancy(e, e.hole("d1"), Goal.survivor(e, e.hole("d1")))
        base = baseline(p, args.baseline_limit)
        rows.append([f"english d1 -> d1, {args.runs} seeds", "solved",
                     f"median {statistics.median(times):.2f}, max {max(times):.2f}", "",
                     f"{base[0]} {base[1]:.1f} s", ratio(base, max(times))])
        print(" | ".join(rows[-1]), file=sys.stderr)
    if not args.only or "min-moves" in args.only or "english" in args.only:
        code, wall, mb, out = run(["solve", "english", "--survivor", "d4", "--min-moves",
                                   "--time-limit", "60"])
        rows.append(["english d4 -> d4 --min-moves", status_of(code) + (" 18" if "18 moves" in out else ""),
                     f"{wall:.2f}", f"{mb:.0f}", "", ""])
    if not args.only or "whole" in args.only or "english" in args.only:
        walls = [run(["solve", "english"])[1] for _ in range(5)]
        helps = [run(["--help"])[1] for _ in range(5)]
        rows.append(["pegsat solve english, whole process (min of 5)", "solved", f"{min(walls):.2f}", "",
                     f"pegsat --help {min(helps):.2f} s", f"{min(walls) / min(helps):.1f}x --help"])
    return rows


def _seeded(i: int) -> tuple[int, float, float, str]:
    """The search planner with restart seed ``i`` (PEGSAT_SEED), timed in a fresh process."""
    env = dict(os.environ, PEGSAT_SEED=str(i))
    t = time.perf_counter()
    p = subprocess.run(PEGSAT + ["solve", "english", "--vacant", "d1", "--survivor", "d1", "--planner",
                                 "search", "--time-limit", "60"], capture_output=True, text=True, env=env,
                       cwd=ROOT)
    return p.returncode, time.perf_counter() - t, 0.0, p.stdout


def rate_rows(args) -> list[list[str]]:
    """Nodes per second of the two engines on the same search: English d4 -> c4 (no plan:
    both run until their node budget), far-first order, dead table under the goal's
    symmetries, no pagodas; long enough that set-up does not count."""
    e = get_board("english")
    p = single_vacancy(e, e.hole("d4"), Goal.survivor(e, e.hole("c4")))
    order, group = D.far_first(p), D.goal_group(p)
    ref_budget, c_budget = 500_000, 20_000_000
    t = time.perf_counter()
    try:
        reference.depth_first(p, Deadline(), order, group, budget=ref_budget)
    except reference.Exhausted:
        pass
    ref_rate = ref_budget / (time.perf_counter() - t)
    from pegsat.engine.drive import table_bits
    s = D.DepthFirst(p, table_bits=table_bits(p))  # the table the planner gives this board
    t = time.perf_counter()
    s.attempt(order, c_budget)
    c_rate = s.nodes / (time.perf_counter() - t)
    return [["depth-first node rate, english d4 -> c4", f"{c_rate / 1e6:.2f} M/s", f"{s.nodes} nodes", "",
             f"{ref_rate / 1e3:.0f} k/s ({ref_budget} nodes)", f"{c_rate / ref_rate:.0f}x"]]


def proof_rows(args) -> list[list[str]]:
    """``prove`` with a certificate, then ``check`` alone, both whole processes."""
    with tempfile.TemporaryDirectory() as tmp:
        cert = str(Path(tmp) / "e4.json")
        code, wall, mb, _ = run(["prove", "diamond", "--vacant", "e4", "--certificate", cert,
                                 "--time-limit", str(5 * args.time_limit)])
        ccode, cwall, _, _ = run(["check", cert])
    row = ["prove diamond e4 -> one peg, certificate", status_of(code), f"{wall:.2f}", f"{mb:.0f}",
           f"check alone {cwall:.2f} s ({'holds' if ccode == 0 else f'exit {ccode}'})", ""]
    print(" | ".join(row), file=sys.stderr)
    return [row]


def survey_rows(args) -> list[list[str]]:
    rows = []
    for board in args.surveys.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            res = Path(tmp) / "s.jsonl"
            js = Path(tmp) / "s.json"
            code, wall, mb, _ = run(["survey", board, "--results", str(res), "--quiet", "--json", str(js),
                                     "--time-limit", str(args.survey_limit)])
            t = json.loads(js.read_text()) if js.exists() else {"unknown": None, "vacancies": {}}
        n = sum(len(row) for row in t["vacancies"].values()) or 1
        unknown = t["unknown"]
        share = f"{100 * unknown / n:.1f}%" if unknown is not None else "?"
        rows.append([f"{board} survey ({n} problems)", f"{unknown} unknown ({share})",
                     f"{wall:.0f}", f"{mb:.0f}", "", ""])
        print(" | ".join(rows[-1]), file=sys.stderr)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per solve case")
    ap.add_argument("--baseline-limit", type=float, default=30.0, help="seconds for the pure-Python baseline")
    ap.add_argument("--runs", type=int, default=20, help="seeds of english d1 -> d1")
    ap.add_argument("--only", help="comma-separated substrings of case names")
    ap.add_argument("--surveys", nargs="?", const="english,french,german,diamond", default="",
                    help="also run these surveys (default when given: all four)")
    ap.add_argument("--survey-limit", type=float, default=60.0, help="seconds per survey problem")
    args = ap.parse_args()
    rows = solve_rows(args) + english_rows(args)
    if not args.only or "rate" in args.only:
        rows += rate_rows(args)
    if not args.only or "prove" in args.only:
        rows += proof_rows(args)
    if args.surveys:
        rows += survey_rows(args)
    head = ["case", "answer", "seconds", "peak MB", "baseline (pure Python)", "ratio"]
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    for r in [head, ["-" * w for w in widths], *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    print(f"\n{os.cpu_count()} cores; python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
