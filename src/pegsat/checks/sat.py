"""``sat``: the time-indexed CNF at the full horizon is UNSAT: the CNF file, the DRAT proof file
(the standard clausal proof format drat-trim reads) and their SHA-256, and the two solvers that
agreed. Checking re-encodes the problem of the CNF's header, compares every clause, checks it is
this certificate's problem at the full horizon, then replays the DRAT proof with published
checkers (``checks.drat``: dratify in-process always, drat-trim too when it is on PATH). The
encoding's correctness is the one thing trusted.
"""

from __future__ import annotations

from ..model.codec import problem_to_json
from ..model.problem import Problem
from . import drat
from .evidence import Context, companion, sha256
from .verdict import Verdict, holds, rejected, unsettled


def check_sat(problem: Problem, ev: dict, ctx: Context) -> Verdict:
    """A ``sat`` certificate: the CNF re-encoded and compared, its DRAT proof replayed."""
    base, staged, deadline = ctx.base, ctx.staged, ctx.deadline
    cnf = companion(base, ev["cnf"], staged)
    proof = companion(base, ev["proof"], staged)
    for f, key in ((cnf, "cnf_sha256"), (proof, "proof_sha256")):
        if not f.is_file():
            return rejected(f"{f} is missing")
        if sha256(f) != ev[key]:
            return rejected(f"{f} does not match its SHA-256 in the certificate")
    from ..encoding.dimacs import read_instance
    from ..errors import DimacsError

    try:
        formula, _ = read_instance(cnf)  # re-encodes the header's problem, compares every clause
    except DimacsError as exc:  # an edited or foreign CNF: the certificate fails, it is not unreadable
        return rejected(str(exc))
    if formula.short:
        return rejected("the CNF has a short horizon; its UNSAT proves nothing")
    mine, theirs = problem_to_json(formula.problem), problem_to_json(problem)
    for key in ("board", "start", "goal"):
        if mine[key] != theirs[key]:
            return rejected(f"the CNF encodes another problem ({key} differs)")
    verdicts = drat.check(cnf, proof, deadline)
    said = "; ".join(v.reason for v in verdicts)
    if any(v.refused for v in verdicts):
        return rejected(f"{said}")
    if any(not v.finished for v in verdicts):
        return unsettled(f"{said}")
    return holds(f"CNF matches the problem's encoding at the full horizon; UNSAT by "
            f"{' and '.join(ev['solvers'])}; {said}")
