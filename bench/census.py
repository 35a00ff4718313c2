"""Benchmark: a reachable census by jump level (``count --spill``) as far as a time limit
allows, and the rest of it estimated from the levels measured.

Each level's growth ``g_k = L(k+1) / L(k)`` falls steadily once the first few jumps are
past (on the English board ``log g_k`` falls by 0.12 to 0.16 a level from level 9 to 27), so
the levels not reached are estimated by continuing ``log g_k``: a straight line through the
last five measured growths (the fall steepens later, so this overestimates) and a parabola
through every growth from level 4 on (this underestimates). The two give a bracket; a
census that finishes (``--validate``) shows how well the bracket made from its first
levels holds. The disk a level takes is its positions times the bytes per position of the
largest level written.

    python bench/census.py german --vacant e5 --spill DIR --workers 2 --memory-limit 8GB --time-limit 1800
    python bench/census.py english --validate
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
from outofcore import PEGSAT
from tree import measured

FIRST = 4  # growths before this level are left out of the fits (the first jumps are all alike)
LAST = 5  # growths the straight line goes through


def extend(levels: list[int], total: int, fit: str) -> list[float]:
    """``levels`` continued to ``total`` levels by a fit of their log growths."""
    ks = np.arange(len(levels) - 1)
    lg = np.log([levels[k + 1] / levels[k] for k in ks])
    if fit == "line":
        c = np.polyfit(ks[-LAST:], lg[-LAST:], 1)
    else:
        c = np.polyfit(ks[FIRST:], lg[FIRST:], 2)
    out: list[float] = [float(x) for x in levels]
    for k in range(len(levels) - 1, total - 1):
        out.append(out[-1] * math.exp(float(np.polyval(c, k))))
    return out


def bracket(levels: list[int], total: int) -> tuple[list[float], list[float]]:
    return extend(levels, total, "parabola"), extend(levels, total, "line")


def census(args: argparse.Namespace, spill: str) -> tuple[list[int], bool, dict]:
    cmd = [str(PEGSAT), "count", args.board, *(["--vacant", args.vacant] if args.vacant else []), "--json",
           "--quiet", "--spill", spill, "--workers", str(args.workers)]
    if args.memory_limit:
        cmd += ["--memory-limit", args.memory_limit]
    if args.disk_limit:
        cmd += ["--disk-limit", args.disk_limit]
    if args.time_limit:
        cmd += ["--time-limit", str(args.time_limit)]
    run = measured(cmd)
    data = json.loads(run.stdout.splitlines()[-1])
    manifest = json.loads((Path(spill) / "manifest.json").read_text())
    if "levels" in data:
        return [lv["classes"] for lv in data["levels"]], True, {"run": run, "manifest": manifest}
    return list(data["classes_per_level"]), False, {"run": run, "manifest": manifest}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("board")
    ap.add_argument("--vacant")
    ap.add_argument("--spill", help="the levels' directory (a rerun resumes there; default: a temporary one)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit")
    ap.add_argument("--disk-limit", help="the most the levels' directory may hold (a level whose buckets do "
                    "not fit is built in passes)")
    ap.add_argument("--time-limit", type=float)
    ap.add_argument("--validate", action="store_true",
                    help="a census that finishes: the bracket made from its first levels against it")
    args = ap.parse_args()
    spill = args.spill or tempfile.mkdtemp(prefix="pegsat-census-")
    try:
        levels, complete, got = census(args, spill)
    finally:
        if not args.spill:
            shutil.rmtree(spill, ignore_errors=True)
    run = got["run"]
    pegs = len(levels) if complete else None
    manifest_levels = got["manifest"].get("levels", [])
    print(f"# pegsat count {args.board}{' --vacant ' + args.vacant if args.vacant else ''} --spill: "
          f"{len(levels)} levels {'(complete)' if complete else '(time limit)'} in {run.seconds:.0f} s, "
          f"peak {run.peak_mb:.0f} MB (largest process {run.one_mb:.0f} MB)")
    print(f"{'level':>5} {'classes':>18} {'growth':>7}")
    for k, n in enumerate(levels):
        g = f"{levels[k + 1] / n:7.3f}" if k + 1 < len(levels) and n else ""
        print(f"{k:>5} {n:>18,} {g}")
    if args.validate and complete:
        print(f"\nthe bracket from the first K levels against the whole census ({sum(levels):,} classes):")
        print(f"{'K':>4} {'low':>16} {'high':>16} {'low/true':>9} {'high/true':>10}")
        for share in (0.3, 0.35, 0.4, 0.45, 0.5):
            k = int(round(share * len(levels)))
            lo, hi = bracket(levels[:k], len(levels))
            print(f"{k:>4} {sum(lo):>16,.0f} {sum(hi):>16,.0f} {sum(lo) / sum(levels):>9.2f} "
                  f"{sum(hi) / sum(levels):>10.2f}")
        return
    if complete:
        return
    from pegsat.model.catalogue import get_board

    board = get_board(args.board)
    pegs = board.n - 1  # one vacancy: levels 0 .. pegs - 1
    lo, hi = bracket(levels, pegs)
    sizes = [m.get("bytes", 0) / max(1, m.get("classes", 1)) for m in manifest_levels if m.get("classes")]
    per = sizes[-1] if sizes else float("nan")
    print(f"\nthe rest estimated ({pegs} levels in all; {per:.2f} bytes a position on disk at the last "
          "level):")
    print(f"{'level':>5} {'low':>18} {'high':>18}")
    for k in range(len(levels), pegs):
        print(f"{k:>5} {lo[k]:>18,.0f} {hi[k]:>18,.0f}")
    print(f"total classes: measured {sum(levels):,}; all levels between {sum(lo):,.0f} and {sum(hi):,.0f}; "
          f"the largest level between {max(lo):,.0f} and {max(hi):,.0f} "
          f"({max(lo) * per / 1e9:,.0f} to {max(hi) * per / 1e9:,.0f} GB on disk)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
