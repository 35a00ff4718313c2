"""The one result every command returns, its statuses and their exit codes.

As in unified-planning's ``PlanGenerationResultStatus``: a status says what the user needs to
know, a proof kind says how an "unsolvable" was established (never by a time limit), and a
certificate, when there is one, lets anyone check it (``checks.certificate``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypedDict, cast

from .problem import Problem

Plan = tuple[int, ...]  # jump ids, in the order played

class Stats(TypedDict, total=False):
    """A result's diagnostics: shown by ``--json`` and in the closing line of the text output,
    never steered on. Every key a planner may set is declared here (``tests/test_api.py``
    checks the planners set no other); which of them a result has depends on its planner."""

    # what a depth-first descent counted (``engine.dfs``, the compiled core's ``stats()``)
    nodes: int  # positions expanded
    stored: int  # positions stored in the dead table (the core's name)
    dead_positions: int  # the same, as ``engine.dfs.Search`` reports it
    table_hits: int  # positions found dead in the table
    pagoda_cuts: int  # positions cut by a pagoda bound
    target_lookups: int  # lookups in the table of positions known to reach the goal
    descents: int  # descents of ``engine.dfs.Search`` (restarts with a larger budget)

    # seconds
    encode_s: float  # building the formula (SAT, CP-SAT); 0 for the searches
    solve_s: float  # the solver or search
    total_s: float  # the whole command, as ``apps.solve`` measured it
    search_s: float  # a level search (``layers``, ``moves``)
    upper_s: float  # ``moves``: the first plan, the upper bound
    learn_s: float  # ``search``: learning pagoda functions
    beam_s: float  # ``search``: the beam turn
    lp_s: float  # ``layers``: the LPs that learn pagodas
    solver_s: dict[str, float]  # ``prove``: each SAT solver's time, by its name
    # the SAT and CP-SAT planners
    solver: str
    variables: int
    clauses: int
    horizon: int  # the horizon of the last formula
    attempts: list[int]  # every horizon tried
    workers: int  # CP-SAT's workers, the search's portfolio members
    # the searches
    winner: int | str  # the portfolio member (``search``), the planner (``auto``) that answered
    engine: str  # "reference": the pure-Python search ran
    pagodas: int  # pagoda functions used
    lp_calls: int
    positions: int  # positions kept by a level search
    disk_bytes: int  # out of core: the level files' bytes
    forward_levels: list[int]  # positions per level, from the start
    backward_levels: list[int]  # positions per level, from the goal
    self_dual: bool  # ``layers``: the backward search is the forward one mirrored
    merson_bound: int  # ``moves``: Merson's lower bound on the moves
    pruned: int  # ``moves``: positions cut by the pagoda and Merson bounds
    symmetries: int  # ``moves``: the symmetry group's order
    games: int  # ``search``: the games (survivors, directions) it took turns on
    survivor: str  # the survivor of the game that was solved
    subproblems: int  # games tried one survivor at a time
    beam_width: int
    beams: int
    region_radius: int  # ``search``: the region a plan was found in
    region_holes: int
    regions_tried: int
    dead_set: int  # ``prove``: the certificate's dead positions
    repaired: int  # ``prove``: pagoda floors repaired

def summed(total: Stats, more: Stats, latest: tuple[str, ...] = ()) -> Stats:
    """``total`` with the numbers of ``more`` added to it; the keys in ``latest`` take
    ``more``'s value instead, and what is not a number is left out."""
    out: dict[str, Any] = dict(total)
    for k, v in more.items():
        if k in latest:
            out[k] = v
        elif isinstance(v, int | float) and not isinstance(v, bool):
            out[k] = out.get(k, 0) + v
    return cast(Stats, out)


CERTIFICATE_FORMAT, CERTIFICATE_VERSION = "pegsat-certificate", 1


class Certificate(TypedDict):
    """A checkable record of a proof (``checks.certificate``): what it is, its own problem by
    hole names (``model.codec``), and the evidence of its kind."""

    format: str  # "pegsat-certificate"
    version: int
    kind: str  # one of ``checks.certificate.KINDS`` (its registry of checkers)
    problem: dict[str, Any]
    evidence: dict[str, Any]


def certificate(problem: Problem, kind: str, evidence: dict[str, Any]) -> Certificate:
    """A certificate of ``kind`` for ``problem`` with its evidence (checked by
    ``checks.certificate.check``)."""
    from .codec import problem_to_json

    return {"format": CERTIFICATE_FORMAT, "version": CERTIFICATE_VERSION, "kind": kind,
            "problem": problem_to_json(problem), "evidence": evidence}


class Status(Enum):
    SOLVED_OPTIMAL = "solved-optimal"  # a plan with the fewest moves, and the proof of it
    SOLVED = "solved"  # a plan (replayed by the verifier)
    UNSOLVABLE = "unsolvable"  # a finished proof that no plan exists
    UNKNOWN = "unknown"  # the time limit came first (maybe with a plan whose optimum is open)
    UNSUPPORTED = "unsupported"  # the planner does not handle this kind of problem
    ERROR = "error"  # something went wrong inside (a plan that did not replay, a crash)

    @property
    def solved(self) -> bool:
        return self in (Status.SOLVED, Status.SOLVED_OPTIMAL)


#: Exit codes of the command line, by status (130: interrupted by Ctrl-C).
EXIT = {Status.SOLVED_OPTIMAL: 0, Status.SOLVED: 0, Status.UNSOLVABLE: 10, Status.UNKNOWN: 20,
        Status.UNSUPPORTED: 2, Status.ERROR: 1}
INTERRUPTED = 130


class Proof(Enum):
    """How an "unsolvable" was established. Never a timeout."""

    COUNTING = "counting"  # no legal jump, or too few pegs
    INVARIANT = "invariant"  # GF(2) position classes
    PAGODA = "pagoda"  # a pagoda function under which the goal outweighs the start
    UNSAT = "unsat"  # the SAT solver refuted the full horizon
    CP_INFEASIBLE = "cp-infeasible"  # CP-SAT proved the model infeasible
    EXHAUSTED = "exhausted-search"  # every reachable position explored
    SPLIT = "split"  # every survivor either ruled out by the invariant or refuted
    DUAL = "dual"  # the time-reversed game (vacancy and survivor swapped) was refuted


#: the certificate kind (``checks.certificate``) that records each kind of proof
CERTIFICATE_KIND = {Proof.COUNTING: "counting", Proof.INVARIANT: "classes", Proof.PAGODA: "pagoda",
                    Proof.EXHAUSTED: "exhaustive", Proof.UNSAT: "sat"}


@dataclass(frozen=True)
class Result:
    status: Status
    problem: Problem
    planner: str
    plan: Plan | None = None
    moves: int | None = None
    proof: Proof | None = None
    detail: str = ""
    stats: Stats = field(default_factory=lambda: Stats())
    lower_bound: int | None = None  # minimum-moves mode: proven fewest moves of any plan
    certificate: Certificate | None = None  # a checkable record of the proof

    def __repr__(self) -> str:
        said = [self.status.value, self.problem.describe()]
        if self.plan is not None:
            said.append(f"{len(self.plan)} jumps" + ("" if self.moves is None else f", {self.moves} moves"))
        if self.proof is not None:
            said.append(f"proof: {self.proof.value}")
        return f"<Result {'; '.join(said)} (by {self.planner})>"

    @property
    def optimal(self) -> bool:
        return self.status is Status.SOLVED_OPTIMAL

    @property
    def exit_code(self) -> int:
        return EXIT[self.status]

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON values: each jump of the plan as its three hole names
        (from, over, to)."""
        names = self.problem.board.names
        jumps = self.problem.board.jumps
        return {"status": self.status.value, "problem": self.problem.describe(),
                "board": self.problem.board.name, "planner": self.planner,
                "proof": self.proof.value if self.proof else None, "kind": self.kind, "detail": self.detail,
                "plan": None if self.plan is None else [[names[h] for h in jumps[k]] for k in self.plan],
                "moves": self.moves, "lower_bound": self.lower_bound, "optimal": self.optimal,
                "stats": dict(self.stats)}

    @property
    def kind(self) -> str | None:
        """The certificate kind of the proof (counting, classes, pagoda, exhaustive, sat)."""
        if self.certificate is not None:
            return self.certificate["kind"]
        return CERTIFICATE_KIND.get(self.proof) if self.proof else None
