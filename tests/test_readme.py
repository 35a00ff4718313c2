"""Every command line of the README's "Using it" block runs as written, in a fresh directory,
with the exit code stated here for it (a line the table does not know fails the test: say
what it should do).

The quick lines run in the default run, in the README's order; every line, the long ones
(surveys, censuses, searches on disk, a batch) included, runs under the slow marker. The
"Two commands" block is ``.ci/run`` itself (install from scratch, then the tests), and the
Python examples are ``test_docs``'s doctests.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: (a pattern the line starts with, its exit code, quick enough for the default run)
EXPECTED = [
    (r"pegsat boards\b", 0, True),
    (r"pegsat show triangle-5\b", 0, True),
    (r"pegsat solve english +#", 0, True),
    (r"pegsat solve french --vacant c1 --survivor e1 --show", 0, True),
    (r"pegsat solve english --survivor d4 --min-moves +#", 0, True),
    (r"pegsat solve english --survivor d4 --min-moves --certificate d4\.json && pegsat check", 0, False),
    (r"pegsat solve english --survivor c4\b", 10, True),
    (r"pegsat solve hopping-dots", 0, True),
    (r"pegsat solve instances/invasion-english\.toml", 0, True),
    (r"pegsat verify english", 0, True),
    (r"pegsat prove english --survivor c4 --certificate c4\.json; pegsat check c4\.json", 0, True),
    (r"pegsat survey english --picture", 0, False),
    (r"pegsat survey english --certificates atlas/english && pegsat check atlas/english", 0, False),
    (r"pegsat atlas atlas --out site/", 0, False),
    (r"pegsat count english +#", 0, False),
    (r"pegsat count english --spill census/", 0, False),
    (r"pegsat solve french --vacant c1 --survivor e1 --min-moves --spill levels/", 0, False),
    (r"pegsat solve english --survivor d4 --out plan\.txt", 0, True),
    (r"pegsat solve english --min-moves --upper-plan plan\.txt", 0, False),
    (r"pegsat hint english", 0, False),  # 6 s: the English solvable set (test_hint covers it)
    (r"pegsat play english", 0, False),
    (r"pegsat export english central\.cnf", 0, True),
    (r"cadical central\.cnf > central\.model; pegsat decode", 0, False),  # test_dimacs has the round trip
    (r"pegsat batch english --workers 2", 0, False),
    (r"pegsat render english plan\.txt", 0, True),
]


def readme_lines() -> list[str]:
    """The command lines of the README's "Using it" block, in order."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Using it.*?```sh\n(.*?)```", text, re.S)
    assert block, "the README has no 'Using it' block of commands"
    return [line for line in block.group(1).splitlines() if line.strip()]


def expected(line: str) -> tuple[int, bool]:
    for pattern, code, quick in EXPECTED:
        if re.match(pattern, line):
            return code, quick
    raise AssertionError(f"a README line with no stated exit code: {line!r} (add it to EXPECTED)")


def run(line: str, where: Path) -> subprocess.CompletedProcess:
    """The line through bash in ``where``, with this interpreter's ``pegsat`` first on PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "BROWSER": "true"}  # ``play`` opens no browser
    if line.startswith("pegsat play"):
        return _served(line, where, env)
    return subprocess.run(["bash", "-c", line], cwd=where, env=env, capture_output=True, text=True,
                          timeout=3600)


def _served(line: str, where: Path, env: dict) -> subprocess.CompletedProcess:
    """``play`` serves until Ctrl-C: it must say where it plays, then stop cleanly on SIGINT."""
    p = subprocess.Popen(["bash", "-c", f"exec {line}"], cwd=where, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None
    said = p.stdout.readline()
    url = said.split()[2] if said.startswith("playing at http://127.0.0.1:") else ""
    for _ in range(120):  # serving: the page answers (a Ctrl-C before that is an interruption, 130)
        try:
            with urllib.request.urlopen(url, timeout=5) as page:
                if page.status == 200:
                    break
        except (OSError, ValueError):
            time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert url, said + err
    return subprocess.CompletedProcess(line, p.returncode, said + out, err)


def check_lines(tmp_path: Path, quick_only: bool) -> None:
    (tmp_path / "instances").symlink_to(ROOT / "instances")  # the README is read in a checkout
    lines = readme_lines()
    wanted = [(line, *expected(line)) for line in lines]
    for line, code, quick in wanted:
        if quick_only and not quick:
            continue
        if line.startswith("cadical") and shutil.which("cadical") is None:
            continue  # the DIMACS round trip needs Debian's cadical (.ci/run installs it)
        got = run(line, tmp_path)
        assert got.returncode == code, f"{line}\nexit {got.returncode}, not {code}\n{got.stdout}{got.stderr}"
        assert "Traceback" not in got.stderr, f"{line}\n{got.stderr}"


def test_the_quick_readme_lines_run_as_written(tmp_path):
    check_lines(tmp_path, quick_only=True)


@pytest.mark.slow
def test_every_readme_line_runs_as_written(tmp_path):
    check_lines(tmp_path, quick_only=False)
