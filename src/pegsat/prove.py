"""``pegsat prove``: settle a problem with the cheapest argument a sceptic can check.

In order, stopping at the first that settles it:

1. counting: no jump is legal at the start (the goal needing more pegs than the start is
   refused when the problem is posed);
2. position classes (``invariants``): a weighting even on every line whose parity differs
   between start and goal (for a one-peg goal, one per hole it allows);
3. pagoda functions (``pagoda``): a rational weighting no jump increases, under which every
   goal position outweighs the start, found by linear programming and checked exactly;
4. exhaustive search (``planners.layers``, boards of at most 64 holes, goals of a fixed peg
   count): breadth-first by jumps from both ends, pruned by pagodas it learns by LP; when
   nothing meets, the certificate is those pagodas and the level sizes, checked by re-running
   the search. It settles problems SAT cannot (French d3 -> d5); ``--sat`` skips it;
5. SAT: the time-indexed CNF at the full horizon, solved by CaDiCaL with its DRAT proof
   written beside the CNF, and cross-checked by a second, different solver (Glucose by
   default). A model instead is decoded and replayed: then the problem is solvable.

Each certificate is re-checked by ``certificate.check`` before it is returned: a proof that
fails its own check is an error, never a result. A time limit gives "unknown".
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import certificate, pagoda
from .bitboard import engine, replay_plan
from .errors import PegsatError, PlanError
from .invariants import separating_weight
from .planners.base import Deadline, Status
from .problem import Problem, holes_of


@dataclass(frozen=True)
class Proven:
    status: Status
    kind: str | None = None  # counting / classes / pagoda / exhaustive / sat
    certificate: dict[str, Any] | None = None
    plan: tuple[int, ...] | None = None
    detail: str = ""
    stats: dict[str, Any] = field(default_factory=dict)


def prove(problem: Problem, *, time_limit: float | None = None, cnf: str | Path | None = None,
          proof: str | Path | None = None, solver: str = "cadical195", second: str = "glucose4",
          use_sat: bool = True, base: str | Path | None = None, search: bool = True) -> Proven:
    """``cnf``/``proof``: where the SAT step writes its instance and DRAT proof (both or
    neither; without them the SAT step still decides, and no SAT certificate is made).
    ``base``: the directory the certificate will live in (its file names are relative).
    ``use_sat=False`` stops after the pagoda step; ``search=False`` goes from there to SAT."""
    if problem.special is not None:
        raise PegsatError("prove does not handle the special-peg rule; use solve")
    t0 = time.perf_counter()
    for kind, find in (("counting", _counting), ("classes", _classes), ("pagoda", _pagoda)):
        ev = find(problem)
        if ev is not None:
            return _checked(problem, kind, ev, Path("."), t0)
    if not use_sat:
        return Proven(Status.UNKNOWN, detail="counting, classes and pagoda LP settle nothing",
                      stats={"total_s": time.perf_counter() - t0})
    if search and _searchable(problem):
        return _exhaustive(problem, Deadline(time_limit), t0)
    return _sat(problem, Deadline(time_limit), cnf, proof, solver, second, t0,
                Path(base) if base is not None else None)


def _checked(problem: Problem, kind: str, ev: dict, base: Path, t0: float) -> Proven:
    cert = certificate.make(problem, kind, ev)
    verdict = certificate.check(cert, base)
    stats = {"total_s": time.perf_counter() - t0}
    if not verdict.ok:
        return Proven(Status.ERROR, kind, detail=f"internal error: the {kind} certificate failed its own "
                      f"check ({verdict.message})", stats=stats)
    return Proven(Status.UNSOLVABLE, kind, cert, detail=verdict.message, stats=stats)


def _counting(problem: Problem) -> dict | None:
    if not engine(problem.board).legal(problem.start) and not problem.goal.satisfied(problem.start):
        return {"reason": "no-jump"}
    return None


def _classes(problem: Problem) -> dict | None:
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
    return {"weightings": items}


def _pagoda(problem: Problem) -> dict | None:
    w = pagoda.find(problem)
    if w is None:
        return None
    return {"weights": {problem.board.names[h]: str(v) for h, v in sorted(w.items())}}


def _searchable(problem: Problem) -> bool:
    from .planners.moves import goal_positions

    if problem.board.n > 64:
        return False
    goals = goal_positions(problem)
    return bool(goals) and len({g.bit_count() for g in goals}) == 1


def _exhaustive(problem: Problem, deadline: Deadline, t0: float) -> Proven:
    from .planners import layers
    from .planners.base import Config

    r = layers.solve(problem, deadline, Config())
    stats = {"total_s": time.perf_counter() - t0}
    if r.status is Status.UNKNOWN:
        return Proven(Status.UNKNOWN, detail=f"{r.detail} (try --sat for the SAT route)", stats=stats)
    if r.plan is not None:
        try:
            replay_plan(problem, r.plan)
        except PlanError as exc:
            return Proven(Status.ERROR, detail=f"the search's plan does not replay: {exc}", stats=stats)
        return Proven(Status.SOLVED, plan=r.plan, detail="not unsolvable: the exhaustive search found a plan",
                      stats=stats)
    rec = r.stats["record"]
    ev = {k: rec[k] for k in ("pagodas", "forward_levels", "backward_levels", "self_dual")}
    return _checked(problem, "exhaustive", ev, Path("."), t0)


def _sat(problem: Problem, deadline: Deadline, cnf_path, proof_path, solver: str, second: str,
         t0: float, base: Path | None) -> Proven:
    import tempfile

    from .dimacs import export, read_instance
    from .encoder import EncodeOptions
    from .planners.sat import SolverProcess

    with tempfile.TemporaryDirectory() as tmp:
        cnf = Path(cnf_path) if cnf_path else Path(tmp) / "instance.cnf"
        drat = Path(proof_path) if proof_path else Path(tmp) / "proof.drat"
        info = export(problem, cnf, EncodeOptions())
        f, clauses = read_instance(cnf)
        stats: dict[str, Any] = {"variables": info.variables, "clauses": info.clauses,
                                 "horizon": info.horizon}
        answers = {}
        for name, proof in ((solver, str(drat)), (second, None)):
            proc = SolverProcess(name, clauses.clauses, [[]], proof_path=proof)
            t = time.perf_counter()
            try:
                got = proc.poll(deadline.remaining())
            finally:
                proc.stop()
            stats[f"{name}_s"] = time.perf_counter() - t
            if got is None:
                return Proven(Status.UNKNOWN, detail=f"time limit: {name} had not answered "
                              f"({info.variables} variables, {info.clauses} clauses)", stats=stats)
            kind, payload = got
            if kind == "error":
                return Proven(Status.ERROR, detail=f"{name}: {payload}", stats=stats)
            if kind == "sat":
                plan = f.decode({v for v in payload[1] if v > 0})
                try:
                    replay_plan(problem, plan)
                except PlanError as exc:
                    return Proven(Status.ERROR, detail=f"{name}'s model does not replay: {exc}", stats=stats)
                return Proven(Status.SOLVED, plan=plan, detail=f"not unsolvable: {name} found a plan",
                              stats=stats)
            answers[name] = kind
        stats["total_s"] = time.perf_counter() - t0
        if cnf_path is None or proof_path is None:
            return Proven(Status.UNSOLVABLE, "sat", None, stats=stats,
                          detail=f"UNSAT at the full horizon ({info.horizon} steps) by {solver} and "
                          f"{second}; pass --proof to keep the DRAT proof and the CNF")
        base = base or cnf.parent
        ev = {"cnf": _rel(cnf, base), "cnf_sha256": certificate.sha256(cnf),
              "proof": _rel(drat, base), "proof_sha256": certificate.sha256(drat),
              "solvers": [solver, second], "horizon": info.horizon}
        return _checked(problem, "sat", ev, base, t0)


def _rel(path: Path, base: Path) -> str:
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path.resolve())
