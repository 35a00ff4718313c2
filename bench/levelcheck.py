"""Benchmark: the independent check of a ``levels`` certificate, one level at a time.

A whole check walks every child of every level (hours on the German board), so this bench
times the check of chosen levels of a certificate (each level's partitions expanded, their
children's buckets looked up in the next level), in this process, one task after another:
children walked per second of one core in the expansion (the lookups of a few parts read the
whole next level: their time is shown, not counted), bucket bytes per child, the numpy
reference checker's rate on the level's first part (``--reference`` seconds of it) and the
compiled one's ratio to it, and the whole expansion's time at that rate (a guess, said as
one); then where the expansions' time went, stage by stage, in nanoseconds a child; the
machine anchor before and after.

    python bench/levelcheck.py DIR/certificate.json [--levels 12,14] [--parts 4]
    python bench/levelcheck.py DIR/certificate.json --whole [--workers 2]

``--parts N``: the first N partitions of each level only (the rate, not the verdict).
``--whole``: the whole check twice, each a fresh ``pegsat check`` process (``tree.measured``):
the level files read, then the levels rebuilt by the checker (``--rebuild``); their seconds
(the rebuild's ratio to the files' check: above 1, slower), the peak memory of the process tree
and of its largest process, and the most the check's scratch directory held (buckets, and
the levels rebuilt).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from pegsat import sealed
from pegsat.checks import _check, kit, levels
from pegsat.checks.closure import Closure
from pegsat.checks.evidence import pagodas_of
from pegsat.model.codec import problem_from_json


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("certificate")
    ap.add_argument("--levels", default=None, help="levels to time (default: the two largest but the last)")
    ap.add_argument("--parts", type=int, default=None)
    ap.add_argument("--reference", type=float, default=20.0,
                    help="seconds of the numpy reference's expansion of each level's first part (0: none)")
    ap.add_argument("--whole", action="store_true", help="the whole check, the files read and rebuilt")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    path = Path(args.certificate)
    if args.whole:
        return whole(path, args.workers)
    import tree

    cert = json.loads(path.read_text())
    problem, ev = problem_from_json(cert["problem"]), cert["evidence"]
    sizes = [sum(it["count"] for it in lv) for lv in ev["levels"]]
    loaders = tuple(tuple(partial(kit.load_level_part, path.parent / it["file"], it["count"], it["sha256"])
                          for it in lv) for lv in ev["levels"])
    pagodas = tuple((tuple(w), f) for w, f in pagodas_of(problem, ev))
    group = tuple(tuple(p) for p in ev["symmetries"])
    closure, reference = (Closure(problem, (), group, pagodas, None, compiled=c) for c in (True, False))
    a = len(sizes) - 1
    chosen = ([int(x) for x in args.levels.split(",")] if args.levels
              else sorted(sorted(range(a), key=lambda d: sizes[d])[-2:]))
    print(f"{path}: {a + 1} levels, {sum(sizes):,} positions; timing levels {chosen}")
    print(f"machine anchor: numpy sorts {tree.anchor() / 1e6:.1f} M keys/s on one core "
          "(10^7 random 64-bit keys)")
    print(f"{'level':>5}{'positions':>15}{'children':>16}{'expand s':>10}{'lookup s':>10}{'children/s':>12}"
          f"{'B/child':>9}{'numpy/s':>11}{'ratio':>7}")
    stages: Counter[str] = Counter()
    walked = 0
    for d in chosen:
        parts = len(loaders[d]) if args.parts is None else min(args.parts, len(loaders[d]))
        with tempfile.TemporaryDirectory(prefix="levelcheck-") as tmp:
            check = levels.Levels(closure, loaders, None, 0, problem.start.bit_count(), tmp)
            t = time.perf_counter()
            with timed(stages):
                got = [check.expand(d, p) for p in range(parts)]
            expand = time.perf_counter() - t
            bad = [w for _, w in got if w]
            made = sum(f.stat().st_size for f in check.bucket_dir("forward", d).glob("*.bkt"))
            t = time.perf_counter()
            bad += [w for w in (check.lookup(d, q) for q in range(len(loaders[d + 1]))) if w]
            lookup = time.perf_counter() - t
        with tempfile.TemporaryDirectory(prefix="levelcheck-") as tmp:  # the reference, a time limit's worth
            slow = levels.Levels(reference, loaders, None, 0, problem.start.bit_count(), tmp)
            t = time.perf_counter()
            few = slow.expand(d, 0, seconds=args.reference)[0] if args.reference > 0 else 0
            numpy = few / max(time.perf_counter() - t, 1e-9)
        children = sum(n for n, _ in got)
        walked += children
        positions = sum(ev["levels"][d][p]["count"] for p in range(parts))
        rate = children / max(expand, 1e-9)  # lookups read the next level once whatever the parts
        ref = f"{numpy:>11,.0f}{rate / numpy:>6.1f}x" if numpy else f"{'-':>11}{'-':>7}"
        print(f"{d:>5}{positions:>15,}{children:>16,}{expand:>10.1f}{lookup:>10.1f}{rate:>12,.0f}"
              f"{made / max(1, children):>9.2f}{ref}" + (f"  FAILED: {bad[0][:60]}" if bad else ""),
              flush=True)
    per_position = children / max(1, positions)
    guess = sum(sizes) * per_position / rate
    print(f"the whole check's expansion at {rate:,.0f} children/s, {per_position:.1f} children a position: "
          f"~{guess / 3600:.1f} core-hours (a guess; the lookups read every level once more, and the last "
          "level's mirror images cost about as much again)")
    print(f"where the expansions' time went ({walked:,} children):")
    print(f"{'stage':<42}{'seconds':>9}{'ns/child':>10}")
    for name, secs in stages.most_common():
        print(f"{name:<42}{secs:>9.2f}{secs / max(1, walked) * 1e9:>10.2f}")
    print(f"machine anchor at the end: {tree.anchor() / 1e6:.1f} M keys/s")


STAGES = {  # what an expansion's stages call: (module, name) -> the stage
    (levels.Levels, "_part"): "a part read and checked",
    (_check, "children"): "children by the jump rule (least images)",
    (_check, "sorted_groups"): "grouped by partition, sorted",
    (_check, "route"): "grouped by partition (code before sorted_groups)",
    (_check, "distinct"): "sorted without repeats",
    (sealed, "encode"): "byte planes and Zstandard",
    (sealed, "write"): "bucket files written (less encoding)",
}


@contextmanager
def timed(into: Counter[str]) -> Iterator[None]:
    """The expansion's stages (``STAGES``) timed by wrappers while the block runs: each
    stage's own seconds (a file's writing less its encoding) added to ``into``."""
    saved = {key: getattr(*key) for key in STAGES if hasattr(*key)}  # (older code lacks some)
    inner: list[float] = [0.0]

    def wrap(key: tuple[Any, str], fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*a: Any, **k: Any) -> Any:
            t, before = time.perf_counter(), inner[0]
            try:
                return fn(*a, **k)
            finally:
                spent = time.perf_counter() - t
                into[STAGES[key]] += spent - (inner[0] - before)
                inner[0] = before + spent
        return run

    for key, fn in saved.items():
        setattr(key[0], key[1], wrap(key, fn))
    try:
        yield
    finally:
        for key, fn in saved.items():
            setattr(key[0], key[1], fn)


def whole(path: Path, workers: int) -> None:
    """The whole check of ``path`` read from its files and rebuilt, each a measured process."""
    import tree

    pegsat = Path(sys.executable).parent / "pegsat"
    print(f"{path}: the whole check on {workers} worker(s)")
    print(f"{'check':<9}{'verdict':>10}{'seconds':>10}{'ratio':>7}{'tree MB':>9}{'1 proc':>8}"
          f"{'scratch MB':>12}")
    base = None
    for mode, extra in (("files", []), ("rebuild", ["--rebuild"])):
        with tempfile.TemporaryDirectory(prefix="levelcheck-") as tmp:
            scratch = Path(tmp) if workers == 1 else path.parent  # where the check's scratch goes
            before = tree._bytes(scratch)
            os.environ["TMPDIR"] = tmp
            try:
                cmd = [str(pegsat), "check", str(path), "--quiet", "--workers", str(workers), *extra]
                r = tree.measured(cmd, watch=scratch)
            finally:
                del os.environ["TMPDIR"]
        verdict = {0: "holds", 1: "REJECTED", 20: "unsettled"}.get(r.code, f"exit {r.code}")
        base = base or r.seconds
        print(f"{mode:<9}{verdict:>10}{r.seconds:>10.1f}{r.seconds / base:>6.2f}x{r.peak_mb:>9.0f}"
              f"{r.one_mb:>8.0f}{r.disk_mb - before / 1e6:>12.1f}", flush=True)
        if r.code not in (0, 1, 20):
            print(r.stderr.strip().splitlines()[-1:])


if __name__ == "__main__":
    main()
