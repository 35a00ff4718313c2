"""The one answer of every check: a ``Verdict`` with a ``Standing``.

A certificate's check, a walk of its positions, a DRAT replay, a journal's step loop and an
atlas's check all answer with a ``Verdict``: its standing (holds, rejected, or not settled:
a limit — time, memory, disk — came first, and that is never taken for either), the reason
in words, what was checked (a certificate kind, "drat", "atlas"), how many positions or
children were walked and in how many seconds, and (a kind checked by more than one route)
which routes ran. The command line's exit code comes from the standing, here and nowhere
else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..model.problem import Problem


class Standing(Enum):
    """What a check found: the evidence holds, is rejected, or is not settled."""

    HOLDS = "holds"
    REJECTED = "rejected"
    NOT_SETTLED = "not settled"

    @property
    def exit_code(self) -> int:
        """The command line's exit code: 0 holds, 1 rejected, 20 not settled."""
        return {Standing.HOLDS: 0, Standing.REJECTED: 1, Standing.NOT_SETTLED: 20}[self]

    @property
    def prefix(self) -> str:
        """How a message of this standing begins, as ``check`` prints it."""
        return {Standing.HOLDS: "ok: ", Standing.REJECTED: "rejected: ",
                Standing.NOT_SETTLED: UNFINISHED}[self]


UNFINISHED = "unfinished: "


@dataclass(frozen=True)
class Verdict:
    """What a check found (see the module's docstring). ``problem``: the problem the evidence
    was checked against (a certificate's, rebuilt from its file), when there is one."""

    standing: Standing
    reason: str
    kind: str = ""
    walked: int = 0
    seconds: float = 0.0
    routes: str = ""
    problem: Problem | None = None

    @property
    def ok(self) -> bool:
        """The evidence holds."""
        return self.standing is Standing.HOLDS

    @property
    def refused(self) -> bool:
        """The evidence is rejected (a finished check that found it wrong)."""
        return self.standing is Standing.REJECTED

    @property
    def finished(self) -> bool:
        """False when a limit cut the check short (then it neither holds nor is rejected)."""
        return self.standing is not Standing.NOT_SETTLED

    @property
    def message(self) -> str:
        """The reason as ``check`` prints it: "ok: ...", "rejected: ...", "unfinished: ..."."""
        return self.standing.prefix + self.reason

    def to_dict(self) -> dict[str, Any]:
        """The verdict as plain JSON values."""
        return {"standing": self.standing.value, "ok": self.ok, "kind": self.kind, "message": self.message,
                "problem": self.problem.describe() if self.problem is not None else None,
                "finished": self.finished, "walked": self.walked, "seconds": round(self.seconds, 3)}


def holds(reason: str, routes: str = "", walked: int = 0, seconds: float = 0.0) -> Verdict:
    """The evidence holds, for ``reason``."""
    return Verdict(Standing.HOLDS, reason, walked=walked, seconds=seconds, routes=routes)


def rejected(reason: str, walked: int = 0, seconds: float = 0.0) -> Verdict:
    """The evidence is rejected, for ``reason``."""
    return Verdict(Standing.REJECTED, reason, walked=walked, seconds=seconds)


def unsettled(reason: str, walked: int = 0, seconds: float = 0.0) -> Verdict:
    """A limit came first (time, memory, disk): neither holds nor rejected."""
    return Verdict(Standing.NOT_SETTLED, reason, walked=walked, seconds=seconds)


def judged(ok: bool | None, reason: str, walked: int = 0, seconds: float = 0.0) -> Verdict:
    """A walk's verdict from its three-valued answer: True holds, False rejected, None a
    limit came first."""
    standing = Standing.NOT_SETTLED if ok is None else Standing.HOLDS if ok else Standing.REJECTED
    return Verdict(standing, reason, walked=walked, seconds=seconds)


def restated(walk: Verdict, reason: str) -> Verdict:
    """A walk that holds, with ``reason`` as its reason; any other walk as it is."""
    return replace(walk, reason=reason) if walk.ok else walk


def worst(standings: Iterable[Standing]) -> Standing:
    """The standing of several checks together: rejected if any is, else not settled if any
    is, else holds."""
    found = set(standings)
    return next((s for s in (Standing.REJECTED, Standing.NOT_SETTLED) if s in found), Standing.HOLDS)
