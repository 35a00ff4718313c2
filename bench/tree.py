"""One command as a whole process tree: its seconds, and its peak memory sampled with psutil;
and the machine anchor the benchmarks print beside their rates (``anchor``).

The peak is the largest sum of resident memory over the command's process and every process
it started (Dask workers included), sampled every 50 ms; ``one`` is the largest resident
memory any single process of the tree reached (what a per-worker memory limit bounds);
``disk_mb``, with ``watch``, the most the files under that directory held at a sample.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psutil

SAMPLE_S = 0.05


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mb: float  # the whole tree's
    one_mb: float  # its largest process's
    code: int
    stdout: str
    stderr: str
    disk_mb: float = 0.0  # the watched directory's peak


def _bytes(root: Path) -> int:
    total = 0
    for top, _, files in os.walk(root):  # (a directory removed meanwhile is skipped)
        for name in files:
            try:
                total += os.stat(os.path.join(top, name)).st_size
            except OSError:  # removed meanwhile
                pass
    return total


def measured(cmd: list[str], timeout: float | None = None, watch: Path | None = None) -> Run:
    """Run ``cmd`` to its end (killed, with its tree, after ``timeout`` seconds); ``watch``:
    a directory whose size is sampled too."""
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        top = psutil.Process(proc.pid)
        peak = one = disk = 0
        while proc.poll() is None:
            if timeout is not None and time.perf_counter() - t > timeout:
                for p in [*top.children(recursive=True), top]:
                    try:
                        p.kill()
                    except psutil.Error:
                        pass
                proc.wait()
                break
            rss = []
            try:
                tree = [top, *top.children(recursive=True)]
            except psutil.Error:
                tree = []
            for p in tree:
                try:
                    rss.append(p.memory_info().rss)
                except psutil.Error:  # ended meanwhile
                    pass
            peak, one = max(peak, sum(rss)), max(one, *rss, 0)
            if watch is not None:
                disk = max(disk, _bytes(watch))
            time.sleep(SAMPLE_S)
        out.seek(0)
        err.seek(0)
        return Run(time.perf_counter() - t, peak / 1e6, one / 1e6, proc.returncode, out.read(), err.read(),
                   disk / 1e6)


def anchor() -> float:
    """numpy's sort of 10^7 random 64-bit keys on one core: keys per second (best of three)."""
    keys = np.random.default_rng(1).integers(0, 1 << 63, 10_000_000, dtype=np.uint64)
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        np.sort(keys)
        best = min(best, time.perf_counter() - t)
    return len(keys) / best
