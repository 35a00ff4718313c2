"""prove / check / survey: certificates, their independent checks, and whole-board tables."""

import hashlib
import json
from fractions import Fraction

import pytest
from click.testing import CliRunner
from conftest import invasion

from pegsat.analysis import pagoda
from pegsat.analysis.invariants import possible_survivors, separating_weight
from pegsat.apps.survey import read_results, run, table
from pegsat.checks import certificate
from pegsat.cli import main
from pegsat.deadline import Deadline
from pegsat.formats.svg import board_svg
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, single_vacancy
from pegsat.model.result import Status
from pegsat.proofs.prove import prove

T5 = get_board("triangle-5")


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# --- pagoda functions --------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(1, 16))
def test_every_unsolvable_reach_the_row_problem_has_a_pagoda(n):
    p = invasion(n, 5)
    assert pagoda.find(p) is not None
    res = prove(p, use_sat=False)
    # prob01 is one peg on a row of six: no jump at all, the cheaper argument wins
    assert res.status is Status.UNSOLVABLE and res.kind == ("counting" if n == 1 else "pagoda")
    assert certificate.check(res.certificate).ok


@pytest.mark.parametrize("n", range(1, 6))
def test_no_pagoda_for_the_solvable_ones(n):
    p = invasion(10 + n, 4)
    assert pagoda.find(p) is None


def test_pagoda_check_is_exact():
    p = invasion(1, 5)  # 1x6 row, peg at a1, goal f1
    w = pagoda.find(p)
    assert pagoda.check(p, w) is None
    assert "not more than the start" in pagoda.check(p, {h: Fraction(0) for h in w})
    worse = dict(w)
    worse[p.board.hole("f1")] = Fraction(0)
    assert "increases the weight" in pagoda.check(p, worse)


def test_tampered_pagoda_certificate_is_rejected(tmp_path):
    from pegsat.formats.pddl import write_pddl

    cert = tmp_path / "c.json"
    write_pddl(invasion(4, 5), tmp_path, "netbenefit")
    r = cli("prove", tmp_path / "problem.pddl", "--certificate", cert)
    assert r.exit_code == 10 and "proof: pagoda" in r.output
    assert cli("check", cert).exit_code == 0
    data = json.loads(cert.read_text())
    weights = data["evidence"]["weights"]
    hole = next(h for h, v in weights.items() if Fraction(v) > 0)
    weights[hole] = str(Fraction(weights[hole]) * 3)  # one weight changed
    cert.write_text(json.dumps(data))
    r = cli("check", cert)
    assert r.exit_code == 1 and "REJECTED" in r.output


# --- classes and counting ----------------------------------------------------------------------

def test_class_certificate_and_tampering(tmp_path):
    cert = tmp_path / "c4.json"
    r = cli("prove", "english", "--survivor", "c4", "--certificate", cert)
    assert r.exit_code == 10 and "proof: classes" in r.output
    assert cli("check", cert).exit_code == 0
    data = json.loads(cert.read_text())
    data["evidence"]["weightings"][0]["holes"].pop()
    cert.write_text(json.dumps(data))
    r = cli("check", cert)
    assert r.exit_code == 1 and "odd on line" in r.output


def test_french_one_peg_anywhere_is_hopeless_by_classes():
    b = get_board("french")
    res = prove(single_vacancy(b, b.hole("d4"), Goal.one_peg()))
    assert res.kind == "classes" and len(res.certificate["evidence"]["weightings"]) == 37


def test_counting_certificate():
    p = Problem(T5, 1 << T5.hole("a1") | 1 << T5.hole("e5"), Goal.one_peg())
    res = prove(p)
    assert res.kind == "counting" and certificate.check(res.certificate).ok


def test_not_a_certificate(tmp_path):
    f = tmp_path / "x.json"
    f.write_text('{"hello": 1}')
    r = cli("check", f)
    assert r.exit_code == 2 and r.output.startswith("error: ") and r.output.count("\n") == 1


# --- SAT with a DRAT proof ------------------------------------------------------------------

def test_sat_certificate_with_drat(tmp_path):
    cert = tmp_path / "b3.json"
    r = cli("prove", "triangle-5", "--vacant", "b3", "--survivor", "b3", "--sat", "--certificate", cert,
            "--json")
    assert r.exit_code == 10 and json.loads(r.output)["kind"] == "sat", r.output
    assert set(json.loads(r.output)["stats"]["solver_s"]) == {"cadical195", "glucose4"}
    data = json.loads(cert.read_text())
    assert data["evidence"]["solvers"] == ["cadical195", "glucose4"]
    drat = tmp_path / data["evidence"]["proof"]
    assert drat.read_text().rstrip().endswith("0")
    assert cli("check", cert).exit_code == 0
    drat.write_text(drat.read_text() + "1 0\n")
    r = cli("check", cert)
    assert r.exit_code == 1 and "does not match its SHA-256" in r.output


def test_pure_sat_refutes_by_the_encoding_alone(tmp_path):
    """--pure-sat skips the cheap arguments: a problem the classes settle is refuted by SAT, the
    class constraint at every step being clauses of the CNF (--classes) that the check
    re-encodes from the header; an edited header no longer matches the clauses."""
    problem = ("prove", "triangle-5", "--vacant", "a1", "--survivor", "c3")
    assert "proof: classes" in cli(*problem).output
    cert = tmp_path / "c3.json"
    r = cli(*problem, "--pure-sat", "--classes", "--certificate", cert, "--json")
    assert r.exit_code == 10 and json.loads(r.output)["kind"] == "sat", r.output
    cnf = tmp_path / json.loads(cert.read_text())["evidence"]["cnf"]
    assert "classes=1" in cnf.read_text().split("\n", 4)[3]
    assert cli("check", cert).exit_code == 0
    text = cnf.read_text().replace("classes=1", "classes=0", 1)
    cnf.write_text(text)
    data = json.loads(cert.read_text())
    data["evidence"]["cnf_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    cert.write_text(json.dumps(data))
    r = cli("check", cert)
    assert r.exit_code == 1 and "do not match the header" in r.output, r.output
    r = cli(*problem, "--pure-sat", "--no-sat")
    assert r.exit_code == 2 and "contradict" in r.output


def test_prove_a_solvable_problem_gives_a_plan():
    res = prove(single_vacancy(T5, T5.hole("a1")))
    assert res.status is Status.SOLVED and res.plan


def test_prove_time_limit_is_unknown():
    b = get_board("english")
    res = prove(single_vacancy(b, b.hole("d1"), Goal.survivor(b, b.hole("d1"))), Deadline(0.5))
    assert res.status in (Status.UNKNOWN, Status.SOLVED)  # never a proof from a timeout
    assert res.certificate is None
    if res.status is Status.UNKNOWN:  # and what is left to try
        assert "--planner layers --spill DIR" in res.detail, res.detail


# --- surveys -------------------------------------------------------------------------------------

def test_triangle5_survey_matches_bell(tmp_path):
    t = table(T5, run(T5, tmp_path / "r.jsonl"))
    h, names = T5.hole, T5.names
    assert t.unknown == 0
    assert [names[s] for s in t.survivors(h("b3"))] == ["c5"]  # b3 -> a1, b3, a4 impossible
    assert all(t.survivors(v) for v in range(T5.n))
    assert "c5" in [names[s] for s in t.survivors(h("c5"))]


def test_orbit_pairs_up_to_reversal_cover_every_problem_once():
    from pegsat.apps.survey import orbit_pairs

    for name, halved in (("triangle-5", 0), ("english", 151 - 88), ("german", 276 - 155)):
        b = get_board(name)
        reps = list(orbit_pairs(b, reversal=True))
        g = b.symmetries
        covered = [{(p[v], p[s]) for p in g} | {(p[s], p[v]) for p in g} for v, s in reps]
        assert sum(map(len, covered)) == len(set().union(*covered)) == b.n ** 2  # disjoint, all
        alone = list(orbit_pairs(b))
        assert set(reps) <= set(alone)  # each also the least of its symmetry orbit
        assert len(alone) - len(reps) >= halved


def test_survey_table_fills_reversed_problems_with_replayed_plans(tmp_path):
    from dataclasses import replace

    from pegsat.apps.solve import solve
    from pegsat.apps.survey import orbit_pairs, reversed_entry
    from pegsat.engine.bitboard import replay
    from pegsat.errors import PlanError
    from pegsat.formats.notation import parse_plan

    reps = run(T5, tmp_path / "r.jsonl")
    assert len(reps) == len(list(orbit_pairs(T5, reversal=True)))
    t = table(T5, reps)
    assert t.unknown == 0
    assert all(e.status == t.cells[(s, v)].status for (v, s), e in t.cells.items())  # solvable together
    by_symmetry = {(p[T5.hole(a)], p[T5.hole(b)]) for a, b in reps for p in T5.symmetries}
    only_reversed = set(t.cells) - by_symmetry
    assert only_reversed
    for v, s in only_reversed:  # what the table says without solving them agrees with solving them
        direct = solve(single_vacancy(T5, v, Goal.survivor(T5, s)))
        assert direct.status.solved == (t.cells[(v, s)].status == "solved")
    for e in reps.values():
        if e.status == "solved":
            back = reversed_entry(T5, e)
            p = single_vacancy(T5, T5.hole(back.vacancy), Goal.survivor(T5, T5.hole(back.survivor)))
            assert replay(p, parse_plan(T5, back.plan, "names")).moves == back.moves and back.optimal is None
    e = next(e for e in reps.values() if e.status == "solved" and e.vacancy != e.survivor)
    with pytest.raises(PlanError):  # a jump short: the reversed plan does not replay
        reversed_entry(T5, replace(e, plan=" ".join(e.plan.split()[1:])))


def test_min_moves_survey_solves_both_directions(tmp_path):
    from pegsat.apps.survey import orbit_pairs

    reps = run(T5, tmp_path / "m.jsonl", planner="moves")
    assert len(reps) == len(list(orbit_pairs(T5)))  # no reversal: the optima differ
    t = table(T5, reps)
    assert t.unknown == 0
    assert all(e.optimal for e in t.cells.values() if e.status == "solved")


def test_survey_resumes_after_a_kill(tmp_path):
    path = tmp_path / "r.jsonl"
    first = run(T5, path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:10]) + "\n" + lines[10][:25])  # killed mid-line
    assert len(read_results(path)) == 10
    again = run(T5, path)
    def summary(res):
        return {k: (e.status, e.proof) for k, e in res.items()}

    assert summary(again) == summary(first)
    assert len(path.read_text().splitlines()) == len(lines) + 1  # only the missing ones redone


def test_survey_believes_no_line_it_cannot_check(tmp_path):
    """Lines of another board (same hole names), of a plain survey read by a min-moves one, or
    with an edited plan are solved again; the rest is kept."""
    path = tmp_path / "r.jsonl"
    run(T5, path)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    solved = next(i for i, d in enumerate(lines) if d["status"] == "solved" and d["plan"])
    lines[solved]["plan"] = " ".join(lines[solved]["plan"].split()[1:])  # a jump short
    path.write_text("".join(json.dumps(d) + "\n" for d in lines))
    assert len(read_results(path, T5)) == len(lines) - 1
    assert read_results(path, T5, planner="moves") == {}
    assert read_results(path, get_board("triangle-6")) == {}
    kept = lines[1 if solved == 0 else 0]
    assert read_results(path, T5)[(kept["vacancy"], kept["survivor"])].status == kept["status"]


@pytest.mark.slow  # 12-130 s: English d1 -> d1 is heavy-tailed for every planner (CP-SAT 2.5-76 s)
def test_english_survey_is_the_rule_of_three(tmp_path):
    b = get_board("english")
    t = table(b, run(b, tmp_path / "e.jsonl", time_limit=300))
    assert t.unknown == 0
    for v in range(b.n):
        start = b.full & ~(1 << v)
        assert t.survivors(v) == possible_survivors(b, start)  # every class-compatible pair solvable
        assert v in t.survivors(v)  # complement problems all solvable


def test_survey_budget_gives_the_unknown_a_second_longer_run(tmp_path, monkeypatch):
    import pegsat.apps.survey as survey_mod

    real, calls = survey_mod.settle, []

    def first_time_unknown(board, v, s, planner, time_limit, layers_limit=None, cap=None, **_):
        calls.append((v, s, time_limit, layers_limit, cap))
        if sum(c[:2] == (v, s) for c in calls) == 1:  # the first pass gives up on everything
            return survey_mod.Entry(board.names[v], board.names[s], "unknown", None)
        return real(board, v, s, planner, time_limit, layers_limit, cap)

    monkeypatch.setattr(survey_mod, "settle", first_time_unknown)
    pairs = len(list(survey_mod.orbit_pairs(T5, reversal=True)))
    assert table(T5, run(T5, tmp_path / "a.jsonl", time_limit=0.5)).unknown > 0  # no budget: one pass
    calls.clear()
    t = table(T5, run(T5, tmp_path / "b.jsonl", time_limit=0.5, budget=Deadline(120)))
    assert t.unknown == 0 and len(calls) == 2 * pairs
    second = calls[pairs:]
    assert all(c[2] > 0.5 and c[3] is not None and c[4] is not None for c in second)
    assert all(c[4].remaining() is not None for c in second)  # the budget caps every step


def test_survey_budget_retries_the_hardest_with_everything_left(tmp_path, monkeypatch):
    import pegsat.apps.survey as survey_mod

    real, handed = survey_mod.settle, {}
    hard = list(survey_mod.orbit_pairs(T5, reversal=True))[3:5]

    def needs_most_of_the_budget(board, v, s, planner, time_limit, layers_limit=None, cap=None, **_):
        seconds = time_limit + (time_limit if layers_limit is None else layers_limit)
        handed.setdefault((v, s), []).append(seconds)
        if (v, s) in hard and seconds < 0.8 * budget:  # two shares of the budget are not enough
            return survey_mod.Entry(board.names[v], board.names[s], "unknown", None)
        return real(board, v, s, planner, time_limit, layers_limit, cap)

    budget = 20.0
    monkeypatch.setattr(survey_mod, "settle", needs_most_of_the_budget)
    t = table(T5, run(T5, tmp_path / "a.jsonl", time_limit=0.5, budget=Deadline(budget)))
    assert t.unknown == 0
    for pair in hard:
        tries = handed[pair]
        assert len(tries) >= 2 and tries[0] == 1.0 and tries[-1] >= 0.8 * budget  # first pass, then more
        assert all(b > survey_mod.RETRY_GROWTH * a for a, b in zip(tries, tries[1:], strict=False))


def test_french_classes():
    b = get_board("french")
    hopeless = [v for v in range(b.n) if not possible_survivors(b, b.full & ~(1 << v))]
    assert len(hopeless) == 21
    assert all(separating_weight(b, b.full & ~(1 << v), 1 << v) for v in range(b.n))  # no complement


def test_survey_cli_and_picture(tmp_path):
    pic = tmp_path / "t5.svg"
    r = cli("survey", "triangle-5", "--results", tmp_path / "r.jsonl", "--picture", pic, "--quiet",
            "--json", tmp_path / "t.json")
    assert r.exit_code == 0, r.output
    svg = pic.read_text()
    assert svg.startswith("<svg") and svg.count('class="hole"') == 15
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["vacancies"]["b3"]["c5"]["status"] == "solved"


def test_svg_draws_every_board():
    for name in ("english", "hopping-dots", "triangle-6", "english-diagonal"):
        b = get_board(name)
        svg = board_svg(b, pegs=b.full)
        assert svg.count('class="hole"') == b.n and svg.count('class="peg"') == b.n
        assert svg.count("<line ") == len(b.lines)


def test_dual_game_reverses_plans():
    from pegsat.apps.solve import solve
    from pegsat.engine.bitboard import replay_plan
    from pegsat.model.problem import dual

    p = single_vacancy(T5, T5.hole("a1"), Goal.survivor(T5, T5.hole("c5")))
    d = dual(p)
    assert d.describe() == "triangle-5: vacancy c5 -> one peg at a1"
    assert dual(d).start == p.start and dual(d).goal == p.goal
    plan = solve(d).plan
    assert replay_plan(p, tuple(reversed(plan))).jumps == 13
    assert dual(single_vacancy(T5, 0, Goal.one_peg())) is None  # an open goal has no dual
