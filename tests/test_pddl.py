"""The IPC peg solitaire PDDL reader, and the IPC optimal costs by the min-moves planner."""

import csv
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import IPC, NO_IPC, invasion, ipc_problem

from pegsat.apps.solve import solve
from pegsat.cli import main
from pegsat.errors import ProblemError
from pegsat.formats.pddl import read_task
from pegsat.model.result import Status


def ipc_costs():
    """(variant, problem, optimal cost, pegs) once per distinct problem body (none where the
    competitions' files are absent)."""
    if not IPC.is_dir():
        return []
    rows, seen = [], set()
    with open(IPC / "optimal_costs.tsv") as fh:
        for row in csv.DictReader((ln for ln in fh if not ln.startswith("#")), delimiter="\t"):
            if row["body_sha"] not in seen:
                seen.add(row["body_sha"])
                rows.append((row["variant"], row["problem"], int(row["optimal_cost"]), int(row["pegs"])))
    return rows


@pytest.mark.ipc
def test_reads_p01_onto_the_english_board():
    p = read_task(IPC / "pegsol-08-strips" / "p01.pddl", IPC / "pegsol-08-strips" / "domain.pddl").problem
    assert p.board.name == "english"
    assert p.pegs == 5
    assert p.goal.describe(p.board) == "one peg at d4"
    assert p.describe().startswith("english: pegs at d2 c3 e3 b4 e4")


@pytest.mark.ipc
def test_the_facts_the_default_run_states_are_the_competitions_files():
    """conftest's IPC_FACTS and invasion() against the files they stand in for."""
    def same(a, b):
        return (a.start, a.goal, a.board.names, a.board.lines) == (b.start, b.goal, b.board.names,
                                                                   b.board.lines)

    d = IPC / "pegsol-08-strips"
    for name in ("p10", "p29"):
        assert same(read_task(d / f"{name}.pddl", d / "domain.pddl").problem, ipc_problem(name))
    d = IPC / "unsolve-2016-pegsol-row5"
    for n in range(1, 16):
        assert same(read_task(d / f"prob{n:02d}.pddl", d / "domain.pddl").problem, invasion(n, 5))
    for n in range(1, 6):
        assert same(read_task(d / f"satprob{n:02d}.pddl", d / "domain.pddl").problem, invasion(10 + n, 4))


@pytest.mark.ipc
def test_reads_the_invasion_domain():
    d = IPC / "unsolve-2016-pegsol-row5"
    p = read_task(d / "prob01.pddl", d / "domain.pddl").problem
    assert p.board.n == 6 and p.pegs == 1
    assert p.goal.describe(p.board) == "pegs at f1"


# Every IPC 2008/2011 problem but the central game (tested in test_moves): optimal cost.
CASES = [pytest.param(*c, id=f"{c[0]}/{c[1]}") for c in ipc_costs() if c[3] < 32] or [
    pytest.param("-", "-", 0, 0, id="absent", marks=pytest.mark.skip(reason=NO_IPC))]


@pytest.mark.ipc
@pytest.mark.parametrize("variant, name, cost, pegs", CASES)
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
                  " (:init (IN-LINE a b c) (IN-LINE c b a) (occupied a) (free a) (free b) (free c))"
                  " (:goal (and (occupied c))))", "both occupied and free"),
    "type.pddl": ("(define (problem x) (:domain pegsolitaire-sequential) (:objects a - peg) (:init)"
                  " (:goal (and)))", "only locations"),

    "preference.pddl": ("(define (problem x) (:domain pegsolitaire-netbenefit) (:objects a b c - location)"
                        " (:init (IN-LINE a b c) (IN-LINE c b a) (occupied a) (occupied b) (free c))"
                        " (:goal (and (preference g1 (occupied c)))))", "soft goals"),
    "oneway.pddl": ("(define (problem x) (:domain pegsolitaire-netbenefit) (:objects a b c - location)"
                    " (:init (IN-LINE a b c) (occupied a) (occupied b) (free c))"
                    " (:goal (and (occupied c))))", "one-way jumps are not supported"),
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


def test_cli_solves_pddl_with_min_moves(ipc08):
    r = CliRunner().invoke(main, ["solve", str(ipc08 / "p10.pddl"), "--min-moves"])
    assert r.exit_code == 0, r.output
    assert "optimal: 6 moves" in r.output


# --- the 2016 unsolvability track's netbenefit domain, and boards from IN-LINE triples ------

NB = Path(__file__).resolve().parent.parent / "instances" / "netbenefit"


def test_reads_the_netbenefit_domain():
    t = read_task(NB / "impossible.pddl", NB / "domain.pddl")
    assert t.domain == "pegsolitaire-netbenefit"
    assert t.problem.board.name == "english" and t.problem.pegs == 11
    assert t.problem.goal.describe(t.problem.board) == "one peg at d4"


def test_netbenefit_impossible_gets_a_certificate_check_accepts(tmp_path):
    cert = tmp_path / "impossible.json"
    r = CliRunner().invoke(main, ["prove", str(NB / "impossible.pddl"), "--certificate", str(cert)])
    assert r.exit_code == 10, r.output
    r = CliRunner().invoke(main, ["check", str(cert)])
    assert r.exit_code == 0 and "certificate holds" in r.output, r.output


def test_netbenefit_solvable_plan_is_plain_jumps_and_replays(tmp_path):
    r = CliRunner().invoke(main, ["solve", str(NB / "solvable.pddl"), "--notation", "ipc"])
    assert r.exit_code == 0, r.output
    plan = [ln for ln in r.output.splitlines() if ln.startswith("(")]
    assert len(plan) == 10 and all(re.fullmatch(r"\(jump pos-\d-\d pos-\d-\d pos-\d-\d\)", ln) for ln in plan)
    f = tmp_path / "plan.txt"
    f.write_text("\n".join(plan) + "\n")
    r = CliRunner().invoke(main, ["verify", str(NB / "solvable.pddl"), str(f)])
    assert r.exit_code == 0, r.output


def test_a_board_from_triples_that_are_not_a_square_grid():
    t = read_task(NB / "triangle.pddl", NB / "domain.pddl")
    b = t.problem.board
    assert b.lattice == "graph" and b.n == 15 and len(b.lines) == 18
    assert b.name == "triangle-5 (from PDDL)"  # not mistaken for the catalogue board
    r = solve(t.problem, "auto")
    assert r.status is Status.SOLVED and len(r.plan) == 13


def test_diagonal_lines_on_a_grid_make_a_graph_board(tmp_path):
    """Booklet problems need diagonal jumps: with diagonal IN-LINE triples the grid is no
    longer a square lattice, the board keeps exactly the lines given, and the problem is
    solvable; without them (the same start, orthogonal lines only) it is not."""
    text = (NB / "diagonal.pddl").read_text()
    t = read_task(NB / "diagonal.pddl", NB / "domain.pddl")
    assert t.problem.board.lattice == "graph" and len(t.problem.board.lines) == text.count("IN-LINE") // 2
    assert solve(t.problem, "auto").status is Status.SOLVED

    def orthogonal(m):
        r1, c1, r2, c2 = map(int, m.groups())
        return m.group(0) if r1 == r2 or c1 == c2 else ""

    f = tmp_path / "orthogonal.pddl"
    f.write_text(re.sub(r"\(IN-LINE pos-(\d)-(\d) pos-\d-\d pos-(\d)-(\d)\)", orthogonal, text))
    p = read_task(f).problem
    assert p.board.name == "english"
    assert solve(p, "auto").status is Status.UNSOLVABLE


def test_a_domain_must_define_the_actions_its_name_promises(tmp_path):
    d = tmp_path / "domain.pddl"
    d.write_text((NB / "domain.pddl").read_text().replace("(:action jump", "(:action hop"))
    r = CliRunner().invoke(main, ["solve", str(NB / "solvable.pddl"), "--pddl", str(d)])
    assert r.exit_code == 2 and "defines actions hop; expected jump" in r.output, r.output


def test_export_netbenefit_round_trip(tmp_path):
    r = CliRunner().invoke(main, ["export-pddl", "triangle-5", str(tmp_path), "--vacant", "a1",
                                  "--survivor", "a1", "--domain", "netbenefit"])
    assert r.exit_code == 0, r.output
    assert "(:action jump" in (tmp_path / "domain.pddl").read_text()
    t = read_task(tmp_path / "problem.pddl", tmp_path / "domain.pddl")
    assert t.domain == "pegsolitaire-netbenefit"
    assert "total-cost" not in (tmp_path / "problem.pddl").read_text()
    assert t.problem.pegs == 14
