"""Planner backends, registered once by name and imported lazily.

May import: the foundation, ``model``, ``engine``, ``analysis``, ``encoding``. Each backend is
one module with ``NAME``, ``supports(problem)`` (None, or why it refuses), ``covers_open_goal
(problem)`` and ``solve(problem, deadline, config) -> Result`` for a single problem
(``config.Backend``). Splitting open goals, the cheap proofs and verification live in
``apps.solve``, so the backends only search. A new planner is one module plus one line here.
"""

from __future__ import annotations

import importlib

from ..errors import PegsatError
from ..model.problem import Problem
from ..model.result import Result, Status
from .config import Backend

#: name -> module.
PLANNERS = {
    "auto": "pegsat.planners.auto",
    "sat": "pegsat.planners.sat",
    "cpsat": "pegsat.planners.cpsat",
    "search": "pegsat.planners.search",
    "moves": "pegsat.planners.moves",  # fewest moves, with proof
    "layers": "pegsat.planners.layers",  # exhaustive by jumps, pagoda-pruned; for proofs
    "beam": "pegsat.planners.beam",  # beams toward exact backward levels; plans, never proofs
}


#: the level searches: past the memory budget (or asked to) they go on with their levels on
#: disk (``ondisk``, ``Config.disk``)
ON_DISK = ("moves", "layers")


def get_planner(name: str) -> Backend:
    """The planner module registered under ``name``."""
    if name not in PLANNERS:
        raise PegsatError(f"unknown planner {name!r}; choose from {', '.join(PLANNERS)}")
    return importlib.import_module(PLANNERS[name])


def refusal(backend: Backend, problem: Problem) -> Result | None:
    """An UNSUPPORTED result when ``backend`` does not handle ``problem`` (checked before it runs)."""
    why = backend.supports(problem)
    if why is None:
        return None
    return Result(Status.UNSUPPORTED, problem, backend.NAME, detail=f"planner {backend.NAME}: {why}")
