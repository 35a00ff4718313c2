"""``pegsat hint``: every legal jump from a position, with whether the game is still won.

Two ways to a verdict:

- **the solvable set** (``apps.count.solvable``): every position reachable from the
  problem's start that can still reach its goal, computed once by the level sweep and
  cached on disk (``$PEGSAT_CACHE``, else ``$XDG_CACHE_HOME/pegsat``, else
  ``~/.cache/pegsat``; one ``sealed`` file per problem, named by the fingerprint of the
  problem and its symmetries, written atomically). A cached file is believed only after
  ``sealed.read`` (kind, version, fingerprint, length, SHA-256) and ``unsound`` (sorted,
  canonical, every member a goal or a parent of a member) pass; else it is rebuilt, and a
  cache that cannot be written is skipped, each with a note. A jump is alive exactly when
  its position is in the set; the verdict is exact and instant. Used when the problem's
  forward tree is small enough to sweep (``SWEEP_PEGS``: starts of at most 32 pegs on boards
  of at most 36 holes: the English board; its central game's set is 1.7 million positions,
  13 MB). The sweep has its own budget (``sweep``) and honours the memory budget; past
  either, the planners below decide;
- **the planners** elsewhere: for each jump, the cheap proofs (counting, position classes, a
  pagoda) and then the depth-first search under a short time limit each: solvable (a plan
  was found and replayed), dead (with the kind of proof) or unknown (time limit).

Where a jump is alive and at most ``MOVES_PEGS`` pegs are left, the fewest moves left come
from the ``moves`` planner under the same short limit (``moves_left``; None otherwise).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import sealed
from ..deadline import Deadline, Timeout
from ..engine.bitboard import engine, stabilizer
from ..engine.kernel import Kernel, kernel, words
from ..errors import PegsatError
from ..limits import memory_budget
from ..model.codec import problem_to_json
from ..model.problem import Problem
from ..model.result import Status
from ..proofs.cheap import cheap_proofs
from .solve import solve

SWEEP_HOLES = 36
SWEEP_PEGS = 32
MOVES_PEGS = 12  # the fewest moves left are computed for positions of at most this many pegs


@dataclass(frozen=True)
class Hint:
    """What is known of a position, or of one jump from it: alive (a goal is still reachable,
    with a plan when one was found), dead, or unknown (a limit came first), and how."""

    jump: int  # jump id on the board
    status: str  # "alive", "dead", "unknown"
    reason: str  # how it is known
    moves_left: int | None = None
    plan: tuple[int, ...] | None = None  # a winning continuation, when one was found


def cache_dir() -> Path:
    """Where solvable sets are cached: ``$PEGSAT_CACHE``, else the user's cache directory."""
    if os.environ.get("PEGSAT_CACHE"):
        return Path(os.environ["PEGSAT_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pegsat"


def sweepable(problem: Problem) -> bool:
    """Whether the problem's whole game is small enough to sweep into a solvable set."""
    return (problem.special is None and problem.board.n <= SWEEP_HOLES and problem.pegs <= SWEEP_PEGS
            and words(problem.board) == 1)


CACHE_KIND, CACHE_VERSION = "solvable-set", 2
CHECK_CHUNK = 1 << 20  # positions whose children are looked up together when a cache is checked


def solvable_set(problem: Problem, deadline: Deadline | None = None,
                 notes: list[str] | None = None) -> np.ndarray:
    """The problem's solvable set: from the cache when the cached file passes every check
    (``sealed.read``: its kind, version, problem and symmetries, length and SHA-256; then
    ``unsound``), else computed and cached. A cache that fails is rebuilt and one that cannot
    be written is skipped; either is said in ``notes``. Raises ``Timeout`` (``MemoryBudget``)
    when the sweep passes ``deadline`` (the memory budget)."""
    from .count import solvable

    notes = [] if notes is None else notes
    k = kernel(problem.board, tuple(tuple(p) for p in stabilizer(problem)))
    fingerprint = sealed.digest(problem_to_json(problem), [list(p) for p in k.group], CACHE_VERSION)
    path = cache_dir() / f"solvable-{fingerprint[:32]}.bin"
    if path.exists():
        try:
            arr = sealed.read(path, CACHE_KIND, CACHE_VERSION, fingerprint, memory_budget() // 8)
            why = unsound(k, problem, arr)
            if why is None:
                return arr
            raise sealed.Stale(why)
        except sealed.Stale as exc:
            notes.append(f"the cached solvable set {path} was not used ({exc}); rebuilt")
    arr = solvable(problem, deadline)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        sealed.write(path, CACHE_KIND, CACHE_VERSION, fingerprint, arr)
    except (OSError, PegsatError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else str(exc)
        notes.append(f"cannot write the cache {path} ({why}); going on without it")
    return arr


def unsound(k: Kernel, problem: Problem, arr: np.ndarray) -> str | None:
    """Why ``arr`` cannot be the problem's solvable set, or None. Checked: strictly sorted,
    canonical, on the board; the start in it unless it is empty; every member a goal or the
    parent of a member. The last makes every member truly solvable (by induction on the
    pegs: a member's child in the set is solvable), so a set with any dead position is
    refused; a set missing positions is caught by the SHA-256 alone."""
    board, goal = problem.board, problem.goal
    if len(arr) > 1 and not bool(np.all(arr[1:] > arr[:-1])):
        return "not strictly sorted"
    if bool(np.any(arr & np.uint64(~board.full & ((1 << 64) - 1)))):
        return "a position has pegs off the board"
    if len(arr) and not k.contains(arr, int(k.canon(k.array([problem.start]))[0])):
        return "the start is not in it"
    for lo in range(0, len(arr), CHECK_CHUNK):
        part = arr[lo:lo + CHECK_CHUNK]
        if not np.array_equal(k.canon(part), part):
            return "a position is not in canonical form"
        degree = k.degree(part).astype(np.int64)
        hits = k.member(arr, k.step(part)).astype(np.int64)
        ends = np.cumsum(degree)
        alive = np.zeros(len(part), dtype=bool)
        has = degree > 0
        alive[has] = np.add.reduceat(hits, (ends - degree)[has]) > 0 if len(hits) else False
        if not bool(np.all(alive | k.goals(part, goal))):
            return "a position in it has no child in it and is not a goal"
    return None


class Hinter:
    """Hints for positions of one problem (reused by ``play`` across a whole game)."""

    def __init__(self, problem: Problem, per_jump: float = 2.0, moves_left: bool = True,
                 sweep: Deadline | None = None) -> None:
        """``sweep``: the budget for building the solvable set; past it, or past the memory
        budget, the planners decide each position (said in ``notes``)."""
        self.problem, self.per_jump, self.want_moves = problem, per_jump, moves_left
        self.eng = engine(problem.board)
        self.alive: np.ndarray | None = None
        self.notes: list[str] = []
        if sweepable(problem):
            try:
                self.alive = solvable_set(problem, sweep, self.notes)
            except (Timeout, MemoryError) as exc:
                why = str(exc) or ("the sweep's time limit" if type(exc) is Timeout else "out of memory")
                self.notes.append(f"the solvable set was not built ({why}): the planners decide each jump")
            self.kernel = kernel(problem.board, tuple(tuple(p) for p in stabilizer(problem)))

    def at(self, pos: int) -> Problem:
        """The problem with ``pos`` as its start."""
        p = self.problem
        return Problem(p.board, pos, p.goal, name=p.name)

    def is_won(self, pos: int) -> bool:
        """Whether ``pos`` satisfies the goal."""
        return self.problem.goal.satisfied(pos)

    def position(self, pos: int) -> Hint:
        """The verdict on ``pos`` itself (jump -1)."""
        if self.is_won(pos):
            return Hint(-1, "alive", "the goal is reached", 0)
        if self.alive is not None:
            k = self.kernel
            inside = bool(k.member(self.alive, k.canon(k.array([pos])))[0])
            if inside:
                return Hint(-1, "alive", "in the solvable set", self._moves(pos))
            # every position asked about is reached from the start by legal jumps, and the set
            # holds every such position that can still win
            return Hint(-1, "dead", "exhausted: not in the solvable set")
        return self._plan(pos)

    def jumps(self, pos: int) -> list[Hint]:
        """The verdict on every legal jump from ``pos``."""
        out = []
        for k in self.eng.legal(pos):
            v = self.position(self.eng.apply(pos, k))
            out.append(Hint(k, v.status, v.reason, v.moves_left, v.plan))
        return out

    def _moves(self, pos: int) -> int | None:
        if not self.want_moves or pos.bit_count() > MOVES_PEGS:
            return None
        r = solve(self.at(pos), "moves", deadline=Deadline(self.per_jump))
        return r.moves if r.status is Status.SOLVED_OPTIMAL else None

    def _plan(self, pos: int) -> Hint:
        problem = self.at(pos)
        cheap = cheap_proofs(problem)
        if cheap is not None:
            how = cheap.proof.value if cheap.proof is not None else cheap.kind
            return Hint(-1, "dead", f"{how}: {cheap.detail}")
        r = solve(problem, "search", deadline=Deadline(self.per_jump))
        if r.status is Status.SOLVED:
            moves = self._moves(pos)
            return Hint(-1, "alive", "a winning plan was found and replayed", moves, r.plan)
        if r.status is Status.UNSOLVABLE:
            return Hint(-1, "dead", "exhausted: the depth-first search ran out of positions")
        return Hint(-1, "unknown", f"time limit ({self.per_jump:g} s per position)")


def per_position(problem: Problem) -> float:
    """The default seconds the planners get per position: 2 on boards of up to 33 holes,
    doubling every 4 holes more (French 4, diamond 8, German 16; at most 30): a larger board's
    live positions take the search longer to prove alive, and a known-solvable line must not
    come out all "unknown". Only the positions not settled at once use it whole."""
    return min(30.0, 2.0 * 2 ** (max(0, problem.board.n - 33) / 4))


def report(posed, plan_text: str | None, notation: str = "auto", per_jump: float | None = None,
           moves_left: bool = True, sweep: Deadline | None = None) -> dict:
    """``pegsat hint``'s answer: the position after the game so far and every legal jump."""
    from ..formats.notation import format_plan
    from .verify import verify

    board = posed.problem.board
    rep = verify(posed, plan_text, notation, partial=True) if plan_text else None
    pos = rep.final if rep else posed.problem.start
    from ..formats.render import hint_strip

    per_jump = per_position(posed.problem) if per_jump is None else per_jump
    hinter = Hinter(posed.problem, per_jump, moves_left=moves_left, sweep=sweep)
    here = hinter.position(pos)
    verdicts = hinter.jumps(pos)
    rows = [{"jump": format_plan(board, (v.jump,)), "status": v.status, "reason": v.reason,
             "moves_left": v.moves_left} for v in verdicts]
    done = rep.jumps if rep else 0
    title = f"{posed.problem.describe()}: the jumps after {done} jumps"
    return {"problem": posed.problem.describe(), "jumps_so_far": done, "position": here.status,
            "reason": here.reason, "moves_left": here.moves_left, "hints": rows, "notes": hinter.notes,
            "svg": hint_strip(posed.problem, pos, verdicts, title)}
