"""Arrays written to be read back later: a file that says what it is, checked before use.

A sealed file is two text lines and the array's bytes::

    pegsat-sealed 1
    {"kind": "solvable-set", "version": 1, "fingerprint": "…", "dtype": "<u8", "count": 1679072,
     "codec": "raw", "bytes": 13432576, "sha256": "…"}
    <bytes: the array as the codec stores it>

Codecs (``CODECS``): ``raw``, the ``count`` little-endian 64-bit words; ``zstd-planes``, the
differences between neighbours (the first is the first word; modulo 2^64, so any array
round-trips) as eight byte planes — every lowest byte, then every second byte, ... — and
those compressed by Zstandard at level 1. Sorted positions have small gaps, so the planes of
high bytes are nearly all zero: a French level by moves takes 1.5 bytes a position instead
of 8 (the dead-set files' byte planes, with zstd instead of zlib: the same size, 10x faster to
write). The differences and planes are made in one compiled pass each way (``_planes.c``, a few
nanoseconds a word; numpy's three passes, ``_split_reference`` and ``_join_reference``, are
what the tests hold it to): Zstandard's own work is most of a file's time.

``read`` believes none of it until it has checked it all: the magic line, the kind and its
version, the fingerprint of what the array belongs to (the caller's problem and symmetries),
the file's length against the stated count (before reading the body: a header that states
more than ``max_count`` is refused unread), and the SHA-256 of the bytes. Any failure, an
empty or truncated file included, is ``Stale`` with the reason: the caller rebuilds, it never
guesses. Files are written atomically (``files.Staging``). What the array *means* (sorted,
canonical, closed) is the caller's to check: this module vouches only that the file is the
one written for that fingerprint, whole.

A SHA-256 anyone can recompute proves a file whole, not whose it is. What pegsat believes
because it wrote it — a search's checkpoint (``manifest.json``), a check's journal — is
signed with this user's own key (``signature``: HMAC-SHA256 under ``user_key``, 32 random
bytes kept at ``$PEGSAT_KEY``, else ``$XDG_CONFIG_HOME/pegsat/key``, made on first use,
readable by its owner only). A file signed under another key, or edited, is not this user's:
its claims are worth nothing, and pegsat says so rather than believing or overwriting it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

import numpy as np

from .errors import PegsatError
from .files import Staging

MAGIC = b"pegsat-sealed 1\n"
HEADER_MAX = 4096  # bytes of the JSON line at most
DTYPE = np.dtype("<u8")
CODECS = ("raw", "zstd-planes")
FIELDS = frozenset(("kind", "version", "fingerprint", "dtype", "count", "codec", "bytes", "sha256"))
ZSTD_LEVEL = 1


class Stale(Exception):
    """The file is missing, damaged, or not the one asked for: rebuild it."""


def digest(*parts: object) -> str:
    """A fingerprint of JSON-able parts (a problem's JSON form, its symmetries, a version)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def encode(array: np.ndarray, codec: str) -> bytes:
    """The bytes ``codec`` stores ``array`` (64-bit words) as."""
    words = np.ascontiguousarray(array, dtype=DTYPE)
    if codec == "raw":
        return words.tobytes()
    if codec != "zstd-planes":
        raise ValueError(f"unknown codec {codec!r}")
    import zstandard

    from . import _planes

    planes = np.empty(8 * len(words), dtype=np.uint8)
    _planes.split(words, planes)
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(planes.data)


def _split_reference(words: np.ndarray) -> np.ndarray:
    """numpy's ``_planes.split``: the byte planes of the differences between neighbours."""
    gaps = np.empty_like(words)
    if len(words):
        gaps[0] = words[0]
        np.subtract(words[1:], words[:-1], out=gaps[1:])
    return np.ascontiguousarray(gaps.view(np.uint8).reshape(-1, 8).T).reshape(-1)


def _join_reference(planes: np.ndarray, words: np.ndarray) -> None:
    """numpy's ``_planes.join``: ``words`` made from the byte planes of their differences."""
    count = len(words)
    np.copyto(words.view(np.uint8).reshape(count, 8), planes.reshape(8, count).T)
    np.cumsum(words, dtype=np.uint64, out=words)


def decode(body: bytes | memoryview, codec: str, count: int, out: np.ndarray | None = None) -> np.ndarray:
    """The ``count`` words ``body`` holds (in ``out``, a uint64 array of ``count``, when
    given); ``Stale`` if it holds anything else. A compressed body is inflated to at most
    ``count`` words plus one byte, never further (a body that would inflate to gigabytes stops
    there)."""
    if out is not None and len(out) != count:
        raise Stale(f"it holds {count} words, not the {len(out)} its header said a moment ago")
    if codec == "raw":
        if len(body) != count * DTYPE.itemsize:
            raise Stale(f"{len(body)} bytes follow the header; {count} words take {count * DTYPE.itemsize}")
        words = np.frombuffer(body, dtype=DTYPE)
        if out is None:
            return words.astype(np.uint64)
        out[:] = words
        return out
    import zstandard

    want = count * DTYPE.itemsize
    raw = np.empty(want + 1, dtype=np.uint8)  # inflated in place: one byte more says "too long"
    view, got = raw.data, 0
    try:
        with zstandard.ZstdDecompressor().stream_reader(body, read_across_frames=True) as reader:
            while got <= want:
                n = reader.readinto(view[got:])
                if not n:
                    break
                got += n
    except zstandard.ZstdError as exc:
        raise Stale(f"its body does not inflate ({exc})") from None
    view.release()
    if got != want:
        raise Stale(f"its body inflates to {'more than ' if got > want else ''}{got} bytes, "
                    f"not the {want} of {count} words")
    from . import _planes

    words = np.empty(count, dtype=np.uint64) if out is None else out
    _planes.join(raw[:want], words)
    return words


def write(path: Path, kind: str, version: int, fingerprint: str, array: np.ndarray,
          durable: bool = True, codec: str = "raw") -> int:
    """Write ``array`` (64-bit words) sealed, stored by ``codec``; atomically, so a reader
    sees the old file or the new; ``durable``: fsynced too (scratch files, rewritten after a
    crash anyway, skip it). Returns the file's size in bytes."""
    body = encode(array, codec)
    head = {"kind": kind, "version": version, "fingerprint": fingerprint, "dtype": DTYPE.str,
            "count": len(array), "codec": codec, "bytes": len(body),
            "sha256": hashlib.sha256(body).hexdigest()}
    line = MAGIC + json.dumps(head).encode() + b"\n"
    with Staging() as stage:
        with open(stage.path(path), "wb") as fh:
            fh.write(line)
            fh.write(body)
        stage.commit(durable)
    return len(line) + len(body)


def header(path: Path, kind: str, version: int, fingerprint: str, max_count: int) -> dict[str, Any]:
    """The checked header of a sealed file (its body not read): kind, version, fingerprint,
    dtype, codec and a count of 0 to ``max_count`` words; ``Stale`` otherwise."""
    try:
        with open(path, "rb") as fh:
            return _header(fh, kind, version, fingerprint, max_count)
    except OSError as exc:
        raise Stale(f"cannot read it ({exc.strerror})") from None


def _header(fh: Any, kind: str, version: int, fingerprint: str, max_count: int) -> dict[str, Any]:
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
    if set(head) != FIELDS:  # a field missing, or one this reader does not know: not believed
        odd = sorted(set(head) ^ FIELDS)
        raise Stale(f"its header's fields are not {', '.join(sorted(FIELDS))} ({str(odd)[:60]})")
    for key, want in (("kind", kind), ("version", version), ("fingerprint", fingerprint),
                      ("dtype", DTYPE.str)):
        if head.get(key) != want:
            raise Stale(f"its {key} is {str(head.get(key))[:40]!r}, not {str(want)[:40]!r}")
    if head["codec"] not in CODECS:
        raise Stale(f"its codec {str(head['codec'])[:40]!r} is none of {', '.join(CODECS)}")
    count = head.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= max_count:
        raise Stale(f"its count {str(count)[:40]!r} is not 0 to {max_count}")
    return head


def read(path: Path, kind: str, version: int, fingerprint: str, max_count: int,
         out: np.ndarray | None = None) -> np.ndarray:
    """The array of a sealed file (in ``out``, when given: a uint64 array as long as the
    file's count, as ``header`` read it), or ``Stale`` saying why it cannot be believed."""
    body, head = _body(path, kind, version, fingerprint, max_count)
    return decode(body, head["codec"], head["count"], out)


def verify(path: Path, kind: str, version: int, fingerprint: str, max_count: int) -> dict[str, Any]:
    """The header of a sealed file whose bytes match their SHA-256 (not decoded), or
    ``Stale``."""
    return _body(path, kind, version, fingerprint, max_count)[1]


def _body(path: Path, kind: str, version: int, fingerprint: str, max_count: int) -> tuple[memoryview, dict]:
    try:
        with open(path, "rb") as fh:
            head = _header(fh, kind, version, fingerprint, max_count)
            count, codec = head["count"], head["codec"]
            most = count * DTYPE.itemsize  # a compressed body larger than that is not ours
            if codec != "raw":
                most += most // 128 + 1024
            start = fh.tell()
            size = fh.seek(0, 2) - start
            if size > most or size != head["bytes"]:
                raise Stale(f"{size} bytes follow the header, not the {str(head['bytes'])[:40]} it states")
            fh.seek(start)
            # an array's memory, not bytes: a large one is reused (``engine.kernel.use_pool``)
            body = np.empty(size, dtype=np.uint8).data
            if fh.readinto(body) != size:
                raise Stale("it was cut short while it was read")
    except OSError as exc:
        raise Stale(f"cannot read it ({exc.strerror})") from None
    if hashlib.sha256(body).hexdigest() != head.get("sha256"):
        raise Stale("its bytes do not match their SHA-256")
    return body, head


KEY_BYTES = 32


def key_path() -> Path:
    """Where this user's key is kept: ``$PEGSAT_KEY``, else ``$XDG_CONFIG_HOME/pegsat/key``
    (``~/.config/pegsat/key``)."""
    if os.environ.get("PEGSAT_KEY"):
        return Path(os.environ["PEGSAT_KEY"])
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "pegsat" / "key"


def user_key() -> bytes:
    """This user's key, made (readable by its owner only) the first time it is asked for;
    two processes making it at once agree on one (the first link wins)."""
    path = key_path()
    for _ in range(2):
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            data = b""
        except OSError as exc:
            raise PegsatError(f"cannot read pegsat's key {path}: {exc.strerror} (set PEGSAT_KEY to a file "
                              "of your own)") from None
        if len(data) >= KEY_BYTES:
            return data
        if data:
            raise PegsatError(f"pegsat's key {path} is damaged ({len(data)} bytes): remove it, and every "
                              "checkpoint and journal it signed is started afresh")
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, secrets.token_bytes(KEY_BYTES))
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(tmp, path)  # fails when another process made it first: theirs is read
            except FileExistsError:
                pass
            finally:
                tmp.unlink(missing_ok=True)
        except OSError as exc:
            raise PegsatError(f"cannot make pegsat's key {path}: {exc.strerror} (set PEGSAT_KEY to a "
                              "writable file)") from None
    raise PegsatError(f"cannot make pegsat's key {path}")


def signature(*parts: object) -> str:
    """The HMAC-SHA256 of JSON-able ``parts`` under this user's key: only this user's pegsat
    can make it."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(user_key(), text, hashlib.sha256).hexdigest()


def signed(sig: object, *parts: object) -> bool:
    """Whether ``sig`` is this user's ``signature`` of ``parts``."""
    return isinstance(sig, str) and hmac.compare_digest(sig, signature(*parts))
