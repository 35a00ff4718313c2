#!/usr/bin/env python3
"""Benchmark: minimum-move tables of the large boards, every answer a replayed plan with its
proof of optimality; and the search by jumps that proves German e1 -> e1 unsolvable.

    python bench/tables.py [--only french,german-central] [--time-limit 1800] [--spill DIR]
                           [--workers 2] [--memory-limit 2GB]
    python bench/tables.py --only jumps --time-limit 5400   # German e1 -> e1 by jumps: 50 min on 2 cores

Each row is a fresh ``pegsat solve ... --min-moves --json`` process (``jumps``: ``--planner
layers --spill``), as a user types it
(in memory while the levels fit the memory budget, then out of core by itself; with
``--spill``, out of core from the start), measured as a whole process tree
(``tree.measured``: seconds, the tree's peak memory and its largest process's). pegsat
replays every plan before it prints it; this script replays it once more, through
``pegsat verify``, and checks that it has the moves claimed.

Tables:

* ``french``: every class-compatible single-vacancy -> single-survivor problem of the French
  board, one per orbit of its symmetries (the three vacancies c1, d2, d3 that can be cleared
  to one peg, and each's survivors);
* ``german-central``: the German (Wiegleb's 45-hole) board's central game e5 -> e5, and e5
  -> one peg anywhere;
* ``diamond``: every solvable single-vacancy -> single-survivor problem of the 41-hole diamond
  board, one per orbit of its symmetries (``pegsat survey diamond``: four orbits, 28 cells;
  each orbit's time reversal lies in one of the four);
* ``targets``: the rows issue 51 sets times for (German e5 -> e5 and e3 -> e3, French d3 -> g5
  and d3 -> a5), each beside its target;
* ``jumps``: German e1 -> e1 by jumps on disk (``--planner layers --spill``, the levels
  certificate written; no plan exists, so the status is the answer), beside its target.

Each row's rate is positions up to symmetry per second per core (the run's positions over its
seconds and the workers' cores), beside the machine anchor measured before and after the
tables: numpy's sort of 10^7 random keys on one core (``tree.anchor``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from tree import anchor, measured

PEGSAT = Path(sys.executable).parent / "pegsat"
TABLES = {
    "french": [("french", v, s) for v, ss in (("c1", "e1 b4 e4 e7"), ("d2", "a3 d3 g3 d6"),
                                               ("d3", "d2 a5 d5 g5")) for s in ss.split()],
    "german-central": [("german", "e5", "e5"), ("german", "e5", None)],
    "diamond": [("diamond", v, s) for v, s in (("d2", "f2"), ("d2", "c5"), ("e3", "b4"), ("e3", "e7"))],
}
#: issue 51's targets: seconds for a fresh run as a user types it
TARGET_S = {("german", "e5", "e5"): 600, ("german", "e3", "e3"): 2700, ("french", "d3", "g5"): 180,
            ("french", "d3", "a5"): 180}
TABLES["targets"] = list(TARGET_S)
#: searches by jumps on disk (``--planner layers``), each with its target in seconds
JUMPS_S = {("german", "e1", "e1"): 3600}
TABLES["jumps"] = list(JUMPS_S)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="french")
    ap.add_argument("--time-limit", type=float, default=1800.0, help="seconds per problem")
    ap.add_argument("--spill", default=None, help="out of core from the start, levels under this directory")
    ap.add_argument("--workers", default=None)
    ap.add_argument("--memory-limit", default=None)
    args = ap.parse_args()
    cores = int(args.workers or 2)
    print(f"machine anchor: numpy sorts {anchor() / 1e6:.1f} M keys/s on one core (10^7 random 64-bit keys)")
    print(f"{'problem':<22}{'moves':>6}{'>=':>4}  {'status':<15}{'positions':>14}{'seconds':>9}{'target':>7}"
          f"{'k/s/core':>9}{'peak MB':>9}{'1 proc':>8}  where")
    print("-" * 124)
    plans = []
    for table in args.only.split(","):
        for board, v, s in TABLES[table]:
            jumps = (board, v, s) in JUMPS_S and table == "jumps"
            cmd = [str(PEGSAT), "solve", board, "--vacant", v, "--json", "--time-limit", str(args.time_limit),
                   *(["--planner", "layers"] if jumps else ["--min-moves"])]
            cmd += ["--survivor", s] if s else []
            for flag, value in (("--workers", args.workers), ("--memory-limit", args.memory_limit)):
                cmd += [flag, value] if value else []
            with tempfile.TemporaryDirectory(dir=args.spill) as tmp:
                run = measured(cmd + (["--spill", tmp] if args.spill or jumps else []),
                               timeout=args.time_limit + 300)
            name = f"{board} {v} -> {s or 'any'}"
            try:
                data = json.loads(run.stdout.splitlines()[-1])
            except (IndexError, ValueError):
                print(f"{name:<22}  no answer (exit {run.code}): {run.stderr.strip()[-200:]}", flush=True)
                continue
            st = data.get("stats", {})
            where = "out of core" if "out of core" in (data.get("detail") or "") else "in memory"
            replayed = ""
            if data.get("plan"):
                check = measured([str(PEGSAT), "verify", board, data["plan"], "--vacant", v, "--json"]
                                 + (["--survivor", s] if s else []))
                got = json.loads(check.stdout.splitlines()[-1]) if check.code == 0 else {}
                replayed = " (replayed)" if got.get("moves") == data.get("moves") else " (REPLAY FAILED)"
                plans.append(f"{name}: {data['moves']} moves: {data['plan']}")
            target = (JUMPS_S if jumps else TARGET_S).get((board, v, s))
            rate = st.get("positions", 0) / max(run.seconds, 1e-9) / cores / 1e3
            print(f"{name:<22}{str(data.get('moves') or '-'):>6}{str(data.get('lower_bound') or '-'):>4}  "
                  f"{data['status']:<15}{st.get('positions', 0):>14,}{run.seconds:>9.1f}"
                  f"{target if target else '-':>7}{rate:>9.0f}{run.peak_mb:>9.0f}"
                  f"{run.one_mb:>8.0f}  {where}{replayed}", flush=True)
    print(f"machine anchor at the end: {anchor() / 1e6:.1f} M keys/s")
    if plans:
        print("\nplans (hole names, one move per chain):")
        for line in plans:
            print(line)


if __name__ == "__main__":
    main()
