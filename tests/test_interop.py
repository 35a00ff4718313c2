"""PDDL out, IPC plans in and out, and the CLI around them."""

from click.testing import CliRunner

from pegsat.apps.solve import solve
from pegsat.cli import main
from pegsat.engine.bitboard import replay
from pegsat.formats.pddl import is_ipc_plan, read_ipc_plan, read_task, write_ipc_plan, write_problem
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, single_vacancy

# Fast Downward's optimal plan for pegsol-08 p10 (conftest.IPC_FACTS; astar(lmcut()), cost 6),
# as it wrote it:
# the last move has no end-move.
FD_P10 = """(jump-new-move pos-1-2 pos-1-3 pos-1-4)
(end-move pos-1-4)
(jump-new-move pos-0-2 pos-0-3 pos-0-4)
(jump-continue-move pos-0-4 pos-1-4 pos-2-4)
(end-move pos-2-4)
(jump-new-move pos-3-5 pos-3-4 pos-3-3)
(jump-continue-move pos-3-3 pos-2-3 pos-1-3)
(end-move pos-1-3)
(jump-new-move pos-5-3 pos-4-3 pos-3-3)
(end-move pos-3-3)
(jump-new-move pos-5-2 pos-4-2 pos-3-2)
(jump-continue-move pos-3-2 pos-2-2 pos-1-2)
(jump-continue-move pos-1-2 pos-1-3 pos-1-4)
(jump-continue-move pos-1-4 pos-2-4 pos-3-4)
(jump-continue-move pos-3-4 pos-3-3 pos-3-2)
(end-move pos-3-2)
(jump-new-move pos-3-1 pos-3-2 pos-3-3)
; cost = 6 (general cost)
"""


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_a_planners_ipc_plan_verifies(ipc08):
    task = read_task(ipc08 / "p10.pddl", ipc08 / "domain.pddl")
    assert is_ipc_plan(FD_P10)
    rep = replay(task.problem, read_ipc_plan(task.problem.board, FD_P10, task))
    assert rep.moves == 6 and rep.jumps == 12
    r = run("verify", ipc08 / "p10.pddl", FD_P10)
    assert r.exit_code == 0 and "12 jumps and 6 moves" in r.output


def test_ipc_bookkeeping_errors_name_the_line(ipc08):
    bad = FD_P10.replace("(jump-new-move pos-0-2", "(jump-continue-move pos-0-2")
    r = run("verify", ipc08 / "p10.pddl", bad)
    assert r.exit_code == 1
    assert r.output.strip() == ("error: plan line 3: jump-continue-move from pos-0-2, which is not "
                                "where the last jump landed")
    missing_end = FD_P10.replace("(end-move pos-1-4)\n", "")
    r = run("verify", ipc08 / "p10.pddl", missing_end)
    assert r.exit_code == 1 and "jump-new-move before the last move was ended" in r.output
    illegal = FD_P10.replace("(jump-new-move pos-1-2 pos-1-3 pos-1-4)\n(end-move pos-1-4)",
                             "(jump-new-move pos-1-4 pos-1-3 pos-1-2)\n(end-move pos-1-2)")
    r = run("verify", ipc08 / "p10.pddl", illegal)
    assert r.exit_code == 1 and r.output.startswith("error: step 1 (e2-c2): no peg on e2")


def test_plan_out_is_ipc_and_reads_back(tmp_path, ipc08):
    out = tmp_path / "p10.plan"
    r = run("solve", "--pddl", ipc08 / "domain.pddl", ipc08 / "p10.pddl", "--min-moves", "--out", out)
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert text.startswith("(jump-new-move ") and text.rstrip().endswith("; cost = 6 (general cost)")
    assert text.count("jump-new-move") == 6
    assert run("verify", ipc08 / "p10.pddl", out).exit_code == 0


def test_pddl_round_trip_any_board(tmp_path):
    for board, v, s in (("french", "c1", "e1"), ("triangle-5", "c5", "c5"), ("hopping-dots", "7", "1")):
        b = get_board(board)
        p = single_vacancy(b, b.hole(v), Goal.survivor(b, b.hole(s)))
        d = tmp_path / board
        r = run("export-pddl", board, d, "--vacant", v, "--survivor", s)
        assert r.exit_code == 0, r.output
        task = read_task(d / "problem.pddl", d / "domain.pddl")
        q = task.problem
        assert (q.board.n, len(q.board.lines), q.pegs) == (b.n, len(b.lines), p.pegs)
        if board == "french":
            assert q.board.name == "french" and q.describe() == p.describe()
        if b.n < 30:  # the French game takes longer; its round trip is checked above
            mine = solve(p, "moves")
            theirs = solve(q, "moves")
            assert mine.moves == theirs.moves and theirs.optimal
            text = write_ipc_plan(q.board, theirs.plan, task)
            assert replay(q, read_ipc_plan(q.board, text, task)).moves == theirs.moves


def test_export_pddl_refuses_counting_goals(tmp_path):
    r = run("export-pddl", "english", tmp_path / "x")
    assert r.exit_code == 2 and "STRIPS goals cannot count pegs" in r.output
    assert not (tmp_path / "x" / "problem.pddl").exists()


def test_written_problem_is_the_ipc_problem(ipc08):
    """Writing an IPC problem back gives the same start, goal and lines."""
    task = read_task(ipc08 / "p29.pddl", ipc08 / "domain.pddl")
    text = write_problem(task.problem, task.objects)
    assert "(:domain pegsolitaire-sequential)" in text
    assert text.count("(IN-LINE ") == 2 * len(task.problem.board.lines)
