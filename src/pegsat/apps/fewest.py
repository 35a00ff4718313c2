"""``solve --min-moves --spill DIR``: the fewest moves by the ``moves`` planner's search, with
its levels on disk and expanded on a Dask cluster.

The search is the in-memory one's (``planners.moves``): breadth-first by moves from the start
and from the goal positions, one position per orbit of the symmetries fixing both, the
smaller side grown next, pagodas cutting what can no longer reach the goal (backward: what
the start cannot reach) and Merson's bounds pruning under the moves of a first plan, the
first meeting optimal. Each level is a set of partition files (``engine.spill``) grown in two
rounds of Dask tasks: every partition of a side's last level expanded by one move on its
own, then every partition of the new level merged from its buckets, less the positions of
the side's earlier levels (a move may reach a position again later: delayed duplicate
detection against the earlier levels, partition by partition, as Korf's disk-based search
does), less what the bounds prune, and tested against the other side's last level — a
position's partition is the same on both sides and at every depth, so a merge reads only
its own partition of each. No process holds a level: only a chunk's children, one
partition's buckets, one partition of another level.

The plan comes back from the meeting position walked through the stored levels
(``engine.levels.walk``, a partition file per step), and is replayed by the verifier.

``manifest.json`` (written atomically after every level) records both sides' levels, the
upper bound and the first plan it came from: it is the checkpoint, and a run that is killed
resumes from its last finished level with the same levels and the same answer. Tasks are
idempotent, so a worker lost mid-level costs Dask's rerun of its tasks, nothing else.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .. import sealed
from ..analysis.bounds import Bounds
from ..deadline import Deadline, Timeout
from ..engine import spill
from ..engine.bitboard import Perm, count_moves, mirror, permute, replay, replay_plan, stabilizer
from ..engine.kernel import Kernel, kernel, pool_release, words
from ..engine.levels import walk
from ..errors import PegsatError, PlanError
from ..files import write_atomic
from ..model.codec import problem_to_json
from ..model.problem import Problem, goal_positions
from ..model.result import Proof, Result, Stats, Status

FORMAT, VERSION = "pegsat-fewest", 1
NAME = "moves"
SIDES = ("forward", "backward")
STEPS = {"moves": "moves", "layers": "jumps"}  # the level searches' planners, and their step
FANOUT = 24  # children per position by one move, roughly: what sizes a chunk and the partitions
WARM = 1 << 20  # in-memory levels of at most about this many positions before the first plan's beams
#: why a search on disk takes no certificate file of its own
SPILLED = ("a search by moves on disk writes the certificate of its fewest moves beside its levels, as "
           "certificate.json in its directory: no other file is needed")
PROBE_SAY = 60.0  # seconds between a long probe's progress lines
PROBE_HOLD = 4  # a probe task holds children in at most 1/PROBE_HOLD of a worker's memory: each
# flush reads the other side's whole last level, so the fewer flushes the better


@dataclass(frozen=True)
class Level:
    parts: int
    classes: int
    bytes: int
    fewest: int = 0  # the fewest and the most pegs of its positions: a later level whose
    most: int = 64  # pegs miss this range is not subtracted from it (``spill.merge``)


@dataclass
class State:
    """What the manifest holds: the bound, the plan it came from, both sides' levels, the
    pagodas its levels were pruned with."""

    upper: int | None
    first: tuple[int, ...] | None  # the first plan, the upper bound's
    first_by: str
    levels: dict[str, list[Level]]
    pagodas: list[tuple[tuple[int, ...], int]] = field(default_factory=list)
    #: the bound the levels were pruned under, in their files' fingerprint: a shorter plan
    #: given on a rerun lowers ``upper`` below it, and the levels kept stay valid (a looser
    #: bound keeps more positions, every one as far from its side as its level says)
    built: int | None = None
    #: the pieces of the last level (``side``, ``d``, partition, first, end) probed with no
    #: meeting: a probe killed midway (hours on the German board) resumes with the others
    probed: list[tuple[str, int, int, int, int]] = field(default_factory=list)
    #: the level being built (``side``, depth, partitions): a rerun keeps the partitions its
    #: passes wrote (``engine.spill.passes``) when it builds that level with as many
    building: tuple[str, int, int] | None = None


def _kernel(problem: Problem) -> Kernel:
    return kernel(problem.board, tuple(tuple(p) for p in stabilizer(problem)))


def _mirror(problem: Problem, by: str) -> Perm | None:
    """By jumps, the symmetry ``s`` of a self-dual problem (``engine.bitboard.mirror``): its
    backward level ``j`` is ``s(~F_j)``, never grown; else None."""
    goals = goal_positions(problem) if by == "jumps" else None
    return mirror(problem, goals[0]) if goals is not None and len(goals) == 1 else None


def fingerprint(problem: Problem, group: Any, upper: int | None, by: str = "moves",
                pagodas: list[tuple[tuple[int, ...], int]] | None = None) -> str:
    """What the level files and the manifest belong to: the problem, its symmetries, the bound
    the levels were pruned under, the pagodas (by jumps: the step, whether the backward side
    is the forward one mirrored), the format."""
    cut = [[list(w), f] for w, f in pagodas or []]
    extra: list[Any] = [by, cut] if by == "jumps" else [["pagodas", cut]] if cut else []
    if _mirror(problem, by) is not None:
        extra.append("mirrored")
    return sealed.digest(problem_to_json(problem), [list(p) for p in group], upper, FORMAT, VERSION, *extra)


def _side_fp(fp: str, side: str) -> str:
    return sealed.digest(fp, side)


def _expand(problem: Problem, root: str, fp: str, side: str, d: int, piece: tuple[int, int, int],
            parts_next: int, chunk: int, max_count: int, by: str = "moves",
            targets: tuple[int, ...] | None = None) -> int:
    """A Dask task: a piece of a partition of ``side``'s level ``d`` expanded by one move
    (``by="jumps"``: one jump), the children of ``targets``' partitions kept (None: all)."""
    p, lo, end = piece
    return spill.expand(_kernel(problem), Path(root) / side, _side_fp(fp, side), d, p, parts_next, chunk,
                        max_count, by=by, reverse=side == "backward", lo=lo, end=end, targets=targets)


def _merge(problem: Problem, root: str, fp: str, side: str, d: int, q: int, parts: int,
           earlier: list[tuple[int, int, int]], max_count: int, upper: int | None,
           other: tuple[int, int] | None, bounds: Bounds) -> spill.Merged:
    """A Dask task: partition ``q`` of ``side``'s new level ``d`` merged, less the side's
    earlier levels and what ``bounds`` cuts (its pagodas; by moves, Merson's bounds under
    ``upper`` too), and met against the other side's last level (``other``: its depth and
    partitions; None: against the goal)."""
    k = _kernel(problem)

    def keep(level: np.ndarray) -> np.ndarray:
        return bounds.keep(side, level, d, upper)

    def meets(level: np.ndarray) -> np.ndarray:
        if other is None:
            return k.goals(level, problem.goal)
        (od, oparts), oside = other, SIDES[side == "forward"]
        mask = np.zeros(len(level), dtype=bool)
        for r in spill.covering(q, parts, oparts):
            there = spill.read_part(Path(root) / oside, _side_fp(fp, oside), od, r, max_count)
            mask |= k.member(there, level)
        return mask

    return spill.merge(k, Path(root) / side, _side_fp(fp, side), d, q, max_count, parts=parts,
                       earlier=earlier, keep=keep, meets=meets)


def _probe(problem: Problem, root: str, fp: str, side: str, d: int, piece: tuple[int, int, int],
           other: tuple[int, int] | None, chunk: int, hold: int, max_count: int,
           by: str = "moves", flip: Perm | None = None) -> tuple[int, int | None]:
    """A Dask task: the children of a piece of ``side``'s level ``d`` met against the other
    side's last level (``other``: its depth and partitions; None: against the goal), one of
    its partitions at a time, the children never stored (``engine.spill.probe``). ``flip``:
    the other side is this one mirrored (``_mirror``): each child ``c`` is met as ``s(~c)``
    against this side's level, and the least meeting comes back as that image."""
    k = _kernel(problem)
    oside = SIDES[side == "forward"] if flip is None else side
    image = None
    if flip is not None:
        def image(kids: np.ndarray) -> np.ndarray:
            return k.canon(k.permute(k.complement(kids), flip))

    def meets(r: int, kids: np.ndarray) -> np.ndarray:
        if other is None:
            return k.goals(kids, problem.goal)
        there = spill.read_part(Path(root) / oside, _side_fp(fp, oside), other[0], r, max_count)
        return k.member(there, kids)

    p, lo, end = piece
    return spill.probe(k, Path(root) / side, _side_fp(fp, side), d, p, other[1] if other else 1, chunk,
                       max_count, meets, hold, by=by, reverse=side == "backward", lo=lo, end=end, image=image)


def solve(problem: Problem, config: Any, deadline: Deadline, *, spill: Path | None = None,
          scheduler: str | None = None, memory: int | None = None,
          progress: Callable[[str], None] | None = None, planner: str = "moves",
          overflow: Path | None = None, disk: int | None = None) -> Result:
    """The level search ``planner`` (``STEPS``): ``moves``, the fewest moves (``solve
    --min-moves``), or ``layers``, the exhaustive search by jumps. With ``spill``, out of
    core there from the start (``fewest``, on ``config.workers`` local workers or the
    cluster at ``scheduler``); else in memory (the planner through ``apps.solve``) while the
    levels fit the memory budget, then out of core in ``overflow`` (default: a new temporary
    directory), removed once the answer is final (kept, and named, when it is "unknown": a
    rerun with ``--spill`` there goes on, and an ``overflow`` that holds a run's manifest is
    gone on with at once: ``survey --spill``; kept too in ``spill`` or ``overflow`` when they
    hold a ``levels`` certificate, ``root/certificate.json``; a search by moves leaves its
    ``moves`` certificate there only in ``spill``: an overflow's levels go once answered).
    ``disk``: the most bytes the levels' directory may hold (``fewest``)."""
    from ..limits import MemoryBudget
    from .solve import solve as in_memory

    by = STEPS[planner]

    def out_of_core(root: Path, certify: bool = False) -> Result:
        return fewest(problem, root, workers=config.workers, scheduler=scheduler, memory=memory,
                      deadline=deadline, config=config, progress=progress, by=by, disk=disk, certify=certify)

    if spill is not None:  # the levels stay: a search by jumps that exhausts leaves its certificate
        return out_of_core(spill, certify=True)
    if overflow is not None and (overflow / "manifest.json").is_file():
        return _final(out_of_core(overflow, certify=by == "jumps"), overflow)
    try:
        return in_memory(problem, planner, replace(config, spill=True), deadline)
    except MemoryBudget as exc:
        why = str(exc)
    # out here, not in the handler: the exception's frames hold the in-memory levels, and
    # they go only with it (French d3 -> g5 kept 6.8 GB through its whole run on disk); the
    # blocks they leave in the core's pool go too (the workers do the rest)
    pool_release()
    if overflow is not None:
        overflow.mkdir(parents=True, exist_ok=True)
    root = overflow or Path(tempfile.mkdtemp(prefix="pegsat-levels-"))
    if progress is not None:
        progress(f"{why}: going on with the levels on disk in {root}")
    return _final(out_of_core(root, certify=overflow is not None and by == "jumps"), root)


def _final(r: Result, root: Path) -> Result:
    """``r``; its levels under ``root`` removed once the answer is final, unless they are a
    certificate's evidence (``root/certificate.json``: ``apps.atlas`` takes them)."""
    kept = r.certificate is not None and r.certificate["kind"] in ("levels", "moves")
    if r.status is not Status.UNKNOWN and not kept:
        shutil.rmtree(root, ignore_errors=True)
    return r


def fewest(problem: Problem, root: Path, **options: Any) -> Result:
    """``_fewest`` (its options) in ``root``, holding the directory's lock for the run: a
    second run on the same directory is refused (``engine.spill.claim``)."""
    with spill.claim(root, "--spill"):
        return _fewest(problem, root, **options)


def _fewest(problem: Problem, root: Path, *, workers: int = 2, scheduler: str | None = None,
            memory: int | None = None, deadline: Deadline | None = None, config: Any = None,
            progress: Callable[[str], None] | None = None, upper: bool = True,
            on_level: Callable[[Any, str, int], None] | None = None, by: str = "moves",
            disk: int | None = None, certify: bool = True) -> Result:
    """The fewest moves of ``problem`` (a replayed plan, with the proof that none has fewer),
    its levels under ``root``, resumed from ``root/manifest.json`` when a run of the same
    problem left one. ``memory``: bytes per worker process (default: the memory budget shared
    by the local workers). ``disk``: the most bytes ``root`` may hold (a level whose buckets
    do not fit is built in passes, ``engine.spill.passes``, and a killed run goes on from its
    last pass; default: what the disk has free). ``upper=False``: no first plan, no pruning
    (every level whole, as the in-memory search builds them without a bound). Past
    ``deadline``, or with no room on the disk for a level: "unknown" with the proven lower
    bound (the levels are kept: a rerun goes on). Levels are cut by the pagodas of
    ``analysis.pagoda.for_levels`` (by moves none with ``upper=False``, nor on a board of at
    most ``pagoda.SMALL_BOARD`` holes). ``on_level(client, side, d)``: called
    while the tasks growing ``side``'s level ``d + 1`` are out (tests kill a worker there).

    ``by="jumps"``: the ``layers`` planner's search out of core (``--planner layers
    --spill``). Every plan has the same jumps, ``T``, so the sides meet only when their
    depths sum to ``T``: that last level is only probed, and a probe that meets nothing
    proves the problem unsolvable; a search that grew one side only (a self-dual problem, or
    one whose goal positions are too many to list) then writes ``root/certificate.json``
    (``certify``), a ``levels`` certificate naming its level files (``proofs.layered``
    checks it). Forward a position must weigh at least each pagoda's floor, backward at most
    what the start weighs; the plan found is not claimed to
    have the fewest moves. A self-dual problem (``_mirror``: every single-vacancy complement
    problem, v -> v) grows its forward side only, to half the jumps: its last level's
    children are probed as their mirror images against a forward level, half the work and
    half the disk of growing both sides."""
    from ..planners import layers
    from ..planners.moves import supports
    from ..proofs.cheap import cheap_proofs

    if by not in ("moves", "jumps"):
        raise ValueError(f"by {by!r}: moves or jumps")
    why = layers.supports(problem) if by == "jumps" else supports(problem)
    if why is None and words(problem.board) != 1:
        why = f"out of core: boards of at most 64 holes ({problem.board.name} has {problem.board.n})"
    if why is not None:
        raise PegsatError(why)
    deadline = deadline or Deadline()
    t0 = time.perf_counter()
    cheap = cheap_proofs(problem)
    if cheap is not None:
        return cheap
    run = _Run(problem, root, by, workers, memory, deadline, progress or (lambda line: None), on_level, disk,
               certify, t0)
    refuted = run.prepare(config, upper)
    return refuted if refuted is not None else run.search(scheduler)


class _Run:
    """One level search on disk (``_fewest``): its state, its answers, its loop."""

    def __init__(self, problem: Problem, root: Path, by: str, workers: int, memory: int | None,
                 deadline: Deadline, say: Callable[[str], None],
                 on_level: Callable[[Any, str, int], None] | None, disk: int | None, certify: bool,
                 t0: float) -> None:
        from ..planners import layers

        self.problem, self.root, self.by, self.workers = problem, root, by, workers
        self.deadline, self.say, self.on_level = deadline, say, on_level
        self.disk, self.certify = disk, certify
        self.t0, self.upper_s = t0, 0.0
        self.jumps = by == "jumps"
        self.name = layers.NAME if self.jumps else NAME
        self.k = _kernel(problem)
        self.goals = goal_positions(problem)
        self.total = problem.pegs - self.goals[0].bit_count() if self.goals else 0  # a plan's jumps
        self.flip = _mirror(problem, by)
        self.per_worker, self.chunk, self.max_count = spill.prepare(root, memory, workers, FANOUT)
        self.stats: Stats = {"symmetries": len(self.k.group), "workers": workers}

    # --- the state: resumed, or a first plan and the pagodas --------------------------

    def prepare(self, config: Any, upper: bool) -> Result | None:
        """The state (resumed from the manifest, or begun with a first plan's bound and the
        pagodas), the fingerprint, level 0 of each side; a refutation the first plan's search
        found, if it found one."""
        from ..analysis import pagoda
        from ..planners.config import Config
        from ..planners.moves import GIVEN

        problem, k, by, jumps = self.problem, self.k, self.by, self.jumps
        state = _resume(self.root, problem, k, self.say, by)
        given = None if jumps or config is None else config.upper_plan
        # the pagodas that cut the levels (by moves none for ``upper=False``: every level whole;
        # none on a board too small for them to pay)
        worth = jumps or (upper and pagoda.worth_learning(problem))
        learned = (lambda: pagoda.for_levels(problem, self.deadline)) if worth else list
        if state is None and jumps:
            state = State(None, None, "", {"forward": [], "backward": []}, learned())
        if given is not None:
            m = count_moves(problem.board, given)
            if state is None:
                state = State(m, given, GIVEN, {"forward": [], "backward": []}, learned(), built=m)
            elif state.upper is None or m < state.upper:
                self.say(f"the plan given has {m} moves: the bound goes from {state.upper} to {m}")
                state.upper, state.first, state.first_by = m, given, GIVEN
        if state is None:
            first = bound = None
            if upper:
                t = time.perf_counter()
                try:
                    first, bound = _first(problem, self.deadline, config or Config())
                except Timeout:  # the deadline came first: no bound, and "unknown" below
                    pass
                self.upper_s = time.perf_counter() - t
                if first is not None and first.status is Status.UNSOLVABLE:
                    return first
            state = State(bound, first.plan if first is not None and bound is not None else None,
                          first.planner if first is not None else "", {"forward": [], "backward": []},
                          learned(), built=bound)
        self.state, self.levels = state, state.levels
        self.fp = fingerprint(problem, k.group, state.built, by, state.pagodas)
        # forward: w(P) >= its floor; backward: w(Q) <= w(start); by moves, Merson's bounds
        self.bounds = Bounds(problem, state.pagodas)
        self.stats["upper_s"] = self.upper_s
        if not self.levels["forward"]:
            for side, positions in (("forward", [problem.start]), ("backward", self.goals)):
                spill.drop_level(self.root / side, 0)
                if positions is None or (side == "backward" and self.flip is not None):
                    continue  # too many goal positions to list, or the mirror: forward only
                zero = k.unique(k.canon(k.array(positions)))
                size = spill.write_part(self.root / side, _side_fp(self.fp, side), 0, 0, zero)
                self.levels[side] = [Level(1, len(zero), size, *spill.peg_range(k, zero))]
            self.save()
        return None

    def save(self) -> None:
        _save(self.root, self.problem, self.fp, self.state, self.by)

    # --- what the levels say -----------------------------------------------------------

    def depths(self) -> tuple[int, int]:
        """The sides' depths (mirrored: the backward side as deep as forward, up to the
        depth the last probe meets)."""
        a = len(self.levels["forward"]) - 1
        if self.flip is not None:
            return a, max(0, min(a, self.total - a - 1))
        return a, max(0, len(self.levels["backward"]) - 1)

    def lower(self) -> int | None:
        """The moves proven so far (None by jumps: every plan has the same jumps)."""
        a, b = self.depths()
        return None if self.jumps else a + b + 1

    def member(self, side: str, d: int, pos: int) -> bool:
        if side == "backward" and self.flip is not None:
            side, pos = "forward", permute(self.flip, pos ^ self.problem.board.full)
        k = self.k
        c = k.canon(k.array([pos]))
        r = int(spill.route(c, self.levels[side][d].parts)[0])
        return bool(k.member(_read(self.root / side, _side_fp(self.fp, side), d, r, self.max_count), c)[0])

    def grown(self) -> str:
        a, b = self.depths()
        return f"{a} forward levels, mirrored as backward ones" if self.flip is not None else \
            f"{a} forward + {b} backward levels"

    def how(self) -> str:
        return f"breadth-first search by {self.by} out of core ({self.grown()})"

    # --- answers -------------------------------------------------------------------------

    def answer(self, status: Status, plan: tuple[int, ...] | None, lower: int | None, detail: str) -> Result:
        levels, problem, name = self.levels, self.problem, self.name
        disk = sum(lv.bytes for side in SIDES for lv in levels[side])
        now = time.perf_counter() - self.t0
        st: Stats = {**self.stats, "total_s": now, "search_s": now - self.upper_s,
                     "forward_levels": [lv.classes for lv in levels["forward"]],
                     "backward_levels": [lv.classes for lv in levels["backward"]],
                     "positions": sum(lv.classes for side in SIDES for lv in levels[side]),
                     "disk_bytes": disk}
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

    def unknown(self, why: str) -> Result:
        return _unknown(self.answer, self.state, self.lower(), why, self.root)

    def lost(self, exc: Exception, what: str = "built") -> Result:
        """"Unknown": a task failed on every try (its workers lost)."""
        return self.unknown(f"a level could not be {what} ({type(exc).__name__}: {str(exc)[:120]})")

    def kept(self, r: Result, cert: Any) -> Result:
        """``r`` with ``cert``, written at ``root/certificate.json`` beside the levels it names
        (its walk is ``pegsat check``'s)."""
        path = self.root / "certificate.json"
        text = json.dumps(cert) + "\n"
        write_atomic(path, lambda fh: fh.write(text))
        return replace(r, certificate=cert, detail=f"{r.detail}; certificate: {path} (pegsat check {path})")

    def exhausted(self, what: str) -> Result:
        r = self.answer(Status.UNSOLVABLE, None, None, f"{self.how()} {what}")
        if not self.jumps or not self.certify:
            return r
        cert = _certificate(self.problem, self.root, self.fp, self.k.group, self.flip, self.state)
        return self.kept(r, cert)

    def certified(self, r: Result, moves: int, probe: str = "") -> Result:
        """``r`` with the ``moves`` certificate of its fewest moves (``certify``)."""
        if not self.certify or r.status is not Status.SOLVED_OPTIMAL:
            return r
        return self.kept(r, _moves_certificate(self.problem, self.root, self.fp, self.k.group, self.state,
                                               moves, probe))

    def by_first(self, probe: str = "") -> Result:
        """Optimal with the first plan: the levels found none with fewer moves (``probe``: the
        side whose last level's children were met against the other side)."""
        state, levels = self.state, self.levels
        u = state.upper if state.upper is not None else -1
        r = self.answer(Status.SOLVED_OPTIMAL, state.first, u, f"optimal: {u} moves (plan from "
                        f"{state.first_by}); {self.how()} found none with {u - 1}")
        while len(levels["forward"]) + len(levels["backward"]) - 1 > u:  # a bound that fell below
            del levels[max(SIDES, key=lambda s: len(levels[s]))][-1]  # the levels: fewer of them prove it
        return self.certified(r, u, probe)

    def found(self, side: str, pos: int, a: int, b: int, d: int) -> Result:
        """The answer from a meeting at ``pos``, one step beyond ``side``'s level ``d`` (with
        no backward levels, ``b`` is 0 and the meeting is with the goal)."""
        i, j = (d + 1, b) if side == "forward" else (a, d + 1)
        _, plan = walk(self.problem.board, self.k.group, (self.problem.start,), self.by, pos, i, j,
                       lambda e, q: self.member("forward", e, q), lambda e, z: self.member("backward", e, z))
        if self.jumps:
            n = len(self.state.pagodas)
            return self.answer(Status.SOLVED, plan, None,
                               f"{self.how()} met, its levels pruned by {n} pagodas")
        u = a + b + 1
        return self.certified(self.answer(Status.SOLVED_OPTIMAL, plan, u,
                                          f"optimal: {u} moves; {self.how()} found none with {u - 1}"), u)

    # --- the loop ------------------------------------------------------------------------

    def search(self, scheduler: str | None) -> Result:
        """Level after level on a Dask cluster until the sides meet, the bound is reached, a
        level is empty, or the deadline passes."""
        from .cluster import client as connect

        problem, levels = self.problem, self.levels
        # the start may be a goal position already
        if levels["backward"]:
            if self.member("backward", 0, problem.start):
                return self.answer(Status.SOLVED_OPTIMAL, (), 0, f"optimal: 0 moves; {self.how()}")
        elif self.k.goals(self.k.array([problem.start]), problem.goal)[0]:
            return self.answer(Status.SOLVED_OPTIMAL, (), 0, f"optimal: 0 moves; {self.how()}")
        if self.deadline.expired():  # before any cluster is started
            return self.unknown(self.deadline.reason())

        def interrupted() -> None:
            a, b = self.depths()
            proven = "" if self.jumps else f"; any plan needs >= {a + b + 1} moves"
            self.say(f"interrupted after {self.grown()}{proven}; the levels are kept in "
                     f"{self.root}: rerun with --spill {self.root} to go on")

        settings = {"distributed.worker.daemon": False}
        with connect(self.workers, scheduler, settings, memory_limit=None, interrupted=interrupted,
                     deadline=self.deadline) as client:
            while True:
                a, b = self.depths()
                if self.state.upper is not None and a + b + 1 >= self.state.upper:
                    return self.by_first()
                side = "forward"
                if levels["backward"] and levels["backward"][-1].classes < levels["forward"][-1].classes:
                    side = "backward"
                d = len(levels[side]) - 1
                other = None
                if self.flip is not None:  # the backward level b: forward level b mirrored
                    other = (b, levels["forward"][b].parts)
                elif levels["backward"]:
                    theirs = levels[SIDES[side == "forward"]]
                    other = (len(theirs) - 1, theirs[-1].parts)
                if self.deadline.expired():
                    return self.unknown(self.deadline.reason())
                # tasks to keep the workers busy
                spread = 2 * (len(client.scheduler_info()["workers"]) or self.workers)
                tasks = spill.pieces(self.root / side, _side_fp(self.fp, side), d, levels[side][-1].parts,
                                     spread)
                # Under a bound, the last level that can matter (a meeting there is a plan of
                # upper - 1 moves; by jumps, of the plans' jumps) is only probed: its children
                # met, never stored.
                if (self.state.upper is not None and a + b + 2 == self.state.upper) or (
                        self.jumps and a + b + 1 == self.total):
                    return self.probe_last(client, side, d, tasks, other)
                r = self.grow(client, side, d, tasks, other, spread)
                if r is not None:
                    return r

    def first_meeting(self, client: Any, probes: list[Any],
                      pieces: list[tuple[str, int, int, int, int]] | None = None,
                      total: int = 0) -> int | None:
        """The least meeting of the first probe task that finds one (the others are
        cancelled), or None; TimeoutError past the deadline. With ``pieces`` (each task's:
        side, level, partition, first, end), each piece that met nothing is kept in the
        manifest, and a long probe says how far it got (of ``total``)."""
        from distributed import as_completed

        of = {f.key: x for f, x in zip(probes, pieces or [], strict=False)}
        t0 = told = time.perf_counter()
        for done in as_completed(probes, timeout=self.deadline.remaining()):
            hits, least = done.result()
            if hits:
                client.cancel(probes)
                return int(least)
            if pieces is not None:
                piece = of[done.key]
                self.state.probed.append(piece)
                self.save()
                if time.perf_counter() - told >= PROBE_SAY:
                    told = time.perf_counter()
                    count = sum(1 for x in self.state.probed if x[:2] == piece[:2])
                    self.say(f"{piece[0]} level {piece[1] + 1}: {count} of {total} pieces probed, no "
                             f"meeting ({told - t0:.0f} s)")
        return None

    def probe_last(self, client: Any, side: str, d: int, tasks: list[tuple[int, int, int]],
                   other: tuple[int, int] | None) -> Result:
        """The last level that can matter, only probed: a meeting is the answer; none, the
        first plan is optimal (by jumps: the problem is unsolvable)."""
        a, b = self.depths()
        t = time.perf_counter()
        before = [(p, lo, end) for s, e, p, lo, end in self.state.probed if (s, e) == (side, d)]
        todo = spill.uncovered(tasks, before)  # (a rerun may cut the level into other pieces)
        if before:
            self.say(f"{side} level {d + 1}: {len(before)} pieces probed before, no meeting; "
                     f"{len(todo)} left")
        m = len(todo)
        hold = self.per_worker // (8 * PROBE_HOLD)
        probes = client.map(_probe, [self.problem] * m, [str(self.root)] * m, [self.fp] * m, [side] * m,
                            [d] * m, todo, [other] * m, [self.chunk] * m, [hold] * m, [self.max_count] * m,
                            [self.by] * m, [self.flip] * m, pure=False)
        if self.on_level is not None:
            self.on_level(client, side, d)
        try:
            met = self.first_meeting(client, probes, [(side, d, p, lo, end) for p, lo, end in todo],
                                     len(before) + m)
        except TimeoutError:
            client.cancel(probes)
            return self.unknown(self.deadline.reason())
        except Exception as exc:  # tasks that failed on every try (workers lost): unknown
            return self.lost(exc, "probed")
        self.say(f"{side} level {d + 1} probed in {time.perf_counter() - t:.1f} s: "
                 + ("it meets the other side" if met is not None else "no meeting"))
        if met is not None:
            if self.flip is not None:  # the image s(~c) met: s(~s(~c)) = s²(c) is in c's orbit
                met = permute(self.flip, met ^ self.problem.board.full)  # (s² fixes the start and goal)
            return self.found(side, met, a, b, d)
        if self.jumps:
            return self.exhausted(f"met no plan of {self.total} jumps: every position on one was ruled out")
        return self.by_first(side)

    def grow(self, client: Any, side: str, d: int, tasks: list[tuple[int, int, int]],
             other: tuple[int, int] | None, spread: int) -> Result | None:
        """``side``'s level ``d + 1`` built (expanded, then merged partition by partition, in
        passes when the disk is short) and recorded; an answer when it meets the other side,
        is empty, or cannot be built; else None."""
        from distributed import as_completed

        from .cluster import finished

        a, b = self.depths()
        state, levels, root, fp, problem = self.state, self.levels, self.root, self.fp, self.problem
        mine, last, n = levels[side], levels[side][-1], len(tasks)
        t = time.perf_counter()
        # A scout first: one chunk's children met against the other side, on its own, while
        # the level is expanded. At the level that meets, meetings are many and a chunk finds
        # one in seconds (as in memory, where the first slices do); any other level pays one
        # read of the other side's last level.
        scout = None
        if not self.jumps:  # by jumps the sides meet only at the last level
            hold = self.per_worker // (8 * PROBE_HOLD)
            scout = client.submit(_probe, problem, str(root), fp, side, d, (0, 0, self.chunk), other,
                                  self.chunk, hold, self.max_count, pure=False, priority=1)
        if state.building is None or state.building[:2] != (side, d + 1):
            parts_next = spill.partitions(last.classes, FANOUT, self.per_worker, last.parts, spread)
            spill.drop_level(root / side, d + 1)  # what a killed run left of it; a run that
            state.building = (side, d + 1, parts_next)  # had these partitions keeps its passes'
            self.save()
        m = state.building[2]
        earlier = [] if self.jumps else [(lv.parts, lv.fewest, lv.most) for lv in mine]
        merged: list[spill.Merged] = []
        meeting, futures, merges = None, [], []
        try:
            mine_disk = None if self.disk is None else self.disk - sum(  # the other side's levels count too
                spill.disk_used(root / s) for s in SIDES if s != side and (root / s).is_dir())
            for step in spill.passes(root / side, _side_fp(fp, side), d + 1, m, last.classes, mine_disk):
                if 0 < len(step.targets) < m:
                    self.say(f"{side} level {d + 1}: a pass for {len(step.targets)} of its {m} partitions "
                             "(the rest written already, or their buckets past the room on the disk)")
                if step.targets:
                    futures = client.map(_expand, [problem] * n, [str(root)] * n, [fp] * n, [side] * n,
                                         [d] * n, tasks, [m] * n, [self.chunk] * n, [self.max_count] * n,
                                         [self.by] * n, [step.targets] * n, pure=False)
                    if self.on_level is not None:
                        self.on_level(client, side, d)
                if scout is not None:  # while the first pass expands
                    try:
                        met = self.first_meeting(client, [scout])
                    except Exception:  # no time, or the scout was lost: the level will tell
                        met = None
                    scout = None
                    if met is not None:
                        client.cancel(futures)
                        self.say(f"{side} level {d + 1}: a chunk of it meets the other side "
                                 f"({time.perf_counter() - t:.1f} s): {a + b + 1} moves")
                        return self.found(side, met, a, b, d)
                if step.targets:
                    if not finished(futures, self.deadline):
                        client.cancel(futures)
                        return self.unknown(self.deadline.reason())
                    try:
                        client.gather(futures)
                    except Exception as exc:  # tasks that failed on every try (workers lost)
                        return self.lost(exc)
                # The first partition that meets the other side ends the search: the rest of
                # the level is never merged (as in memory, where the first slice that meets does)
                c = len(step.merges)
                merges = client.map(_merge, [problem] * c, [str(root)] * c, [fp] * c, [side] * c,
                                    [d + 1] * c, step.merges, [m] * c, [earlier] * c, [self.max_count] * c,
                                    [state.upper] * c, [None if self.jumps else other] * c,
                                    [self.bounds] * c, pure=False)
                for done in as_completed(merges, timeout=self.deadline.remaining()):
                    try:
                        x = done.result()
                    except Exception as exc:  # tasks that failed on every try (workers lost)
                        return self.lost(exc)
                    if x.hits:
                        client.cancel(merges)
                        meeting = x.hit
                        break
                    merged.append(x)
                if meeting is not None:
                    break
        except TimeoutError:
            client.cancel(merges)
            return self.unknown(self.deadline.reason())
        except spill.NoRoom as exc:
            return self.unknown(str(exc))
        if meeting is not None:
            self.say(f"{side} level {d + 1}: meets the other side ({time.perf_counter() - t:.1f} s): "
                     f"{a + b + 1} moves")
            return self.found(side, meeting, a, b, d)
        return self.record(side, d, m, merged, time.perf_counter() - t)

    def record(self, side: str, d: int, m: int, merged: list[spill.Merged], secs: float) -> Result | None:
        """``side``'s new level ``d + 1`` (``m`` partitions, merged) kept in the manifest and
        said; the answer when it is empty."""
        state, levels = self.state, self.levels
        a, b = self.depths()
        last = levels[side][-1]
        state.building = None
        level = Level(m, sum(x.classes for x in merged), sum(x.bytes for x in merged),
                      min(x.pegs[0] for x in merged), max(x.pegs[1] for x in merged))
        levels[side].append(level)
        self.save()
        stored = sum(lv.bytes for s in SIDES for lv in levels[s])
        growth = level.classes / max(1, last.classes)
        rate = level.classes / max(secs, 1e-9)
        self.say(f"{side} level {d + 1}: {level.classes:,} positions up to symmetry in {m} partitions, "
                 f"{secs:.1f} s ({rate:,.0f} positions/s, {rate / self.workers:,.0f} per worker), "
                 f"{stored / 1e6:,.1f} MB on disk" + ("" if self.jumps else f"; proven >= {a + b + 2} moves")
                 + _eta(levels, secs, growth))
        if not level.classes:
            if state.upper is not None and state.first is not None:
                return self.by_first()
            return self.exhausted("exhausted every reachable position without reaching the goal")
        return None


def _first(problem: Problem, deadline: Deadline, config: Any) -> tuple[Result | None, int | None]:
    """The first plan and its moves, the bound: beams over in-memory levels of about ``WARM``
    positions (``planners.moves.first_plan``, two widths, both guides), the fewest moves kept.
    A one-peg-anywhere goal is also tried survivor by survivor (the class-compatible ones,
    one per orbit): a fixed survivor's backward levels are narrow and its beams meet with
    fewer moves (German e5 -> anywhere: 33 moves from the open goal, 23 with e5 alone). A
    refutation comes back only for the problem itself."""
    from ..analysis import games
    from ..planners.moves import BEAM, Search, first_plan

    tries = [problem]
    split = games.split(problem)
    if split is not None and len(split.survivors) > 1:
        tries += [game.problem for h in split.survivors for game in split.games(h, both=False)]
    best: tuple[Result | None, int | None] = (None, None)
    for q in tries:
        search = Search(q, deadline)
        search.warm(WARM)
        first, bound = first_plan(search, deadline, config, widths=(BEAM, 5 * BEAM))
        del search
        if first is not None and first.status is Status.UNSOLVABLE:
            if q is problem:
                return first, None
            continue  # that survivor has no plan; the others may
        if first is None or first.plan is None or bound is None:
            continue
        if best[1] is None or bound < best[1]:  # a survivor's plan is one of the problem's (the
            best = (replace(first, problem=problem), bound)  # same start): its moves, replayed there
    return best


def _named(root: Path, fp: str, levels: dict[str, list[Level]]) -> dict[str, list[list[dict[str, object]]]]:
    """Each side's levels as a certificate names them: per level its partitions' files
    (relative to ``root``), counts and SHA-256."""
    def named(side: str, d: int, p: int) -> dict[str, object]:
        it = spill.described(root / side, _side_fp(fp, side), d, p)
        return {**it, "file": f"{side}/{it['file']}"}
    return {side: [[named(side, d, p) for p in range(lv.parts)] for d, lv in enumerate(levels[side])]
            for side in SIDES}


def _certificate(problem: Problem, root: Path, fp: str, group: Any, flip: Perm | None, state: State) -> Any:
    """The ``levels`` certificate of an exhausted search by jumps: its level files (forward,
    and backward when it grew both sides), symmetries, pagodas and mirror
    (``proofs.certificate``)."""
    from ..model.result import certificate
    from ..proofs.certificate import named_pagodas

    levels = _named(root, fp, state.levels)
    back = {"backward": levels["backward"]} if levels["backward"] else {}
    return certificate(problem, "levels", {
        "symmetries": [list(p) for p in group], "mirror": None if flip is None else list(flip),
        "pagodas": named_pagodas(problem, state.pagodas),
        "partition": f"{int(spill.GOLDEN):#x}", "levels": levels["forward"], **back})


def _moves_certificate(problem: Problem, root: Path, fp: str, group: Any, state: State, moves: int,
                       probe: str) -> Any:
    """The ``moves`` certificate of a search by moves that proved ``moves`` (``proofs.bymoves``
    checks it): its levels' files, the bound they were pruned under (the smallest a level saw:
    the bound only falls, and a level pruned under a larger one holds more), the Merson regions,
    the side whose last level was probed (``probe``) or none."""
    from ..analysis import merson
    from ..model.result import certificate
    from ..proofs.certificate import named_pagodas

    names = problem.board.names
    levels = _named(root, fp, state.levels)
    return certificate(problem, "moves", {
        "moves": moves, "upper": moves if state.upper is None else state.upper, "probe": probe,
        "symmetries": [list(p) for p in group],
        "regions": [[names[h] for h in range(problem.board.n) if r >> h & 1]
                    for r in merson.region_family(problem.board)],
        "pagodas": named_pagodas(problem, state.pagodas),
        "partition": f"{int(spill.GOLDEN):#x}", **levels})


def _unknown(answer: Callable[..., Result], state: State, lower: int | None, why: str, root: Path) -> Result:
    """"Unknown", with the levels kept; ``lower``: the moves proven (None by jumps)."""
    kept = f"; the levels are kept in {root}: rerun with --spill {root} to go on"
    if lower is None:
        return answer(Status.UNKNOWN, None, None, f"{why}{kept}")
    if state.first is not None:
        return answer(Status.UNKNOWN, state.first, lower,
                      f"{why}: best found {state.upper} moves, proven >= {lower}{kept}")
    return answer(Status.UNKNOWN, None, lower, f"{why}: no plan found; any plan needs >= {lower} moves{kept}")


def _eta(levels: dict[str, list[Level]], secs: float, growth: float) -> str:
    """The next level's size and time if it grows as the last did (a guess, said as one)."""
    a, b = levels["forward"], levels["backward"]
    nxt = min(x[-1].classes for x in (a, b) if x) if b else a[-1].classes
    if not nxt:
        return ""
    return f"; next level ~{nxt * growth:,.0f} positions, ~{secs * growth:,.0f} s at this rate"


@lru_cache(maxsize=16)
def _read_cached(path: str, fp: str, d: int, r: int, max_count: int, mtime: float) -> np.ndarray:
    return spill.read_part(Path(path), fp, d, r, max_count)


def _read(root: Path, fp: str, d: int, r: int, max_count: int) -> np.ndarray:
    mtime = spill.part_path(root, d, r).stat().st_mtime
    return _read_cached(str(root), fp, d, r, max_count, mtime)


def _resume(root: Path, problem: Problem, k: Kernel, say: Callable[[str], None], by: str = "moves"
            ) -> State | None:
    """The state an earlier run of this search left, or None when there is none. The
    manifest is believed only as this user's pegsat signed it for this very search
    (``engine.spill.manifest``: another search's directory, or an edited manifest, is
    refused, never emptied); its first plan only once replayed."""
    from ..formats.notation import parse_plan

    def expected(data: dict) -> str:  # the fingerprint of this search pruned as the manifest says
        _, built, pagodas = _pruning(data)
        return fingerprint(problem, k.group, built, by, pagodas)

    data = spill.manifest(root, expected)
    if data is None:
        return None
    path = root / spill.MANIFEST
    try:
        if data.get("format") != FORMAT or data.get("version") != VERSION:
            raise ValueError("not a manifest of this version")
        upper, built, pagodas = _pruning(data)
        if any(x is not None and not isinstance(x, int) for x in (upper, built)):
            raise ValueError("a bad upper bound")
        if built is not None and (upper is None or upper > built):  # levels missing plans under upper
            raise ValueError("a bound looser than the levels were pruned under")
        if any(len(w) != problem.board.n for w, _ in pagodas):
            raise ValueError("a pagoda of another board")
        first = None
        if data["first"] is not None:  # believed only once replayed, with the moves it claims
            rep = replay(problem, parse_plan(problem.board, data["first"], "names"))
            if rep.moves != upper:
                raise ValueError("the first plan does not have the moves of the bound")
            first = rep.plan
        levels = {side: [Level(**lv) for lv in data["levels"][side]] for side in SIDES}
        for side in SIDES:
            for d, lv in enumerate(levels[side]):  # every level is read again: all there
                for p in range(lv.parts):
                    if not spill.part_path(root / side, d, p).is_file():
                        raise ValueError(f"partition {p} of {side} level {d} is missing")
        probed = [(str(s), int(d), int(p), int(lo), int(end)) for s, d, p, lo, end in data.get("probed", [])]
        if any(s not in SIDES for s, *_ in probed):
            raise ValueError("a probed piece of no side")
        building = data.get("building")
        if building is not None:
            side, d, parts = building
            if side not in SIDES or type(d) is not int or type(parts) is not int or not 1 <= parts <= 1 << 16:
                raise ValueError("a bad level in the building")
            building = (side, d, parts)
    except (OSError, PegsatError, ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
        say(f"{path}: not resumed ({str(exc)[:80]}); starting afresh")
        return None
    say(f"resuming from {len(levels['forward'])} forward and {len(levels['backward'])} backward levels")
    return State(upper, first, str(data.get("first_by", "")), levels, pagodas, built, probed, building)


def _pruning(data: dict) -> tuple[Any, Any, list[tuple[tuple[int, ...], int]]]:
    """A manifest's bound, the bound its levels were pruned under, and its pagodas (read once:
    the fingerprint is checked against them, then they are validated)."""
    pagodas = [(tuple(int(x) for x in w), int(f)) for w, f in data.get("pagodas", [])]
    return data["upper"], data.get("pruned_under", data["upper"]), pagodas


def _save(root: Path, problem: Problem, fp: str, state: State, by: str) -> None:
    """The checkpoint: the bound, the first plan, both sides' levels, what was probed and
    the level being built, signed (``engine.spill.save_manifest``) and named after the
    search (a directory reused for another is refused by that name)."""
    from ..formats.notation import format_plan

    first = None if state.first is None else format_plan(problem.board, state.first)
    search = "solve --planner layers" if by == "jumps" else "solve --min-moves"
    spill.save_manifest(root, {
        "format": FORMAT, "version": VERSION, "fingerprint": fp, "search": f"{search} {problem.describe()}",
        "upper": state.upper, "first": first, "first_by": state.first_by, "pruned_under": state.built,
        "pagodas": [[list(w), f] for w, f in state.pagodas], "probed": [list(x) for x in state.probed],
        "building": None if state.building is None else list(state.building),
        "levels": {side: [lv.__dict__ for lv in state.levels[side]] for side in SIDES}})
