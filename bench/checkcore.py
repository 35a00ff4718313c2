"""Benchmark: the independent checker's loops, compiled (``checks/_check.c``) against their numpy
reference, on real German positions.

The positions are those of the first forward levels by moves of the German central game, made in
memory here (``planners.moves.Search.warm``: about a million positions, a few seconds), so the
bench needs no certificate and no disk. Each loop runs on them in this process, both ways, its
CPU seconds (``time.process_time``, which a machine shared with other work disturbs less than
the clock) turned into millions of items per second of one core: the children by one jump with
their least images under the 8 symmetries (a levels check's expansion), a sort without repeats
(compiled: the faster here of numpy's sort and the radix sort, ``closure.radix_faster``, then
the compiled squeeze; beside it the compiled radix sort ``_check.distinct`` alone), a sorted
lookup, pagoda weights, the exclusions (by 16 pagodas' floors, as a levels check weighs its
children; hole by hole under 64 pagodas and the position classes, as an open game's dead-set
check does, on the children it excludes: a dead-set check weighs only the children its set
misses, each of which must be excluded), every position one move away (a moves check's
expansion), and the sorted children cut into the byte planes a level or bucket file stores and
joined back (``_planes.c``, the file format's: both the search and the checker read such files).
Then the lookups of bucket files (the children cut into sorted runs of ``--run`` as the check's
bucket files hold them, every one looked up in a part): a run at a time (the baseline) against
``closure.merged``'s millions at a time, both compiled. And a last step's children (none may be
met): sorted and looked up in a part (the baseline: what every child of a levels check's last
step cost before ``checks.sieve``) against sieved (``sieve.sieved``; its sieve the size of a
German level-21 partition's, 35 MB, so that every test leaves the cache as it does in a check),
both compiled. The pagodas are random weights: the loops' work does not depend on them being
pagodas. Beside them, the machine anchor (numpy's sort of 10^7 keys, ``tree.anchor``) and this
process's peak memory.

    python bench/checkcore.py [--positions N] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from tree import anchor  # noqa: E402

from pegsat import _planes, sealed  # noqa: E402
from pegsat.analysis.invariants import class_basis  # noqa: E402
from pegsat.checks import _check, sieve  # noqa: E402
from pegsat.checks.closure import Closure, distinct, merged, radix_faster, split  # noqa: E402
from pegsat.checks.moves import one_move  # noqa: E402
from pegsat.deadline import Deadline  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402
from pegsat.model.problem import Goal, single_vacancy  # noqa: E402
from pegsat.planners.moves import Search  # noqa: E402


def best(fn, repeat: int) -> float:
    """The least CPU seconds of ``repeat`` calls of ``fn``."""
    out = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        out = min(out, time.process_time() - t)
    return max(out, 1e-9)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=1 << 20, help="about this many positions (default 2^20)")
    ap.add_argument("--repeat", type=int, default=3, help="the best of this many runs of each loop")
    ap.add_argument("--run", type=int, default=1 << 16, help="children a bucket file holds (default 2^16)")
    args = ap.parse_args()
    board = get_board("german")
    p = single_vacancy(board, board.hole("e5"), Goal.survivor(board, board.hole("e5")))
    search = Search(p, Deadline())
    search.warm(args.positions)
    x = max(search.fwd, key=len)  # the largest forward level made
    x = x[: args.positions]
    group = tuple(tuple(s) for s in board.symmetries)
    rng = np.random.default_rng(1)
    pagodas = tuple((tuple(int(v) for v in rng.integers(-3, 4, size=board.n)), 0) for _ in range(4))
    fast = Closure(p, (), group, pagodas, None, compiled=True)
    slow = Closure(p, (), group, pagodas, None, compiled=False)
    kids = fast.children(x)
    floors = tuple((tuple(int(v) for v in rng.integers(-1, 6, size=board.n)), 40) for _ in range(16))
    by_floor = [Closure(p, (), group, floors, None, compiled=c) for c in (True, False)]
    open_game = single_vacancy(board, board.hole("e5"), Goal.one_peg())
    ladders = tuple((tuple(int(v) for v in rng.integers(-2, 3, size=board.n)), 1) for _ in range(64))
    classes = tuple(class_basis(board))
    holewise = [Closure(open_game, (), group, ladders, classes, compiled=c) for c in (True, False)]
    gone = kids[holewise[0].excluded(kids)]  # a dead-set check weighs the children it misses: all excluded
    part = distinct(kids[::2], compiled=True)
    words = sieve.build(part, sieve.words_for(17_800_000))  # a German level-21 partition's size
    srt = distinct(kids, compiled=True)  # as a bucket file holds them
    planes, back = np.empty(8 * len(srt), np.uint8), np.empty(len(srt), np.uint64)
    _planes.split(srt, planes)
    rows = []
    loops = [
        ("children + least images", len(kids), lambda c: c.children(x)),
        ("sort without repeats", len(kids), lambda c: distinct(kids, c.compiled)),
        ("the C radix sort", len(kids),
         lambda c: _check.distinct(kids.copy()) if c.compiled else distinct(kids)),
        ("sorted lookup", len(kids), lambda c: split(part, kids, c.compiled)),
        ("pagoda weights (4)", len(kids), lambda c: [c.weighs(kids, k) for k in range(4)]),
        ("exclusions (16 floors)", len(kids), lambda c: by_floor[not c.compiled].excluded(kids)),
        ("exclusions (hole by hole)", len(gone), lambda c: holewise[not c.compiled].excluded(gone)),
        ("sieve (16 bits)", len(kids), lambda c: sieve.perhaps(words, kids, c.compiled)),
        ("files' byte planes, cut", len(srt),
         lambda c: _planes.split(srt, planes) if c.compiled else sealed._split_reference(srt)),
        ("files' byte planes, joined", len(srt),
         lambda c: _planes.join(planes, back) if c.compiled else sealed._join_reference(planes, back)),
        ("one move (chains)", len(one_move(x, board.jumps, compiled=True)),
         lambda c: one_move(x, board.jumps, compiled=c.compiled)),
    ]
    for name, items, fn in loops:
        a, b = best(partial(fn, fast), args.repeat), best(partial(fn, slow), args.repeat)
        rows.append((name, items, items / a / 1e6, items / b / 1e6, b / a))
    whole = distinct(kids, compiled=True)
    held = whole[::2]  # half of them held by the part
    cuts = np.random.default_rng(2).permutation(len(whole))  # each run: random children, sorted
    runs = [np.sort(whole[cuts[lo:lo + args.run]]) for lo in range(0, len(whole), args.run)]
    by_run = best(lambda: [split(held, r, True, ordered=True) for r in runs], args.repeat)
    by_merge = best(lambda: [split(held, m, True, ordered=True) for m in merged(runs)], args.repeat)
    looked = best(lambda: split(part, distinct(kids, compiled=True), True, ordered=True), args.repeat)
    sieved = best(lambda: sieve.sieved([words], kids), args.repeat)
    keys = anchor()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"# python bench/checkcore.py --positions {args.positions} --repeat {args.repeat}  "
          f"({time.strftime('%Y-%m-%d')}; German e5 forward level of {len(x):,} positions, "
          f"{len(group)} symmetries)")
    head = f"{'loop':<26} {'items':>12} {'compiled M/s':>13} {'numpy M/s':>10} {'ratio':>6}"
    print(head)
    print("-" * len(head))
    for name, items, c, n, ratio in rows:
        print(f"{name:<26} {items:>12,} {c:>13.1f} {n:>10.1f} {ratio:>6.1f}")
    print("-" * len(head))
    n = len(whole)
    print(f"lookups of {len(runs):,} runs of {args.run:,} ({n:,} children) in a part of {len(held):,}: "
          f"a run at a time {n / by_run / 1e6:.1f} M/s, merged {n / by_merge / 1e6:.1f} M/s, "
          f"ratio {by_run / by_merge:.1f}")
    print(f"a last step's {len(kids):,} children against a part of {len(part):,}: sorted and looked up "
          f"{len(kids) / looked / 1e6:.1f} M/s, sieved {len(kids) / sieved / 1e6:.1f} M/s, "
          f"ratio {looked / sieved:.1f}")
    print(f"distinct sorts by {'the radix sort' if radix_faster() else 'numpy'} here (closure.radix_faster)")
    print(f"anchor: numpy sorts {keys / 1e6:.1f} M keys/s on one core; peak memory {peak:,.0f} MB")


if __name__ == "__main__":
    main()
