"""The family of DIMACS instances for SAT researchers (``apps.family``): every file parses as
pegsat's own, and each stated answer is confirmed on the small ones."""

import json

from pysat.formula import CNF
from pysat.solvers import Solver

from pegsat.apps.family import FAMILY, SMALL, Spec, write
from pegsat.encoding.dimacs import read_instance


def test_the_small_family_parses_and_its_answers_hold(tmp_path):
    rows = write(tmp_path, SMALL, limit=60, solvers=("cadical195",))
    index = json.loads((tmp_path / "family.json").read_text())
    assert index == rows and len(rows) == len(SMALL)
    assert {r["answer"] for r in rows} == {"sat", "unsat"}  # both kinds, none unknown
    for r in rows:
        f, cnf = read_instance(tmp_path / r["file"])  # the header matches the clauses
        assert f.horizon == r["horizon"] and r["short"] == f.short
        with Solver(name="glucose4", bootstrap_with=CNF(from_file=str(tmp_path / r["file"])).clauses) as s:
            assert s.solve() == (r["answer"] == "sat"), r
        assert r["seconds"]["cadical195"] is not None
    parity = [r for r in rows if r["file"].startswith("triangle-5-a1-c3")]
    assert len(parity) == 2 and {r["answer"] for r in parity} == {"unsat"}
    assert [r["classes"] for r in parity] == [False, True]
    assert "no plan (invariant)" in parity[0]["evidence"]
    short = next(r for r in rows if r["short"])
    assert short["answer"] == "unsat" and "DRAT proof, verified" in short["evidence"]
    readme = (tmp_path / "README.md").read_text()
    assert "**Encoding.**" in readme and all(r["file"] in readme for r in rows)


def test_the_family_spans_boards_horizons_and_encodings():
    boards = {s.board for s in FAMILY}
    assert {"english", "french", "german", "triangle-5"} <= boards
    assert any(s.steps is None for s in FAMILY) and any(s.steps is not None for s in FAMILY)
    assert {s.process for s in FAMILY} == {True, False} and len({s.name for s in FAMILY}) == len(FAMILY)
    assert any(s.classes and s.board == "english" for s in FAMILY)
    assert set(SMALL) < set(FAMILY) and Spec("triangle-5", "a1", "c3", None, False) in FAMILY


def test_a_plans_parallel_steps():
    """Jumps on disjoint holes share a step; a jump touching an earlier one's holes comes after
    it. The English central game takes at least 13 parallel steps (12 is UNSAT)."""
    from pegsat.apps.family import parallel_steps
    from pegsat.apps.solve import solve
    from pegsat.deadline import Deadline
    from pegsat.model.catalogue import get_board
    from pegsat.model.problem import Goal, single_vacancy

    b = get_board("english")
    p = single_vacancy(b, b.hole("d4"), Goal.survivor(b, b.hole("d4")))
    j = b.jump_index
    h = b.hole
    first = j[(h("d2"), h("d3"), h("d4"))]
    assert parallel_steps(p, (first,)) == 1
    assert parallel_steps(p, (first, j[(h("b3"), h("c3"), h("d3"))])) == 2  # into the hole just emptied
    assert parallel_steps(p, (j[(h("a3"), h("b3"), h("c3"))], j[(h("g5"), h("f5"), h("e5"))])) == 1
    plan = solve(p, "search", deadline=Deadline(60)).plan
    assert plan is not None and 13 <= parallel_steps(p, plan) <= len(plan) == 31
