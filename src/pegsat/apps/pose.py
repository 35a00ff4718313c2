"""One way to pose a problem: what the user typed (a board, a problem file, a PDDL file) plus
the problem options, to a ``Problem``.

``PROBLEM`` is a catalogue board name or board file (posed by the options), a TOML problem
file (the options override its tables), or an IPC PDDL problem file (its domain is given or
``domain.pddl`` beside it; it fixes start and goal, so options are refused). The command
line, batch jobs and surveys all come through here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import ProblemError
from ..formats import pddl
from ..model.boardfile import load_board
from ..model.options import ProblemOptions
from ..model.problem import Problem
from ..model.problemfile import read_problem_file


@dataclass(frozen=True)
class Posed:
    """A problem, and the PDDL task it was read from (its location names and domain) if any."""

    problem: Problem
    task: pddl.Task | None = None

    @property
    def notation(self) -> str:
        """The plan notation its source speaks: IPC for PDDL, hole names otherwise."""
        return "ipc" if self.task is not None else "names"


def pose(spec: str, options: ProblemOptions | None = None, *, domain: str | None = None) -> Posed:
    """What the user typed (board, TOML or PDDL file) and the options, as a posed problem."""
    options = options or ProblemOptions()
    if domain is not None or spec.endswith(".pddl"):
        if options != ProblemOptions():
            raise ProblemError(f"{spec}: a PDDL problem fixes its start and goal; drop the options")
        task = pddl.load(spec, domain)
        return Posed(task.problem, task)
    if spec.endswith(".toml"):
        return Posed(read_problem_file(Path(spec), options))
    return Posed(options.pose(load_board(spec)))
