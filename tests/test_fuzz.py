"""Fuzzing every reader through the command line: hostile bytes never give a traceback or a
hang, and bad input is exactly one line on stderr with exit 2.

The seed corpus is every example file in instances/ (problems, boards, plans) and the files in
tests/fuzz/ (certificates of four kinds, two with their level files — one a file a level, one
a search's partitions on disk —, a DIMACS instance and a model for it, a job file,
and the IPC 2008 problem p10 as pegsat's exporter writes it, with its domain). Hypothesis mutates them
structurally (tokens replaced by hostile values, lines duplicated or dropped, bytes
flipped, inserted or cut, a byte-order mark, Latin-1 bytes) or draws raw bytes, writes the
result under the seed's file name and runs the command that reads that kind of file.
``PEGSAT_FUZZ_EXAMPLES=5000`` fuzzes longer than the default run's 150 examples.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegsat.cli import main
from pegsat.errors import PegsatError

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "fuzz"
QUICK = ["--planner", "search", "--workers", "1", "--time-limit", "1"]

SEEDS = sorted([*ROOT.glob("instances/*.toml"), *ROOT.glob("instances/boards/*.txt"),
                *ROOT.glob("instances/plans/*.plan"),
                *(f for f in CORPUS.iterdir() if f.is_file() and f.suffix not in (".domain", ".npz"))])

HOSTILE = ["-1", "0", "99999999999", "nan", "inf", "1.7", "true", "[]", "{}", '""', "null", "z9",
           "-", "\x00", "'", '"', "[[", "]]", "=", "#", "a1-a1", "é", "\\", "\n\n\n", "1e308"]


def command(seed: Path, path: Path) -> list[str] | None:
    """The command line that reads ``path`` as a file of ``seed``'s kind (None: read directly)."""
    name = seed.name
    if name.endswith(".toml"):
        return ["solve", str(path), *QUICK]
    if seed.parent.name == "boards":
        return ["show", str(path)]
    if name.endswith(".plan"):  # BOARD-VACANCY-SURVIVOR.plan, or BOARD-VACANCY-one.plan
        board, vacant, survivor = name.removesuffix(".plan").split("-")
        goal = [] if survivor == "one" else ["--survivor", survivor]
        return ["verify", board, str(path), "--vacant", vacant, *goal]
    if name.endswith(".cert.json"):  # (a levels certificate alone: its levels rebuilt by the checker)
        return ["check", str(path), *(["--rebuild"] if "-rebuild." in name else [])]
    if name.endswith(".cnf"):
        return ["decode", str(path), str(CORPUS / "t4.model")]
    if name.endswith(".model"):
        return ["decode", str(CORPUS / "t4.cnf"), str(path)]
    if name.endswith(".pddl"):
        return ["solve", str(path), "--pddl", str(CORPUS / "sequential.domain"), *QUICK]
    return None  # job files: the batch reader itself (a Dask cluster per example is too slow)


@st.composite
def mutations(draw):
    seed = draw(st.sampled_from(SEEDS))
    if draw(st.integers(0, 9)) == 0:
        return seed, draw(st.binary(max_size=200))
    data = bytearray(seed.read_bytes())
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["token", "token", "line", "flip", "insert", "cut", "bom", "latin1"]))
        if op == "token":
            tokens = [m.span() for m in re.finditer(rb"[A-Za-z0-9_.+\-]+", bytes(data))]
            if tokens:
                a, b = tokens[draw(st.integers(0, len(tokens) - 1))]
                data[a:b] = draw(st.sampled_from(HOSTILE)).encode()
        elif op == "line":
            lines = bytes(data).split(b"\n")
            i = draw(st.integers(0, max(0, len(lines) - 1)))
            if draw(st.booleans()):
                lines.insert(i, lines[i] * draw(st.integers(2, 50)))
            else:
                del lines[i]
            data = bytearray(b"\n".join(lines))
        elif op == "flip" and data:
            i = draw(st.integers(0, len(data) - 1))
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            i = draw(st.integers(0, len(data)))
            data[i:i] = draw(st.binary(min_size=1, max_size=20))
        elif op == "cut" and data:
            i = draw(st.integers(0, len(data) - 1))
            data = data[:i] + data[i + draw(st.integers(1, 200)):]
        elif op == "bom":
            data = bytearray(b"\xef\xbb\xbf") + data
        elif op == "latin1":
            data += "café".encode("latin-1")
    return seed, bytes(data)


@settings(max_examples=int(os.environ.get("PEGSAT_FUZZ_EXAMPLES", "150")), deadline=timedelta(seconds=20),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutations())
def test_hostile_files_give_one_line_or_an_answer(case):
    seed, data = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / seed.name
        path.write_bytes(data)
        for part in seed.parent.glob(f"{seed.name}.*.npz"):  # a certificate's level files, beside it
            (Path(tmp) / part.name).write_bytes(part.read_bytes())
        levels = seed.parent / f"{seed.name}.levels"  # or below it: a search's partitions on disk
        if levels.is_dir():
            shutil.copytree(levels, Path(tmp) / levels.name)
        args = command(seed, path)
        if args is None:
            from pegsat.apps.batch import load_jobs
            try:
                load_jobs(str(path))
            except PegsatError:
                pass
            return
        r = CliRunner().invoke(main, args)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        import traceback
        raise AssertionError("".join(traceback.format_exception(r.exception))) from None
    assert "Traceback" not in r.output
    assert r.exit_code in (0, 1, 2, 10, 20), (r.exit_code, r.output)
    if r.exit_code == 2:
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: "), r.stderr


@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: p.name)
def test_every_seed_is_read_cleanly(seed):
    """The unmutated corpus: each file is valid for its command (no exit 2)."""
    args = command(seed, seed)
    if args is None:
        from pegsat.apps.batch import load_jobs
        assert load_jobs(str(seed))
        return
    r = CliRunner().invoke(main, args)
    assert r.exit_code in (0, 10, 20), r.output
