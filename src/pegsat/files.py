"""Output files, written atomically: a temporary file in the same directory, then a rename."""

from __future__ import annotations

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
