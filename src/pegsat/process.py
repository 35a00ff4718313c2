"""Work in a forked child process that can be killed at any moment.

SAT solvers in python-sat cannot be interrupted (``interrupt()`` raises NotImplementedError
for CaDiCaL and Kissat), and racing planners must stop the moment another one answers, so
such work runs in a child: it ignores Ctrl-C (the parent decides what an interrupt means),
dies with its parent even when the parent is killed by SIGKILL (Linux ``PR_SET_PDEATHSIG``:
a Dask worker killed mid-job must not leave a solver running), and sends its messages back
over a pipe. ``stop`` kills it.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
from collections.abc import Callable
from typing import Any


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def worker_count(value: object, what: str = "workers") -> int:
    """``value`` as a number of workers: a whole number of at least 1; ``PegsatError`` (one
    line) for anything else (``workers=-1`` would wait forever for a worker)."""
    from .errors import PegsatError

    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PegsatError(f"{what}: {value!r:.40} is not a number of workers (a whole number, 1 or more)")
    return value


def local_workers(wanted: int) -> int:
    """The worker processes a local cluster starts for ``wanted``: no more than this machine's
    cores (``cores``): the tasks of one search are CPU-bound, and each process more only adds
    its memory (about 100 MB) and its start (``--workers 256`` on 2 cores started 95)."""
    return max(1, min(wanted, cores()))


#: the message a child sends when the system refuses it memory (a limit: "unknown")
OUT_OF_MEMORY = "memory"


class ChildDied(Exception):
    """The child ended without sending its answer (killed, or crashed in native code)."""


def die_with_parent(parent_pid: int) -> None:
    """In a child: be killed when the parent dies, even by SIGKILL (Linux only)."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            return
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)


def _main(conn, target: Callable[..., None], args: tuple, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)
    try:
        target(conn.send, *args)
    except MemoryError:  # a limit, not a bug: the parent's answer is "unknown"
        conn.send((OUT_OF_MEMORY, "out of memory in a child process"))
    except Exception as exc:  # reported to the parent, which turns it into an error result
        conn.send(("error", f"{type(exc).__name__}: {exc}"))


class Child:
    """``target(send, *args)`` in a forked child; ``send`` passes messages back."""

    def __init__(self, target: Callable[..., None], *args: Any) -> None:
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        self.conn, child = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_main, args=(child, target, args, os.getpid()), daemon=True)
        self.proc.start()
        child.close()

    def receive(self, timeout: float | None) -> Any | None:
        """The next message, or None if none arrives within ``timeout`` seconds (None: wait).
        Raises ChildDied when the child has ended without another message."""
        if not self.conn.poll(timeout):
            return None
        try:
            return self.conn.recv()
        except EOFError:
            self.proc.join(1.0)
            raise ChildDied(f"child process died (exit code {self.proc.exitcode})") from None

    def stop(self) -> None:
        """Kill the child and wait for it."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
