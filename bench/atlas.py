"""Benchmark: certified atlases — build one per board (``survey BOARD --certificates DIR``),
check it (``pegsat check DIR``), and print the cells by verdict, the time and peak memory of
each step (the process tree, sampled: ``tree.measured``), the disk the atlas takes, and what
the check verified by kind. ``--min-moves``: the fewest moves of every solvable cell, proven
(``survey --min-moves``) and certified (``moves`` certificates, ``proofs.bymoves``), and the
cells whose plans and certificates the check verifies.

    python bench/atlas.py [--only triangle-5,english,french] [--time-limit 60] [--prove-limit 300]
                          [--layers-limit S] [--spill DIR] [--min-moves] [--keep DIR]
                          [--check-workers N]

``--spill DIR``: the survey's exhaustive step goes on disk past the memory budget, in
DIR/BOARD/V-S, and a rerun goes on from the levels kept there (German e1 -> e1).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from outofcore import PEGSAT
from tree import measured


def disk(root: Path) -> float:
    """MB the atlas's files take."""
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="triangle-5,english,french")
    ap.add_argument("--time-limit", default="60")
    ap.add_argument("--prove-limit", default="300")
    ap.add_argument("--layers-limit", help="seconds for the survey's exhaustive step (default: --time-limit)")
    ap.add_argument("--spill", help="the exhaustive step's levels on disk past the memory budget, here")
    ap.add_argument("--min-moves", action="store_true", help="the fewest moves of every solvable cell")
    ap.add_argument("--keep", help="write the atlases under this directory (else a temporary one)")
    ap.add_argument("--check-workers", default="1",
                    help="local Dask workers for the check's dead sets and levels (pegsat check --workers)")
    args = ap.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pegsat-atlas-"))
    print(f"{'board':<11} {'cells':>6} {'solv':>5} {'unsolv':>6} {'unknown':>7}  {'build s':>8} {'MB':>6}  "
          f"{'check s':>8} {'MB':>6}  {'disk MB':>8}  check")
    print("-" * 150)
    for board in args.only.split(","):
        root = base / board
        built = measured([str(PEGSAT), "survey", board, "--certificates", str(root), "--quiet",
                          "--time-limit", args.time_limit, "--prove-limit", args.prove_limit,
                          *(["--min-moves"] if args.min_moves else []),
                          *(["--layers-limit", args.layers_limit] if args.layers_limit else []),
                          *(["--spill", str(Path(args.spill) / board)] if args.spill else [])])
        if not (root / "atlas.json").is_file():
            print(f"{board:<11} no atlas (exit {built.code}): {built.stderr.strip()[-200:]}", flush=True)
            continue
        cells = json.loads((root / "atlas.json").read_text())["cells"]
        n = {s: sum(c["status"] == s for c in cells) for s in ("solvable", "unsolvable", "unknown")}
        checked = measured([str(PEGSAT), "check", str(root), "--quiet", "--workers", args.check_workers])
        said = checked.stdout.strip().splitlines()
        verdict = said[0].split(": ", 2)[-1] if said else "(no output)"
        failed = sum(line.startswith(("FAILED", "NOT SETTLED")) for line in said)
        print(f"{board:<11} {len(cells):>6} {n['solvable']:>5} {n['unsolvable']:>6} {n['unknown']:>7}  "
              f"{built.seconds:>8.1f} {built.peak_mb:>6.0f}  "
              f"{checked.seconds:>8.1f} {checked.peak_mb:>6.0f}  {disk(root):>8.1f}  "
              f"{verdict}" + (f"; {failed} FAILED/NOT SETTLED" if failed else ""), flush=True)
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
