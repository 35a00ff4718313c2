"""DIMACS export with a self-describing header, and decoding a solver's model.

The header (``c`` lines, written by python-sat's ``CNF.to_fp``) carries everything needed to
read an answer without pegsat's help::

    c pegsat-dimacs 1
    c problem {"board": {...names, lines, coords...}, "start": [...], "goal": {...}, ...}
    c encoding steps=parallel symmetry=1 order=1 card=seqcounter
    c horizon 31              (fewer than the jumps, parallel steps only: UNSAT proves nothing)
    c fingerprint <sha256 of the clauses>
    c pagoda 0 1 1 ... 2      (a pagoda imposed at every step: one weight a hole, then its floor)
    c var 1 peg a3 0          (hole a3 holds a peg after step 0)
    c var 1090 jump c1-c3 0   (the jump from c1 to c3 is played at step 0)

``decode`` re-encodes the problem from the header, checks that the clauses are the ones
pegsat writes for it (so the file was not edited or mixed up), checks that the model
satisfies every clause, and replays the plan it describes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.bitboard import Replay, replay_plan
from ..errors import DimacsError, PegsatError
from ..files import parse_json, read_text, write_atomic
from ..model.codec import problem_from_json, problem_to_json
from ..model.problem import Problem
from .encoder import EncodeOptions, Formula, Pagoda, encodable, encode

if TYPE_CHECKING:
    from pysat.formula import CNF

MAGIC = "pegsat-dimacs 1"


def fingerprint(clauses) -> str:
    """The SHA-256 of the clauses, as the header records it."""
    h = hashlib.sha256()
    for cl in clauses:
        h.update((" ".join(map(str, cl)) + " 0\n").encode())
    return h.hexdigest()


def _options_from_text(text: str) -> EncodeOptions:
    kv = dict(item.split("=", 1) for item in text.split())
    try:
        return EncodeOptions(steps=kv["steps"], symmetry=kv["symmetry"] == "1",
                             order=kv["order"] == "1", card=kv["card"], pagodas=kv.get("pagodas") == "1",
                             classes=kv.get("classes") == "1", count=kv.get("count") == "1",
                             process=kv.get("process") == "1",  # absent: a file of before it
                             lex=kv.get("lex") == "1")
    except KeyError as exc:
        raise DimacsError(f"the header's encoding line lacks {exc}") from None


def _pagoda_from_text(text: str) -> tuple[tuple[int, ...], int]:
    """A ``c pagoda`` line's weights (one a hole, in the board's order) and floor."""
    *weights, floor = (int(x) for x in text.split())
    return tuple(weights), floor


@dataclass(frozen=True)
class Exported:
    path: Path
    variables: int
    clauses: int
    horizon: int


def header(f: Formula, cnf: CNF) -> list[str]:
    """The self-describing comment lines of an exported CNF."""
    b = f.problem.board
    lines = [
        f"c {MAGIC}",
        "c problem " + json.dumps(problem_to_json(f.problem), separators=(",", ":")),
        f"c describe {f.problem.describe()}",
        f"c encoding {f.options.describe()}",
        f"c horizon {f.horizon}"
        + (" short: only SAT answers count" if f.short else ""),
        f"c fingerprint {fingerprint(cnf.clauses)}",
        *(f"c pagoda {' '.join(map(str, w))} {floor}" for w, floor in f.pagodas),
    ]
    for key, var in sorted(f.pool.obj2id.items(), key=lambda kv: kv[1]):
        if not isinstance(key, tuple):
            continue
        kind = key[0]
        if kind in ("peg", "special"):
            lines.append(f"c var {var} {kind} {b.names[key[1]]} {key[2]}")
        elif kind == "jump":
            src, _, dst = b.jumps[key[1]]
            lines.append(f"c var {var} jump {b.names[src]}-{b.names[dst]} {key[2]}")
        elif kind == "used":
            lines.append(f"c var {var} used {key[1]}")
    return lines


def export(problem: Problem, path: str | Path, options: EncodeOptions | None = None,
           steps: int | None = None, pagodas: Sequence[Pagoda] | None = None) -> Exported:
    """Write the instance atomically: to a temporary file beside ``path``, then rename.
    ``steps`` < the number of jumps gives a short parallel horizon (see ``encoder``);
    ``pagodas`` are imposed at every step and listed in the header (with ``options.pagodas``
    and none given: the lightest few of ``analysis.pagoda.for_levels``'s, learned here)."""
    if pagodas is None:
        from ..analysis.pagoda import for_levels
        from ..deadline import Deadline

        wanted = options is not None and options.pagodas
        pagodas = encodable(for_levels(problem, Deadline())) if wanted else []
    try:
        f = encode(problem, options, steps=steps, pagodas=pagodas)
    except ValueError as exc:
        raise PegsatError(str(exc)) from None
    cnf = f.to_cnf()
    path = Path(path)
    write_atomic(path, lambda fh: cnf.to_fp(fh, comments=header(f, cnf)))
    return Exported(path, cnf.nv, len(cnf.clauses), f.horizon)


@dataclass(frozen=True)
class Decoded:
    problem: Problem
    replay: Replay


def read_instance(path: str | Path) -> tuple[Formula, CNF]:
    """A CNF written by ``pegsat export``: its formula re-encoded from the header, checked against the file's
    clauses."""
    from pysat.formula import CNF

    try:
        cnf = CNF(from_file=str(path))
    except OSError as exc:
        raise DimacsError(f"{path}: cannot read ({exc.strerror})") from None
    except Exception as exc:  # python-sat's parser raises plain exceptions on bad input
        raise DimacsError(f"{path}: not a DIMACS CNF file ({exc})") from None
    meta: dict[str, str] = {}
    pagodas: list[str] = []
    for c in cnf.comments:
        body = c[1:].strip()
        key, _, rest = body.partition(" ")
        if key in ("problem", "encoding", "horizon", "fingerprint") and key not in meta:
            meta[key] = rest
        elif key == "pagoda":
            pagodas.append(rest)
        elif body == MAGIC:
            meta["magic"] = body
    if "magic" not in meta or "problem" not in meta:
        raise DimacsError(f"{path}: not written by 'pegsat export' (no pegsat header)")
    problem = problem_from_json(parse_json(meta["problem"], f"{path}: the header's problem line",
                                           DimacsError), DimacsError)
    try:
        steps = int(meta.get("horizon", "").split()[0])
    except (ValueError, IndexError):
        raise DimacsError(f"{path}: the header's horizon line is damaged") from None
    try:
        f = encode(problem, _options_from_text(meta.get("encoding", "")), steps=steps,
                   pagodas=[_pagoda_from_text(line) for line in pagodas])
    except ValueError as exc:  # a damaged line, or a pagoda that could cut a plan
        raise DimacsError(f"{path}: the header does not describe an instance pegsat writes ({exc})") from None
    mine = f.to_cnf()
    want = meta.get("fingerprint")
    if fingerprint(cnf.clauses) != want or fingerprint(mine.clauses) != want:
        raise DimacsError(f"{path}: the clauses do not match the header (edited or mixed-up file)")
    return f, cnf


def read_model(path: str | Path) -> list[int]:
    """Literals from ``v`` lines (SAT competition output) or a plain list; stops at 0."""
    text = read_text(path, "model file", DimacsError)
    lits: list[int] = []
    saw_v = any(line.startswith("v") for line in text.splitlines())
    ended = False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("s "):
            if "UNSAT" in line.upper():
                raise DimacsError(f"{path}: the solver answered UNSATISFIABLE: there is no plan")
            continue
        if not line or line.startswith("c") or (saw_v and not line.startswith("v")):
            continue
        for tok in line.lstrip("v").split():
            try:
                v = int(tok)
            except ValueError:
                raise DimacsError(f"{path}: {tok!r} is not a literal") from None
            if v == 0:
                ended = True
                break
            lits.append(v)
        if ended:
            break
    if not lits:
        raise DimacsError(f"{path}: no model in the file")
    return lits


def decode(cnf_path: str | Path, model_path: str | Path) -> Decoded:
    """A solver's model for an exported CNF, turned into a plan and replayed."""
    f, cnf = read_instance(cnf_path)
    lits = read_model(model_path)
    top = max(abs(v) for v in lits)
    if top > cnf.nv:
        raise DimacsError(
            f"the model mentions variable {top} but the instance has {cnf.nv}: "
            "it belongs to another instance"
        )
    true = {v for v in lits if v > 0}
    assigned = {abs(v) for v in lits}
    for i, cl in enumerate(cnf.clauses, start=1):
        if not any((v in true) if v > 0 else (-v in assigned and -v not in true) for v in cl):
            raise DimacsError(
                f"the model does not satisfy clause {i} of {cnf_path}: it belongs to another "
                "instance or is not a solution"
            )
    try:
        plan = f.decode(true)
    except ValueError as exc:
        raise DimacsError(f"the model is not a plan: {exc}") from None
    return Decoded(f.problem, replay_plan(f.problem, plan))
