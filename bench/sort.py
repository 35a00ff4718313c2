#!/usr/bin/env python3
"""Benchmark behind ``Kernel.unique``: the core's radix sort against numpy's sort.

    python bench/sort.py

The levels of ``moves``, ``layers`` and ``count`` spend most of their time making a level's
children distinct (sorted, duplicates removed). Inputs here: random positions of the English
(33 holes) and German (45 holes) boards, each with a third of them repeated. Columns: numpy
(``np.sort`` and a mask: the baseline), the core's radix sort (``Kernel.unique``) and
``np.unique``, seconds, best of ``--repeat``; the ratio is numpy's sort / radix in the same
run. Both answers are compared.

A second table times what a task on disk does with a chunk of children (``engine.spill.expand``):
the children of positions of a German level (e1's level 13, grown here in memory), made
distinct and grouped by partition in two orders: sorted whole, then routed (what ``expand``
does: the baseline), and routed first, then each partition's sorted (what the levels check
does, ``checks.levels``: its sorts stay in the cache); seconds, best of ``--repeat``, and the
ratio (above 1: routing first is faster); both give each partition the same positions.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from pegsat.engine.bitboard import stabilizer  # noqa: E402
from pegsat.engine.kernel import kernel  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402
from pegsat.model.problem import single_vacancy  # noqa: E402


def numpy_sort(a: np.ndarray) -> np.ndarray:
    s = np.sort(a)
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def best(f, a: np.ndarray, repeat: int) -> tuple[float, np.ndarray]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f(a)
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="100000,2400000,20000000")
    ap.add_argument("--no-np-unique", action="store_true", help="skip np.unique (slow here)")
    ap.add_argument("--chunks", default="1000000,4000000", help="positions whose children a chunk holds")
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    print("| board | positions | numpy sort s | radix s | np.unique s | numpy/radix |")
    print("|---|---|---|---|---|---|")
    for name in ("english", "german"):
        b = get_board(name)
        k = kernel(b, (tuple(range(b.n)),))
        for n in (int(x) for x in args.sizes.split(",")):
            a = rng.integers(0, 1 << b.n, n, dtype=np.uint64) & rng.integers(0, 1 << b.n, n, dtype=np.uint64)
            a = np.concatenate([a, a[: n // 3]])
            t_np, u_np = best(numpy_sort, a, args.repeat)
            t_rx, u_rx = best(k.unique, a, args.repeat)
            if not np.array_equal(u_np, u_rx):
                sys.exit(f"{name} {n}: the two sorts disagree")
            t_un = "" if args.no_np_unique else f"{best(np.unique, a, 1)[0]:.3f}"
            print(f"| {name} | {len(a):,} | {t_np:.3f} | {t_rx:.3f} | {t_un} | {t_np / t_rx:.1f}x |",
                  flush=True)
    chunks(args.repeat, [int(x) for x in args.chunks.split(",")])


def chunks(repeat: int, sizes: list[int]) -> None:
    """A chunk's children made distinct by partition: sorted whole then routed, or routed then
    sorted by partition (``engine.spill.expand``)."""
    b = get_board("german")
    problem = single_vacancy(b, b.hole("e1"))
    k = kernel(b, tuple(tuple(g) for g in stabilizer(problem)))
    level = k.unique(k.canon(k.array([problem.start])))
    for _ in range(13):
        level = k.unique(k.step(level))
    print(f"\nGerman e1 -> e1's level 13: {len(level):,} positions")
    print("| positions | children | partitions | sorted, then routed s | routed, then sorted s | ratio |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        kids = k.step(level[:n])
        for parts in (128, 256):
            def whole(kids: np.ndarray = kids, parts: int = parts) -> list[np.ndarray]:
                grouped, cut = k.route(k.unique(kids), parts)
                return [grouped[cut[q]:cut[q + 1]] for q in range(parts)]

            def by_part(kids: np.ndarray = kids, parts: int = parts) -> list[np.ndarray]:
                grouped, cut = k.route(kids, parts)
                return [k.unique(grouped[cut[q]:cut[q + 1]], own=True, view=True) for q in range(parts)]

            t_whole, a = best(whole, kids, repeat)
            t_part, c = best(by_part, kids, repeat)
            if any(not np.array_equal(x, y) for x, y in zip(a, c, strict=True)):
                sys.exit(f"{n} positions, {parts} partitions: the two orders disagree")
            print(f"| {n:,} | {len(kids):,} | {parts} | {t_whole:.3f} | {t_part:.3f} "
                  f"| {t_whole / t_part:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
