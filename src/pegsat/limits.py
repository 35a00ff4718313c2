"""The limits a run may reach besides time, read once and ended the one way: "unknown".

``memory_budget()`` is the bytes one search's positions may hold: ``PEGSAT_MEMORY_GB``
(checked: a positive, finite number of gigabytes, else one line and exit 2), else 40% of the
memory this process may have: the machine's, or less where an address-space limit
(``ulimit -v``) or a cgroup (a container's ``memory.max``) says so (a level is sorted and
merged in copies, so peaks reach about twice).
Past it a search raises ``MemoryBudget``, a kind of ``deadline.Timeout``: the answer is
"unknown", never a proof. A ``MemoryError`` that still escapes (an allocation refused by the
system, as under ``ulimit -v``) is turned into the same "unknown" at the command line's edge.

``give_back_freed_memory()`` makes the budget hold for the process, not only for what the
search counts: glibc's ``malloc`` serves blocks of up to 32 MB from its heaps once it has
freed a few, and memory freed there stays with the process, so a level built from a hundred
slices of 28 MB kept them all (French c1 -> e1 by moves: 12.2 GB at the peak under a 9.4 GB
budget, 9.2 GB with every block of a megabyte or more mapped on its own and unmapped when
freed).
"""

from __future__ import annotations

import math
import os

from .deadline import Timeout
from .errors import PegsatError

ENV = "PEGSAT_MEMORY_GB"
MAX_GB = 1 << 20  # a budget past a petabyte is a typo


MMAP_THRESHOLD = 1 << 20  # bytes: blocks this large get pages of their own


def give_back_freed_memory() -> None:
    """Blocks of ``MMAP_THRESHOLD`` bytes or more go back to the system when freed
    (glibc's ``mallopt(M_MMAP_THRESHOLD)``, which also stops it raising that threshold by
    itself); nothing elsewhere."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, MMAP_THRESHOLD)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):  # not glibc
        pass


class MemoryBudget(Timeout):
    """The positions outgrew ``memory_budget()``: stop as at a time limit ("unknown")."""


def memory_budget() -> int:
    """Bytes one search's positions may hold (see the module's docstring)."""
    text = os.environ.get(ENV, "").strip()
    if text:
        try:
            gb = float(text)
        except ValueError:
            gb = math.nan
        if not (math.isfinite(gb) and 0 < gb <= MAX_GB):
            shown = text if len(text) <= 40 else text[:40] + "..."
            raise PegsatError(f"{ENV}={shown!r}: give a positive number of gigabytes (at most {MAX_GB})")
        return int(gb * (1 << 30))
    return int(SHARE * available())


SHARE = 0.4


def available() -> int:
    """Bytes this process may use at most: the least of the machine's memory, its
    address-space limit and its cgroup's limit, where each is known."""
    found = []
    try:
        found.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        found.append(16 << 30)
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            found.append(soft)
    except (ImportError, OSError, ValueError):
        pass
    try:
        text = open("/sys/fs/cgroup/memory.max").read().strip()
        if text.isdigit():
            found.append(int(text))
    except OSError:
        pass
    return min(found)


#: the units of a size (``size``), decimal and binary
UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
         "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
LEAST_SIZE = 10**6  # 1MB: no memory or disk limit is smaller


def size(value: object, what: str = "a size") -> int:
    """A size in bytes: a whole number of bytes, or text with a unit (500MB, 2GB, 1.5GiB), at
    least ``LEAST_SIZE``; ``PegsatError`` (one line) for anything else."""
    from .files import clip

    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PegsatError(f"{what}: {clip(value)!r} is not a size (write 2GB, 500MB, 1.5GiB, or bytes)")
    text = str(value).strip().lower().replace(" ", "")
    num = text.rstrip("kmgtib")
    try:
        x = float(num) * UNITS[text[len(num):]]
    except (ValueError, KeyError):
        raise PegsatError(f"{what}: {clip(value)!r} is not a size (write 2GB, 500MB, 1.5GiB)") from None
    if not math.isfinite(x) or x < LEAST_SIZE:
        raise PegsatError(f"{what}: {clip(value)!r} is less than 1MB; give at least 1MB")
    return int(x)
