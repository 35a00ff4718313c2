#!/usr/bin/env python3
"""Benchmark: the search by moves with and without its pagodas' cut, in memory.

    python bench/cuts.py [--only english,french] [--time-limit 900]
    python bench/cuts.py --learning

Each problem is searched twice under the same upper bound (its fewest moves plus one, as a
first plan often gives): ``plain``, Merson's bounds only (the baseline), and ``pagodas``,
cut as well by the pagodas of ``analysis.pagoda.for_levels`` (their learning counted in the
row's seconds). ``ratio`` is the baseline's seconds over the row's, both in this run. Every
row runs in a fresh forked process: ``peak MiB`` is its own maximum resident set.

``--learning``: what the cut costs, ``for_levels`` with every playout (``LEARN_SECONDS``
lifted) on the German, French, English, diamond and triangle-6 boards, ``built`` with the LP model built
for every LP (the baseline) and ``stored``, posed on the one model stored per board and goal
(``analysis.pagoda._model``): the same pagodas either way (the row says so), its seconds and
the ratio.

The machine anchor: numpy's sort of 10^7 random 64-bit keys, in keys per second, measured
at the start and the end of the run; a level's positions per second is the same kind of work
(children made, sorted, deduplicated, filtered), so the two together say how fast this
machine was while the rows ran. Shared, noisy machines: compare rows of one run.
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
sys.path.insert(0, str(ROOT / "bench"))

from tree import anchor  # noqa: E402

from pegsat.analysis import pagoda  # noqa: E402
from pegsat.deadline import Deadline, Timeout  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402
from pegsat.model.problem import Goal, single_vacancy  # noqa: E402
from pegsat.planners.moves import Search  # noqa: E402

#: (board, vacancy, survivor, fewest moves)
PROBLEMS = {
    "english": [("english", "d4", "d4", 18), ("english", "d1", "d1", 18), ("english", "d4", "d1", 17),
                ("english", "c1", "c1", 16)],
    "french": [("french", "d2", "d3", 20), ("french", "c1", "e4", 20)],
}


def search(board: str, v: str, s: str, upper: int, cut: bool, limit: float):
    b = get_board(board)
    p = single_vacancy(b, b.hole(v), Goal.survivor(b, b.hole(s)))
    deadline = Deadline(limit)
    pagodas = pagoda.for_levels(p, deadline) if cut else []
    found = Search(p, deadline, upper=upper, pagodas=pagodas)
    try:
        best, lower, _ = found.run()
    except Timeout:
        return None, None, sum(map(sum, found.sizes().values())), len(pagodas)
    return best, lower, sum(map(sum, found.sizes().values())), len(pagodas)


#: (board, vacancy, survivor): the learning table's problems
LEARNING = [("german", "e5", "e5"), ("german", "e3", "e3"), ("french", "d3", "g5"), ("english", "c1", "c1"),
            ("diamond", "d2", "f2"), ("triangle-6", "a1", "")]


def learning(board: str, v: str, s: str, stored: bool):
    """``for_levels``'s pagodas with every playout, the model stored or built for every LP
    (``s`` empty: to one peg anywhere)."""
    b = get_board(board)
    p = single_vacancy(b, b.hole(v), Goal.survivor(b, b.hole(s)) if s else Goal.one_peg())
    pagoda.LEARN_SECONDS = 1e6
    if not stored:
        pagoda._model = pagoda._model.__wrapped__  # type: ignore[attr-defined]
    return pagoda.for_levels(p, Deadline())


def _in_child(fn, args, q) -> None:
    t = time.perf_counter()
    out = fn(*args)
    q.put((out, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def measured(fn, *args):
    """``fn(*args)`` in a forked process: (its answer, seconds, the process's peak MiB)."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    proc = ctx.Process(target=_in_child, args=(fn, args, q))
    proc.start()
    out = q.get()
    proc.join()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="english,french")
    ap.add_argument("--time-limit", type=float, default=900.0)
    ap.add_argument("--learning", action="store_true", help="the pagodas' learning: stored model, built")
    args = ap.parse_args()
    before = anchor()
    print(f"machine anchor: numpy sorts {before / 1e6:.1f} M keys/s (10^7 random 64-bit keys)")
    if args.learning:
        learning_table()
        print(f"machine anchor at the end: {anchor() / 1e6:.1f} M keys/s")
        return
    print(f"{'problem':<22}{'method':<9}{'moves':>6}{'pagodas':>8}{'positions':>14}{'seconds':>9}"
          f"{'M pos/s':>8}{'peak MiB':>9}{'ratio':>8}")
    print("-" * 93)
    for table in args.only.split(","):
        for board, v, s, fewest in PROBLEMS[table]:
            base = None
            for cut in (False, True):
                out, secs, peak = measured(search, board, v, s, fewest + 1, cut, args.time_limit)
                best, lower, positions, n = out
                moves = "?" if lower is None else best if best is not None else f">={lower}"
                if lower is not None and (best or lower) != fewest:
                    moves = f"{moves}!"  # never expected: the search disagrees with the known value
                base = base or secs
                print(f"{board} {v}->{s}".ljust(22) + f"{'pagodas' if cut else 'plain':<9}{moves!s:>6}{n:>8}"
                      f"{positions:>14,}{secs:>9.1f}{positions / secs / 1e6:>8.2f}{peak:>9.0f}"
                      f"{base / secs:>7.2f}x", flush=True)
    print(f"machine anchor at the end: {anchor() / 1e6:.1f} M keys/s")


def learning_table() -> None:
    print(f"{'problem':<22}{'model':<9}{'pagodas':>8}{'same':>6}{'seconds':>9}{'peak MiB':>9}{'ratio':>8}")
    print("-" * 71)
    for board, v, s in LEARNING:
        runs = [measured(learning, board, v, s, stored) for stored in (False, True)]
        for stored, (found, secs, peak) in zip((False, True), runs, strict=True):
            same = "yes" if found == runs[0][0] else "NO"
            model = "stored" if stored else "built"
            print(f"{board} {v}->{s or 'one'}".ljust(22) + f"{model:<9}{len(found):>8}{same:>6}{secs:>9.2f}"
                  f"{peak:>9.0f}{runs[0][1] / secs:>7.2f}x", flush=True)


if __name__ == "__main__":
    main()
