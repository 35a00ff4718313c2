"""Level searches on disk: the one level loop of every search whose levels outgrow memory.

Three searches share it (``Search.kind``):

- ``census``: the positions reachable by jumps, level by level, forward only (``count
  --spill``, ``apps.reach``), every level's classes and raw positions counted;
- ``moves``: the fewest moves (``planners.moves`` on disk): breadth-first by moves from the
  start and from the goal positions, the smaller side grown next, the first meeting optimal;
  under a first plan's moves, the last level that can matter only probed;
- ``jumps``: the exhaustive search by jumps (``planners.layers`` on disk): the sides meet
  only when their depths sum to a plan's jumps, so that last level is only probed; a
  self-dual problem (every single-vacancy complement problem, v -> v) grows its forward
  side only, and its last level's children are met as their mirror images (``Search.mirror``).

Each level is a set of partition files (``engine.spill``) grown in two rounds of Dask tasks:
every partition of a side's last level expanded by one step on its own, then every partition
of the new level merged from its buckets, less the positions of the side's earlier levels (by
moves a position may be reached again later: delayed duplicate detection against the earlier
levels, partition by partition, as Korf's disk-based search does), less what the search's
rules prune (``Search.bounds``, passed in: ``analysis.bounds``), and tested against the other
side's last level — a position's partition is the same on both sides and at every depth, so a
merge reads only its own partition of each. No process holds a level: only a chunk's
children, one partition's buckets, one partition of another level. A level whose buckets do
not fit the disk is built in rounds (``engine.spill.rounds``), each expanding some of the
level before once.

``manifest.json`` (signed, written atomically after every level, every round and every probed
piece) records which search it is, both sides' levels, the bound and the rules the levels
were pruned under: it is the checkpoint, and a run that is killed resumes from it with the
same levels and the same answer. Tasks are idempotent, so a worker lost mid-level costs
Dask's rerun of its tasks, nothing else. The loop answers with an ``Outcome``; what it means
for a problem (a replayed plan, a proof, a certificate) is the caller's.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .. import sealed
from ..deadline import Deadline
from ..errors import PegsatError
from ..model.codec import problem_to_json
from ..model.problem import Problem, goal_positions
from . import spill
from .bitboard import Perm, mirror, permute, replay_plan, stabilizer
from .kernel import Kernel, kernel
from .levels import walk

FORMAT, VERSION = "pegsat-levels", 1
#: each search and its step
KINDS = {"census": "jumps", "moves": "moves", "jumps": "jumps"}
SIDES = ("forward", "backward")
#: children per position by one step, roughly: what sizes a chunk and the partitions
FANOUT = {"census": 12, "moves": 24, "jumps": 24}
PROBE_SAY = 60.0  # seconds between a long probe's progress lines
PROBE_HOLD = 4  # a probe task holds children in at most 1/PROBE_HOLD of a worker's memory: each
# flush reads the other side's whole last level, so the fewer flushes the better
Say = Callable[[str], None]
OnLevel = Callable[[Any, str, int], None]


@dataclass(frozen=True)
class Level:
    """One finished level: its partitions, classes (positions up to symmetry), the raw
    positions they stand for, its files' bytes, and the fewest and the most pegs of its
    positions (a later level whose pegs miss this range is not subtracted from it)."""

    parts: int
    classes: int
    bytes: int
    raw: int = 0
    fewest: int = 0
    most: int = 64


@dataclass(frozen=True)
class Search:
    """What a level search is, handed whole to every task: it pickles as its kind, its
    problem and its rules (the kernel is made where a task runs). ``bounds``: what cuts a new
    level (``keep(side, level, depth, upper)``: the positions that may lie on a plan;
    ``analysis.bounds.Bounds``), None for a census."""

    kind: str
    problem: Problem
    bounds: Any = None

    @property
    def by(self) -> str:
        return KINDS[self.kind]

    @property
    def kernel(self) -> Kernel:
        return kernel(self.problem.board, tuple(tuple(p) for p in stabilizer(self.problem)))

    @property
    def mirror(self) -> Perm | None:
        """By jumps, the symmetry ``s`` of a self-dual problem (``engine.bitboard.mirror``):
        its backward level ``j`` is ``s(~F_j)``, never grown; else None."""
        if self.kind != "jumps":
            return None
        goals = goal_positions(self.problem)
        return mirror(self.problem, goals[0]) if goals is not None and len(goals) == 1 else None


@dataclass
class State:
    """What the manifest holds: both sides' levels, the bound, the plan it came from, the
    pagodas and the bound the levels were pruned under, the pieces probed, the level being
    built, and (a census) whether every level is counted."""

    levels: dict[str, list[Level]] = field(default_factory=lambda: {"forward": [], "backward": []})
    upper: int | None = None
    first: tuple[int, ...] | None = None  # the first plan, the upper bound's
    first_by: str = ""
    pagodas: list[tuple[tuple[int, ...], int]] = field(default_factory=list)
    #: the bound the levels were pruned under, in their files' fingerprint: a shorter plan
    #: given on a rerun lowers ``upper`` below it, and the levels kept stay valid (a looser
    #: bound keeps more positions, every one as far from its side as its level says)
    built: int | None = None
    #: the pieces of the last level (``side``, ``d``, partition, first, end) probed with no
    #: meeting: a probe killed midway (hours on the German board) resumes with the others
    probed: list[tuple[str, int, int, int, int]] = field(default_factory=list)
    #: the level being built (``side``, depth, partitions): a rerun that builds that level
    #: with as many partitions keeps what its rounds (a probe's passes) did
    building: tuple[str, int, int] | None = None
    #: the rounds of that level done (each the pieces of the level before it expanded, their
    #: buckets compacted: ``engine.spill.rounds``), kept by a rerun
    rounds: list[tuple[tuple[int, int, int], ...]] = field(default_factory=list)
    complete: bool = False


class Ending(enum.Enum):
    """How a level search on disk ended."""

    MET = "met"  # the sides met (or a level met the goal): ``Outcome.plan`` goes through it
    BOUND = "bound"  # no meeting under the bound: the first plan has the fewest moves
    EXHAUSTED = "exhausted"  # no meeting at all: no plan (a level came out empty, or the last probed)
    COMPLETE = "complete"  # a census: every level counted
    UNKNOWN = "unknown"  # the deadline, the disk, lost workers: the levels kept for a rerun


@dataclass(frozen=True)
class Outcome:
    """A level search's answer: how it ended, its state, the sides' depths and what they
    are called (``grown``), the plan through a meeting (``MET``, not replayed yet), the side
    whose last level was probed (``BOUND``), why (``UNKNOWN``, ``EXHAUSTED``)."""

    ending: Ending
    state: State
    depths: tuple[int, int]
    grown: str
    plan: tuple[int, ...] | None = None
    probe: str = ""
    why: str = ""


def fingerprint(kind: str, problem: Problem, built: int | None = None,
                pagodas: list[tuple[tuple[int, ...], int]] | None = None) -> str:
    """What the level files and the manifest belong to: the search, the problem, its
    symmetries, the bound and the pagodas the levels were pruned under, whether the backward
    side is the forward one mirrored, the format."""
    search = Search(kind, problem)
    group = [list(p) for p in stabilizer(problem)]
    cut = [[list(w), f] for w, f in pagodas or []]
    return sealed.digest(problem_to_json(problem), group, built, FORMAT, VERSION, kind, cut,
                         search.mirror is not None)


def side_fp(fp: str, side: str) -> str:
    """The fingerprint of one side's level files."""
    return sealed.digest(fp, side)


# --- the tasks: each a piece of one level's work, on a worker -----------------------------

def _expand(search: Search, root: str, fp: str, side: str, d: int, piece: tuple[int, int, int],
            parts_next: int, chunk: int, max_count: int, targets: tuple[int, ...] | None = None,
            mirrored: bool = False, sieved: bool = False) -> int:
    """A Dask task: a piece of a partition of ``side``'s level ``d`` expanded by one step, the
    children of ``targets``' partitions kept (None: all); ``mirrored``: their mirror images
    (``_mirrored``), for a probe by buckets; ``sieved``: those the sieves ``_sieve`` wrote may
    hold only."""
    p, lo, end = piece
    image = _mirrored(search) if mirrored else None
    here = Path(root) / side
    sieves = spill.load_sieves(here, d + 1, parts_next, targets) if sieved else None
    return spill.expand(search.kernel, here, side_fp(fp, side), d, p, parts_next, chunk,
                        max_count, by=search.by, reverse=side == "backward", lo=lo, end=end, targets=targets,
                        image=image, sieves=sieves)


def _compact(search: Search, root: str, fp: str, side: str, d: int, q: int, r: int, max_count: int) -> int:
    """A Dask task: round ``r``'s buckets of partition ``q`` of ``side``'s new level ``d``
    compacted into one sorted, distinct file (``engine.spill.compact``)."""
    return spill.compact(search.kernel, Path(root) / side, side_fp(fp, side), d, q, r, max_count)


def _sieve(search: Search, root: str, fp: str, side: str, d: int, q: int, other: tuple[int, int],
           max_count: int, bits: int) -> None:
    """A Dask task: the sieve of partition ``q`` of the forward level ``other[0]``, which the
    probe of ``side``'s level ``d`` meets (``spill.sieve_part``), beside that probe's buckets."""
    there = spill.read_part(Path(root) / "forward", side_fp(fp, "forward"), other[0], q, max_count)
    spill.sieve_part(search.kernel, there, spill.sieve_path(Path(root) / side, d + 1, q), bits)


def _mirrored(search: Search) -> Callable[[np.ndarray], np.ndarray] | None:
    """Each position's mirror image ``s(~x)``, canonical (a self-dual search meets its level's
    children as these against its own levels); None when the search has no mirror."""
    k, flip = search.kernel, search.mirror
    if flip is None:
        return None

    def image(kids: np.ndarray) -> np.ndarray:
        return k.canon(k.permute(k.complement(kids), flip))
    return image


def _meet(search: Search, root: str, fp: str, side: str, d: int, q: int, other: tuple[int, int],
          max_count: int) -> tuple[int, int | None]:
    """A Dask task: partition ``q`` of the buckets of the mirror images of ``side``'s level
    ``d`` 's children met against the same partition of the forward level ``other[0]``
    (``engine.spill.meet``)."""
    k = search.kernel

    def meets(level: np.ndarray) -> np.ndarray:
        there = spill.read_part(Path(root) / "forward", side_fp(fp, "forward"), other[0], q, max_count)
        return k.member(there, level)

    return spill.meet(k, Path(root) / side, side_fp(fp, side), d + 1, q, max_count, meets)


def _merge(search: Search, root: str, fp: str, side: str, d: int, q: int, parts: int,
           earlier: list[tuple[int, int, int]], max_count: int, upper: int | None,
           other: tuple[int, int] | None) -> spill.Merged:
    """A Dask task: partition ``q`` of ``side``'s new level ``d`` merged, less the side's
    earlier levels and what the search's bounds cut (under ``upper`` too), and met against
    the other side's last level (``other``: its depth and partitions; None: against the goal;
    a census meets nothing)."""
    k, problem = search.kernel, search.problem
    keep = None
    if search.bounds is not None:
        def keep(level: np.ndarray) -> np.ndarray:
            return search.bounds.keep(side, level, d, upper)

    def meets(level: np.ndarray) -> np.ndarray:
        if other is None:
            return k.goals(level, problem.goal)
        (od, oparts), oside = other, SIDES[side == "forward"]
        mask = np.zeros(len(level), dtype=bool)
        for r in spill.covering(q, parts, oparts):
            there = spill.read_part(Path(root) / oside, side_fp(fp, oside), od, r, max_count)
            mask |= k.member(there, level)
        return mask

    return spill.merge(k, Path(root) / side, side_fp(fp, side), d, q, max_count, parts=parts,
                       earlier=earlier, keep=keep, meets=None if search.kind == "census" else meets)


def _probe(search: Search, root: str, fp: str, side: str, d: int, piece: tuple[int, int, int],
           other: tuple[int, int] | None, chunk: int, hold: int, max_count: int) -> tuple[int, int | None]:
    """A Dask task: the children of a piece of ``side``'s level ``d`` met against the other
    side's last level (``other``: its depth and partitions; None: against the goal), one of
    its partitions at a time, the children never stored (``engine.spill.probe``). Mirrored,
    each child ``c`` is met as ``s(~c)`` against this side's level, and the least meeting
    comes back as that image."""
    k, problem, flip = search.kernel, search.problem, search.mirror
    oside = SIDES[side == "forward"] if flip is None else side
    image = _mirrored(search)

    def meets(r: int, kids: np.ndarray) -> np.ndarray:
        if other is None:
            return k.goals(kids, problem.goal)
        there = spill.read_part(Path(root) / oside, side_fp(fp, oside), other[0], r, max_count)
        return k.member(there, kids)

    p, lo, end = piece
    return spill.probe(k, Path(root) / side, side_fp(fp, side), d, p, other[1] if other else 1, chunk,
                       max_count, meets, hold, by=search.by, reverse=side == "backward", lo=lo, end=end,
                       image=image)


# --- the checkpoint -------------------------------------------------------------------------

def save(root: Path, search: Search, fp: str, state: State) -> None:
    """The checkpoint, signed (``engine.spill.save_manifest``) and named after the search (a
    directory reused for another is refused by that name)."""
    problem = search.problem
    first = None if state.first is None else list(state.first)  # jumps by number
    command = {"census": "count", "moves": "solve --min-moves", "jumps": "solve --planner layers"}
    spill.save_manifest(root, {
        "format": FORMAT, "version": VERSION, "kind": search.kind, "fingerprint": fp,
        "search": f"{command[search.kind]} {problem.describe()}",
        "upper": state.upper, "first": first, "first_by": state.first_by, "pruned_under": state.built,
        "pagodas": [[list(w), f] for w, f in state.pagodas], "probed": [list(x) for x in state.probed],
        "building": None if state.building is None else list(state.building),
        "rounds": [[list(x) for x in r] for r in state.rounds], "complete": state.complete,
        "levels": {side: [lv.__dict__ for lv in state.levels[side]] for side in SIDES}})


def resume(root: Path, kind: str, problem: Problem, say: Say) -> State | None:
    """The state an earlier run of this search left, or None when there is none. The
    manifest is believed only as this user's pegsat signed it for this very search
    (``engine.spill.manifest``: another search's directory, or an edited manifest, is
    refused, never emptied); its first plan only once replayed; its levels only when their
    files are all there."""
    def expected(data: dict) -> str:  # the fingerprint of this search pruned as the manifest says
        _, built, pagodas = _pruning(data)
        return fingerprint(kind, problem, built, pagodas)

    data = spill.manifest(root, expected)
    if data is None:
        return None
    try:
        state = _state(data, kind, problem)
        for side in SIDES:
            for d, lv in enumerate(state.levels[side]):  # every level the search reads again: all there
                if kind == "census" and d < len(state.levels[side]) - 1:
                    continue  # (a census reads only its last)
                for p in range(lv.parts):
                    if not spill.part_path(root / side, d, p).is_file():
                        raise ValueError(f"partition {p} of {side} level {d} is missing")
    except (OSError, PegsatError, ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
        say(f"{root / spill.MANIFEST}: not resumed ({str(exc)[:80]}); starting afresh")
        return None
    fwd, bwd = state.levels["forward"], state.levels["backward"]
    say(f"resuming from level {len(fwd) - 1} ({fwd[-1].classes:,} positions)" if kind == "census" else
        f"resuming from {len(fwd)} forward and {len(bwd)} backward levels")
    return state


def _state(data: dict, kind: str, problem: Problem) -> State:
    """A manifest's state, each field checked (ValueError when one is wrong)."""
    if data.get("format") != FORMAT or data.get("version") != VERSION or data.get("kind") != kind:
        raise ValueError("not a manifest of this search and version")
    upper, built, pagodas = _pruning(data)
    if any(x is not None and not isinstance(x, int) for x in (upper, built)):
        raise ValueError("a bad upper bound")
    if built is not None and (upper is None or upper > built):  # levels missing plans under upper
        raise ValueError("a bound looser than the levels were pruned under")
    if any(len(w) != problem.board.n for w, _ in pagodas):
        raise ValueError("a pagoda of another board")
    first = None
    if data["first"] is not None:  # believed only once replayed, with the moves it claims
        rep = replay_plan(problem, tuple(int(k) for k in data["first"]))
        if rep.moves != upper:
            raise ValueError("the first plan does not have the moves of the bound")
        first = rep.plan
    levels = {side: [Level(**lv) for lv in data["levels"][side]] for side in SIDES}
    if not levels["forward"]:
        raise ValueError("no level")
    probed = [(str(s), int(d), int(p), int(lo), int(end)) for s, d, p, lo, end in data.get("probed", [])]
    if any(s not in SIDES for s, *_ in probed):
        raise ValueError("a probed piece of no side")
    building = data.get("building")
    if building is not None:
        side, d, parts = building
        if side not in SIDES or type(d) is not int or type(parts) is not int or not 1 <= parts <= 1 << 16:
            raise ValueError("a bad level in the building")
        building = (side, d, parts)
    rounds = [tuple((int(p), int(lo), int(end)) for p, lo, end in r) for r in data.get("rounds", [])]
    if rounds and building is None:
        raise ValueError("rounds of no level being built")
    return State(levels, upper, first, str(data.get("first_by", "")), pagodas, built, probed, building,
                 rounds, data.get("complete") is True)


def _pruning(data: dict) -> tuple[Any, Any, list[tuple[tuple[int, ...], int]]]:
    """A manifest's bound, the bound its levels were pruned under, and its pagodas (read once:
    the fingerprint is checked against them, then they are validated)."""
    pagodas = [(tuple(int(x) for x in w), int(f)) for w, f in data.get("pagodas", [])]
    return data["upper"], data.get("pruned_under", data["upper"]), pagodas


def named(root: Path, fp: str, state: State) -> dict[str, list[list[dict[str, object]]]]:
    """Each side's levels as a certificate names them: per level its partitions' files
    (relative to ``root``), counts and SHA-256."""
    def one(side: str, d: int, p: int) -> dict[str, object]:
        it = spill.described(root / side, side_fp(fp, side), d, p)
        return {**it, "file": f"{side}/{it['file']}"}
    return {side: [[one(side, d, p) for p in range(lv.parts)] for d, lv in enumerate(state.levels[side])]
            for side in SIDES}


@lru_cache(maxsize=16)
def _read_cached(path: str, fp: str, d: int, r: int, max_count: int, mtime: float) -> np.ndarray:
    return spill.read_part(Path(path), fp, d, r, max_count)


# --- the loop --------------------------------------------------------------------------------

class Run:
    """One level search in its directory ``root``: level after level on a Dask cluster until
    the sides meet, the bound is reached, a level is empty, every level is counted, or the
    deadline passes. ``memory``: bytes per worker process (default: the memory budget shared
    by the local workers); ``disk``: the most bytes ``root`` may hold (default: what the disk
    has free); ``keep``: a census keeps every level's files (else only the last);
    ``on_level(client, side, d)``: called while the tasks growing ``side``'s level ``d + 1``
    are out (tests kill a worker there)."""

    def __init__(self, search: Search, root: Path, state: State, *, workers: int = 2,
                 memory: int | None = None, disk: int | None = None, deadline: Deadline | None = None,
                 say: Say | None = None, on_level: OnLevel | None = None, keep: bool = True) -> None:
        self.search, self.root, self.state, self.levels = search, root, state, state.levels
        self.problem, self.kind, self.k = search.problem, search.kind, search.kernel
        self.workers, self.disk, self.keep = workers, disk, keep
        self.deadline, self.say, self.on_level = deadline or Deadline(), say or (lambda line: None), on_level
        self.census, self.jumps = search.kind == "census", search.kind == "jumps"
        self.flip = search.mirror
        self.goals = None if self.census else goal_positions(search.problem)
        self.total = search.problem.pegs - self.goals[0].bit_count() if self.goals else 0  # a plan's jumps
        self.fp = fingerprint(search.kind, search.problem, state.built, state.pagodas)
        self.per_worker, self.chunk, self.max_count = spill.prepare(root, memory, workers,
                                                                    FANOUT[search.kind])
        if not self.levels["forward"]:
            self.start()

    def start(self) -> None:
        """Level 0 of each side: the start, and the goal positions (none for a census, a
        mirrored search, or goal positions too many to list)."""
        k = self.k
        for side, positions in (("forward", [self.problem.start]), ("backward", self.goals)):
            spill.drop_level(self.root / side, 0)
            if positions is None or (side == "backward" and self.flip is not None):
                continue
            zero = k.unique(k.canon(k.array(positions)))
            size = spill.write_part(self.root / side, side_fp(self.fp, side), 0, 0, zero)
            self.levels[side] = [Level(1, len(zero), size, spill.orbit_total(k, zero),
                                       *spill.peg_range(k, zero))]
        self.save()

    def save(self) -> None:
        """The checkpoint, now."""
        save(self.root, self.search, self.fp, self.state)

    # --- what the levels say -----------------------------------------------------------

    def depths(self) -> tuple[int, int]:
        """The sides' depths (mirrored: the backward side as deep as forward, up to the
        depth the last probe meets)."""
        a = len(self.levels["forward"]) - 1
        if self.flip is not None:
            return a, max(0, min(a, self.total - a - 1))
        return a, max(0, len(self.levels["backward"]) - 1)

    def grown(self) -> str:
        """The levels grown, in words."""
        a, b = self.depths()
        if self.census:
            classes = sum(lv.classes for lv in self.levels["forward"])
            return f"{a + 1} levels by jumps ({classes:,} positions up to symmetry)"
        return f"{a} forward levels, mirrored as backward ones" if self.flip is not None else \
            f"{a} forward + {b} backward levels"

    def member(self, side: str, d: int, pos: int) -> bool:
        """Whether ``pos``'s orbit lies in ``side``'s level ``d``."""
        if side == "backward" and self.flip is not None:
            side, pos = "forward", permute(self.flip, pos ^ self.problem.board.full)
        k = self.k
        c = k.canon(k.array([pos]))
        r = int(spill.route(c, self.levels[side][d].parts)[0])
        path = self.root / side
        mtime = spill.part_path(path, d, r).stat().st_mtime
        level = _read_cached(str(path), side_fp(self.fp, side), d, r, self.max_count, mtime)
        return bool(k.member(level, c)[0])

    def named(self, side: str, d: int) -> str:
        """A level as progress lines and reasons name it."""
        return f"level {d}" if self.census else f"{side} level {d}"

    def outcome(self, ending: Ending, plan: tuple[int, ...] | None = None, probe: str = "",
                why: str = "") -> Outcome:
        """The outcome ``ending`` with the state as it is."""
        return Outcome(ending, self.state, self.depths(), self.grown(), plan, probe, why)

    def unknown(self, why: str) -> Outcome:
        """"Unknown", for ``why``: the levels are kept for a rerun."""
        return self.outcome(Ending.UNKNOWN, why=why)

    def lost(self, exc: Exception, side: str, d: int, what: str = "built") -> Outcome:
        """"Unknown": a task failed on every try (its workers lost)."""
        return self.unknown(f"{self.named(side, d)} could not be {what} ({type(exc).__name__}: "
                            f"{str(exc)[:120]})")

    def found(self, side: str, pos: int, d: int) -> Outcome:
        """The meeting at ``pos``, one step beyond ``side``'s level ``d`` (with no backward
        levels, the meeting is with the goal), and the plan through it."""
        a, b = self.depths()
        i, j = (d + 1, b) if side == "forward" else (a, d + 1)
        _, plan = walk(self.problem.board, self.k.group, (self.problem.start,), self.search.by, pos, i, j,
                       lambda e, q: self.member("forward", e, q), lambda e, z: self.member("backward", e, z))
        return self.outcome(Ending.MET, plan)

    def bound(self, probe: str = "") -> Outcome:
        """No meeting under the bound; the levels that prove it (a bound that fell below
        the levels grown: fewer of them)."""
        levels, u = self.levels, self.state.upper if self.state.upper is not None else -1
        while len(levels["forward"]) + len(levels["backward"]) - 1 > u:
            del levels[max(SIDES, key=lambda s: len(levels[s]))][-1]
        return self.outcome(Ending.BOUND, probe=probe)

    # --- the loop ------------------------------------------------------------------------

    def run(self, scheduler: str | None) -> Outcome:
        """The search from its checkpoint to its end."""
        from .cluster import client as connect

        levels = self.levels
        if not self.census:  # the start may be a goal position already
            if levels["backward"]:
                if self.member("backward", 0, self.problem.start):
                    return self.outcome(Ending.MET, ())
            elif self.k.goals(self.k.array([self.problem.start]), self.problem.goal)[0]:
                return self.outcome(Ending.MET, ())
        if self.deadline.expired():  # before any cluster is started
            return self.unknown(self.deadline.reason())

        def interrupted() -> None:
            a, b = self.depths()
            proven = f"; any plan needs >= {a + b + 1} moves" if self.kind == "moves" else ""
            self.say(f"interrupted after {self.grown()}{proven}; the levels are kept in "
                     f"{self.root}: rerun with --spill {self.root} to go on")

        settings = {"distributed.worker.daemon": False}
        with connect(self.workers, scheduler, settings, memory_limit=None, interrupted=interrupted,
                     deadline=self.deadline) as client:
            while True:
                a, b = self.depths()
                if self.census and (self.state.complete or self.problem.pegs - a <= 1):
                    return self.outcome(Ending.COMPLETE)  # (one peg left: no jump beyond)
                if self.state.upper is not None and a + b + 1 >= self.state.upper:
                    return self.bound()
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
                tasks = spill.pieces(self.root / side, side_fp(self.fp, side), d, levels[side][-1].parts,
                                     spread)
                # Under a bound, the last level that can matter (a meeting there is a plan of
                # upper - 1 moves; by jumps, of the plans' jumps) is only probed: its children
                # met, never stored.
                if self.jumps and a + b + 1 == self.total and self.flip is not None and other is not None:
                    return self.probe_buckets(client, side, d, tasks, other)
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
                   other: tuple[int, int] | None) -> Outcome:
        """The last level that can matter, only probed: a meeting is the answer; none, the
        first plan is optimal (by jumps: the problem is unsolvable)."""
        t = time.perf_counter()
        before = [(p, lo, end) for s, e, p, lo, end in self.state.probed if (s, e) == (side, d)]
        todo = spill.uncovered(tasks, before)  # (a rerun may cut the level into other pieces)
        if before:
            self.say(f"{side} level {d + 1}: {len(before)} pieces probed before, no meeting; "
                     f"{len(todo)} left")
        m = len(todo)
        hold = self.per_worker // (8 * PROBE_HOLD)
        probes = client.map(_probe, [self.search] * m, [str(self.root)] * m, [self.fp] * m, [side] * m,
                            [d] * m, todo, [other] * m, [self.chunk] * m, [hold] * m, [self.max_count] * m,
                            pure=False)
        if self.on_level is not None:
            self.on_level(client, side, d)
        try:
            met = self.first_meeting(client, probes, [(side, d, p, lo, end) for p, lo, end in todo],
                                     len(before) + m)
        except TimeoutError:
            client.cancel(probes)
            return self.unknown(self.deadline.reason())
        except Exception as exc:  # tasks that failed on every try (workers lost): unknown
            return self.lost(exc, side, d + 1, "probed")
        self.say(f"{side} level {d + 1} probed in {time.perf_counter() - t:.1f} s: "
                 + ("it meets the other side" if met is not None else "no meeting"))
        if met is not None:
            if self.flip is not None:  # the image s(~c) met: s(~s(~c)) = s²(c) is in c's orbit
                met = permute(self.flip, met ^ self.problem.board.full)  # (s² fixes the start and goal)
            return self.found(side, met, d)
        if self.jumps:
            return self.outcome(Ending.EXHAUSTED, why=f"met no plan of {self.total} jumps: every position on "
                                "one was ruled out")
        return self.bound(side)

    def probe_buckets(self, client: Any, side: str, d: int, tasks: list[tuple[int, int, int]],
                      other: tuple[int, int]) -> Outcome:
        """The last level of a self-dual search by jumps, probed by buckets: its children's
        mirror images written to bucket files by the partition of the level they meet
        (``other``), then each partition of that level read once and met with its buckets —
        where a probe streaming the children (``probe_last``) reads the whole level again at
        each flush of a task's children (German e1 -> e1: 1 h 22 min). In passes when the disk
        holds only some partitions' buckets; a partition met with no meeting is marked, so a
        rerun meets it no more."""
        from distributed import as_completed


        state, root, fp, search = self.state, self.root, self.fp, self.search
        t, n, m = time.perf_counter(), len(tasks), other[1]
        if state.building != (side, d + 1, m):
            spill.drop_level(root / side, d + 1)
            state.building, state.rounds = (side, d + 1, m), []
            self.save()
        named = f"{side} level {d + 1}"
        last = self.levels[side][-1]
        bits = self.sieve_bits(other)
        probes: list[Any] = []
        try:
            for targets in spill.passes(root / side, side_fp(fp, side), d + 1, m, last.classes, self.disk,
                                        rate=(spill.SIEVED_BYTES + bits / 8) if bits else None):
                if len(targets) < m:
                    self.say(f"{named}: a probe pass for {len(targets)} of its {m} partitions")
                c = len(targets)
                if bits:  # each partition met sieved first: few children reach the buckets
                    sieves = client.map(_sieve, [search] * c, [str(root)] * c, [fp] * c, [side] * c, [d] * c,
                                        list(targets), [other] * c, [self.max_count] * c, [bits] * c,
                                        pure=False)
                    stopped = self.waited(client, sieves, side, d, "sieved")
                    if stopped is not None:
                        return stopped
                futures = client.map(_expand, [search] * n, [str(root)] * n, [fp] * n, [side] * n, [d] * n,
                                     tasks, [m] * n, [self.chunk] * n, [self.max_count] * n,
                                     [targets] * n, [True] * n, [bool(bits)] * n, pure=False)
                if self.on_level is not None:
                    self.on_level(client, side, d)
                stopped = self.waited(client, futures, side, d, "probed")
                if stopped is not None:
                    return stopped
                probes = client.map(_meet, [search] * c, [str(root)] * c, [fp] * c, [side] * c, [d] * c,
                                    list(targets), [other] * c, [self.max_count] * c, pure=False)
                for done in as_completed(probes, timeout=self.deadline.remaining()):
                    try:
                        hits, least = done.result()
                    except Exception as exc:  # tasks that failed on every try (workers lost)
                        return self.lost(exc, side, d + 1, "probed")
                    if hits and least is not None:
                        client.cancel(probes)
                        secs = time.perf_counter() - t
                        self.say(f"{named} probed by buckets in {secs:.1f} s: it meets the other side")
                        # the image s(~c) met: s(~s(~c)) = s²(c) is in c's orbit (s² fixes the start and goal)
                        flip = self.flip or tuple(range(self.problem.board.n))
                        return self.found(side, permute(flip, least ^ self.problem.board.full), d)
        except TimeoutError:
            client.cancel(probes)
            return self.unknown(f"{self.deadline.reason()} while {named} was probed")
        except spill.NoRoom as exc:
            return self.unknown(str(exc))
        self.say(f"{named} probed by buckets in {time.perf_counter() - t:.1f} s: no meeting")
        return self.outcome(Ending.EXHAUSTED, why=f"met no plan of {self.total} jumps: every position on one "
                            "was ruled out")

    def sieve_bits(self, other: tuple[int, int]) -> int:
        """Bits a position of the level a probe by buckets meets (``other``) gets in its sieve:
        ``spill.SIEVE_BITS``, fewer where the sieves would take more than half a worker's
        memory (every task of a pass maps them all), none (0: no sieve) below 2, or for
        positions of two words."""
        if self.problem.board.n > 64:
            return 0
        size = self.levels["forward"][other[0]].classes
        bits = min(spill.SIEVE_BITS, self.per_worker // 2 * 8 // max(1, size))
        return bits if bits >= 2 else 0

    def waited(self, client: Any, futures: list[Any], side: str, d: int, what: str) -> Outcome | None:
        """None once the tasks ``futures`` (``side``'s level ``d + 1`` being ``what``) have all
        finished; else "unknown": the deadline passed first (they are cancelled), or a task
        failed on every try (its workers lost)."""
        from .cluster import finished

        if not finished(futures, self.deadline):
            client.cancel(futures)
            return self.unknown(f"{self.deadline.reason()} while {self.named(side, d + 1)} was {what}")
        try:
            client.gather(futures)
        except Exception as exc:  # tasks that failed on every try (workers lost)
            return self.lost(exc, side, d + 1, what)
        return None

    def scout(self, client: Any, side: str, d: int, other: tuple[int, int] | None) -> Any:
        """A scout (by moves): one chunk's children met against the other side, on its own,
        while the level is expanded. At the level that meets, meetings are many and a chunk
        finds one in seconds (as in memory, where the first slices do); any other level pays
        one read of the other side's last level."""
        if self.kind != "moves":  # by jumps the sides meet only at the last level
            return None
        hold = self.per_worker // (8 * PROBE_HOLD)
        return client.submit(_probe, self.search, str(self.root), self.fp, side, d, (0, 0, self.chunk), other,
                             self.chunk, hold, self.max_count, pure=False, priority=1)

    def grow(self, client: Any, side: str, d: int, tasks: list[tuple[int, int, int]],
             other: tuple[int, int] | None, spread: int) -> Outcome | None:
        """``side``'s level ``d + 1`` built (expanded, then merged partition by partition, in
        rounds when the disk is short: ``engine.spill.rounds``) and recorded; an outcome when
        it meets the other side, is empty, or cannot be built; else None."""
        from distributed import as_completed

        a, b = self.depths()
        state, levels, root, fp, search = self.state, self.levels, self.root, self.fp, self.search
        mine, last = levels[side], levels[side][-1]
        t = time.perf_counter()
        scout = self.scout(client, side, d, other)
        if state.building is None or state.building[:2] != (side, d + 1):
            parts_next = spill.partitions(last.classes, FANOUT[self.kind], self.per_worker,
                                          1 if self.census else last.parts, spread)
            spill.drop_level(root / side, d + 1)  # what a killed run left of it; a run that
            state.building, state.rounds = (side, d + 1, parts_next), []  # had these partitions
            self.save()  # keeps its rounds
        m = state.building[2]
        earlier = [(lv.parts, lv.fewest, lv.most) for lv in mine] if self.kind == "moves" else []
        meet = None if self.jumps else other
        merged: list[spill.Merged] = []
        meeting, futures, merges = None, [], []
        named, here, mfp = self.named(side, d + 1), root / side, side_fp(fp, side)
        try:
            mine_disk = None if self.disk is None else self.disk - sum(  # the other side's levels count too
                spill.disk_used(root / s) for s in SIDES if s != side and (root / s).is_dir())
            for rnd in spill.rounds(here, mfp, d + 1, m, tasks, state.rounds, mine_disk):
                if rnd.index or not rnd.last:
                    self.say(f"{named}: round {rnd.index + 1}, {rnd.positions:,} of the {last.classes:,} "
                             f"positions of {self.named(side, d)} expanded (the buckets of all are past the "
                             "room on the disk)")
                if rnd.pieces:
                    c = len(rnd.pieces)
                    futures = client.map(_expand, [search] * c, [str(root)] * c, [fp] * c, [side] * c,
                                         [d] * c, list(rnd.pieces), [m] * c, [self.chunk] * c,
                                         [self.max_count] * c, [rnd.targets] * c, pure=False)
                    if self.on_level is not None:
                        self.on_level(client, side, d)
                if scout is not None:  # while the first round expands
                    try:
                        met = self.first_meeting(client, [scout])
                    except Exception:  # no time, or the scout was lost: the level will tell
                        met = None
                    scout = None
                    if met is not None:
                        client.cancel(futures)
                        self.say(f"{named}: a chunk of it meets the other side "
                                 f"({time.perf_counter() - t:.1f} s): {a + b + 1} moves")
                        return self.found(side, met, d)
                if rnd.pieces:
                    stopped = self.waited(client, futures, side, d, "built")
                    if stopped is not None:
                        return stopped
                    spill.measured(here, d + 1, rnd.positions, len(rnd.targets or range(m)) / m)
                if not rnd.last:  # its buckets compacted, the round kept in the checkpoint
                    qs = list(rnd.targets or range(m))
                    c = len(qs)
                    futures = client.map(_compact, [search] * c, [str(root)] * c, [fp] * c, [side] * c,
                                         [d + 1] * c, qs, [rnd.index] * c, [self.max_count] * c, pure=False)
                    stopped = self.waited(client, futures, side, d, "compacted")
                    if stopped is not None:
                        return stopped
                    state.rounds.append(rnd.pieces)
                    self.save()
                    continue
                # The first partition that meets the other side ends the search: the rest of
                # the level is never merged (as in memory, where the first slice that meets does)
                merges = client.map(_merge, [search] * m, [str(root)] * m, [fp] * m, [side] * m,
                                    [d + 1] * m, list(range(m)), [m] * m, [earlier] * m, [self.max_count] * m,
                                    [state.upper] * m, [meet] * m, pure=False)
                for done in as_completed(merges, timeout=self.deadline.remaining()):
                    try:
                        x = done.result()
                    except Exception as exc:  # tasks that failed on every try (workers lost)
                        return self.lost(exc, side, d + 1)
                    if x.hits:
                        client.cancel(merges)
                        meeting = x.hit
                        break
                    merged.append(x)
        except TimeoutError:
            client.cancel(merges)
            return self.unknown(f"{self.deadline.reason()} while {named} was built")
        except spill.NoRoom as exc:
            return self.unknown(str(exc))
        if meeting is not None:
            self.say(f"{named}: meets the other side ({time.perf_counter() - t:.1f} s): {a + b + 1} moves")
            return self.found(side, meeting, d)
        spill.drop_buckets(here, d + 1)
        return self.record(side, d, m, merged, time.perf_counter() - t)

    def record(self, side: str, d: int, m: int, merged: list[spill.Merged], secs: float) -> Outcome | None:
        """``side``'s new level ``d + 1`` (``m`` partitions, merged) kept in the manifest and
        said; the outcome when it is empty."""
        state, levels = self.state, self.levels
        a, b = self.depths()
        last = levels[side][-1]
        state.building, state.rounds = None, []
        level = Level(m, sum(x.classes for x in merged), sum(x.bytes for x in merged),
                      sum(x.raw for x in merged), min(x.pegs[0] for x in merged),
                      max(x.pegs[1] for x in merged))
        if self.census and not level.classes:  # no jump from the last level: the game tree ends there
            spill.drop_level(self.root / side, d + 1)
            state.complete = True
            self.save()
            return self.outcome(Ending.COMPLETE)
        levels[side].append(level)
        self.save()
        if self.census and not self.keep and d >= 1:
            spill.drop_level(self.root / side, d)
        stored = sum(lv.bytes for s in SIDES for lv in levels[s])
        growth = level.classes / max(1, last.classes)
        rate = level.classes / max(secs, 1e-9)
        proven = "" if self.kind != "moves" else f"; proven >= {a + b + 2} moves"
        self.say(f"{self.named(side, d + 1)}: {level.classes:,} positions up to symmetry in {m} partitions, "
                 f"{secs:.1f} s ({rate:,.0f} positions/s, {rate / self.workers:,.0f} per worker), "
                 f"{stored / 1e6:,.1f} MB on disk{proven}" + _eta(levels, secs, growth))
        if not level.classes:
            if state.upper is not None and state.first is not None:
                return self.bound()
            return self.outcome(Ending.EXHAUSTED, why="exhausted every reachable position without reaching "
                                "the goal")
        return None


def _eta(levels: dict[str, list[Level]], secs: float, growth: float) -> str:
    """The next level's size and time if it grows as the last did (a guess, said as one)."""
    a, b = levels["forward"], levels["backward"]
    nxt = min(x[-1].classes for x in (a, b) if x) if b else a[-1].classes
    if not nxt:
        return ""
    return f"; next level ~{nxt * growth:,.0f} positions, ~{secs * growth:,.0f} s at this rate"
