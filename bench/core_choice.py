#!/usr/bin/env python3
"""Benchmark behind the compiled core's language: C extension (built with the package) or numba.

    .venv/bin/pip install numba     # not a pegsat dependency; only this script uses it
    python bench/core_choice.py

The same depth-first search with a dead-position table (no symmetry, same hash, same
32-slot linear probing, same jump order: far-first) on English d4 -> c4 (no plan exists, so
both run until a budget of BUDGET nodes), written
once for numba (below) and once in C (``engine._core``). Printed: nodes per second of each
(ratio against the C core in the same run), what each costs a fresh process before its
first node (importing, and for numba loading its on-disk cache; compiling on first use),
and whether each has what the core needs (128-bit positions, atomics on shared memory).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from pegsat.engine import dfs as D  # noqa: E402
from pegsat.engine.bitboard import engine  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402
from pegsat.model.problem import Goal, single_vacancy  # noqa: E402

BITS = 24
BUDGET = 10_000_000

NUMBA_SOURCE = '''
import numpy as np
from numba import njit

@njit(cache=True)
def search(start, need, land, flip, goal, table, bits, budget):
    """Nodes expanded until the goal position, exhaustion or the budget; explicit stack."""
    mask = np.uint64((1 << bits) - 1)
    shift = np.uint64(64 - bits)
    J = need.shape[0]
    stack = np.empty(64, dtype=np.uint64)
    next_k = np.empty(64, dtype=np.int64)
    stack[0] = start
    next_k[0] = 0
    d = 0
    nodes = 0
    mult = np.uint64(0x9E3779B97F4A7C15)
    while d >= 0:
        pos = stack[d]
        k = next_k[d]
        if k == 0:
            if pos == goal:
                return nodes, True
            h = (pos * mult) >> shift
            dead = False
            for _ in range(32):
                v = table[h]
                if v == pos:
                    dead = True
                    break
                if v == 0:
                    break
                h = (h + np.uint64(1)) & mask
            if dead:
                d -= 1
                continue
            if nodes >= budget:
                return nodes, False
            nodes += 1
        moved = False
        while k < J:
            if (pos & need[k]) == need[k] and (pos & land[k]) == 0:
                next_k[d] = k + 1
                stack[d + 1] = pos ^ flip[k]
                next_k[d + 1] = 0
                d += 1
                moved = True
                break
            k += 1
        if not moved:
            h = (pos * mult) >> shift
            for _ in range(32):
                v = table[h]
                if v == 0 or v == pos:
                    table[h] = pos
                    break
                h = (h + np.uint64(1)) & mask
            d -= 1
    return nodes, False
'''


def problem_and_order():
    b = get_board("english")
    p = single_vacancy(b, b.hole("d4"), Goal.survivor(b, b.hole("c4")))
    return p, D.far_first(p)


def fresh(code: str, cwd: str) -> float:
    """Seconds a fresh interpreter spends on ``code`` (interpreter start-up subtracted)."""
    def once(c: str) -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", c], check=True, cwd=cwd)
        return time.perf_counter() - t
    base = min(once("pass") for _ in range(3))
    return min(once(code) for _ in range(3)) - base


def c_side(p, order) -> tuple[float, int]:
    from pegsat.engine.kernel import kernel
    k = kernel(p.board, ())
    b16 = lambda x: x.to_bytes(16, "little")  # noqa: E731
    table = np.zeros(1 << BITS, dtype=np.uint64)
    s = k.core_search(b16(p.start), b16(p.goal.full), b16(p.goal.empty), 1, 1, 1,
                      np.asarray(order, dtype=np.int32).tobytes(), table, False, b"", b"", b"")
    t = time.perf_counter()
    s.run(BUDGET)
    return time.perf_counter() - t, s.stats()["nodes"]


def main() -> None:
    p, order = problem_and_order()
    eng = engine(p.board)
    need = np.array([eng.need[k] for k in order], dtype=np.uint64)
    land = np.array([eng.land[k] for k in order], dtype=np.uint64)
    flip = np.array([eng.flip[k] for k in order], dtype=np.uint64)
    goal = np.uint64(p.goal.full)
    c_s, c_nodes = c_side(p, order)
    rows = [["C extension (engine._core)", f"{c_nodes / c_s / 1e6:.2f}", "1.00",
             f"{1000 * fresh('import pegsat.engine._core', str(ROOT / 'src')):.1f} ms", "-", "yes", "yes"]]
    try:
        import numba  # noqa: F401
    except ImportError:
        rows.append(["numba", "not installed (pip install numba)", "", "", "", "no", "no"])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "nb_dfs.py").write_text(NUMBA_SOURCE)
            sys.path.insert(0, tmp)
            t = time.perf_counter()
            import nb_dfs
            imp = time.perf_counter() - t
            table = np.zeros(1 << BITS, dtype=np.uint64)
            t = time.perf_counter()
            tiny = np.zeros(8, np.uint64)
            nb_dfs.search(np.uint64(p.start), need[:1], land[:1], flip[:1], goal, tiny, 3, 1)
            compile_s = time.perf_counter() - t
            t = time.perf_counter()
            n_nodes, _ = nb_dfs.search(np.uint64(p.start), need, land, flip, goal, table, BITS, BUDGET)
            n_s = time.perf_counter() - t
            z = "np.zeros(1, np.uint64)"
            load = fresh(f"import numpy as np, nb_dfs; nb_dfs.search(np.uint64(1), {z}, {z}, {z}, "
                         "np.uint64(1), np.zeros(8, np.uint64), 3, 1)", tmp)
        rows.append(["numba (njit, cache=True)", f"{n_nodes / n_s / 1e6:.2f}",
                     f"{(n_nodes / n_s) / (c_nodes / c_s):.2f}",
                     f"{1000 * load:.0f} ms (import {1000 * imp:.0f} ms + cache load)",
                     f"{compile_s:.2f} s", "no", "no"])
        if n_nodes != c_nodes:
            print(f"note: node counts differ (C {c_nodes}, numba {n_nodes})", file=sys.stderr)
    head = ["engine", "M nodes/s", "vs C", "fresh process, before the first node", "first compile",
            "128-bit", "atomics"]
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    for r in [head, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    print(f"\nEnglish d4 -> c4, far-first order, no symmetry, 2^{BITS}-slot table; {c_nodes} nodes each")


if __name__ == "__main__":
    main()
