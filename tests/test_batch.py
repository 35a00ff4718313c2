"""pegsat batch on a real local Dask cluster of two workers, including a worker killed mid-run."""

import json
import os
import signal
import time

import pytest
from click.testing import CliRunner
from conftest import Options

from pegsat.apps.batch import load_jobs, parse_line, read_results, run
from pegsat.cli import main
from pegsat.errors import PegsatError

pytest.importorskip("distributed")

JOBS = """# a jobs file: one problem per line, as on the command line
triangle-5 --vacant c5 --survivor c5
triangle-5 --vacant b3 --survivor b3
english --vacant c1 --survivor e1
hopping-dots --vacant 7 --special 1
no-such-board
"""


def test_parse_line():
    j = parse_line("english --vacant c1 --survivor e1  # comment", "x:1")
    assert j.problem == "english" and j.options == Options(vacant="c1", survivor="e1")
    with pytest.raises(PegsatError, match="x:1: unknown option --bogus"):
        parse_line("english --bogus 3", "x:1")


def test_board_name_means_its_survey_set():
    jobs = load_jobs("triangle-5")
    assert len(jobs) == 42 and jobs[0].id == "triangle-5 --vacant a1 --survivor a1"


def test_batch_cli_results_and_resume(tmp_path):
    jobs = tmp_path / "jobs.txt"
    jobs.write_text(JOBS)
    out = tmp_path / "r.jsonl"
    r = CliRunner().invoke(main, ["batch", str(jobs), "--results", str(out), "--quiet"])
    assert r.exit_code == 1, r.output  # one job names no board: an error, the others settle
    recs = read_results(out)
    status = {k: v["status"] for k, v in recs.items()}
    assert status == {
        "triangle-5 --vacant c5 --survivor c5": "solved",
        "triangle-5 --vacant b3 --survivor b3": "unsolvable",
        "english --vacant c1 --survivor e1": "unsolvable",
        "hopping-dots --vacant 7 --special 1": "solved",
        "no-such-board": "error",
    }
    assert "unknown board" in recs["no-such-board"]["detail"]
    lines = out.read_text().count("\n")
    r = CliRunner().invoke(main, ["batch", str(jobs), "--results", str(out), "--quiet"])
    assert out.read_text().count("\n") == lines  # everything answered: nothing rerun


@pytest.mark.slow  # the batch runner also goes through the CLI in test_batch_cli_results_and_resume
def test_batch_planner_option_and_no_oversubscription(tmp_path):
    from pegsat.process import cores

    jobs = tmp_path / "jobs.txt"
    jobs.write_text("triangle-5 --vacant c5 --survivor c5\ntriangle-5 --vacant b3 --survivor b3\n")
    out = tmp_path / "r.jsonl"
    r = CliRunner().invoke(main, ["batch", str(jobs), "--results", str(out), "--quiet", "--planner", "cpsat"])
    assert r.exit_code == 0, r.output
    recs = read_results(out).values()
    assert {x["planner"] for x in recs} == {"cpsat"}
    assert {x["status"] for x in recs} == {"solved", "unsolvable"}
    assert {x["cores"] for x in recs} == {max(1, cores() // 2)}  # two workers share the machine
    r = CliRunner().invoke(main, ["batch", str(jobs), "--planner", "sat", "--min-moves"])
    assert r.exit_code == 2 and "--min-moves has its own planner" in r.output


def test_killed_worker_is_unknown_never_unsolvable(tmp_path):
    long = "german --vacant e1 --survivor e1"  # open after minutes: runs until its limit
    jobs = [parse_line(long, "long"),
            parse_line("triangle-5 --vacant a1 --survivor a1", "a"),
            parse_line("triangle-5 --vacant c5 --survivor c5", "b"),
            parse_line("triangle-5 --vacant a4 --survivor a4", "c")]
    killed = {}

    def kill_long_job(client, futures):
        key = futures[long].key
        deadline = time.time() + 60
        while time.time() < deadline:
            where = [w for w, keys in client.processing().items() if key in keys]
            if where:
                time.sleep(1.0)  # let it get going
                pid = client.run(os.getpid, workers=where)[where[0]]
                os.kill(pid, signal.SIGKILL)
                killed["pid"] = pid
                return
            time.sleep(0.05)

    recs = run(jobs, tmp_path / "r.jsonl", workers=2, time_limit=40, quiet=True, on_submit=kill_long_job)
    assert killed
    assert recs[long]["status"] == "unknown" and "worker died" in recs[long]["detail"]
    for j in jobs[1:]:
        assert recs[j.id]["status"] == "solved"
    lines = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert len(lines) == 4


def test_bad_scheduler_address_is_one_line():
    r = CliRunner().invoke(main, ["batch", "triangle-5", "--scheduler", "notanaddress", "--quiet"])
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert r.output.startswith("error: cannot reach the Dask scheduler 'notanaddress'")


@pytest.mark.slow  # a German batch in a subprocess; test_interrupt.py interrupts every planner
def test_interrupted_batch_says_one_line(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "r.jsonl"
    args = [sys.executable, "-m", "pegsat.cli", "batch", "german", "--results", str(out), "--quiet"]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    deadline = time.time() + 60  # the cluster up and jobs out: the results file is opened then
    while not out.exists() and time.time() < deadline and p.poll() is None:
        time.sleep(0.1)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert err.startswith("interrupted: finished jobs are kept") and err.count("\n") == 1, err
