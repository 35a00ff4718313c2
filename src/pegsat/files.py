"""Output files, written atomically: a temporary file in the same directory, then a rename."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .errors import PegsatError


def write_atomic(path: Path, write) -> None:
    """Nothing half-written survives an error or Ctrl-C: the rename is the commit."""
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise PegsatError(f"cannot write {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w") as fh:
            write(fh)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; give it a normal file's mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_jsonl(path: Path) -> list[dict]:
    """The JSON objects of a results file; a torn line (a kill mid-write) is skipped."""
    out = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(rec, dict):
                out.append(rec)
    return out


class JsonLines:
    """Append-only results file: each record is on disk (flushed, fsynced) before the next.

    A file left with a torn last line by a kill gets that line ended first, so the next
    record starts a line of its own."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        torn = path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n")
        self.fh = open(path, "a")  # noqa: SIM115 - closed by __exit__
        if torn:
            self.fh.write("\n")

    def write(self, rec: dict) -> None:
        self.fh.write(json.dumps(rec) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def __enter__(self) -> JsonLines:
        return self

    def __exit__(self, *exc) -> None:
        self.fh.close()
