"""Files in and out: text read with one clear error, outputs written atomically and durably.

Outputs go to a temporary file in the same directory, flushed and fsynced, then renamed
over the target, then the directory is fsynced: after a crash or Ctrl-C the target holds the
old content or the new, never a mix, and a finished write survives a power cut. Several files
that belong together (a certificate and the CNF and proof it names) are committed together:
every file is written first, then all are renamed with Ctrl-C held back, so an interrupt
leaves all of the old files or all of the new.
"""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from .errors import PegsatError, Unknown

Writer = Callable[[IO[str]], object]

#: brackets nested deeper than this are refused before parsing: pegsat's own files nest at
#: most about ten deep, and Python's parsers recurse once a level (100,000 ``[`` overflow them)
MAX_DEPTH = 64
#: after escapes are dropped (``_ESCAPE``), one token at a time, each character read once: a
#: string or a comment (an unclosed one runs to the end of the text or line), skipped, or a
#: bracket
_ESCAPE = re.compile(r"\\.", re.S)
_JSON_TOKENS = re.compile(r'"[^"]*+(?:"|\Z)|[\[\]{}]')
_TOML_TOKENS = re.compile(r'"""[\s\S]*?(?:"""|\Z)|\'\'\'[\s\S]*?(?:\'\'\'|\Z)|"[^"\n]*+(?:"|$)'
                          r"|'[^'\n]*+(?:'|$)|#[^\n]*+|[\[\]{}]", re.M)


def nesting(text: str, tokens: re.Pattern[str] = _JSON_TOKENS) -> int:
    """How deep the brackets of a JSON (or, with ``_TOML_TOKENS``, TOML) text nest, strings
    and comments left out; linear in the text's length, whatever it holds."""
    depth = deepest = 0
    for m in tokens.finditer(_ESCAPE.sub("", text)):
        c = m.group()[:1]
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def _parse(text: str, what: str, error: type[PegsatError], tokens: re.Pattern[str],
           load: Callable[[str], Any], bad: type[Exception], form: str) -> Any:
    if nesting(text, tokens) > MAX_DEPTH:
        raise error(f"{what}: brackets nested more than {MAX_DEPTH} deep; no {what} needs that")
    try:
        return load(text)
    except bad as exc:
        raise error(f"{what}: not valid {form} ({exc})") from None
    except RecursionError:
        raise error(f"{what}: nested too deeply to read") from None


def parse_json(text: str | bytes, what: str = "JSON", error: type[PegsatError] = PegsatError) -> Any:
    """JSON from untrusted text: too deep a nesting or bad syntax is one ``error`` line."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return _parse(text, what, error, _JSON_TOKENS, json.loads, json.JSONDecodeError, "JSON")


def parse_toml(text: str, what: str = "TOML file", error: type[PegsatError] = PegsatError) -> dict:
    """TOML from untrusted text, as ``parse_json``."""
    import tomllib

    return _parse(text, what, error, _TOML_TOKENS, tomllib.loads, tomllib.TOMLDecodeError, "TOML")


def clip(text: object, limit: int = 60) -> str:
    """A value from the user, cut to ``limit`` characters for a one-line message."""
    s = str(text)
    return s if len(s) <= limit else f"{s[:limit]}... ({len(s)} characters)"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, the plural after any count but one: "1 position", "2 positions"."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def read_text(path: Path | str, what: str = "file", error: type[PegsatError] = PegsatError) -> str:
    """The file's text as UTF-8 (a byte-order mark is accepted), or one line saying why not."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not a {what}") from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise error(f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
                    f"a {what} must be UTF-8") from None


def write_error(target: object, exc: OSError) -> PegsatError:
    """The one-line error for an output that could not be written: a full disk is a limit
    reached ("unknown", exit 20), anything else bad input (exit 2)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return Unknown(f"disk full: cannot write {target}")
    return PegsatError(f"cannot write {target}: {exc.strerror}")


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_file(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Staging:
    """Files written beside their targets under temporary names, then committed together.

    ``path(target)`` names a temporary file in the target's directory for any writer (a
    solver's proof, a CNF); ``write(target, writer)`` fills one. ``commit()`` fsyncs each,
    renames them all over their targets with Ctrl-C held back, and fsyncs the directories.
    Leaving the ``with`` block without a commit removes every temporary file."""

    def __init__(self) -> None:
        self.temps: dict[Path, str] = {}

    def path(self, target: Path | str) -> Path:
        """A temporary file beside ``target`` for any writer; committed over it by ``commit``."""
        target = Path(target)
        directory = target.parent if str(target.parent) else Path(".")
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        except OSError as exc:
            raise write_error(target, exc) from None
        os.close(fd)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; give it a normal file's mode
        self.temps[target] = tmp
        return Path(tmp)

    def write(self, target: Path | str, write: Writer) -> None:
        """Fill a temporary file for ``target`` with ``write(fh)``."""
        tmp = self.path(target)
        with open(tmp, "w", encoding="utf-8") as fh:
            write(fh)

    def commit(self, durable: bool = True) -> None:
        """Every staged file renamed over its target, with Ctrl-C held back; ``durable``:
        fsynced first, so a finished write survives a power cut (scratch files skip it)."""
        try:
            for tmp in self.temps.values() if durable else ():
                _fsync_file(tmp)
            main = threading.current_thread() is threading.main_thread()
            old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if main else None
            try:
                for target, tmp in self.temps.items():
                    os.replace(tmp, target)
                dirs = {t.parent if str(t.parent) else Path(".") for t in self.temps}
                for directory in dirs if durable else ():
                    _fsync_dir(directory)
            finally:
                if old is not None:
                    signal.pthread_sigmask(signal.SIG_SETMASK, old)
        except OSError as exc:
            raise write_error(exc.filename or "output", exc) from None
        self.temps = {}

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, *exc: object) -> None:
        for tmp in self.temps.values():
            Path(tmp).unlink(missing_ok=True)
        self.temps = {}


def write_atomic(path: Path | str, write: Writer) -> None:
    """Write one file: nothing half-written survives an error, Ctrl-C or a power cut."""
    with Staging() as stage:
        stage.write(path, write)
        stage.commit()


def read_jsonl(path: Path) -> list[dict]:
    """The JSON objects of a results file; a torn or foreign line (a kill mid-write) is skipped."""
    out = []
    if path.exists():
        for line in read_text(path, "results file").splitlines():
            try:
                rec = parse_json(line)
            except PegsatError:
                continue
            if isinstance(rec, dict):
                out.append(rec)
    return out


class JsonLines:
    """Append-only results file: each record is on disk (flushed, fsynced) before the next.

    A file left with a torn last line by a kill gets that line ended first, so the next
    record starts a line of its own."""

    def __init__(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            torn = path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n")
            self.fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by __exit__
        except OSError as exc:
            raise PegsatError(f"cannot write results file {path}: {exc.strerror}") from None
        if torn:
            self.fh.write("\n")

    def write(self, rec: dict) -> None:
        """Append one record, on disk before the next."""
        self.fh.write(json.dumps(rec) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def __enter__(self) -> JsonLines:
        return self

    def __exit__(self, *exc) -> None:
        self.fh.close()


class Lock:
    """A directory (or file) one pegsat run uses at a time: ``path`` + the lock file's
    name, locked (``flock``, released by the system when the process ends however it ends)
    for the ``with`` block. A second run on it is refused with one line naming the first,
    never let in to drop what the first is writing."""

    def __init__(self, target: Path, what: str, lock: Path | None = None) -> None:
        self.target, self.what = Path(target), what
        self.lock = lock or self.target / ".lock"
        self.fd: int | None = None

    def __enter__(self) -> Lock:
        import fcntl

        try:
            self.lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise PegsatError(f"cannot use {self.target} for {self.what}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            held = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
            os.close(fd)
            who = f" (process {held})" if held.isdigit() else ""
            raise PegsatError(f"{self.target} is in use by another pegsat run{who}: wait for it to end, "
                              f"or give {self.what} another directory") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # the lock goes with the descriptor
            self.fd = None
