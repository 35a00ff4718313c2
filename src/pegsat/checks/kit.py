"""The checkers' shared kit for walks of large levels: partitions, bucket files, the journal
and the step loop. It holds no search code and knows nothing of what a level means.

A level is split into partitions, a position's being the top bits of its product with
``MULTIPLIER`` modulo 2^64 (``partition``: checked for every position read), so a child is
looked up in one partition. A level's children go out in two rounds of tasks (``run_steps``;
``runner``: one after the other here, or Dask's map): every partition is expanded, its
children written to bucket files by their target partition (``closure.Buckets``); then every target
partition looks its buckets up (delayed duplicate detection, as Korf's disk-based search does
it). A task holds one partition and at most ``FLUSH`` children; one step's buckets are on disk
at a time (about 2 bytes a child, compressed). A step whose buckets would not fit the disk
goes in rounds, each for a group of the partitions expanded, when its lookup may take the
children of any group (``Step.folds``: a rebuilt level's part grows by each round's); else
in passes, each expanding the whole level again for a group of the target partitions.

A check of hours keeps a ``Journal``: the steps (rounds, passes) it has walked, under a key of the
certificate and the checker's code, so a check stopped goes on where it was.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from .. import sealed
from ..deadline import Deadline
from ..errors import PegsatError
from ..files import parse_json, read_text, write_atomic
from ..limits import memory_budget
from .closure import UNSETTLED, Runner, distinct, union, whole
from .verdict import Verdict, judged, rejected

MULTIPLIER = 0x9E3779B97F4A7C15  # a position's partition: the top bits of its product with this
BUCKET_BYTES = 48  # bytes of buckets per position expanded, the first pass's guess (about 14
# children a position on the German board, 3 bytes each); later passes use what they measure
DISK_SHARE = 0.8  # of the scratch disk's free bytes a pass's buckets may take
Loader = Callable[[], np.ndarray]  # a part of a level, read when called (picklable: a task's)


def partition(x: np.ndarray, parts: int) -> np.ndarray:
    """The partition of each position among ``parts`` (a power of two)."""
    if parts == 1:
        return np.zeros(len(x), dtype=np.int64)
    with np.errstate(over="ignore"):
        return ((x * np.uint64(MULTIPLIER)) >> np.uint64(64 - (parts.bit_length() - 1))).astype(np.int64)


def grouped(x: np.ndarray, parts: int, compiled: bool = False) -> tuple[np.ndarray, list[int]]:
    """``x`` grouped by partition (``parts`` a power of two), in its order within each, and
    where each begins: partition ``q`` is ``[cut[q], cut[q + 1])``. Sorted positions stay
    sorted within their partition, so its gaps compress well. ``compiled``: by
    ``_check.route``'s counting sort."""
    if compiled:
        from . import _check

        out, cut = _check.route(np.ascontiguousarray(x, dtype=np.uint64), MULTIPLIER, parts.bit_length() - 1)
        return np.frombuffer(out, dtype=np.uint64), cut
    where = partition(x, parts).astype(np.uint16)  # (a stable sort of 16-bit keys is a radix sort)
    return x[np.argsort(where, kind="stable")], [0, *np.cumsum(np.bincount(where, minlength=parts)).tolist()]


FAULTS = ("", "is not sorted without repeats", "names a hole the board does not have",
          "holds a position without {pegs} pegs", "holds a position of another partition")


def part_fault(x: np.ndarray, holes: int, pegs: int | None, parts: int, p: int,
               compiled: bool = False) -> str | None:
    """What is wrong with ``x`` as partition ``p`` of ``parts`` of a level of positions of
    ``holes`` holes with ``pegs`` pegs each (None: any), the first of ``FAULTS`` it shows; None:
    nothing. ``compiled``: in one pass (``_check.part_fault``), else by numpy."""
    if compiled:
        from . import _check

        code = _check.part_fault(np.ascontiguousarray(x, dtype=np.uint64), holes,
                                 -1 if pegs is None else pegs, MULTIPLIER, parts.bit_length() - 1, p)
    elif not bool(np.all(x[1:] > x[:-1])):
        code = 1
    elif len(x) and int(x[-1]) >> holes:
        code = 2
    elif pegs is not None and len(x) and not bool(np.all(np.bitwise_count(x) == pegs)):
        code = 3
    else:
        code = 4 if len(x) and not bool(np.all(partition(x, parts) == p)) else 0
    return FAULTS[code].format(pegs=pegs) if code else None


def sorted_groups(x: np.ndarray, parts: int, compiled: bool = False,
                  out: np.ndarray | None = None) -> tuple[np.ndarray, list[int]]:
    """``x`` grouped by partition, each partition's sorted without repeats, and where each
    begins (as ``grouped``). ``compiled``: by ``_check.sorted_groups`` (one counting pass by
    partition and highest bits, then radix sorts in the cache), into ``out`` (at least as long
    as ``x``; made when None), ``x`` its scratch: the caller's own, not needed again."""
    if compiled:
        from . import _check

        x = np.ascontiguousarray(x, dtype=np.uint64)
        out = np.empty(len(x), dtype=np.uint64) if out is None else out
        cut = _check.sorted_groups(x, out, MULTIPLIER, parts.bit_length() - 1)
        return out[:cut[-1]], cut
    y, cut = grouped(x, parts)
    runs = [distinct(y[cut[q]:cut[q + 1]]) for q in range(parts)]
    return (np.concatenate(runs) if runs else y[:0]), [0, *np.cumsum([len(r) for r in runs]).tolist()]


@contextmanager
def scratch_dir(prefix: str, where: str | None) -> Iterator[str]:
    """A temporary directory for a walk's buckets (in ``where``, or the system's), removed at
    the end, also when the walk is interrupted while Dask workers still write into it (their
    tasks run on after a Ctrl-C): what they leave is removed once more as the process exits,
    the cluster closed by then, and the interrupt is never replaced by the removal's error."""
    path = tempfile.mkdtemp(prefix=prefix, dir=where)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        if os.path.exists(path):
            atexit.register(shutil.rmtree, path, True)


class JournalError(PegsatError):
    """The journal file is not one this checker wrote (exit 2)."""
JOURNAL = "pegsat-check-journal"


@dataclass(frozen=True)
class Journal:
    """The steps of a levels check already walked, in a JSON file rewritten atomically after
    each round or pass: ``key`` (``journal_key``: the certificate and this checker's own
    code) maps each step ``d`` to the children it walked and the partitions it has done (of
    the level expanded, a step in rounds; of its target level, in passes). A check given it
    skips what it holds and says how many steps it took
    from it. It is the checker's memory, not evidence: ``key`` is signed with this user's
    key (``sealed.signature``), so a journal written by anyone else — or computed by anyone
    from the public certificate and code — holds no step this check takes: it is walked
    again, never believed."""

    path: Path
    key: str

    def steps(self) -> dict[str, tuple[int, set[int]]]:
        """A step ("3": level 3 into the next; "backward 3") -> (its children, the target
        partitions done)."""
        steps = read_journal(self.path).get(self.key, {})
        return {d: (v["children"], set(v["parts"])) for d, v in steps.items()}

    def record(self, step: str, children: int, parts: set[int]) -> None:
        """Step ``step`` walked ``children`` and its lookups for ``parts`` passed (the file
        rewritten atomically: a kill leaves the journal as it was)."""
        checks = read_journal(self.path)
        checks.setdefault(self.key, {})[step] = {"children": children, "parts": sorted(parts)}
        text = json.dumps({"format": JOURNAL, "version": 1, "checks": checks}, sort_keys=True)
        write_atomic(self.path, lambda fh: fh.write(text + "\n"))


def read_journal(path: Path) -> dict:
    """A journal's checks (none when the file does not exist), or JournalError (a directory,
    a FIFO or a device is refused before it is opened: reading one would block)."""
    if not path.exists():
        return {}
    if not path.is_file():
        raise JournalError(f"{path}: not a regular file, so not a journal")
    data = parse_json(read_text(path, "journal", JournalError), str(path), JournalError)
    checks = data.get("checks") if isinstance(data, dict) and data.get("format") == JOURNAL else None
    if not isinstance(checks, dict) or not all(
            isinstance(steps, dict) and all(
                isinstance(v, dict) and whole(v.get("children"))
                and isinstance(v.get("parts"), list) and all(whole(q) for q in v["parts"])
                for d, v in steps.items())
            for steps in checks.values()):
        raise JournalError(f"{path}: not a journal of pegsat's checks")
    return checks


def journal_key(certificate: object, *code: Path) -> str:
    """A certificate's (JSON) digest with this checker's code's (and ``code``'s, the module
    that checks the kind), signed with this user's key: a journal's steps stand for that
    certificate checked by that code, by this user's own checks only."""
    h = hashlib.sha256(json.dumps(certificate, sort_keys=True).encode())
    here = Path(__file__)
    for f in (here, here.with_name("closure.py"), here.with_name("_check.c"), *code):
        h.update(f.read_bytes())
    return sealed.signature("journal", h.hexdigest())


SIDES = ("forward", "backward")


REBUILT = "check-level"


def built_path(root: str, side: str, d: int, q: int) -> Path:
    """Where a check that rebuilds the levels keeps partition ``q`` of ``side``'s level ``d``."""
    return Path(root) / f"{side}-{d}" / f"{q}.lvl"


def save_built(root: str, side: str, d: int, q: int, x: np.ndarray, name: str, most: int,
               scope: str = "") -> str | None:
    """Partition ``q`` of ``side``'s rebuilt level ``d`` (called ``name``) written; None, or why
    not: more than the ``most`` positions the certificate states for it (``scope``: what that
    count covers, when more than the part) -- its level could not have been closed -- or a
    file that could not be written (a limit, not a verdict)."""
    if len(x) > most:
        return (f"{name} part {q} rebuilt holds {len(x):,} positions, more than the {most:,} the certificate "
                f"states{scope}")
    path = built_path(root, side, d, q)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        sealed.write(path, REBUILT, 1, "", x, durable=False, codec="zstd-planes")
    except (OSError, PegsatError) as exc:
        return f"{UNSETTLED}a level the check rebuilt could not be written ({exc})"
    return None


def kept_levels(journal: Journal | None) -> Path | None:
    """Where a rebuilding check keeps its levels beside its journal (by the journal's key: the
    same file may journal other checks), so that a stopped check goes on; None without one."""
    return None if journal is None else Path(f"{journal.path}.levels") / journal.key[:32]


def drop_kept(kept: Path | None) -> None:
    """A finished check's kept levels removed, and their folder once it is empty."""
    if kept is not None:
        shutil.rmtree(kept, ignore_errors=True)
        if kept.parent.is_dir() and not any(kept.parent.iterdir()):
            kept.parent.rmdir()


def load_built(path: Path) -> np.ndarray:
    """A partition of a level the check rebuilt (its own sealed file); one that cannot be
    read is not a verdict (a journal's levels removed by hand): ValueError, unsettled."""
    try:
        return sealed.read(path, REBUILT, 1, "", 1 << 40)
    except (OSError, sealed.Stale) as exc:
        raise ValueError(f"{UNSETTLED}a level the check rebuilt could not be read ({exc}); check again "
                         "without the journal") from None


def with_built(path: Path, x: np.ndarray) -> np.ndarray:
    """The sorted, distinct ``x`` with what the rounds before built of its part (``path``; none
    there: ``x``), to be written back whole; ValueError (unsettled) when that part cannot be
    read."""
    return union([load_built(path), x]) if path.exists() else x


@dataclass(frozen=True)
class Step:
    """One step of a walk over partitioned levels: every partition of a level expanded
    (``expand(p, targets=, seconds=)`` -> (children, None or why not), its children written
    to buckets in ``buckets`` by their target partition), then every target partition looked
    up (``lookup(q, seconds=)`` -> None or why not; None: nothing is looked up)."""

    key: str  # its name in a journal
    name: str  # what is expanded, as progress says it
    into: str  # what it is looked up in
    expand: Callable[..., tuple[int, str | None]]
    items: int  # partitions expanded
    lookup: Callable[..., str | None] | None
    parts: int  # target partitions
    buckets: Path
    size: int | None  # positions expanded (a level whose buckets would not fit is walked in passes)
    prepare: Callable[..., str | None] | None = None  # ``prepare(q, seconds=)`` for each target
    # partition of a pass before its expansion (a sieve of it: few children reach the buckets)
    sieves: Path | None = None  # what ``prepare`` writes, removed after each pass
    rate: float | None = None  # bytes of disk per position expanded, the first pass's guess (None:
    # what the steps before measured)
    folds: bool = False  # ``lookup`` may take the children of any group of the partitions
    # expanded: a step whose buckets do not fit goes in rounds of those, each expanded once


def run_steps(steps: Iterable[Step], deadline: Deadline, runner: Runner | None, room: int | None,
              journal: Journal | None, progress: Callable[[str], None] | None, t0: float,
              scratch: str) -> tuple[Verdict, int]:
    """Walk ``steps`` in order, each in rounds of tasks (``runner``: here, one after the other,
    or Dask's map): a step whose buckets would not fit the disk (``room`` bytes; default
    ``DISK_SHARE`` of what ``scratch``'s disk has free) in rounds of the partitions expanded,
    each looked up as it ends (``Step.folds``), or else in passes, each expanding its level
    again for a group of the target partitions. ``journal``: the steps, rounds and passes it
    holds are skipped, each one walked is recorded. The first failure ends the walk (a verdict
    before a limit, when tasks say both)."""
    run = runner or (lambda fn, xs: [fn(x) for x in xs])
    journaled = journal.steps() if journal is not None else {}
    total = taken = 0
    measured = float(BUCKET_BYTES)  # bytes of buckets per position expanded, until a pass measures it
    for step in steps:
        rate = measured if step.rate is None else step.rate
        walked, done = journaled.get(step.key, (0, set()))
        every = step.items if step.folds else step.parts  # a round's partitions, or a pass's
        todo, counted = [i for i in range(every) if i not in done], step.key in journaled
        if counted:
            total += walked
            taken += not todo
        while todo:
            these, why = _group(step, todo, rate, room, scratch)
            if why is not None:
                return judged(None, why, total), taken
            todo = todo[len(these):]
            targets = list(range(step.parts)) if step.folds else these
            whys = [] if step.prepare is None else \
                [w for w in run(partial(step.prepare, seconds=deadline.remaining()), targets) if w]
            got = [] if whys else run(partial(step.expand, targets=None if len(targets) == step.parts
                                              else tuple(targets), seconds=deadline.remaining()),
                                      these if step.folds else list(range(step.items)))
            if not whys and (step.folds or not counted):  # every pass walks the same children
                children = sum(w for w, _ in got)
                walked, total, counted = walked + children, total + children, True
            whys += [w for _, w in got if w is not None]
            if not whys and step.lookup is not None:
                whys = [w for w in run(partial(step.lookup, seconds=deadline.remaining()), targets) if w]
            made = sum(f.stat().st_size for f in step.buckets.glob("*.bkt"))
            shutil.rmtree(step.buckets, ignore_errors=True)
            if step.sieves is not None:
                shutil.rmtree(step.sieves, ignore_errors=True)
            if made and step.size is not None:
                rate = made * every / len(these) / max(1, step.size)
                measured = rate if step.rate is None else measured
            if whys:
                worst = next((w for w in whys if not w.startswith(UNSETTLED)), whys[0])
                ok = None if worst.startswith(UNSETTLED) else False
                return judged(ok, worst.removeprefix(UNSETTLED), total), taken
            done |= set(these)
            if journal is not None:
                journal.record(step.key, walked, done)
            if progress is not None:
                share = "" if len(these) == every else f", {len(done)} of its {every} partitions"
                head, tail = (share, "") if step.folds else ("", share)
                progress(f"{step.name}{head} into {step.into}{tail}: {walked:,} children, "
                         f"{time.perf_counter() - t0:,.0f} s")
    return judged(True, "", total), taken


def _group(step: Step, todo: list[int], rate: float, room: int | None,
           scratch: str) -> tuple[list[int], str | None]:
    """The partitions of ``todo`` the next round (``step.folds``: those expanded) or pass (the
    target partitions) takes: as many as their buckets fit the disk (``rate`` bytes a position
    expanded), a round a power of two of them; or why none fits."""
    if step.lookup is None or step.size is None:
        return todo, None
    every = step.items if step.folds else step.parts
    per = rate * max(1, step.size) / every
    space = room if room is not None else int(DISK_SHARE * shutil.disk_usage(scratch).free)
    n = min(len(todo), int(space // max(per, 1.0)))
    if n < 1:
        what = "from each partition expanded" if step.folds else "for each partition they go to"
        return [], (f"no room on the disk for the buckets of {step.name}'s children "
                    f"(~{per / 1e6:,.1f} MB {what})")
    if step.folds:  # rounds of a power of two: as many tasks as 2^k workers take at once
        n = 1 << (n.bit_length() - 1)
    return todo[:n], None


def load_level_part(path: Path, count: int, sha256: str, whole: bool = True) -> np.ndarray:
    """The positions of a level file (``engine.spill``'s sealed partitions): ``count`` of
    them, its body's SHA-256 as the certificate states (ValueError otherwise). ``whole=False``:
    its header only is read and checked (an empty array comes back)."""
    try:
        with open(path, "rb") as fh:
            if fh.read(len(sealed.MAGIC)) != sealed.MAGIC:
                raise ValueError(f"{path} is not a sealed level file")
            head = json.loads(fh.readline(sealed.HEADER_MAX))
        if not isinstance(head, dict) or head.get("count") != count or head.get("sha256") != sha256:
            raise ValueError(f"{path} does not hold the {count} positions with the SHA-256 stated")
        if not whole:
            return np.zeros(0, dtype=np.uint64)
        return sealed.read(path, "level", 1, str(head.get("fingerprint", "")), count)
    except (OSError, sealed.Stale, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def overstated(f: Path, it: dict) -> Verdict | None:
    """Why a level part stated larger than the memory budget holds is rejected (its file's
    header does not state that count and SHA-256), or None: a count too large to check here
    is "not settled" only when the file really claims it."""
    if 3 * 8 * it["count"] <= memory_budget():
        return None
    try:
        load_level_part(f.resolve(), it["count"], it["sha256"], whole=False)
    except ValueError as exc:
        return rejected(f"{exc}")
    return None
