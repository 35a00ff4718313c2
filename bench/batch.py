#!/usr/bin/env python3
"""Benchmark: ``pegsat batch`` throughput with 1 and 2 Dask workers on survey job sets.

    python bench/batch.py [--boards triangle-6,english] [--time-limit 60]

Each run starts a fresh local cluster and a fresh results file; seconds include the cluster's
start. ratio = seconds with 1 worker / seconds with N workers (same run, same machine). On a
2-core machine expect well under 2x: each ``auto`` job on a board over 21 holes already races
three planners on both cores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from pegsat.apps.batch import load_jobs, run  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", default="triangle-6,english")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args()
    print(f"{'jobs':<12}{'count':>6}{'workers':>9}{'seconds':>9}{'jobs/s':>8}{'ratio':>8}  statuses")
    print("-" * 75)
    for board in args.boards.split(","):
        jobs = load_jobs(board)
        base = None
        for w in map(int, args.workers.split(",")):
            with tempfile.TemporaryDirectory() as tmp:
                t = time.perf_counter()
                recs = run(jobs, Path(tmp) / "r.jsonl", workers=w, time_limit=args.time_limit, quiet=True)
                secs = time.perf_counter() - t
            base = base or secs
            statuses = {}
            for r in recs.values():
                statuses[r["status"]] = statuses.get(r["status"], 0) + 1
            print(f"{board:<12}{len(jobs):>6}{w:>9}{secs:>9.1f}{len(jobs) / secs:>8.2f}{base / secs:>7.2f}x  "
                  f"{statuses}", flush=True)


if __name__ == "__main__":
    main()
