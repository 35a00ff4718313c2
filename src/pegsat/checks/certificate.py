"""Certificates of unsolvability, and of move bounds: a JSON file anyone can check without
trusting the search, and the one registry of their kinds (``KINDS``).

A certificate carries its own problem (``model.codec``): the board as hole names and lines,
the start's pegs and the goal, so ``check`` rebuilds everything from the file and says only
what it verified: the problem it prints is derived from the board, start and goal it checked,
never taken from the file's own words. A stated description or board name that does not match
them, or an unknown format version, is refused. Each kind is documented, and checked, in its
own module (``KINDS`` names it): ``counting``, ``classes`` and ``pagoda`` (``checks.simple``),
``sat`` (``checks.sat``), ``exhaustive`` (``checks.exhaustive``), ``dead-set``
(``checks.deadset``), ``levels`` (``checks.levels``), ``moves`` (``checks.moves``: a bound,
not a refutation), ``split`` and ``reversed`` (``checks.wrappers``: they hold others).

Weights are exact fractions written as strings ("3/8"); checking uses ``fractions.Fraction``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from ..deadline import Deadline
from ..errors import PegsatError
from ..files import parse_json, read_text
from ..model.catalogue import impostor
from ..model.codec import problem_from_json, problem_to_json
from ..model.problem import Problem
from ..model.result import CERTIFICATE_FORMAT, CERTIFICATE_VERSION, Certificate, certificate
from . import deadset, exhaustive, levels, moves, sat, simple, wrappers
from .closure import Runner
from .evidence import Checker, Context, Walking, companion
from .verdict import Verdict, rejected, unsettled

FORMAT, VERSION = CERTIFICATE_FORMAT, CERTIFICATE_VERSION


class CertificateError(PegsatError):
    """The file is not a certificate (exit 2); a certificate that fails its check is exit 1."""


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


def check(data: Certificate, base: Path = Path("."), staged: dict[str, Path] | None = None,
          deadline: Deadline | None = None, runner: Runner | None = None,
          walk_above: int | None = None, journal: Path | None = None,
          progress: Callable[[str], None] | None = None, rebuild: bool = False,
          reference: bool = False, room: int | None = None) -> Verdict:
    """Re-verify a certificate from its own contents; ``base`` resolves the files it names
    (``staged``: where files named in it are until they are written under their names).
    Past ``deadline`` a long check (DRAT replay, search re-run, walk) is not settled.
    ``runner``: the parts of a large kind are checked through it (``engine.cluster.mapped``: on
    a Dask cluster), else one after the other here. ``walk_above``: a large kind of more
    positions is checked but for its closure (its files, their order, the start, no goal), and
    the check is not settled (``prove`` on a set whose closure its own repair pass has just
    found, an atlas being built: the walk is ``pegsat check``'s). ``journal``: a file
    remembering the steps of levels and moves certificates' walks done (``checks.kit.Journal``);
    ``progress``: told a line as each step of such a walk ends. ``rebuild``: a levels, moves or
    dead-set certificate's positions are built by the checker instead of read from its files,
    so the certificate file alone is checked. ``reference``: the walk by the numpy reference
    instead of the compiled loops (``checks/_check.c``; the tests hold one to the other).
    ``room``: the most bytes of bucket files a walk on disk (levels, moves) writes at a time
    (default: ``checks.kit.DISK_SHARE`` of its disk's free bytes); a level whose buckets do not
    fit is walked in rounds."""
    walking = Walking(runner, walk_above, journal, progress, rebuild, reference, room)
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
        def held(sub: Any, want: Problem | None, what: str) -> Verdict:
            return _held(sub, want, what, base, staged, deadline, walking)

        try:
            context = Context(base, staged, deadline, walking, held)
            found = KINDS[kind].check(problem, data["evidence"], context)
        except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError, IndexError) as exc:
            found = rejected(f"malformed evidence ({type(exc).__name__}: {str(exc)[:80]})")
        if found.refused and KINDS[kind].large and not walking.rebuild and _absent(data, base, staged):
            found = replace(found, reason=f"{found.reason} (the files it names are not all beside it: "
                            "check --rebuild checks it from the certificate alone)")
    return replace(found, kind=kind, problem=problem)


def _absent(data: Certificate, base: Path, staged: dict[str, Path]) -> bool:
    """Whether a file the certificate names is not where it says."""
    try:
        return any(not companion(base, name, staged).is_file() for name in named(data))
    except (KeyError, TypeError, ValueError):
        return False


def alone(data: Certificate, base: Path) -> bool:
    """Whether the certificate names files and none of them is beside it (in ``base``): a
    certificate carried alone, as ``instances/certificates/`` ships them, which only a check
    with ``rebuild`` can walk."""
    try:
        files = named(data)
        return bool(files) and not any(companion(base, name, {}).is_file() for name in files)
    except (KeyError, TypeError, ValueError, PegsatError):
        return False


def _held(sub: Any, want: Problem | None, what: str, base: Path, staged: dict[str, Path], deadline: Deadline,
          walking: Walking) -> Verdict:
    """The verdict on a certificate another holds, which must be of a plain kind and about
    ``want`` (``what``, as said in a rejection): its own when it holds, else why not."""
    if want is None:
        return rejected(f"{what} does not exist")
    if not isinstance(sub, dict) or sub.get("format") != FORMAT or sub.get("version") != VERSION \
            or sub.get("kind") not in KINDS or KINDS[sub["kind"]].role != REFUTES:
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


REFUTES, BOUNDS_MOVES, HOLDS_OTHERS = "refutes", "bounds the moves", "holds others"


@dataclass(frozen=True)
class Kind:
    """A kind of certificate: its checker, the modules that write it, what it does (refutes
    the problem; bounds a plan's moves, never held, never an atlas cell's refutation; or holds
    other certificates, of the refuting kinds), whether it is large (positions walked: on a
    cluster, with a journal, rebuilt, or left to ``check`` past ``walk_above``), and the files
    its evidence names (beside the certificate; a held certificate's are named by it)."""

    name: str
    check: Checker
    writers: tuple[str, ...]
    role: str = REFUTES
    large: bool = False
    files: Callable[[dict], list[Any]] = lambda ev: []
    held: Callable[[dict], list[Any]] = lambda ev: []


def named(data: Certificate) -> list[str]:
    """Every file a certificate names, those of the certificates it holds included."""
    kind = KINDS[data["kind"]]
    ev = data["evidence"]
    return [*map(str, kind.files(ev)), *(f for sub in kind.held(ev) for f in named(sub))]


def _parts(*keys: str) -> Callable[[dict], list[Any]]:
    """The files of levels given as lists of parts (or, unpartitioned, one file a level)."""
    def files(ev: dict) -> list[Any]:
        return [it["file"] for key in keys for lv in ev.get(key, [])
                for it in (lv if isinstance(lv, list) else [lv])]
    return files


#: every kind of certificate, once. ``load`` accepts these kinds and no other.
KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("counting", simple.check_counting, ("proofs.cheap",)),
    Kind("classes", simple.check_classes, ("proofs.cheap",)),
    Kind("pagoda", simple.check_pagoda, ("proofs.cheap",)),
    Kind("sat", sat.check_sat, ("proofs.prove",), files=lambda ev: [ev["cnf"], ev["proof"]]),
    Kind("exhaustive", exhaustive.check_exhaustive, ("planners.layers",)),
    Kind("dead-set", deadset.check_dead_set, ("proofs.prove",), large=True,
         files=lambda ev: [ev["positions"]] if isinstance(ev["positions"], str)
         else [it["file"] for it in ev["positions"]]),
    Kind("levels", levels.check_levels, ("planners.ondisk",), large=True, files=_parts("levels", "backward")),
    Kind("moves", moves.check_moves, ("planners.ondisk", "proofs.prove"), role=BOUNDS_MOVES, large=True,
         files=_parts("forward", "backward")),
    Kind("split", wrappers.check_split, ("proofs.prove",), role=HOLDS_OTHERS,
         held=lambda ev: [part["certificate"] for part in ev["survivors"]]),
    Kind("reversed", wrappers.check_reversed, ("proofs.prove",), role=HOLDS_OTHERS,
         held=lambda ev: [ev["certificate"]]),
)}
WRAPPERS = tuple(k for k, kind in KINDS.items() if kind.role == HOLDS_OTHERS)
BOUNDS = tuple(k for k, kind in KINDS.items() if kind.role == BOUNDS_MOVES)
