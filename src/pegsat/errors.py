"""User-facing errors. The CLI turns each into one line on stderr and an exit code."""

from __future__ import annotations


class PegsatError(Exception):
    """Bad input from the user: printed as one line, never as a traceback."""

    exit_code = 2


class BoardError(PegsatError):
    """A board name that is not in the catalogue, or a malformed board file."""


class ProblemError(PegsatError):
    """A problem that cannot be posed: unknown hole, impossible goal by counting, bad TOML."""


class PlanError(PegsatError):
    """A plan that does not replay: names the failing step and why."""

    exit_code = 1

    def __init__(self, message: str, step: int | None = None) -> None:
        super().__init__(message)
        self.step = step


class NotationError(PegsatError):
    """A plan or hole written in a notation this board does not understand."""


class DimacsError(PegsatError):
    """A DIMACS file or model that does not belong together."""


class Unknown(PegsatError):
    """A limit (time, memory, disk) came before the answer: "unknown", exit 20, never a
    proof. ``facts``: what was known when it stopped (levels finished, positions stored)."""

    exit_code = 20

    def __init__(self, message: str, facts: dict | None = None) -> None:
        super().__init__(message)
        self.facts = facts or {}
