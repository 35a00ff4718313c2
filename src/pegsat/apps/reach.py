"""``pegsat count --spill DIR``: the positions reachable by jumps, level by level, on disk and
on a Dask cluster, for games whose levels do not fit one process's memory: the census of
``engine.disk``'s one level loop, forward only, every level's classes and raw positions
counted, a killed run resumed from its last level.

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

from ..deadline import Deadline
from ..engine import disk, spill
from ..engine.kernel import words
from ..errors import PegsatError, Unknown
from ..model.problem import Problem


@dataclass(frozen=True)
class Reach:
    """The reachable positions by jump level (classes up to the symmetries, and raw)."""

    problem: Problem
    symmetries: int
    levels: tuple[disk.Level, ...]
    complete: bool  # the last level has no successor: every reachable position is counted
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """As ``count --spill --json`` prints it."""
        return {"problem": self.problem.describe(), "symmetries": self.symmetries, "complete": self.complete,
                "levels": [{"jumps": j, "parts": lv.parts, "classes": lv.classes, "raw": lv.raw,
                            "bytes": lv.bytes} for j, lv in enumerate(self.levels)],
                "totals": {"classes": sum(lv.classes for lv in self.levels),
                           "positions": sum(lv.raw for lv in self.levels)},
                "seconds": round(self.seconds, 3)}

    def table(self) -> list[str]:
        """As ``count --spill`` prints it, a line each."""
        head = f"{'jumps':>5} {'pegs':>4} {'reachable':>14} {'(raw)':>18} {'partitions':>10} {'disk MB':>9}"
        out = [f"{self.problem.describe()}  (positions up to {self.symmetries} symmetries; raw: every "
               "position; on disk)", head, "-" * len(head)]
        for j, lv in enumerate(self.levels):
            out.append(f"{j:>5} {self.problem.pegs - j:>4} {lv.classes:>14,} {lv.raw:>18,} "
                       f"{lv.parts:>10} {lv.bytes / 1e6:>9.1f}")
        out.append("-" * len(head))
        out.append(f"{'total':>10} {sum(lv.classes for lv in self.levels):>14,} "
                   f"{sum(lv.raw for lv in self.levels):>18,}")
        if not self.complete:
            out.append("(the levels after the last are not counted yet: rerun to go on)")
        out.append(f"{self.seconds:.1f} s")
        return out


def reach(problem: Problem, root: Path, *, workers: int = 2, scheduler: str | None = None,
          memory: int | None = None, deadline: Deadline | None = None, keep: bool = False,
          progress: Callable[[str], None] | None = None,
          on_level: Callable[[Any, int], None] | None = None, disk_limit: int | None = None) -> Reach:
    """The reachable census of ``problem`` with its levels under ``root/forward``, resumed
    from ``root/manifest.json`` when a run of the same problem left one. ``keep``: keep every
    level's files (else only the last). Past ``deadline``, with no room for a level, or with
    workers lost: ``Unknown`` with the levels finished (which are kept: a rerun goes on, and
    a level built in rounds goes on from its last round). ``on_level(client, d)``: called as
    level ``d`` is being expanded (tests kill a worker there). ``workers``, ``memory``,
    ``disk_limit``: as ``engine.disk.Run`` takes them."""
    if problem.special is not None or words(problem.board) != 1:
        raise PegsatError("count --spill: boards of at most 64 holes and no special peg")
    t0 = time.perf_counter()
    say = progress or (lambda line: None)
    with spill.claim(root, "count --spill"):
        state = disk.resume(root, "census", problem, say) or disk.State()
        search = disk.Search("census", problem)
        told = None if on_level is None else lambda client, side, d: on_level(client, d)
        run = disk.Run(search, root, state, workers=workers, memory=memory, disk=disk_limit,
                       deadline=deadline, say=say, on_level=told, keep=keep)
        out = run.run(scheduler)
    levels = tuple(out.state.levels["forward"])
    if out.ending is disk.Ending.UNKNOWN:
        raise Unknown(f"{out.why}; the {len(levels)} levels before it are kept in {root}: rerun with --spill "
                      f"{root} to go on", {"levels_finished": len(levels),
                                           "classes_per_level": [lv.classes for lv in levels]})
    return Reach(problem, len(search.kernel.group), levels, True, time.perf_counter() - t0)
