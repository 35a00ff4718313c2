"""Every registered planner on the must-pass problems, and the proofs they report."""

from typing import get_type_hints

import pytest
from conftest import Options, load_problem

from pegsat.analysis.invariants import survivor_candidates
from pegsat.apps.solve import solve
from pegsat.deadline import Deadline
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, single_vacancy
from pegsat.model.result import Proof, Stats, Status
from pegsat.planners import PLANNERS, get_planner
from pegsat.planners.config import Config


@pytest.mark.parametrize("planner", sorted(PLANNERS))
def test_smoke_every_planner_replays(planner):
    b = get_board("triangle-5")
    p = single_vacancy(b, b.hole("a1"), Goal.one_peg())
    r = solve(p, planner, deadline=Deadline(120))
    assert r.status.solved  # min-moves: solved-optimal
    assert r.moves is not None and len(r.plan) == 13
    assert set(r.stats) <= set(get_type_hints(Stats)), "every key of the stats is declared in Stats"


@pytest.mark.parametrize("planner", sorted(set(PLANNERS) - {"beam"}))
def test_a_refutation_states_only_declared_stats(planner):
    b = get_board("triangle-5")  # b3 -> b3: refuted by a search, UNSAT or CP-SAT, not by the cheap proofs
    p = single_vacancy(b, b.hole("b3"), Goal.survivor(b, b.hole("b3")))
    r = solve(p, planner, deadline=Deadline(120))
    assert r.status is Status.UNSOLVABLE, r
    assert set(r.stats) <= set(get_type_hints(Stats))


@pytest.mark.parametrize("planner", sorted(PLANNERS))
def test_cheap_proofs_come_before_any_planner(planner):
    b = get_board("triangle-4")
    # b3 is the middle of every line through it: no first jump at all
    r = solve(single_vacancy(b, b.hole("b3"), Goal.one_peg()), planner, deadline=Deadline(120))
    assert r.status is Status.UNSOLVABLE and r.proof is Proof.COUNTING
    e = get_board("english")
    p = single_vacancy(e, e.hole("d4"), Goal.survivor(e, e.hole("c4")))
    r = solve(p, planner, deadline=Deadline(120))
    assert r.status is Status.UNSOLVABLE and r.proof is Proof.INVARIANT


def test_english_central_game():
    r = solve(load_problem("english"), "auto", deadline=Deadline(120))
    assert r.status is Status.SOLVED and len(r.plan) == 31


def test_english_d4_to_c4_by_invariant_without_solver():
    r = solve(load_problem("english", Options(survivor="c4")), "sat", deadline=Deadline(120))
    assert r.status is Status.UNSOLVABLE and r.proof is Proof.INVARIANT
    assert "encode_s" not in r.stats  # no solver ran


def test_english_survivor_candidates_from_d4():
    p = load_problem("english")
    reps, ruled_out = survivor_candidates(p)
    b = p.board
    assert [b.names[h] for h in reps] == ["d4", "d1"]  # d1 a4 g4 d7 form one orbit
    assert len(ruled_out) == 28


@pytest.mark.parametrize("survivor", ["d4", "d1", "a4", "g4", "d7"])
def test_english_five_survivors_from_d4_solved(survivor):
    r = solve(load_problem("english", Options(survivor=survivor)), "auto", deadline=Deadline(300))
    assert r.status is Status.SOLVED


@pytest.mark.slow
def test_english_d4_to_d1_by_sat():
    r = solve(load_problem("english", Options(survivor="d1")), "sat", deadline=Deadline(900))
    assert r.status is Status.SOLVED


def test_french_d4_never_one_peg():
    r = solve(load_problem("french", Options(pegs=1)), "auto", deadline=Deadline(120))
    assert r.status is Status.UNSOLVABLE and r.proof is Proof.INVARIANT


def triangle5():
    return get_board("triangle-5")


@pytest.mark.parametrize("planner", ["search", "sat"])
def test_triangle5_every_vacancy_to_one_peg(planner):
    """One vacancy per orbit of the board's symmetries (the others are their images)."""
    b = triangle5()
    for v in sorted({min(p[h] for p in b.symmetries) for h in range(b.n)}):
        r = solve(single_vacancy(b, v, Goal.one_peg()), planner, deadline=Deadline(120))
        assert r.status is Status.SOLVED, b.names[v]


def test_triangle5_b3_only_survivor_is_c5():
    b = triangle5()
    solvable = {b.names[h] for h in range(b.n)
                if solve(Problem(b, b.full & ~(1 << b.hole("b3")), Goal.survivor(b, h)),
                         "search", deadline=Deadline(120)).status is Status.SOLVED}
    assert solvable == {"c5"}


@pytest.mark.parametrize("planner", ["search", "sat", "cpsat"])
def test_triangle5_complement_problems(planner):
    """v -> v for one vacancy per orbit (a symmetry maps a complement problem to another)."""
    b = triangle5()
    interior = {"b3", "b4", "c4"}
    for v in sorted({min(p[h] for p in b.symmetries) for h in range(b.n)}):
        r = solve(single_vacancy(b, v), planner, deadline=Deadline(120))
        want = Status.UNSOLVABLE if b.names[v] in interior else Status.SOLVED
        assert r.status is want, (b.names[v], r.status)


def test_triangle4_corners_and_centre_unsolvable():
    b = get_board("triangle-4")
    for v in range(b.n):
        r = solve(single_vacancy(b, v, Goal.one_peg()), "sat", deadline=Deadline(120))
        want = Status.UNSOLVABLE if b.names[v] in {"a1", "a4", "d4", "b3"} else Status.SOLVED
        assert r.status is want, b.names[v]


@pytest.mark.parametrize("planner", ["search", "sat", pytest.param("cpsat", marks=pytest.mark.slow)])
def test_hopping_dots_special_peg(planner, instances):
    ok = solve(load_problem(str(instances / "hopping-dots-red7.toml")), planner, deadline=Deadline(120))
    assert ok.status is Status.SOLVED
    no = solve(load_problem(str(instances / "hopping-dots-red2.toml")), planner, deadline=Deadline(120))
    assert no.status is Status.UNSOLVABLE


def test_time_limit_gives_unknown_never_unsolvable():
    p = load_problem("german", Options(survivor="e5"))
    for planner in ["sat", "cpsat", "search"]:
        r = solve(p, planner, deadline=Deadline(0.5))
        assert r.status in (Status.UNKNOWN, Status.SOLVED), planner
        assert r.status is not Status.UNSOLVABLE


@pytest.mark.parametrize("target, want", [("d3", Status.SOLVED), ("d2", Status.UNSOLVABLE)])
def test_invasion_partial_goal(target, want):
    """Pegs on the bottom three rows reach row 3 but not row 2 (both step semantics agree,
    the sequential one trying every horizon on one solver with assumptions)."""
    from pegsat.encoding.encoder import EncodeOptions
    p = load_problem("english", Options(full=target, start="a5 b5 c5 d5 e5 f5 g5 c6 d6 e6 c7 d7 e7"))
    for planner, steps in [("sat", "parallel"), ("sat", "sequential"), ("cpsat", "parallel"),
                           ("search", "parallel")]:
        r = solve(p, planner, Config(encode=EncodeOptions(steps=steps)), Deadline(120))
        assert r.status is want, (planner, steps)


def test_bad_plan_from_backend_becomes_error(monkeypatch):
    from dataclasses import replace

    from pegsat.planners import search
    real = search.solve

    def broken(problem, deadline, config, stop=None):
        r = real(problem, deadline, config)
        return replace(r, plan=r.plan[:-1])

    monkeypatch.setattr(search, "solve", broken)
    b = triangle5()
    r = solve(single_vacancy(b, 0, Goal.one_peg()), "search", deadline=Deadline(120))
    assert r.status is Status.ERROR and "does not replay" in r.detail


def _solver_parent(q):
    import time

    from pysat.examples.genhard import PHP

    from pegsat.planners.sat import SolverProcess

    proc = SolverProcess("cadical195", PHP(11).clauses, [[]])  # runs for minutes
    q.put(proc.child.proc.pid)
    time.sleep(120)


def test_a_solver_child_dies_with_its_parent():
    """A Dask worker killed mid-job must not leave its SAT solver running (PR_SET_PDEATHSIG)."""
    import multiprocessing as mp
    import os
    import signal
    import sys
    import time

    if not sys.platform.startswith("linux"):
        pytest.skip("parent-death signal is Linux only")
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    parent = ctx.Process(target=_solver_parent, args=(q,))
    parent.start()
    child = q.get(timeout=30)
    os.kill(parent.pid, signal.SIGKILL)
    parent.join()
    end = time.time() + 10
    while time.time() < end and os.path.exists(f"/proc/{child}"):
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{child}")


@pytest.mark.parametrize("planner", sorted(PLANNERS))
def test_an_unsupported_problem_is_refused_before_any_search(planner, monkeypatch):
    """Every registered planner: ``supports`` is asked first; a refusal is exit 2, one line."""
    from click.testing import CliRunner

    from pegsat.cli import main
    from pegsat.planners import get_planner

    backend = get_planner(planner)

    def no_search(*args, **kw):
        raise AssertionError("the planner ran on a problem it refused")

    monkeypatch.setattr(backend, "supports", lambda problem: "refused for this test")
    monkeypatch.setattr(backend, "solve", no_search)
    r = CliRunner().invoke(main, ["solve", "english", "--survivor", "d1", "--planner", planner])
    assert r.exit_code == 2, r.output
    assert r.output == f"error: planner {planner}: refused for this test\n"


@pytest.mark.parametrize("planner", ["moves", "layers"])
def test_real_refusals(planner):
    """The special-peg rule is not in the level searches: refused, not run."""
    from click.testing import CliRunner

    from pegsat.cli import main

    r = CliRunner().invoke(main, ["solve", "hopping-dots", "--special", "1", "--planner", planner])
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "special" in r.output


@pytest.mark.parametrize("planner", ["sat", "auto"])
def test_solver_children_stop_at_the_deadline_the_cli_set(planner):
    """One Deadline from the command line down: the SAT child (and, racing in ``auto``, the
    CP-SAT child) stop when it passes, and no process is left behind."""
    import multiprocessing as mp
    import time

    from click.testing import CliRunner

    from pegsat.cli import main

    before = set(mp.active_children())  # the tests' shared Dask cluster, when it runs
    t = time.monotonic()
    r = CliRunner().invoke(main, ["solve", "diamond", "--vacant", "e4", "--planner", planner,
                                  "--time-limit", "1.5"])
    took = time.monotonic() - t
    assert r.exit_code == 20, r.output
    assert 1.4 <= took < 4.0, took
    assert not set(mp.active_children()) - before


@pytest.mark.parametrize("planner", ["sat", "cpsat"])
def test_a_refuted_short_horizon_skips_every_shorter_one(planner):
    """A short horizon found UNSAT refutes every shorter one (a plan in fewer steps is one in
    more, empty steps added): the schedule goes on past them, and only the full horizon
    refutes the problem."""
    from pegsat.planners.config import horizon_schedule

    b = get_board("triangle-5")
    p = single_vacancy(b, b.hole("b3"), Goal.survivor(b, b.hole("b3")))  # no plan
    config = Config(workers=1)
    tried = [steps for steps, _, _ in horizon_schedule(p, config) if steps is not None]
    assert len(tried) > len(set(tried))  # some horizon is scheduled twice
    r = get_planner(planner).solve(p, Deadline(60), config)
    assert r.status is Status.UNSOLVABLE
    assert r.stats["attempts"] == [*sorted(set(tried)), 13], r.stats
