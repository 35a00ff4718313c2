"""Files in and out: text read with one clear error, outputs written atomically and durably.

Outputs go to a temporary file in the same directory, flushed and fsynced, then renamed
over the target, then the directory is fsynced: after a crash or Ctrl-C the target holds the
old content or the new, never a mix, and a finished write survives a power cut. Several files
that belong together (a certificate and the CNF and proof it names) are committed together:
every file is written first, then all are renamed with Ctrl-C held back, so an interrupt
leaves all of the old files or all of the new.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

from .errors import PegsatError

Writer = Callable[[IO[str]], object]


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
        target = Path(target)
        directory = target.parent if str(target.parent) else Path(".")
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        except OSError as exc:
            raise PegsatError(f"cannot write {target}: {exc.strerror}") from None
        os.close(fd)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; give it a normal file's mode
        self.temps[target] = tmp
        return Path(tmp)

    def write(self, target: Path | str, write: Writer) -> None:
        tmp = self.path(target)
        with open(tmp, "w", encoding="utf-8") as fh:
            write(fh)

    def commit(self) -> None:
        try:
            for tmp in self.temps.values():
                _fsync_file(tmp)
            main = threading.current_thread() is threading.main_thread()
            old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if main else None
            try:
                for target, tmp in self.temps.items():
                    os.replace(tmp, target)
                for directory in {t.parent if str(t.parent) else Path(".") for t in self.temps}:
                    _fsync_dir(directory)
            finally:
                if old is not None:
                    signal.pthread_sigmask(signal.SIG_SETMASK, old)
        except OSError as exc:
            raise PegsatError(f"cannot write {exc.filename or 'output'}: {exc.strerror}") from None
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
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            torn = path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n")
            self.fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by __exit__
        except OSError as exc:
            raise PegsatError(f"cannot write results file {path}: {exc.strerror}") from None
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
