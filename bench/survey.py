#!/usr/bin/env python3
"""Benchmark: whole-board surveys (every single vacancy -> single survivor), fresh each run.

    python bench/survey.py [--boards english,french,...] [--time-limit 20]

Per board: seconds, problems solved up to symmetry and reversal, and the share of the board's n x n
problems settled by each kind of argument (classes and pagoda are certificates; "plan" means
a verified solution; exhausted-search / cp-infeasible / unsat come from the planners;
unknown = the per-problem time limit ran out, never counted as impossible).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from pegsat.apps.survey import orbit_pairs, run, table  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402

BOARDS = "triangle-5,triangle-6,triangle-7,triangle-8,english,french,german,diamond"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", default=BOARDS)
    ap.add_argument("--time-limit", type=float, default=20.0, help="seconds per problem")
    args = ap.parse_args()
    kinds = ["classes", "pagoda", "plan", "exhausted-search", "unsat", "cp-infeasible", "unknown"]
    print(f"{'board':<12}{'holes':>6}{'orbits':>8}{'seconds':>9}  " + "".join(f"{k:>17}" for k in kinds))
    print("-" * (35 + 17 * len(kinds)))
    for name in args.boards.split(","):
        b = get_board(name)
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            reps = run(b, Path(tmp) / "r.jsonl", time_limit=args.time_limit)
            secs = time.perf_counter() - t
        tab = table(b, reps)
        shares = tab.proof_shares()
        total = b.n * b.n
        cells = "".join(f"{shares.get(k, 0):>7} ({100 * shares.get(k, 0) / total:4.1f}%)" for k in kinds)
        orbits = len(list(orbit_pairs(b, reversal=True)))
        print(f"{name:<12}{b.n:>6}{orbits:>8}{secs:>9.1f}  {cells}", flush=True)
    print(f"\nper-problem time limit {args.time_limit:.0f} s; shares are of all n x n problems")


if __name__ == "__main__":
    main()
