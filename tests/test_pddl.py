"""The IPC peg solitaire PDDL reader, and the IPC optimal costs by the min-moves planner."""

import csv

import pytest
from click.testing import CliRunner
from conftest import SHARED

from pegsat.apps.solve import solve
from pegsat.cli import main
from pegsat.errors import ProblemError
from pegsat.formats.pddl import read_task

IPC = SHARED / "instances" / "ipc-pegsol"


def ipc_costs():
    """(variant, problem, optimal cost) once per distinct problem body."""
    rows, seen = [], set()
    with open(IPC / "optimal_costs.tsv") as fh:
        for row in csv.DictReader((ln for ln in fh if not ln.startswith("#")), delimiter="\t"):
            if row["body_sha"] not in seen:
                seen.add(row["body_sha"])
                rows.append((row["variant"], row["problem"], int(row["optimal_cost"]), int(row["pegs"])))
    return rows


def test_reads_p01_onto_the_english_board():
    p = read_task(IPC / "pegsol-08-strips" / "p01.pddl", IPC / "pegsol-08-strips" / "domain.pddl").problem
    assert p.board.name == "english"
    assert p.pegs == 5
    assert p.goal.describe(p.board) == "one peg at d4"
    assert p.describe().startswith("english: pegs at d2 c3 e3 b4 e4")


def test_reads_the_invasion_domain():
    d = IPC / "unsolve-2016-pegsol-row5"
    p = read_task(d / "prob01.pddl", d / "domain.pddl").problem
    assert p.board.n == 6 and p.pegs == 1
    assert p.goal.describe(p.board) == "pegs at f1"


# Every IPC 2008/2011 problem but the central game (tested in test_moves): optimal cost.
CASES = [c for c in ipc_costs() if c[3] < 32]


@pytest.mark.parametrize("variant, name, cost, pegs", CASES, ids=[f"{v}/{n}" for v, n, _, _ in CASES])
def test_ipc_optimal_cost(variant, name, cost, pegs):
    p = read_task(IPC / variant / f"{name}.pddl", IPC / variant / "domain.pddl").problem
    assert p.pegs == pegs
    r = solve(p, "moves")
    assert r.optimal and r.moves == cost, r.detail


BAD = {
    "wrong-domain.pddl": ("(define (problem x) (:domain blocks) (:objects a - location) (:init)"
                          " (:goal (and)))", "is not peg solitaire"),
    "unbalanced.pddl": ("(define (problem x) (:domain pegsolitaire-sequential)", "unbalanced"),
    "unknown.pddl": ("(define (problem x) (:domain pegsolitaire-sequential) (:objects a b c - location)"
                     " (:init (IN-LINE a b d)) (:goal (and (occupied a))))", "unknown location d"),
    "both.pddl": ("(define (problem x) (:domain pegsolitaire-sequential) (:objects a b c - location)"
                  " (:init (IN-LINE a b c) (occupied a) (free a) (free b) (free c))"
                  " (:goal (and (occupied c))))", "both occupied and free"),
    "type.pddl": ("(define (problem x) (:domain pegsolitaire-sequential) (:objects a - peg) (:init)"
                  " (:goal (and)))", "only locations"),
}


@pytest.mark.parametrize("fname", BAD)
def test_bad_pddl_is_one_line_exit_2(tmp_path, fname):
    text, message = BAD[fname]
    f = tmp_path / fname
    f.write_text(text)
    with pytest.raises(ProblemError, match=message):
        read_task(f)
    r = CliRunner().invoke(main, ["solve", str(f)])
    assert r.exit_code == 2
    assert r.output.count("\n") == 1 and message in r.output


def test_cli_solves_pddl_with_min_moves():
    r = CliRunner().invoke(main, ["solve", str(IPC / "pegsol-08-strips" / "p10.pddl"), "--min-moves"])
    assert r.exit_code == 0, r.output
    assert "optimal: 6 moves" in r.output
