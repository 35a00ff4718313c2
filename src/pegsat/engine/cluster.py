"""A Dask client: a ``LocalCluster`` of worker processes, or an existing scheduler.

Used by ``apps.batch`` (many small problems) and ``engine.disk`` (one large level search spread over
workers). Tasks, retries and the loss of workers are Dask's own: pegsat adds no scheduler,
transport or retry logic of its own.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..deadline import Deadline
from ..errors import PegsatError
from ..process import local_workers, worker_count

CONNECT_S = 10.0  # seconds to reach an existing scheduler

# What a local worker process's C library does with freed memory. Dask's nanny sets
# MALLOC_TRIM_THRESHOLD_=65536 for its workers, and glibc then stops adapting its thresholds:
# every array above 128 kB is a fresh mapping handed back on free, its pages faulted in
# again by the next one (German d4's check rebuilt on disk: 25.8 M page faults, the system
# time 42% of the CPU). These are glibc's own adaptive limits at their largest: blocks up to
# 32 MB reused from the heap, 64 MB of its top kept before it is handed back.
# PEGSAT_WORKER_MALLOC=dask leaves Dask's setting (the baseline bench/workers.py measures).
WORKER_MALLOC = {"MALLOC_MMAP_THRESHOLD_": 32 << 20, "MALLOC_TRIM_THRESHOLD_": 64 << 20}


def finished(fs: list[Any], deadline: Deadline) -> bool:
    """Whether the tasks ``fs`` all finished before ``deadline`` (False at once when it has
    passed; ``distributed.wait`` raises when it passes meanwhile)."""
    from distributed import wait

    if deadline.expired():
        return False
    try:
        return not wait(fs, timeout=deadline.remaining()).not_done
    except TimeoutError:
        return False


def _connect(Client: Any, where: Any, deadline: Deadline | None) -> Any:
    """A client of ``where`` (a local cluster, or a scheduler's address) that answers within
    ``CONNECT_S`` seconds, and within ``deadline``: a scheduler that accepts the connection
    and never answers is a TimeoutError, not a hang past the time limit."""
    left = None if deadline is None else deadline.remaining()
    timeout = CONNECT_S if left is None else max(0.5, min(CONNECT_S, left))
    if isinstance(where, str):
        import asyncio

        from distributed.comm import connect

        async def probe() -> None:  # the handshake a scheduler answers at once
            comm = await connect(where, timeout=timeout)
            try:
                await comm.write({"op": "identity"})
                reply = await asyncio.wait_for(comm.read(), timeout)
                if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
                    raise OSError(f"{where} answered, but not as a Dask scheduler")
            finally:
                comm.abort()

        try:
            asyncio.run(asyncio.wait_for(probe(), timeout))
        except TimeoutError:
            raise TimeoutError(f"no answer within {timeout:.0f} s") from None
        except (OSError, ValueError, TypeError, EOFError) as exc:
            raise OSError(str(exc) or type(exc).__name__) from None
        except Exception as exc:  # what a garbled answer makes the protocol raise
            raise OSError(f"it does not speak Dask's protocol ({type(exc).__name__})") from None
    return Client(where, timeout=timeout)


# The cluster's own housekeeping, for a cluster with no dashboard: Dask samples each worker's
# stack every 10 ms for its profile page and checks its event loops every 20 ms and the system
# every 0.5 s; an idle two-worker cluster spent 0.16-0.18 s of CPU a second on that, 0.03-0.04
# without (``bench/workers.py --idle``).
QUIET = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s",
         "distributed.admin.system-monitor.interval": "5s"}


def local_cluster(workers: int, memory_limit: int | str | None = None) -> Any:
    """A ``LocalCluster`` of ``workers`` single-threaded processes (each limited to
    ``memory_limit`` bytes, where given) whose C library keeps its freed memory
    (``WORKER_MALLOC``) and which spends no CPU on a profile nobody reads (``QUIET``); its
    scheduler's HTTP server (no dashboard) on loopback, on a free port: two runs side by side
    neither clash nor warn, and nothing listens beyond this machine."""
    import dask
    from distributed import LocalCluster

    extra = {} if memory_limit is None else {"memory_limit": memory_limit}
    # read by each nanny as it is made, and used again when it restarts a lost worker
    environ = {} if os.environ.get("PEGSAT_WORKER_MALLOC") == "dask" else {
        f"distributed.nanny.pre-spawn-environ.{k}": str(v) for k, v in WORKER_MALLOC.items()}
    with dask.config.set({**QUIET, **environ}):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                            dashboard_address=None, **extra,
                            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"})


@contextmanager
def client(workers: int, scheduler: str | None, settings: dict[str, Any] | None = None,
           memory_limit: int | str | None = None,
           interrupted: Callable[[], None] | None = None,
           deadline: Deadline | None = None) -> Iterator[Any]:
    """A connected ``distributed.Client`` for the ``with`` block: a local cluster of
    ``workers`` single-threaded processes (``process.local_workers``: at most the cores; each
    limited to ``memory_limit`` bytes, where given), or the scheduler at ``scheduler``
    (reached, and answering as a scheduler, within ``CONNECT_S`` seconds and ``deadline``);
    closed, and the local cluster stopped, after.
    ``interrupted()``: called on Ctrl-C inside the block, before the interrupt goes on (a
    long run says what it knew and where it can resume)."""
    # Dask's own warnings and errors (cancelled tasks, workers killed on Ctrl-C, a heartbeat
    # that finds the scheduler gone while a loaded machine shuts the cluster down) would bury
    # our one line; what fails reaches us as the task's exception. Worker processes read this
    # too, since they inherit the environment.
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
    try:
        import dask
        from distributed import Client
    except ImportError:
        raise PegsatError("this needs Dask: pip install 'dask[distributed]' tqdm "
                          "(or pip install -e '.[dev]')") from None
    # The variable counts only where distributed is first imported; here it may have been
    # imported already, so its loggers are set here too, and tornado's: distributed leaves
    # tornado's callback errors at "error", and a Ctrl-C that lands while a gather is being
    # cancelled logged a traceback (from distributed.utils.sync) and "Couldn't gather" first;
    # and asyncio's: a gather cut short by Ctrl-C leaves tasks whose AllExit it logged, each
    # with its traceback ("Task exception was never retrieved"), once the loop let them go.
    for name in ["distributed", "tornado", "asyncio", *logging.root.manager.loggerDict]:
        if name.split(".")[0] in ("distributed", "tornado", "asyncio"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    with dask.config.set(settings or {}):
        cluster = None
        if scheduler is None:
            cluster = local_cluster(local_workers(worker_count(workers)), memory_limit)
        try:
            c = _connect(Client, cluster if cluster is not None else scheduler, deadline)
        except (ValueError, OSError, TimeoutError) as exc:  # a bad address, nobody listening
            if cluster is not None:
                cluster.close()
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise PegsatError(f"cannot reach the Dask scheduler {scheduler!r}: {why}") from None
        try:
            yield c
        except KeyboardInterrupt:
            if interrupted is not None:
                interrupted()
            raise
        finally:
            c.close()
            if cluster is not None:
                cluster.close()


@contextmanager
def mapped(workers: int, scheduler: str | None,
           deadline: Deadline | None = None) -> Iterator[Callable[..., list[Any]] | None]:
    """For the ``with`` block, a runner of independent tasks, ``run(fn, items) ->
    [fn(item), ...]``: Dask's map on a cluster (``client``: ``workers`` local processes, or
    the scheduler at ``scheduler``), or None — one after the other in this process — for a
    single local worker."""
    if scheduler is None and workers <= 1:
        yield None
        return
    with client(workers, scheduler, deadline=deadline) as c:
        yield lambda fn, items: c.gather(c.map(fn, items, pure=False))
