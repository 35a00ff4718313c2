"""Levels by jumps on disk: partitions a worker process expands and merges on its own.

A level is a set of canonical positions (``engine.kernel``) split into ``P`` partitions by a
hash of the position; each partition is a sealed file (``sealed``: kind, version, the
search's fingerprint, count, SHA-256), sorted and distinct, compressed (``sealed``'s
``zstd-planes``: about 1.5 bytes a position on the French board instead of 8). One level
becomes the next by delayed duplicate detection (Korf's disk-based search): every partition
of level ``d`` is expanded on its own, a chunk at a time, and its children, routed to their
partition of level ``d + 1`` by the same hash, are written as bucket files; then every
partition of ``d + 1`` merges its buckets (sorted, distinct) into its sealed file, with its
count and the number of raw positions its classes stand for. A process holds one chunk's
children, or one partition's buckets, never a level.

Both steps are idempotent and atomic, so a task that is run twice (a worker lost and its task
rerun) writes the same files: a bucket is named by its target, its source, its range and its
flush, and a merge whose partition is already written reads it rather than its buckets. The
buckets are removed only once the partitions they feed are written (``drop_buckets``), so a
rerun merge always finds them. Directory layout: ``L003/P0012.lvl`` (level 3, partition 12)
and ``L004/B0005-0012-0000000000-0000.bkt`` (bucket for partition 5 of level 4, from
partition 12's positions from 0 on, first flush). A bucket holds the sorted, distinct
children of a few chunks end to end (sorted runs: their gaps compress as well as one run's).

A level's buckets weigh about ten times the level they make (each position is reached from
several parents, each copy about 2 bytes compressed: 18 bytes a position on the German
board, ``bench/results-census.txt``). Where the disk cannot hold them all, a level is built
in rounds (``rounds``): each round expands a group of the source level's pieces, once, and
folds its buckets into one sorted, distinct file per target partition (``compact``: the
repeats gone, a fraction of the bytes; at most the partition it becomes) before the next;
the last round's buckets are merged with those files into the partitions. A killed build
keeps the rounds the manifest records.
A probe by buckets, whose buckets are met rather than kept, goes in passes instead
(``passes``): each expands the whole source level again for a group of target partitions.

A search's directory is its own: one run at a time holds it (``claim``: a lock), and its
checkpoint, ``manifest.json``, is signed with this user's key (``sealed.signature``) and
names the search. A directory holding another search's levels, an unsigned or edited
manifest, or a certificate without its manifest is refused with one line, never resumed
from, never emptied. A partition file that the manifest's level or a finished pass needs
is read whole before it is believed (``written``); one that is damaged is removed and
rebuilt from its source level, never read as empty (``merge``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import sealed
from ..errors import PegsatError, Unknown
from ..files import Lock, Staging, clip, parse_json, read_text, write_atomic
from ..limits import memory_budget
from .kernel import Kernel

LEVEL_KIND, BUCKET_KIND, VERSION = "level", "bucket", 1
CODEC = "zstd-planes"  # level and bucket files alike: sorted positions, compressed
FLUSH_CHUNKS = 4  # a task writes its buckets once it holds this many chunks' children
BYTES_PER_CHILD = 48  # what a task holds per child: the children, their sort, the routing
MIN_PART_BYTES = 8 << 20  # no smaller partitions: each is a task and a bucket file per source,
# so a tiny --memory-limit would make thousands of tasks and millions of files a level, and
# a worker process weighs far more than this anyway (Python, numpy, distributed)
MIN_PIECE = 1 << 16  # the fewest positions an expand task takes (``pieces``)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits of pos * GOLDEN
BUCKET_BYTES = 40  # bytes of buckets per position expanded, the first pass's guess (German
# central game, level 18 -> 19: 38 GB from 1.17 B positions); later passes use what they measure
DISK_SHARE = 0.8  # of the disk's free bytes a pass's buckets may take
MERGED = 0.25  # the files a round folds its buckets into, beside them, as a share of them (about a tenth)


class NoRoom(PegsatError):
    """One partition's buckets would not fit the disk: the level cannot be built here."""


def prepare(root: Path, memory: int | None, workers: int, fanout: int) -> tuple[int, int, int]:
    """(per_worker, chunk, max_count) of a search under ``root`` (made here; a PegsatError if
    it cannot be): the bytes of a worker process (``memory``, else the memory budget shared
    by ``workers``), the positions a task expands at once (their children, sorted and routed,
    take about ``BYTES_PER_CHILD`` each, ``fanout`` children a position at most), and the
    most positions a file may claim (a file claiming more than the whole memory budget, or
    a worker's memory, holds is not believed: partitions never shrink below
    ``MIN_PART_BYTES``, so a tiny worker's files may hold more than it has)."""
    per_worker = memory or memory_budget() // max(1, workers)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PegsatError(f"cannot use {root} for the levels: {exc.strerror}") from None
    return (per_worker, max(1024, per_worker // (fanout * BYTES_PER_CHILD)),
            max(per_worker, memory_budget(), 8 * MIN_PART_BYTES) // 8)


def partitions(classes: int, fanout: int, per_worker: int, at_least: int = 1, spread: int = 1) -> int:
    """How many partitions the level after one of ``classes`` positions takes (a power of
    two, at least ``at_least``): a partition's buckets, about a quarter of its level's
    children, in half a worker's memory, and at least ``spread`` partitions (one merge task
    each: as many as the workers can run at once), but none under ``MIN_PART_BYTES``."""
    grown = fanout * classes * BYTES_PER_CHILD // 4
    parts = max(1, at_least)
    while parts < 1 << 16 and grown // parts > MIN_PART_BYTES and (
            grown // parts > per_worker // 2 or parts < spread):
        parts *= 2
    return parts


def pieces(root: Path, fingerprint: str, d: int, parts: int, spread: int) -> list[tuple[int, int, int]]:
    """The expand tasks of level ``d``: (partition, first, end) ranges of positions, so that
    a level of few large partitions still gives ``spread`` tasks (the workers all busy), none
    of fewer than ``MIN_PIECE`` positions. Sizes come from the files' headers."""
    sizes = [max(1, count(root, fingerprint, d, p)) for p in range(parts)]
    piece = max(MIN_PIECE, -(-sum(sizes) // max(1, spread)))
    return [(p, lo, lo + piece) for p, n in enumerate(sizes) for lo in range(0, n, piece)]


Piece = tuple[int, int, int]  # (partition, first, end): a range of a level's positions


def uncovered(tasks: list[Piece], done: list[Piece]) -> list[Piece]:
    """What of the pieces ``tasks`` the pieces ``done`` (of the same level) leave: each
    task's range less those done in its partition, so that a rerun with other pieces (more
    workers: another ``spread``) goes on from what an earlier run finished."""
    out = []
    for p, lo, end in tasks:
        left = [(lo, end)]
        for q, a, b in done:
            if q == p:
                left = [(x, y) for u, v in left for x, y in ((u, min(v, a)), (max(u, b), v)) if x < y]
        out += [(p, x, y) for x, y in left]
    return out


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


def covering(q: int, parts: int, other: int) -> range:
    """The partitions of a level split ``other`` ways that may hold what partition ``q`` of a
    level split ``parts`` ways holds (``route`` takes the top bits of one hash)."""
    if other <= parts:
        top = q >> (parts.bit_length() - other.bit_length())
        return range(top, top + 1)
    shift = other.bit_length() - parts.bit_length()
    return range(q << shift, (q + 1) << shift)


def _fp(fingerprint: str, d: int, p: int) -> str:
    return sealed.digest(fingerprint, d, p)


def write_part(root: Path, fingerprint: str, d: int, p: int, pos: np.ndarray) -> int:
    """Partition ``p`` of level ``d``, sealed (durably: it is the checkpoint); its bytes."""
    part_path(root, d, p).parent.mkdir(parents=True, exist_ok=True)
    return sealed.write(part_path(root, d, p), LEVEL_KIND, VERSION, _fp(fingerprint, d, p), pos, codec=CODEC)


def count(root: Path, fingerprint: str, d: int, p: int) -> int:
    """The positions partition ``p`` of level ``d`` says it holds (its header; 0 for a file
    that is not this search's: the task that reads it whole says why)."""
    try:
        return int(sealed.header(part_path(root, d, p), LEVEL_KIND, VERSION, _fp(fingerprint, d, p),
                                 1 << 62)["count"])
    except sealed.Stale:
        return 0


def described(root: Path, fingerprint: str, d: int, p: int) -> dict[str, object]:
    """Partition ``p`` of level ``d`` as a certificate names it: its file (relative to
    ``root``), count and body's SHA-256, from its checked header (``sealed.Stale`` if it is
    not this search's)."""
    path = part_path(root, d, p)
    head = sealed.header(path, LEVEL_KIND, VERSION, _fp(fingerprint, d, p), 1 << 62)
    return {"file": path.relative_to(root).as_posix(), "count": int(head["count"]), "sha256": head["sha256"]}


def read_part(root: Path, fingerprint: str, d: int, p: int, max_count: int) -> np.ndarray:
    """A partition, checked (``sealed.Stale`` if it is not the one this search wrote)."""
    return sealed.read(part_path(root, d, p), LEVEL_KIND, VERSION, _fp(fingerprint, d, p), max_count)


def readable(root: Path, fingerprint: str, d: int, p: int, max_count: int) -> np.ndarray:
    """A partition a finished level holds, read whole; ``Damaged`` (the search cannot go on
    from this directory: "unknown", never a guess) when it is missing, damaged, or holds
    more positions than a worker may load (``max_count``: a smaller memory limit than the
    run that wrote it had)."""
    try:
        return read_part(root, fingerprint, d, p, max_count)
    except sealed.Stale as exc:
        raise Damaged(f"partition {p} of level {d} in {root} cannot be used ({exc}): rerun with the "
                      "memory limit the levels were built with, or remove the directory and start "
                      "afresh") from None


class Damaged(Unknown):
    """A level file a finished level needs is missing, damaged or too large to load: the
    search stops there ("unknown"), its checkpoint kept."""


@dataclass(frozen=True)
class Merged:
    """One partition of a new level: its classes and the raw positions they stand for."""

    classes: int
    raw: int
    bytes: int
    hits: int = 0  # positions that ``merge``'s ``meets`` picked
    hit: int | None = None  # the least of them
    pegs: tuple[int, int] = (64, 0)  # the fewest and the most pegs of its positions ((64, 0): none)


def peg_range(k: Kernel, level: np.ndarray) -> tuple[int, int]:
    """The fewest and the most pegs of ``level``'s positions ((64, 0) for none): a level by
    moves need not be subtracted from an earlier one whose range it misses."""
    if not len(level):
        return 64, 0
    c = k.popcount(level)
    return int(c.min()), int(c.max())


def _children(k: Kernel, level: np.ndarray, chunk: int, by: str, reverse: bool,
              raw: bool = False) -> Iterator[np.ndarray]:
    """The canonical children of ``level``, a chunk of positions at a time, each chunk's
    sorted and distinct (a view: routing copies them out). ``raw``: every child as its jump
    makes it, neither canonical nor distinct, for a probe that meets their mirror images:
    ``image`` makes those canonical whichever image of its class a child is (one least image
    a child spared), and they are sorted later: by buckets, only those the sieves let by; a
    streaming probe, at each flush."""
    for at in range(0, len(level), chunk):
        some = level[at:at + chunk]
        kids = k.moves(some, reverse=reverse, canon=not raw) if by == "moves" else \
            k.step(some, reverse=reverse, canon=not raw)
        yield kids if raw else k.unique(kids, own=True, view=True)


def expand(k: Kernel, root: Path, fingerprint: str, d: int, p: int, parts_next: int, chunk: int,
           max_count: int, by: str = "jumps", reverse: bool = False, lo: int = 0,
           end: int | None = None, targets: Sequence[int] | None = None,
           image: Callable[[np.ndarray], np.ndarray] | None = None,
           sieves: Sequence[np.ndarray | None] | None = None) -> int:
    """Partition ``p`` of level ``d`` (its positions ``lo:end``: one of ``pieces``), expanded by
    one jump (``by="moves"``: one move) a chunk at a time, forwards or (``reverse``)
    backwards; the canonical children go to bucket files of level ``d + 1`` by ``route``,
    those of the partitions in ``targets`` only (a pass: ``passes``; None: all). ``image``:
    the children's canonical images go instead (a probe by buckets: ``meet``), and with
    ``sieves`` (one per partition, ``sieve_part``) only those their partition's sieve may
    hold. Returns the children written."""
    level = readable(root, fingerprint, d, p, max_count)[lo:end]
    out = level_dir(root, d + 1)
    out.mkdir(parents=True, exist_ok=True)
    held: list[list[np.ndarray]] = [[] for _ in range(parts_next)]
    size = flushes = written = 0
    wanted = range(parts_next) if targets is None else sorted(set(targets))

    def flush() -> None:  # one bucket per target holding children, per flush: the chunks'
        nonlocal size, flushes  # sorted runs end to end (the merge sorts them together)
        for q, arrays in enumerate(held):
            if arrays:
                mine = k.concat(arrays)
                path = out / f"B{q:04d}-{p:04d}-{lo:010d}-{flushes:04d}.bkt"
                sealed.write(path, BUCKET_KIND, VERSION, _fp(fingerprint, d + 1, q), mine, durable=False,
                             codec=CODEC)
                arrays.clear()
        size, flushes = 0, flushes + 1

    for kids in _children(k, level, chunk, by, reverse, raw=image is not None):
        if image is not None:
            kids = image(kids)
            if sieves is None:  # sorted and distinct: the buckets hold each image once
                kids = k.unique(kids, own=True, view=True)
        grouped, bounds = k.route(kids, parts_next)  # each partition's children stay in order
        for q in wanted:
            if bounds[q + 1] > bounds[q]:
                mine = grouped[bounds[q]:bounds[q + 1]]
                sieve = sieves[q] if sieves is not None else None
                if sieve is not None:
                    mine = mine[k.sieved(sieve, mine)]  # the rest surely meet nothing
                held[q].append(mine)
                size += len(mine)
                written += len(mine)
        if size >= FLUSH_CHUNKS * chunk:
            flush()
    if size:
        flush()
    return written


SIEVE_BITS = 16  # a probe's sieve, bits a position met: under 1% of the rest let by (at most)
SIEVED_BYTES = 1.0  # bytes of buckets per position expanded by a sieved probe, its first pass's guess


def sieve_path(root: Path, d: int, q: int) -> Path:
    """Where the sieve of the partition ``q`` level ``d``'s probe meets is kept (among its
    buckets, dropped with them)."""
    return level_dir(root, d) / f"S{q:04d}.npy"


def sieve_part(k: Kernel, there: np.ndarray, path: Path, bits: int) -> None:
    """The sieve of ``there`` (``bits`` a position) written whole or not at all: a probe by
    buckets then writes only the children it lets by, none it rules out being there."""
    words = k.sieve(there, len(there) * bits // 64)
    path.parent.mkdir(parents=True, exist_ok=True)
    with Staging() as stage:
        with open(stage.path(path), "wb") as fh:
            np.save(fh, words)
        stage.commit(durable=False)


def load_sieves(root: Path, d: int, parts: int, targets: Sequence[int] | None) -> list[np.ndarray | None]:
    """The sieves of level ``d``'s probe for ``targets`` (None: all ``parts``), mapped (the
    processes that map a sieve share its pages); None for the other partitions."""
    wanted = set(range(parts) if targets is None else targets)
    return [np.load(sieve_path(root, d, q), mmap_mode="r") if q in wanted else None for q in range(parts)]


def probe(k: Kernel, root: Path, fingerprint: str, d: int, p: int, parts: int, chunk: int, max_count: int,
          meets: Callable[[int, np.ndarray], np.ndarray], hold: int, by: str = "jumps",
          reverse: bool = False, lo: int = 0, end: int | None = None,
          image: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[int, int | None]:
    """(how many, the least) of the children of partition ``p`` of level ``d`` (positions
    ``lo:end``) that meet something, the children never stored: routed to ``parts``
    partitions (those of what they are met against), held up to ``hold`` of them, then each
    partition's, sorted and distinct, given to ``meets(q, children)`` (a mask), up to the
    first flush that meets (one meeting is enough). The last level a bounded search needs
    matters only by its meeting: no buckets, no merge. ``image``: the children are met as
    these canonical images of them (a self-dual search meets the mirror of its own level),
    and the least is an image."""
    level = readable(root, fingerprint, d, p, max_count)[lo:end]
    held: list[list[np.ndarray]] = [[] for _ in range(parts)]
    size = hits = 0
    least: int | None = None

    def flush() -> None:
        nonlocal size, hits, least
        for q, arrays in enumerate(held):
            if arrays:
                mine = k.unique(k.concat(arrays), own=True)
                arrays.clear()
                met = mine[meets(q, mine)]
                if len(met):
                    hits += len(met)
                    least = int(met[0]) if least is None else min(least, int(met[0]))
        size = 0

    for kids in _children(k, level, chunk, by, reverse, raw=image is not None):
        if image is not None:  # (each flush sorts its children)
            kids = image(kids)
        grouped, bounds = k.route(kids, parts)
        for q in range(parts):
            if bounds[q + 1] > bounds[q]:
                held[q].append(grouped[bounds[q]:bounds[q + 1]])
        size += len(kids)
        if size >= hold:
            flush()
            if hits:
                return hits, least
    flush()
    return hits, least


def merge(k: Kernel, root: Path, fingerprint: str, d: int, q: int, max_count: int, *, parts: int = 1,
          earlier: Sequence[tuple[int, int, int]] = (),
          keep: Callable[[np.ndarray], np.ndarray] | None = None,
          meets: Callable[[np.ndarray], np.ndarray] | None = None) -> Merged:
    """Partition ``q`` (of ``parts``) of level ``d`` from its buckets (sorted, distinct), less
    what the earlier levels hold (``earlier``: the partitions and the peg range of levels
    ``0 .. d - 1``, for searches by moves, where a position may be reached again later; a
    level whose pegs miss the partition's range is not read), less what ``keep``
    prunes, written sealed; or, when it is written already (a rerun task), read back.
    ``meets(level)``: a mask of the positions that meet something (the other side of a
    search), tested first: when any does, their number and the least of them come back at
    once and nothing is written (the search ends there). The raw count weighs each class by
    its orbit: |G| over the number of symmetries fixing it."""
    path = part_path(root, d, q)
    if path.exists():  # a rerun task: the partition it wrote, read back whole (or a damaged one:
        level = readable(root, fingerprint, d, q, max_count)  # never guessed empty from no buckets)
    else:
        level = _buckets(root, fingerprint, d, q, max_count)
        level = k.unique(level, own=True)
        met = level[meets(level)] if meets is not None and len(level) else level[:0]
        if len(met):
            return Merged(0, 0, 0, len(met), int(met[0]))
        for e, (were, lo, hi) in enumerate(earlier):
            fewest, most = peg_range(k, level)
            if hi < fewest or lo > most:  # no position of one can be in the other
                continue
            for r in covering(q, parts, were):
                if len(level):
                    level = level[~k.member(read_part(root, fingerprint, e, r, max_count), level)]
        if keep is not None:
            level = keep(level)
        write_part(root, fingerprint, d, q, level)
        for b in level_dir(root, d).glob(f"B{q:04d}-*.bkt"):  # a rerun expands them again: their
            b.unlink(missing_ok=True)  # room is the next merge's (the rounds' files stay to the end)
        return Merged(len(level), orbit_total(k, level), path.stat().st_size, pegs=peg_range(k, level))
    met = level[meets(level)] if meets is not None and len(level) else level[:0]
    return Merged(len(level), orbit_total(k, level), path.stat().st_size, len(met),
                  int(met[0]) if len(met) else None, peg_range(k, level))


def meet(k: Kernel, root: Path, fingerprint: str, d: int, q: int, max_count: int,
         meets: Callable[[np.ndarray], np.ndarray]) -> tuple[int, int | None]:
    """(how many, the least) of partition ``q`` of level ``d``'s buckets that ``meets`` picks:
    the last level of a search probed by buckets, never stored. One that meets nothing leaves
    an empty partition file as its mark, so a rerun (``passes``) meets it no more."""
    level = k.unique(_buckets(root, fingerprint, d, q, max_count), own=True)
    met = level[meets(level)] if len(level) else level
    if len(met):
        return len(met), int(met[0])
    write_part(root, fingerprint, d, q, level[:0])
    return 0, None


def _buckets(root: Path, fingerprint: str, d: int, q: int, max_count: int) -> np.ndarray:
    """Every bucket of partition ``q`` of level ``d`` end to end, and the files the rounds
    before folded theirs into (``compact``), each decoded straight into its place (no bucket
    is held twice)."""
    where = level_dir(root, d)
    buckets = sorted(where.glob(f"B{q:04d}-*.bkt")) + sorted(where.glob(f"{ROUND}{q:04d}-*.bkt"))
    fp = _fp(fingerprint, d, q)
    counts = [int(sealed.header(b, BUCKET_KIND, VERSION, fp, max_count)["count"]) for b in buckets]
    level = np.empty(sum(counts), dtype=np.uint64)
    at = 0
    for b, n in zip(buckets, counts, strict=True):
        sealed.read(b, BUCKET_KIND, VERSION, fp, max_count, out=level[at:at + n])
        at += n
    return level


def orbit_total(k: Kernel, level: np.ndarray) -> int:
    """The raw positions a set of classes stands for."""
    return int(k.orbit_sizes(level).sum())


def drop_buckets(root: Path, d: int) -> int:
    """The buckets of level ``d`` (the rounds' compacted ones too, and a probe's sieves),
    once the partitions they feed are written; the buckets' bytes."""
    gone = 0
    for b in [*level_dir(root, d).glob("B*.bkt"), *level_dir(root, d).glob(f"{ROUND}*.bkt")]:
        try:
            gone += b.stat().st_size
            b.unlink()
        except FileNotFoundError:
            pass
    for f in level_dir(root, d).glob("S*.npy"):  # a probe's sieves (``sieve_path``): not buckets
        f.unlink(missing_ok=True)
    return gone


def written(root: Path, fingerprint: str, d: int, q: int) -> bool:
    """Whether partition ``q`` of level ``d`` is written, sealed by this search and whole
    (its header and its bytes' SHA-256: a file damaged after a kill is not counted as
    written). A file there that is not is removed, so the partition is rebuilt from its
    buckets, never read as empty (``merge``)."""
    path = part_path(root, d, q)
    if not path.exists():
        return False
    try:
        sealed.verify(path, LEVEL_KIND, VERSION, _fp(fingerprint, d, q), 1 << 62)
    except sealed.Stale:
        path.unlink(missing_ok=True)
        return False
    return True


def disk_used(root: Path) -> int:
    """The bytes of the files under ``root``."""
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file())


def room(root: Path, disk: int | None) -> int:
    """The bytes a pass's buckets may take: ``DISK_SHARE`` of the disk's free bytes, and no
    more than ``disk`` (the most the search's directory may hold, levels and all) less what
    it holds."""
    free = int(DISK_SHARE * shutil.disk_usage(root).free)
    return free if disk is None else min(free, disk - disk_used(root))


def passes(root: Path, fingerprint: str, d: int, parts: int, sources: int, disk: int | None = None,
           rate: float | None = None) -> Iterator[tuple[int, ...]]:
    """The passes of a probe by buckets of level ``d`` (``parts`` partitions, met rather than
    kept) from ``sources`` positions: groups of the partitions not met yet (a killed run's
    marks stay: ``meet``), each as many as the disk's ``room`` holds the buckets of — one
    group, all of them, where it holds the level's. The caller runs a pass (expand for its
    partitions, meet them) between two; its buckets are dropped here after it, and what they
    weighed sizes the next. ``rate``: the first pass's guess of bytes per source position (a
    sieved probe's; it is not remembered), else what the last pass or round measured
    (``RATE``). ``NoRoom`` when not even one partition's buckets fit."""
    guess = rate
    rate = _rate(root) if guess is None else guess  # bytes of buckets per source position
    per = rate * max(1, sources) / parts  # a guess until this level's first pass measures it
    todo = [q for q in range(parts) if not written(root, fingerprint, d, q)]
    drop_buckets(root, d)  # a killed pass's: its group is redone whole
    while todo:
        space = room(root, disk)
        n = min(len(todo), int(space // max(per, 1.0)))
        if n < 1:
            raise NoRoom(f"level {d} needs ~{_mb(per)} of buckets for each of its {parts} partitions "
                         f"and the disk has room for {_mb(space)}: free some, or give --disk-limit more")
        group, todo = tuple(todo[:n]), todo[n:]
        yield group
        made = drop_buckets(root, d)
        if made:
            per = made / len(group)
            if guess is None:
                _remember(root, per * parts / max(1, sources))


ROUND = "R"  # a round's compacted buckets: R0005-0001.bkt (partition 5, round 1)


@dataclass(frozen=True)
class Round:
    """One round of a level's build: the pieces of the level before that it expands (each
    once, all their children kept, or those of ``targets`` only: the partitions a killed
    run's last round left unwritten), their positions, and whether it is the last (its
    buckets merged with the rounds' before into the partitions; every other round's are
    folded into them, ``compact``, and the round recorded in the manifest)."""

    index: int
    pieces: tuple[Piece, ...]
    positions: int
    last: bool
    targets: tuple[int, ...] | None = None


def rounds(root: Path, fingerprint: str, d: int, parts: int, tasks: Sequence[Piece],
           done: Sequence[Sequence[Piece]] = (), disk: int | None = None,
           merged: float = MERGED) -> Iterator[Round]:
    """The rounds that build level ``d`` of ``parts`` partitions from the pieces ``tasks`` of
    level ``d - 1``: what the rounds ``done`` (a killed run's, from its manifest) leave of
    them, in groups of as many as the disk's ``room`` holds the buckets of (at the last
    round's measured bytes per position, ``RATE``), about equal — one round, all of them,
    where it holds the level's; the last also leaves room for the partitions it writes beside
    the files the rounds before folded their buckets into (as large as those). A killed
    run's round in progress is redone whole (its buckets dropped here; what it folded into
    the compacted files is children of the level before all the same, and a repeat the fold
    removes); partitions it wrote stay (the last round's merge reads them back). ``merged``:
    the room a compacted file takes beside its buckets, as a share of them. ``NoRoom`` when
    the buckets of a round of one ``parts``-th of the level before do not fit (the least a
    pass of one partition took), or of what is left of it."""
    sizes = {p: count(root, fingerprint, d - 1, p) for p in {p for p, _, _ in tasks}}
    left = [(p, lo, min(end, sizes[p])) for p, lo, end in uncovered(list(tasks), [x for r in done for x in r])
            if lo < sizes[p]]
    unwritten = [q for q in range(parts) if not written(root, fingerprint, d, q)]
    targets = None if len(unwritten) == parts else tuple(unwritten)
    index = len(done)
    for b in level_dir(root, d).glob("B*.bkt"):  # a killed round's
        b.unlink(missing_ok=True)
    share = len(unwritten) / parts  # of the children, those of the partitions still to write
    # the fewest positions a round expands: the room a pass for one partition needed (no crawl
    least = -(-sum(sizes.values()) // parts)  # of tiny rounds)
    while True:
        per = _rate(root) * share * (1 + merged)  # bytes a position expanded weighs on the disk
        space = room(root, disk)
        total = sum(end - lo for _, lo, end in left)
        folded = sum(f.stat().st_size for f in level_dir(root, d).glob(f"{ROUND}*.bkt"))
        if not left or per * total + folded <= space:  # the last: its partitions beside the folded files
            yield Round(index, tuple(left), total, True, targets)
            return
        fit = int(space // max(per, 1e-9))  # positions a round may expand
        if fit < min(least, total):
            raise NoRoom(f"level {d} needs ~{_mb(per * min(least, total))} of buckets for a round of "
                         f"{min(least, total):,} positions of level {d - 1} and the disk has room for "
                         f"{_mb(space)}: free some, or give --disk-limit more")
        aim = -(-total // -(-total // fit))  # rounds about equal
        took: list[Piece] = []
        while left and aim > 0:  # whole pieces, the last one cut where the round is full
            p, lo, end = left[0]
            cut = min(end, lo + aim)
            took.append((p, lo, cut))
            aim -= cut - lo
            left = left[1:] if cut == end else [(p, cut, end), *left[1:]]
        yield Round(index, tuple(took), sum(end - lo for _, lo, end in took), False, targets)
        index += 1


def compact(k: Kernel, root: Path, fingerprint: str, d: int, q: int, r: int, max_count: int) -> int:
    """Round ``r``'s buckets of partition ``q`` of level ``d`` folded into the partition's
    compacted file (sorted, distinct: the rounds' before and this one's children), written
    atomically as round ``r``'s before the buckets and the file before are removed, so a
    kill loses no round's children; the buckets' bytes."""
    where = level_dir(root, d)
    buckets = sorted(where.glob(f"B{q:04d}-*.bkt"))
    if not buckets:
        return 0
    before = sorted(where.glob(f"{ROUND}{q:04d}-*.bkt"))
    kids = k.unique(_buckets(root, fingerprint, d, q, max_count), own=True)
    path = where / f"{ROUND}{q:04d}-{r:04d}.bkt"
    sealed.write(path, BUCKET_KIND, VERSION, _fp(fingerprint, d, q), kids, durable=False, codec=CODEC)
    made = 0
    for b in buckets:
        made += b.stat().st_size
        b.unlink()
    for b in before:
        if b != path:
            b.unlink()
    return made


def measured(root: Path, d: int, positions: int, share: float = 1.0) -> None:
    """The bytes of buckets a round of ``positions`` expanded wrote (for a ``share`` of the
    partitions) remembered per position (``RATE``) for the rounds and levels after it."""
    made = sum(b.stat().st_size for b in level_dir(root, d).glob("B*.bkt"))
    if made and positions:
        _remember(root, made / positions / max(share, 1e-9))


RATE = "bucket-rate"  # a file beside the levels: the last pass's bytes of buckets per position


def _rate(root: Path) -> float:
    """The bytes of buckets per source position the last pass under ``root`` measured (a
    level grows as the one before did), else ``BUCKET_BYTES``."""
    try:
        rate = float((root / RATE).read_text())
    except (OSError, ValueError):
        return BUCKET_BYTES
    return rate if 0 < rate < 1 << 20 else BUCKET_BYTES


def _remember(root: Path, rate: float) -> None:
    try:
        (root / RATE).write_text(f"{rate:.3f}\n")
    except OSError:
        pass


def drop_level(root: Path, d: int) -> None:
    """Every file of level ``d`` (a level no longer needed, or what a killed run left)."""
    shutil.rmtree(level_dir(root, d), ignore_errors=True)


def _mb(n: float) -> str:
    return f"{max(0.0, n) / 1e6:,.1f} MB"


MANIFEST = "manifest.json"


class Foreign(PegsatError):
    """A directory this search may neither resume from nor overwrite (exit 2)."""


def claim(root: Path, what: str) -> Lock:
    """The lock a run holds on its directory ``root`` for the ``with`` block (``files.Lock``):
    a second run on the same directory is refused with one line."""
    return Lock(root, what)


def manifest(root: Path, fingerprint: str | Callable[[dict], str]) -> dict | None:
    """The checkpoint an earlier run of this search left in ``root``, or None when there is
    none. Believed only when this user's pegsat signed it (``sealed.signed``) for this
    search's ``fingerprint`` (or the one ``fingerprint(manifest)`` computes from what the
    manifest says it was pruned with); ``Foreign`` (exit 2, naming what the directory holds) when it
    is another search's, unsigned, edited or damaged, or when a certificate lies there
    without its manifest: such a directory is never emptied."""
    path = root / MANIFEST
    if not path.exists():
        if (root / "certificate.json").exists():
            raise Foreign(f"{root} holds a certificate.json and no {MANIFEST}: use another directory, "
                          "or remove it")
        return None
    try:
        data = parse_json(read_text(path, "manifest"), str(path))
    except PegsatError:
        data = None
    if not isinstance(data, dict):
        raise Foreign(f"{path} is damaged: use another directory, or remove it")
    body = {k: v for k, v in data.items() if k != "signature"}
    if not sealed.signed(data.get("signature"), MANIFEST, body):
        raise Foreign(f"{path} is not signed by this user's pegsat (edited, or written elsewhere or by "
                      "another version): its levels are not believed; use another directory, or remove it")
    if callable(fingerprint):
        try:
            fingerprint = fingerprint(data)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError):
            fingerprint = ""
    if data.get("fingerprint") != fingerprint:
        search = data.get("search")
        named = clip(search, 100) if isinstance(search, str) else "another search"
        raise Foreign(f"{root} holds the levels of {named}: use another directory, or remove it")
    return data


def save_manifest(root: Path, body: dict) -> None:
    """The checkpoint, signed with this user's key, written atomically."""
    text = json.dumps({**body, "signature": sealed.signature(MANIFEST, body)}, indent=1) + "\n"
    write_atomic(root / MANIFEST, lambda fh: fh.write(text))
