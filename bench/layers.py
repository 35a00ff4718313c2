#!/usr/bin/env python3
"""Benchmark: the exhaustive search by jumps (planner ``layers``) with and without pagodas.

    python bench/layers.py [--time-limit 600] [--french-d3d5]

Methods, each row in a fresh forked process (``peak MiB`` is that row's own):

* ``plain`` (baseline): the same bidirectional breadth-first search by jumps, no pruning;
* ``pagodas``: with the pagodas learned by LP as the search goes (the default).

``positions`` is the sum of all level sizes kept; ``ratio`` is the baseline's seconds over the
row's, measured in the same run (">" when the baseline hit the time limit). French d3 -> d5
(``--french-d3d5``) is the problem this planner was built for: about 10 minutes, 4.3 GB.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from pegsat.deadline import Deadline, Timeout  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402
from pegsat.model.problem import Goal, single_vacancy  # noqa: E402
from pegsat.planners.layers import Layers  # noqa: E402


def _child(problem, learn, limit, q):
    t = time.perf_counter()
    s = Layers(problem, Deadline(limit), learn=learn)
    try:
        meet = s.run()
        out = "solved" if meet is not None else "unsolvable"
    except Timeout:
        out = "timeout"
    rec = s.record()
    q.put((out, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           sum(rec["forward_levels"]) + sum(rec["backward_levels"]), max(rec["forward_levels"]),
           sum(len(v) for v in rec["pagodas"].values())))


def measured(problem, learn, limit):
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(problem, learn, limit, q))
    p.start()
    out = q.get()
    p.join()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--french-d3d5", action="store_true")
    args = ap.parse_args()
    e, f = get_board("english"), get_board("french")
    rows = [
        ("english d4->d4", single_vacancy(e, e.hole("d4"))),
        ("english d1->d1", single_vacancy(e, e.hole("d1"), Goal.survivor(e, e.hole("d1")))),
        ("french c1->e1", single_vacancy(f, f.hole("c1"), Goal.survivor(f, f.hole("e1")))),
        ("french c1->e4", single_vacancy(f, f.hole("c1"), Goal.survivor(f, f.hole("e4")))),
    ]
    if args.french_d3d5:
        rows.append(("french d3->d5", single_vacancy(f, f.hole("d3"), Goal.survivor(f, f.hole("d5")))))
    head = f"{'problem':18} {'method':8} {'status':10} {'seconds':>8} {'peak MiB':>9} {'positions':>11} " \
           f"{'widest':>10} {'pagodas':>7} {'ratio':>7}"
    print(head)
    print("-" * len(head))
    for name, prob in rows:
        base = None
        for method, learn in (("plain", False), ("pagodas", True)):
            if method == "plain" and name == "french d3->d5":
                print(f"{name:18} {'plain':8} {'skipped':10} (about 200M positions at level 18: hours)")
                continue
            status, secs, mib, positions, widest, npag = measured(prob, learn, args.time_limit)
            if method == "plain":
                base = (status, secs)
            ratio = "-"
            if method == "pagodas" and base is not None and status == "timeout":
                ratio = "n/a"  # both stopped by the limit: compare the positions reached instead
            elif method == "pagodas" and base is not None:
                ratio = (">" if base[0] == "timeout" else "") + f"{base[1] / secs:.1f}x"
            print(f"{name:18} {method:8} {status:10} {secs:8.1f} {mib:9.0f} {positions:11,} {widest:10,} "
                  f"{npag:7} {ratio:>7}", flush=True)
    print(f"\ntime limit {args.time_limit:.0f} s per row; 'widest': the largest forward level kept")


if __name__ == "__main__":
    main()
