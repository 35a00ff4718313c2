"""Progress lines of long work, from deep inside to the edge that prints them.

The command line (or a library caller) says where lines go for the extent of a ``with
reporting(print_line):`` block; a search several layers down calls ``say(line)`` after each
level it finishes, and nothing is printed where nobody listens. A context variable, not an
argument threaded through every planner's signature: progress is no part of a planner's
answer, and its ``Config`` and ``Deadline`` cross to other processes, where a callable could
not follow."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Say = Callable[[str], None]
_LISTENER: ContextVar[tuple[Say, float] | None] = ContextVar("pegsat_progress", default=None)


@contextmanager
def reporting(say: Say | None) -> Iterator[None]:
    """``say(line)`` hears every progress line said inside the block (None: nobody does)."""
    token = _LISTENER.set(None if say is None else (say, time.perf_counter()))
    try:
        yield
    finally:
        _LISTENER.reset(token)


QUIET_S = 2.0  # seconds of work before the first line: a run that answers at once stays silent


def say(line: str) -> None:
    """Tell the listener, if any, ``line`` with the seconds since it started listening (once
    ``QUIET_S`` have passed)."""
    heard = _LISTENER.get()
    if heard is not None:
        fn, t0 = heard
        now = time.perf_counter() - t0
        if now >= QUIET_S:
            fn(f"{line} ({now:.1f} s)")


def listening() -> bool:
    """Whether anyone hears progress lines (a line costly to compose is skipped otherwise)."""
    return _LISTENER.get() is not None


def tell(line: str) -> None:
    """Tell the listener, if any, ``line`` as it is, at once: a line of a long search that
    carries its own figures, or that must be heard however early (a run resumed, a run
    interrupted and where it goes on)."""
    heard = _LISTENER.get()
    if heard is not None:
        heard[0](line)
