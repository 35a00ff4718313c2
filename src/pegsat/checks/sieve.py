"""A sieve: which positions a level's partition surely does not hold, in ``BITS`` bits a
position it does (a Bloom filter blocked by 64-bit words: three bits of one word a position,
the word and the bits from a mix of the position, ``spots``). It answers "perhaps" for every
position the partition holds and for a few others (under 1% of them at 16 bits), so
what it rules out is ruled out exactly; a "perhaps" is then looked up in the partition itself.

A check's last step (``levels``: no mirror image of a child of the last level is in the level
it meets) walks tens of billions of children of which none may be met: sieved first, almost
none of them go to bucket files, to be written, read back, merged and looked up. The compiled
twin is ``_check.sieve``; this module's numpy is the reference the tests hold it to.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..files import Staging
from .kit import MULTIPLIER, partition

BITS = 16  # sieve bits a position: under 1% of the positions it does not hold say "perhaps"
_MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def words_for(count: int) -> int:
    """The words of a sieve of ``count`` positions."""
    return max(1, min(count * BITS // 64, 1 << 32))


def spots(x: np.ndarray, words: int) -> tuple[np.ndarray, np.ndarray]:
    """Each position's word (of ``words``) and its three bits in it: the position mixed by
    splitmix64's finaliser, the word from the mix's top 32 bits scaled to ``words``, the bits
    from its lowest three 6-bit fields."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _MIX[0]
        x = (x ^ (x >> np.uint64(27))) * _MIX[1]
        x = x ^ (x >> np.uint64(31))
        at = ((x >> np.uint64(32)) * np.uint64(words)) >> np.uint64(32)
    six = np.uint64(63)
    one = np.uint64(1)
    bits = (one << (x & six)) | (one << ((x >> np.uint64(6)) & six)) | (one << ((x >> np.uint64(12)) & six))
    return at.astype(np.intp), bits


def build(x: np.ndarray, words: int, compiled: bool = True) -> np.ndarray:
    """The sieve of the positions ``x`` in ``words`` words."""
    w = np.zeros(words, dtype=np.uint64)
    if compiled:
        from . import _check

        _check.sieve(w, np.ascontiguousarray(x, dtype=np.uint64), None)
        return w
    at, bits = spots(x, words)
    np.bitwise_or.at(w, at, bits)
    return w


def perhaps(w: np.ndarray, x: np.ndarray, compiled: bool = True) -> np.ndarray:
    """Which of ``x`` the sieve ``w`` may hold (False: its positions surely do not)."""
    if compiled:
        from . import _check

        out = np.empty(len(x), dtype=np.uint8)
        _check.sieve(w, np.ascontiguousarray(x, dtype=np.uint64), out)
        return out.view(bool)
    at, bits = spots(x, len(w))
    return (w[at] & bits) == bits


def sieved(sieves: list[np.ndarray | None], x: np.ndarray, compiled: bool = True) -> np.ndarray:
    """Which of ``x`` the sieve of their partition (``kit.partition`` among ``len(sieves)``, a
    power of two) may hold; False where that partition's sieve is None (not this pass's)."""
    if compiled:
        from . import _check

        out = np.empty(len(x), dtype=np.uint8)
        _check.sieves(list(sieves), np.ascontiguousarray(x, dtype=np.uint64), MULTIPLIER,
                      len(sieves).bit_length() - 1, out)
        return out.view(bool)
    where = partition(x, len(sieves))
    out = np.zeros(len(x), dtype=bool)
    for q, w in enumerate(sieves):
        if w is not None and (at := np.flatnonzero(where == q)).size:
            out[at] = perhaps(w, x[at], compiled=False)
    return out


def save(path: Path, w: np.ndarray) -> None:
    """A sieve written whole or not at all (a scratch file: not synced)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with Staging() as stage:
        with open(stage.path(path), "wb") as fh:
            np.save(fh, w)
        stage.commit(durable=False)


def load(path: Path) -> np.ndarray:
    """A sieve mapped from its file (read only; the processes that map it share its pages)."""
    w = np.load(path, mmap_mode="r")
    if w.dtype != np.uint64 or w.ndim != 1 or not len(w):
        raise ValueError(f"{path} is not a sieve")
    return w
