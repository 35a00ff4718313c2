"""``pegsat count --spill DIR``: the positions reachable by jumps, level by level, on disk and
on a Dask cluster, for games whose levels do not fit one process's memory.

Each level is a set of partition files (``engine.spill``); a level becomes the next in two
rounds of Dask tasks — every partition of the level expanded on its own (children routed to
their partition of the next level as bucket files), then every partition of the next level
merged from its buckets — so no process ever holds a level, only a chunk's children or a
partition's buckets, sized from ``memory`` (bytes per worker process). Partitions double as
levels grow. Tasks are idempotent (``engine.spill``), so a worker lost mid-level only costs
Dask's rerun of its tasks, on another worker. ``manifest.json`` (written atomically after
every level) records each finished level's partitions, classes and raw positions: it is the
checkpoint, and a run that is killed resumes from its last finished level with identical
results.

It counts what a sweep forward can: the classes (positions up to the problem's symmetries)
and raw positions of every level. What needs the levels backwards too — which positions can
still win, winning sequences, games — is the in-memory ``count``'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import sealed
from ..deadline import Deadline
from ..engine.bitboard import stabilizer
from ..engine.kernel import kernel, words
from ..errors import PegsatError, Unknown
from ..model.codec import problem_to_json
from ..model.problem import Problem

FORMAT, VERSION = "pegsat-spill", 1
FANOUT = 12  # children per position by one jump, at most: what sizes a chunk and the partitions


@dataclass(frozen=True)
class Level:
    jumps: int
    parts: int
    classes: int
    raw: int
    bytes: int


@dataclass(frozen=True)
class Reach:
    """The reachable positions by jump level (classes up to the symmetries, and raw)."""

    problem: Problem
    symmetries: int
    levels: tuple[Level, ...]
    complete: bool  # the last level has no successor: every reachable position is counted
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """As ``count --spill --json`` prints it."""
        return {"problem": self.problem.describe(), "symmetries": self.symmetries, "complete": self.complete,
                "levels": [lv.__dict__ for lv in self.levels],
                "totals": {"classes": sum(lv.classes for lv in self.levels),
                           "positions": sum(lv.raw for lv in self.levels)},
                "seconds": round(self.seconds, 3)}

    def table(self) -> list[str]:
        """As ``count --spill`` prints it, a line each."""
        head = f"{'jumps':>5} {'pegs':>4} {'reachable':>14} {'(raw)':>18} {'partitions':>10} {'disk MB':>9}"
        out = [f"{self.problem.describe()}  (positions up to {self.symmetries} symmetries; raw: every "
               "position; on disk)", head, "-" * len(head)]
        for lv in self.levels:
            out.append(f"{lv.jumps:>5} {self.problem.pegs - lv.jumps:>4} {lv.classes:>14,} {lv.raw:>18,} "
                       f"{lv.parts:>10} {lv.bytes / 1e6:>9.1f}")
        out.append("-" * len(head))
        out.append(f"{'total':>10} {sum(lv.classes for lv in self.levels):>14,} "
                   f"{sum(lv.raw for lv in self.levels):>18,}")
        if not self.complete:
            out.append("(the levels after the last are not counted yet: rerun to go on)")
        out.append(f"{self.seconds:.1f} s")
        return out


def fingerprint(problem: Problem, group) -> str:
    """What a level file and the manifest belong to: the problem, its symmetries, the format."""
    return sealed.digest(problem_to_json(problem), [list(p) for p in group], FORMAT, VERSION)


def _expand(problem: Problem, root: str, fp: str, d: int, piece: tuple[int, int, int], parts_next: int,
            chunk: int, max_count: int, targets: tuple[int, ...] | None = None) -> int:
    """A Dask task: a piece of a partition of level ``d`` expanded (``engine.spill.expand``),
    the children of ``targets``' partitions kept (None: all)."""
    from ..engine import spill

    k = kernel(problem.board, tuple(tuple(q) for q in stabilizer(problem)))
    p, lo, end = piece
    return spill.expand(k, Path(root), fp, d, p, parts_next, chunk, max_count, lo=lo, end=end,
                        targets=targets)


def _merge(problem: Problem, root: str, fp: str, d: int, q: int, max_count: int) -> tuple[int, int, int]:
    """A Dask task: partition ``q`` of level ``d`` merged (``engine.spill.merge``)."""
    from ..engine import spill

    k = kernel(problem.board, tuple(tuple(p) for p in stabilizer(problem)))
    m = spill.merge(k, Path(root), fp, d, q, max_count)
    return m.classes, m.raw, m.bytes


def reach(problem: Problem, root: Path, *, workers: int = 2, scheduler: str | None = None,
          memory: int | None = None, deadline: Deadline | None = None, keep: bool = False,
          progress: Callable[[str], None] | None = None,
          on_level: Callable[[Any, int], None] | None = None, disk: int | None = None) -> Reach:
    """The reachable census of ``problem`` with its levels under ``root``, resumed from
    ``root/manifest.json`` when a run of the same problem left one. ``memory``: bytes per
    worker process (default: the memory budget shared by the local workers). ``keep``: keep
    every level's files (else only the last). ``disk``: the most bytes ``root`` may hold (a
    level whose buckets do not fit is built in passes: ``engine.spill.passes``; default: what
    the disk has free). Past ``deadline``, or with no room for a level: ``Unknown`` with the
    levels finished (which are kept: a rerun goes on, and a level built in passes goes on
    from its last pass). ``on_level(client, d)``: called as level ``d``
    is being expanded (tests kill a worker there)."""
    from ..engine import spill

    if problem.special is not None or words(problem.board) != 1:
        raise PegsatError("count --spill: boards of at most 64 holes and no special peg")
    deadline = deadline or Deadline()
    t0 = time.perf_counter()
    k = kernel(problem.board, tuple(tuple(p) for p in stabilizer(problem)))
    fp = fingerprint(problem, k.group)
    per_worker, chunk, max_count = spill.prepare(root, memory, workers, FANOUT)
    with spill.claim(root, "count --spill"):
        return _reach(problem, root, k, fp, workers, scheduler, per_worker, chunk, max_count, deadline,
                      keep, progress, on_level, disk, t0)


def _reach(problem: Problem, root: Path, k: Any, fp: str, workers: int, scheduler: str | None,
           per_worker: int, chunk: int, max_count: int, deadline: Deadline, keep: bool,
           progress: Callable[[str], None] | None, on_level: Callable[[Any, int], None] | None,
           disk: int | None, t0: float) -> Reach:
    """``reach`` in its directory, once it holds the directory's lock."""
    from ..engine import spill
    from .cluster import client as connect
    from .cluster import finished

    levels, complete, building = _resume(root, fp, progress)
    if not levels:
        spill.drop_level(root, 0)
        start = k.unique(k.canon(k.array([problem.start])))
        size = spill.write_part(root, fp, 0, 0, start)
        levels = [Level(0, 1, 1, spill.orbit_total(k, start), size)]
        _save(root, fp, levels, problem)
    settings = {"distributed.worker.daemon": False}

    def interrupted() -> None:
        if progress is not None:
            progress(f"interrupted after {len(levels) - 1} levels by jumps "
                     f"({sum(lv.classes for lv in levels):,} positions up to symmetry); they are kept in "
                     f"{root}: rerun with --spill {root} to go on")

    with connect(workers, scheduler, settings, memory_limit=None, interrupted=interrupted,
                 deadline=deadline) as client:
        def within(fs: list[Any]) -> list[Any]:
            """The tasks' results; Unknown when the deadline passes first, or when a task
            failed on every try (workers lost): the levels finished are kept, and the rerun
            that goes on keeps the level's partitions written so far."""
            n = len(levels)  # levels finished
            kept = (f"the {n} levels before it are kept in {root}: rerun with --spill {root} to go on",
                    {"levels_finished": n, "classes_per_level": [lv.classes for lv in levels]})
            if not finished(fs, deadline):
                client.cancel(fs)
                raise Unknown(f"the time limit came while level {n} was built; {kept[0]}", kept[1]) from None
            try:
                return client.gather(fs)
            except Exception as exc:
                raise Unknown(f"level {n} could not be built ({type(exc).__name__}: {str(exc)[:120]}); "
                              f"{kept[0]}", kept[1]) from None

        while not complete and not _done(problem, levels):
            d = len(levels) - 1
            if deadline.expired():
                raise Unknown(f"the time limit came after {d + 1} levels by jumps; they are kept in "
                              f"{root}: rerun with --spill {root} to go on", {"levels_finished": d + 1,
                                                          "classes_per_level": [lv.classes for lv in levels]})
            last = levels[-1]
            spread = 2 * (len(client.scheduler_info()["workers"]) or workers)  # tasks to keep them busy
            if building is None:  # a killed run's passes of this level are kept when it had
                building = spill.partitions(last.classes, FANOUT, per_worker, spread=spread)
                spill.drop_level(root, d + 1)  # these partitions; else what it left is dropped
                _save(root, fp, levels, problem, building=building)
            parts_next = building
            t = time.perf_counter()
            tasks = spill.pieces(root, fp, d, last.parts, spread)
            n = len(tasks)
            merged = []
            try:
                for step in spill.passes(root, fp, d + 1, parts_next, last.classes, disk):
                    if 0 < len(step.targets) < parts_next and progress is not None:
                        progress(f"level {d + 1}: a pass for {len(step.targets)} of its {parts_next} "
                                 "partitions (the rest written already, or their buckets past the room on "
                                 "the disk)")
                    if step.targets:
                        futures = client.map(_expand, [problem] * n, [str(root)] * n, [fp] * n, [d] * n,
                                             tasks, [parts_next] * n, [chunk] * n, [max_count] * n,
                                             [step.targets] * n, pure=False)
                        if on_level is not None:
                            on_level(client, d)
                        within(futures)
                    m = len(step.merges)
                    merged += within(client.map(_merge, [problem] * m, [str(root)] * m, [fp] * m, [d + 1] * m,
                                                step.merges, [max_count] * m, pure=False))
            except spill.NoRoom as exc:
                raise Unknown(f"{exc}; the {d + 1} levels before it are kept in {root}: rerun with --spill "
                              f"{root} to go on",
                              {"levels_finished": d + 1,
                               "classes_per_level": [lv.classes for lv in levels]}) from None
            building = None
            level = Level(d + 1, parts_next, sum(m[0] for m in merged), sum(m[1] for m in merged),
                          sum(m[2] for m in merged))
            if not level.classes:  # no jump from the last level: the game tree ends there
                spill.drop_level(root, d + 1)
                _save(root, fp, levels, problem, complete=True)
                break
            levels.append(level)
            _save(root, fp, levels, problem)
            if not keep and d >= 1:
                spill.drop_level(root, d)
            if progress is not None:
                secs = time.perf_counter() - t
                growth = level.classes / max(1, last.classes)
                progress(f"level {d + 1}: {level.classes:,} positions up to symmetry in {parts_next} "
                         f"partitions, {level.bytes / 1e6:,.1f} MB on disk, {secs:.1f} s "
                         f"({level.classes / max(secs, 1e-9):,.0f} positions/s); if the next level grows "
                         f"as this one did: ~{level.classes * growth:,.0f} positions, "
                         f"~{level.bytes * growth / 1e6:,.0f} MB, ~{secs * growth:,.0f} s (a guess)")
    return Reach(problem, len(k.group), tuple(levels), True, time.perf_counter() - t0)


def _done(problem: Problem, levels: list[Level]) -> bool:
    """No level beyond: one peg left (no jump is possible with one peg)."""
    return problem.pegs - (len(levels) - 1) <= 1


def _resume(root: Path, fp: str, progress: Callable[[str], None] | None
            ) -> tuple[list[Level], bool, int | None]:
    """The finished levels of an earlier run of this search, whether they were all, and the
    partitions of the level it was building; or ([], False, None) when there is none.
    ``engine.spill.manifest`` refuses a directory of another search, or a manifest this
    user's pegsat did not sign; one whose last level's files are gone is started afresh."""
    from ..engine import spill

    data = spill.manifest(root, fp)
    if data is None:
        return [], False, None
    try:
        if data.get("format") != FORMAT or data.get("version") != VERSION:
            raise ValueError("not a census's manifest")
        levels = [Level(**lv) for lv in data["levels"]]
        complete = data.get("complete") is True
        building = data.get("building")
        if building is not None and (type(building) is not int or not 1 <= building <= 1 << 16):
            raise ValueError("a bad partition count")
        for p in range(levels[-1].parts):  # the last level's files are all there, and whole
            if not spill.written(root, fp, len(levels) - 1, p):
                raise ValueError(f"partition {p} of level {len(levels) - 1} is missing or damaged")
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
        if progress is not None:
            progress(f"{root / spill.MANIFEST}: not resumed ({str(exc)[:80]}); starting afresh")
        return [], False, None
    if progress is not None:
        progress(f"resuming from level {len(levels) - 1} ({levels[-1].classes:,} positions)")
    return levels, complete, building


def _save(root: Path, fp: str, levels: list[Level], problem: Problem, complete: bool = False,
          building: int | None = None) -> None:
    """The manifest: the finished levels, whether they are all, and the partitions of the
    level being built (its passes' partitions are kept by a rerun only with that count)."""
    from ..engine import spill

    spill.save_manifest(root, {"format": FORMAT, "version": VERSION, "fingerprint": fp,
                               "search": f"count {problem.describe()}", "complete": complete,
                               "building": building, "levels": [lv.__dict__ for lv in levels]})
