"""The compiled core's reference: the same searches in plain Python, kept for two reasons.

They are what the compiled core is tested against (tests/test_engine.py compares answers,
dead-table behaviour and level sizes on random small boards), and they cover what the core
does not: a *special peg* (the state is then (position, special hole), no symmetry is used)
and boards of more than 128 holes. Slow (about 80k nodes/s) but short enough to read.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from ..deadline import Deadline
from ..model.board import Board, Perm
from ..model.problem import Problem
from ..model.result import Stats
from .bitboard import engine, permute, symmetry


class Exhausted(Exception):
    """The node budget of a reference search ran out."""


def depth_first(problem: Problem, deadline: Deadline, order: Sequence[int], group: Sequence[Perm] = (),
                budget: int | None = None) -> tuple[tuple[int, ...] | None, Stats]:
    """(plan or None when none exists, stats): depth-first search in ``order`` with a dead
    table keyed by the least image under ``group`` (symmetries fixing the goal; ignored with
    a special peg). Raises ``Timeout`` at the deadline, ``Exhausted`` past ``budget`` nodes."""
    board, goal = problem.board, problem.goal
    eng = engine(board)
    need, land, flip, jumps = eng.need, eng.land, eng.flip, board.jumps
    special = problem.special
    canonical = symmetry(board, group).canonical if special is None and len(group) > 1 else (lambda p: p)
    min_left = max(goal.min_pegs, goal.full.bit_count())
    satisfied = goal.satisfied
    dead: set = set()
    path: list[int] = []
    nodes = 0
    cap = budget if budget is not None else float("inf")

    def dfs(pos: int, sp: int | None) -> bool:
        nonlocal nodes
        if satisfied(pos):
            return True
        if pos.bit_count() <= min_left:
            return False
        key = canonical(pos) if sp is None else (pos, sp)
        if key in dead:
            return False
        nodes += 1
        if nodes > cap:
            raise Exhausted
        if not nodes & 0x3FF:
            deadline.check()
        for k in order:
            if pos & need[k] == need[k] and not pos & land[k]:
                nsp = sp
                if sp is not None:
                    a, b, c = jumps[k]
                    if b == sp:
                        continue
                    if a == sp:
                        nsp = c
                path.append(k)
                if dfs(pos ^ flip[k], nsp):
                    return True
                path.pop()
        dead.add(key)
        return False

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * board.n + 100))
    try:
        found = dfs(problem.start, special)
    finally:
        sys.setrecursionlimit(limit)
    stats: Stats = {"nodes": nodes, "dead_positions": len(dead)}
    return (tuple(path) if found else None), stats


# --- level operations on Python sets of ints --------------------------------------------

def canon(board: Board, group: Sequence[Perm], pos: int) -> int:
    """The least image of ``pos`` under the group."""
    return min(permute(p, pos) for p in group) if group else pos


def step(board: Board, group: Sequence[Perm], level: Iterable[int], reverse: bool = False) -> set[int]:
    """Canonical positions one jump after (``reverse``: before) some position of ``level``."""
    eng = engine(board)
    out: set[int] = set()
    for pos in level:
        ks = eng.unplayable(pos) if reverse else eng.legal(pos)
        out.update(canon(board, group, pos ^ eng.flip[k]) for k in ks)
    return out


def move_successors(board: Board, pos: int, reverse: bool = False) -> set[int]:
    """Positions one move (a chain of jumps by one peg) after (before) ``pos``."""
    from .levels import moves_from

    return {q for q, _ in moves_from(board, pos, reverse)}


def sieve_word(x: int, words: int) -> tuple[int, int]:
    """A position's word among a probe's sieve's ``words`` and its three bits (the core's
    ``sieve``: MurmurHash3's 64-bit finaliser, the word from the top 32 bits scaled, the bits
    from the lowest three 6-bit fields)."""
    m = (1 << 64) - 1
    x ^= x >> 33
    x = x * 0xFF51AFD7ED558CCD & m
    x ^= x >> 33
    x = x * 0xC4CEB9FE1A85EC53 & m
    x ^= x >> 33
    bits = (1 << (x & 63)) | (1 << ((x >> 6) & 63)) | (1 << ((x >> 12) & 63))
    return ((x >> 32) * words) >> 32, bits


def sieve(positions: Iterable[int], words: int) -> list[int]:
    """The sieve of ``positions`` in ``words`` words (``Kernel.sieve``)."""
    out = [0] * max(1, words)
    for x in positions:
        at, bits = sieve_word(x, len(out))
        out[at] |= bits
    return out


def sieved(words: Sequence[int], positions: Iterable[int]) -> list[bool]:
    """Which positions the sieve may hold (``Kernel.sieved``)."""
    return [words[at] & bits == bits for at, bits in (sieve_word(x, len(words)) for x in positions)]
