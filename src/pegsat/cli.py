"""The ``pegsat`` command line. Holds no logic: parses, calls the library, prints.

Exit codes: 0 solved / verified, 10 proven unsolvable, 20 unknown (time limit), 1 error or a
plan that does not replay, 2 bad input, 130 interrupted. Heavy modules (solvers, encoder)
are imported inside the commands so that ``pegsat --help`` answers at once.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .errors import PegsatError

EXIT = {"solved": 0, "unsolvable": 10, "unknown": 20, "error": 1}


class _Group(click.Group):
    """Turns user errors into one line on stderr and Ctrl-C into a clean exit."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except PegsatError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted: status unknown; no output file was written", err=True)
            ctx.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pegsat")
def main() -> None:
    """Peg solitaire by SAT and constraint programming: solve, verify, export."""


def problem_options(fn):
    """Options that pose a problem on a board (they override a TOML file's tables)."""
    opts = [
        click.option("--vacant", help="Start: full board minus these holes (default: the centre)."),
        click.option("--start", "start_pegs", help="Start: pegs exactly on these holes."),
        click.option("--survivor", help="Goal: one peg, on this hole."),
        click.option("--pegs", type=int, help="Goal: this many pegs, anywhere."),
        click.option("--at-most", type=int, help="Goal: at most this many pegs."),
        click.option("--pattern", help="Goal: pegs on exactly these holes."),
        click.option("--full", help="Goal (partial): these holes hold pegs, the rest is free."),
        click.option("--empty", help="Goal (partial): these holes are empty."),
        click.option("--special", help="Hopping Dots rule: the peg starting here must survive "
                     "and is never jumped over."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def _task(spec: str, kw: dict, domain: str | None):
    """(problem, PDDL task or None): a PDDL problem file keeps its location names."""
    if domain is not None or spec.endswith(".pddl"):
        from .pddl import load

        if any(v is not None for v in kw.values()):
            raise PegsatError(f"{spec}: a PDDL problem fixes its start and goal; drop the options")
        task = load(spec, domain)
        return task.problem, task
    return _problem(spec, kw), None


def _plan_text(prob, plan, notation: str, task) -> str:
    if notation == "ipc":
        from .pddl import format_plan as ipc_plan

        return ipc_plan(prob, plan, task.objects if task else None,
                        task.domain if task else "pegsolitaire-sequential").rstrip("\n")
    from .notation import format_plan

    return format_plan(prob.board, plan, notation)


def _problem(spec: str, kw: dict):
    from .problemfile import Options, load_problem

    opts = Options(
        vacant=kw.pop("vacant"), start=kw.pop("start_pegs"), survivor=kw.pop("survivor"),
        pegs=kw.pop("pegs"), at_most=kw.pop("at_most"), pattern=kw.pop("pattern"),
        full=kw.pop("full"), empty=kw.pop("empty"), special=kw.pop("special"),
    )
    return load_problem(spec, opts)


@main.command()
def boards() -> None:
    """List the built-in boards with hole, jump and symmetry counts."""
    from .catalogue import LISTED, get_board

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
    from .boardfile import load_board
    from .display import render

    b = load_board(board)
    click.echo(f"{b.name}: {b.summary()}")
    click.echo(render(b))
    if labels and b.coords is not None:
        click.echo()
        click.echo(render(b, labels=True))
    if b.coords is None:
        click.echo("lines: " + " ".join("-".join(b.names[h] for h in ln) for ln in b.lines))


def _read_plan_arg(plan: str) -> str:
    """PLAN is a file when one exists by that name, else the plan itself."""
    if "\n" in plan or "(" in plan or len(plan) > 255:
        return plan
    p = Path(plan)
    try:
        if p.is_file():
            return p.read_text()
    except OSError as exc:
        raise PegsatError(f"cannot read plan file {plan}: {exc.strerror}") from None
    return plan


@main.command()
@click.argument("problem")
@click.argument("plan")
@problem_options
@click.option("--notation", default="auto", type=click.Choice(["auto", "names", "ids", "coords", "ipc"]),
              help="auto also recognises IPC plans (one ground action per line).")
@click.option("--pddl", "domain", type=click.Path(exists=True, dir_okay=False),
              help="PROBLEM is a PDDL problem file of this domain file.")
@click.option("--show/--summary", "show_positions", default=False, help="Print every position.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def verify(problem: str, plan: str, notation: str, domain: str | None, show_positions: bool,
           as_json: bool, **kw) -> None:
    """Replay PLAN (a file or the moves themselves) on PROBLEM and check the goal."""
    from .bitboard import replay
    from .display import render
    from .errors import PlanError
    from .notation import format_plan, parse_plan
    from .pddl import is_ipc_plan
    from .pddl import parse_plan as parse_ipc

    prob, task = _task(problem, kw, domain)
    text = _read_plan_arg(plan)
    try:
        if notation == "ipc" or notation == "auto" and is_ipc_plan(text):
            hops = parse_ipc(prob, text, task.objects if task else None)
        else:
            hops = parse_plan(prob.board, text, notation)
    except PlanError as exc:
        if as_json:
            click.echo(json.dumps({"valid": False, "error": str(exc), "step": exc.step}))
            sys.exit(1)
        raise
    try:
        rep = replay(prob, hops)
    except PlanError as exc:
        if as_json:
            click.echo(json.dumps({"valid": False, "error": str(exc), "step": exc.step}))
            sys.exit(1)
        raise
    if as_json:
        click.echo(json.dumps({
            "valid": True, "problem": prob.describe(), "jumps": rep.jumps, "moves": rep.moves,
            "plan": format_plan(prob.board, rep.plan),
            "final": [prob.board.names[h] for h in range(prob.board.n) if rep.final >> h & 1],
        }))
        return
    if show_positions:
        for i, pos in enumerate(rep.positions):
            click.echo(f"after {i} jumps:" if i else "start:")
            click.echo(render(prob.board, pos))
    click.echo(f"valid: {prob.describe()} in {rep.jumps} jumps and {rep.moves} moves")


@main.command()
@click.argument("problem")
@problem_options
@click.option("--planner", default="auto", type=click.Choice(["auto", "sat", "cpsat", "search", "moves"]),
              help="auto: search on boards up to 21 holes, else search and SAT side by side; "
              "moves: the fewest moves (same as --min-moves).")
@click.option("--min-moves", is_flag=True, help="Fewest moves, with the proof that none has fewer "
              "(exit 20 when the time limit leaves it unproven).")
@click.option("--solver", default="cadical195", show_default=True,
              help="python-sat solver for --planner sat (e.g. kissat404, glucose4).")
@click.option("--workers", default=2, show_default=True, help="CP-SAT workers.")
@click.option("--time-limit", type=float, help="Seconds; past it the answer is 'unknown'.")
@click.option("--steps", default="parallel", type=click.Choice(["parallel", "sequential"]),
              show_default=True, help="Step semantics of the SAT/CP-SAT encoding.")
@click.option("--no-symmetry", is_flag=True, help="Do not break symmetries in the encoding.")
@click.option("--notation", type=click.Choice(["names", "ids", "coords", "ipc"]),
              help="Plan notation (default: ipc for PDDL input, else names).")
@click.option("--pddl", "domain", type=click.Path(exists=True, dir_okay=False),
              help="PROBLEM is a PDDL problem file of this domain file.")
@click.option("--show", "show_positions", is_flag=True, help="Print every position of the plan.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable result.")
@click.option("--out", type=click.Path(dir_okay=False), help="Also write the plan to this file.")
def solve(problem: str, planner: str, min_moves: bool, solver: str, workers: int,
          time_limit: float | None, steps: str, no_symmetry: bool, notation: str | None,
          domain: str | None, show_positions: bool, as_json: bool, out: str | None, **kw) -> None:
    """Find a plan for PROBLEM, prove there is none, or say it is unknown.

    PROBLEM is a board (name or file), a TOML problem file or an IPC PDDL problem file
    (its domain: --pddl DOMAIN, or domain.pddl beside it)."""
    from .bitboard import replay_plan
    from .display import render
    from .encoder import EncodeOptions
    from .files import write_atomic
    from .planners.base import Config
    from .solve import solve as run

    if min_moves:
        if planner not in ("auto", "moves"):
            raise PegsatError(f"--min-moves has its own planner; drop --planner {planner}")
        planner = "moves"
    prob, task = _task(problem, kw, domain)
    notation = notation or ("ipc" if task else "names")
    config = Config(solver=solver, workers=workers, time_limit=time_limit,
                    encode=EncodeOptions(steps=steps, symmetry=not no_symmetry))
    result = run(prob, planner, config)
    code = EXIT[result.status.value]
    if result.lower_bound is not None and result.plan is not None and not result.optimal:
        code = EXIT["unknown"]  # a plan, but its optimality is unproven
    if result.plan is not None and out:
        text = _plan_text(prob, result.plan, notation, task) + "\n"
        write_atomic(Path(out), lambda fh: fh.write(text))
    if as_json:
        click.echo(json.dumps(result.to_json(), default=str))
        sys.exit(code)
    click.echo(f"problem: {prob.describe()}")
    status = result.status.value
    line = f"{status} by {result.planner}"
    if result.proof:
        line += f" (proof: {result.proof.value})"
    if result.detail:
        line += f": {result.detail}"
    click.echo(line)
    if result.plan is not None:
        click.echo(f"{len(result.plan)} jumps, {result.moves} moves:")
        click.echo(_plan_text(prob, result.plan, notation, task))
        if show_positions:
            for i, pos in enumerate(replay_plan(prob, result.plan).positions):
                click.echo(f"\nafter {i} jumps:" if i else "\nstart:")
                click.echo(render(prob.board, pos))
    st = result.stats
    if "search_s" in st:
        click.echo(f"time: {st.get('total_s', 0):.2f} s (first plan {st.get('upper_s', 0):.2f} s, "
                   f"search by moves {st['search_s']:.2f} s, {st['positions']} positions)")
    else:
        click.echo(f"time: {st.get('total_s', 0):.2f} s (encode {st.get('encode_s', 0):.2f} s, "
                   f"solve {st.get('solve_s', 0):.2f} s)")
    sys.exit(code)


@main.command()
@click.argument("problem")
@click.argument("out", type=click.Path(dir_okay=False))
@problem_options
@click.option("--steps", default="parallel", type=click.Choice(["parallel", "sequential"]),
              show_default=True)
@click.option("--no-symmetry", is_flag=True)
@click.option("--card", default="seqcounter", show_default=True,
              help="python-sat cardinality encoding (seqcounter, ladder, totalizer, ...).")
@click.option("--horizon", type=int, help="Parallel steps, fewer than the jumps: often much "
              "easier for a solver, but UNSAT then proves nothing.")
def export(problem: str, out: str, steps: str, no_symmetry: bool, card: str,
           horizon: int | None, **kw) -> None:
    """Write PROBLEM as a self-describing DIMACS CNF file OUT."""
    from .dimacs import export as do_export
    from .encoder import CARD_ENCODINGS, EncodeOptions

    if card not in CARD_ENCODINGS:
        raise PegsatError(f"unknown --card {card!r}; choose from {', '.join(CARD_ENCODINGS)}")
    prob = _problem(problem, kw)
    info = do_export(prob, out, EncodeOptions(steps=steps, symmetry=not no_symmetry, card=card),
                     steps=horizon)
    click.echo(f"wrote {info.path}: {info.variables} variables, {info.clauses} clauses, "
               f"horizon {info.horizon} ({prob.describe()})")


@main.command("export-pddl")
@click.argument("problem")
@click.argument("outdir", type=click.Path(file_okay=False))
@problem_options
def export_pddl(problem: str, outdir: str, **kw) -> None:
    """Write PROBLEM as OUTDIR/domain.pddl and OUTDIR/problem.pddl (IPC sequential style)."""
    from .files import write_atomic
    from .pddl import SEQUENTIAL_DOMAIN, write_problem

    prob = _problem(problem, kw)
    text = write_problem(prob)
    out = Path(outdir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PegsatError(f"cannot create {out}: {exc.strerror}") from None
    write_atomic(out / "domain.pddl", lambda fh: fh.write(SEQUENTIAL_DOMAIN))
    write_atomic(out / "problem.pddl", lambda fh: fh.write(text))
    click.echo(f"wrote {out / 'domain.pddl'} and {out / 'problem.pddl'} ({prob.describe()})")


@main.command()
@click.argument("cnf", type=click.Path(exists=True, dir_okay=False))
@click.argument("model", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True)
def decode(cnf: str, model: str, as_json: bool) -> None:
    """Turn a SAT solver's MODEL for an exported CNF into a verified plan."""
    from .dimacs import decode as do_decode
    from .notation import format_plan

    d = do_decode(cnf, model)
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
