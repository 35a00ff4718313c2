"""Benchmark: the reachable census out of core (``count --spill``) against the in-memory count.

Each row is a fresh ``pegsat count`` process; its peak memory is the largest sum of resident
memory over its whole process tree (Dask workers included), sampled every 50 ms with psutil.
The in-memory row is the baseline measured in the same run; the out-of-core rows give their
time as a ratio to it, and check that their classes per level equal its own.

    python bench/outofcore.py [--only english,french] [--workers 1,2] [--memory-limit 2GB]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

PEGSAT = Path(sys.executable).parent / "pegsat"
CASES = {"english": ["english"], "french": ["french", "--vacant", "d4"],
         "triangle-7": ["triangle-7", "--vacant", "a1"]}


def measured(cmd: list[str]) -> tuple[float, float, str]:
    """(seconds, peak MB of the process tree, stdout) of one command."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    top = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            tree = [top, *top.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.05)
    out = proc.stdout.read() if proc.stdout else ""
    return time.perf_counter() - t, peak / 1e6, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="english")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--memory-limit", default=None, help="bytes per worker for --spill (e.g. 2GB)")
    args = ap.parse_args()
    print(f"{'case':<14}{'mode':<26}{'seconds':>9}{'peak MB':>9}{'ratio':>8}  levels")
    print("-" * 80)
    for name in args.only.split(","):
        spec = CASES[name]
        secs, mb, out = measured([str(PEGSAT), "count", *spec, "--json", "--quiet"])
        base = json.loads(out.splitlines()[-1])
        want = [lv["classes"] for lv in base["levels"]]
        print(f"{name:<14}{'in memory':<26}{secs:>9.1f}{mb:>9.0f}{'1.0x':>8}  {len(want)}", flush=True)
        for w in args.workers.split(","):
            with tempfile.TemporaryDirectory() as tmp:
                cmd = [str(PEGSAT), "count", *spec, "--json", "--quiet", "--spill", tmp, "--workers", w]
                if args.memory_limit:
                    cmd += ["--memory-limit", args.memory_limit]
                s, m, o = measured(cmd)
                got = [lv["classes"] for lv in json.loads(o.splitlines()[-1])["levels"]]
                same = "same" if got == want else "DIFFERENT"
                mode = f"spill, {w} worker(s)" + (f", {args.memory_limit}" if args.memory_limit else "")
                print(f"{'':<14}{mode:<26}{s:>9.1f}{m:>9.0f}{secs / s:>7.2f}x  {len(got)} {same}", flush=True)


if __name__ == "__main__":
    main()
