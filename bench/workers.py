"""Benchmark: what the C library of Dask's worker processes does with freed memory.

Dask's nanny starts each worker with ``MALLOC_TRIM_THRESHOLD_=65536``, and glibc then stops
adapting its thresholds: every array above 128 kB is mapped afresh and its pages faulted in
again. ``engine.cluster.local_cluster`` starts its workers with glibc's adaptive limits at
their largest instead (``WORKER_MALLOC``). This runs one command twice, each a fresh process
tree: with Dask's setting (``PEGSAT_WORKER_MALLOC=dask``, the baseline) and with pegsat's;
wall seconds, the CPU seconds of the whole tree (user, system), its minor page faults (from
``/usr/bin/time``: the rusage of every process waited for, the workers included), the peak
memory of its largest process, and the baseline's seconds over each row's.

    python bench/workers.py [--repeat 1] [-- pegsat ARGS...]
    python bench/workers.py --idle 20

``--idle S``: what a local two-worker cluster costs doing nothing, with Dask's own housekeeping
(the baseline) and with ``engine.cluster.QUIET``: the CPU seconds of the process tree of a
cluster kept S + 1 seconds less those of one kept 1 second, per second.

Default command: ``pegsat check german-d4-d4.json --rebuild --workers 2`` (the shipped
certificate copied alone into a scratch directory, its levels rebuilt on disk).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tree import anchor, measured

PEGSAT = Path(sys.executable).parent / "pegsat"
CERT = Path(__file__).resolve().parent.parent / "instances" / "certificates" / "german-d4-d4.json"
VARIANTS = {"as Dask sets it": "dask", "kept (WORKER_MALLOC)": ""}
TIME = "%U %S %R"  # user s, system s, minor faults, on stderr's last line


def run(args: list[str], how: str, where: Path) -> tuple[float, float, float, int, float, int]:
    os.environ["PEGSAT_WORKER_MALLOC"] = how  # the child's environment is this process's
    try:
        r = measured(["/usr/bin/time", "-f", TIME, str(PEGSAT), *args], watch=where)
    finally:
        os.environ.pop("PEGSAT_WORKER_MALLOC", None)
    user, system, faults = r.stderr.strip().splitlines()[-1].split()
    return r.seconds, float(user), float(system), int(faults), r.one_mb, r.code


IDLE = """
import sys, time
from pegsat.engine import cluster
if sys.argv[1] == "dask":
    cluster.QUIET = {}
with cluster.local_cluster(2):
    time.sleep(float(sys.argv[2]))
"""


def idle_cost(how: str, seconds: float) -> tuple[float, float]:
    """(CPU seconds a second, largest process MB) of a local cluster kept ``seconds`` idle."""
    cpu, one = [], 0.0
    for kept in (1.0, 1.0 + seconds):
        r = measured(["/usr/bin/time", "-f", "%U %S", sys.executable, "-c", IDLE, how, str(kept)])
        user, system = r.stderr.strip().splitlines()[-1].split()
        cpu.append(float(user) + float(system))
        one = max(one, r.one_mb)
    return (cpu[1] - cpu[0]) / seconds, one


def idle(seconds: float, repeat: int) -> None:
    print(f"{'cluster kept idle':28}{'CPU s / s':>11}{'1 proc MB':>11}{'ratio':>8}")
    print("-" * 58)
    for _ in range(repeat):
        base = None
        for name, how in (("as Dask sets it", "dask"), ("QUIET", "")):
            rate, one = idle_cost(how, seconds)
            base = rate if how == "dask" else base
            print(f"{name:28}{rate:11.3f}{one:11.0f}{base / max(rate, 1e-3):8.2f}")
    print("-" * 58)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--idle", type=float, help="seconds a cluster is kept idle (the idle table)")
    ap.add_argument("command", nargs="*", help="pegsat's arguments (after --)")
    a = ap.parse_args()
    if not Path("/usr/bin/time").exists():
        sys.exit("this bench needs /usr/bin/time (apt-get install time)")
    rate = anchor()
    if a.idle is not None:
        idle(a.idle, a.repeat)
        print(f"anchor: numpy sorts {rate / 1e6:.1f} M keys/s on one core")
        return
    print(f"{'variant':24}{'seconds':>9}{'user s':>9}{'system s':>10}{'faults M':>10}{'1 proc MB':>11}"
          f"{'ratio':>8}  exit")
    print("-" * 86)
    base = None
    for _ in range(a.repeat):
        for name, how in VARIANTS.items():
            with tempfile.TemporaryDirectory(prefix="pegsat-workers-") as d:
                where = Path(d)
                args = a.command
                if not args:
                    shutil.copy(CERT, where / CERT.name)
                    args = ["check", str(where / CERT.name), "--rebuild", "--workers", "2"]
                cwd = os.getcwd()
                os.chdir(where)
                try:
                    sec, user, system, faults, one, code = run(args, how, where)
                finally:
                    os.chdir(cwd)
            base = sec if how == "dask" else base
            ratio = f"{base / sec:.2f}" if base else "-"
            print(f"{name:24}{sec:9.1f}{user:9.1f}{system:10.1f}{faults / 1e6:10.2f}{one:11.0f}"
                  f"{ratio:>8}  {code}")
    print("-" * 86)
    print(f"anchor: numpy sorts {rate / 1e6:.1f} M keys/s on one core")


if __name__ == "__main__":
    main()
