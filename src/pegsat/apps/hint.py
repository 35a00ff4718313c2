"""``pegsat hint``: every legal jump from a position, with whether the game is still won.

Two ways to a verdict:

- **the solvable set** (``apps.count.solvable``): every position reachable from the
  problem's start that can still reach its goal, computed once by the level sweep and
  cached on disk (``$PEGSAT_CACHE``, else ``$XDG_CACHE_HOME/pegsat``, else
  ``~/.cache/pegsat``; one ``.npy`` file per problem, named by the SHA-256 of its JSON form,
  written atomically). A jump is alive exactly when its position is in the set; the verdict
  is exact and instant. Used when the problem's forward tree is small enough to sweep
  (``SWEEP_PEGS``: starts of at most 32 pegs on boards of at most 36 holes: the English board;
  its central game's set is 1.7 million positions, 13 MB, 3.4 s to build here);
- **the planners** elsewhere: for each jump, the cheap proofs (counting, position classes, a
  pagoda) and then the depth-first search under a short time limit each: solvable (a plan
  was found and replayed), dead (with the kind of proof) or unknown (time limit).

Where a jump is alive and at most ``MOVES_PEGS`` pegs are left, the fewest moves left come
from the ``moves`` planner under the same short limit (``moves_left``; None otherwise).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..deadline import Deadline
from ..engine.bitboard import engine, stabilizer
from ..engine.kernel import kernel, words
from ..files import Staging
from ..model.codec import problem_to_json
from ..model.problem import Problem
from ..model.result import Status
from ..proofs.cheap import cheap_proofs
from .solve import solve

SWEEP_HOLES = 36
SWEEP_PEGS = 32
MOVES_PEGS = 12  # the fewest moves left are computed for positions of at most this many pegs


@dataclass(frozen=True)
class Verdict:
    jump: int  # jump id on the board
    status: str  # "alive", "dead", "unknown"
    reason: str  # how it is known
    moves_left: int | None = None
    plan: tuple[int, ...] | None = None  # a winning continuation, when one was found


def cache_dir() -> Path:
    if os.environ.get("PEGSAT_CACHE"):
        return Path(os.environ["PEGSAT_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pegsat"


def sweepable(problem: Problem) -> bool:
    return (problem.special is None and problem.board.n <= SWEEP_HOLES and problem.pegs <= SWEEP_PEGS
            and words(problem.board) == 1)


def solvable_set(problem: Problem, deadline: Deadline | None = None) -> np.ndarray:
    """The problem's solvable set, from the cache or computed and cached."""
    from .count import solvable

    key = hashlib.sha256(json.dumps(problem_to_json(problem), sort_keys=True).encode()).hexdigest()[:32]
    path = cache_dir() / f"solvable-{key}.npy"
    if path.is_file():
        try:
            return np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            pass  # a damaged cache file is rebuilt
    arr = solvable(problem, deadline)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with Staging() as stage:
            tmp = stage.path(path)
            with open(tmp, "wb") as fh:
                np.save(fh, arr, allow_pickle=False)
            stage.commit()
    except OSError:
        pass  # no cache is only slower
    return arr


class Hinter:
    """Verdicts for positions of one problem (reused by ``play`` across a whole game)."""

    def __init__(self, problem: Problem, per_jump: float = 2.0, moves_left: bool = True) -> None:
        self.problem, self.per_jump, self.want_moves = problem, per_jump, moves_left
        self.eng = engine(problem.board)
        self.alive: np.ndarray | None = None
        if sweepable(problem):
            self.alive = solvable_set(problem)
            self.kernel = kernel(problem.board, tuple(tuple(p) for p in stabilizer(problem)))

    def at(self, pos: int) -> Problem:
        p = self.problem
        return Problem(p.board, pos, p.goal, name=p.name)

    def is_won(self, pos: int) -> bool:
        return self.problem.goal.satisfied(pos)

    def position(self, pos: int) -> Verdict:
        """The verdict on ``pos`` itself (jump -1)."""
        if self.is_won(pos):
            return Verdict(-1, "alive", "the goal is reached", 0)
        if self.alive is not None:
            k = self.kernel
            inside = bool(k.member(self.alive, k.canon(k.array([pos])))[0])
            if inside:
                return Verdict(-1, "alive", "in the solvable set", self._moves(pos))
            # every position asked about is reached from the start by legal jumps, and the set
            # holds every such position that can still win
            return Verdict(-1, "dead", "exhausted: not in the solvable set")
        return self._plan(pos)

    def jumps(self, pos: int) -> list[Verdict]:
        out = []
        for k in self.eng.legal(pos):
            v = self.position(self.eng.apply(pos, k))
            out.append(Verdict(k, v.status, v.reason, v.moves_left, v.plan))
        return out

    def _moves(self, pos: int) -> int | None:
        if not self.want_moves or pos.bit_count() > MOVES_PEGS:
            return None
        r = solve(self.at(pos), "moves", deadline=Deadline(self.per_jump))
        return r.moves if r.status is Status.SOLVED_OPTIMAL else None

    def _plan(self, pos: int) -> Verdict:
        problem = self.at(pos)
        cheap = cheap_proofs(problem)
        if cheap is not None:
            return Verdict(-1, "dead", f"{cheap.proof.value}: {cheap.detail}")
        r = solve(problem, "search", deadline=Deadline(self.per_jump))
        if r.status is Status.SOLVED:
            moves = self._moves(pos)
            return Verdict(-1, "alive", "a winning plan was found and replayed", moves, r.plan)
        if r.status is Status.UNSOLVABLE:
            return Verdict(-1, "dead", "exhausted: the depth-first search ran out of positions")
        return Verdict(-1, "unknown", f"time limit ({self.per_jump:g} s per position)")


def report(posed, plan_text: str | None, notation: str = "auto", per_jump: float = 2.0,
           moves_left: bool = True) -> dict:
    """``pegsat hint``'s answer: the position after the game so far and every legal jump."""
    from ..formats.notation import format_plan
    from .verify import verify

    board = posed.problem.board
    rep = verify(posed, plan_text, notation, partial=True) if plan_text else None
    pos = rep.final if rep else posed.problem.start
    from ..formats.render import hint_strip

    hinter = Hinter(posed.problem, per_jump, moves_left=moves_left)
    here = hinter.position(pos)
    verdicts = hinter.jumps(pos)
    rows = [{"jump": format_plan(board, (v.jump,)), "status": v.status, "reason": v.reason,
             "moves_left": v.moves_left} for v in verdicts]
    done = rep.jumps if rep else 0
    title = f"{posed.problem.describe()}: the jumps after {done} jumps"
    return {"problem": posed.problem.describe(), "jumps_so_far": done, "position": here.status,
            "reason": here.reason, "moves_left": here.moves_left, "hints": rows,
            "svg": hint_strip(posed.problem, pos, verdicts, title)}
