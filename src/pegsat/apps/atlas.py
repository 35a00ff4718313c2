"""Certified atlases: every single-vacancy -> single-survivor problem of a board, each answer
with evidence a sceptic can check without trusting pegsat's search.

``build`` runs the survey (``apps.survey``: one problem per orbit of the board's symmetries
and time reversal, resumed from ``DIR/survey.jsonl``) and turns each representative into
evidence: a solvable one keeps its replayed plan; an unsolvable one gets a certificate from
``proofs.prove`` (``DIR/certs/V-S.json`` and the files it names), re-checked before it is
kept. The rest of the table follows: a cell that is the image of a representative under a
symmetry of the board holds the plan mapped by that symmetry (replayed there), or, when
unsolvable, names the representative and the symmetry; a cell that is a representative's
time-reversed game (vacancy and survivor swapped: solvable together, ``model.problem.dual``)
holds the reversed plan, or names the representative and says "reversal". A representative
``prove`` leaves open, whose vacancy has no survivor known solvable, is tried as its
vacancy's open game (one peg anywhere, ``V-any.json``): that certificate covers every
survivor of the vacancy. Nothing is trusted to stay unknown quietly: a representative still
open is an "unknown" cell, and so are its images.

``DIR/atlas.json`` (written atomically) holds the board by its holes and lines and every one
of its n x n cells. ``check`` re-verifies a whole atlas from the files alone: every plan
replayed with the moves it claims, every certificate checked by ``checks.certificate`` (the
independent routes) and matched to its cell's problem, every symmetry checked to map the
board's lines onto its lines and the representative's cell onto the cell, every reversal
checked to swap them. It says what it verified by kind, and every failure.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from ..checks.evidence import companion
from ..checks.verdict import Standing, Verdict, rejected, unsettled
from ..deadline import Deadline
from ..engine.bitboard import replay, replay_plan
from ..errors import PegsatError
from ..files import parse_json, read_text, write_atomic
from ..formats.notation import format_plan, parse_plan
from ..model.board import Board
from ..model.catalogue import impostor, is_catalogued
from ..model.codec import board_from_json, board_to_json, problem_from_json
from ..model.problem import Goal, Problem, goal_positions, single_vacancy
from ..model.result import Result, Status

FORMAT, VERSION = "pegsat-atlas", 1
INDEX = "atlas.json"
CERTS = "certs"
VIA = ("symmetry", "reversal")


class AtlasError(PegsatError):
    """The directory holds no atlas this pegsat reads (exit 2)."""


@dataclass(frozen=True)
class Cell:
    """One problem of the table: vacancy -> survivor, its answer and its evidence."""

    vacancy: str
    survivor: str
    status: str  # solvable / unsolvable / unknown
    kind: str  # solvable: "plan"; unsolvable: the certificate's kind; unknown: "unknown"
    plan: str | None = None  # the plan by hole names (every solvable cell has its own)
    moves: int | None = None
    optimal: bool | None = None  # the moves were proven fewest (a --min-moves survey)
    certificate: str | None = None  # unsolvable: the certificate file, relative to the atlas
    bound: str | None = None  # solvable: the ``moves`` certificate of its fewest moves (its representative's)
    via: str | None = None  # None: its own evidence; "symmetry" / "reversal": from cell ``of``
    of: tuple[str, str] | None = None  # the representative (vacancy, survivor) it comes from
    symmetry: tuple[int, ...] | None = None  # the board permutation taking ``of`` (reversed) here
    note: str = ""
    alone: bool = False  # its certificate is carried without the files it names: ``check --rebuild``'s


@dataclass
class Atlas:
    board: Board
    cells: dict[tuple[int, int], Cell]
    min_moves: bool = False
    seconds: float = 0.0

    def counts(self) -> Counter:
        """Cells by status."""
        return Counter(c.status for c in self.cells.values())

    def to_json(self) -> dict[str, Any]:
        """The atlas as ``DIR/atlas.json`` holds it."""
        return {"format": FORMAT, "version": VERSION, "board": board_to_json(self.board),
                "min_moves": self.min_moves, "seconds": round(self.seconds, 2),
                "cells": [asdict(c) for _, c in sorted(self.cells.items())]}


def problem(board: Board, v: int, s: int) -> Problem:
    """Vacancy ``v`` -> one peg at ``s``."""
    return single_vacancy(board, v, Goal.survivor(board, s))


def cert_name(board: Board, v: int, s: int | None) -> str:
    """Where the certificate of vacancy ``v`` -> survivor ``s`` goes, relative to the atlas
    (``s`` None: the open game, one peg anywhere)."""
    return f"{CERTS}/{_pair(board, v, s)}.json"


def given_name(board: Board, v: int, s: int | None) -> str:
    """Where a certificate given to the atlas (``build``'s ``given``) about vacancy ``v`` ->
    survivor ``s`` (None: its open game) goes, with the files it names beside it."""
    return f"{CERTS}/{_pair(board, v, s)}.given/certificate.json"


def levels_name(board: Board, v: int, s: int) -> str:
    """Where a ``levels`` certificate of vacancy ``v`` -> survivor ``s`` goes, with the
    search's level files beside it (``engine.disk``), relative to the atlas."""
    return f"{CERTS}/{_pair(board, v, s)}.levels/certificate.json"


def bound_name(board: Board, v: int, s: int) -> str:
    """Where the ``moves`` certificate of vacancy ``v`` -> survivor ``s`` goes (its fewest
    moves), relative to the atlas."""
    return f"{CERTS}/{_pair(board, v, s)}.moves.json"


def bound_dir_name(board: Board, v: int, s: int) -> str:
    """Where the ``moves`` certificate of a search by moves on disk goes, in the directory of
    its level files (``engine.disk``), relative to the atlas."""
    return f"{CERTS}/{_pair(board, v, s)}.moves/certificate.json"


def _pair(board: Board, v: int, s: int | None) -> str:
    """Vacancy ``v`` -> survivor ``s`` (None: any) as a file name: ``V-S`` by the holes'
    ``Board.slugs``, so no hole name, whatever it holds, becomes a path."""
    return f"{board.slugs[v]}-{'any' if s is None else board.slugs[s]}"


def open_game(board: Board, v: int) -> Problem:
    """Vacancy ``v`` -> one peg anywhere: its certificate covers every survivor of ``v``."""
    return single_vacancy(board, v, Goal.one_peg())


def build(board: Board, root: Path, *, min_moves: bool = False, time_limit: float | None = 60.0,
          layers_limit: float | None = None, prove_limit: float | None = 300.0,
          budget: Deadline | None = None, results: Path | None = None,
          progress: Callable[[str], None] | None = None,
          surveyed: Callable[[Any, int, int], None] | None = None, spill: Path | None = None,
          scheduler: str | None = None, given: Sequence[Path] = ()) -> Atlas:
    """The atlas of ``board`` under ``root`` (resumed: the survey from its results file,
    ``results`` or ``root/survey.jsonl``; a certificate already written and still accepted is
    kept). ``time_limit``, ``layers_limit``, ``budget``: the survey's (``apps.survey.run``,
    which reports each problem to ``surveyed``; ``spill``, ``scheduler``: where its level
    searches go on disk, and on which cluster); ``prove_limit``: seconds per certificate.
    ``given``: refutations written elsewhere (the shipped ``instances/certificates/``), each
    taken for the representatives it settles before ``prove`` is tried (``_take``)."""
    from ..proofs.prove import prove
    from .survey import orbit_pairs
    from .survey import run as survey

    t0 = time.perf_counter()
    say = progress or (lambda line: None)
    offered = _offered(board, given)
    taken: dict[str, str] = {}  # a given certificate's name in the atlas -> its kind
    try:
        (root / CERTS).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PegsatError(f"cannot write the atlas in {root}: {exc.strerror}") from None
    reps = survey(board, results or root / "survey.jsonl", planner="moves" if min_moves else "auto",
                  time_limit=time_limit, layers_limit=layers_limit, budget=budget, progress=surveyed,
                  spill=spill, scheduler=scheduler)
    names = board.names
    own: dict[tuple[int, int], Cell] = {}
    opened: dict[int, tuple[str, str]] = {}  # vacancy -> its open game's certificate and kind
    for v, s in orbit_pairs(board, reversal=not min_moves):
        vn, sn = names[v], names[s]
        e = reps.get((vn, sn))  # None: the survey left it unknown, and prove tries it too
        if e is not None and e.status == "solved":
            bound = None
            if min_moves and e.optimal and e.plan is not None:
                bound = _bounded(root, board, v, s, e.plan, Deadline(prove_limit) if budget is None
                                 else budget.within(prove_limit), say, spill, scheduler)
            own[(v, s)] = Cell(vn, sn, "solvable", "plan", plan=e.plan, moves=e.moves,
                               optimal=bool(e.optimal) if min_moves else None, bound=bound)
            continue
        name, p = cert_name(board, v, s), problem(board, v, s)
        kind = _accepted(root, name, p)
        if kind is None:  # the levels of the survey's search by jumps (``engine.disk``), kept
            name, kind = levels_name(board, v, s), _adopt(root, spill, board, v, s, p)
            if kind is None:
                name = cert_name(board, v, s)
        if kind is None:  # a certificate given to the atlas (or taken by an earlier build)
            name, kind = _take(root, board, v, s, offered, taken, say) or (name, None)
        if kind is None and v not in opened:  # a rerun: the vacancy's open game refuted already
            held = _accepted(root, cert_name(board, v, None), open_game(board, v))
            if held is not None:
                opened[v] = (cert_name(board, v, None), held)
        if kind is None and v in opened:  # the vacancy's open game is refuted: it covers the cell
            name, kind = opened[v]
        if kind is None:
            r = prove(p, Deadline(prove_limit) if budget is None else budget.within(prove_limit),
                      certificate_path=root / name)
            if r.status is Status.UNSOLVABLE and r.certificate is not None:
                kind = r.certificate["kind"]
            elif r.plan is not None and r.status is not Status.ERROR:  # a plan after all: replayed
                rep = replay_plan(p, r.plan)
                own[(v, s)] = Cell(vn, sn, "solvable", "plan", plan=format_plan(board, rep.plan),
                                   moves=rep.moves)
                continue
            elif not any(x.status == "solved" for (a, _), x in reps.items() if a == vn):
                # no survivor of this vacancy is known solvable: its open game (one peg
                # anywhere) may be refuted whole, and its certificate then covers this cell
                name, wide = cert_name(board, v, None), open_game(board, v)
                kind = _accepted(root, name, wide)
                if kind is None:
                    r = prove(wide, Deadline(prove_limit) if budget is None else budget.within(prove_limit),
                              certificate_path=root / name)
                    if r.status is Status.UNSOLVABLE and r.certificate is not None:
                        kind = r.certificate["kind"]
                if kind is not None:
                    opened[v] = (name, kind)
        if kind is not None:
            own[(v, s)] = Cell(vn, sn, "unsolvable", kind, certificate=name, alone=_alone(root / name))
            say(f"{vn} -> {sn}: unsolvable, {kind} certificate {name}")
        else:
            said = "unknown" if e is None else e.status + (f" ({e.proof})" if e.proof else "")
            why = f"survey: {said}; prove: no certificate in time"
            own[(v, s)] = Cell(vn, sn, "unknown", "unknown", note=why)
            say(f"{vn} -> {sn}: unknown ({why})")
    cells = fill(board, own, reversal=not min_moves)
    for v in range(board.n):
        for s in range(board.n):
            if (v, s) not in cells:
                cells[(v, s)] = Cell(names[v], names[s], "unknown", "unknown", note="not surveyed")
    atlas = Atlas(board, cells, min_moves, time.perf_counter() - t0)
    text = json.dumps(atlas.to_json(), indent=0) + "\n"
    write_atomic(root / INDEX, lambda fh: fh.write(text))
    return atlas


def _accepted(root: Path, name: str, p: Problem, moves: int | None = None) -> str | None:
    """The kind of the certificate already at ``root/name`` when it is this problem's and
    checks (a rerun keeps it), else None: a refutation, or with ``moves`` a bound of that
    many moves. A ``levels`` or ``moves`` certificate of more than ``WALK_AT_BUILD`` positions
    is checked but for the walk of its levels (hours on the German board): ``check`` walks
    them (a ``moves`` certificate was walked whole before it was written). One carried alone
    (``checks.certificate.alone``: its files not beside it) is rebuilt up to that size, and
    past it its premises are checked: ``check --rebuild`` walks it."""
    from ..checks import certificate as cert

    path = root / name
    if not path.is_file():
        return None
    try:
        data = cert.load(path)
        if not _is_problem(problem_from_json(data["problem"]), p):
            return None
        if (data["kind"] in cert.BOUNDS) != (moves is not None) or (
                moves is not None and data["evidence"].get("moves") != moves):
            return None
        alone = cert.alone(data, path.parent)
        walked = alone or data["kind"] in ("levels", *cert.BOUNDS)  # walked whole up to a size
        v = cert.check(data, path.parent, walk_above=WALK_AT_BUILD if walked else None, rebuild=alone)
        if not v.ok and not (walked and not v.finished):  # a large walk: ``check``'s
            return None
    except PegsatError:
        return None
    return data["kind"]


WALK_AT_BUILD = 1 << 26  # positions of a levels certificate walked as the atlas is built


def _bounded(root: Path, board: Board, v: int, s: int, plan: str, deadline: Deadline,
             say: Callable[[str], None], spill: Path | None = None,
             scheduler: str | None = None) -> str | None:
    """The ``moves`` certificate of a representative's fewest moves: kept from an earlier
    build when it checks and claims the plan's moves, else written by
    ``proofs.prove.prove_moves`` (``bound_name``: its search in memory, walked whole before
    it is written); when that cannot be (past the memory budget) and ``spill`` is given, by
    the search by moves on disk in ``spill``, on the cluster at ``scheduler``, whose levels
    are moved into the atlas (``bound_dir_name``: walked here up to ``WALK_AT_BUILD``
    positions, beyond by ``check``). None when none could be written (the moves stay
    claimed)."""
    from ..proofs.prove import prove_moves

    name, p = bound_name(board, v, s), problem(board, v, s)
    hops = replay(p, parse_plan(board, plan, "names"))
    said = f"{board.names[v]} -> {board.names[s]}: "
    for kept in (name, bound_dir_name(board, v, s)):
        if _accepted(root, kept, p, moves=hops.moves) is not None:
            return kept
    r = prove_moves(p, hops.plan, deadline, certificate_path=root / name)
    if r.status is Status.SOLVED_OPTIMAL and r.certificate is not None:
        say(f"{said}{hops.moves} moves, the fewest: moves certificate {name}")
        return name
    if spill is not None and r.status is Status.UNKNOWN and not deadline.expired():
        name = bound_dir_name(board, v, s)
        r = _on_disk(root, name, p, hops.plan, deadline, spill / f"{_pair(board, v, s)}.moves",
                     scheduler)
        if r.status is Status.SOLVED_OPTIMAL and r.moves == hops.moves \
                and _accepted(root, name, p, moves=hops.moves) is not None:
            say(f"{said}{hops.moves} moves, the fewest: moves certificate {name} (its levels on disk)")
            return name
    say(f"{said}{hops.moves} moves claimed, not certified ({r.detail[:160]})")
    return None


def _on_disk(root: Path, name: str, p: Problem, plan: tuple[int, ...], deadline: Deadline, where: Path,
             scheduler: str | None) -> Result:
    """The search by moves on disk in ``where`` under ``plan``'s moves (``planners.ondisk``),
    its directory moved to ``root/name``'s once it answers with a certificate."""
    from ..planners.config import Config, Disk
    from .solve import solve

    try:
        r = solve(p, "moves", Config(upper_plan=plan, disk=Disk(where, first=True, scheduler=scheduler)),
                  deadline)
    except PegsatError as exc:  # a board the search on disk does not take
        return Result(Status.UNKNOWN, p, "moves", detail=str(exc))
    if r.certificate is not None:
        _move_in(where, (root / name).parent)
    return r


def _move_in(src: Path, dest: Path) -> None:
    """A level search's directory (its certificate and level files) moved into the atlas at
    ``dest`` (what an earlier build left there replaced)."""
    import shutil

    shutil.rmtree(dest, ignore_errors=True)
    try:
        shutil.move(src, dest)
    except OSError as exc:
        raise PegsatError(f"cannot move the levels of {src} into the atlas: {exc.strerror}") from None


def _adopt(root: Path, spill: Path | None, board: Board, v: int, s: int, p: Problem) -> str | None:
    """The kind of the ``levels`` certificate that the survey's search by jumps left with its
    levels in ``spill/V-S`` (``planners.ondisk`` keeps them), moved into the atlas at
    ``levels_name`` when it is this problem's and checks (``_accepted``); else None."""

    name = levels_name(board, v, s)
    kind = _accepted(root, name, p)  # a rerun: adopted already
    src = None if spill is None else spill / _pair(board, v, s)
    if kind is not None or src is None or not (src / "certificate.json").is_file():
        return kind
    _move_in(src, (root / name).parent)
    return _accepted(root, name, p)


def _offered(board: Board, given: Sequence[Path]) -> list[tuple[Path, Problem]]:
    """The certificates given to ``build``, each with its problem; a one-line error for a
    file that is not a certificate, a bound on moves rather than a refutation, or not about
    a single vacancy of this board."""
    from ..checks import certificate as cert

    out = []
    for path in given:
        data = cert.load(path)
        got = problem_from_json(data["problem"], cert.CertificateError)
        if data["kind"] in cert.BOUNDS:
            raise PegsatError(f"{path}: a {data['kind']} certificate bounds a plan's moves; an atlas is "
                              "given refutations")
        if got.board.names != board.names or set(got.board.lines) != set(board.lines) \
                or got.start.bit_count() != board.n - 1 or got.start & ~board.full:
            raise PegsatError(f"{path}: not about a single vacancy of the board {board.name}")
        out.append((Path(path), got))
    return out


def _take(root: Path, board: Board, v: int, s: int, offered: list[tuple[Path, Problem]],
          taken: dict[str, str], say: Callable[[str], None]) -> tuple[str, str] | None:
    """The name and kind of a given certificate that settles vacancy ``v`` -> survivor ``s``
    (about it, or about its vacancy's open game): taken already (``taken``, or by an earlier
    build at ``given_name``), else copied in there from ``offered`` with the files beside it
    that it names, when it checks (``_accepted``: one carried alone is rebuilt up to
    ``WALK_AT_BUILD`` positions, past them its premises checked); else None."""
    import shutil

    p = problem(board, v, s)

    def settles(got: Problem | None) -> bool:
        return got is not None and (_is_problem(got, p) or _covers(got, board, v, s))

    for name in (given_name(board, v, s), given_name(board, v, None)):
        if name not in taken and settles(got := _problem_at(root / name)):
            kind = _accepted(root, name, cast(Problem, got))
            if kind is not None:
                taken[name] = kind
        if name in taken:
            return name, taken[name]
    for src, got in offered:
        if not settles(got):
            continue
        name = given_name(board, v, s if _is_problem(got, p) else None)
        _copy_in(src, root / name)
        kind = _accepted(root, name, got)
        if kind is not None:
            taken[name] = kind
            say(f"{board.names[v]} -> {board.names[s]}: the {kind} certificate given, {src}, taken as {name}")
            return name, kind
        shutil.rmtree((root / name).parent, ignore_errors=True)
        say(f"{board.names[v]} -> {board.names[s]}: the certificate given, {src}, does not check: not taken")
    return None


def _alone(path: Path) -> bool:
    """Whether the certificate at ``path`` is carried without the files it names."""
    from ..checks import certificate as cert

    try:
        return cert.alone(cert.load(path), path.parent)
    except PegsatError:
        return False


def _problem_at(path: Path) -> Problem | None:
    """The problem of the certificate at ``path``, or None (none there, or not one)."""
    from ..checks import certificate as cert

    if not path.is_file():
        return None
    try:
        return problem_from_json(cert.load(path)["problem"], cert.CertificateError)
    except PegsatError:
        return None


def _copy_in(src: Path, dest: Path) -> None:
    """A given certificate copied to ``dest`` with the files it names that are beside it
    (hard links where the disk allows: a levels certificate's take gigabytes); what an
    earlier build left in ``dest``'s directory replaced."""
    import shutil

    from ..checks import certificate as cert

    shutil.rmtree(dest.parent, ignore_errors=True)
    try:
        dest.parent.mkdir(parents=True)
        for name in cert.named(cert.load(src)):
            try:
                f = companion(src.parent, name, {})
            except ValueError:  # a name that leaves its directory: the check refuses it
                continue
            if f.is_file():
                (dest.parent / name).parent.mkdir(parents=True, exist_ok=True)
                _link_or_copy(str(f), str(dest.parent / name))
        text = src.read_text()
        write_atomic(dest, lambda fh: fh.write(text))
    except OSError as exc:
        raise PegsatError(f"cannot copy {src} into the atlas: {exc.strerror}") from None


def _is_problem(got: Problem, want: Problem) -> bool:
    """The same board (holes and lines), start and goal positions."""
    return (got.board.names == want.board.names and set(got.board.lines) == set(want.board.lines)
            and got.start == want.start and got.special is None
            and goal_positions(got) == goal_positions(want))


def _covers(got: Problem, board: Board, v: int, s: int) -> bool:
    """``got`` is the open game of vacancy ``v`` on this board (one peg on any hole its goal
    allows, ``s`` among them): no plan to any of those holes means none to ``s``."""
    g = got.goal
    return (got.board.names == board.names and set(got.board.lines) == set(board.lines)
            and got.start == board.full & ~(1 << v) and got.special is None
            and not g.full and g.min_pegs <= 1 and g.max_pegs == 1 and not g.empty >> s & 1)


def fill(board: Board, own: dict[tuple[int, int], Cell], reversal: bool) -> dict[tuple[int, int], Cell]:
    """Every cell the representatives reach by the board's symmetries and (``reversal``)
    time reversal; a solvable image holds its own plan, replayed."""
    names = board.names
    cells = dict(own)

    def image(c: Cell, perm: tuple[int, ...], back: bool) -> Cell:
        v, s = board.hole(c.vacancy), board.hole(c.survivor)
        nv, ns = (perm[s], perm[v]) if back else (perm[v], perm[s])
        if c.status != "solvable" or c.plan is None:
            return replace(c, vacancy=names[nv], survivor=names[ns], via=VIA[back],
                           of=(c.vacancy, c.survivor), symmetry=tuple(perm))
        hops = parse_plan(board, c.plan, "names")
        if back:  # the time-reversed game: the same jumps in reverse order, on complements
            hops = list(reversed(hops))
        rep = replay(problem(board, nv, ns), [(perm[a], perm[b]) for a, b in hops])
        return Cell(names[nv], names[ns], "solvable", "plan", plan=format_plan(board, rep.plan),
                    moves=rep.moves, optimal=c.optimal if not back else None, via=VIA[back],
                    of=(c.vacancy, c.survivor), symmetry=tuple(perm), bound=None if back else c.bound)

    for back in (False, True) if reversal else (False,):
        for (v, s), c in sorted(own.items()):
            for perm in board.symmetries:
                at = (perm[s], perm[v]) if back else (perm[v], perm[s])
                if at not in cells:
                    cells[at] = image(c, tuple(perm), back)
    return cells


# ---------------------------------------------------------------------------------- check


@dataclass
class Report:
    """What ``check`` verified: cells by the kind of evidence, and every failure."""

    board: str
    cells: int
    kinds: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.standing is Standing.HOLDS

    @property
    def standing(self) -> Standing:
        """Rejected when any cell fails, else not settled when any check was cut short."""
        if self.failures:
            return Standing.REJECTED
        return Standing.NOT_SETTLED if self.unfinished else Standing.HOLDS

    @property
    def verdict(self) -> Verdict:
        """The atlas's verdict: its standing, the report's first line, the cells checked."""
        return Verdict(self.standing, self.lines()[0], "atlas", self.cells, self.seconds)

    def lines(self) -> list[str]:
        """The printed report: the counts by kind, then a line per failure."""
        head = (f"{self.board}: {self.cells} cells checked in {self.seconds:.1f} s: "
                + ", ".join(f"{k} {n}" for k, n in sorted(self.kinds.items(), key=lambda x: (-x[1], x[0]))))
        return [head, *(f"FAILED {f}" for f in self.failures), *(f"NOT SETTLED {u}" for u in self.unfinished)]


def load(root: Path) -> tuple[Board, list[dict[str, Any]], dict[str, Any]]:
    """The board, the cells and the whole index of the atlas in ``root`` (AtlasError if it is
    not one)."""
    path = root / INDEX
    data = parse_json(read_text(path, "atlas index", AtlasError), str(path), AtlasError)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise AtlasError(f"{path}: not a pegsat atlas (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise AtlasError(f"{path}: atlas version {data.get('version')!r}; this pegsat reads {VERSION}")
    board = board_from_json(data.get("board"), AtlasError)
    cells = data.get("cells")
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        raise AtlasError(f"{path}: \"cells\" must be a list of objects")
    return board, cells, data


def atlases(root: Path) -> list[Path]:
    """The atlas directories at ``root``: itself, or its subdirectories holding one."""
    if (root / INDEX).is_file():
        return [root]
    found = sorted(p.parent for p in root.glob(f"*/{INDEX}")) if root.is_dir() else []
    if not found:
        raise AtlasError(f"{root}: no {INDEX} there or in a subdirectory (write one with "
                         "'pegsat survey BOARD --certificates DIR')")
    return found


def check(root: Path, deadline: Deadline | None = None, runner: Any = None,
          journal: Path | None = None, progress: Callable[[str], None] | None = None,
          rebuild: bool = False) -> Report:
    """Re-verify the atlas in ``root`` from its files (see the module's docstring);
    ``runner``: dead sets' parts checked through it (``engine.cluster.mapped``); ``journal``:
    the levels certificates' steps walked are remembered there (``checks.kit.Journal``);
    ``progress``: told their steps; ``rebuild``: levels certificates' levels built by the
    checker, their files not read (``checks.certificate.check``)."""
    from ..checks import certificate as cert

    t0 = time.perf_counter()
    deadline = deadline or Deadline()
    board, raw, _ = load(root)
    report = Report(board.name, len(raw))
    lie = impostor(board)
    if lie is not None:  # every verdict would be about a board the atlas only names
        report.failures.append(f"the atlas's board: {lie}; nothing else is checked against it")
        report.seconds = time.perf_counter() - t0
        return report
    if not is_catalogued(board):
        report.board = f"{board.name} (a board drawn in {INDEX}, not from the catalogue)"
    names, n = board.names, board.n
    lines = {_line(a, b, c) for a, b, c in board.lines}
    seen: dict[tuple[int, int], dict[str, Any]] = {}
    verdicts: dict[str, Verdict] = {}  # certificate -> its verdict
    about: dict[str, Problem | None] = {}  # certificate -> the problem it holds
    claims: dict[str, Any] = {}  # a bound's certificate -> the moves it claims

    def fail(cell: str, why: str) -> None:
        report.failures.append(f"{cell}: {why}")

    for c in raw:
        try:
            v, s = board.hole(str(c["vacancy"])), board.hole(str(c["survivor"]))
        except (KeyError, PegsatError):
            fail(str(c.get("vacancy"))[:20] + " -> " + str(c.get("survivor"))[:20], "not holes of the board")
            continue
        if (v, s) in seen:
            fail(f"{names[v]} -> {names[s]}", "listed twice")
        seen[(v, s)] = c
    for v in range(n):
        for s in range(n):
            if (v, s) not in seen:
                fail(f"{names[v]} -> {names[s]}", "missing from the table")

    def certified(v: int, s: int, c: dict[str, Any], key: str = "certificate") -> Verdict:
        """A representative's certificate (``key``: "bound", its fewest moves'), checked once
        (an open game's serves several cells), and matched to this cell: its own problem, or
        (a refutation) its vacancy's open game."""
        name = c.get(key)
        if not isinstance(name, str):
            return rejected("no certificate named")
        if name not in verdicts:
            about[name], verdicts[name], claims[name] = _checked(
                root, name, rebuild, deadline=deadline, runner=runner, journal=journal, progress=progress)
        got, vd = about.get(name), verdicts[name]
        if vd.kind and (vd.kind in cert.BOUNDS) != (key == "bound"):
            return replace(rejected(f"{name} is a {vd.kind} certificate, not " + (
                "a bound on the moves" if key == "bound" else "a refutation")), kind=vd.kind)
        if got is not None and not (_is_problem(got, problem(board, v, s)) or (key != "bound" and _covers(
                got, board, v, s))):
            return replace(rejected(f"{name} is about another problem"), kind=vd.kind)
        return vd

    def fewest(v: int, s: int, c: dict[str, Any], moves: int) -> Verdict | None:
        """Why a solvable cell's fewest moves are not certified by its ``bound`` (its
        representative's, for an image under a symmetry), or None."""
        if c.get("via") is None:
            rv, rs, rep = v, s, c
        else:
            why = "only an image under a symmetry shares its representative's bound" if c.get(
                "via") != "symmetry" else _derived(board, lines, seen, v, s, c, "solvable")
            if why is not None:
                return rejected(why)
            rv, rs = board.hole(c["of"][0]), board.hole(c["of"][1])
            rep = seen[(rv, rs)]
            if rep.get("bound") != c.get("bound"):
                return rejected("its bound is not its representative's")
        vd = certified(rv, rs, rep, "bound")
        if not vd.ok:
            return vd
        if claims.get(str(c.get("bound"))) != moves:
            return rejected(f"the bound proves {claims.get(str(c.get('bound')))} moves, the plan has {moves}")
        return None

    for (v, s), c in sorted(seen.items()):
        cell = f"{names[v]} -> {names[s]}"
        status, via = c.get("status"), c.get("via")
        if status == "unknown":
            report.kinds["unknown"] += 1
            continue
        if status == "solvable":
            try:
                rep = replay(problem(board, v, s), parse_plan(board, str(c.get("plan") or ""), "names"))
            except PegsatError as exc:
                fail(cell, f"the plan does not replay: {str(exc)[:120]}")
                continue
            if rep.moves != c.get("moves"):
                fail(cell, f"the plan has {rep.moves} moves, the table says {c.get('moves')}")
                continue
            if c.get("bound") is not None:
                why = fewest(v, s, c, rep.moves)
                if why is None:
                    report.kinds["plan (fewest moves certified)"] += 1
                elif not why.finished:
                    report.unfinished.append(f"{cell}: its fewest moves: {why.reason}")
                else:
                    fail(cell, f"fewest moves not certified: {why.reason}")
                continue
            report.kinds["plan" + (" (fewest moves claimed)" if c.get("optimal") else "")] += 1
            continue
        if status != "unsolvable":
            fail(cell, f"unknown status {str(status)[:20]!r}")
            continue
        if via is None:
            vd = certified(v, s, c)
            if vd.kind and c.get("kind") != vd.kind:
                fail(cell, f"the table says a {c.get('kind')} certificate, the file holds {vd.kind}")
            elif not vd.finished:
                report.unfinished.append(f"{cell}: {vd.reason}")
            elif not vd.ok:
                fail(cell, f"certificate rejected: {vd.reason}")
            else:
                report.kinds[f"certificate: {vd.kind}"] += 1
            continue
        if via not in VIA:
            fail(cell, f"unknown derivation {str(via)[:20]!r}")
            continue
        derived = _derived(board, lines, seen, v, s, c)
        if derived is not None:
            fail(cell, derived)
            continue
        ov, os_ = board.hole(c["of"][0]), board.hole(c["of"][1])
        vd = certified(ov, os_, seen[(ov, os_)])
        if not vd.finished:
            report.unfinished.append(f"{cell}: its representative's certificate: {vd.reason}")
        elif not vd.ok:
            fail(cell, f"its representative's certificate is rejected: {vd.reason}")
        else:
            report.kinds["image under a symmetry" if via == "symmetry" else "time reversal (+ symmetry)"] += 1
    report.seconds = time.perf_counter() - t0
    return report


def _checked(root: Path, name: str, rebuild: bool, **walk: Any) -> tuple[Problem | None, Verdict, Any]:
    """The problem the atlas's certificate ``name`` holds, its verdict, and (a bound) the
    moves it claims: checked as ``checks.certificate.check`` checks it (``walk``: its
    deadline, runner, journal, progress), or not settled when it is carried without its
    files and ``rebuild`` is not asked (only a rebuild can walk it)."""
    from ..checks import certificate as cert

    got = None
    try:
        path = companion(root, name, {})
        data = cert.load(path)
        got = problem_from_json(data["problem"], cert.CertificateError)
        claim = data["evidence"].get("moves") if data["kind"] in cert.BOUNDS else None
        if not rebuild and cert.KINDS[data["kind"]].large and cert.alone(data, path.parent):
            return got, replace(unsettled(f"{name} is carried without the files it names: check --rebuild "
                                          "builds them"), kind=data["kind"]), claim
        return got, cert.check(data, path.parent, rebuild=rebuild, **walk), claim
    except (PegsatError, ValueError) as exc:
        return got, rejected(str(exc)[:160]), None


def _line(a: int, b: int, c: int) -> tuple[int, int, int]:
    """A line whichever end comes first."""
    return (min(a, c), b, max(a, c))


def _derived(board: Board, lines: set[tuple[int, int, int]], seen: dict, v: int, s: int,
             c: dict[str, Any], status: str = "unsolvable") -> str | None:
    """Why a cell derived from a representative (unsolvable, or ``status``) is not, or None."""
    try:
        ov, os_ = board.hole(str(c["of"][0])), board.hole(str(c["of"][1]))
        perm = [int(x) for x in c["symmetry"]]
    except (KeyError, TypeError, ValueError, IndexError, PegsatError):
        return "a derived cell must name its representative and a symmetry"
    rep = seen.get((ov, os_))
    if rep is None or rep.get("status") != status or rep.get("via") is not None:
        return f"{c['of'][0]} -> {c['of'][1]} is not a {status} cell with its own evidence"
    if sorted(perm) != list(range(board.n)):
        return "the symmetry is not a permutation of the holes"
    if {_line(perm[a], perm[b], perm[d]) for a, b, d in board.lines} != lines:
        return "the symmetry does not map the board's lines onto its lines"
    want = (perm[os_], perm[ov]) if c["via"] == "reversal" else (perm[ov], perm[os_])
    if want != (v, s):
        return f"the symmetry takes the representative to {board.names[want[0]]} -> {board.names[want[1]]}"
    return None



# ----------------------------------------------------------------------------------- site


def site(root: Path, out: Path) -> list[tuple[str, int]]:
    """The atlas pages of every atlas at ``root`` (``atlases``) under ``out``: ``index.html``
    and per board ``BOARD/index.html``, a plan page per solvable cell (``BOARD/plans/``), and
    the atlas's index and certificates copied beside them (so ``pegsat check`` runs on the
    site's own copy). Returns (board, pages written) per board. The atlas is read, not
    re-checked: ``check`` does that."""
    import shutil

    from ..formats.render import plan_html
    from ..formats.site import board_page, index_page

    boards: list[tuple[str, str, str]] = []
    written: list[tuple[str, int]] = []
    for where in atlases(root):
        board, cells, data = load(where)
        slug = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_" for ch in board.name)
        here = out / (slug.strip("-_") and slug or "board")
        _apart(where, here)
        try:
            (here / "plans").mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PegsatError(f"cannot write the pages in {here}: {exc.strerror}") from None
        pages = 0
        shown = []
        for c in cells:
            c = dict(c)
            c["page"] = None
            if c.get("status") == "solvable" and c.get("plan") is not None:
                v, s = board.hole(str(c["vacancy"])), board.hole(str(c["survivor"]))
                hops = parse_plan(board, str(c["plan"]), "names")
                page = plan_html(problem(board, v, s), replay(problem(board, v, s), hops).plan)
                name = f"plans/{_pair(board, v, s)}.html"
                _write(here / name, page)
                c["page"] = name
                pages += 1
            shown.append(c)
        if (where / CERTS).is_dir():  # hard links where the disk allows (a levels certificate's
            shutil.copytree(where / CERTS, here / CERTS, dirs_exist_ok=True,  # files take gigabytes)
                            copy_function=_link_or_copy)
        shutil.copyfile(where / INDEX, here / INDEX)
        counts = Counter(str(c.get("status")) for c in cells)
        summary = (f"{len(cells)} problems: {counts['solvable']} solvable, {counts['unsolvable']} "
                   f"unsolvable, {counts['unknown']} unknown"
                   + ("; fewest moves proven" if data.get("min_moves") else ""))
        page = board_page(board, shown, summary)
        _write(here / "index.html", page)
        boards.append((f"{slug}/index.html", board.name, summary))
        written.append((board.name, pages + 1))
    _write(out / "index.html", index_page(boards))
    return written


def _apart(atlas: Path, pages: Path) -> None:
    """A one-line error when the pages of ``atlas`` would go into the atlas itself, or the
    atlas lies inside its pages' directory: copying its certificates there would copy them
    onto themselves (and remove them)."""
    a, p = atlas.resolve(), pages.resolve()
    if a == p or a.is_relative_to(p) or p.is_relative_to(a):
        where = "the atlas itself" if a == p else "inside it" if p.is_relative_to(a) else "around it"
        raise PegsatError(f"--out: the pages of the atlas {atlas} would go to {pages}, {where}: give the "
                          "pages a directory of their own")


def _link_or_copy(src: str, dst: str) -> None:
    import os
    import shutil

    try:
        if os.path.exists(dst):
            os.unlink(dst)
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _write(path: Path, text: str) -> None:
    write_atomic(path, lambda fh: fh.write(text))
