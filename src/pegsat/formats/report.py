"""Results as people and programs read them: the text the command line prints and its JSON.

Everything the CLI prints about a result is decided here, so that the CLI only parses and
calls. ``result_json`` is the ``--json`` form (stable keys: status, problem, board, planner,
proof, detail, stats; a plan's text, jumps and moves; a lower bound and optimality in
minimum-moves mode).
"""

from __future__ import annotations

from typing import Any

from ..engine.bitboard import replay_plan
from ..model.result import Result
from . import pddl
from .display import render
from .notation import format_plan


def record(r: Result) -> dict[str, Any]:
    """The one record of a result that is written down (``--json``, batch results): status,
    planner, proof, detail, and a plan in hole names with its moves and, in minimum-moves
    mode, whether they are proven the fewest."""
    return {"status": r.status.value, "planner": r.planner, "proof": r.proof.value if r.proof else None,
            "detail": r.detail, "moves": r.moves, "optimal": r.optimal if r.lower_bound is not None else None,
            "plan": format_plan(r.problem.board, r.plan) if r.plan is not None else None}


def result_json(r: Result) -> dict[str, Any]:
    """``--json`` of ``solve``: the record, the problem, its statistics, the plan's jumps."""
    b = r.problem.board
    rec = record(r)
    out: dict[str, Any] = {
        "status": rec["status"],
        "problem": r.problem.describe(),
        "board": b.name,
        "planner": rec["planner"],
        "proof": rec["proof"],
        "detail": rec["detail"],
        "stats": r.stats,
    }
    if r.plan is not None:
        out.update(plan=rec["plan"], jumps=[list(b.jumps[k]) for k in r.plan], jump_count=len(r.plan),
                   moves=r.moves)
    if r.lower_bound is not None:
        out.update(lower_bound=r.lower_bound, optimal=r.optimal)
    return out


def error_json(message: str) -> dict[str, Any]:
    """What ``--json`` prints when there is no result: bad input, a failed check."""
    return {"status": "error", "message": message}


def positions_text(r: Result) -> list[str]:
    """Every position of the result's plan, drawn."""
    out: list[str] = []
    for i, pos in enumerate(replay_plan(r.problem, r.plan or ()).positions):
        out.append(f"\nafter {i} jumps:" if i else "\nstart:")
        out.append(render(r.problem.board, pos))
    return out


def solve_text(r: Result, notation: str = "names", task: pddl.Task | None = None,
               positions: bool = False) -> list[str]:
    """The lines of ``pegsat solve``: the problem, the verdict, the plan, the time."""
    out = [f"problem: {r.problem.describe()}"]
    line = f"{r.status.value} by {r.planner}"
    if r.proof:
        line += f" (proof: {r.proof.value})"
    if r.detail:
        line += f": {r.detail}"
    out.append(line)
    if r.plan is not None:
        out.append(f"{len(r.plan)} jumps, {r.moves} moves:")
        out.append(format_plan(r.problem.board, r.plan, notation, task))
        if positions:
            out += positions_text(r)
    st = r.stats
    if "lp_calls" in st:
        out.append(f"time: {st.get('total_s', 0):.2f} s ({st['positions']} positions kept, {st['pagodas']} "
                   f"pagodas learned by {st['lp_calls']} LPs in {st['lp_s']:.1f} s)")
    elif "search_s" in st and "upper_s" in st and r.planner == "layers":  # by jumps: no first plan
        out.append(f"time: {st.get('total_s', 0):.2f} s ({st['positions']} positions)")
    elif "search_s" in st and "upper_s" in st:
        out.append(f"time: {st.get('total_s', 0):.2f} s (first plan {st.get('upper_s', 0):.2f} s, "
                   f"search by moves {st['search_s']:.2f} s, {st['positions']} positions)")
    else:
        out.append(f"time: {st.get('total_s', 0):.2f} s (encode {st.get('encode_s', 0):.2f} s, "
                   f"solve {st.get('solve_s', 0):.2f} s)")
    return out


def prove_json(r: Result, certificate_path: str | None) -> dict[str, Any]:
    """``prove --json``."""
    return {"status": r.status.value, "kind": r.kind, "detail": r.detail,
            "certificate": certificate_path if r.certificate and certificate_path else None,
            "plan": format_plan(r.problem.board, r.plan) if r.plan else None, "stats": r.stats}


def prove_text(r: Result, certificate_path: str | None) -> list[str]:
    """The lines ``prove`` prints."""
    kind = r.kind
    out = [f"problem: {r.problem.describe()}",
           r.status.value + (f" (proof: {kind})" if kind else "") + f": {r.detail}"]
    if r.plan is not None:
        out.append(format_plan(r.problem.board, r.plan))
    if r.certificate is not None and certificate_path:
        ev = r.certificate["evidence"]
        files = f" (CNF {ev['cnf']}, DRAT proof {ev['proof']})" if kind == "sat" else ""
        out.append(f"certificate: {certificate_path}{files}")
    return out


def verify_json(problem, rep) -> dict[str, Any]:
    """``verify --json``."""
    b = problem.board
    return {"valid": True, "problem": problem.describe(), "jumps": rep.jumps, "moves": rep.moves,
            "plan": format_plan(b, rep.plan), "final": [b.names[h] for h in range(b.n) if rep.final >> h & 1]}


def verify_text(problem, rep, positions: bool = False) -> list[str]:
    """The lines ``verify`` prints."""
    out = []
    if positions:
        for i, pos in enumerate(rep.positions):
            out.append(f"after {i} jumps:" if i else "start:")
            out.append(render(problem.board, pos))
    out.append(f"valid: {problem.describe()} in {rep.jumps} jumps and {rep.moves} moves")
    return out
