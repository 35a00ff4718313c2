"""What every kind's checker is given: the evidence's files (``companion``, ``sha256``), how a
large kind is walked (``Walking``) and the check's context (``Context``).

A certificate names its files by paths relative to it; ``companion`` resolves one and refuses
any that leads out of the certificate's directory, so a certificate from elsewhere cannot make
``check`` read, or hash, a file of the checker's machine.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..deadline import Deadline
from ..model.problem import Problem
from .closure import Runner
from .verdict import Verdict


@dataclass(frozen=True)
class Walking:
    """How the large kinds (dead sets, levels) are walked: ``check``'s arguments of that name."""

    runner: Runner | None = None
    walk_above: int | None = None
    journal: Path | None = None
    progress: Callable[[str], None] | None = None
    rebuild: bool = False
    reference: bool = False
    room: int | None = None  # bytes the buckets of a walk on disk may take at a time


def scratch(base: Path, runner: object) -> str | None:
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


@dataclass(frozen=True)
class Context:
    """A check's context, handed to every kind's checker: where the certificate's files are
    (``base``; ``staged``: files named in it that are elsewhere until written under their
    names), the deadline, how large kinds are walked, and ``held``: the verdict on a
    certificate that this one holds (the wrapping kinds) about a problem (``what`` in
    words), checked as on its own."""

    base: Path
    staged: dict[str, Path]
    deadline: Deadline
    walking: Walking
    held: Callable[[Any, Problem | None, str], Verdict]

    def file(self, name: object) -> Path:
        """The file the evidence names ``name`` (``companion``)."""
        return companion(self.base, name, self.staged)


#: a kind's checker: (the certificate's problem, its evidence, the context) -> its verdict
Checker = Callable[[Problem, dict, Context], Verdict]
