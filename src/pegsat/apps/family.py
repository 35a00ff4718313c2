"""A family of DIMACS instances with known answers, for SAT researchers (``bench/family.py``).

Each instance is a peg solitaire problem encoded at a horizon (``pegsat export``: the header
describes the problem, the encoding and every variable, and ``pegsat decode`` turns a model
into a replayed plan), with its answer and the evidence for it, known to pegsat by means that
do not trust the instance's own solving:

- unsatisfiable when the problem has no plan at all, by pegsat's proof of it (position
  classes, a pagoda, an exhausted search: ``pegsat prove`` writes a certificate ``pegsat
  check`` verifies); a formula at any horizon of such a problem is unsatisfiable;
- satisfiable at the full horizon (one jump a step) when pegsat finds a plan and replays it;
- at a short horizon (fewer parallel steps than jumps), satisfiable when a solver's model
  decodes to a replayed plan, unsatisfiable when CaDiCaL's DRAT proof is verified by dratify;
  unknown otherwise (listed as such).

The family spans boards, goals, horizons and encodings (process semantics on and off), from
instances solved in milliseconds to ones a solver does not finish in minutes. ``write`` writes
the CNF files, ``family.json`` (every instance's problem, horizon, encoding, size, answer,
evidence and solve times) and ``README.md`` (the description SAT competitions ask of a
benchmark's submitters).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..deadline import Deadline
from ..encoding.dimacs import export, read_instance
from ..encoding.encoder import EncodeOptions
from ..engine.bitboard import replay_plan
from ..files import write_atomic
from ..formats.notation import format_plan
from ..model.catalogue import get_board
from ..model.problem import Goal, Problem, single_vacancy
from ..model.result import Status


@dataclass(frozen=True)
class Spec:
    """One instance: a board's single vacancy to a single survivor, at ``steps`` parallel
    steps (None: the full horizon, one step a jump), with ``process`` semantics or not, with the
    position class imposed at every step (``classes``) or not."""

    board: str
    vacant: str
    survivor: str
    steps: int | None = None
    process: bool = True
    classes: bool = False

    @property
    def name(self) -> str:
        """The file's name: board, vacancy, survivor, horizon, semantics (and classes)."""
        horizon = "full" if self.steps is None else f"h{self.steps}"
        extra = "-classes" if self.classes else ""
        semantics = "proc" if self.process else "plain"
        return f"{self.board}-{self.vacant}-{self.survivor}-{horizon}-{semantics}{extra}"

    def problem(self) -> Problem:
        """The problem the instance encodes."""
        b = get_board(self.board)
        return single_vacancy(b, b.hole(self.vacant), Goal.survivor(b, b.hole(self.survivor)))


def _both(board: str, vacant: str, survivor: str, *steps: int | None) -> list[Spec]:
    return [Spec(board, vacant, survivor, s, p) for s in steps for p in (True, False)]


def _parity(board: str, vacant: str, survivor: str) -> list[Spec]:
    """A problem the position classes refute, at the full horizon: plain, with process
    semantics, and with the class at every step (the parity argument as clauses)."""
    return [*_both(board, vacant, survivor, None), Spec(board, vacant, survivor, None, True, True)]


#: the tests' family: triangle-5, milliseconds each (the parity problem's plain encoding, which
#: takes CaDiCaL ~20 s, stays in the whole family only)
SMALL = [*_both("triangle-5", "a1", "a1", None, 5), *_both("triangle-5", "b3", "b3", None),
         *(s for s in _parity("triangle-5", "a1", "c3") if s.process)]
#: the family: easy to hard (the English central game needs at least 13 parallel steps)
FAMILY = [*SMALL, Spec("triangle-5", "a1", "c3", None, False), *_both("triangle-6", "a1", "a1", None),
          *_both("english", "d4", "d4", None, 12, 13, 16, 22),
          *_both("english", "d4", "a4", None), *_parity("english", "d4", "c4"),
          *_both("french", "c1", "e1", None, 14), *_both("german", "e5", "e5", None, 19)]


def _known(problem: Problem, spec: Spec, path: Path, limit: float) -> tuple[str, str]:
    """(answer, evidence) of an instance, by the means of the module's docstring."""
    from .solve import solve

    whole = solve(problem, "auto", deadline=Deadline(limit))
    if whole.status is Status.UNSOLVABLE:
        return "unsat", f"the problem has no plan ({whole.proof.value if whole.proof else whole.detail})"
    if whole.status is Status.SOLVED and whole.plan is not None:
        steps = parallel_steps(problem, whole.plan)
        if spec.steps is None or steps <= spec.steps:  # it fits, empty steps after it
            replay_plan(problem, whole.plan)
            return "sat", (f"a plan of {len(whole.plan)} jumps in {steps} parallel steps, replayed: "
                           f"{format_plan(problem.board, whole.plan)}")
    return _by_solving(path, limit)


def parallel_steps(problem: Problem, plan: tuple[int, ...]) -> int:
    """The parallel steps a plan takes with every jump at its earliest step (one after the last
    earlier jump sharing a hole with it)."""
    masks = [1 << a | 1 << b | 1 << c for a, b, c in problem.board.jumps]
    at: list[int] = []
    for i, k in enumerate(plan):
        at.append(1 + max((at[j] for j in range(i) if masks[plan[j]] & masks[k]), default=0))
    return max(at, default=0)


def _by_solving(path: Path, limit: float) -> tuple[str, str]:
    """A short horizon's answer from CaDiCaL: a model decoded and replayed, or a DRAT proof
    verified by dratify; "unknown" past ``limit``."""
    import tempfile

    from ..checks import drat
    from ..planners.sat import SolverProcess

    f, cnf = read_instance(path)
    with tempfile.TemporaryDirectory(prefix="pegsat-family-") as tmp:
        proof = Path(tmp) / "proof.drat"
        proc = SolverProcess("cadical195", cnf.clauses, [[]], str(proof))
        try:
            got = proc.poll(Deadline(limit))
        finally:
            proc.stop()
        if got is None or got[0] not in ("sat", "unsat"):
            return "unknown", f"CaDiCaL did not answer within {limit:g} s"
        if got[0] == "sat":
            plan = f.decode({v for v in got[1][1] if v > 0})
            replay_plan(f.problem, plan)
            return "sat", f"a model decoded to a replayed plan: {format_plan(f.problem.board, plan)}"
        said = drat.check(path, proof, Deadline(10 * limit))
        if all(v.ok for v in said):
            return "unsat", "CaDiCaL's DRAT proof, verified: " + "; ".join(v.reason for v in said)
        return "unknown", "CaDiCaL said UNSAT, its proof not verified: " + "; ".join(v.reason for v in said)


def solve_time(path: Path, solver: str, limit: float) -> float | None:
    """Seconds ``solver`` (python-sat's) takes on the CNF file, or None past ``limit``."""
    from pysat.formula import CNF

    from ..planners.sat import SolverProcess

    clauses = CNF(from_file=str(path)).clauses
    t0 = time.perf_counter()
    proc = SolverProcess(solver, clauses, [[]])
    try:
        got = proc.poll(Deadline(limit))
    finally:
        proc.stop()
    return time.perf_counter() - t0 if got is not None and got[0] in ("sat", "unsat") else None


def write(out: Path, specs: list[Spec], limit: float = 60.0,
          solvers: tuple[str, ...] = ("cadical195", "glucose4"), say: Any = None) -> list[dict[str, Any]]:
    """Write the family of ``specs`` into ``out`` (see the module's docstring); each answer
    and solve time within ``limit`` seconds. ``say`` hears a line an instance."""
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for spec in specs:
        problem = spec.problem()
        path = out / f"{spec.name}.cnf"
        options = replace(EncodeOptions(), process=spec.process, classes=spec.classes)
        info = export(problem, path, options, steps=spec.steps)
        answer, evidence = _known(problem, spec, path, limit)
        times = {s: solve_time(path, s, limit) for s in solvers}
        row = {"file": path.name, "problem": problem.describe(), "board": spec.board,
               "jumps": problem.pegs - 1, "horizon": info.horizon, "short": info.horizon < problem.pegs - 1,
               "process": spec.process, "classes": spec.classes,
               "variables": info.variables, "clauses": info.clauses, "answer": answer, "evidence": evidence,
               "seconds": times, "limit": limit}
        rows.append(row)
        if say is not None:
            say(row)
    write_atomic(out / "family.json", lambda fh: fh.write(json.dumps(rows, indent=1) + "\n"))
    write_atomic(out / "README.md", lambda fh: fh.write(description(rows)))
    return rows


def description(rows: list[dict[str, Any]]) -> str:
    """The family's description, in the form SAT competitions ask of benchmark submitters."""
    sat = sum(r["answer"] == "sat" for r in rows)
    unsat = sum(r["answer"] == "unsat" for r in rows)
    lines = [
        "# Peg solitaire: time-indexed planning formulas (pegsat)",
        "",
        "**Source.** Peg solitaire: a peg jumps over a neighbour into an empty hole and the jumped peg is "
        "removed; a problem asks for jumps from a start position to a goal. Each file encodes one problem "
        "on one board (English 33 holes, French 37, German 45, triangular) at a horizon, written by "
        "`pegsat export`; the family is written by `bench/family.py` of the pegsat repository.",
        "",
        "**Encoding.** Variables peg(h, t) (hole h holds a peg after step t) and jump(k, t) (jump k at "
        "step t); the start and goal as units; preconditions, effects and explanatory frame axioms; "
        "parallel steps (any set of jumps on disjoint holes; Rintanen, Heljanko and Niemela 2006); the "
        "first step broken by the problem's symmetries; with process semantics (files `-proc`) every jump "
        "after the first step shares a hole with one of the step before, so each plan has one model; with "
        "the position classes (files `-classes`) the parity of the pegs on every weighting even on every "
        "line is fixed at every step by chains of XOR gates, which makes a problem the classes refute "
        "easy, where the plain clauses hide that parity argument from the solver. At "
        "the full horizon (one step a jump) the formula is satisfiable exactly when the problem has a "
        "plan; at a short one (`-hN`) a model is a plan and UNSAT says only that no plan fits N steps.",
        "",
        "**Header.** Each file's `c` lines give the problem, the encoding, the horizon, a fingerprint of "
        "the clauses and the meaning of every variable; `pegsat decode FILE MODEL` replays a model.",
        "",
        f"**Answers.** {sat} satisfiable, {unsat} unsatisfiable, {len(rows) - sat - unsat} unknown "
        "(`family.json`: each file's answer and its evidence: a replayed plan, pegsat's proof that the "
        "problem has no plan, or CaDiCaL's DRAT proof verified by dratify).",
        "",
        "| file | vars | clauses | answer | " + " | ".join(f"{s} (s)" for s in rows[0]["seconds"]) + " |"
        if rows else "",
        "|---|---|---|---|" + "---|" * (len(rows[0]["seconds"]) if rows else 0),
    ]
    for r in rows:
        secs = " | ".join("-" if t is None else f"{t:.2f}" for t in r["seconds"].values())
        lines.append(f"| {r['file']} | {r['variables']} | {r['clauses']} | {r['answer']} | {secs} |")
    lines += ["", "Times: python-sat's solvers in a child process, on the machine the family was written on; "
              f"'-' is past the limit ({rows[0]['limit'] if rows else 0:g} s).", ""]
    return "\n".join(lines)
