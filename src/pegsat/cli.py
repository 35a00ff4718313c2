"""The ``pegsat`` command line. Holds no logic: parses, makes the deadline, calls the
library, prints.

Exit codes come from the result's status (``model.result.EXIT``): 0 solved, 10 proven
unsolvable, 20 unknown (time limit), 1 error or a plan that does not replay, 2 bad input (one
line on stderr) or an unsupported problem, 130 interrupted. Heavy modules (solvers, encoder)
are imported inside the commands so that ``pegsat --help`` answers at once.
"""

from __future__ import annotations

import errno
import functools
import json
import math
import os
import signal
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from .errors import PegsatError, Unknown
from .files import clip
from .formats.notation import NOTATIONS
from .limits import memory_budget
from .model.options import ProblemOptions
from .model.problem import Problem
from .model.result import EXIT, INTERRUPTED, Status
from .planners import PLANNERS

# pegsat runs its own threads and processes, one per core; OpenBLAS's threads (started when
# numpy is imported, before anything is multiplied) would spin on those cores: 5-9% of a
# 2-core run's samples by perf. Set before numpy loads (it does not load above); a value the
# user set stays.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

MESSAGE = 400  # characters of a one-line error at most (a 4 MB token is not echoed whole)
#: commands whose --json flag means JSON on stdout
JSON_COMMANDS = ("solve", "prove", "verify", "decode", "count", "hint")


_SIGNALLED = threading.Event()  # Ctrl-C or SIGTERM arrived: whatever fails after it is the interrupt


def _terminated(signum: int, frame: object) -> None:
    _SIGNALLED.set()
    raise KeyboardInterrupt  # Ctrl-C, or a kill's SIGTERM (a batch scheduler's, ``timeout``'s)


class _Group(click.Group):
    """Every failure is one line on stderr (bad input, click's own usage errors) and, under
    ``--json``, also a JSON object on stdout; Ctrl-C, and SIGTERM, a clean exit 130 (the
    temporary files gone, a cluster closed, the checkpoints as they were)."""

    json_errors = False

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        argv = list(sys.argv[1:] if args is None else args)
        _SIGNALLED.clear()
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _terminated)
            signal.signal(signal.SIGINT, _terminated)
        command = next((a for a in argv if not a.startswith("-")), None)
        self.json_errors = command in JSON_COMMANDS and "--json" in argv
        try:
            code = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as exc:  # usage errors: one line, not click's three
            hint = f" (pegsat {command} --help)" if command in self.commands else " (pegsat --help)"
            self.fail(exc.format_message() + hint, exc.exit_code)
        except click.Abort:
            self.interrupted()
        sys.exit(code if isinstance(code, int) else 0)

    def fail(self, message: str, code: int) -> None:
        message = clip(" ".join(message.split()), MESSAGE)  # one line, whatever the input held
        click.echo(f"error: {message}", err=True)
        if self.json_errors:
            click.echo(json.dumps({"status": "error", "message": message}))
        sys.exit(code)

    def unknown(self, message: str, facts: dict | None = None) -> None:
        """A limit reached: one line, the JSON with what was known, exit 20."""
        message = clip(" ".join(message.split()), MESSAGE)
        click.echo(f"unknown: {message}", err=True)
        if self.json_errors:
            click.echo(json.dumps({"status": "unknown", "message": message, **(facts or {})}))
        sys.exit(EXIT[Status.UNKNOWN])

    def interrupted(self) -> None:
        click.echo("interrupted: status unknown; no output file was written", err=True)
        if self.json_errors:
            click.echo(json.dumps({"status": "unknown", "message": "interrupted"}))
        sys.exit(INTERRUPTED)

    def invoke(self, ctx: click.Context):
        try:
            memory_budget()  # a bad PEGSAT_MEMORY_GB is one line before any work
            return super().invoke(ctx)
        except Unknown as exc:
            self.unknown(str(exc), exc.facts)
        except PegsatError as exc:
            self.fail(str(exc), exc.exit_code)
        except MemoryError:
            self.unknown("out of memory (a larger machine, or a smaller PEGSAT_MEMORY_GB budget "
                         "so that the search stops before the system refuses memory)")
        except RecursionError:
            self.fail("input nested too deeply to read", 2)
        except OSError as exc:
            if exc.errno == errno.ENOMEM:
                self.unknown("out of memory")
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            self.unknown(f"disk full: {exc.filename or 'an output file'} could not be written")
        except ImportError as exc:  # under an address-space limit a library cannot be mapped
            if _SIGNALLED.is_set() or isinstance(exc.__context__, KeyboardInterrupt):
                self.interrupted()  # a signal during a heavy import ("initialization failed")
            if "failed to map segment" not in str(exc) and "annot allocate memory" not in str(exc):
                raise
            self.unknown(f"out of memory: a library could not be loaded ({clip(exc, 80)})")
        except KeyboardInterrupt:
            self.interrupted()
        except Exception:
            if _SIGNALLED.is_set():  # what a signal broke on its way (a library's own error)
                self.interrupted()
            raise


class Seconds(click.ParamType):
    """A time limit: a positive, finite number of seconds."""

    name = "seconds"

    def convert(self, value, param, ctx):
        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(x) or x <= 0:
            self.fail(f"{value!r}: a time limit must be a positive number of seconds", param, ctx)
        return x


class OutFile(click.Path):
    """A file to write: a non-empty name that is not a directory, in a directory that exists
    (said at once, not after the hours of a search whose answer it was to hold)."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False)

    def convert(self, value, param, ctx):
        if not str(value).strip():
            self.fail("give a file name (an empty one names nothing)", param, ctx)
        where = Path(value).parent
        if not where.is_dir():
            self.fail(f"{value}: its directory {str(where)!r} does not exist", param, ctx)
        return super().convert(value, param, ctx)


class SolverName(click.ParamType):
    """A python-sat solver name, checked against python-sat's own list (read when used)."""

    name = "solver"

    def convert(self, value, param, ctx):
        from .planners.sat import check_solver

        check_solver(value)  # one line, exit 2, whichever planner was asked for
        return value


class Bytes(click.ParamType):
    """A size: a number of bytes, or with a unit (500MB, 2GB, 1.5GiB): ``limits.size``."""

    name = "size"

    def convert(self, value, param, ctx):
        from .limits import size

        try:
            return size(value, "")
        except PegsatError as exc:
            self.fail(str(exc).removeprefix(": "), param, ctx)


SECONDS = Seconds()
BYTES = Bytes()
OUT_FILE = OutFile()
POSITIVE = click.IntRange(min=1)


def time_limit(help: str = "Seconds; past it the answer is 'unknown'.", default: float | None = None):
    """The one ``--time-limit`` option (its help says what it bounds in each command)."""
    return click.option("--time-limit", type=SECONDS, default=default, show_default=default is not None,
                        help=help)


#: plan notations, from the registry; ``auto`` (reading only) guesses among them
WRITE_NOTATION = click.Choice(list(NOTATIONS))
READ_NOTATION = click.Choice(["auto", *NOTATIONS])


def read_notation(fn):
    """The ``--notation`` option of commands that read a plan."""
    return click.option("--notation", default="auto", type=READ_NOTATION, show_default=True,
                        help="How PLAN is written; auto also recognises IPC plans.")(fn)


#: hint and play: the budget of the sweep that builds (or checks) the solvable set
SWEEP_LIMIT = click.option("--sweep-limit", type=SECONDS, default=60.0, show_default=True,
                           help="Seconds for building the solvable set (English-sized games); past "
                           "it, or past the memory budget, the planners decide each jump.")


def spill_options(what: str):
    """``--spill``, ``--scheduler``, ``--memory-limit`` and ``--disk-limit``: a level search on
    disk and on a Dask cluster (``count``, ``solve --min-moves`` and ``solve --planner
    layers``)."""
    def decorate(fn):
        for option in reversed([
                click.option("--spill", type=click.Path(file_okay=False), help="Keep the levels on disk "
                             f"in this directory and expand them on a Dask cluster: {what}; a rerun resumes "
                             "from the last finished level."),
                click.option("--scheduler", help="With --spill: an existing Dask scheduler (tcp://host:8786) "
                             "instead of local workers; the directory must be one every worker sees."),
                click.option("--memory-limit", type=BYTES, help="With --spill: bytes per worker process "
                             "(2GB, 500MB; default: the memory budget shared by the workers)."),
                click.option("--disk-limit", type=BYTES, help="With --spill: the most bytes the directory "
                             "may hold (default: 80% of the disk's free space); a level whose buckets do not "
                             "fit is built in rounds, each expanding some of the level before.")]):
            fn = option(fn)
        return fn
    return decorate


def encoding_options(fn):
    """The SAT/CP-SAT encoding's options (``encoding.encoder.EncodeOptions``), given to the
    command as one ``encode`` argument."""
    @click.option("--steps", default="parallel", type=click.Choice(["parallel", "sequential"]),
                  show_default=True, help="Step semantics of the SAT/CP-SAT encoding.")
    @click.option("--no-symmetry", is_flag=True, help="Do not break symmetries in the encoding.")
    @click.option("--card", default="seqcounter", show_default=True,
                  help="python-sat cardinality encoding (seqcounter, ladder, totalizer, ...).")
    @click.option("--pagodas", is_flag=True, help="Impose learned pagodas at every step (pseudo-Boolean "
                  "constraints; the DIMACS header lists them).")
    @click.option("--classes", is_flag=True, help="Impose the position class at every step (XOR "
                  "constraints).")
    @click.option("--count", is_flag=True, help="With --steps sequential: the peg count at every step.")
    @click.option("--process/--no-process", default=True, show_default=True, help="With parallel steps: "
                  "every jump at the earliest step it can take (one model a plan).")
    @click.option("--lex", is_flag=True, help="With parallel steps: break the symmetries left after the "
                  "first step too (lex-leader clauses, guarded by the steps before being symmetric).")
    @functools.wraps(fn)
    def wrapper(*args, steps: str, no_symmetry: bool, card: str, pagodas: bool, classes: bool, count: bool,
                process: bool, lex: bool, **kwargs):
        from .encoding.encoder import EncodeOptions

        kwargs["encode"] = EncodeOptions(steps=steps, symmetry=not no_symmetry, card=card, pagodas=pagodas,
                                         classes=classes, count=count, process=process, lex=lex)
        return fn(*args, **kwargs)
    return wrapper


def finished_levels(problem: Problem, facts: dict) -> list[str]:
    """The levels a stopped count finished, as a table (its classes and raw positions)."""
    classes, raw = facts.get("classes_per_level") or [], facts.get("positions_per_level") or []
    if not classes:
        return []
    out = [f"{problem.describe()}: the levels finished before the limit", f"{'jumps':>5} {'pegs':>4} "
           f"{'reachable':>14} {'(raw)':>18}"]
    for j, c in enumerate(classes):
        out.append(f"{j:>5} {problem.pegs - j:>4} {c:>14,} " + (f"{raw[j]:>18,}" if j < len(raw) else ""))
    return out


def unused(why: str, used: bool, **given: object) -> None:
    """One line when options given would be ignored (``used`` False): every option is
    honoured or refused, never dropped in silence."""
    named = [f"--{k.replace('_', '-')}" for k, v in given.items() if v is not None]
    if named and not used:
        raise PegsatError(f"{' and '.join(named)}: {why}")


def notes(lines: list[str]) -> None:
    """Print a library's notes on stderr."""
    for line in lines:
        click.echo(f"note: {line}", err=True)


def deadline_of(seconds: float | None):
    """The one deadline of a command, from its ``--time-limit``."""
    from .deadline import Deadline

    return Deadline(seconds)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pegsat")
def main() -> None:
    """Peg solitaire by SAT and constraint programming: solve, verify, export."""


def problem_options(fn):
    """The problem options of ``model.options.ProblemOptions``, passed on as ``options``."""
    specs = ProblemOptions.cli_fields()

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        values = {f.name: kw.pop(f.name) for f in specs}
        for f in specs:
            if f.metadata["kind"] == "count" and values[f.name] is not None:
                values[f.name] = int(values[f.name])
        return fn(*args, options=ProblemOptions(**values), **kw)

    for f in reversed(specs):
        kind = POSITIVE if f.metadata["kind"] == "count" else None
        wrapper = click.option(f"--{f.name.replace('_', '-')}", f.name, type=kind,
                               help=f.metadata["help"])(wrapper)
    return wrapper


@main.command()
def boards() -> None:
    """List the built-in boards with hole, jump and symmetry counts."""
    from .model.catalogue import LISTED, get_board

    click.echo(f"{'board':<18}{'holes':>6}{'jumps':>7}{'symmetries':>12}  centre")
    for name in LISTED:
        b = get_board(name)
        centre = b.names[b.centre] if b.centre is not None else "-"
        click.echo(f"{name:<18}{b.n:>6}{len(b.jumps):>7}{len(b.symmetries):>12}  {centre}")
    click.echo("families: triangle-N (N >= 4), square-RxC; or a board file (see README)")


@main.command()
@click.argument("board")
@click.option("--labels/--no-labels", default=True, help="Also print the hole names.")
def show(board: str, labels: bool) -> None:
    """Draw a board (catalogue name or board file)."""
    from .formats.display import board_text
    from .model.boardfile import load_board

    for line in board_text(load_board(board), labels):
        click.echo(line)


def _read_plan_arg(plan: str) -> str:
    """PLAN is a file when one exists by that name, else the plan itself."""
    from .files import read_text

    if "\n" in plan or "(" in plan or len(plan) > 255:
        return plan
    p = Path(plan)
    try:
        is_file = p.is_file()
    except OSError:
        is_file = False
    return read_text(p, "plan file") if is_file else plan


@main.command()
@click.argument("problem")
@click.argument("plan")
@problem_options
@read_notation
@click.option("--pddl", "domain", type=click.Path(exists=True, dir_okay=False),
              help="PROBLEM is a PDDL problem file of this domain file.")
@click.option("--show/--summary", "show_positions", default=False, help="Print every position.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def verify(problem: str, plan: str, notation: str, domain: str | None, show_positions: bool,
           as_json: bool, options: ProblemOptions) -> None:
    """Replay PLAN (a file or the moves themselves) on PROBLEM and check the goal."""
    from .apps.pose import pose
    from .apps.verify import verify as check_plan
    from .formats.report import verify_json, verify_text

    try:
        posed = pose(problem, options, domain=domain)
        outcome = check_plan(posed, _read_plan_arg(plan), notation)
    except PegsatError as exc:
        if not as_json:
            raise
        click.echo(json.dumps({"valid": False, "error": str(exc), "step": getattr(exc, "step", None)}))
        sys.exit(exc.exit_code)
    if as_json:
        click.echo(json.dumps(verify_json(posed.problem, outcome)))
    else:
        for line in verify_text(posed.problem, outcome, show_positions):
            click.echo(line)


@main.command()
@click.argument("problem")
@problem_options
@click.option("--planner", default="auto", type=click.Choice(list(PLANNERS)),
              help="auto: the compiled search on every core, then SAT and CP-SAT side by side; "
              "moves: the fewest moves (same as --min-moves); layers: exhaustive "
              "search by jumps, pruned by learned pagodas (for proofs of unsolvability).")
@click.option("--min-moves", is_flag=True, help="Fewest moves, with the proof that none has fewer "
              "(exit 20 when the time limit leaves it unproven).")
@click.option("--upper-plan", metavar="PLAN", help="With --min-moves: a plan you know (a file, or the "
              "plan itself), replayed; its moves bound the search, which looks only for fewer.")
@click.option("--certificate", "cert_out", type=OUT_FILE, help="With --min-moves: write the certificate of "
              "the fewest moves here (JSON, its level files beside it); check it with 'pegsat check'. With "
              "--spill it is DIR/certificate.json.")
@click.option("--solver", default="cadical195", show_default=True, type=SolverName(),
              help="python-sat solver for --planner sat (e.g. kissat404, glucose4).")
@click.option("--workers", type=click.IntRange(1, 256), help="Cores per problem: search processes and "
              "CP-SAT workers; with --spill, local Dask worker processes (default: every core).")
@spill_options("with --min-moves or --planner layers")
@time_limit()
@encoding_options
@click.option("--notation", type=WRITE_NOTATION,
              help="Plan notation (default: ipc for PDDL input, else names).")
@click.option("--pddl", "domain", type=click.Path(exists=True, dir_okay=False),
              help="PROBLEM is a PDDL problem file of this domain file.")
@click.option("--show", "show_positions", is_flag=True, help="Print every position of the plan.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable result.")
@click.option("--out", type=OUT_FILE, help="Also write the plan to this file.")
@click.option("--quiet", is_flag=True, help="No progress lines on stderr (a level search says each level "
              "it finishes once it has run a few seconds).")
def solve(problem: str, planner: str, min_moves: bool, upper_plan: str | None, cert_out: str | None,
          solver: str, workers: int | None, spill: str | None, scheduler: str | None,
          memory_limit: int | None, disk_limit: int | None, time_limit: float | None,
          encode: Any, notation: str | None, domain: str | None, show_positions: bool, as_json: bool,
          out: str | None, quiet: bool,
          options: ProblemOptions) -> None:
    """Find a plan for PROBLEM, prove there is none, or say it is unknown.

    PROBLEM is a board (name or file), a TOML problem file or an IPC PDDL problem file
    (its domain: --pddl DOMAIN, or domain.pddl beside it)."""
    from .apps.pose import pose
    from .apps.solve import solve as solve_problem
    from .files import write_atomic
    from .formats.notation import format_plan
    from .formats.report import result_json, solve_text
    from .planners.config import Config

    if min_moves:
        if planner not in ("auto", "moves"):
            raise PegsatError(f"--min-moves has its own planner; drop --planner {planner}")
        planner = "moves"
    if cert_out is not None and planner != "moves":
        raise PegsatError("--certificate certifies the fewest moves: add --min-moves ('pegsat prove' writes "
                          "certificates of unsolvability)")
    posed = pose(problem, options, domain=domain)
    notation = notation or posed.notation
    config = Config(solver=solver, encode=encode)
    if workers:
        config = replace(config, workers=workers)
    if upper_plan is not None:
        from .apps.verify import given_plan

        if planner != "moves":
            raise PegsatError("--upper-plan bounds a search for the fewest moves: add --min-moves")
        config = replace(config, upper_plan=given_plan(posed.problem, _read_plan_arg(upper_plan), posed.task))
    from .planners import ON_DISK
    from .planners.config import Disk

    if spill is not None and planner not in ON_DISK:
        raise PegsatError("--spill is a level search on disk: add --min-moves, or --planner layers")
    unused("for level searches only: add --min-moves, or --planner layers", planner in ON_DISK,
           scheduler=scheduler, memory_limit=memory_limit, disk_limit=disk_limit)
    if spill is not None and cert_out is not None:
        from .planners.ondisk import SPILLED

        raise PegsatError(f"--certificate with --spill: {SPILLED}")
    config = replace(config, disk=Disk(None if spill is None else Path(spill), first=spill is not None,
                                       scheduler=scheduler, memory=memory_limit, limit=disk_limit))
    say = None if as_json or quiet or planner not in ON_DISK else (lambda line: click.echo(line, err=True))
    deadline = deadline_of(time_limit)
    from .progress import reporting

    with reporting(say):  # a level search says each level it finishes
        result = solve_problem(posed.problem, planner, config, deadline)
    if cert_out is not None:
        from .apps.solve import certify_fewest

        result = certify_fewest(result, cert_out, deadline)
    if result.plan is not None and out:
        text = format_plan(posed.problem.board, result.plan, notation, posed.task) + "\n"
        write_atomic(Path(out), lambda fh: fh.write(text))
    if as_json:
        click.echo(json.dumps(result_json(result), default=str))
    elif result.status is Status.UNSUPPORTED:
        click.echo(f"error: {result.detail}", err=True)
    else:
        for line in solve_text(result, notation, posed.task, show_positions):
            click.echo(line)
    sys.exit(result.exit_code)


@main.command()
@click.argument("problem")
@click.argument("out", type=OUT_FILE)
@problem_options
@encoding_options
@click.option("--horizon", type=POSITIVE, help="Parallel steps, fewer than the jumps: often much "
              "easier for a solver, but UNSAT then proves nothing.")
def export(problem: str, out: str, encode: Any, horizon: int | None, options: ProblemOptions) -> None:
    """Write PROBLEM as a self-describing DIMACS CNF file OUT."""
    from .apps.pose import pose
    from .encoding.dimacs import export as write_dimacs

    prob = pose(problem, options).problem
    info = write_dimacs(prob, out, encode, steps=horizon)
    click.echo(f"wrote {info.path}: {info.variables} variables, {info.clauses} clauses, "
               f"horizon {info.horizon} ({prob.describe()})")


@main.command()
@click.argument("problem")
@problem_options
@click.option("--certificate", "cert_out", type=OUT_FILE,
              help="Write the certificate (JSON) here; check it later with 'pegsat check'.")
@click.option("--proof", type=OUT_FILE,
              help="SAT step: write the DRAT proof here (default: beside the certificate).")
@click.option("--cnf", type=OUT_FILE,
              help="SAT step: write the CNF here (default: the proof's name with .cnf).")
@time_limit("Seconds for the search or SAT step; past it: unknown.")
@click.option("--no-sat", is_flag=True, help="Stop after counting, classes and pagoda.")
@click.option("--sat", "sat_only", is_flag=True,
              help="After the pagoda step go to SAT + DRAT directly, skipping the exhaustive search.")
@click.option("--pure-sat", is_flag=True, help="SAT + DRAT alone, no other argument first: the full-horizon "
              "CNF with the encoding options below (their classes and pagodas are clauses of it).")
@encoding_options
@click.option("--json", "as_json", is_flag=True)
def prove(problem: str, cert_out: str | None, proof: str | None, cnf: str | None,
          time_limit: float | None, no_sat: bool, sat_only: bool, pure_sat: bool, encode: Any, as_json: bool,
          options: ProblemOptions) -> None:
    """Prove PROBLEM unsolvable with a checkable certificate (or find that it is solvable).

    Tries counting, position classes, a pagoda function by LP, then an exhaustive search by
    jumps pruned by learned pagodas (boards up to 64 holes), else SAT with a DRAT proof
    cross-checked by a second solver (its CNF encoded with the options below). Exit 10 proven
    unsolvable, 0 solvable, 20 unknown."""
    from .apps.pose import pose
    from .formats.report import prove_json, prove_text
    from .proofs.prove import prove as prove_problem

    if no_sat and (sat_only or pure_sat):
        given = "--pure-sat" if pure_sat else "--sat"
        raise PegsatError(f"{given} and --no-sat contradict each other; give one")
    prob = pose(problem, options).problem
    say = None if as_json else (lambda line: click.echo(line, err=True))
    res = prove_problem(prob, deadline_of(time_limit), certificate_path=cert_out, cnf=cnf, proof=proof,
                        use_sat=not no_sat, search=not (sat_only or pure_sat), cheap=not pure_sat,
                        encode=encode, progress=say)
    if as_json:
        click.echo(json.dumps(prove_json(res, cert_out), default=str))
    else:
        for line in prove_text(res, cert_out):
            click.echo(line)
    sys.exit(res.exit_code)


@main.command()
@click.argument("problem")
@problem_options
@time_limit("Seconds; past it the count stops with the levels finished (exit 20).")
@click.option("--json", "as_json", is_flag=True, help="The census as JSON on stdout.")
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
@spill_options("the reachable positions only")
@click.option("--workers", type=click.IntRange(1, 256), default=2, show_default=True,
              help="Out of core (--spill, or past the memory budget): local worker processes.")
@click.option("--keep-levels", is_flag=True, help="With --spill: keep every level's files, not "
              "only the last.")
def count(problem: str, time_limit: float | None, as_json: bool, quiet: bool, spill: str | None,
          workers: int, scheduler: str | None, memory_limit: int | None, disk_limit: int | None,
          keep_levels: bool, options: ProblemOptions) -> None:
    """Count PROBLEM's game tree by jumps: reachable and still-winning positions (up to
    symmetry and raw), winning jump sequences, games played until no jump is left. Exact
    integers; boards of at most 64 holes. With --spill, the reachable positions of games too
    large for memory, level by level on disk; a count that outgrows the memory budget goes on
    that way by itself."""
    from .apps.count import count_or_spill
    from .apps.pose import pose

    prob = pose(problem, options).problem
    unused("for the count on disk only: add --spill DIR", spill is not None,
           scheduler=scheduler, memory_limit=memory_limit, disk_limit=disk_limit)
    progress = None if quiet else (lambda line: click.echo(line, err=True))
    if spill is not None:
        from .apps.reach import reach

        got = reach(prob, Path(spill), workers=workers, scheduler=scheduler, memory=memory_limit,
                    deadline=deadline_of(time_limit), keep=keep_levels, progress=progress,
                    disk_limit=disk_limit)
        for line in [json.dumps(got.to_dict())] if as_json else got.table():
            click.echo(line)
        return
    try:
        res = count_or_spill(prob, deadline_of(time_limit), progress, workers)
    except Unknown as exc:  # a count stopped early: the levels it finished, then the one line
        if not as_json:
            for line in finished_levels(prob, exc.facts):
                click.echo(line)
        raise
    if as_json:
        click.echo(json.dumps(res.to_dict()))
    else:
        for line in res.table():
            click.echo(line)


@main.command()
@click.argument("problem")
@click.argument("plan", required=False)
@problem_options
@time_limit("Seconds per jump for the planners (not used with the solvable set); default: 2 on boards "
            "of up to 33 holes, doubling every 4 holes more (French 4, German 16).")
@SWEEP_LIMIT
@click.option("--no-moves", is_flag=True, help="Do not compute the fewest moves left.")
@click.option("--out", type=OUT_FILE, help="Also draw the jumps as a strip (FILE.svg).")
@read_notation
@click.option("--json", "as_json", is_flag=True)
def hint(problem: str, plan: str | None, time_limit: float, sweep_limit: float, no_moves: bool,
         out: str | None, notation: str, as_json: bool, options: ProblemOptions) -> None:
    """Every legal jump from PROBLEM's start, or from where PLAN (the game so far) leads,
    with its verdict: alive (still solvable), dead (with the proof's kind) or unknown.

    Exact and instant on boards whose whole game can be swept (the English board: the
    solvable set is built once, about 12 s, and cached); elsewhere the planners decide each
    jump under --time-limit."""
    from .apps.hint import report
    from .apps.pose import pose

    posed = pose(problem, options)
    rep = report(posed, _read_plan_arg(plan) if plan else None, notation, time_limit, not no_moves,
                 deadline_of(sweep_limit))
    notes(rep["notes"])
    if out is not None:
        from .files import write_atomic

        write_atomic(Path(out), lambda fh: fh.write(rep.pop("svg")))
    rep.pop("svg", None)
    if as_json:
        click.echo(json.dumps(rep))
        return
    click.echo(f"{rep['problem']}, after {rep['jumps_so_far']} jumps: {rep['position']} ({rep['reason']})")
    if not rep["hints"]:
        click.echo("no jump is legal")
    for r in rep["hints"]:
        left = f", {r['moves_left']} moves left" if r["moves_left"] is not None else ""
        click.echo(f"  {r['jump']:<10} {r['status']:<8} {r['reason']}{left}")


@main.command()
@click.argument("problem")
@problem_options
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: a free one).")
@time_limit("Seconds per position for the planners (not used with the solvable set).", 2.0)
@SWEEP_LIMIT
@click.option("--no-browser", is_flag=True, help="Print the address only; do not open a browser.")
def play(problem: str, port: int, time_limit: float, sweep_limit: float, no_browser: bool,
         options: ProblemOptions) -> None:
    """Play PROBLEM in the browser: click a peg, then the hole it jumps to; every jump is
    judged (still solvable, or dead and why). Serves 127.0.0.1 only; Ctrl-C stops it."""
    import webbrowser

    from .apps.play import make_server
    from .apps.pose import pose

    posed = pose(problem, options)
    click.echo(f"{posed.problem.describe()}: preparing the verdicts ...", err=True)
    server = make_server(posed, port, time_limit, deadline_of(sweep_limit))
    notes(server.game.hinter.notes)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    click.echo(f"playing at {url} (Ctrl-C to stop)")
    if not no_browser:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped")
    finally:
        server.server_close()


@main.command()
@click.argument("cert", type=click.Path())
@time_limit("Seconds for the long checks (DRAT replay, search "
           "re-run); past it: not settled, exit 20.")
@click.option("--workers", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Dead sets, levels and moves: check their parts on this many local Dask worker "
              "processes.")
@click.option("--scheduler", help="Dead sets, levels and moves: check their parts on an existing Dask "
              "scheduler (tcp://host:8786); the certificate's directory must be seen, and writable, by every "
              "worker.")
@click.option("--journal", type=OUT_FILE,
              help="Levels and moves certificates: remember in FILE the steps of their walk checked, and "
              "skip those it holds, so a check stopped goes on where it was. Its steps are signed with your "
              "key (~/.config/pegsat/key): a journal anyone else wrote takes no step.")
@click.option("--rebuild", is_flag=True, help="Levels, moves and dead-set certificates: build every level "
              "(the dead set) from the start instead of reading the files, so the certificate file alone is "
              "checked (as long as a check of the files, and the disk of the levels; a moves certificate's "
              "levels and a dead set in memory).")
@click.option("--reference", is_flag=True, help="Levels, moves and dead-set certificates: walk them with "
              "the checker's numpy reference instead of its compiled loops (slower; the tests hold one to "
              "the other).")
@click.option("--disk-limit", type=BYTES, help="Levels and moves certificates walked on disk (--workers, "
              "--scheduler, a large --rebuild): the most bytes their bucket files take at a time (default: "
              "80% of the disk's free space); a level whose buckets do not fit is walked in rounds.")
@click.option("--quiet", is_flag=True, help="No progress lines on stderr (levels and moves certificates' "
              "steps).")
def check(cert: str, time_limit: float | None, workers: int, scheduler: str | None,
          journal: str | None, rebuild: bool, reference: bool, disk_limit: int | None, quiet: bool) -> None:
    """Re-verify a certificate written by 'pegsat prove', or a whole atlas (a directory
    written by 'survey --certificates'), exactly and independently.

    Exit 0 when it holds, 1 when it is rejected, 2 when the file is not a certificate (or
    the journal not a journal), 20 when a checker did not finish within --time-limit."""
    from .checks.certificate import check as check_certificate
    from .checks.certificate import load
    from .checks.verdict import worst
    from .deadline import Deadline
    from .engine.cluster import mapped

    kept = Path(journal) if journal else None
    say = None if quiet else (lambda line: click.echo(line, err=True))
    if kept is not None:
        from .checks.kit import read_journal

        read_journal(kept)  # not one: exit 2 before any check
    if Path(cert).is_dir():
        from .apps.atlas import atlases
        from .apps.atlas import check as check_atlas

        deadline = Deadline(time_limit)
        with mapped(workers, scheduler, deadline) as runner:
            reports = [check_atlas(where, deadline, runner, kept, say, rebuild)
                       for where in atlases(Path(cert))]
        for rep in reports:
            for line in rep.lines():
                click.echo(line)
        sys.exit(worst(rep.standing for rep in reports).exit_code)
    data = load(cert)
    deadline = Deadline(time_limit)
    with mapped(workers, scheduler, deadline) as runner:
        verdict = check_certificate(data, Path(cert).parent, deadline=deadline, runner=runner,
                                    journal=kept, progress=say, rebuild=rebuild, reference=reference,
                                    room=disk_limit)
    word = verdict.standing.value if verdict.ok else verdict.standing.value.upper()
    about = verdict.problem.describe() if verdict.problem is not None else cert
    click.echo(f"{about}: {verdict.kind} certificate {word}: {verdict.message}")
    sys.exit(verdict.standing.exit_code)


@main.command()
@click.argument("board")
@click.option("--results", type=OUT_FILE,
              help="JSON-lines results file, appended as problems are settled; a rerun resumes "
              "from it (default: survey-BOARD.jsonl).")
@click.option("--min-moves", is_flag=True, help="Solve with the fewest moves (slower).")
@time_limit("Seconds per problem; past it the problem stays unknown.", 60.0)
@click.option("--layers-limit", type=SECONDS,
              help="Seconds for the last, exhaustive step on problems the planners left unknown "
              "(default: --time-limit; French d3 -> d5 needs about 1000).")
@click.option("--budget", type=SECONDS,
              help="Seconds for the whole survey: a first pass at --time-limit per problem, then "
              "what is left shared evenly among the problems still unknown (one longer run each).")
@click.option("--picture", type=OUT_FILE,
              help="SVG of the board, each hole coloured by how many survivors its vacancy allows.")
@click.option("--json", "json_out", type=OUT_FILE, help="Write the full table as JSON.")
@click.option("--certificates", type=click.Path(file_okay=False),
              help="Write a certified atlas in DIR: a certificate for every unsolvable problem (one per "
              "orbit), a replayed plan for every solvable one (with --min-moves, and the certificate "
              "of its fewest moves), DIR/atlas.json; check it with 'pegsat check DIR', browse it with "
              "'pegsat atlas DIR --out SITE'.")
@click.option("--prove-limit", type=SECONDS, default=300.0, show_default=True,
              help="With --certificates: seconds to write each certificate.")
@click.option("--given", type=click.Path(dir_okay=False, exists=True), multiple=True,
              help="With --certificates: a certificate written elsewhere (one of "
              "instances/certificates/), taken for the problems it refutes before prove is tried; "
              "one carried without its files is walked by 'pegsat check DIR --rebuild'. Repeatable.")
@click.option("--spill", type=click.Path(file_okay=False),
              help="The level searches (the exhaustive step; with --min-moves, every problem's) go "
              "on with their levels on disk past the memory budget, in DIR/V-S, kept while the "
              "problem is unknown: a rerun goes on from them.")
@click.option("--scheduler", help="With --spill: those searches on an existing Dask scheduler "
              "(tcp://host:8786) instead of a local cluster.")
@click.option("--quiet", is_flag=True, help="No per-problem progress lines.")
def survey(board: str, results: str | None, min_moves: bool, time_limit: float, layers_limit: float | None,
           budget: float | None, picture: str | None, json_out: str | None, certificates: str | None,
           prove_limit: float, given: tuple[str, ...], spill: str | None, scheduler: str | None,
           quiet: bool) -> None:
    """Classify every single-vacancy -> single-survivor problem of BOARD."""
    from .apps.survey import picture as survey_picture
    from .apps.survey import run as run_survey
    from .apps.survey import table
    from .files import write_atomic
    from .model.boardfile import load_board

    if scheduler and not spill:
        raise PegsatError("--scheduler runs the searches on disk on a cluster: add --spill DIR")
    unused("not written with --certificates (the atlas's table is DIR/atlas.json, and 'pegsat atlas DIR "
           "--out SITE' draws it)", not certificates, json=json_out, picture=picture)
    unused("taken into an atlas only: add --certificates DIR", bool(certificates), given=given or None)
    b = load_board(board)
    default = Path(certificates) / "survey.jsonl" if certificates else Path(f"survey-{b.name}.jsonl")
    path = Path(results) if results else default

    def progress(e, i, n):
        if not quiet:
            what = e.status + (f" in {e.moves} moves" if e.moves is not None else "") + (
                f" ({e.proof})" if e.proof else "")
            click.echo(f"[{i}/{n}] {e.vacancy} -> {e.survivor}: {what}  {e.seconds:.2f} s", err=True)

    t0 = time.perf_counter()
    whole = deadline_of(budget) if budget else None
    try:
        if certificates:
            from .apps.atlas import build

            atlas = build(b, Path(certificates), min_moves=min_moves, time_limit=time_limit,
                          layers_limit=layers_limit, prove_limit=prove_limit, budget=whole, results=path,
                          progress=None if quiet else lambda line: click.echo(line, err=True),
                          surveyed=progress, spill=Path(spill) if spill else None, scheduler=scheduler,
                          given=[Path(g) for g in given])
            counts = atlas.counts()
            click.echo(f"{b.name}: atlas of {b.n * b.n} problems in {certificates} in {atlas.seconds:.1f} s: "
                       f"{counts['solvable']} solvable, {counts['unsolvable']} unsolvable, "
                       f"{counts['unknown']} unknown (check it: pegsat check {certificates})")
            sys.exit(0 if not counts["unknown"] else EXIT[Status.UNKNOWN])
        reps = run_survey(b, path, planner="moves" if min_moves else "auto", time_limit=time_limit,
                          layers_limit=layers_limit, budget=whole, progress=progress,
                          spill=Path(spill) if spill else None, scheduler=scheduler)
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished problems are kept in {path}; rerun to resume", err=True)
        sys.exit(INTERRUPTED)
    t = table(b, reps)
    click.echo(f"{b.name}: {b.n} vacancies, {len(reps)} problems settled up to symmetry in "
               f"{time.perf_counter() - t0:.1f} s (results: {path})")
    for line in t.lines(with_moves=min_moves):
        click.echo(line)
    if picture:
        write_atomic(Path(picture), lambda fh: fh.write(survey_picture(t)))
        click.echo(f"picture: {picture}")
    if json_out:
        text = json.dumps(t.to_json(), indent=1) + "\n"
        write_atomic(Path(json_out), lambda fh: fh.write(text))
    sys.exit(0 if t.unknown == 0 else EXIT[Status.UNKNOWN])


@main.command()
@click.argument("jobs")
@click.option("--results", type=OUT_FILE,
              help="JSON-lines results, appended as jobs finish; a rerun skips answered jobs "
              "(default: batch-<JOBS name>.jsonl).")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 256),
              help="Local cluster size (worker processes); each job gets cores/workers cores.")
@click.option("--planner", type=click.Choice(list(PLANNERS)), default="auto", show_default=True,
              help="Planner for every job (see pegsat solve --help).")
@click.option("--scheduler", help="Address of an existing Dask scheduler (tcp://host:8786) instead.")
@time_limit("Seconds per job.", 60.0)
@click.option("--min-moves", is_flag=True, help="Solve each job with the fewest moves.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def batch(jobs: str, results: str | None, workers: int, planner: str, scheduler: str | None,
          time_limit: float, min_moves: bool, quiet: bool) -> None:
    """Solve many problems on Dask: JOBS is a file of problems (one per line, as on the command
    line) or a board name: its single-vacancy -> single-survivor problems, one per orbit of the
    board's symmetries (151 on the English board; 'survey' also pairs each problem with its
    time-reversed game, vacancy and survivor swapped, and so settles 88)."""
    from collections import Counter

    from .apps.batch import load_jobs
    from .apps.batch import run as run_batch

    if min_moves and planner not in ("auto", "moves"):
        raise PegsatError(f"--min-moves has its own planner; drop --planner {planner}")
    job_list = load_jobs(jobs)
    path = Path(results or f"batch-{Path(jobs).stem}.jsonl")
    t0 = time.perf_counter()
    try:
        recs = run_batch(job_list, path, workers=workers, scheduler=scheduler, time_limit=time_limit,
                         planner="moves" if min_moves else planner, quiet=quiet)
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished jobs are kept in {path}; rerun to resume", err=True)
        sys.exit(INTERRUPTED)
    counts = Counter(r.get("status") for r in recs.values())
    click.echo(f"{len(job_list)} jobs in {time.perf_counter() - t0:.1f} s: "
               + ", ".join(f"{n} {k}" for k, n in counts.most_common()) + f" (results: {path})")
    worst = Status.ERROR if counts.get("error") else Status.UNKNOWN if counts.get("unknown") else None
    sys.exit(EXIT[worst] if worst else 0)


@main.command()
@click.argument("atlas_dir", metavar="DIR", type=click.Path(exists=True, file_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Directory for the pages (SITE/index.html and a page per board).")
def atlas(atlas_dir: str, out: str) -> None:
    """Write static pages to browse the atlases in DIR (written by 'survey --certificates'):
    pick a vacancy, see every survivor's verdict, open its plan or its certificate."""
    from .apps.atlas import site

    written = site(Path(atlas_dir), Path(out))
    said = ", ".join(f"{name} ({n} pages)" for name, n in written)
    click.echo(f"wrote {Path(out) / 'index.html'}: {said}")


@main.command()
@click.argument("problem")
@click.argument("plan")
@problem_options
@click.option("--out", required=True, type=OUT_FILE,
              help="FILE.svg (a strip: one small board per move) or FILE.html (steps through it).")
@click.option("--overview", is_flag=True,
              help="SVG: every move as an arrow on one board instead of a strip.")
@click.option("--per-row", type=click.IntRange(1, 50), default=6, show_default=True,
              help="Strip: boards per row.")
@read_notation
def render(problem: str, plan: str, out: str, overview: bool, per_row: int, notation: str,
           options: ProblemOptions) -> None:
    """Draw PLAN (a file or the moves) for PROBLEM as SVG or a self-contained HTML page."""
    from .apps.pose import pose
    from .apps.verify import verify as check_plan
    from .files import write_atomic
    from .formats.render import plan_html, plan_strip, plan_svg

    suffix = Path(out).suffix.lower()
    if suffix not in (".svg", ".html", ".htm"):
        raise PegsatError(f"--out {out}: give a .svg or .html file")
    posed = pose(problem, options)
    rep = check_plan(posed, _read_plan_arg(plan), notation)  # only a valid plan is drawn
    if suffix != ".svg":
        page = plan_html(posed.problem, rep.plan)
    else:
        page = plan_svg(posed.problem, rep.plan) if overview else plan_strip(posed.problem, rep.plan, per_row)
    write_atomic(Path(out), lambda fh: fh.write(page))
    click.echo(f"wrote {out}: {rep.jumps} jumps, {rep.moves} moves ({posed.problem.describe()})")


@main.command("export-pddl")
@click.argument("problem")
@click.argument("outdir", type=click.Path(file_okay=False))
@problem_options
@click.option("--domain", type=click.Choice(["sequential", "netbenefit"]), default="sequential",
              show_default=True, help="Which IPC peg solitaire domain to write.")
def export_pddl(problem: str, outdir: str, options: ProblemOptions, domain: str) -> None:
    """Write PROBLEM as OUTDIR/domain.pddl and OUTDIR/problem.pddl (IPC style).

    --domain sequential: the 2008/2011 domain, plan cost = moves; netbenefit: the 2016
    unsolvability track's one-action domain."""
    from .apps.pose import pose
    from .formats.pddl import write_pddl

    prob = pose(problem, options).problem
    written = write_pddl(prob, Path(outdir), domain)
    click.echo(f"wrote {' and '.join(map(str, written))} ({prob.describe()})")


@main.command()
@click.argument("cnf", type=click.Path(exists=True, dir_okay=False))
@click.argument("model", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True)
def decode(cnf: str, model: str, as_json: bool) -> None:
    """Turn a SAT solver's MODEL for an exported CNF into a verified plan."""
    from .encoding.dimacs import decode as decode_model
    from .formats.notation import format_plan

    d = decode_model(cnf, model)
    board = d.problem.board
    if as_json:
        click.echo(json.dumps({"valid": True, "problem": d.problem.describe(),
                               "plan": format_plan(board, d.replay.plan),
                               "jumps": d.replay.jumps, "moves": d.replay.moves}))
        return
    click.echo(f"valid plan for {d.problem.describe()}: {d.replay.jumps} jumps, {d.replay.moves} moves")
    click.echo(format_plan(board, d.replay.plan))


if __name__ == "__main__":  # pragma: no cover
    main()
