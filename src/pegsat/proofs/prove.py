"""``pegsat prove``: settle a problem with the cheapest argument a sceptic can check.

In order, stopping at the first that settles it:

1. the cheap proofs (``proofs.cheap``): counting, position classes, a pagoda function by LP;
2. exhaustive search, boards of at most 64 holes: first the compiled depth-first search
   (``proofs.deadset``, half the time left): exhausted, its dead positions become a file and
   a ``dead-set`` certificate that an independent checker verifies position by position;
   then (``planners.layers``, goals of a fixed peg count) breadth-first by jumps from both
   ends, pruned by pagodas it learns by LP; when nothing meets, the certificate is those
   pagodas and the level sizes, checked by re-running the search. It settles problems SAT
   cannot (French d3 -> d5); ``--sat`` skips it. On
   boards of more than ``analysis.games.SPLIT_ABOVE`` holes a one-peg-anywhere goal is split first, as the
   ``search`` planner splits it: each class-compatible survivor (one per orbit of the
   start's symmetries) is refuted by a cheap proof or an exhaustive search of its game or of
   the time-reversed game, whichever settles it (a ``split`` certificate holds them all);
   diamond e4 -> one peg, where the whole open goal is out of reach of the levels;
3. SAT: the time-indexed CNF at the full horizon, solved by CaDiCaL with its DRAT proof
   written beside the CNF, and cross-checked by a second, different solver (Glucose by
   default). A model instead is decoded and replayed: then the problem is solvable.

Each certificate is re-checked by ``certificate.check`` before it is returned: a proof that
fails its own check is an error, never a result. A dead set of more than ``PART`` positions is
re-checked but for the walk of its children, which its repair pass has just made in the core;
``pegsat check`` makes that walk independently (diamond e1's in ``bench/results-atlas.txt``).
A time limit gives "unknown". The certificate file and the CNF and proof it names are written
together (``files.Staging``): an interrupted run leaves the old files, all of them, or none.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..analysis import games, pagoda
from ..checks import certificate
from ..checks.evidence import sha256
from ..deadline import Deadline
from ..encoding.encoder import EncodeOptions
from ..engine.bitboard import replay_plan
from ..errors import PegsatError, PlanError
from ..files import Staging
from ..model.problem import Problem, goal_positions, holes_of
from ..model.result import Certificate, Proof, Result, Stats, Status
from ..process import OUT_OF_MEMORY, cores
from . import deadset
from .cheap import cheap_proofs

NAME = "prove"
#: the first round over a split's games: this share of a game's time, this many dead positions
QUICK_SHARE, QUICK_DEAD = 0.1, 1 << 22
#: dead positions per file of a dead-set certificate (128 MB in memory when checked); a set
#: of more is checked here but for the walk of its children (that its repair pass has just
#: made in the core), which ``pegsat check`` makes independently
PART = 1 << 24
#: the open game of a one-peg goal on a large board: the share of the time it gets before the
#: split by survivors, and its dead set's size at most (4 GB in memory, as its table at the
#: most: ``turns.PROVE_TABLE_BITS``; diamond e1's holds 2.8 x 10^8)
OPEN_SHARE, OPEN_LIMIT = 0.6, 1 << 29


class _Files:
    """Where certificates' data files go: beside the certificate file (staged, written with
    it), or without one, into a temporary directory that lives as long as the check."""

    def __init__(self, stage: Staging, certificate_path: str | Path | None, tmp: str) -> None:
        self.stage, self.cert, self.tmp = stage, certificate_path, tmp
        self.staged: dict[str, Path] = {}
        self._lock = threading.Lock()  # parts are written on threads; staging sets the umask

    def put(self, hint: str, positions: Any) -> str:
        """Write sorted positions (``checks.positions.save_positions``); returns the file's name
        for the certificate."""
        from ..checks.positions import save_positions

        with self._lock:
            if self.cert is not None:
                target = beside(self.cert, f".{hint}.npz")
                name, path = _rel(target, Path(self.cert).parent), self.stage.path(target)
            else:
                path = Path(self.tmp) / f"{hint}.npz"
                name = str(path)
        with open(path, "wb") as fh:
            save_positions(fh, positions)
        with self._lock:
            self.staged[name] = path
        return name


def prove(problem: Problem, deadline: Deadline | None = None, *, certificate_path: str | Path | None = None,
          cnf: str | Path | None = None, proof: str | Path | None = None, solver: str = "cadical195",
          second: str = "glucose4", use_sat: bool = True, search: bool = True, cheap: bool = True,
          encode: EncodeOptions | None = None, progress: Callable[[str], None] | None = None) -> Result:
    """``certificate_path``: write the certificate there (with, for SAT, the CNF and the DRAT
    proof at ``cnf`` and ``proof``, default beside it). ``use_sat=False`` stops after the
    cheap proofs; ``search=False`` goes from there to SAT; ``cheap=False`` (with
    ``search=False``: pure SAT) skips the cheap proofs too. ``encode``: the SAT step's encoding
    (default ``EncodeOptions()``; its classes and pagodas are clauses of the formula the check
    re-encodes). ``progress`` hears a line per step of a long proof (the open game's search,
    each round of its dead set's repair, the check)."""
    say = progress or (lambda line: None)
    if problem.special is not None:
        raise PegsatError("prove does not handle the special-peg rule; use solve")
    deadline = deadline or Deadline()
    t0 = time.perf_counter()
    with Staging() as stage, tempfile.TemporaryDirectory() as tmp:
        files = _Files(stage, certificate_path, tmp)
        r, staged = _prove(problem, deadline, stage, files, certificate_path, cnf, proof, (solver, second),
                           (use_sat, search, cheap), encode or EncodeOptions(), say)
        staged = {**staged, **files.staged}
        if r.status is Status.UNSOLVABLE and r.certificate is not None:
            base = Path(certificate_path).parent if certificate_path else Path(cnf or ".").parent
            say(f"checking the {r.certificate['kind']} certificate ({time.perf_counter() - t0:.0f} s)")
            r = _checked(r, base, staged, deadline)
            if r.status is Status.UNSOLVABLE and certificate_path is not None:
                text = json.dumps(r.certificate, indent=1) + "\n"
                stage.write(certificate_path, lambda fh: fh.write(text))
        if r.status is Status.UNSOLVABLE:
            stage.commit()
    if r.status is Status.UNKNOWN and search and problem.goal.min_pegs == problem.goal.max_pegs:
        r = replace(r, detail=f"{r.detail}; {LEVELS_HINT}")
    return replace(r, planner=NAME, stats={**r.stats, "total_s": time.perf_counter() - t0})


def prove_moves(problem: Problem, plan: tuple[int, ...], deadline: Deadline | None = None, *,
                certificate_path: str | Path) -> Result:
    """The fewest moves of a plan proven, with a ``moves`` certificate at
    ``certificate_path``: the search by moves (``planners.moves``) bounded by the plan's own
    moves, in memory, finds no plan with fewer; its levels, the bound, and the Merson regions
    and pagodas it pruned with are the evidence (one file of positions a level beside the
    certificate), checked by the independent checker (``checks.moves``) before anything
    is written.
    "solved-optimal" then; "unknown" past the deadline or the memory budget (nothing
    written); "solved" with a plan of fewer moves if the search finds one."""
    from ..analysis import merson
    from ..deadline import Timeout
    from ..planners import moves as by_moves

    t0 = time.perf_counter()
    deadline = deadline or Deadline()
    upper = replay_plan(problem, plan).moves
    if problem.board.n > 64 or by_moves.supports(problem) is not None or goal_positions(problem) is None:
        return Result(Status.UNKNOWN, problem, NAME, plan=plan,
                      detail="move bounds are certified on boards of at most 64 holes, without a special "
                      "peg, for a goal whose positions can be listed")
    search = by_moves.Search(problem, deadline, upper=upper)
    try:
        _, lower, meeting = search.run_learning(deadline)
    except Timeout as exc:
        return Result(Status.UNKNOWN, problem, NAME, plan=plan,
                      detail=f"{exc or 'time limit'}: the search by moves under {upper} moves did not finish")
    if meeting is not None:
        _, fewer = search.walk(meeting)
        return Result(Status.SOLVED, problem, NAME, plan=replay_plan(problem, fewer).plan,
                      detail=f"a plan of {lower} moves: {upper} are not the fewest")
    names = problem.board.names
    regions = list(merson.region_family(problem.board))
    with Staging() as stage, tempfile.TemporaryDirectory() as tmp:
        files = _Files(stage, certificate_path, tmp)

        def level(side: str, d: int, x: Any) -> dict[str, Any]:
            name = files.put(f"{side[0]}{d}", x)
            return {"file": name, "count": len(x), "sha256": sha256(files.staged[name])}

        cert = certificate.make(problem, "moves", {
            "moves": upper, "upper": upper, "probe": search.probed or "",
            "symmetries": [list(p) for p in search.levels.group],
            "regions": [[names[h] for h in holes_of(r)] for r in regions],
            "pagodas": pagoda.named_pagodas(problem, search.pagodas),
            "forward": [level("forward", d, x) for d, x in enumerate(search.fwd)],
            "backward": [level("backward", d, x) for d, x in enumerate(search.bwd or [])]})
        del search  # its levels, now in the files: the check reads them back, and needs the room
        v = certificate.check(cert, Path(certificate_path).parent, staged=files.staged, deadline=deadline)
        if v.ok:
            text = json.dumps(cert, indent=1) + "\n"
            stage.write(certificate_path, lambda fh: fh.write(text))
            stage.commit()
    stats: Stats = {"total_s": time.perf_counter() - t0}
    if v.ok:
        return Result(Status.SOLVED_OPTIMAL, problem, NAME, plan=plan, lower_bound=upper, certificate=cert,
                      stats=stats, detail=v.message)
    if not v.finished:  # a limit cut its walk short: nothing is kept
        said = v.reason
        return Result(Status.UNKNOWN, problem, NAME, plan=plan, stats=stats,
                      detail=f"{said}; no certificate written")
    return Result(Status.ERROR, problem, NAME, stats=stats,
                  detail=f"internal error: the moves certificate failed its own check ({v.message})")


#: what is left to a user whose problem ``prove`` leaves open (a goal of a fixed number of pegs)
LEVELS_HINT = ("a search by jumps on disk that exhausts is a certificate too: 'pegsat solve ... --planner "
               "layers --spill DIR' writes DIR/certificate.json")


def _prove(problem, deadline, stage, files, certificate_path, cnf, proof, solvers, route, encode,
           say) -> tuple[Result, dict[str, Path]]:
    """The result, and the SAT step's files by their names in the certificate (staged)."""
    use_sat, search, cheap = route
    found = cheap_proofs(problem) if cheap else None
    if found is not None:
        return found, {}
    if not use_sat:
        return Result(Status.UNKNOWN, problem, NAME,
                      detail="counting, classes and pagoda LP settle nothing"), {}
    from ..planners import layers

    if search and (layers.supports(problem) is None or deadset.supports(problem) is None):
        opened = games.split(problem) is not None
        if games.large(problem) and (opened or deadset.supports(problem) is None):
            whole = _whole_game(problem, deadline.share(OPEN_SHARE), files, say, opened)
            if whole.status is not Status.UNKNOWN:
                return whole, {}
            if opened:
                say(f"{whole.detail}; survivor by survivor")
                split = _by_survivor(problem, deadline, files, say)
                if split is not None:
                    return split, {}
            elif games.reversed_game(problem) is not None:
                say(f"{whole.detail}; both ways")
                return _both_ways(problem, deadline, files, say), {}
            else:
                say(f"{whole.detail}; the exhaustive search")
        return _exhaustive(problem, deadline, files, "dead"), {}
    if certificate_path is not None and proof is None:
        proof = beside(certificate_path, ".drat")
    if proof is not None and cnf is None:
        cert = certificate_path
        cnf = Path(proof).with_suffix(".cnf") if cert is None else beside(cert, ".cnf")
    if certificate_path is not None:
        for f in (proof, cnf):
            if _rel(Path(f), Path(certificate_path).parent).startswith(("/", "..")):
                raise PegsatError(f"{f}: a certificate's files go in its directory or below it "
                                  "(it names them relative to itself)")
    return _sat(problem, deadline, stage, cnf, proof, solvers, certificate_path, encode)


def _checked(r: Result, base: Path, staged: dict[str, Path], deadline: Deadline) -> Result:
    """The result, once its certificate passed its own check (the SAT step's files are checked
    where they are staged, before they replace anything). A check cut short by the deadline
    (a long DRAT replay) leaves the result as the solvers gave it, and says so."""
    cert = r.certificate
    assert cert is not None  # only results with a certificate are checked
    verdict = certificate.check(cert, base, staged=staged, deadline=deadline, walk_above=PART)
    if not verdict.finished:
        said = verdict.reason
        return replace(r, detail=f"not checked in full here: {said}; the certificate is written: "
                       "'pegsat check' checks it in full, without a time limit")
    if not verdict.ok:
        return Result(Status.ERROR, r.problem, NAME, stats=r.stats,
                      detail=f"internal error: the {cert['kind']} certificate failed its own check "
                      f"({verdict.message})")
    return replace(r, detail=verdict.message)


def _exhaustive(problem: Problem, deadline: Deadline, files: _Files, hint: str, limit: int | None = None,
                fallback: bool = True) -> Result:
    """The depth-first search's dead set (at most ``limit`` positions) for half the time left,
    then (``fallback``) the level search."""
    from ..planners import layers
    from ..planners.config import Config

    if deadset.supports(problem) is None:
        try:
            got = deadset.refute(problem, deadline.share(0.5) if fallback else deadline,
                                 limit or deadset.LIMIT)
        except deadset.Inconsistent as exc:
            return Result(Status.ERROR, problem, NAME, detail=f"internal error: {exc}")
        if got.kind == "plan" and got.plan is not None:
            try:
                replay_plan(problem, got.plan)
            except PlanError as exc:
                return Result(Status.ERROR, problem, NAME, detail=f"the search's plan does not replay: {exc}")
            return Result(Status.SOLVED, problem, NAME, plan=got.plan, stats=got.stats or {},
                          detail="not unsolvable: the depth-first search found a plan")
        if got.kind == "dead" and got.dead is not None:
            return _dead_set(problem, got, files, hint)
        if layers.supports(problem) is not None or not fallback:
            return Result(Status.UNKNOWN, problem, NAME, detail=f"depth-first search: {got.why}")
    r = layers.solve(problem, deadline, Config())
    if r.status is Status.UNKNOWN:
        return replace(r, detail=f"{r.detail} (try --sat for the SAT route)")
    if r.plan is not None:
        try:
            replay_plan(problem, r.plan)
        except PlanError as exc:
            return Result(Status.ERROR, problem, NAME, detail=f"the search's plan does not replay: {exc}")
        return replace(r, detail="not unsolvable: the exhaustive search found a plan")
    return r  # with its exhaustive certificate


def _dead_set(problem: Problem, got: deadset.Outcome, files: _Files, hint: str) -> Result:
    """The ``dead-set`` certificate of a closed dead set (``deadset.Outcome``), its positions
    in one file, or in files of ``PART`` positions (the checker holds one at a time)."""
    names = problem.board.names
    dead = got.dead
    assert dead is not None  # only closed sets are written
    if len(dead) <= PART:  # one file, as a small set always was
        name = files.put(hint, dead)
        where: dict[str, Any] = {"positions": name, "sha256": sha256(files.staged[name])}
    else:  # the parts on every core (compression and hashing release the GIL)
        def part(i: int) -> dict[str, Any]:
            chunk = dead[i * PART:(i + 1) * PART]
            name = files.put(f"{hint}.{i:04d}", chunk)
            return {"file": name, "count": len(chunk), "sha256": sha256(files.staged[name])}

        with ThreadPoolExecutor(cores()) as pool:
            where = {"positions": list(pool.map(part, range(-(-len(dead) // PART))))}
    ev = {**where, "count": len(dead),
          "symmetries": [list(p) for p in got.group],
          "pagodas": [{"weights": {names[h]: w for h, w in enumerate(pg.weights) if w},
                       "floor": pg.floor} for pg in got.pagodas]}
    if got.classes:  # the open game: pagodas weighed hole by hole (``deadset.Rule``)
        ev["classes"] = [[names[h] for h in holes_of(c)] for c in got.classes]
    return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.EXHAUSTED, stats=got.stats or {},
                  certificate=certificate.make(problem, "dead-set", ev),
                  detail=f"depth-first search exhausted: {len(dead)} dead positions")


def _whole_game(problem: Problem, deadline: Deadline, files: _Files, say: Callable[[str], None],
                opened: bool = True) -> Result:
    """The game searched whole, as the ``search`` planner's turns search it (its table grown,
    pagodas mined between turns, on every core): a plan, a ``dead-set`` certificate of its
    exhausted table (closed by ``deadset.close``; for the open game of a one-peg goal,
    ``opened``, pagodas weighed hole by hole), or "unknown". A fixed goal on a large board
    too: the turns exhaust diamond d2 -> f8, where a plain depth-first search's table
    overflows (its table then loses too many positions to close: ``bench/results-atlas.txt``)."""
    from ..planners.config import Config
    from ..planners.turns import alone

    t = time.perf_counter()
    game = "the open game" if opened else "the game"
    say("the open game (every survivor at once): searching it whole" if opened
        else "the game: searching it in turns")
    r, state = alone(problem, deadline, Config())
    if r.status is Status.SOLVED and r.plan is not None:
        replay_plan(problem, r.plan)
        return Result(Status.SOLVED, problem, NAME, plan=r.plan,
                      detail=f"not unsolvable: {game} has a plan")
    if r.status is not Status.UNSOLVABLE or state.table is None:
        return Result(Status.UNKNOWN, problem, NAME, detail=f"{game}: {r.detail or 'undecided'}")
    say(f"{game}: exhausted ({time.perf_counter() - t:.0f} s); closing its dead table "
        f"({len(state.table):,} slots, {len(state.pagodas or ())} pagodas) into a dead set")
    try:
        got = deadset.close(problem, state.table, tuple(state.pagodas or ()), deadline, OPEN_LIMIT, r.stats,
                            say)
    except deadset.Inconsistent as exc:
        return Result(Status.ERROR, problem, NAME, detail=f"internal error: {exc}")
    if got.kind != "dead":
        return Result(Status.UNKNOWN, problem, NAME, detail=f"{game}'s dead set: {got.why}")
    return _dead_set(problem, got, files, "dead-open" if opened else "dead")


def _by_survivor(problem: Problem, deadline: Deadline, files: _Files,
                 say: Callable[[str], None] = lambda line: None) -> Result | None:
    """A ``split`` certificate for a one-peg-anywhere goal, a plan (a survivor's game, or its
    reversal, was solvable), "unknown" (a survivor left undecided), or None (not such a goal).
    Both directions of every survivor get a cheap proof first, then a small depth-first
    search each, then the whole exhaustive step; each an equal share of the time left."""
    from ..analysis.invariants import separating_weight

    survivors = games.split(problem)
    if survivors is None:
        return None
    reps, out = survivors.survivors, survivors.ruled_out
    board = problem.board
    names = board.names
    pairs = [(h, survivors.games(h)) for h in reps]
    found: dict[int, tuple[bool, Certificate]] = {}
    for h, pair in pairs:
        for one in pair:
            c = cheap_proofs(one.problem)
            if c is not None and c.certificate is not None:
                found[h] = (one.reverse, c.certificate)
                break
    todo = [(h, one.problem, one.reverse, f"dead-{names[h]}{'-reversed' if one.reverse else ''}")
            for h, pair in pairs if h not in found for one in pair]
    for h, rev, r, secs in _rounds(todo, deadline, files, lambda h: h in found):
        say(f"survivor {names[h]}{' (the reversed game)' if rev else ''}: {r.status.value} ({secs:.0f} s)")
        if r.status is Status.SOLVED and r.plan is not None:
            plan = tuple(reversed(r.plan)) if rev else r.plan
            replay_plan(problem, plan)
            how = " (the time-reversed game's plan, reversed)" if rev else ""
            return Result(Status.SOLVED, problem, NAME, plan=plan,
                          detail=f"not unsolvable: survivor {names[h]} is reachable{how}")
        if r.status is Status.UNSOLVABLE and r.certificate is not None:
            found[h] = (rev, r.certificate)
        elif r.status is Status.ERROR:
            return r
    open_ = [names[h] for h in reps if h not in found]
    if open_:
        return Result(Status.UNKNOWN, problem, NAME,
                      detail=f"time limit: survivor undecided at {' '.join(open_)} (of {len(reps)} up "
                      "to symmetry; try --sat for the SAT route)")
    ruled = []
    for h in out:
        w = separating_weight(board, problem.start, 1 << h)
        assert w is not None  # survivor_candidates ruled h out by this very weighting
        ruled.append({"target": names[h], "holes": [names[x] for x in holes_of(w.weights)]})
    parts = [{"survivor": names[h], "reversed": rev, "certificate": cert} for h, (rev, cert) in found.items()]
    said = ", ".join(f"{names[h]} by {cert['kind']}{' on the reversed game' if rev else ''}"
                     for h, (rev, cert) in found.items())
    return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.SPLIT,
                  detail=f"{len(out)} survivors ruled out by classes; refuted: {said}",
                  certificate=certificate.make(problem, "split", {"ruled_out": ruled, "survivors": parts}))


def _rounds(todo: list[tuple[Any, Problem, bool, str]], deadline: Deadline, files: _Files,
            settled: Callable[[Any], bool]) -> Iterator[tuple[Any, bool, Result, float]]:
    """Each game of ``todo`` (key, game, played reversed, the hint its dead set's files are
    named by) first gets a small depth-first search (one direction is often far easier:
    diamond e4 -> b6 needs more than 2^25 dead positions, its reversal b6 -> e4 one: both
    first jumps fall below pagodas), then each still open (not ``settled(key)``) the whole
    exhaustive step, every one an equal share of the time left. Yields (key, reversed,
    result, seconds)."""
    rounds = [(QUICK_SHARE, QUICK_DEAD, False), (1.0, deadset.LIMIT, True)]
    for (part, limit, fallback), i, (key, game, rev, hint) in [(r, i, t) for r in rounds
                                                                for i, t in enumerate(todo)]:
        if settled(key):
            continue
        t = time.perf_counter()
        r = _exhaustive(game, deadline.share(part / (len(todo) - i)), files, hint, limit, fallback)
        yield key, rev, r, time.perf_counter() - t


def _both_ways(problem: Problem, deadline: Deadline, files: _Files,
               say: Callable[[str], None] = lambda line: None) -> Result:
    """A fixed goal on a large board searched as it is and as its time-reversed game
    (``_rounds``: one direction is often far easier). A refuted reversal is a ``reversed``
    certificate holding the reversed game's; its plan, reversed, is a plan here."""
    rev = games.reversed_game(problem)
    assert rev is not None  # the caller asked
    ways = [(None, problem, False, "dead"), (None, rev.problem, True, "dead-reversed")]
    last: Result | None = None
    for _, reverse, r, secs in _rounds(ways, deadline, files, lambda _: False):
        say(f"{'the time-reversed game' if reverse else 'the game'}: {r.status.value} ({secs:.0f} s)")
        if r.status is Status.ERROR:
            return r
        if r.status is Status.SOLVED and r.plan is not None:
            if not reverse:
                return r
            plan = rev.lift(r.plan)
            replay_plan(problem, plan)
            return Result(Status.SOLVED, problem, NAME, plan=plan,
                          detail="not unsolvable: the time-reversed game's plan, reversed, is a plan")
        if r.status is Status.UNSOLVABLE and r.certificate is not None:
            if not reverse:
                return r
            return replace(r, problem=problem, detail=f"the time-reversed game: {r.detail}",
                           certificate=certificate.make(problem, "reversed", {"certificate": r.certificate}))
        last = r
    assert last is not None
    return replace(last, problem=problem, detail=f"{last.detail} (both directions tried)")


def _sat(problem: Problem, deadline: Deadline, stage: Staging, cnf_path, proof_path, solvers: tuple[str, str],
         certificate_path, encode: EncodeOptions) -> tuple[Result, dict[str, Path]]:
    from ..encoding.dimacs import export, read_instance
    from ..planners.sat import SolverProcess, check_solver

    solver, second = solvers
    for name in (solver, second):
        check_solver(name)
    keep = cnf_path is not None and proof_path is not None
    with tempfile.TemporaryDirectory() as tmp:
        cnf = stage.path(cnf_path) if keep else Path(tmp) / "instance.cnf"
        drat = stage.path(proof_path) if keep else Path(tmp) / "proof.drat"
        info = export(problem, cnf, encode)
        f, clauses = read_instance(cnf)
        stats: Stats = {"variables": info.variables, "clauses": info.clauses, "horizon": info.horizon,
                        "solver_s": {}}
        for name, proof in ((solver, str(drat)), (second, None)):
            proc = SolverProcess(name, clauses.clauses, [[]], proof_path=proof)
            t = time.perf_counter()
            try:
                got = proc.poll(deadline)
            finally:
                proc.stop()
            stats["solver_s"][name] = time.perf_counter() - t
            if got is None:
                return Result(Status.UNKNOWN, problem, NAME, stats=stats,
                              detail=f"time limit: {name} had not answered ({info.variables} variables, "
                              f"{info.clauses} clauses)"), {}
            kind, payload = got
            if kind in ("error", OUT_OF_MEMORY):
                status = Status.UNKNOWN if kind == OUT_OF_MEMORY else Status.ERROR
                return Result(status, problem, NAME, detail=f"{name}: {payload}", stats=stats), {}
            if kind == "sat":
                plan = f.decode({v for v in payload[1] if v > 0})
                try:
                    replay_plan(problem, plan)
                except PlanError as exc:
                    return Result(Status.ERROR, problem, NAME, stats=stats,
                                  detail=f"{name}'s model does not replay: {exc}"), {}
                return Result(Status.SOLVED, problem, NAME, plan=plan, stats=stats,
                              detail=f"not unsolvable: {name} found a plan"), {}
        if not keep:
            return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.UNSAT, stats=stats,
                          detail=f"UNSAT at the full horizon ({info.horizon} steps) by {solver} and "
                          f"{second}; pass --proof to keep the DRAT proof and the CNF"), {}
        base = Path(certificate_path).parent if certificate_path else Path(cnf_path).parent
        cnf_name, proof_name = _rel(Path(cnf_path), base), _rel(Path(proof_path), base)
        ev = {"cnf": cnf_name, "cnf_sha256": sha256(cnf),
              "proof": proof_name, "proof_sha256": sha256(drat),
              "solvers": [solver, second], "horizon": info.horizon}
        return (Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.UNSAT, stats=stats,
                       certificate=certificate.make(problem, "sat", ev)),
                {cnf_name: cnf, proof_name: drat})


def beside(cert: str | Path, suffix: str) -> Path:
    """A companion file of a certificate, named after its whole name (``c4.json.drat``): two
    certificates never share one, so writing one never spoils another."""
    return Path(cert).with_name(Path(cert).name + suffix)


def _rel(path: Path, base: Path) -> str:
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path.resolve())
