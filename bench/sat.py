#!/usr/bin/env python3
"""Benchmark: the SAT and CP-SAT planners' horizon schedule and encoding options.

    python bench/sat.py [--time-limit 120] [--only english,french] [--repeat 1] [--variants a,b]
    python bench/sat.py --ipc [DIR] [--time-limit 60]

Each problem is solved by ``--planner sat`` and ``--planner cpsat`` as a user runs them (the
default schedule of short horizons and options), and by the same planners as they were
before (``BASELINE``: 0.45 of the jumps for 3 s, 0.65 for 6 s, then the full horizon; no
process semantics: ``as at 547797c``), in the same run; and by ``sat`` with the schedule of
before but today's encoding, with each redundant constraint of the encoder on its own
(``EncodeOptions``: pagodas, position classes) and without process semantics (the default).
The ratio is the planner's ``as at 547797c`` total time over each row's (">" when that hit
the time limit). ``--ipc``: the IPC 2008 ``pegsol`` problems (``pegsol-08-strips``, 30 on the
English board, p30 the central game; default directory ``$PEGSAT_IPC_DIR``, as ``bench/ipc.py``),
each by ``sat`` and ``cpsat`` today and as at 547797c. The machine anchor: CaDiCaL refuting
the pigeonhole formula PHP(10 pigeons, 9 holes) (python-sat's ``genhard.PHP``), timed in this
run. Peak memory: this process and its solver children (``ru_maxrss``). Timings on shared
machines are noisy: compare rows of one run, not runs.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from pegsat.apps.solve import solve  # noqa: E402
from pegsat.deadline import Deadline  # noqa: E402
from pegsat.encoding.encoder import EncodeOptions  # noqa: E402
from pegsat.model.catalogue import get_board  # noqa: E402
from pegsat.model.problem import Goal, single_vacancy  # noqa: E402
from pegsat.model.result import Status  # noqa: E402
from pegsat.planners import config as planner_config  # noqa: E402
from pegsat.planners.config import Config  # noqa: E402

BASELINE = ((0.45, 3.0), (0.65, 6.0))  # the schedule of short horizons before 2026-11-27
IPC = os.environ.get("PEGSAT_IPC_DIR", "")  # the competitions' files are not shipped (GPL)
SETTLED = {s.value for s in (Status.SOLVED, Status.SOLVED_OPTIMAL, Status.UNSOLVABLE)}


def problems():
    e = get_board("english")
    yield "english central", single_vacancy(e, e.hole("d4"))
    yield "english d4->a4", single_vacancy(e, e.hole("d4"), Goal.survivor(e, e.hole("a4")))
    f = get_board("french")
    yield "french c1->e1", single_vacancy(f, f.hole("c1"), Goal.survivor(f, f.hole("e1")))
    g = get_board("german")
    yield "german central", single_vacancy(g, g.hole("e5"), Goal.survivor(g, g.hole("e5")))
    d = get_board("diamond")
    yield "diamond e1->one", single_vacancy(d, d.hole("e1"), Goal.one_peg())
    for n in (6, 7, 8):
        t = get_board(f"triangle-{n}")
        yield f"triangle-{n} a1->a1", single_vacancy(t, t.hole("a1"), Goal.survivor(t, t.hole("a1")))


def ipc_problems(root: Path):
    """The IPC 2008 pegsol problems under ``root`` (pegsol-08-strips), as pegsat reads them."""
    from pegsat.formats.pddl import read_task

    if str(root) in ("", "."):
        sys.exit("no IPC directory: give --ipc DIR or set PEGSAT_IPC_DIR")
    d = root / "pegsol-08-strips"
    if not (d / "domain.pddl").is_file():
        sys.exit(f"no IPC 2008 problems in {d}")
    for f in sorted(d.glob("p*.pddl")):
        yield f"08/{f.stem}", read_task(f, d / "domain.pddl").problem


BEFORE = EncodeOptions(process=False)  # the encoding as at 547797c (with the schedule of before)
VARIANTS = [  # (name, planner, encoding options, the schedule of before)
    ("sat as at 547797c", "sat", BEFORE, True),
    ("sat schedule of before", "sat", EncodeOptions(), True),
    ("sat", "sat", EncodeOptions(), False),
    ("sat +classes", "sat", EncodeOptions(classes=True), False),
    ("sat +pagodas", "sat", EncodeOptions(pagodas=True), False),
    ("sat --no-process", "sat", EncodeOptions(process=False), False),
    ("cpsat as at 547797c", "cpsat", BEFORE, True),
    ("cpsat schedule of before", "cpsat", EncodeOptions(), True),
    ("cpsat", "cpsat", EncodeOptions(), False),
]


def anchor() -> float:
    """Seconds CaDiCaL takes to refute PHP(10, 9)."""
    from pysat.examples.genhard import PHP
    from pysat.solvers import Solver

    t0 = time.perf_counter()
    with Solver(name="cadical195", bootstrap_with=PHP(9).clauses) as s:
        assert not s.solve()
    return time.perf_counter() - t0


def run(problem, planner: str, options: EncodeOptions, before: bool, limit: float) -> tuple[str, float]:
    saved = planner_config.SHORT_HORIZONS
    if before:
        planner_config.SHORT_HORIZONS = BASELINE
    try:
        t0 = time.perf_counter()
        r = solve(problem, planner, Config(encode=options), Deadline(limit))
        return r.status.value, time.perf_counter() - t0
    finally:
        planner_config.SHORT_HORIZONS = saved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--only", default="", help="comma-separated substrings of problem names")
    ap.add_argument("--variants", default="", help="comma-separated variant names (default: all)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--ipc", nargs="?", const=IPC, default=None, metavar="DIR",
                    help="the IPC 2008 pegsol problems instead (the sat and cpsat rows only)")
    args = ap.parse_args()
    only = [w for w in args.only.split(",") if w]
    wanted = [w for w in args.variants.split(",") if w]
    if args.ipc is not None:
        cases = ipc_problems(Path(args.ipc))
        wanted = wanted or [v[0] for v in VARIANTS if v[0] in ("sat", "cpsat") or "547797c" in v[0]]
        variants = VARIANTS
    else:
        cases, variants = problems(), VARIANTS
    variants = [v for v in variants if not wanted or v[0] in wanted]
    print(f"# machine anchor: CaDiCaL refutes PHP(10, 9) in {anchor():.2f} s")
    print(f"{'problem':22} {'variant':26} {'status':16} {'seconds':>8} {'ratio':>7}")
    for name, problem in cases:
        if only and not any(w in name for w in only):
            continue
        base: dict[str, float] = {}
        for label, planner, options, before in variants:
            got = [run(problem, planner, options, before, args.time_limit) for _ in range(args.repeat)]
            status = got[0][0]
            secs = statistics.median(t for _, t in got)
            if "547797c" in label:
                settled = status in SETTLED
                base[planner] = secs if settled else float("inf")
            ref = base.get(planner)
            ratio = "" if ref is None else (f">{args.time_limit / secs:.1f}" if ref == float("inf")
                                            else f"{ref / secs:.1f}")
            print(f"{name:22} {label:26} {status:16} {secs:8.1f} {ratio:>7}", flush=True)
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    print(f"# peak memory of one process (this one or a solver child): {peak:.0f} MB")


if __name__ == "__main__":
    main()
