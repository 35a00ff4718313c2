"""The cheap proofs, tried before any search by ``solve``, ``prove`` and ``survey`` alike.

In order: counting (no jump is legal at the start; a goal needing more pegs than the start
is refused when the problem is posed), position classes (``analysis.invariants``: a
weighting even on every line whose parity differs between start and goal, one per allowed
survivor for a one-peg goal), and a pagoda function (``analysis.pagoda``: found by LP,
checked exactly). Each comes with its certificate's evidence (``checks.certificate``).
"""

from __future__ import annotations

from typing import cast

from ..analysis import pagoda
from ..analysis.invariants import separating_weight
from ..checks import certificate
from ..engine.bitboard import engine
from ..model.problem import Problem, holes_of
from ..model.result import Proof, Result, Status

NAME = "cheap proofs"


def cheap_proofs(problem: Problem, *, lp: bool = True) -> Result | None:
    """An UNSOLVABLE result with its certificate, or None when none of them applies.
    ``lp=False`` skips the pagoda LP (when OR-Tools' start-up is not worth it)."""
    steps = [_counting, _classes] + ([_pagoda] if lp else [])
    for step in steps:
        found = step(problem)
        if found is not None:
            proof, kind, evidence, detail = found
            cert = certificate.make(problem, kind, evidence) if problem.special is None else None
            return Result(Status.UNSOLVABLE, problem, NAME, proof=proof, detail=detail, certificate=cert)
    return None


def _counting(problem: Problem):
    legal = engine(problem.board).legal(problem.start)
    if problem.special is not None:
        legal = [k for k in legal if problem.board.jumps[k][1] != problem.special]
    if legal or problem.goal.satisfied(problem.start):
        return None
    return Proof.COUNTING, "counting", {"reason": "no-jump"}, "no jump is possible from the start"


def _classes(problem: Problem):
    board, g = problem.board, problem.goal
    names = board.names
    if g.full | g.empty == board.full:
        targets = [("pattern", g.full)]
    elif g.fixed_count == 1 and not g.full:
        targets = [(names[h], 1 << h) for h in holes_of(board.full & ~g.empty)]
    else:
        return None
    items = []
    for name, target in targets:
        w = separating_weight(board, problem.start, target)
        if w is None:
            return None
        items.append({"target": name, "holes": [names[h] for h in holes_of(w.weights)],
                      "start_parity": w.start_parity, "goal_parity": w.goal_parity})
    if targets[0][0] == "pattern":
        detail = ("position classes: the weighting on " + " ".join(cast(list[str], items[0]["holes"]))
                  + " is even on every line and has different parity at start and goal")
    else:
        detail = "position classes: no hole is in the start's class"
    return Proof.INVARIANT, "classes", {"weightings": items}, detail


def _pagoda(problem: Problem):
    w = pagoda.find(problem)
    if w is None:
        return None
    names = problem.board.names
    return (Proof.PAGODA, "pagoda", {"weights": {names[h]: str(v) for h, v in sorted(w.items())}},
            "a pagoda function: no jump increases the pegs' weight, and every goal position "
            "outweighs the start")
