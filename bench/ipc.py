#!/usr/bin/env python3
"""Benchmark: the IPC peg solitaire tracks, pegsat beside Fast Downward, both as whole processes.

    python bench/ipc.py [--time-limit 120] [--tracks 08,opt11,sat11,row5,pegsol16]
                        [--pegsol2016 DIR] [--no-fd]

Like is compared with like: pegsat and Fast Downward each run as a whole process (``pegsat
solve FILE --json`` and ``fast-downward.py``), timed by wall clock with the peak resident
memory of the process tree (``os.wait4``); pegsat's in-process time (``solve()`` in this
process, no start-up) is a second column. ``ratio`` = Fast Downward wall / pegsat wall (">"
when Fast Downward had no answer by the limit).

Optimal tracks (``pegsol-08-strips``, ``pegsol-opt11-strips``): pegsat ``--min-moves``
against ``astar(lmcut())``. Satisficing (``pegsol-sat11-strips``): pegsat ``auto`` and
``--min-moves`` against ``--alias lama-first``. Unsolvability tracks (2016): ``row5``
(``PEGSAT_IPC_DIR``; domain ``pegsolitaire-invasion``, boards of 6-300 holes) and ``pegsol16``
(the ``pegsol`` set, domain ``pegsolitaire-netbenefit``; not shipped: give its directory
with ``--pegsol2016``), pegsat ``auto`` against ``astar(blind())``, which proves
unsolvability by exhausting the reachable states. Every plan, Fast Downward's included, is
replayed by pegsat's verifier. Fast Downward is the PyPI package ``up-fast-downward``
(``pip install -e '.[bench]'``); when it is missing its columns say so. Problems that repeat
an earlier one byte for byte reuse the earlier Fast Downward run (``dup``).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from pegsat.apps.solve import solve  # noqa: E402
from pegsat.deadline import Deadline  # noqa: E402
from pegsat.engine.bitboard import replay  # noqa: E402
from pegsat.errors import PlanError  # noqa: E402
from pegsat.formats.pddl import read_ipc_plan, read_task  # noqa: E402

#: the competitions' files: the directory ``PEGSAT_IPC_DIR`` names (or ``--ipc DIR``)
IPC = Path(os.environ.get("PEGSAT_IPC_DIR") or "/nonexistent/pegsat-ipc")
TRACKS = {"08": "pegsol-08-strips", "opt11": "pegsol-opt11-strips", "sat11": "pegsol-sat11-strips",
          "row5": "unsolve-2016-pegsol-row5", "pegsol16": "pegsol16"}
PEGSAT = Path(sys.executable).parent / "pegsat"


TIME = "/usr/bin/time"  # GNU time: the peak memory of the command, not of this (large) process


def timed(cmd: list[str], limit: float, cwd: str | None = None) -> tuple[int, float, float, str]:
    """(exit code, wall seconds, peak MB, stdout) of a whole process. The peak is GNU time's
    %M (the largest process of the tree); without /usr/bin/time it is NaN: a child forked
    from this process would report this process's own size."""
    t = time.perf_counter()
    gnu = os.path.exists(TIME)
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as mem:
        full = [TIME, "-q", "-f", "%M", "-o", mem.name, *cmd] if gnu else cmd
        proc = subprocess.Popen(full, stdout=out, stderr=subprocess.DEVNULL, cwd=cwd)
        try:
            proc.wait(limit + 30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        secs = time.perf_counter() - t
        out.seek(0)
        text = out.read().decode(errors="replace")
        kb = mem.read().split()
    mb = int(kb[-1]) / 1024 if gnu and kb and kb[-1].isdigit() else float("nan")
    return proc.returncode, secs, mb, text


def run_pegsat(path: Path, planner: str, limit: float):
    """(status, moves, wall s, peak MB) of ``pegsat solve`` as a whole process."""
    cmd = [str(PEGSAT), "solve", str(path), "--json", "--time-limit", str(limit)]
    cmd += ["--min-moves"] if planner == "moves" else ["--planner", planner]
    code, secs, mb, text = timed(cmd, limit)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return f"exit {code}", None, secs, mb
    return data.get("status"), data.get("moves"), secs, mb


def fast_downward() -> Path | None:
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or not spec.submodule_search_locations:
        return None
    script = Path(list(spec.submodule_search_locations)[0]) / "downward" / "fast-downward.py"
    return script if script.is_file() else None


def prove_and_check(path: Path, limit: float) -> str:
    """``pegsat prove --certificate`` then ``pegsat check``, both whole processes: the
    certificate's kind, whether check accepted it, and the two times."""
    with tempfile.TemporaryDirectory() as tmp:
        cert = Path(tmp) / "cert.json"
        code, psecs, _, _ = timed([str(PEGSAT), "prove", str(path), "--certificate", str(cert),
                                   "--time-limit", str(limit)], limit)
        if code != 10 or not cert.is_file():
            return f"prove exit {code}"
        kind = json.loads(cert.read_text())["kind"]
        ccode, csecs, _, _ = timed([str(PEGSAT), "check", str(cert)], limit)
        return f"cert {kind} {'checked' if ccode == 0 else f'CHECK EXIT {ccode}'} ({psecs:.2f}+{csecs:.2f} s)"


def run_fd(script: Path, domain: Path, problem: Path, config: str, limit: float, task):
    """(answer, wall s, peak MB, note): answer is the plan's moves (replayed before it is
    believed), "unsolvable" (exit 10/11/12 of Fast Downward's driver), or None."""
    with tempfile.TemporaryDirectory() as tmp:
        driver = [sys.executable, str(script), "--plan-file", str(Path(tmp) / "plan"), "--overall-time-limit",
                  f"{int(limit)}s"]
        if config == "lama-first":
            cmd = [*driver, "--alias", "lama-first", str(domain), str(problem)]
        else:
            search = {"astar-lmcut": "astar(lmcut())", "astar-blind": "astar(blind())"}[config]
            cmd = [*driver, str(domain), str(problem), "--search", search]
        code, secs, mb, _ = timed(cmd, limit, cwd=tmp)
        plans = sorted(Path(tmp).glob("plan*"))
        if not plans:
            if code in (10, 11, 12):  # translator / search proved the task unsolvable
                return "unsolvable", secs, mb, ""
            return None, secs, mb, "no answer"
        text = plans[-1].read_text()  # lama writes plan.1, plan.2, ...: the last is the best
        try:
            rep = replay(task.problem, read_ipc_plan(task.problem.board, text, task))
        except PlanError as exc:
            return None, secs, mb, f"INVALID: {exc}"
        return rep.moves, secs, mb, "timeout" if secs >= limit else ""


def rows():
    if not (IPC / "optimal_costs.tsv").is_file():
        print(f"(08, opt11, sat11: no optimal_costs.tsv in {IPC}; give --ipc DIR or PEGSAT_IPC_DIR)")
        return
    with open(IPC / "optimal_costs.tsv") as fh:
        yield from csv.DictReader((ln for ln in fh if not ln.startswith("#")), delimiter="\t")


def cases(args):
    """(track, name, problem file, domain file, expected) for every wanted problem; expected
    is the optimal cost (IPC 2008/2011) or "unsolvable"/"solvable" (2016)."""
    wanted = args.tracks.split(",")
    for row in rows():
        track = next((t for t in wanted if TRACKS[t] == row["variant"]), None)
        if track is not None:
            d = IPC / row["variant"]
            yield (track, row["problem"], d / f"{row['problem']}.pddl", d / "domain.pddl",
                   int(row["optimal_cost"]), row["body_sha"])
    dirs = {"row5": IPC / TRACKS["row5"], "pegsol16": Path(args.pegsol2016) if args.pegsol2016 else None}
    for track in ("row5", "pegsol16"):
        if track not in wanted:
            continue
        d = dirs[track]
        if d is None or not (d / "domain.pddl").is_file():
            print(f"({track}: no problem directory; give --pegsol2016 DIR)")
            continue
        for f in sorted(d.glob("*prob*.pddl")):
            want = "solvable" if f.stem.startswith("sat") else "unsolvable"
            yield track, f.stem, f, d / "domain.pddl", want, None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--tracks", default="08,opt11,sat11,row5,pegsol16")
    ap.add_argument("--pegsol2016", help="directory of the 2016 unsolvability track's pegsol set")
    ap.add_argument("--ipc", help="directory of the competitions' files (default: $PEGSAT_IPC_DIR)")
    ap.add_argument("--no-fd", action="store_true")
    args = ap.parse_args()
    if args.ipc:
        global IPC
        IPC = Path(args.ipc)
    fd = None if args.no_fd else fast_downward()
    print(f"Fast Downward: {fd or 'not installed (pip install up-fast-downward)'}")
    print(f"{'problem':<18}{'pegs':>5}{'want':>6}  {'pegsat':<7}{'answer':>7}{'wall s':>8}{'MB':>6}"
          f"{'in-proc':>8}  {'FD':<12}{'answer':>7}{'wall s':>8}{'MB':>6}{'ratio':>9}  note")
    print("-" * 122)
    fd_cache: dict[tuple, tuple] = {}
    summary: dict[str, list] = {}
    for track, name, path, domain, want, sha in cases(args):
        task = read_task(path, domain)
        optimal = track in ("08", "opt11")
        methods = ["moves"] if optimal else (["auto", "moves"] if track == "sat11" else ["auto"])
        fd_config = "astar-lmcut" if optimal else ("lama-first" if track == "sat11" else "astar-blind")
        fd_res = None
        if fd is not None:
            key = (sha or str(path), fd_config)
            dup = key in fd_cache
            if not dup:
                fd_cache[key] = run_fd(fd, domain, path, fd_config, args.time_limit, task)
            fd_res = fd_cache[key] + (dup,)
        for planner in methods:
            status, moves, wall, mb = run_pegsat(path, planner, args.time_limit)
            t = time.perf_counter()
            r = solve(task.problem, planner, deadline=Deadline(args.time_limit))
            inproc = time.perf_counter() - t
            answer = moves if status in ("solved", "solved-optimal") else status
            note = []
            if isinstance(want, int):
                if planner == "moves":
                    note.append("optimal" if status == "solved-optimal" else "UNPROVEN")
                    if moves != want:
                        note.append(f"MISMATCH (listed {want})")
            elif (want == "solvable") != (status in ("solved", "solved-optimal")):
                note.append("UNSETTLED" if status == "unknown" else f"MISMATCH (want {want})")
            if r.status.value != status:
                note.append(f"in-process: {r.status.value}")
            if status == "unsolvable" and track in ("row5", "pegsol16"):
                note.append(prove_and_check(path, args.time_limit))
            fd_cols, ratio, fwall = f"{'-':<12}{'-':>7}{'-':>8}{'-':>6}", "", None
            if fd_res is not None:
                fans, fwall, fmb, fnote, dup = fd_res
                shown = "unsolv" if fans == "unsolvable" else str(fans)
                fd_cols = f"{fd_config:<12}{shown:>7}{fwall:>8.2f}{fmb:>6.0f}"
                ratio = f"{'>' if fans is None else ''}{fwall / wall:.1f}x"
                note += [f"FD {fnote}"] if fnote else []
                note += ["FD dup"] if dup else []
            shown = "unsolv" if answer == "unsolvable" else str(answer)
            row = (wall, fwall, fd_res, answer, want, inproc, mb)
            summary.setdefault(f"{track} {planner}", []).append(row)
            print(f"{track + '/' + name:<18}{task.problem.pegs:>5}{str(want)[:6]:>6}  {planner:<7}{shown:>7}"
                  f"{wall:>8.2f}{mb:>6.0f}{inproc:>8.2f}  {fd_cols}{ratio:>9}  {' '.join(note)}", flush=True)
    print()
    for key, vals in summary.items():
        walls = [v[0] for v in vals]
        right = sum(1 for v in vals if v[3] == v[4] or (v[4] == "solvable" and isinstance(v[3], int)))
        peak = max(v[6] for v in vals)
        line = (f"{key}: {len(vals)} problems, pegsat right on {right}, whole process median "
                f"{statistics.median(walls):.2f} s, max {max(walls):.2f} s, peak {peak:.0f} MB; "
                f"in-process median {statistics.median(v[5] for v in vals):.2f} s")
        fds = [v for v in vals if v[1] is not None]
        if fds:
            answered = sum(1 for v in fds if v[2][0] is not None)
            line += (f"; FD answered {answered}, median {statistics.median(v[1] for v in fds):.2f} s; "
                     f"median ratio FD/pegsat (whole processes) "
                     f"{statistics.median(v[1] / v[0] for v in fds):.1f}x")
        print(line)
    print(f"time limit {args.time_limit:.0f} s per run")


if __name__ == "__main__":
    main()
