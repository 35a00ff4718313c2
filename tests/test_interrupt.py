"""Ctrl-C: every planner stops at once with exit 130 and leaves no process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from pegsat.planners import PLANNERS


def _session(sid: int) -> list[int]:
    out = subprocess.run(["ps", "-eo", "pid=,sid="], capture_output=True, text=True).stdout
    return [int(p) for p, s in (line.split() for line in out.splitlines()) if int(s) == sid]


@pytest.mark.parametrize("planner", sorted(PLANNERS))
def test_sigint_exits_130_at_once_and_leaves_no_process(planner):
    """SIGINT to the pegsat process alone (not its group): its solver children must go too.
    Diamond e4 keeps every planner busy well past the signal. The portfolio (``search``) is
    sent a kill's SIGTERM instead (a batch scheduler's, ``timeout``'s): it stops the same way."""
    sig = signal.SIGTERM if planner == "search" else signal.SIGINT
    args = [sys.executable, "-m", "pegsat.cli", "solve", "diamond", "--vacant", "e4", "--planner", planner,
            "--time-limit", "60"]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        time.sleep(1.5)
        t = time.monotonic()
        p.send_signal(sig)
        _, err = p.communicate(timeout=15)
        took = time.monotonic() - t
        assert p.returncode == 130, err
        assert err.strip().startswith("interrupted") and err.count("\n") == 1, err
        assert took < 5.0, took  # at once, not at the 60 s limit (a shared machine's load: seconds)
        deadline = time.monotonic() + 2.0
        while _session(p.pid) and time.monotonic() < deadline:
            time.sleep(0.05)  # children notice their parent is gone
        assert not _session(p.pid)
    finally:
        for q in _session(p.pid):
            os.kill(q, signal.SIGKILL)
        if p.poll() is None:
            p.kill()


def test_a_signal_during_a_heavy_import_is_an_interruption(monkeypatch):
    """Ctrl-C while OR-Tools initialises surfaces as ``ImportError: initialization failed``
    (the interrupt as its context): that is exit 130 and one line, never a traceback (a
    clean install's run caught it by chance; here it is made to happen)."""
    from click.testing import CliRunner

    from pegsat.apps import solve
    from pegsat.cli import main

    def interrupted_import(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise ImportError("initialization failed") from None

    monkeypatch.setattr(solve, "solve", interrupted_import)
    r = CliRunner().invoke(main, ["solve", "english", "--planner", "cpsat"])
    assert r.exit_code == 130 and r.output.startswith("interrupted") and "Traceback" not in r.output, r.output


def test_a_walks_scratch_a_late_writer_refills_goes_at_exit_and_the_interrupt_stays(tmp_path, monkeypatch):
    """A check's scratch is removed at its end; a Dask worker still writing into it after a
    Ctrl-C (its task runs on) leaves a file behind: the interrupt goes on (not the removal's
    error) and the directory is removed again as the process exits."""
    import shutil

    from pegsat.checks import kit

    exits: list = []
    monkeypatch.setattr(kit.atexit, "register", lambda fn, *args: exits.append((fn, args)))
    real, calls = shutil.rmtree, []

    def late_writer(path, ignore_errors=False):  # the first removal is refilled at once
        real(path, ignore_errors=ignore_errors)
        if not calls:
            os.makedirs(path)
            (tmp_path / os.path.basename(path) / "0-1-0.bkt").write_bytes(b"late")
        calls.append(path)

    with pytest.raises(KeyboardInterrupt):
        with kit.scratch_dir("pegsat-levels-", str(tmp_path)) as where:
            monkeypatch.setattr(kit.shutil, "rmtree", late_writer)
            raise KeyboardInterrupt
    assert os.path.isdir(where) and len(exits) == 1
    fn, args = exits[0]
    fn(*args)
    assert not os.path.exists(where) and len(calls) == 2


@pytest.mark.slow
def test_a_check_on_workers_interrupted_leaves_one_line_and_no_scratch(tmp_path):
    """``check --rebuild --workers 2`` of the shipped German d4 certificate, interrupted while
    its workers write buckets beside it: exit 130, one line, nothing left in its directory."""
    from pathlib import Path

    cert = Path(__file__).resolve().parent.parent / "instances" / "certificates" / "german-d4-d4.json"
    (tmp_path / cert.name).write_bytes(cert.read_bytes())
    args = [sys.executable, "-m", "pegsat.cli", "check", cert.name, "--rebuild", "--workers", "2"]
    p = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob("pegsat-moves-*/*/*.bkt")) and time.monotonic() < deadline:
            time.sleep(0.2)  # the workers are writing buckets
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
        assert p.returncode == 130, err
        assert err.strip().splitlines()[-1].startswith("interrupted") and "Traceback" not in err, err
        assert sorted(f.name for f in tmp_path.iterdir()) == [cert.name]
    finally:
        for q in _session(p.pid):
            os.kill(q, signal.SIGKILL)
        if p.poll() is None:
            p.kill()
