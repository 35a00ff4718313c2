"""Levels by jumps on disk: partitions a worker process expands and merges on its own.

A level is a set of canonical positions (``engine.kernel``) split into ``P`` partitions by a
hash of the position; each partition is a sealed file (``sealed``: kind, version, the
search's fingerprint, count, SHA-256), sorted and distinct. One level becomes the next by
delayed duplicate detection (Korf's disk-based search): every partition of level ``d`` is
expanded on its own, a chunk at a time, and its children, routed to their partition of level
``d + 1`` by the same hash, are written as bucket files; then every partition of ``d + 1``
merges its buckets (sorted, distinct) into its sealed file, with its count and the number of
raw positions its classes stand for. A process holds one chunk's children, or one
partition's buckets, never a level.

Both steps are idempotent and atomic, so a task that is run twice (a worker lost and its task
rerun) writes the same files: a bucket is named by its target, its source and its chunk, and
a merge whose partition is already written reads it rather than its buckets. The buckets are
removed only once the whole next level is written (``drop_buckets``), so a rerun merge always
finds them. Directory layout: ``L003/P0012.lvl`` (level 3, partition 12) and
``L004/B0005-0012-0000.bkt`` (bucket for partition 5 of level 4, from partition 12, first
flush).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import sealed
from .kernel import Kernel

LEVEL_KIND, BUCKET_KIND, VERSION = "level", "bucket", 1
FLUSH_CHUNKS = 4  # a task writes its buckets once it holds this many chunks' children
GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits of pos * GOLDEN


def level_dir(root: Path, d: int) -> Path:
    """The directory of level ``d``."""
    return root / f"L{d:03d}"


def part_path(root: Path, d: int, p: int) -> Path:
    """The file of partition ``p`` of level ``d``."""
    return level_dir(root, d) / f"P{p:04d}.lvl"


def route(pos: np.ndarray, parts: int) -> np.ndarray:
    """The partition of each position: the top bits of a multiplicative hash (``parts`` is a
    power of two), so a level's partitions are about equal."""
    if parts == 1:
        return np.zeros(len(pos), dtype=np.int64)
    bits = parts.bit_length() - 1
    with np.errstate(over="ignore"):
        return ((pos * GOLDEN) >> np.uint64(64 - bits)).astype(np.int64)


def _fp(fingerprint: str, d: int, p: int) -> str:
    return sealed.digest(fingerprint, d, p)


def write_part(root: Path, fingerprint: str, d: int, p: int, pos: np.ndarray) -> None:
    """Partition ``p`` of level ``d``, sealed (durably: it is the checkpoint)."""
    part_path(root, d, p).parent.mkdir(parents=True, exist_ok=True)
    sealed.write(part_path(root, d, p), LEVEL_KIND, VERSION, _fp(fingerprint, d, p), pos)


def read_part(root: Path, fingerprint: str, d: int, p: int, max_count: int) -> np.ndarray:
    """A partition, checked (``sealed.Stale`` if it is not the one this search wrote)."""
    return sealed.read(part_path(root, d, p), LEVEL_KIND, VERSION, _fp(fingerprint, d, p), max_count)


@dataclass(frozen=True)
class Merged:
    """One partition of a new level: its classes and the raw positions they stand for."""

    classes: int
    raw: int
    bytes: int


def expand(k: Kernel, root: Path, fingerprint: str, d: int, p: int, parts_next: int, chunk: int,
           max_count: int) -> int:
    """Partition ``p`` of level ``d``, expanded by one jump a chunk at a time; the canonical
    children go to bucket files of level ``d + 1`` by ``route``. Returns the children written."""
    level = read_part(root, fingerprint, d, p, max_count)
    out = level_dir(root, d + 1)
    out.mkdir(parents=True, exist_ok=True)
    held: list[list[np.ndarray]] = [[] for _ in range(parts_next)]
    size = flushes = written = 0

    def flush() -> None:  # one bucket per target holding children, per flush
        nonlocal size, flushes
        for q, arrays in enumerate(held):
            if arrays:
                mine = k.unique(k.concat(arrays), own=True)
                path = out / f"B{q:04d}-{p:04d}-{flushes:04d}.bkt"
                sealed.write(path, BUCKET_KIND, VERSION, _fp(fingerprint, d + 1, q), mine, durable=False)
                arrays.clear()
        size, flushes = 0, flushes + 1

    for lo in range(0, len(level), chunk):
        kids = k.unique(k.step(level[lo:lo + chunk]), own=True)
        where = route(kids, parts_next)
        order = np.argsort(where, kind="stable")
        bounds = np.searchsorted(where[order], np.arange(parts_next + 1))
        for q in range(parts_next):
            if bounds[q + 1] > bounds[q]:
                held[q].append(kids[order[bounds[q]:bounds[q + 1]]])
        size += len(kids)
        written += len(kids)
        if size >= FLUSH_CHUNKS * chunk:
            flush()
    if size:
        flush()
    return written


def merge(k: Kernel, root: Path, fingerprint: str, d: int, q: int, max_count: int) -> Merged:
    """Partition ``q`` of level ``d`` from its buckets (sorted, distinct), written sealed; or,
    when it is written already (a rerun task), read back. The raw count weighs each class by
    its orbit: |G| over the number of symmetries fixing it."""
    path = part_path(root, d, q)
    try:
        level = read_part(root, fingerprint, d, q, max_count)
    except sealed.Stale:
        buckets = sorted(level_dir(root, d).glob(f"B{q:04d}-*.bkt"))
        arrays = [sealed.read(b, BUCKET_KIND, VERSION, _fp(fingerprint, d, q), max_count) for b in buckets]
        level = k.unique(k.concat(arrays), own=True) if arrays else k.empty()
        write_part(root, fingerprint, d, q, level)
    return Merged(len(level), orbit_total(k, level), path.stat().st_size)


def orbit_total(k: Kernel, level: np.ndarray) -> int:
    """The raw positions a set of classes stands for."""
    return int(k.orbit_sizes(level).sum())


def drop_buckets(root: Path, d: int) -> None:
    """The buckets of level ``d``, once every partition of it is written."""
    for b in level_dir(root, d).glob("B*.bkt"):
        b.unlink(missing_ok=True)


def drop_level(root: Path, d: int) -> None:
    """Every file of level ``d`` (a level no longer needed, or what a killed run left)."""
    shutil.rmtree(level_dir(root, d), ignore_errors=True)
