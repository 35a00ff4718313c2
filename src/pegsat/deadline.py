"""The one time budget: made once at the edge (CLI, library call, batch job, survey), passed
down to every search and every child process.

A ``Deadline`` is an instant on the monotonic clock, so a forked child that receives it stops
at the same moment as its parent, and optionally a condition that ends it early (a race that
another planner has won). Callers ask it questions — ``expired``, ``remaining``, ``reason``,
``poll`` — and derive sub-budgets from it — ``within`` (at most so many seconds more),
``share`` (a fraction of what is left), ``earlier`` (whichever of two ends first),
``stopping`` (also over when a condition says so) — but never read or rebuild its fields.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable


class Timeout(Exception):
    """Raised by ``Deadline.check`` when the budget is spent: the answer is "unknown"."""


class Deadline:
    """A wall-clock end (or none) and an optional early-stop condition."""

    __slots__ = ("_end", "_stop")

    def __init__(self, seconds: float | None = None, *, stop: Callable[[], bool] | None = None) -> None:
        if seconds is not None and (not math.isfinite(seconds) or seconds <= 0):
            raise ValueError(f"a time limit must be a positive number of seconds, got {seconds}")
        self._end = None if seconds is None else time.monotonic() + seconds
        self._stop = stop

    @classmethod
    def _at(cls, end: float | None, stop: Callable[[], bool] | None) -> Deadline:
        d = cls.__new__(cls)
        d._end, d._stop = end, stop
        return d

    @classmethod
    def passed(cls) -> Deadline:
        """A budget already spent (ask a running job for its answer without waiting)."""
        return cls._at(0.0, None)

    def within(self, seconds: float | None) -> Deadline:
        """A sub-budget: at most ``seconds`` more (None: no more limit than this one)."""
        end = self._end
        if seconds is not None:
            mine = time.monotonic() + max(0.0, seconds)
            end = mine if end is None else min(end, mine)
        return Deadline._at(end, self._stop)

    def share(self, fraction: float, unlimited: float | None = None) -> Deadline:
        """A sub-budget of ``fraction`` of the time left; with no limit, ``unlimited``
        seconds (None: no limit either)."""
        left = self.remaining()
        return self.within(unlimited if left is None else fraction * left)

    def earlier(self, other: Deadline) -> Deadline:
        """Over when either is over: the earlier end, and both stop conditions."""
        ends = [e for e in (self._end, other._end) if e is not None]
        return Deadline._at(min(ends) if ends else None, _either(self._stop, other._stop))

    def stopping(self, stop: Callable[[], bool]) -> Deadline:
        """The same end, and also over when ``stop()`` says so (as well as this one's own
        condition)."""
        return Deadline._at(self._end, _either(self._stop, stop))

    def remaining(self) -> float | None:
        """Seconds left (None: no limit)."""
        return None if self._end is None else max(0.0, self._end - time.monotonic())

    def stopped(self) -> bool:
        """The early-stop condition fired (not the clock)."""
        return self._stop is not None and bool(self._stop())

    def expired(self) -> bool:
        """The end has passed or the early-stop condition fired."""
        if self._end is not None and time.monotonic() >= self._end:
            return True
        return self.stopped()

    def reason(self) -> str:
        """Why the budget ended, for a result's detail."""
        return "stopped" if self.stopped() else "time limit reached"

    def poll(self, interval: float) -> float | None:
        """How long to wait for an answer before asking again: what is left, but no more than
        ``interval`` when an early-stop condition may fire meanwhile (None: no limit)."""
        rem = self.remaining()
        if self._stop is None:
            return rem
        return interval if rem is None else min(interval, rem)

    def check(self) -> None:
        """Raise ``Timeout`` once the budget is spent."""
        if self.expired():
            raise Timeout

    def __repr__(self) -> str:
        rem = self.remaining()
        return "Deadline(none)" if rem is None else f"Deadline({rem:.2f} s left)"


def _either(a: Callable[[], bool] | None, b: Callable[[], bool] | None) -> Callable[[], bool] | None:
    if a is None or b is None:
        return a or b
    return lambda: bool(a()) or bool(b())
