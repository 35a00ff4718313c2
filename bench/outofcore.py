"""Benchmark: level searches out of core (``count --spill``, ``solve --min-moves --spill``)
against the same searches in memory.

Each row is a fresh ``pegsat`` process; its peak memory is the largest sum of resident
memory over its whole process tree (Dask workers included), sampled every 50 ms with psutil,
and ``1 proc`` the largest resident memory of any one process of the tree (what
``--memory-limit`` bounds: each worker's).
The in-memory row is the baseline measured in the same run; the out-of-core rows give its
time over theirs (above 1: faster), and check their answer against it: the classes of every
level for a census, the status and the fewest moves for a search by moves.

    python bench/outofcore.py [--only english,english-moves,french-d3-d5] [--workers 1,2]
                              [--memory-limit 2GB]
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
CASES = {"english": ["count", "english"], "french": ["count", "french", "--vacant", "d4"],
         "triangle-7": ["count", "triangle-7", "--vacant", "a1"],
         "english-moves": ["solve", "english", "--survivor", "d4", "--min-moves"],
         "french-d3-d5": ["solve", "french", "--vacant", "d3", "--survivor", "d5", "--min-moves"],
         "french-c1-e1": ["solve", "french", "--vacant", "c1", "--survivor", "e1", "--min-moves"]}


def answer(spec: list[str], out: str) -> list:
    """What must be the same in memory and out of core."""
    data = json.loads(out.splitlines()[-1])
    if spec[0] == "count":
        return [lv["classes"] for lv in data["levels"]]
    return [data["status"], data.get("moves"), data.get("lower_bound")]


def measured(cmd: list[str]) -> tuple[float, float, float, str]:
    """(seconds, peak MB of the process tree, peak MB of its largest process, stdout) of one
    command."""
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, text=True)
        top = psutil.Process(proc.pid)
        peak = one = 0
        while proc.poll() is None:
            try:
                rss = []
                for p in [top, *top.children(recursive=True)]:
                    try:
                        rss.append(p.memory_info().rss)
                    except psutil.Error:  # ended meanwhile
                        pass
                peak, one = max(peak, sum(rss)), max(one, *rss, 0)
            except psutil.Error:
                pass
            time.sleep(0.05)
        out.seek(0)
        return time.perf_counter() - t, peak / 1e6, one / 1e6, out.read()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="english,english-moves")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--memory-limit", default=None, help="bytes per worker for --spill (e.g. 2GB)")
    args = ap.parse_args()
    print(f"{'case':<16}{'mode':<26}{'seconds':>9}{'peak MB':>9}{'1 proc':>8}{'ratio':>8}  answer")
    print("-" * 104)
    for name in args.only.split(","):
        spec = CASES[name]
        quiet = ["--quiet"] if spec[0] == "count" else []
        secs, mb, one, out = measured([str(PEGSAT), *spec, "--json", *quiet])
        want = answer(spec, out)
        said = f"{len(want)} levels" if spec[0] == "count" else " ".join(map(str, want))
        print(f"{name:<16}{'in memory':<26}{secs:>9.1f}{mb:>9.0f}{one:>8.0f}{'1.0x':>8}  {said}", flush=True)
        for w in args.workers.split(","):
            with tempfile.TemporaryDirectory() as tmp:
                cmd = [str(PEGSAT), *spec, "--json", *quiet, "--spill", tmp, "--workers", w]
                if args.memory_limit:
                    cmd += ["--memory-limit", args.memory_limit]
                s, m, m1, o = measured(cmd)
                got = answer(spec, o)
                same = "same" if got == want else f"DIFFERENT: {got}"
                mode = f"spill, {w} worker(s)" + (f", {args.memory_limit}" if args.memory_limit else "")
                print(f"{'':<16}{mode:<26}{s:>9.1f}{m:>9.0f}{m1:>8.0f}{secs / s:>7.2f}x  {same}", flush=True)


if __name__ == "__main__":
    main()
