import json

import pytest
from click.testing import CliRunner

from pegsat.cli import main

BERGHOLT = ("f4-d4 e6-e4 g5-e5 d5-f5 b5-d5 c7-c5 c4-c6 e7-c7-c5 e3-e5 e1-e3 c2-c4-c6-e6-e4-e2 "
            "g3-g5-e5-c5 a3-c3 d3-b3 a5-a3-c3 c1-e1-e3 f3-d3-b3-b5-d5-d3 d2-d4")


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_boards():
    r = run("boards")
    assert r.exit_code == 0
    assert "english" in r.output and "   33     76           8" in r.output


def test_show():
    r = run("show", "triangle-5")
    assert r.exit_code == 0 and "a5  b5  c5  d5  e5" in r.output


def test_verify_bergholt():
    r = run("verify", "english", BERGHOLT, "--survivor", "d4")
    assert r.exit_code == 0 and "31 jumps and 18 moves" in r.output
    r = run("verify", "english", BERGHOLT, "--survivor", "d4", "--json")
    assert json.loads(r.output)["moves"] == 18


def test_verify_bad_plan_is_one_line_nonzero():
    r = run("verify", "english", "f4-d4 f4-d4")
    assert r.exit_code == 1
    assert r.output.strip() == "error: step 2 (f4-d4): no peg on f4 to move"


@pytest.mark.parametrize("args, message", [
    (["show", "nosuchboard"], "error: unknown board 'nosuchboard'"),
    (["solve", "english", "--survivor", "z9"], "error: board english has no hole named 'z9'"),
    (["solve", "english", "--start", "d4 d5", "--pegs", "3"], "error: the goal needs at least 3 pegs"),
    (["solve", "english", "--planner", "sat", "--solver", "nosolver"], "error: unknown SAT solver"),
])
def test_bad_input_is_one_line_exit_2(args, message):
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert r.output.startswith(message) and r.output.count("\n") == 1


def test_malformed_board_file(tmp_path):
    f = tmp_path / "b.txt"
    f.write_text("triangular\n o\no o\no o\n")
    r = run("show", str(f))
    assert r.exit_code == 2 and f"{f}:4:" in r.output


def test_solve_central_json_and_out(tmp_path):
    out = tmp_path / "plan.txt"
    r = run("solve", "english", "--survivor", "d4", "--json", "--out", str(out))
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["status"] == "solved" and data["jump_count"] == 31
    v = run("verify", "english", str(out), "--survivor", "d4")
    assert v.exit_code == 0


def test_solve_unsolvable_exit_10():
    r = run("solve", "english", "--survivor", "c4")
    assert r.exit_code == 10 and "unsolvable" in r.output and "invariant" in r.output


def test_solve_unknown_exit_20():
    r = run("solve", "german", "--survivor", "e5", "--planner", "sat", "--time-limit", "0.3")
    assert r.exit_code == 20 and "unknown" in r.output


def test_export_decode(tmp_path):
    from pysat.solvers import Solver

    from pegsat.encoding.dimacs import read_instance
    cnf = tmp_path / "t.cnf"
    r = run("export", "triangle-5", str(cnf))
    assert r.exit_code == 0 and "horizon 13" in r.output
    _, formula = read_instance(cnf)
    with Solver(name="cadical195", bootstrap_with=formula.clauses) as s:
        assert s.solve()
        (tmp_path / "m").write_text("v " + " ".join(map(str, s.get_model())) + " 0\n")
    r = run("decode", str(cnf), str(tmp_path / "m"))
    assert r.exit_code == 0 and "valid plan" in r.output
    (tmp_path / "m").write_text("v 1 -2 3 0\n")
    r = run("decode", str(cnf), str(tmp_path / "m"))
    assert r.exit_code == 2 and r.output.startswith("error: the model does not satisfy clause")


def test_help_is_fast_and_imports_no_solver():
    import subprocess
    import sys
    code = ("import sys; from click.testing import CliRunner; from pegsat.cli import main; "
            "CliRunner().invoke(main, ['--help']); "
            "print(sorted(m for m in sys.modules if m.startswith(('pysat', 'ortools'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_solve_min_moves_reports_the_proof():
    r = run("solve", "triangle-5", "--vacant", "c5", "--survivor", "c5", "--min-moves")
    assert r.exit_code == 0, r.output
    assert "optimal: 9 moves" in r.output and "found none with 8" in r.output
    r = run("solve", "triangle-5", "--vacant", "c5", "--survivor", "c5", "--min-moves", "--json")
    data = json.loads(r.output)
    assert data["moves"] == 9 and data["lower_bound"] == 9 and data["optimal"] is True


def test_solve_min_moves_unsolvable_and_refusals():
    r = run("solve", "triangle-5", "--vacant", "b3", "--survivor", "b3", "--min-moves")
    assert r.exit_code == 10
    r = run("solve", "triangle-5", "--min-moves", "--planner", "sat")
    assert r.exit_code == 2 and r.output.startswith("error: --min-moves has its own planner")
    r = run("solve", "hopping-dots", "--special", "1", "--min-moves")
    assert r.exit_code == 2 and "special peg" in r.output


def test_solve_min_moves_time_limit_is_not_a_proof():
    r = run("solve", "german", "--min-moves", "--time-limit", "1", "--json")
    assert r.exit_code == 20
    data = json.loads(r.output)
    assert data["status"] in ("unknown", "solved") and data["lower_bound"] >= 15
    assert data.get("optimal") is not True


@pytest.mark.parametrize("args", [
    ["solve", "english", "--bogus"],
    ["solve", "english", "--time-limit", "nan"],
    ["solve", "english", "--workers", "0"],
    ["nosuchcommand"],
    ["solve"],
    ["prove", "triangle-5", "--certificate", "no/such/dir/c.json"],
    ["solve", "english", "--out", "no/such/dir/plan.txt"],
])
def test_usage_errors_are_one_line_exit_2(args):
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert r.output.startswith("error: ") and r.output.count("\n") == 1, r.output


@pytest.mark.parametrize("args", [
    ["solve", "nosuchboard", "--json"],
    ["solve", "english", "--survivor", "z9", "--json"],
    ["solve", "english", "--bogus", "--json"],
    ["verify", "english", "zz", "--json"],
    ["prove", "nosuchboard", "--json"],
])
def test_json_errors_are_json(args):
    r = run(*args)
    assert r.exit_code == 2
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got.get("status") == "error" or got.get("valid") is False  # verify: its own shape
    assert r.stderr.count("\n") <= 1
