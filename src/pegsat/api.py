"""pegsat as a library: the functions ``import pegsat`` offers, one per thing a user asks.

Problems are posed as on the command line (a catalogue board, a board file, a TOML problem
file or an IPC PDDL file, with the same options as keyword arguments), or built in Python
from a board and positions. Every function takes ``time_limit`` seconds (None: no limit) and
returns a typed value with ``to_dict()``: ``solve`` and ``prove`` a ``Result`` (status, plan,
moves, proof, stats; a plan is returned only after the verifier replayed it), ``check`` a
``Verdict``, ``count`` a ``Census``, ``hint`` a ``Hints``, ``survey`` a ``Table``.

    >>> import pegsat
    >>> p = pegsat.problem("english", survivor="d4")
    >>> r = pegsat.solve(p, min_moves=True)
    >>> r.status.value, r.moves, r.lower_bound
    ('solved-optimal', 18, 18)

In Jupyter, boards, problems, positions and results draw themselves (``_repr_svg_``,
``_repr_html_``): the methods are added to the model's classes here, at the top of the
layers, so the model stays free of drawing code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .deadline import Deadline
from .errors import PegsatError
from .model.board import Board, parse_holes
from .model.options import ProblemOptions
from .model.problem import Problem, bits
from .model.result import Result, Status

__all__ = ["Board", "Hints", "Position", "Problem", "Result", "Status", "board", "check", "count", "hint",
           "position", "problem", "prove", "solve", "survey", "verify"]


def board(spec: str) -> Board:
    """A catalogue board by name (``"english"``, ``"triangle-5"``, ``"square-4x6"``) or a board
    file's path.

    >>> pegsat.board("french").n
    37
    """
    from .model.boardfile import load_board

    return load_board(spec)


def problem(spec: str | Board, *, domain: str | None = None, **options: Any) -> Problem:
    """A problem: ``spec`` is a board (a ``Board``, a catalogue name, a board file), a TOML
    problem file or an IPC PDDL problem file (``domain``: its domain file, else
    ``domain.pddl`` beside it). ``options`` are the command line's problem options:
    ``vacant``, ``start``, ``survivor``, ``pegs``, ``at_most``, ``pattern``, ``full``,
    ``empty``, ``special``; holes by name or id, as a string or a list.

    >>> pegsat.problem("english").describe()
    'english: vacancy d4 -> 1 peg left'
    >>> pegsat.problem("triangle-5", vacant="a1", survivor="a1").describe()
    'triangle-5: vacancy a1 -> one peg at a1'
    """
    from .apps.pose import pose

    try:
        opts = ProblemOptions(**options)
    except TypeError:
        known = ", ".join(f.name for f in ProblemOptions.cli_fields())
        raise PegsatError(f"unknown problem option among {sorted(options)}; the options are "
                          f"{known}") from None
    if isinstance(spec, Board):
        return opts.pose(spec)
    return pose(str(spec), opts, domain=domain).problem


@dataclass(frozen=True)
class Position:
    """A position on a board (``pegs``: one bit per hole id), drawn in Jupyter."""

    board: Board
    pegs: int

    @property
    def holes(self) -> list[str]:
        return [self.board.names[h] for h in range(self.board.n) if self.pegs >> h & 1]

    def _repr_svg_(self) -> str:
        from .formats.svg import board_svg

        return board_svg(self.board, pegs=self.pegs)

    def __str__(self) -> str:
        from .formats.display import render

        return render(self.board, self.pegs)


def position(on: Board | str, holes: str | Iterable[str | int]) -> Position:
    """The position with pegs on ``holes`` (names or ids).

    >>> pegsat.position("english", "c1 d1 e1").holes
    ['c1', 'd1', 'e1']
    """
    b = board(on) if isinstance(on, str) else on
    return Position(b, bits(parse_holes(b, holes)))


def _posed(p: Problem | Board | str, options: dict[str, Any]) -> Problem:
    """``p`` as a problem: a ``Problem`` as it is, else ``problem(p, **options)``."""
    if isinstance(p, Problem):
        if options:
            raise PegsatError(f"problem options {sorted(options)} with a posed Problem: give them to "
                              "pegsat.problem(...), or pass the board's name here")
        return p
    if isinstance(p, str | Board | Path):
        return problem(str(p) if isinstance(p, Path) else p, **options)
    raise PegsatError(f"a problem is a Problem, a board or its name, not {type(p).__name__}")


def _flag(value: object, what: str) -> bool:
    """``value`` when it is a bool; a one-line error otherwise (``rebuild="no"`` must not rebuild)."""
    if not isinstance(value, bool):
        raise PegsatError(f"{what} must be True or False, not {value!r:.40}")
    return value


def _directory(value: str | Path | None, what: str) -> Path | None:
    """A directory argument: None, or a non-empty path (``""`` would be the current directory)."""
    if value is None:
        return None
    if not isinstance(value, str | Path) or not str(value).strip():
        raise PegsatError(f"{what}: give a directory (an empty name would be the current directory)")
    return Path(value)


def solve(p: Problem | Board | str, planner: str = "auto", *, min_moves: bool = False,
          time_limit: float | None = None, workers: int | None = None, solver: str = "cadical195",
          spill: str | Path | None = None, upper_plan: str | Sequence[int] | None = None,
          disk_limit: int | str | None = None, certificate: str | Path | None = None,
          **options: Any) -> Result:
    """A plan (replayed by the verifier), a proof that there is none, or "unknown" past
    ``time_limit``. ``min_moves``: the fewest moves and the proof that none has fewer. The
    level searches (``min_moves``, ``planner="layers"``) put their levels on disk, on a local
    Dask cluster of ``workers`` processes, in ``spill`` (a directory: from the start,
    resumable) or in a temporary directory once they would pass the memory budget
    (``docs/planners.md``); ``spill`` with another planner is an error. ``disk_limit``: the
    most bytes their directory may hold (a level whose buckets do not fit is built in rounds;
    default: 80% of the disk's free space). A search by jumps that exhausts a self-dual
    problem in ``spill`` leaves its ``levels`` certificate there (``result.certificate``,
    and ``spill/certificate.json``). ``upper_plan``: with
    ``min_moves``, a plan you know (text in any notation, or another result's ``plan``),
    replayed: its moves bound the search, which looks only for fewer. ``certificate``: with
    ``min_moves``, the ``moves`` certificate of the fewest moves is written there (JSON, its
    level files beside it; ``result.certificate``), for ``check`` or ``pegsat check``; with
    ``spill``, it is ``spill/certificate.json``, naming the levels there. ``p`` may also be
    a board's name (or a board file, a problem file) with the problem options as keywords,
    as ``problem`` takes them: ``pegsat.solve("english", survivor="d4")``.

    >>> r = pegsat.solve(pegsat.problem("triangle-5", vacant="a1"))
    >>> r.status.value, len(r.plan)
    ('solved', 13)
    """
    from .apps.solve import solve as run
    from .limits import size
    from .planners.config import Config
    from .planners.sat import check_solver
    from .process import worker_count

    p = _posed(p, options)
    check_solver(solver)
    _flag(min_moves, "min_moves")
    spill = _directory(spill, "spill")
    disk_limit = None if disk_limit is None else size(disk_limit, "disk_limit")
    config = Config(solver=solver)
    if workers is not None:
        config = replace(config, workers=worker_count(workers, "workers"))
    if upper_plan is not None:
        from .apps.verify import given_plan

        if not min_moves:
            raise PegsatError("upper_plan bounds a search for the fewest moves: add min_moves=True")
        config = replace(config, upper_plan=given_plan(p, upper_plan))
    from .planners import ON_DISK
    from .planners.config import Disk

    if certificate is not None and not (min_moves or planner == "moves"):
        raise PegsatError("certificate= certifies the fewest moves: add min_moves=True (prove() writes "
                          "certificates of unsolvability)")
    if certificate is not None and spill is not None:
        from .planners.ondisk import SPILLED

        raise PegsatError(f"certificate= with spill=: {SPILLED}")
    planner = "moves" if min_moves else planner
    if spill is not None and planner not in ON_DISK:
        raise PegsatError(f"spill: a level search on disk (min_moves, or planner 'layers'), not {planner!r}")
    where = None if spill is None else Path(spill)
    config = replace(config, disk=Disk(where, first=where is not None, limit=disk_limit))
    deadline = Deadline(time_limit)
    r = run(p, planner, config, deadline)
    if certificate is None:
        return r
    from .apps.solve import certify_fewest

    return certify_fewest(r, certificate, deadline)


def prove(p: Problem, *, time_limit: float | None = None, certificate: str | Path | None = None,
          sat: bool = False, progress: Callable[[str], None] | None = None) -> Result:
    """Refute ``p`` with the cheapest argument a sceptic can check (counting, position classes,
    a pagoda, an exhaustive search, SAT with a DRAT proof), writing the certificate to
    ``certificate`` (JSON, with its companion files beside it); or find that it is solvable.
    ``progress`` hears a line per step of a long proof (``print``, say).

    >>> r = pegsat.prove(pegsat.problem("english", survivor="c4"))
    >>> r.status.value, r.kind
    ('unsolvable', 'classes')
    """
    from .proofs.prove import prove as run

    return run(p, Deadline(time_limit), certificate_path=certificate, search=not sat, progress=progress)


def check(certificate: str | Path, *, time_limit: float | None = None, journal: str | Path | None = None,
          rebuild: bool = False):
    """Re-verify a certificate file exactly and independently: a ``Verdict`` (``ok``,
    ``kind``, ``message``, ``finished``); or an atlas (the directory ``survey(...,
    certificates=DIR)`` wrote): a ``Report`` (``ok``, ``kinds``, ``failures``). ``journal``:
    a file where the steps of levels and moves certificates' walks are remembered, so that a check
    stopped goes on where it was (signed with your key: one anyone else wrote takes no step). ``rebuild``:
    levels certificates' levels are built by the checker, not read from their files, so the
    certificate file alone is checked."""
    from .checks.certificate import check as run
    from .checks.certificate import load

    kept = _directory(journal, "journal")
    _flag(rebuild, "rebuild")
    if Path(certificate).is_dir():
        from .apps.atlas import check as check_atlas

        return check_atlas(Path(certificate), Deadline(time_limit), journal=kept, rebuild=rebuild)
    return run(load(certificate), Path(certificate).parent, deadline=Deadline(time_limit), journal=kept,
               rebuild=rebuild)


def count(p: Problem, *, time_limit: float | None = None):
    """The game tree by jumps, level by level (a ``Census``; boards of at most 64 holes).

    >>> c = pegsat.count(pegsat.problem("triangle-5", vacant="a1"))
    >>> c.total("positions"), c.winning
    (3016, 29760)
    """
    from .apps.count import count as run

    return run(p, Deadline(time_limit))


@dataclass(frozen=True)
class Hints:
    """The verdict on a position and on every legal jump from it (``apps.hint``)."""

    problem: Problem
    position: Position
    status: str  # alive, dead, unknown
    reason: str
    jumps: dict[str, tuple[str, str]] = field(default_factory=dict)  # jump -> (status, reason)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The hints as plain JSON values."""
        jumps = {k: {"status": s, "reason": r} for k, (s, r) in self.jumps.items()}
        return {"problem": self.problem.describe(), "position": self.position.holes, "status": self.status,
                "reason": self.reason, "jumps": jumps, "notes": list(self.notes)}


def hint(p: Problem, plan: str | None = None, *, time_limit: float = 2.0) -> Hints:
    """Every legal jump from the start, or from where ``plan`` (the game so far) leads: alive
    (still solvable), dead (with how it is known) or unknown (``time_limit`` per jump).

    >>> h = pegsat.hint(pegsat.problem("triangle-5", vacant="a1"), "c3-a1")
    >>> h.status, h.jumps["b4-b2"]
    ('alive', ('alive', 'in the solvable set'))
    """
    from .apps.hint import Hinter
    from .apps.verify import verify as replay_text
    from .formats.notation import format_plan

    pos = p.start
    if plan is not None:
        from .apps.pose import Posed

        pos = replay_text(Posed(p), plan, "auto", partial=True).final
    hinter = Hinter(p, time_limit, moves_left=False)
    here = hinter.position(pos)
    jumps = {format_plan(p.board, (v.jump,)): (v.status, v.reason) for v in hinter.jumps(pos)}
    return Hints(p, Position(p.board, pos), here.status, here.reason, jumps, tuple(hinter.notes))


def verify(p: Problem, plan: str):
    """Replay ``plan`` (hole names, ids, coordinates or IPC actions) on ``p``; a ``Replay``
    (``jumps``, ``moves``, ``positions``) or a ``PlanError`` naming the failing step.

    >>> pegsat.verify(pegsat.problem("triangle-5", vacant="a1"), "c3-a1")
    Traceback (most recent call last):
    ...
    pegsat.errors.PlanError: goal not reached after 1 jumps: wanted 1 peg left, 13 pegs left
    """
    from .apps.pose import Posed
    from .apps.verify import verify as run

    return run(Posed(p), plan, "auto")


def survey(on: Board | str, *, results: str | Path | None = None, time_limit: float = 60.0,
           budget: float | None = None, min_moves: bool = False, certificates: str | Path | None = None,
           given: Sequence[str | Path] = ()):
    """Every single-vacancy -> single-survivor problem of a board, classified (a ``Table``);
    results are appended to ``results`` (JSON lines) as they are settled, and a rerun resumes.
    ``certificates=DIR``: a certified atlas written there instead (an ``Atlas``: a plan or a
    certificate per problem; ``check(DIR)`` re-verifies it), taking the refutations ``given``
    (certificate files: ``instances/certificates/``) for the problems they settle."""
    import tempfile

    from .apps.survey import run, table

    b = board(on) if isinstance(on, str) else on
    if certificates is not None:
        from .apps.atlas import build

        return build(b, Path(certificates), min_moves=min_moves, time_limit=time_limit,
                     budget=Deadline(budget) if budget else None,
                     results=Path(results) if results is not None else None,
                     given=[Path(g) for g in given])
    if given:
        raise PegsatError("given certificates are taken into an atlas only: add certificates=DIR")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(results) if results is not None else Path(tmp) / "survey.jsonl"
        reps = run(b, path, planner="moves" if min_moves else "auto", time_limit=time_limit,
                   budget=Deadline(budget) if budget else None)
    return table(b, reps)


# --- pictures in Jupyter --------------------------------------------------------------------


def _board_svg(self: Board) -> str:
    from .formats.svg import board_svg

    return board_svg(self)


def _problem_svg(self: Problem) -> str:
    from .formats.svg import board_svg

    return board_svg(self.board, pegs=self.start)


def _result_html(self: Result) -> str:
    import html

    from .formats.render import plan_strip

    head = f"<p><b>{html.escape(self.status.value)}</b> by {html.escape(self.planner)}"
    if self.proof is not None:
        head += f" (proof: {html.escape(self.proof.value)})"
    head += f": {html.escape(self.problem.describe())}"
    if self.detail:
        head += f"; {html.escape(self.detail)}"
    if self.plan is None:
        return head + "</p>"
    return head + f"; {len(self.plan)} jumps, {self.moves} moves</p>" + plan_strip(self.problem, self.plan)


def _plan_text(self: Result, notation: str = "names") -> str | None:
    """The plan move by move in ``notation`` (``names``, ``ids``, ``coords``, ``ipc``), as the
    command line prints it; None without a plan."""
    from .formats.notation import format_plan

    return None if self.plan is None else format_plan(self.problem.board, self.plan, notation)


Result.plan_text = _plan_text  # type: ignore[attr-defined]
Board._repr_svg_ = _board_svg  # type: ignore[attr-defined]
Problem._repr_svg_ = _problem_svg  # type: ignore[attr-defined]
Result._repr_html_ = _result_html  # type: ignore[attr-defined]
