"""Bulk operations on arrays of positions, for one board and one symmetry group.

A ``Kernel`` is what the level searches (``engine.levels``) and the depth-first search
(``planners.search``) are built on: successors by one jump or one move, forward or back;
canonical forms (the least image under the group); sorting with duplicates removed;
membership; images under one permutation; pagoda filtering. It runs in the compiled core
(``engine._core``, C, built with the package); positions are numpy ``uint64`` arrays of
shape ``(N,)`` on boards of at most 64 holes and ``(N, 2)`` (low word, high word) on boards
of at most 128. ``engine.reference`` does the same in plain Python, as the tested reference.

C rather than numba, measured (``python bench/core_choice.py``, the same search in both, one
run): C 2.9-3.1 million nodes/s against numba's 1.9-2.0 on English d4 -> c4; numba costs a
fresh process about 0.45 s before its first node (C: 1.5 ms) and has no 128-bit integers and no
atomic operations on shared memory. README, "The compiled core", has the details.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..errors import PegsatError
from ..limits import available, give_back_freed_memory
from ..model.board import Board, Perm
from . import _core

MAX_HOLES = 128
U64 = np.uint64
give_back_freed_memory()  # a level's arrays, once freed, leave the process (see ``limits``)
_core.pool_limit(available() // 4)  # idle pooled blocks at most (``use_pool``)


def check_size(board: Board) -> None:
    """Refuse a board the core cannot hold (more than 128 holes)."""
    if board.n > MAX_HOLES:
        raise PegsatError(f"board {board.name} has {board.n} holes; the search engine handles at most "
                          f"{MAX_HOLES}")


def words(board: Board) -> int:
    """64-bit words per position on this board."""
    return 1 if board.n <= 64 else 2


class Kernel:
    """The compiled bulk operations for ``board`` under the symmetry ``group``."""

    def __init__(self, board: Board, group: Sequence[Perm]) -> None:
        check_size(board)
        identity = tuple(range(board.n))
        perms = [identity] + [tuple(p) for p in group if tuple(p) != identity]
        self.board, self.group = board, tuple(perms)
        self.width = words(board)
        jumps = np.array(board.jumps, dtype=np.int32).tobytes()
        self.core = _core.Board(board.n, jumps, np.array(perms, dtype=np.int32).tobytes())
        self.full = board.full

    # --- conversion -------------------------------------------------------------------

    def _wrap(self, data) -> np.ndarray:
        arr = np.frombuffer(data, dtype=U64)
        return arr if self.width == 1 else arr.reshape(-1, 2)

    def array(self, positions: Iterable[int]) -> np.ndarray:
        """Positions as the core's array (one or two words each)."""
        if self.width == 1:
            return np.array(list(positions), dtype=U64)
        return np.array([(p & 0xFFFFFFFFFFFFFFFF, p >> 64) for p in positions], dtype=U64).reshape(-1, 2)

    def ints(self, arr: np.ndarray) -> list[int]:
        """Positions of the core's array as Python integers."""
        if self.width == 1:
            return [int(x) for x in arr]
        return [int(lo) | int(hi) << 64 for lo, hi in arr]

    def empty(self) -> np.ndarray:
        """An empty array of positions."""
        return self.array([])

    def concat(self, parts: list[np.ndarray]) -> np.ndarray:
        """Arrays of positions end to end."""
        return np.concatenate(parts) if parts else self.empty()

    @staticmethod
    def _buf(arr: np.ndarray):
        return np.ascontiguousarray(arr)

    # --- the operations ---------------------------------------------------------------

    def step(self, pos: np.ndarray, reverse: bool = False, canon: bool = True) -> np.ndarray:
        """Every position one jump after (``reverse``: before) one of ``pos``; duplicates stay."""
        return self._wrap(self.core.step(self._buf(pos), reverse, canon))

    def degree(self, pos: np.ndarray, reverse: bool = False) -> np.ndarray:
        """Legal jumps at (``reverse``: into) each of ``pos``: ``step`` gives that many
        successors per position, in order, so ``np.repeat(arange, degree)`` names the parent
        of each successor."""
        return np.frombuffer(self.core.degree(self._buf(pos), reverse), dtype=np.uint16)

    def push(self, cur: np.ndarray, t_mod: np.ndarray, t_apx: np.ndarray, nxt: np.ndarray,
             kids: np.ndarray | None = None, degree: np.ndarray | None = None,
             out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Counts carried one jump on: for each jump from a class of the canonical ``cur``
        into one of the sorted ``nxt``, the parent's count is added to the child's (uint64
        wrapping, float64). ``kids``/``degree``: ``step(cur)`` and ``degree(cur)`` already
        computed (then they are read, not generated again). ``out``: counts to add into
        (else new ones). One-word positions."""
        out_mod, out_apx = out if out is not None else (np.zeros(len(nxt), dtype=U64), np.zeros(len(nxt)))
        extra = () if kids is None or degree is None else (self._buf(kids), self._buf(degree))
        self.core.push(self._buf(cur), self._buf(t_mod), self._buf(t_apx), self._buf(nxt), out_mod, out_apx,
                       *extra)
        return out_mod, out_apx

    def moves(self, pos: np.ndarray, reverse: bool = False, canon: bool = True) -> np.ndarray:
        """Every position one move after (before) one of ``pos``: a move is a chain of jumps
        by one peg; backwards, the peg is walked back along its chain."""
        return self._wrap(self.core.moves(self._buf(pos), reverse, canon))

    def canon(self, pos: np.ndarray) -> np.ndarray:
        """Each position's least image under the group."""
        return self._wrap(self.core.canon(self._buf(pos)))

    def permute(self, pos: np.ndarray, perm: Perm) -> np.ndarray:
        """Each position's image under ``perm``."""
        return self._wrap(self.core.permute(self._buf(pos), np.array(perm, dtype=np.int32).tobytes()))

    def complement(self, pos: np.ndarray) -> np.ndarray:
        """Each position with every hole flipped."""
        return pos ^ self.array([self.full])[0]

    def unique(self, pos: np.ndarray, *, own: bool = False, view: bool = False) -> np.ndarray:
        """Sorted distinct positions, by the core's radix sort (highest digit first down to
        buckets the cache holds, then lowest digit first, skipping the digits on which all
        positions agree: about 4x numpy's sort here, bench/sort.py). ``own``: ``pos`` is
        the caller's fresh array, sorted in place (one copy fewer at a level's peak);
        ``view``: the distinct positions are a view of the sorted buffer, not a copy (for a
        result that is soon copied anyway: the buffer lives as long as the view)."""
        if own and pos.flags.writeable and pos.flags.c_contiguous and pos.dtype == U64:
            out = pos
        else:
            out = np.array(pos, dtype=U64, copy=True, order="C")
        if len(out) < 2:
            return out
        m = self.core.sort_unique(out)
        return out[:m].copy() if m < len(out) and not view else out[:m]

    def merge(self, buf: np.ndarray, count: int, fresh: np.ndarray) -> None:
        """Merge the sorted ``fresh`` (none of them there) into the sorted first ``count``
        positions of ``buf``, in place: ``buf`` holds exactly ``count + len(fresh)``
        positions' room (a view of a larger buffer, so that a large set grows without being
        held twice: numpy's resize copies it)."""
        if len(buf) != count + len(fresh) or not buf.flags.c_contiguous or not buf.flags.writeable:
            raise ValueError("merge: a writable buffer of the set and room for exactly the new positions")
        if len(fresh):
            self.core.merge(buf, count, self._buf(fresh))

    def fresh(self, parents: np.ndarray, dead: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(children, their canonical forms): every child of ``parents`` whose canonical form
        the sorted ``dead`` misses, ordered by form (a child of two parents twice). One-word
        positions. The walk of a dead set's closure (``proofs.deadset``) in one pass of the
        core: 2.7 x 10^9 children for diamond e1's set (``bench/results-atlas.txt``)."""
        if not len(parents):
            return self.empty(), self.empty()
        kids, forms = self.core.fresh(self._buf(parents), self._buf(dead))
        return self._wrap(kids), self._wrap(forms)

    def member(self, sorted_set: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """Which of ``pos`` occur in the sorted array ``sorted_set``."""
        if not len(sorted_set) or not len(pos):
            return np.zeros(len(pos), dtype=bool)
        hits = self.core.member(self._buf(sorted_set), self._buf(pos))
        return np.frombuffer(hits, dtype=np.uint8).astype(bool)

    def cut(self, pos: np.ndarray, weights: Sequence[Sequence[int]], floors: Sequence[Sequence[int]]
            ) -> np.ndarray:
        """Which positions the pagodas cut as the depth-first search cuts them with
        survivors: for every column ``k`` of ``floors`` (one per survivor, at most 64), some
        pagoda ``p`` weighs the position below ``floors[p][k]``. One-word positions."""
        if not len(pos) or not len(weights):
            return np.zeros(len(pos), dtype=bool)
        w = np.array(weights, dtype=np.int64).reshape(len(weights), self.board.n)
        f = np.array(floors, dtype=np.int64).reshape(len(weights), -1)
        cut = self.core.cut(self._buf(pos), w.tobytes(), f.tobytes())
        return np.frombuffer(cut, dtype=np.uint8).astype(bool)

    def cut_by_class(self, pos: np.ndarray, weights: Sequence[Sequence[int]], classes: Sequence[int],
                     floors: Mapping[int, Sequence[Sequence[int]]]) -> np.ndarray:
        """``cut`` with columns by position class: a position's signature has bit ``i`` the
        parity of its pegs on the holes of ``classes[i]`` (at most 15 masks), and
        ``floors[signature]`` are that class's columns (``[P][K]``: per pagoda, one floor per
        survivor the class allows); a signature not in ``floors`` has none and is not cut.
        The open game's rule (``proofs.deadset.Rule``) in one pass of the core."""
        if not len(pos) or not len(weights):
            return np.zeros(len(pos), dtype=bool)
        P, S = len(weights), 1 << len(classes)
        K = max((len(f[0]) for f in floors.values() if len(f) and len(f[0])), default=1)
        table = np.zeros((S, P, K), dtype=np.int64)
        cols = np.zeros(S, dtype=np.int32)
        for sig, f in floors.items():
            c = np.array(f, dtype=np.int64).reshape(P, -1)
            table[sig, :, :c.shape[1]] = c
            cols[sig] = c.shape[1]
        w = np.array(weights, dtype=np.int64).reshape(P, self.board.n)
        masks = np.array([int(c) for c in classes], dtype=np.uint64)
        cut = self.core.cut(self._buf(pos), w.tobytes(), table.tobytes(), masks.tobytes(), cols.tobytes())
        return np.frombuffer(cut, dtype=np.uint8).astype(bool)

    def route(self, pos: np.ndarray, parts: int) -> tuple[np.ndarray, np.ndarray]:
        """(the positions grouped by partition, each group in its given order; the bounds of
        the groups: partition ``q`` is ``grouped[bounds[q]:bounds[q + 1]]``), for ``parts`` (a
        power of two, at most 2^20) partitions by the top bits of a Fibonacci hash
        (``engine.spill.route``). One-word positions; a stable counting sort in the core."""
        bits = parts.bit_length() - 1
        routed, counts = self.core.route(self._buf(pos), bits)
        bounds = np.zeros(parts + 1, dtype=np.int64)
        np.cumsum(np.frombuffer(counts, dtype=np.int64), out=bounds[1:])
        return self._wrap(routed), bounds

    def sieve(self, pos: np.ndarray, words: int) -> np.ndarray:
        """A sieve of ``pos`` in ``words`` 64-bit words (at most 2^32): a Bloom filter that
        rules out most positions ``pos`` does not hold and none that it does (``sieved``).
        One-word positions."""
        w = np.zeros(max(1, words), dtype=U64)
        if len(pos):
            self.core.sieve(w, self._buf(pos), False)
        return w

    def sieved(self, words: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """Which of ``pos`` the sieve ``words`` may hold (False: the positions it was made of
        surely do not)."""
        if not len(pos):
            return np.zeros(0, dtype=bool)
        return np.frombuffer(self.core.sieve(words, self._buf(pos), True), dtype=np.uint8).astype(bool)

    def contains(self, sorted_set: np.ndarray, pos: int) -> bool:
        """Whether the sorted array holds ``pos``."""
        return bool(self.member(sorted_set, self.array([pos]))[0])

    def orbit_sizes(self, level: np.ndarray) -> np.ndarray:
        """How many positions each canonical position stands for: |G| over the number of
        symmetries fixing it (the raw count of a level of classes)."""
        fixed = np.ones(len(level), dtype=np.int64)
        for perm in self.group[1:]:
            fixed += self.permute(level, perm) == level
        return len(self.group) // fixed

    def popcount(self, pos: np.ndarray) -> np.ndarray:
        """Pegs per position."""
        c = np.bitwise_count(pos)
        return c if self.width == 1 else c.sum(axis=1)

    def _mask(self, mask: int) -> np.ndarray:
        return self.array([mask])[0]

    def covers(self, pos: np.ndarray, mask: int) -> np.ndarray:
        """Where every hole of ``mask`` holds a peg."""
        m = self._mask(mask)
        hit = (pos & m) == m
        return hit if self.width == 1 else hit.all(axis=1)

    def count_full(self, pos: np.ndarray, masks: Sequence[int]) -> np.ndarray:
        """Per position, how many of ``masks`` it holds full (one byte each; at most 255
        masks): ``covers`` summed over the masks in one compiled pass."""
        out = np.zeros(len(pos), dtype=np.uint8)
        if len(masks) and len(pos):
            self.core.full(self._buf(pos), self.array(masks).tobytes(), out)
        return out

    def misses(self, pos: np.ndarray, mask: int) -> np.ndarray:
        """Where no hole of ``mask`` holds a peg."""
        hit = (pos & self._mask(mask)) == 0
        return hit if self.width == 1 else hit.all(axis=1)

    def goals(self, pos: np.ndarray, goal) -> np.ndarray:
        """Where the position satisfies ``goal`` (a ``model.problem.Goal``)."""
        c = self.popcount(pos)
        ok = self.covers(pos, goal.full) & self.misses(pos, goal.empty) & (c >= goal.min_pegs)
        return ok if goal.max_pegs is None else ok & (c <= goal.max_pegs)

    def keep(self, pos: np.ndarray, weights: Sequence[Sequence[int]], floors: Sequence[int]
             ) -> tuple[np.ndarray, np.ndarray]:
        """(positions weighing at least the floor under every weighting, per weighting the
        number of positions it alone ruled out). Weights and floors are integers."""
        if not len(weights) or not len(pos):
            return pos, np.zeros(len(weights), dtype=np.int64)
        w = np.array(weights, dtype=np.int64)
        f = np.array(floors, dtype=np.int64)
        alone = np.zeros(len(f), dtype=np.int64)
        kept = self.core.keep(self._buf(pos), w.tobytes(), f.tobytes(), alone)
        return self._wrap(kept), alone

    def score(self, pos: np.ndarray, weights: Sequence[int], iso: int) -> np.ndarray:
        """Per position: the sum of ``weights`` over its pegs, plus ``iso`` per isolated peg
        (no peg on a hole it could jump over)."""
        out = np.zeros(len(pos), dtype=np.int64)
        if len(pos):
            self.core.score(self._buf(pos), np.array(weights, dtype=np.int64).tobytes(), int(iso), out)
        return out

    def core_search(self, start: bytes, full: bytes, empty: bytes, min_pegs: int, max_pegs: int,
                    min_left: int, order: bytes, table: np.ndarray, canon: bool, delta: bytes,
                    floors: bytes, values: bytes, target: np.ndarray | None = None, target_pegs: int = 0):
        """A compiled depth-first search over this board (``engine.dfs`` drives it)."""
        return _core.Search(self.core, start, full, empty, min_pegs, max_pegs, min_left, order, table,
                            canon, delta, floors, values, target, target_pegs)


def kernel(board: Board, group: tuple[Perm, ...]) -> Kernel:
    """The core's tables for a board and a group (cached). numpy's arrays made from here on in
    the calling context (a thread, a Dask task) come from the core's pool of large blocks
    (``use_pool``)."""
    use_pool()
    return _tables(board, group)


@lru_cache(maxsize=64)
def _tables(board: Board, group: tuple[Perm, ...]) -> Kernel:
    return Kernel(board, group)


def use_pool() -> None:
    """numpy's arrays made in the calling context come from the core's pool (``_pool.h``):
    a block of a megabyte or more, once freed, serves the next request of about its size
    instead of going back to the system, so a level's chunks reuse their buffers rather than
    fault in and zero fresh pages each time; the pool never holds more than the blocks in use
    needed at their peak, nor past ``pool_limit`` bytes idle."""
    _core.use_pool()


def pool_limit(limit: int) -> None:
    """The most bytes the pool keeps idle (default a quarter of the memory the process may
    have, ``limits.available``: what a level search's worker holds at its peak, so that its
    chunks reuse every block); past them the oldest go now."""
    _core.pool_limit(int(limit))


def pool_release() -> None:
    """Every idle block of the pool back to the system (a search going from memory to disk:
    the workers do the rest, and this process only waits)."""
    _core.pool_release()


class PoolStats(NamedTuple):
    """The pool's state and its counts since the process began."""

    idle: int  # bytes pooled, not in use
    blocks: int  # blocks pooled
    hits: int  # requests served by a pooled block as it was
    reshaped: int  # requests served by a pooled block trimmed or grown (its pages reused)
    fresh: int  # requests mapped fresh from the system (pages to fault in and zero)
    limit: int  # the most bytes kept idle


def pool_stats() -> PoolStats:
    """The pool's counts (``PoolStats``)."""
    return PoolStats(*_core.pool_stats())
