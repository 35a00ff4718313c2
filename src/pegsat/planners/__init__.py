"""Planner backends, registered once by name and imported lazily.

Each backend is one module with ``NAME`` and ``solve(problem, deadline, config) -> Result``
for a single problem, and optionally ``covers_open_goal(problem)`` when it handles a "one
peg anywhere" goal better whole than split per survivor. Splitting open goals, the
invariant and verification live in ``pegsat.solve``, so the backends only search.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import PegsatError

#: name -> module.
PLANNERS = {
    "auto": "pegsat.planners.auto",
    "sat": "pegsat.planners.sat",
    "cpsat": "pegsat.planners.cpsat",
    "search": "pegsat.planners.search",
    "moves": "pegsat.planners.moves",  # fewest moves, with proof
    "layers": "pegsat.planners.layers",  # exhaustive by jumps, pagoda-pruned; for proofs
}


def get_planner(name: str) -> ModuleType:
    if name not in PLANNERS:
        raise PegsatError(f"unknown planner {name!r}; choose from {', '.join(PLANNERS)}")
    return importlib.import_module(PLANNERS[name])
