"""Benchmark: level searches out of core (``count --spill``, ``solve --min-moves --spill``)
against the same searches in memory.

Each row is a fresh ``pegsat`` process (``tree.measured``): its peak memory is the largest
sum of resident memory over its whole process tree (Dask workers included), and ``1 proc``
the largest resident memory of any one process of the tree (what ``--memory-limit`` bounds:
each worker's).
The in-memory row is the baseline measured in the same run; the out-of-core rows give its
time over theirs (above 1: faster), and check their answer against it: the classes of every
level for a census, the status and the fewest moves for a search by moves (``--planner layers``,
by jumps: the status).

    python bench/outofcore.py [--only english,english-moves,french-d3-d5] [--workers 1,2]
                              [--memory-limit 2GB] [--disk-limit 20MB]

A search by moves on disk leaves the ``moves`` certificate of its fewest moves
(``spill/certificate.json``): its ``pegsat check`` runs next, on as many workers (one: the
levels held in its process while they fit; more: its children in bucket files, a partition
at a time), its time against the in-memory search's.

``disk MB`` is the most the spill directory held (levels and buckets, sampled); with
``--disk-limit``, each case runs once more on the last worker count with its directory
bounded, so that its levels are built in rounds (``rounds``: how many levels took more than
one), against the unbounded run's time.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from tree import measured

PEGSAT = Path(sys.executable).parent / "pegsat"
CASES = {"english": ["count", "english"], "french": ["count", "french", "--vacant", "d4"],
         "triangle-7": ["count", "triangle-7", "--vacant", "a1"],
         "english-moves": ["solve", "english", "--survivor", "d4", "--min-moves"],
         "french-d3-d5": ["solve", "french", "--vacant", "d3", "--survivor", "d5", "--min-moves"],
         "french-c1-e1": ["solve", "french", "--vacant", "c1", "--survivor", "e1", "--min-moves"],
         "english-layers": ["solve", "english", "--survivor", "d4", "--planner", "layers"]}


def answer(spec: list[str], out: str) -> list:
    """What must be the same in memory and out of core."""
    data = json.loads(out.splitlines()[-1])
    if spec[0] == "count" and "levels" not in data:  # stopped: "unknown", and why
        return [data.get("status"), data.get("message", "")[:60]]
    if spec[0] == "count":
        return [lv["classes"] for lv in data["levels"]]
    if "layers" in spec:  # by jumps: any plan (its moves are not a fewest)
        return [data["status"]]
    return [data["status"], data.get("moves"), data.get("lower_bound")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="english,english-moves")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--memory-limit", default=None, help="bytes per worker for --spill (e.g. 2GB)")
    ap.add_argument("--disk-limit", default=None, help="a bounded run too: the spill directory's most")
    args = ap.parse_args()
    print(f"{'case':<16}{'mode':<44}{'seconds':>9}{'peak MB':>9}{'1 proc':>8}{'disk MB':>9}{'ratio':>8}"
          "  answer")
    print("-" * 132)
    for name in args.only.split(","):
        spec = CASES[name]
        quiet = ["--quiet"] if spec[0] == "count" else []
        base = measured([str(PEGSAT), *spec, "--json", *quiet])
        want = answer(spec, base.stdout)
        said = f"{len(want)} levels" if spec[0] == "count" else " ".join(map(str, want))
        print(f"{name:<16}{'in memory':<44}{base.seconds:>9.1f}{base.peak_mb:>9.0f}{base.one_mb:>8.0f}"
              f"{'':>9}{'1.0x':>8}  {said}", flush=True)
        counts = args.workers.split(",")
        runs = [(w, None) for w in counts] + ([(counts[-1], args.disk_limit)] if args.disk_limit else [])
        for w, disk in runs:
            with tempfile.TemporaryDirectory() as tmp:
                cmd = [str(PEGSAT), *spec, "--json", "--spill", tmp, "--workers", w]
                if args.memory_limit:
                    cmd += ["--memory-limit", args.memory_limit]
                if disk:
                    cmd += ["--disk-limit", disk]
                run = measured(cmd, watch=Path(tmp))
                got = answer(spec, run.stdout)
                same = "same" if got == want else f"DIFFERENT: {got}"
                mode = f"spill, {w} worker(s)" + (f", {args.memory_limit}" if args.memory_limit else "")
                if disk:
                    levels = {line.split(": round")[0] for line in run.stderr.splitlines()
                              if ": round 2, " in line}
                    mode += f", disk {disk}: {len(levels)} in rounds"
                print(f"{'':<16}{mode:<44}{run.seconds:>9.1f}{run.peak_mb:>9.0f}{run.one_mb:>8.0f}"
                      f"{run.disk_mb:>9.1f}{base.seconds / run.seconds:>7.2f}x  {same}", flush=True)
                cert = Path(tmp) / "certificate.json"
                if "--min-moves" in spec and not disk and cert.is_file():
                    check = measured([str(PEGSAT), "check", str(cert), "--workers", w, "--quiet"])
                    held = "holds" if check.code == 0 and f"at least {got[1]} moves" in check.stdout \
                        else f"NOT: {check.stdout.strip()[-100:]}"
                    print(f"{'':<16}{f'  pegsat check, {w} worker(s)':<44}{check.seconds:>9.1f}"
                          f"{check.peak_mb:>9.0f}{check.one_mb:>8.0f}{'':>9}"
                          f"{base.seconds / check.seconds:>7.2f}x  {held}", flush=True)


if __name__ == "__main__":
    main()
