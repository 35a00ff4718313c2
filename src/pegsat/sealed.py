"""Arrays written to be read back later: a file that says what it is, checked before use.

A sealed file is two text lines and the array's bytes::

    pegsat-sealed 1
    {"kind": "solvable-set", "version": 1, "fingerprint": "…", "dtype": "<u8", "count": 1679072,
     "sha256": "…"}
    <count little-endian 64-bit words>

``read`` believes none of it until it has checked it all: the magic line, the kind and its
version, the fingerprint of what the array belongs to (the caller's problem and symmetries),
the file's length against the stated count (before reading the body: a header that states
more than ``max_count`` is refused unread), and the SHA-256 of the bytes. Any failure, an
empty or truncated file included, is ``Stale`` with the reason: the caller rebuilds, it never
guesses. Files are written atomically (``files.Staging``). What the array *means* (sorted,
canonical, closed) is the caller's to check: this module vouches only that the file is the
one written for that fingerprint, whole.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from .files import Staging

MAGIC = b"pegsat-sealed 1\n"
HEADER_MAX = 4096  # bytes of the JSON line at most
DTYPE = np.dtype("<u8")


class Stale(Exception):
    """The file is missing, damaged, or not the one asked for: rebuild it."""


def digest(*parts: object) -> str:
    """A fingerprint of JSON-able parts (a problem's JSON form, its symmetries, a version)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def write(path: Path, kind: str, version: int, fingerprint: str, array: np.ndarray,
          durable: bool = True) -> None:
    """Write ``array`` (64-bit words) sealed; atomically, so a reader sees the old file or the
    new; ``durable``: fsynced too (scratch files, rewritten after a crash anyway, skip it)."""
    body = np.ascontiguousarray(array, dtype=DTYPE).tobytes()
    head = {"kind": kind, "version": version, "fingerprint": fingerprint, "dtype": DTYPE.str,
            "count": len(array), "sha256": hashlib.sha256(body).hexdigest()}
    with Staging() as stage:
        with open(stage.path(path), "wb") as fh:
            fh.write(MAGIC + json.dumps(head).encode() + b"\n")
            fh.write(body)
        stage.commit(durable)


def read(path: Path, kind: str, version: int, fingerprint: str, max_count: int) -> np.ndarray:
    """The array of a sealed file, or ``Stale`` saying why it cannot be believed."""
    try:
        with open(path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                raise Stale("not a pegsat sealed file")
            line = fh.readline(HEADER_MAX)
            if not line.endswith(b"\n"):
                raise Stale("the header is cut short or too long")
            try:
                head = json.loads(line)
            except ValueError:
                raise Stale("the header is not JSON") from None
            if not isinstance(head, dict):
                raise Stale("the header is not an object")
            for key, want in (("kind", kind), ("version", version), ("fingerprint", fingerprint),
                              ("dtype", DTYPE.str)):
                if head.get(key) != want:
                    raise Stale(f"its {key} is {str(head.get(key))[:40]!r}, not {str(want)[:40]!r}")
            count = head.get("count")
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= max_count:
                raise Stale(f"its count {str(count)[:40]!r} is not 0 to {max_count}")
            start = fh.tell()
            size = fh.seek(0, 2) - start
            if size != count * DTYPE.itemsize:
                raise Stale(f"{size} bytes follow the header; {count} words take {count * DTYPE.itemsize}")
            fh.seek(start)
            body = fh.read(size)
    except OSError as exc:
        raise Stale(f"cannot read it ({exc.strerror})") from None
    if hashlib.sha256(body).hexdigest() != head.get("sha256"):
        raise Stale("its bytes do not match their SHA-256")
    return np.frombuffer(body, dtype=DTYPE).astype(np.uint64)
