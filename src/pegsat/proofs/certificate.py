"""Certificates of unsolvability, and of move bounds: a JSON file anyone can check without
trusting the search.

A certificate carries its own problem (``model.codec``): the board as hole names and lines,
the start's pegs and the goal, so ``check`` rebuilds everything from the file and says only
what it verified: the problem it prints is derived from the board, start and goal it checked,
never taken from the file's own words. A stated description or board name that does not match
them, or an unknown format version, is refused. Kinds:

``counting``  the goal needs more pegs than the start has, or no jump is legal at the start;
``classes``   GF(2) position classes: weightings even on every line (so the parity of the
              pegs' weight never changes) whose parity differs between the start and the goal
              (one per allowed survivor for a one-peg goal);
``pagoda``    a rational pagoda function (``pegsat.pagoda``): no jump increases the pegs'
              weight, and every goal position weighs more than the start;
``sat``       the time-indexed CNF at the full horizon is UNSAT: the CNF file, the DRAT proof
              file (the standard clausal proof format drat-trim reads) and their SHA-256, and
              the two solvers that agreed. Checking re-encodes the problem of the CNF's header,
              compares every clause, checks it is this certificate's problem at the full
              horizon, then replays the DRAT proof with published checkers (``proofs.drat``:
              dratify in-process always, drat-trim too when it is on PATH). The encoding's
              correctness is the one thing trusted.
``exhaustive`` the breadth-first search by jumps of ``planners.layers`` met no plan: the
              integer pagodas it pruned with (each with the levels it was in force) and the
              size of every level. Checking verifies every weighting exactly (no jump
              increases it; its floor is at most the goal's weight, or, backwards, at most
              the start's) and re-runs the search with exactly those weightings: it must
              again meet nothing, with the same level sizes (route 1, trusts the search
              code; takes as long as the search did). Route 2 (``proofs.independent``)
              walks every start-reachable position with the forward pagodas, in plain Python
              sharing no search code; it runs when the walk stays under its size limit, and
              the check says which routes ran.

``dead-set``  an exhausted depth-first search (``proofs.deadset``): a file of positions
              (sorted 64-bit positions packed by ``proofs.independent.save_positions``: a
              numpy ``.npz`` of their gaps' byte planes; a plain ``.npy`` array is read
              too; with its SHA-256), or, for a set of more than ``prove.PART``
              positions, a list of such files (each with its count and SHA-256, each
              sorted and above the one before: the checker holds one at a time), closed
              under jumps up to the given symmetries, with the integer pagodas that
              exclude positions. Checked by ``proofs.independent.dead_set``, which shares
              no search code: the symmetries map lines onto lines and the goal onto itself,
              each pagoda is a pagoda whose floor no goal position is below, the start is in
              the set, no goal is, and every child of every position in it is excluded or
              in it. The whole argument is checked; nothing of pegsat's search is trusted.
              For a goal of one peg anywhere (the open game) the certificate also holds the
              class weightings (``classes``): a position is then excluded hole by hole, when
              every hole its position class allows weighs more than it under some pagoda.

``levels``    the levels of an exhausted search by jumps out of core (``engine.disk``): the
              positions kept at each depth up to the symmetries, as the search's own sealed
              partition files (``engine.spill``: each with its count and SHA-256), the
              integer pagodas they were pruned with, and the symmetry ``mirror`` of a
              self-dual problem (v -> v) whose last level's children are met mirrored
              against an earlier level, or the ``backward`` levels grown from the goal.
              Checked by ``proofs.layered``, sharing no search code: every level closed
              under jumps into the next (backward: jumps reversed; or excluded by a
              pagoda), and no child of the last one that a plan could pass through; a
              partition at a time, on Dask workers when given a scheduler.

``split``     a one-peg goal refuted survivor by survivor: every hole the goal allows is
              either ruled out by a position-class weighting (as in ``classes``), or refuted
              by a whole sub-certificate of any other plain kind for the game with that survivor
              fixed or for its time-reversed game (vacancy and survivor swapped, played on
              complements: solvable exactly when the game is, ``model.problem.dual``), or
              the image of a refuted survivor under a board symmetry that fixes the start
              (checked to map jumps onto jumps). Each sub-certificate's problem is rebuilt
              from this one's and compared; each is checked as on its own.

``reversed``  the problem's time-reversed game refuted (``model.problem.dual``: start and goal
              swapped and complemented; a plan of one, reversed, is a plan of the other) by
              a whole sub-certificate of any kind but ``split`` and ``reversed``, whose
              problem is rebuilt from this one's and compared, and which is checked as on
              its own.

``moves``     not a refutation but a bound: every plan has at least ``moves`` moves (with a
              replayed plan of that many, the fewest). The levels of a breadth-first search
              by moves from both ends (``planners.moves``: one file of positions a level, as
              ``dead-set`` packs them), the bound they were pruned under, the disjoint Merson
              regions and the integer pagodas that pruned them (optional; as ``levels``
              writes them: forward a position below a floor is cut, backward one weighing
              more than the start) and the side whose last level was probed. Checked by
              ``proofs.bymoves``, sharing no search code: each pagoda a pagoda whose floor no
              goal position is below, each level closed under moves into the levels up to
              the next (backward: moves undone), no forward level meeting a backward one.
              Never held by ``split`` or ``reversed``, never an atlas cell's refutation
              (``BOUNDS``).

Weights are exact fractions written as strings ("3/8"); checking uses ``fractions.Fraction``.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any, cast

from ..analysis import pagoda
from ..analysis.invariants import check_witness, odd_line
from ..deadline import Deadline, Timeout
from ..errors import PegsatError
from ..files import parse_json, plural, read_text
from ..limits import memory_budget
from ..model.catalogue import impostor
from ..model.codec import problem_from_json, problem_to_json
from ..model.problem import Goal, Problem, dual, goal_positions, holes_of
from ..model.result import CERTIFICATE_FORMAT, CERTIFICATE_VERSION, Certificate, certificate
from . import drat, independent, layered

FORMAT, VERSION = CERTIFICATE_FORMAT, CERTIFICATE_VERSION
WRAPPERS = ("split", "reversed")  # kinds that hold other certificates (of the plain kinds only)
BOUNDS = ("moves",)  # kinds that bound a plan's moves: they refute nothing (never held, never a refutation)


class CertificateError(PegsatError):
    """The file is not a certificate (exit 2); a certificate that fails its check is exit 1."""


class Standing(Enum):
    """What a check found: the certificate holds, is rejected, or is not settled (a limit —
    time, memory, disk — came first: never taken for either). ``exit_code`` is the command
    line's, here and nowhere else."""

    HOLDS = "holds"
    REJECTED = "rejected"
    NOT_SETTLED = "not settled"

    @property
    def exit_code(self) -> int:
        return {Standing.HOLDS: 0, Standing.REJECTED: 1, Standing.NOT_SETTLED: 20}[self]

    @property
    def prefix(self) -> str:
        """How a message of this standing begins, as ``check`` prints it."""
        return {Standing.HOLDS: "ok: ", Standing.REJECTED: "rejected: ",
                Standing.NOT_SETTLED: UNFINISHED}[self]


@dataclass(frozen=True)
class Finding:
    """What one checker found: its standing, why in words, and (a kind checked by more than
    one route) which routes ran: what a certificate that holds it reports of it."""

    standing: Standing
    text: str
    routes: str = ""

    @property
    def message(self) -> str:
        return self.standing.prefix + self.text


def holds(text: str, routes: str = "") -> Finding:
    """The certificate holds, for the reason ``text``."""
    return Finding(Standing.HOLDS, text, routes)


def rejected(text: str) -> Finding:
    """The certificate is rejected, for the reason ``text``."""
    return Finding(Standing.REJECTED, text)


def unsettled(text: str) -> Finding:
    """A limit came first (time, memory, disk): neither holds nor rejected."""
    return Finding(Standing.NOT_SETTLED, text)


def walked(walk: Any, text: str) -> Finding:
    """A walk's finding (``Walk.ok``: True, False, or None when a limit came first): ``text``
    when it holds, else its own message."""
    if walk.ok is None:
        return unsettled(walk.message)
    return holds(text) if walk.ok else rejected(walk.message)


@dataclass(frozen=True)
class Verdict:
    """A certificate checked: its standing, its kind, the checker's message (as printed: "ok:
    ...", "rejected: ...", "unfinished: ..."), the problem the evidence was checked against,
    the routes its checker ran (``Finding.routes``)."""

    standing: Standing
    kind: str
    message: str
    problem: Problem
    routes: str = ""

    @property
    def ok(self) -> bool:
        return self.standing is Standing.HOLDS

    @property
    def finished(self) -> bool:
        """False when a limit cut the check short (then it neither holds nor is rejected)."""
        return self.standing is not Standing.NOT_SETTLED

    def to_dict(self) -> dict[str, Any]:
        """The verdict as plain JSON values."""
        return {"standing": self.standing.value, "ok": self.ok, "kind": self.kind, "message": self.message,
                "problem": self.problem.describe(), "finished": self.finished}


make = certificate  # a certificate of a kind for a problem (``model.result.certificate``)


def load(path: str | Path) -> Certificate:
    """A certificate file, checked for its format, version and kind (else CertificateError)."""
    text = read_text(path, "certificate", CertificateError)
    data = parse_json(text, str(path), CertificateError)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CertificateError(f"{path}: not a pegsat certificate (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise CertificateError(f"{path}: certificate version {data.get('version')!r}; this pegsat "
                               f"reads version {VERSION}")
    if data.get("kind") not in KINDS:
        raise CertificateError(f"{path}: unknown certificate kind {str(data.get('kind'))[:40]!r}")
    for key in ("problem", "evidence"):
        if not isinstance(data.get(key), dict):
            raise CertificateError(f"{path}: \"{key}\" must be an object")
    return cast(Certificate, data)  # its form checked above; its evidence by ``check``


def _stated(data: dict[str, Any], problem: Problem) -> str | None:
    """Why the certificate's own words about its problem are false, or None."""
    stated = data.get("description")
    if stated is not None and stated != problem.describe():
        return (f"the certificate describes its problem as {str(stated)[:80]!r}, but its board, "
                f"start and goal are {problem.describe()!r}")
    return impostor(problem.board)


UNFINISHED = "unfinished: "


@dataclass(frozen=True)
class Walking:
    """How the large kinds (dead sets, levels) are walked: ``check``'s arguments of that name."""

    runner: independent.Runner | None = None
    walk_above: int | None = None
    journal: Path | None = None
    progress: Callable[[str], None] | None = None
    rebuild: bool = False
    reference: bool = False


def check(data: Certificate, base: Path = Path("."), staged: dict[str, Path] | None = None,
          deadline: Deadline | None = None, runner: independent.Runner | None = None,
          walk_above: int | None = None, journal: Path | None = None,
          progress: Callable[[str], None] | None = None, rebuild: bool = False,
          reference: bool = False) -> Verdict:
    """Re-verify a certificate from its own contents; ``base`` resolves the SAT files
    (``staged``: where files named in it are until they are written under their names).
    Past ``deadline`` a long check (DRAT replay, search re-run) is "unfinished".
    ``runner``: a dead set's parts are checked through it (``engine.cluster.mapped``: on a
    Dask cluster), else one after the other here. ``walk_above``: a dead set of more
    positions is checked but for its closure under jumps (its files, their order, the start,
    no goal), and the check is "unfinished" (``prove`` on a set whose closure its own
    repair pass has just found: the independent walk is ``pegsat check``'s). ``journal``: a
    file remembering the steps of levels certificates' walks done (``layered.Journal``);
    ``progress``: told a line as each step of a levels certificate's walk ends. ``rebuild``:
    a levels certificate's levels are built by the checker instead of read from its files
    (``layered.check``), so the certificate file alone is checked. ``reference``: the walk of
    a levels, moves or dead-set certificate by the numpy reference instead of the compiled loops
    (``proofs/_check.c``; the tests hold one to the other)."""
    walking = Walking(runner, walk_above, journal, progress, rebuild, reference)
    return _check(data, base, staged or {}, deadline or Deadline(), walking)


def _check(data: Certificate, base: Path, staged: dict[str, Path], deadline: Deadline,
           walking: Walking) -> Verdict:
    problem = problem_from_json(data["problem"], CertificateError)
    kind = data["kind"]
    lie = _stated(data["problem"], problem)
    if lie is not None:
        found = rejected(lie)
    elif problem.special is not None:
        found = rejected("certificates do not cover the special-peg rule")
    else:
        try:
            checker, walks = CHECKERS[kind]
            extra = {"walking": walking} if walks else {}
            found = checker(problem, data["evidence"], base, staged, deadline, **extra)
        except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError, IndexError) as exc:
            found = rejected(f"malformed evidence ({type(exc).__name__}: {str(exc)[:80]})")
    return Verdict(found.standing, kind, found.message, problem, found.routes)


def _counting(problem: Problem, ev: dict, base: Path, staged: dict, deadline: Deadline) -> Finding:
    g = problem.goal
    need = max(g.min_pegs, g.full.bit_count())
    if ev["reason"] == "too-few-pegs":
        return (holds(f"the goal needs {need} pegs, the start has {problem.pegs}") if need > problem.pegs
                else rejected("the start has enough pegs"))
    if ev["reason"] == "no-jump":
        legal = [j for j in problem.board.jumps if problem.start >> j[0] & 1 and problem.start >> j[1] & 1
                 and not problem.start >> j[2] & 1]
        if legal:
            return rejected("a jump is legal at the start")
        if g.satisfied(problem.start):
            return rejected("the start already satisfies the goal")
        return holds("no jump is legal at the start and the start is not a goal")
    return rejected(f"unknown counting reason {ev['reason']!r}")


def _classes(problem: Problem, ev: dict, base: Path, staged: dict, deadline: Deadline) -> Finding:
    board, g = problem.board, problem.goal
    index = {h: i for i, h in enumerate(board.names)}
    items = ev["weightings"]
    if g.full | g.empty == board.full:
        targets = {"pattern": g.full}
    elif g.fixed_count == 1 and not g.full:
        targets = {board.names[h]: 1 << h for h in holes_of(board.full & ~g.empty)}
    else:
        return rejected("class certificates need an exact pattern or a one-peg goal")
    for name, target in targets.items():
        item = next((it for it in items if it["target"] == name), None)
        if item is None:
            return rejected(f"no weighting for goal {name}")
        w = sum(1 << index[h] for h in set(item["holes"]))
        odd = odd_line(board, w)
        if odd is not None:
            line = "-".join(board.names[h] for h in odd)
            return rejected(f"the weighting for {name} is odd on line {line}")
        if not check_witness(board, problem.start, target, w):
            return rejected(f"the weighting for {name} has the same parity at start and goal")
    return holds(f"{plural(len(targets), 'weighting')}, each even on all {len(board.lines)} lines, "
            "separate start and goal")


def _pagoda(problem: Problem, ev: dict, base: Path, staged: dict, deadline: Deadline) -> Finding:
    index = {h: i for i, h in enumerate(problem.board.names)}
    w = {index[h]: Fraction(v) for h, v in ev["weights"].items()}
    reason = pagoda.check(problem, w)
    if reason:
        return rejected(f"{reason}")
    return holds("no jump increases the weight; the goal outweighs the start "
            f"({len(problem.board.jumps)} jumps checked)")


def _scratch(base: Path, runner: object) -> str | None:
    """Where a walk on a cluster writes its buckets: beside the certificate's files, which
    every worker reads anyway, when that directory is writable; else (None) a temporary
    directory, which the local workers see (a certificate in a read-only directory)."""
    return str(base.resolve()) if runner is not None and os.access(base, os.W_OK) else None


def sha256(path: Path) -> str:
    """The SHA-256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def companion(base: Path, name: object, staged: dict[str, Path]) -> Path:
    """The file a certificate names: beside it or below it, never an absolute path, one
    that climbs out with ``..`` or one whose symbolic links lead out (a certificate from
    elsewhere must not make ``check`` read, or hash, any file of the checker's machine).
    ValueError for any other name."""
    if isinstance(name, str) and name in staged:
        return staged[name]
    if not isinstance(name, str) or not name or "\0" in name or "\\" in name:
        raise ValueError(f"{str(name)[:60]!r} is not a file name")
    rel = PurePosixPath(name)
    if rel.is_absolute() or ".." in rel.parts:
        raise ValueError(f"{name[:60]!r} is not beside the certificate (absolute, or with ..)")
    path = base / rel
    try:
        inside = path.resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        inside = False
    if not inside:
        raise ValueError(f"{name[:60]!r} leads out of the certificate's directory (a symbolic link)")
    return path


def _sat(problem: Problem, ev: dict, base: Path, staged: dict, deadline: Deadline) -> Finding:
    cnf = companion(base, ev["cnf"], staged)
    proof = companion(base, ev["proof"], staged)
    for f, key in ((cnf, "cnf_sha256"), (proof, "proof_sha256")):
        if not f.is_file():
            return rejected(f"{f} is missing")
        if sha256(f) != ev[key]:
            return rejected(f"{f} does not match its SHA-256 in the certificate")
    from ..encoding.dimacs import read_instance

    formula, _ = read_instance(cnf)  # re-encodes the header's problem, compares every clause
    if formula.short:
        return rejected("the CNF has a short horizon; its UNSAT proves nothing")
    mine, theirs = problem_to_json(formula.problem), problem_to_json(problem)
    for key in ("board", "start", "goal"):
        if mine[key] != theirs[key]:
            return rejected(f"the CNF encodes another problem ({key} differs)")
    verdicts = drat.check(cnf, proof, deadline)
    said = "; ".join(v.describe() for v in verdicts)
    if any(v.ok is False for v in verdicts):
        return rejected(f"{said}")
    if any(v.ok is None for v in verdicts):
        return unsettled(f"{said}")
    return holds(f"CNF matches the problem's encoding at the full horizon; UNSAT by "
            f"{' and '.join(ev['solvers'])}; {said}")


def _exhaustive(problem: Problem, ev: dict, base: Path, staged: dict, deadline: Deadline) -> Finding:
    from ..planners.layers import Layers

    board = problem.board
    index = {h: i for i, h in enumerate(board.names)}
    goals = goal_positions(problem) or []
    given: dict[str, list] = {}
    for side in ("forward", "backward"):
        items = []
        for k, it in enumerate(ev["pagodas"][side]):
            w = [0] * board.n
            for h, v in it["weights"].items():
                if not isinstance(v, int):
                    return rejected(f"{side} weighting {k} is not integer")
                w[index[h]] = v
            floor, (first, last) = int(it["floor"]), it["levels"]
            sign = 1 if side == "forward" else -1
            for a, b, c in board.jumps:
                if sign * w[c] > sign * (w[a] + w[b]):
                    n = board.names
                    return rejected(f"{side} weighting {k} increases on jump {n[a]}-{n[b]}-{n[c]}")
            if side == "forward":
                if not goals or any(sum(w[h] for h in holes_of(g)) < floor for g in goals):
                    return rejected(f"forward weighting {k}: a goal position weighs less than its floor")
            elif sum(w[h] for h in holes_of(problem.start)) < floor:
                return rejected(f"backward weighting {k}: the start weighs less than its floor")
            items.append((tuple(w), floor, int(first), None if last is None else int(last)))
        given[side] = items
    search = Layers(problem, deadline, learn=False, given=given)
    try:
        if search.run() is not None:
            return rejected("route 1: the re-run search found a plan")
    except Timeout:
        return unsettled("route 1 (re-run of the level search) stopped at the time limit")
    got = search.record()
    for key in ("forward_levels", "backward_levels"):
        if got[key] != ev[key]:
            return rejected(f"route 1: the re-run search gives other {key.replace('_', ' ')}")
    used = sum(len(v) for v in given.values())
    size = sum(got["forward_levels"]) + sum(got["backward_levels"])
    one = (f"route 1 (re-run of pegsat's level search): {used} integer pagodas checked exactly, no plan "
           f"met, level sizes identical ({size} positions)")
    walk = independent.refute(problem, [(list(w), floor) for w, floor, _, _ in given["forward"]], deadline)
    if walk.ok is False:
        return rejected(f"route 2 (independent walk): {walk.message}")
    if walk.ok is None:
        return holds(f"{one}; route 2 (independent walk) not run to the end: {walk.message}", "route 1 only")
    return holds(f"{one}; route 2 (independent walk, no search code shared, {walk.seconds:.2f} s): "
                 f"{walk.message}", "both routes")


_whole = independent.whole


class _Bad(Exception):
    pass


def _load_part(path: Path, count: int) -> Any:
    """A dead set's file of ``count`` positions (a task's loader: picklable)."""
    try:
        return independent.load_positions(path, count)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, NotImplementedError) as exc:
        raise _Bad(f"{path} is not a file of {count} positions ({str(exc)[:80]})") from None


def _class_masks(problem: Problem, ev: dict) -> list[int] | None:
    """A dead set's class weightings as hole masks (the open game's pagodas are weighed hole by
    hole), or None."""
    if "classes" not in ev:
        return None
    index = {h: i for i, h in enumerate(problem.board.names)}
    return [sum(1 << index[h] for h in set(c)) for c in ev["classes"]]


def _dead_set(problem: Problem, ev: dict, base: Path, staged: dict, deadline: Deadline,
              walking: Walking) -> Finding:
    runner, walk_above = walking.runner, walking.walk_above
    count = ev["count"]
    if not _whole(count):
        return rejected("the count of dead positions is not a whole number")
    given = ev["positions"]  # one file, or parts: [{"file", "count", "sha256"}, ...] in order
    items = [{"file": given, "count": count, "sha256": ev["sha256"]}] if isinstance(given, str) else given
    if not isinstance(items, list) or not items or not all(isinstance(it, dict) for it in items):
        return rejected("\"positions\" is neither a file nor a list of parts")
    if not all(_whole(it["count"]) for it in items) or sum(it["count"] for it in items) != count:
        return rejected("the parts' counts do not add up to the count of dead positions")
    if walking.rebuild:  # no file read: the checker builds the set it needs
        walk = independent.rebuild_dead(problem, count, [[int(x) for x in p] for p in ev["symmetries"]],
                                        pagodas_of(problem, ev), deadline, _class_masks(problem, ev),
                                        compiled=not walking.reference)
        return walked(walk, walk.message)
    largest = max(it["count"] for it in items)
    if 3 * 8 * largest > memory_budget():  # a part, its children and their canonical forms
        return unsettled(f"a part of {largest} dead positions is more than this machine's memory "
                "budget holds (PEGSAT_MEMORY_GB)")
    files = [companion(base, it["file"], staged) for it in items]
    for f, it in zip(files, items, strict=True):
        if not f.is_file():
            return rejected(f"{f} is missing")
        if sha256(f) != it["sha256"]:
            return rejected(f"{f} does not match its SHA-256 in the certificate")

    group = [[int(x) for x in p] for p in ev["symmetries"]]
    pagodas = pagodas_of(problem, ev)
    classes = _class_masks(problem, ev)
    try:
        loaders = [partial(_load_part, f.resolve(), part["count"])
                   for f, part in zip(files, items, strict=True)]
        # on a cluster the buckets go beside the parts, which every worker reads anyway
        scratch = _scratch(base, runner)
        walk = independent.dead_parts(problem, loaders, group, pagodas, deadline, classes, runner, scratch,
                                      walk=walk_above is None or count <= walk_above,
                                      compiled=not walking.reference)
    except _Bad as exc:
        return rejected(str(exc))
    return walked(walk, f"dead set checked by the independent checker ({walk.seconds:.2f} s): {walk.message}")


def pagodas_of(problem: Problem, ev: dict) -> list[tuple[list[int], int]]:
    """The evidence's pagodas: weights by hole name (the holes not named weigh 0), a floor."""
    index = {h: i for i, h in enumerate(problem.board.names)}
    out = []
    for it in ev["pagodas"]:
        w = [0] * problem.board.n
        for h, v in it["weights"].items():
            w[index[h]] = v
        out.append((w, it["floor"]))
    return out


def _overstated(f: Path, it: dict) -> Finding | None:
    """Why a level part stated larger than the memory budget holds is rejected (its file's
    header does not state that count and SHA-256), or None: a count too large to check here
    is "not settled" only when the file really claims it."""
    if 3 * 8 * it["count"] <= memory_budget():
        return None
    try:
        layered.load_level_part(f.resolve(), it["count"], it["sha256"], whole=False)
    except ValueError as exc:
        return rejected(f"{exc}")
    return None


def _levels(problem: Problem, ev: dict, base: Path, staged: dict, deadline: Deadline,
            walking: Walking) -> Finding:
    runner, walk_above, journal = walking.runner, walking.walk_above, walking.journal
    if ev["partition"] != f"{layered.MULTIPLIER:#x}":
        return rejected("the levels' partitions are by another rule than the top bits of a product with "
                        f"{layered.MULTIPLIER:#x}")
    levels, back = ev["levels"], ev.get("backward", [])  # backward: a search grown from both sides
    for name, lvs in (("levels", levels), ("backward", back)):
        if not isinstance(lvs, list) or (name == "levels" and not lvs) \
                or not all(isinstance(lv, list) and lv for lv in lvs):
            return rejected(f"\"{name}\" is not a list of levels, each a list of parts")
        if not all(isinstance(it, dict) for lv in lvs for it in lv):
            return rejected("a part of a level is not an object")
    total = sum(it["count"] if _whole(it["count"]) else 0 for lv in [*levels, *back] for it in lv)
    whole = walk_above is None or total <= walk_above
    rebuild = walking.rebuild and whole
    loaders: list[list[Any]] = []
    back_loaders: list[list[Any]] = []
    largest = 0
    for lvs, out in ((levels, loaders), (back, back_loaders)):
        for lv in lvs:
            row = []
            for it in lv:
                if not _whole(it["count"]) or not isinstance(it["sha256"], str):
                    return rejected("a part of a level has no whole count or no SHA-256")
                if rebuild:  # its stated count only: the checker builds the level
                    row.append(it["count"])
                    largest = max(largest, it["count"])
                    continue
                f = companion(base, it["file"], staged)
                if not f.is_file():
                    return rejected(f"{f} is missing")
                lie = _overstated(f, it)
                if lie is not None:
                    return lie
                row.append(partial(layered.load_level_part, f.resolve(), it["count"], it["sha256"], whole))
                largest = max(largest, it["count"])
            out.append(row)
    if 3 * 8 * largest > memory_budget():
        return unsettled(f"a part of {largest} positions is more than this machine's memory budget holds "
                "(PEGSAT_MEMORY_GB)")
    group = [[int(x) for x in p] for p in ev["symmetries"]]
    mirror = None if ev["mirror"] is None else [int(x) for x in ev["mirror"]]
    scratch = _scratch(base, runner)
    sizes = [sum(it["count"] for it in lv) for lv in levels]
    back_sizes = [sum(it["count"] for it in lv) for lv in back]
    empty = "forward" if sizes[-1] == 0 else "backward" if back_sizes and back_sizes[-1] == 0 else ""
    kept = None if journal is None else layered.Journal(journal, layered.journal_key(
        {"problem": problem_to_json(problem), "evidence": ev, "rebuild": rebuild}))
    walk = layered.check(problem, loaders, group, pagodas_of(problem, ev), mirror, deadline, runner, scratch,
                         empty, whole, sizes, journal=kept, progress=walking.progress, back=back_loaders,
                         back_sizes=back_sizes, rebuild=rebuild, compiled=not walking.reference)
    how = "rebuilt and checked" if rebuild else "checked"
    return walked(walk, f"levels {how} by the independent checker ({walk.seconds:.2f} s): {walk.message}")


def _moves(problem: Problem, ev: dict, base: Path, staged: dict, deadline: Deadline,
           walking: Walking) -> Finding:
    from . import bymoves

    claim, upper, probe = ev["moves"], ev["upper"], ev["probe"] or ""
    if not _whole(claim) or not _whole(upper) or not isinstance(probe, str):
        return rejected("the moves, the bound or the probed side is malformed")
    index = {h: i for i, h in enumerate(problem.board.names)}
    regions = [sum(1 << index[h] for h in set(r)) for r in ev["regions"]]
    if any(len(set(r)) != len(r) for r in ev["regions"]):
        return rejected("a region names a hole twice")
    # a level is one file of positions (``independent.save_positions``: a search in memory) or a
    # list of partitions (``engine.spill``'s sealed files, by ``layered.partition``: out of core)
    parted = "partition" in ev
    if parted and ev["partition"] != f"{layered.MULTIPLIER:#x}":
        return rejected("the levels' partitions are by another rule than the top bits of a product with "
                        f"{layered.MULTIPLIER:#x}")
    sides: dict[str, list[list[dict]]] = {}
    for side in bymoves.SIDES:
        items = ev[side]
        lvs = items if parted else [[it] for it in items] if isinstance(items, list) else None
        if not isinstance(lvs, list) or not all(
                isinstance(lv, list) and lv and all(isinstance(it, dict) and _whole(it["count"])
                                                    and isinstance(it["sha256"], str) for it in lv)
                for lv in lvs):
            each = "list of parts" if parted else "file"
            return rejected(f"\"{side}\" is not a list of levels, each a {each} with its count and SHA-256")
        sides[side] = lvs
    counts = [it["count"] for lvs in sides.values() for lv in lvs for it in lv]
    total = sum(counts)
    group = [[int(x) for x in p] for p in ev["symmetries"]]
    sizes = {side: [sum(it["count"] for it in lv) for lv in lvs] for side, lvs in sides.items()}
    pagodas = pagodas_of(problem, ev) if "pagodas" in ev else []
    if walking.rebuild:  # no level file read: the checker builds the levels
        walk, moves = bymoves.rebuild(problem, sizes, group, regions, upper, probe, deadline,
                                      pagodas=pagodas, compiled=not walking.reference)
        return _moves_verdict(walk, moves, claim, "rebuilt and checked")
    whole = walking.walk_above is None or total <= walking.walk_above
    inline = walking.runner is None and bymoves.BYTES_PER_POSITION * total <= memory_budget()
    held = sum(max(it["count"] for it in lv) for lvs in sides.values() for lv in lvs)  # a part of each level
    if whole and not inline and 2 * 8 * held > memory_budget():
        return unsettled(f"levels of {total} positions, a part of each held at once, are more than this "
                "machine's memory budget holds (PEGSAT_MEMORY_GB)")
    loaders: dict[str, list[list[Any]]] = {}
    for side, lvs in sides.items():
        loaders[side] = []
        for lv in lvs:
            row = []
            for it in lv:
                f = companion(base, it["file"], staged)
                if not f.is_file():
                    return rejected(f"{f} is missing")
                lie = _overstated(f, it) if parted else None
                if lie is not None:
                    return lie
                if parted:
                    load = partial(layered.load_level_part, f.resolve(), it["count"], it["sha256"], whole)
                    if not whole:
                        try:
                            load()  # its header: its count and SHA-256
                        except ValueError as exc:
                            return rejected(f"{exc}")
                elif sha256(f) != it["sha256"]:
                    return rejected(f"{f} does not match its SHA-256 in the certificate")
                else:
                    load = partial(_load_positions, f.resolve(), it["count"])
                row.append(load)
            loaders[side].append(row)
    if not whole:  # an atlas rebuilt (``walk_above``): the walk of a large set is ``check``'s
        return unsettled(f"the {len(counts)} level files of {total} positions are there with their "
                "SHA-256; their closure under moves is not walked here")
    kept = None if walking.journal is None else layered.Journal(walking.journal, layered.journal_key(
        {"problem": problem_to_json(problem), "evidence": ev}, Path(bymoves.__file__)))
    scratch = _scratch(base, walking.runner)
    walk, moves = bymoves.check(problem, loaders["forward"], loaders["backward"], group, regions, upper,
                                probe, deadline, pagodas=pagodas, sizes=sizes, inline=inline,
                                runner=walking.runner, scratch=scratch, journal=kept,
                                progress=walking.progress, compiled=not walking.reference)
    return _moves_verdict(walk, moves, claim, "checked")


def _moves_verdict(walk: Any, moves: int, claim: int, how: str) -> Finding:
    """A moves check's finding from its walk: the bound it proves must be the one claimed."""
    if walk.ok and moves != claim:
        return rejected(f"the levels prove at least {moves} moves, the certificate claims {claim}")
    return walked(walk, f"move bound {how} by the independent checker ({walk.seconds:.2f} s): {walk.message}")


def _load_positions(path: Path, count: int) -> Any:
    """A level's file of ``count`` positions (a task's loader: picklable), or ValueError."""
    try:
        return _load_part(path, count)
    except _Bad as exc:
        raise ValueError(str(exc)) from None


def _held(sub: Any, want: Problem | None, what: str, base: Path, staged: dict, deadline: Deadline,
          walking: Walking) -> Verdict | Finding:
    """The verdict on a certificate another holds, which must be of a plain kind and about
    ``want`` (``what``, as said in a rejection); or the finding that it is not, or that its
    check is unfinished."""
    if want is None:
        return rejected(f"{what} does not exist")
    if not isinstance(sub, dict) or sub.get("format") != FORMAT or sub.get("version") != VERSION \
            or sub.get("kind") not in KINDS or sub.get("kind") in (*WRAPPERS, *BOUNDS):
        return rejected(f"the evidence for {what} is not a certificate of a plain kind")
    try:
        got = problem_from_json(sub["problem"], CertificateError)
    except CertificateError as exc:
        return rejected(f"{what}: {exc}")
    mine, theirs = problem_to_json(want), problem_to_json(got)
    if any(mine[k] != theirs[k] for k in ("board", "start", "goal")):
        return rejected(f"the certificate held is not about {what}")
    v = _check(cast(Certificate, sub), base, staged, deadline, walking)  # its form: checked
    if not v.finished:
        return unsettled(f"{what}: {v.message}")
    if not v.ok:
        return rejected(f"{what}: {v.message}")
    return v


def _reversed(problem: Problem, ev: dict, base: Path, staged: dict, deadline: Deadline,
              walking: Walking) -> Finding:
    v = _held(ev["certificate"], dual(problem), "the time-reversed game", base, staged, deadline, walking)
    if isinstance(v, Finding):
        return v
    return holds(f"the time-reversed game ({v.problem.describe()}) refuted by {v.kind}: {v.message}; a game "
            "is solvable exactly when its time-reversed game is")


def _split(problem: Problem, ev: dict, base: Path, staged: dict, deadline: Deadline,
           walking: Walking) -> Finding:
    board, g = problem.board, problem.goal
    if g.full or g.fixed_count != 1:
        return rejected("a split certificate needs a one-peg goal")
    index = {h: i for i, h in enumerate(board.names)}
    allowed = holes_of(board.full & ~g.empty)
    ruled: set[int] = set()
    for item in ev["ruled_out"]:
        h = index[item["target"]]
        w = sum(1 << index[x] for x in set(item["holes"]))
        if odd_line(board, w) is not None:
            return rejected(f"the weighting ruling out {item['target']} is odd on a line")
        if not check_witness(board, problem.start, 1 << h, w):
            return rejected(f"the weighting for {item['target']} has the same parity at start and survivor")
        ruled.add(h)
    refuted: dict[int, str] = {}
    for part in ev["survivors"]:
        name, sub = part["survivor"], part["certificate"]
        h = index[name]
        if h not in allowed:
            return rejected(f"{name} is not a survivor the goal allows")
        game = Problem(board, problem.start, Goal.survivor(board, h))
        how = "time-reversed game" if part["reversed"] else "game"
        v = _held(sub, dual(game) if part["reversed"] else game, f"the {how} with survivor {name}",
                  base, staged, deadline, walking)
        if isinstance(v, Finding):
            return v
        routes = f" ({v.routes})" if v.routes else ""
        refuted[h] = sub["kind"] + routes + (" on the time-reversed game" if part["reversed"] else "")
    jumps = set(board.jumps)
    autos = [p for p in board.symmetries
             if all((p[a], p[b], p[c]) in jumps for a, b, c in board.jumps)
             and all(problem.start >> h & 1 == problem.start >> p[h] & 1 for h in range(board.n))
             and all(g.empty >> h & 1 == g.empty >> p[h] & 1 for h in range(board.n))]
    images = 0
    for h in allowed:
        if h in ruled or h in refuted:
            continue
        if not any(p[r] == h for p in autos for r in refuted):
            return rejected(f"survivor {board.names[h]} is neither ruled out nor refuted")
        images += 1
    said = ", ".join(f"{board.names[h]} by {how}" for h, how in sorted(refuted.items()))
    return holds(f"{len(ruled)} survivors ruled out by position classes; refuted: {said}; {images} more "
            "as their images under symmetries of the start; a time-reversed game is solvable "
            "exactly when its game is")


#: every kind of certificate, once: kind -> (its checker, whether it takes ``walking``: the
#: large kinds walked on a cluster, with a journal). ``load`` accepts these kinds and no other.
CHECKERS: dict[str, tuple[Callable[..., Finding], bool]] = {
    "counting": (_counting, False), "classes": (_classes, False), "pagoda": (_pagoda, False),
    "sat": (_sat, False), "exhaustive": (_exhaustive, False), "dead-set": (_dead_set, True),
    "levels": (_levels, True), "split": (_split, True), "reversed": (_reversed, True),
    "moves": (_moves, True)}
KINDS = tuple(CHECKERS)
