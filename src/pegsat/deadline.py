"""The one time budget: made once at the edge (CLI, batch job, survey), passed down to every
search and every child process.

A ``Deadline`` is an instant on the monotonic clock, so a forked child that receives it stops
at the same moment as its parent. ``within(s)`` gives a sub-budget that ends at the earlier of
the two (a short phase inside a longer run); ``stop`` adds a condition that ends the budget
early (a race that another planner has won).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable


class Timeout(Exception):
    """Raised by ``Deadline.check`` when the budget is spent: the answer is "unknown"."""


class Deadline:
    """A wall-clock end (or none) and an optional early-stop condition."""

    __slots__ = ("end", "stop")

    def __init__(self, seconds: float | None = None, *, stop: Callable[[], bool] | None = None,
                 end: float | None = None) -> None:
        if seconds is not None:
            if not math.isfinite(seconds) or seconds <= 0:
                raise ValueError(f"a time limit must be a positive number of seconds, got {seconds}")
            end = time.monotonic() + seconds
        self.end = end
        self.stop = stop

    def within(self, seconds: float | None) -> Deadline:
        """A sub-budget: at most ``seconds`` more, and never past this deadline."""
        end = self.end
        if seconds is not None:
            mine = time.monotonic() + max(0.0, seconds)
            end = mine if end is None else min(end, mine)
        return Deadline(end=end, stop=self.stop)

    def stopping(self, stop: Callable[[], bool]) -> Deadline:
        """The same end, and also over when ``stop()`` says so."""
        return Deadline(end=self.end, stop=stop)

    def remaining(self) -> float | None:
        return None if self.end is None else max(0.0, self.end - time.monotonic())

    def expired(self) -> bool:
        if self.end is not None and time.monotonic() >= self.end:
            return True
        return self.stop is not None and bool(self.stop())

    def check(self) -> None:
        if self.expired():
            raise Timeout

    def __repr__(self) -> str:
        rem = self.remaining()
        return "Deadline(none)" if rem is None else f"Deadline({rem:.2f} s left)"
