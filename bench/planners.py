#!/usr/bin/env python3
"""Benchmark: problem x planner -> status, encoding seconds, solver seconds, total seconds.

    python bench/planners.py [--time-limit 60] [--only english,french]

The baseline is the textbook encoding (``sat`` with sequential steps: exactly one jump per
step) measured in the same run; the last column is its total time divided by each row's
(a speedup; ">" when the baseline hit the time limit). Timings on shared machines are
noisy: compare rows of one run, not runs.
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from pegsat.analysis.invariants import possible_survivors  # noqa: E402
from pegsat.apps.solve import solve  # noqa: E402
from pegsat.deadline import Deadline  # noqa: E402
from pegsat.encoding.encoder import EncodeOptions  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402
from pegsat.model.problem import Goal, single_vacancy  # noqa: E402
from pegsat.model.result import Status  # noqa: E402
from pegsat.planners.config import Config  # noqa: E402


def problems():
    e = get_board("english")
    yield "english central", single_vacancy(e, e.hole("d4"))
    yield "english d4->d1", single_vacancy(e, e.hole("d4"), Goal.survivor(e, e.hole("d1")))
    f = get_board("french")
    yield "french c1->e1", single_vacancy(f, f.hole("c1"), Goal.survivor(f, f.hole("e1")))
    g = get_board("german")
    yield "german central", single_vacancy(g, g.hole("e5"))
    d = get_board("diamond")
    v = next(v for v in range(d.n) if possible_survivors(d, d.full & ~(1 << v)))
    yield f"diamond {d.names[v]}->one", single_vacancy(d, v, Goal.one_peg())
    for n in (6, 7, 8):
        t = get_board(f"triangle-{n}")
        yield f"triangle-{n} a1->a1", single_vacancy(t, t.hole("a1"))


PLANNERS = [
    ("sat-seq", "sat", EncodeOptions(steps="sequential")),  # baseline
    ("sat", "sat", EncodeOptions()),
    ("cpsat", "cpsat", EncodeOptions()),
    ("search", "search", EncodeOptions()),
    ("auto", "auto", EncodeOptions()),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--only", help="comma-separated substrings of problem names")
    ap.add_argument("--planners", help="comma-separated planner labels")
    args = ap.parse_args()
    only = args.only.split(",") if args.only else None
    labels = args.planners.split(",") if args.planners else [p[0] for p in PLANNERS]
    head = (f"{'problem':<22}{'planner':<9}{'status':<11}{'proof':<17}"
            f"{'encode s':>9}{'solve s':>9}{'total s':>9}{'speedup':>9}")
    print(head)
    print("-" * len(head))
    for name, problem in problems():
        if only and not any(o in name for o in only):
            continue
        base = None
        for label, planner, enc in PLANNERS:
            if label not in labels:
                continue
            r = solve(problem, planner, Config(encode=enc), Deadline(args.time_limit))
            st = r.stats
            total = st.get("total_s", 0.0)
            if label == "sat-seq":
                base = (total, r.status)
            if base is None or total <= 0:
                speed = ""
            else:
                prefix = ">" if base[1] is Status.UNKNOWN else ""
                speed = f"{prefix}{base[0] / total:.1f}x"
            print(f"{name:<22}{label:<9}{r.status.value:<11}{(r.proof.value if r.proof else '-'):<17}"
                  f"{st.get('encode_s', 0.0):>9.2f}{st.get('solve_s', 0.0):>9.2f}{total:>9.2f}{speed:>9}",
                  flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory of this process: {peak:.0f} MiB; time limit {args.time_limit:.0f} s per cell")


if __name__ == "__main__":
    main()
