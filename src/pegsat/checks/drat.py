"""DRAT proofs re-checked by checkers that share no code with the solvers or with pegsat.

A SAT solver's "unsatisfiable" is a claim; its DRAT proof (RUP and RAT lemmas and
deletions, Wetzler, Heule and Hunt, "DRAT-trim: efficient checking and trimming using
expressive clausal proofs", SAT 2014) lets anyone replay it. Two published checkers:

- ``dratify`` (PyPI, Apache-2.0): in this process, forward checking of every step. Its
  Rust engine is used when installed (``pip install 'cdclkit[native]'``, which registers
  it; about 10x faster here), else its pure-Python engine;
- ``drat-trim`` (the reference checker, C, backward checking) when it is on PATH; it is
  in neither Debian 12 nor PyPI, so it is optional.

Each runs in a child process under the caller's deadline: a check that has not finished is
"unfinished", never "verified". Measured (bench/ipc.py, this 2-core machine): a 0.9 MB
proof (23,506 steps) in 0.19 s native, 1.7 s pure Python.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path

from ..deadline import Deadline
from ..process import OUT_OF_MEMORY, Child, ChildDied
from .verdict import Verdict, judged


def _said(checker: str, ok: bool | None, seconds: float, detail: str = "") -> Verdict:
    """A checker's verdict (``ok`` None: not finished within the deadline, or the checker
    failed to run), its reason naming the checker, what it found and its time."""
    word = {True: "verified", False: "REJECTED", None: "did not finish checking"}[ok]
    reason = f"{checker} {word} the DRAT proof in {seconds:.2f} s" + (f" ({detail})" if detail else "")
    return replace(judged(ok, reason, seconds=seconds), kind="drat")


def _native() -> bool:
    """Register dratify's Rust engine when cdclkit's native wheel is installed."""
    try:
        import cdclkit  # noqa: F401  (registers its checker with dratify on import)
    except ImportError:
        return False
    import dratify

    return bool(dratify.native_available())


def _dratify(send, cnf: str, proof: str, engine: str) -> None:
    import dratify

    if engine == "auto":
        engine = "native" if _native() else "python"
    formula = dratify.parse_dimacs(Path(cnf).read_text())
    result = dratify.check_proof(formula, Path(proof).read_text(), engine=engine)
    send((bool(result.ok and result.reached_empty), f"{engine} engine",
          f"{result.steps} steps" if result.ok else str(result.reason)[:120]))


def check_dratify(cnf: Path, proof: Path, deadline: Deadline, engine: str = "auto") -> Verdict:
    """dratify's verdict on ``proof`` for ``cnf`` (``engine``: auto, native or python)."""
    try:
        import dratify
    except ImportError:
        return _said("dratify", None, 0.0, "not installed (pip install dratify)")
    name = f"dratify {getattr(dratify, '__version__', '')}".strip()
    t = time.perf_counter()
    child = Child(_dratify, str(cnf), str(proof), engine)
    try:
        while True:
            if deadline.expired():
                return _said(name, None, time.perf_counter() - t, "time limit")
            try:
                msg = child.receive(0.05)
            except ChildDied as exc:
                return _said(name, None, time.perf_counter() - t, f"the checker died: {exc}")
            if msg is not None:
                break
    finally:
        child.stop()
    if msg[0] in ("error", OUT_OF_MEMORY):
        return _said(name, None, time.perf_counter() - t, str(msg[1])[:120])
    ok, how, detail = msg
    return _said(f"{name} ({how})", ok, time.perf_counter() - t, detail)


def check_drat_trim(cnf: Path, proof: Path, deadline: Deadline) -> Verdict | None:
    """drat-trim's verdict, or None when it is not on PATH."""
    exe = shutil.which("drat-trim")
    if exe is None:
        return None
    t = time.perf_counter()
    left = deadline.remaining()
    try:
        run = subprocess.run([exe, str(cnf), str(proof)], capture_output=True, text=True,
                             timeout=None if left is None else max(left, 0.01))
    except subprocess.TimeoutExpired:
        return _said("drat-trim", None, time.perf_counter() - t, "time limit")
    return _said("drat-trim", "s VERIFIED" in run.stdout, time.perf_counter() - t)


def check(cnf: Path, proof: Path, deadline: Deadline) -> list[Verdict]:
    """Every available checker's verdict (dratify always; drat-trim when on PATH)."""
    out = [check_dratify(cnf, proof, deadline)]
    trim = check_drat_trim(cnf, proof, deadline)
    if trim is not None:
        out.append(trim)
    return out
