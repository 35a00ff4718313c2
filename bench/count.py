#!/usr/bin/env python3
"""Benchmark: ``pegsat count`` as whole processes, against a plain reference count.

    python bench/count.py [--french]

Rows: each problem counted by a fresh ``pegsat count --json`` process (wall clock, peak
memory by GNU time), its totals, and for the small boards the same counts by a plain Python
recursion over raw positions (no symmetry, no compiled code) in this process: the ratio is
reference seconds / pegsat seconds, measured in the same run. The English central game is
checked against the published values (OEIS A112737 total, A112738 total, the number of
solutions). ``--french`` adds the French central game (vacancy d4, one peg anywhere): every
reachable position, several hundred million up to symmetry; minutes and gigabytes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from pegsat.apps.pose import pose  # noqa: E402
from pegsat.engine.bitboard import engine  # noqa: E402
from pegsat.model.options import ProblemOptions  # noqa: E402

PEGSAT = Path(sys.executable).parent / "pegsat"
PUBLISHED = {"english --survivor d4": (23_475_688, 1_679_072, 40_861_647_040_079_968)}


def run(args: list[str]) -> tuple[dict, float, float]:
    with tempfile.NamedTemporaryFile("r") as mem:
        t = time.perf_counter()
        out = subprocess.run(["/usr/bin/time", "-q", "-f", "%M", "-o", mem.name, str(PEGSAT), "count", *args,
                              "--json", "--quiet"], capture_output=True, text=True)
        secs = time.perf_counter() - t
        kb = mem.read().split()
    if out.returncode != 0:
        raise SystemExit(f"pegsat count {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout), secs, int(kb[-1]) / 1024 if kb else float("nan")


def reference(spec: str, options: ProblemOptions) -> tuple[int, float]:
    """Winning sequences by plain recursion over raw positions, and its seconds."""
    problem = pose(spec, options).problem
    e, g = engine(problem.board), problem.goal
    t = time.perf_counter()

    @lru_cache(None)
    def winning(p):
        return int(g.satisfied(p)) + sum(winning(e.apply(p, k)) for k in e.legal(p))

    sys.setrecursionlimit(10000)
    return winning(problem.start), time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--french", action="store_true")
    args = ap.parse_args()
    cases = [("triangle-5 --vacant a1", ProblemOptions(vacant="a1"), True),
             ("triangle-6 --vacant a1 --survivor a1", ProblemOptions(vacant="a1", survivor="a1"), True),
             ("english --survivor d4", None, False), ("english", None, False)]
    if args.french:
        cases.append(("french --vacant d4", None, False))
    print(f"cores: {os.cpu_count()}")
    print(f"{'problem':<38}{'classes':>13}{'positions':>15}{'alive':>12}{'winning':>28}{'s':>8}{'MB':>7}"
          f"{'ref s':>8}{'ratio':>8}  note")
    print("-" * 140)
    for spec, options, small in cases:
        data, secs, mb = run(spec.split())
        tot = data["totals"]
        note, ref_s, ratio = [], "", ""
        if small:
            board, *rest = spec.split()
            want, rs = reference(board, options)
            ref_s, ratio = f"{rs:.2f}", f"{rs / secs:.1f}x"
            note.append("reference agrees" if want == data["winning_sequences"] else f"MISMATCH {want}")
        if spec in PUBLISHED:
            got = (tot["classes"], tot["alive_classes"], data["winning_sequences"])
            note.append("published values" if got == PUBLISHED[spec] else f"MISMATCH {PUBLISHED[spec]}")
        ones = [lv for lv in data["levels"] if lv["pegs"] == 1]
        if ones:
            note.append(f"one peg left: {ones[0]['classes']:,} classes, {ones[0]['positions']:,} positions")
        print(f"{spec:<38}{tot['classes']:>13,}{tot['positions']:>15,}{tot['alive_classes']:>12,}"
              f"{data['winning_sequences']:>28,}{secs:>8.2f}{mb:>7.0f}{ref_s:>8}{ratio:>8}  "
              f"{'; '.join(note)}", flush=True)
    print("games until no jump is left (last row):", f"{data['games']:,}")


if __name__ == "__main__":
    main()
