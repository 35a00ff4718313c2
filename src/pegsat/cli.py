"""The ``pegsat`` command line. Holds no logic: parses, calls the library, prints.

Exit codes: 0 solved / verified, 10 proven unsolvable, 20 unknown (time limit), 1 error or a
plan that does not replay, 2 bad input, 130 interrupted. Heavy modules (solvers, encoder)
are imported inside the commands so that ``pegsat --help`` answers at once.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from .errors import PegsatError
from .planners import PLANNERS

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
@click.option("--planner", default="auto", type=click.Choice(list(PLANNERS)),
              help="auto: search on boards up to 21 holes, else search, SAT and CP-SAT side by "
              "side; moves: the fewest moves (same as --min-moves); layers: exhaustive "
              "search by jumps, pruned by learned pagodas (for proofs of unsolvability).")
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
    if "lp_calls" in st:
        click.echo(f"time: {st.get('total_s', 0):.2f} s ({st['positions']} positions kept, {st['pagodas']} "
                   f"pagodas learned by {st['lp_calls']} LPs in {st['lp_s']:.1f} s)")
    elif "search_s" in st:
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


@main.command()
@click.argument("problem")
@problem_options
@click.option("--certificate", "cert_out", type=click.Path(dir_okay=False),
              help="Write the certificate (JSON) here; check it later with 'pegsat check'.")
@click.option("--proof", type=click.Path(dir_okay=False),
              help="SAT step: write the DRAT proof here (default: beside the certificate).")
@click.option("--cnf", type=click.Path(dir_okay=False),
              help="SAT step: write the CNF here (default: the proof's name with .cnf).")
@click.option("--time-limit", type=float, help="Seconds for the search or SAT step; past it: unknown.")
@click.option("--no-sat", is_flag=True, help="Stop after counting, classes and pagoda.")
@click.option("--sat", "sat_only", is_flag=True,
              help="After the pagoda step go to SAT + DRAT directly, skipping the exhaustive search.")
@click.option("--json", "as_json", is_flag=True)
def prove(problem: str, cert_out: str | None, proof: str | None, cnf: str | None,
          time_limit: float | None, no_sat: bool, sat_only: bool, as_json: bool, **kw) -> None:
    """Prove PROBLEM unsolvable with a checkable certificate (or find that it is solvable).

    Tries counting, position classes, a pagoda function by LP, then an exhaustive search by
    jumps pruned by learned pagodas (boards up to 64 holes), else SAT with a DRAT proof
    cross-checked by a second solver. Exit 10 proven unsolvable, 0 solvable, 20 unknown."""
    from .files import write_atomic
    from .notation import format_plan
    from .prove import prove as run

    prob = _problem(problem, kw)
    if cert_out and not proof:
        proof = str(Path(cert_out).with_suffix(".drat"))
    if proof and not cnf:
        cnf = str(Path(proof).with_suffix(".cnf"))
    base = Path(cert_out).parent if cert_out else None
    res = run(prob, time_limit=time_limit, cnf=cnf, proof=proof, use_sat=not no_sat, base=base,
              search=not sat_only)
    if res.certificate is not None and cert_out:
        text = json.dumps(res.certificate, indent=1) + "\n"
        write_atomic(Path(cert_out), lambda fh: fh.write(text))
    if as_json:
        click.echo(json.dumps({"status": res.status.value, "kind": res.kind, "detail": res.detail,
                               "certificate": cert_out if res.certificate and cert_out else None,
                               "plan": format_plan(prob.board, res.plan) if res.plan else None,
                               "stats": res.stats}, default=str))
        sys.exit(EXIT[res.status.value])
    click.echo(f"problem: {prob.describe()}")
    click.echo(f"{res.status.value}" + (f" (proof: {res.kind})" if res.kind else "") + f": {res.detail}")
    if res.plan is not None:
        click.echo(format_plan(prob.board, res.plan))
    if res.certificate is not None and cert_out:
        files = f" (CNF {cnf}, DRAT proof {proof})" if res.kind == "sat" else ""
        click.echo(f"certificate: {cert_out}{files}")
    sys.exit(EXIT[res.status.value])


@main.command()
@click.argument("cert", type=click.Path(dir_okay=False))
def check(cert: str) -> None:
    """Re-verify a certificate written by 'pegsat prove', exactly and independently.

    Exit 0 when it holds, 1 when it is rejected, 2 when the file is not a certificate."""
    from .certificate import check as run
    from .certificate import load

    data = load(cert)
    verdict = run(data, Path(cert).parent)
    click.echo(f"{data['problem']['description']}: {data['kind']} certificate "
               + ("holds" if verdict.ok else "REJECTED") + f": {verdict.message}")
    sys.exit(0 if verdict.ok else 1)


@main.command()
@click.argument("board")
@click.option("--results", type=click.Path(dir_okay=False),
              help="JSON-lines results file, appended as problems are settled; a rerun resumes "
              "from it (default: survey-BOARD.jsonl).")
@click.option("--min-moves", is_flag=True, help="Solve with the fewest moves (slower).")
@click.option("--time-limit", type=float, default=60.0, show_default=True,
              help="Seconds per problem; past it the problem stays unknown.")
@click.option("--layers-limit", type=float,
              help="Seconds for the last, exhaustive step on problems the planners left unknown "
              "(default: --time-limit; French d3 -> d5 needs about 1000).")
@click.option("--picture", type=click.Path(dir_okay=False),
              help="SVG of the board, each hole coloured by how many survivors its vacancy allows.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the full table as JSON.")
@click.option("--quiet", is_flag=True, help="No per-problem progress lines.")
def survey(board: str, results: str | None, min_moves: bool, time_limit: float, layers_limit: float | None,
           picture: str | None, json_out: str | None, quiet: bool) -> None:
    """Classify every single-vacancy -> single-survivor problem of BOARD."""
    from .boardfile import load_board
    from .files import write_atomic
    from .survey import picture as survey_picture
    from .survey import run, table

    b = load_board(board)
    path = Path(results or f"survey-{b.name}.jsonl")

    def progress(e, i, n):
        if not quiet:
            what = e.status + (f" in {e.moves} moves" if e.moves is not None else "") + (
                f" ({e.proof})" if e.proof else "")
            click.echo(f"[{i}/{n}] {e.vacancy} -> {e.survivor}: {what}  {e.seconds:.2f} s", err=True)

    t0 = time.perf_counter()
    try:
        reps = run(b, path, planner="moves" if min_moves else "auto", time_limit=time_limit,
                   layers_limit=layers_limit, progress=progress)
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished problems are kept in {path}; rerun to resume", err=True)
        sys.exit(130)
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
    sys.exit(0 if t.unknown == 0 else EXIT["unknown"])


@main.command()
@click.argument("jobs")
@click.option("--results", type=click.Path(dir_okay=False),
              help="JSON-lines results, appended as jobs finish; a rerun skips answered jobs "
              "(default: batch-<JOBS name>.jsonl).")
@click.option("--workers", default=2, show_default=True, help="Local cluster size (worker processes).")
@click.option("--scheduler", help="Address of an existing Dask scheduler (tcp://host:8786) instead.")
@click.option("--time-limit", type=float, default=60.0, show_default=True, help="Seconds per job.")
@click.option("--min-moves", is_flag=True, help="Solve each job with the fewest moves.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def batch(jobs: str, results: str | None, workers: int, scheduler: str | None, time_limit: float,
          min_moves: bool, quiet: bool) -> None:
    """Solve many problems on Dask: JOBS is a file of problems (one per line, as on the command
    line) or a board name (all its single-vacancy -> single-survivor problems)."""
    from collections import Counter

    from .batch import load_jobs, run

    job_list = load_jobs(jobs)
    path = Path(results or f"batch-{Path(jobs).stem}.jsonl")
    t0 = time.perf_counter()
    try:
        recs = run(job_list, path, workers=workers, scheduler=scheduler, time_limit=time_limit,
                   planner="moves" if min_moves else "auto", quiet=quiet)
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished jobs are kept in {path}; rerun to resume", err=True)
        sys.exit(130)
    counts = Counter(r.get("status") for r in recs.values())
    click.echo(f"{len(job_list)} jobs in {time.perf_counter() - t0:.1f} s: "
               + ", ".join(f"{n} {k}" for k, n in counts.most_common()) + f" (results: {path})")
    sys.exit(EXIT["error"] if counts.get("error") else EXIT["unknown"] if counts.get("unknown") else 0)


@main.command()
@click.argument("problem")
@click.argument("plan")
@problem_options
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="FILE.svg (every move drawn on the start position) or FILE.html (steps through it).")
@click.option("--notation", default="auto", type=click.Choice(["auto", "names", "ids", "coords", "ipc"]))
def render(problem: str, plan: str, out: str, notation: str, **kw) -> None:
    """Draw PLAN (a file or the moves) for PROBLEM as SVG or a self-contained HTML page."""
    from .bitboard import replay
    from .files import write_atomic
    from .notation import parse_plan
    from .pddl import is_ipc_plan
    from .pddl import parse_plan as parse_ipc
    from .render import plan_html, plan_svg

    prob, task = _task(problem, kw, None)
    text = _read_plan_arg(plan)
    if notation == "ipc" or notation == "auto" and is_ipc_plan(text):
        hops = parse_ipc(prob, text, task.objects if task else None)
    else:
        hops = parse_plan(prob.board, text, notation)
    rep = replay(prob, hops)  # only a valid plan is drawn
    suffix = Path(out).suffix.lower()
    if suffix not in (".svg", ".html", ".htm"):
        raise PegsatError(f"--out {out}: give a .svg or .html file")
    page = plan_svg(prob, rep.plan) if suffix == ".svg" else plan_html(prob, rep.plan)
    write_atomic(Path(out), lambda fh: fh.write(page))
    click.echo(f"wrote {out}: {rep.jumps} jumps, {rep.moves} moves ({prob.describe()})")


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
