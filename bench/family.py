#!/usr/bin/env python3
"""Write the family of DIMACS instances with known answers for SAT researchers, and print the
table of solve times (``pegsat.apps.family``: the instances, their answers and evidence).

    python bench/family.py --out DIR [--time-limit 60] [--small]

Each row: the file, its size, its answer and the seconds of CaDiCaL 1.9.5 and Glucose 4
(python-sat's, each in a child process; '-' past the limit). The machine anchor: CaDiCaL
refuting PHP(10, 9) (``bench/sat.py``'s), timed in this run; peak memory of this process and
its solver children.
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sat import anchor  # noqa: E402

from pegsat.apps.family import FAMILY, SMALL, write  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--small", action="store_true", help="the tests' quick triangle-5 instances only")
    args = ap.parse_args()
    print(f"# machine anchor: CaDiCaL refutes PHP(10, 9) in {anchor():.2f} s")
    print(f"{'file':36} {'vars':>6} {'clauses':>8} {'answer':8} {'cadical195':>10} {'glucose4':>9}")

    def say(r: dict) -> None:
        secs = ["-" if t is None else f"{t:.2f}" for t in r["seconds"].values()]
        print(f"{r['file']:36} {r['variables']:>6} {r['clauses']:>8} {r['answer']:8} {secs[0]:>10} "
              f"{secs[1]:>9}", flush=True)

    write(args.out, SMALL if args.small else FAMILY, args.time_limit, say=say)
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    print(f"# peak memory of one process (this one or a solver child): {peak:.0f} MB; {args.out}/README.md "
          "describes the family")


if __name__ == "__main__":
    main()
