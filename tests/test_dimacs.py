import shutil
import subprocess

import pytest
from conftest import load_problem
from pysat.solvers import Solver

from pegsat.encoding.dimacs import decode, export, read_instance
from pegsat.errors import DimacsError
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, single_vacancy


def solve_with_pysat(cnf_path, model_path):
    f, cnf = read_instance(cnf_path)
    with Solver(name="glucose4", bootstrap_with=cnf.clauses) as s:
        assert s.solve()
        model = s.get_model()
    model_path.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")


def small():
    b = get_board("triangle-5")
    return single_vacancy(b, b.hole("a1"), Goal.one_peg())


def test_header_is_self_describing(tmp_path):
    out = tmp_path / "t5.cnf"
    info = export(small(), out)
    text = out.read_text()
    assert text.startswith("c pegsat-dimacs 1\n")
    assert "c horizon 13" in text and "c var 1 peg a1 0" in text
    assert " jump " in text and f"p cnf {info.variables} {info.clauses}" in text
    assert not list(tmp_path.glob(".*tmp"))  # atomic write left no temporary file


def test_round_trip_with_internal_solver(tmp_path):
    out, model = tmp_path / "t5.cnf", tmp_path / "t5.model"
    export(small(), out)
    solve_with_pysat(out, model)
    d = decode(out, model)
    assert d.replay.jumps == 13 and d.replay.final.bit_count() == 1
    # a plain list of literals works too
    lits = " ".join(x for x in model.read_text().split() if x.lstrip("-").isdigit())
    model.write_text(lits)
    assert decode(out, model).replay.plan == d.replay.plan


def test_model_of_another_instance_is_rejected(tmp_path):
    a, b_ = tmp_path / "a.cnf", tmp_path / "b.cnf"
    export(small(), a)
    e = get_board("triangle-5")
    export(single_vacancy(e, e.hole("a4"), Goal.one_peg()), b_)
    model = tmp_path / "b.model"
    solve_with_pysat(b_, model)
    with pytest.raises(DimacsError, match="does not satisfy clause|belongs to another instance"):
        decode(a, model)


def test_a_model_that_ends_before_its_first_literal_is_one_line(tmp_path):
    out, model = tmp_path / "t5.cnf", tmp_path / "t5.model"
    export(small(), out)
    model.write_text("0 -1 2 3 0\n")  # the terminating 0 first: no literal read
    with pytest.raises(DimacsError, match="no model in the file"):
        decode(out, model)


def test_flipped_literal_is_rejected(tmp_path):
    out, model = tmp_path / "t5.cnf", tmp_path / "t5.model"
    export(small(), out)
    solve_with_pysat(out, model)
    lits = [int(x) for x in model.read_text().split()[3:] if x != "0"]
    lits[0] = -lits[0]
    model.write_text("v " + " ".join(map(str, lits)) + " 0\n")
    with pytest.raises(DimacsError, match="does not satisfy clause"):
        decode(out, model)


def test_edited_cnf_is_rejected(tmp_path):
    out = tmp_path / "t5.cnf"
    export(small(), out)
    lines = out.read_text().splitlines()
    i = next(i for i, x in enumerate(lines) if x and x[0] not in "cp")
    del lines[i]
    out.write_text("\n".join(lines) + "\n")
    with pytest.raises(DimacsError, match="do not match the header"):
        read_instance(out)


def test_short_horizon_round_trip(tmp_path):
    out, model = tmp_path / "short.cnf", tmp_path / "short.model"
    info = export(small(), out, steps=9)
    assert info.horizon == 9 and "c horizon 9 short: only SAT answers count" in out.read_text()
    solve_with_pysat(out, model)
    d = decode(out, model)
    assert d.replay.jumps == 13
    with pytest.raises(Exception, match="give 1..13 with parallel steps"):
        export(small(), tmp_path / "bad.cnf", steps=20)


def test_unsat_answer(tmp_path):
    out, model = tmp_path / "x.cnf", tmp_path / "x.model"
    export(small(), out)
    model.write_text("s UNSATISFIABLE\n")
    with pytest.raises(DimacsError, match="UNSATISFIABLE"):
        decode(out, model)


@pytest.mark.external
@pytest.mark.skipif(shutil.which("cadical") is None, reason="the cadical command is not installed")
@pytest.mark.parametrize("problem", [pytest.param("english", marks=pytest.mark.slow),  # 9 s of CaDiCaL
                                     "instances/hexagon19-partial.toml"])
def test_round_trip_with_external_cadical(tmp_path, problem):
    from conftest import ROOT
    spec = problem if not problem.endswith(".toml") else str(ROOT / problem)
    p = load_problem(spec)
    if spec == "english":
        from conftest import Options
        p = load_problem("english", Options(survivor="d4", vacant="c1"))
        p = load_problem("english", Options(vacant="c1", survivor="c1"))
    out, model = tmp_path / "x.cnf", tmp_path / "x.model"
    export(p, out)
    run = subprocess.run(["cadical", "-q", str(out)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 10, run.stdout[-500:]
    model.write_text(run.stdout)
    d = decode(out, model)
    assert d.problem.goal.satisfied(d.replay.final)


def test_redundant_constraints_round_trip_and_a_forged_pagoda_is_refused(tmp_path):
    """An instance with pagodas, classes and counts at every step: its header lists the
    pagodas, it is read back and decoded; a header whose pagoda could cut a plan is refused."""
    from pegsat.analysis.pagoda import for_levels
    from pegsat.deadline import Deadline
    from pegsat.encoding.encoder import EncodeOptions

    b = get_board("triangle-5")
    p = single_vacancy(b, b.hole("a1"), Goal.survivor(b, b.hole("a1")))
    pagodas = for_levels(p, Deadline(10)) + [((1,) * b.n, 1)]
    out, model = tmp_path / "t5.cnf", tmp_path / "t5.model"
    options = EncodeOptions(steps="sequential", pagodas=True, classes=True, count=True)
    export(p, out, options, pagodas=pagodas)
    text = out.read_text()
    assert "pagodas=1 classes=1 count=1" in text and text.count("\nc pagoda ") == len(pagodas)
    solve_with_pysat(out, model)
    assert decode(out, model).replay.final == 1 << b.hole("a1")
    ones = "c pagoda " + " ".join(["1"] * b.n)
    forged = tmp_path / "forged.cnf"
    forged.write_text(text.replace(f"{ones} 1\n", f"{ones} 2\n"))
    with pytest.raises(DimacsError, match="floor"):
        read_instance(forged)


def test_lex_leader_round_trip_and_a_file_without_it_reads_as_before(tmp_path):
    """``--lex`` is in the header and re-encoded on reading; a header without the key (a file
    written before the option) reads back without it."""
    from pegsat.encoding.encoder import EncodeOptions

    e = get_board("english")
    p = single_vacancy(e, e.hole("d4"), Goal(min_pegs=27, max_pegs=27))
    out, model = tmp_path / "e.cnf", tmp_path / "e.model"
    lexed = export(p, out, EncodeOptions(lex=True))
    text = out.read_text()
    assert "process=1 lex=1" in text and lexed.clauses > export(p, tmp_path / "plain.cnf").clauses
    solve_with_pysat(out, model)
    assert decode(out, model).replay.final.bit_count() == 27
    old = tmp_path / "old.cnf"
    old.write_text((tmp_path / "plain.cnf").read_text().replace(" lex=0", ""))
    assert not read_instance(old)[0].options.lex
