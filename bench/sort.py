#!/usr/bin/env python3
"""Benchmark behind ``Kernel.unique``: the core's radix sort against numpy's sort.

    python bench/sort.py

The levels of ``moves``, ``layers`` and ``count`` spend most of their time making a level's
children distinct (sorted, duplicates removed). Inputs here: random positions of the English
(33 holes) and German (45 holes) boards, each with a third of them repeated. Columns: numpy
(``np.sort`` and a mask: the baseline), the core's radix sort (``Kernel.unique``) and
``np.unique``, seconds, best of ``--repeat``; the ratio is numpy's sort / radix in the same
run. Both answers are compared.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from pegsat.engine.kernel import kernel  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402


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


if __name__ == "__main__":
    main()
