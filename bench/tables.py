#!/usr/bin/env python3
"""Benchmark: minimum-move tables of the large boards, every answer a replayed plan with its
proof of optimality.

    python bench/tables.py [--only french,german-central] [--time-limit 1800] [--spill DIR]
                           [--workers 2] [--memory-limit 2GB]

Each row is a fresh ``pegsat solve ... --min-moves --json`` process, as a user types it
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
  -> one peg anywhere.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from tree import measured

PEGSAT = Path(sys.executable).parent / "pegsat"
TABLES = {
    "french": [("french", v, s) for v, ss in (("c1", "e1 b4 e4 e7"), ("d2", "a3 d3 g3 d6"),
                                               ("d3", "d2 a5 d5 g5")) for s in ss.split()],
    "german-central": [("german", "e5", "e5"), ("german", "e5", None)],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="french")
    ap.add_argument("--time-limit", type=float, default=1800.0, help="seconds per problem")
    ap.add_argument("--spill", default=None, help="out of core from the start, levels under this directory")
    ap.add_argument("--workers", default=None)
    ap.add_argument("--memory-limit", default=None)
    args = ap.parse_args()
    print(f"{'problem':<22}{'moves':>6}{'>=':>4}  {'status':<15}{'positions':>14}{'seconds':>9}{'peak MB':>9}"
          f"{'1 proc':>8}  where")
    print("-" * 108)
    plans = []
    for table in args.only.split(","):
        for board, v, s in TABLES[table]:
            cmd = [str(PEGSAT), "solve", board, "--vacant", v, "--min-moves", "--json",
                   "--time-limit", str(args.time_limit)]
            cmd += ["--survivor", s] if s else []
            for flag, value in (("--workers", args.workers), ("--memory-limit", args.memory_limit)):
                cmd += [flag, value] if value else []
            with tempfile.TemporaryDirectory(dir=args.spill) as tmp:
                run = measured(cmd + (["--spill", tmp] if args.spill else []), timeout=args.time_limit + 300)
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
            print(f"{name:<22}{str(data.get('moves') or '-'):>6}{str(data.get('lower_bound') or '-'):>4}  "
                  f"{data['status']:<15}{st.get('positions', 0):>14,}{run.seconds:>9.1f}{run.peak_mb:>9.0f}"
                  f"{run.one_mb:>8.0f}  {where}{replayed}", flush=True)
    if plans:
        print("\nplans (hole names, one move per chain):")
        for line in plans:
            print(line)


if __name__ == "__main__":
    main()
