"""Bitboard engine and the verifier: the specification every planner is checked against.

A position is an int with bit ``h`` set when hole ``h`` holds a peg. A jump ``(a, b, c)`` is
legal when ``a`` and ``b`` hold pegs and ``c`` is empty, and playing it XORs the three bits.
A *move* is a maximal run of consecutive jumps by the same peg, i.e. each jump starts where
the previous one landed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..errors import PlanError
from ..model.board import Board, Perm
from ..model.problem import Problem
from ..model.result import Plan


@dataclass(frozen=True)
class Engine:
    """Per-board masks: ``need[k]`` must be set, ``land[k]`` must be clear, ``flip[k]`` toggles."""

    board: Board
    need: tuple[int, ...]
    land: tuple[int, ...]
    flip: tuple[int, ...]

    def legal(self, pos: int) -> list[int]:
        """The jump ids legal at ``pos``."""
        need, land = self.need, self.land
        return [k for k in range(len(need)) if pos & need[k] == need[k] and not pos & land[k]]

    def apply(self, pos: int, k: int) -> int:
        """The position after jump ``k``."""
        return pos ^ self.flip[k]

    def unplayable(self, pos: int) -> list[int]:
        """Jumps that could have led to ``pos``: target full, source and middle empty."""
        land, flip = self.land, self.flip
        return [k for k in range(len(land)) if pos & flip[k] == land[k]]


@lru_cache(maxsize=128)
def engine(board: Board) -> Engine:
    """The board's jump tables (cached per board)."""
    need, land, flip = [], [], []
    for a, b, c in board.jumps:
        need.append(1 << a | 1 << b)
        land.append(1 << c)
        flip.append(1 << a | 1 << b | 1 << c)
    return Engine(board, tuple(need), tuple(land), tuple(flip))


def count_moves(board: Board, plan: Sequence[int]) -> int:
    """Number of moves: a jump starts a new move unless it starts where the last one landed."""
    moves, last_dst = 0, None
    for k in plan:
        src, _, dst = board.jumps[k]
        if src != last_dst:
            moves += 1
        last_dst = dst
    return moves


def split_moves(board: Board, plan: Sequence[int]) -> list[list[int]]:
    """The plan cut into moves: consecutive jumps by one peg."""
    out: list[list[int]] = []
    last_dst = None
    for k in plan:
        src, _, dst = board.jumps[k]
        if src != last_dst or not out:
            out.append([])
        out[-1].append(k)
        last_dst = dst
    return out


@dataclass(frozen=True)
class Replay:
    """A plan that replayed: its positions (start first), jump and move counts."""

    plan: Plan
    positions: tuple[int, ...]
    moves: int

    @property
    def final(self) -> int:
        return self.positions[-1]

    @property
    def jumps(self) -> int:
        return len(self.plan)


def jump_of(board: Board, src: int, dst: int, step: int) -> int:
    """The jump id from ``src`` to ``dst``; a PlanError if they are not the ends of a line."""
    for a, b, c in board.lines:
        if (a, c) in ((src, dst), (dst, src)):
            return board.jump_index[(src, b, dst)]
    raise PlanError(
        f"step {step}: {board.names[src]}-{board.names[dst]} is not a line of board {board.name}",
        step,
    )


def replay(problem: Problem, hops: Iterable[tuple[int, int]], partial: bool = False) -> Replay:
    """Play ``(src, dst)`` hops from the start; raise a PlanError naming the first bad step.

    Checks every rule: a peg on ``src``, a peg in the middle, ``dst`` empty, a real line,
    the special peg never jumped over, and (unless ``partial``: a game so far) the goal
    reached at the end.
    """
    board = problem.board
    eng = engine(board)
    names = board.names
    pos = problem.start
    special = problem.special
    positions = [pos]
    plan: list[int] = []
    for step, (src, dst) in enumerate(hops, start=1):
        k = jump_of(board, src, dst, step)
        a, b, c = board.jumps[k]
        where = f"step {step} ({names[a]}-{names[c]})"
        if not pos >> a & 1:
            raise PlanError(f"{where}: no peg on {names[a]} to move", step)
        if not pos >> b & 1:
            raise PlanError(f"{where}: the middle hole {names[b]} is empty", step)
        if pos >> c & 1:
            raise PlanError(f"{where}: the target hole {names[c]} is occupied", step)
        if special is not None:
            if b == special:
                raise PlanError(f"{where}: jumps over the special peg on {names[b]}", step)
            if a == special:
                special = c
        pos = eng.apply(pos, k)
        positions.append(pos)
        plan.append(k)
    if not partial and not problem.goal.satisfied(pos):
        raise PlanError(
            f"goal not reached after {len(plan)} jumps: wanted {problem.goal.describe(board)}, "
            f"{pos.bit_count()} pegs left",
            len(plan) + 1,
        )
    return Replay(tuple(plan), tuple(positions), count_moves(board, plan))


def replay_plan(problem: Problem, plan: Sequence[int]) -> Replay:
    """Replay a plan given as jump ids (what planners produce)."""
    jumps = problem.board.jumps
    return replay(problem, ((jumps[k][0], jumps[k][2]) for k in plan))


# --- symmetry -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Symmetry:
    """Fast application of hole permutations to positions, by byte lookup tables."""

    perms: tuple[Perm, ...]
    tables: tuple[tuple[tuple[int, ...], ...], ...]  # [perm][byte index][byte] -> bits

    def apply(self, i: int, pos: int) -> int:
        """The image of ``pos`` under the permutation."""
        out = 0
        for table in self.tables[i]:
            out |= table[pos & 0xFF]
            pos >>= 8
        return out

    def canonical(self, pos: int) -> int:
        """The least image of ``pos`` under the group: one key per orbit."""
        best = pos
        for i in range(1, len(self.perms)):
            img = self.apply(i, pos)
            if img < best:
                best = img
        return best


def symmetry(board: Board, perms: Sequence[Perm] | None = None) -> Symmetry:
    """The byte look-up tables of a permutation (cached)."""
    perms = tuple(perms if perms is not None else board.symmetries)
    nbytes = (board.n + 7) // 8
    tables = []
    for p in perms:
        per_byte = []
        for byte in range(nbytes):
            row = []
            for v in range(256):
                out = 0
                for bit in range(8):
                    h = byte * 8 + bit
                    if v >> bit & 1 and h < board.n:
                        out |= 1 << p[h]
                row.append(out)
            per_byte.append(tuple(row))
        tables.append(tuple(per_byte))
    return Symmetry(perms, tuple(tables))


def permute(perm: Perm, pos: int) -> int:
    """The image of ``pos`` under ``perm``."""
    out = 0
    h = 0
    while pos:
        if pos & 1:
            out |= 1 << perm[h]
        pos >>= 1
        h += 1
    return out


def same_game(a: Problem, b: Problem) -> bool:
    """``b`` is ``a`` seen through a board symmetry (for a problem and its time-reversed game:
    a self-dual game, nothing to gain by playing it the other way)."""
    return any(permute(p, b.start) == a.start and permute(p, b.goal.full) == a.goal.full
               and permute(p, b.goal.empty) == a.goal.empty for p in a.board.symmetries)


def stabilizer(problem: Problem) -> tuple[Perm, ...]:
    """Board symmetries that fix the start, the goal and the special peg."""
    g = problem.goal
    out = []
    for p in problem.board.symmetries:
        if (
            permute(p, problem.start) == problem.start
            and permute(p, g.full) == g.full
            and permute(p, g.empty) == g.empty
            and (problem.special is None or p[problem.special] == problem.special)
        ):
            out.append(p)
    return tuple(out)


def mirror(problem: Problem, goal: int) -> Perm | None:
    """A board symmetry ``s`` with ``s(~start) = goal`` and ``s(~goal) = start`` (``goal``: the
    goal's one position), or None. Playing backwards on complements is playing forwards, so
    then the positions ``j`` jumps before the goal are ``s(~F_j)``, ``F_j`` those ``j`` after
    the start (``s`` also maps the problem's stabilizer onto itself)."""
    b = problem.board
    if problem.special is not None:
        return None
    for s in b.symmetries:
        if permute(s, b.full & ~problem.start) == goal and permute(s, b.full & ~goal) == problem.start:
            return s
    return None
