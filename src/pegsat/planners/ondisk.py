"""The ``moves`` and ``layers`` planners past memory: their level searches on disk
(``engine.disk``), and what an outcome there means for the problem.

``levels`` is the one route both planners take (``config.disk``): on disk from the start when
``disk.first`` (``solve --spill DIR``) or when the directory holds a run's checkpoint (a
rerun goes on from it); else in memory while the levels fit the memory budget, then on disk
in ``disk.directory`` (default: a new temporary directory), which goes once the answer is
final unless it holds a certificate's evidence. ``on_disk`` is the search in one directory:
its state resumed, or begun with a first plan's bound and the learned pagodas; the loop run
on a Dask cluster; its outcome turned into a replayed plan, a proof with its certificate
(``levels`` for an exhausted search by jumps, ``moves`` for the fewest moves), or "unknown"
with what it proved.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..analysis import merson, pagoda
from ..analysis.bounds import Bounds
from ..deadline import Deadline, Timeout
from ..engine import disk, spill
from ..engine.bitboard import count_moves, replay_plan
from ..engine.kernel import pool_release, words
from ..errors import PegsatError, PlanError
from ..files import write_atomic
from ..limits import MemoryBudget
from ..model.problem import Problem
from ..model.result import Proof, Result, Stats, Status, certificate
from .config import GIVEN, Config

#: why a search on disk takes no certificate file of its own
SPILLED = ("a search by moves on disk writes the certificate of its fewest moves beside its levels, as "
           "certificate.json in its directory: no other file is needed")
Solve = Callable[[Problem, Deadline, Config], Result]
#: the first plan of a search by moves and its moves (the bound), or a refutation
First = Callable[[Problem, Deadline, Config], tuple[Result | None, int | None]]


def levels(problem: Problem, deadline: Deadline, config: Config, kind: str, name: str, in_memory: Solve,
           first: First | None = None) -> Result:
    """The level search ``kind`` (``moves`` or ``jumps``) of the planner ``name``: in memory
    (``in_memory``, which raises ``MemoryBudget`` past the budget when ``config.disk`` is
    set) or on disk as ``config.disk`` says; ``first``: the first plan's search (by moves)."""
    from ..progress import tell

    where = config.disk
    if where is None:
        return in_memory(problem, deadline, config)
    root = where.directory

    def run(at: Path, certify: bool) -> Result:
        return on_disk(problem, at, kind=kind, name=name, first=first, workers=config.workers,
                       scheduler=where.scheduler, memory=where.memory, deadline=deadline, config=config,
                       progress=tell, disk_limit=where.limit, certify=certify)

    if where.first and root is not None:  # the levels stay: an exhaustive search leaves its certificate
        return run(root, True)
    if root is not None and (root / spill.MANIFEST).is_file():
        return _final(run(root, kind == "jumps"), root)
    try:
        return in_memory(problem, deadline, config)
    except MemoryBudget as exc:
        why = str(exc)
    # out here, not in the handler: the exception's frames hold the in-memory levels, and
    # they go only with it (French d3 -> g5 kept 6.8 GB through its whole run on disk); the
    # blocks they leave in the core's pool go too (the workers do the rest)
    pool_release()
    if root is not None:
        root.mkdir(parents=True, exist_ok=True)
    at = root or Path(tempfile.mkdtemp(prefix="pegsat-levels-"))
    tell(f"{why}: going on with the levels on disk in {at}")
    return _final(run(at, root is not None and kind == "jumps"), at)


def _final(r: Result, root: Path) -> Result:
    """``r``; its levels under ``root`` removed once the answer is final, unless they are a
    certificate's evidence (``root/certificate.json``: ``apps.atlas`` takes them)."""
    kept = r.certificate is not None and r.certificate["kind"] in ("levels", "moves")
    if r.status is not Status.UNKNOWN and not kept:
        shutil.rmtree(root, ignore_errors=True)
    return r


def on_disk(problem: Problem, root: Path, *, kind: str = "moves", name: str = "moves",
            first: First | None = None, workers: int = 2, scheduler: str | None = None,
            memory: int | None = None, deadline: Deadline | None = None, config: Config | None = None,
            progress: disk.Say | None = None, upper: bool = True, on_level: disk.OnLevel | None = None,
            disk_limit: int | None = None, certify: bool = True) -> Result:
    """The level search ``kind`` of ``problem`` with its levels under ``root`` (resumed from
    its checkpoint when a run of the same search left one), holding the directory's lock for
    the run (a second run on it is refused). By moves: the fewest moves, a replayed plan with
    the proof that none has fewer (under ``first``'s plan, or ``config.upper_plan``; with
    ``upper=False`` no first plan and no pruning, every level whole), and with ``certify``
    the ``moves`` certificate of it at ``root/certificate.json``. By jumps: a plan, or the
    proof that none exists, and with ``certify`` its ``levels`` certificate. Levels are cut by
    the pagodas of ``analysis.pagoda.for_levels`` (by moves none with ``upper=False``, nor on
    a board of at most ``pagoda.SMALL_BOARD`` holes). Past ``deadline``, with no room on the
    disk, or with workers lost: "unknown" with what was proven, the levels kept for a rerun.
    ``memory``, ``disk_limit``, ``on_level``: as ``engine.disk.Run`` takes them (``disk``)."""
    if kind not in ("moves", "jumps"):
        raise ValueError(f"kind {kind!r}: moves or jumps")
    if words(problem.board) != 1:
        raise PegsatError(f"out of core: boards of at most 64 holes ({problem.board.name} has "
                          f"{problem.board.n})")
    with spill.claim(root, "--spill"):
        job = _Job(problem, root, kind, name, deadline or Deadline(), progress or (lambda line: None),
                   certify)
        state = job.prepare(config, upper, first)
        if isinstance(state, Result):
            return state
        search = disk.Search(kind, problem, Bounds(problem, state.pagodas))
        run = disk.Run(search, root, state, workers=workers, memory=memory, disk=disk_limit,
                       deadline=job.deadline, say=job.say, on_level=on_level)
        job.stats["symmetries"], job.stats["workers"] = len(search.kernel.group), workers
        return job.result(run.run(scheduler), run.fp)


class _Job:
    """One search on disk as the planner sees it: its state prepared, its outcome answered."""

    def __init__(self, problem: Problem, root: Path, kind: str, name: str, deadline: Deadline,
                 say: disk.Say, certify: bool) -> None:
        self.problem, self.root, self.kind, self.name = problem, root, kind, name
        self.deadline, self.say, self.certify = deadline, say, certify
        self.jumps = kind == "jumps"
        self.t0, self.upper_s = time.perf_counter(), 0.0
        self.stats: Stats = {}

    def prepare(self, config: Config | None, upper: bool, first: First | None) -> disk.State | Result:
        """The state: resumed from the checkpoint, or begun with a first plan's bound (the plan
        given, else ``first``'s) and the pagodas; a refutation the first plan's search found."""
        problem, jumps = self.problem, self.jumps
        state = disk.resume(self.root, self.kind, problem, self.say)
        given = None if jumps or config is None else config.upper_plan
        worth = jumps or (upper and pagoda.worth_learning(problem))
        learned = (lambda: pagoda.for_levels(problem, self.deadline)) if worth else list
        if state is None and jumps:
            state = disk.State(pagodas=learned())
        if given is not None:
            m = count_moves(problem.board, given)
            if state is None:
                state = disk.State(upper=m, first=given, first_by=GIVEN, pagodas=learned(), built=m)
            elif state.upper is None or m < state.upper:
                self.say(f"the plan given has {m} moves: the bound goes from {state.upper} to {m}")
                state.upper, state.first, state.first_by = m, given, GIVEN
        if state is None:
            plan, bound = None, None
            if upper and first is not None:
                t = time.perf_counter()
                try:
                    plan, bound = first(problem, self.deadline, config or Config())
                except Timeout:  # the deadline came first: no bound, and "unknown" later
                    pass
                self.upper_s = time.perf_counter() - t
                if plan is not None and plan.status is Status.UNSOLVABLE:
                    return plan
            known = plan is not None and bound is not None
            state = disk.State(upper=bound, first=plan.plan if known and plan is not None else None,
                               first_by=plan.planner if plan is not None else "", pagodas=learned(),
                               built=bound)
        return state

    # --- the outcome as a result ---------------------------------------------------------

    def result(self, out: disk.Outcome, fp: str) -> Result:
        """What the outcome says of the problem."""
        state, (a, b) = out.state, out.depths
        how = f"breadth-first search by {disk.KINDS[self.kind]} out of core ({out.grown})"
        lower = None if self.jumps else a + b + 1
        if out.ending is disk.Ending.UNKNOWN:
            return self.unknown(out, lower)
        if out.ending is disk.Ending.EXHAUSTED:
            r = self.answer(out, Status.UNSOLVABLE, None, None, f"{how} {out.why}")
            if not self.jumps or not self.certify:
                return r
            return self.kept(r, levels_certificate(self.problem, self.root, fp, state))
        if out.ending is disk.Ending.BOUND:
            u = state.upper if state.upper is not None else -1
            r = self.answer(out, Status.SOLVED_OPTIMAL, state.first, u, f"optimal: {u} moves (plan from "
                            f"{state.first_by}); {how} found none with {u - 1}")
            return self.certified(r, fp, state, u, out.probe)
        if out.ending is not disk.Ending.MET or out.plan is None:
            raise ValueError(f"a search by {self.kind} ended as {out.ending.value}")
        if self.jumps:
            return self.answer(out, Status.SOLVED, out.plan, None,
                               f"{how} met, its levels pruned by {len(state.pagodas)} pagodas")
        u = a + b + 1 if out.plan else 0
        done = f"; {how} found none with {u - 1}" if u else f"; {how}"
        r = self.answer(out, Status.SOLVED_OPTIMAL, out.plan, u, f"optimal: {u} moves{done}")
        return self.certified(r, fp, state, u)

    def answer(self, out: disk.Outcome, status: Status, plan: tuple[int, ...] | None, lower: int | None,
               detail: str) -> Result:
        """The result, its plan replayed (one that does not, or whose moves are not the
        optimum claimed, is an error), with the levels' figures."""
        levels, problem, name = out.state.levels, self.problem, self.name
        now = time.perf_counter() - self.t0
        st: Stats = {**self.stats, "upper_s": self.upper_s, "total_s": now, "search_s": now - self.upper_s,
                     "forward_levels": [lv.classes for lv in levels["forward"]],
                     "backward_levels": [lv.classes for lv in levels["backward"]],
                     "positions": sum(lv.classes for side in disk.SIDES for lv in levels[side]),
                     "disk_bytes": sum(lv.bytes for side in disk.SIDES for lv in levels[side])}
        if plan is not None:
            try:
                moves = replay_plan(problem, plan).moves
            except PlanError as exc:
                return Result(Status.ERROR, problem, name, stats=st,
                              detail=f"the plan does not replay: {exc}")
            if status is Status.SOLVED_OPTIMAL and moves != lower:
                return Result(Status.ERROR, problem, name, stats=st,
                              detail=f"the plan has {moves} moves, the search said {lower}")
            return Result(status, problem, name, plan=plan, moves=moves, lower_bound=lower, stats=st,
                          detail=detail)
        return Result(status, problem, name, lower_bound=lower if status is Status.UNKNOWN else None,
                      stats=st, detail=detail, proof=None if status is Status.UNKNOWN else Proof.EXHAUSTED)

    def unknown(self, out: disk.Outcome, lower: int | None) -> Result:
        """"Unknown", with the levels kept; ``lower``: the moves proven (None by jumps)."""
        state, root = out.state, self.root
        kept = f"; the levels are kept in {root}: rerun with --spill {root} to go on"
        if lower is None:
            return self.answer(out, Status.UNKNOWN, None, None, f"{out.why}{kept}")
        if state.first is not None:
            return self.answer(out, Status.UNKNOWN, state.first, lower,
                               f"{out.why}: best found {state.upper} moves, proven >= {lower}{kept}")
        return self.answer(out, Status.UNKNOWN, None, lower,
                           f"{out.why}: no plan found; any plan needs >= {lower} moves{kept}")

    def kept(self, r: Result, cert: Any) -> Result:
        """``r`` with ``cert``, written at ``root/certificate.json`` beside the levels it names
        (its walk is ``pegsat check``'s)."""
        path = self.root / "certificate.json"
        text = json.dumps(cert) + "\n"
        write_atomic(path, lambda fh: fh.write(text))
        return replace(r, certificate=cert, detail=f"{r.detail}; certificate: {path} (pegsat check {path})")

    def certified(self, r: Result, fp: str, state: disk.State, moves: int, probe: str = "") -> Result:
        """``r`` with the ``moves`` certificate of its fewest moves (``certify``)."""
        if not self.certify or r.status is not Status.SOLVED_OPTIMAL:
            return r
        return self.kept(r, moves_certificate(self.problem, self.root, fp, state, moves, probe))


def levels_certificate(problem: Problem, root: Path, fp: str, state: disk.State) -> Any:
    """The ``levels`` certificate of an exhausted search by jumps: its level files (forward,
    and backward when it grew both sides), symmetries, pagodas and mirror
    (``checks.certificate``)."""
    search = disk.Search("jumps", problem)
    flip = search.mirror
    levels = disk.named(root, fp, state)
    back = {"backward": levels["backward"]} if levels["backward"] else {}
    return certificate(problem, "levels", {
        "symmetries": [list(p) for p in search.kernel.group], "mirror": None if flip is None else list(flip),
        "pagodas": pagoda.named_pagodas(problem, state.pagodas),
        "partition": f"{int(spill.GOLDEN):#x}", "levels": levels["forward"], **back})


def moves_certificate(problem: Problem, root: Path, fp: str, state: disk.State, moves: int,
                      probe: str) -> Any:
    """The ``moves`` certificate of a search by moves that proved ``moves`` (``checks.moves``
    checks it): its levels' files, the bound they were pruned under (the smallest a level saw:
    the bound only falls, and a level pruned under a larger one holds more), the Merson regions,
    the side whose last level was probed (``probe``) or none."""
    names = problem.board.names
    return certificate(problem, "moves", {
        "moves": moves, "upper": moves if state.upper is None else state.upper, "probe": probe,
        "symmetries": [list(p) for p in disk.Search("moves", problem).kernel.group],
        "regions": [[names[h] for h in range(problem.board.n) if r >> h & 1]
                    for r in merson.region_family(problem.board)],
        "pagodas": pagoda.named_pagodas(problem, state.pagodas),
        "partition": f"{int(spill.GOLDEN):#x}", **disk.named(root, fp, state)})
