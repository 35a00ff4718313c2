"""The exhaustive search by jumps (planner ``layers``) and its "exhaustive" certificates."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from pegsat.analysis.invariants import separating_weight
from pegsat.apps.survey import orbit_pairs
from pegsat.checks import certificate
from pegsat.deadline import Deadline
from pegsat.engine.bitboard import replay, replay_plan
from pegsat.engine.kernel import kernel
from pegsat.formats.notation import parse_plan
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, single_vacancy
from pegsat.model.result import Status
from pegsat.planners import layers, search
from pegsat.planners.config import Config
from pegsat.proofs.prove import prove

T5, T6 = get_board("triangle-5"), get_board("triangle-6")


def test_pagodas_keep_matches_a_direct_sum():
    """Exact: a position is kept iff its weighted sum reaches the floor."""
    b = get_board("english")
    rng = np.random.default_rng(3)
    pg = layers.Pagodas(b)
    ws = [tuple(int(x) for x in rng.integers(-5, 6, b.n)) for _ in range(3)]
    for w in ws:
        pg.add(w, 0, 0)
    pos = rng.integers(0, 1 << b.n, 5000, dtype=np.uint64)
    kept = set(pg.keep(kernel(b, ()), pos, 0).tolist())
    for p in pos.tolist():
        ok = all(sum(w[h] for h in range(b.n) if p >> h & 1) >= 0 for w in ws)
        assert (p in kept) == ok


def test_a_retired_weighting_is_not_applied_after_its_last_level():
    b = T5
    pg = layers.Pagodas(b)
    pg.add(tuple([-1] * b.n), 0, 0, last=2)  # rejects every non-empty position
    pos = np.array([1, 3, 7], dtype=np.uint64)
    k = kernel(b, ())
    assert len(pg.keep(k, pos, 2)) == 0 and len(pg.keep(k, pos, 3)) == 3


@pytest.mark.parametrize("board", [T5, T6], ids=["triangle-5", "triangle-6"])
def test_layers_agrees_with_depth_first_search(board):
    """Differential: every orbit of single-vacancy -> single-survivor problems; where the
    position classes already rule a pair out (the depth-first search is slow to exhaust
    those), the classes are the reference."""
    for v, s in orbit_pairs(board):
        p = single_vacancy(board, v, Goal.survivor(board, s))
        a = layers.solve(p, Deadline(30), Config())
        if separating_weight(board, p.start, p.goal.full) is not None:
            assert a.status is Status.UNSOLVABLE
            continue
        b = search.solve(p, Deadline(30), Config())
        assert a.status is b.status, (board.names[v], board.names[s])
        if a.plan is not None:
            replay_plan(p, a.plan)


def test_self_dual_problem_uses_one_side_and_finds_a_plan():
    # a1 -> e5 is self-dual under the reflection swapping the two corners.
    p = single_vacancy(T5, T5.hole("a1"), Goal.survivor(T5, T5.hole("e5")))
    lay = layers.Layers(p, Deadline(10))
    assert lay.self_dual
    r = layers.solve(p, Deadline(10), Config())
    assert r.stats["self_dual"] and r.stats["backward_levels"] == [1]
    assert (r.status is Status.SOLVED) == (search.solve(p, Deadline(10), Config()).status is Status.SOLVED)
    if r.plan:
        replay_plan(p, r.plan)


def _learned_certificate():
    """A problem where pagodas are learned (small learn_min) and no plan exists."""
    p = single_vacancy(T6, T6.hole("a1"), Goal.survivor(T6, T6.hole("b5")))
    assert search.solve(p, Deadline(30), Config()).status is Status.UNSOLVABLE
    lay = layers.Layers(p, Deadline(30), learn_min=50)
    assert lay.run() is None
    rec = lay.record()
    assert rec["pagodas"]["forward"] or rec["pagodas"]["backward"]
    ev = {k: rec[k] for k in ("pagodas", "forward_levels", "backward_levels", "self_dual")}
    return p, certificate.make(p, "exhaustive", ev)


def test_exhaustive_certificate_holds_and_tampering_is_rejected():
    p, cert = _learned_certificate()
    v = certificate.check(cert)
    assert v.ok, v.message
    side = "forward" if cert["evidence"]["pagodas"]["forward"] else "backward"
    item = cert["evidence"]["pagodas"][side][0]

    bad = copy.deepcopy(cert)  # a level size changed
    bad["evidence"]["forward_levels"][-1] += 1
    assert not certificate.check(bad).ok

    bad = copy.deepcopy(cert)  # a floor above what the goal (or start) allows
    bad["evidence"]["pagodas"][side][0]["floor"] = item["floor"] + 10**6
    assert not certificate.check(bad).ok

    bad = copy.deepcopy(cert)  # one weight changed so that a jump increases the weighting
    h = next(iter(item["weights"]))
    bad["evidence"]["pagodas"][side][0]["weights"][h] += 10**6 if side == "forward" else -(10**6)
    v = certificate.check(bad)
    assert not v.ok and ("increases" in v.message or "floor" in v.message or "weighs" in v.message)


def test_prove_uses_the_search_and_check_reruns_it(tmp_path, monkeypatch):
    import pegsat.proofs.deadset as deadset

    monkeypatch.setattr(deadset, "supports", lambda p: "the level search's route, tested here")
    p = single_vacancy(T5, T5.hole("b3"), Goal.survivor(T5, T5.hole("b3")))
    res = prove(p)
    assert res.status is Status.UNSOLVABLE and res.kind == "exhaustive"
    assert certificate.check(res.certificate).ok


def test_time_limit_is_unknown_never_a_proof():
    b = get_board("french")
    p = single_vacancy(b, b.hole("d3"), Goal.survivor(b, b.hole("d5")))
    r = layers.solve(p, Deadline(1.0), Config())
    assert r.status is Status.UNKNOWN and "time limit" in r.detail


def test_memory_budget_is_unknown_never_a_proof(monkeypatch):
    monkeypatch.setenv("PEGSAT_MEMORY_GB", "0.001")  # 1 MB: the German levels outgrow it at once
    b = get_board("german")
    p = single_vacancy(b, b.hole("e5"), Goal.survivor(b, b.hole("e5")))
    r = layers.solve(p, Deadline(30), Config())
    assert r.status is Status.UNKNOWN and r.detail.startswith("memory budget"), r.detail


@pytest.mark.parametrize("pair, moves", [(("d3", "d5"), 31), (("c1", "e4"), 33)])
def test_hard_french_plans_replay(pair, moves):
    """Regression: the two French orbits the planners settle only by luck or at length
    (issue 7). d3 -> d5: found by ``layers`` in 10 to 20 minutes on 2 cores (``pegsat prove
    french --vacant d3 --survivor d5``); c1 -> e4: its time-reversed game e4 -> c1 solved by
    CP-SAT (2 workers, 172 s; 60 s and 180 s one-worker runs found nothing), reversed. Here
    only the verifier replays them."""
    from pathlib import Path

    b = get_board("french")
    v, s = pair
    p = single_vacancy(b, b.hole(v), Goal.survivor(b, b.hole(s)))
    text = (Path(__file__).parent.parent / "instances" / "plans" / f"french-{v}-{s}.plan").read_text()
    rep = replay(p, parse_plan(b, text))
    assert rep.moves == moves and len(rep.plan) == 35


@pytest.mark.parametrize("name, board, vacancy, survivor, jumps, moves", [
    ("german-e5-e5", "german", "e5", "e5", 43, 38),
    ("diamond-d2-one", "diamond", "d2", None, 39, 35),
    ("diamond-e3-one", "diamond", "e3", None, 39, 35),
    ("german-d1-d7", "german", "d1", "d7", 43, 37),
    ("german-e2-e2", "german", "e2", "e2", 43, 36),  # the beam's
    ("german-d1-a4", "german", "d1", "a4", 43, 34),
])
def test_big_board_plans_replay(name, board, vacancy, survivor, jumps, moves):
    """Regression (issue 13): plans the compiled search found on the 45- and 41-hole boards,
    where every planner before it answered unknown. Here only the verifier replays them."""
    from pathlib import Path

    b = get_board(board)
    goal = Goal.survivor(b, b.hole(survivor)) if survivor else Goal.one_peg()
    p = single_vacancy(b, b.hole(vacancy), goal)
    text = (Path(__file__).parent.parent / "instances" / "plans" / f"{name}.plan").read_text()
    rep = replay(p, parse_plan(b, text))
    assert len(rep.plan) == jumps and rep.moves == moves


def test_survey_falls_back_to_layers_when_the_planners_give_up(monkeypatch):
    """Where ``auto`` and the dual game stay unknown, the exhaustive step settles the pair."""
    import pegsat.apps.survey as survey_mod
    from pegsat.apps.survey import settle
    from pegsat.model.result import Result

    real = survey_mod.solve

    def stubborn(problem, planner, config=None, deadline=None):
        if planner == "auto":
            return Result(Status.UNKNOWN, problem, "auto", detail="time limit (simulated)")
        return real(problem, planner, config, deadline)

    monkeypatch.setattr(survey_mod, "solve", stubborn)
    h = T5.hole
    e = settle(T5, h("a1"), h("a1"), "auto", 10)  # solvable (Bell: 10 moves)
    assert e.status == "solved" and e.proof == "layers" and e.plan
    replay(single_vacancy(T5, h("a1"), Goal.survivor(T5, h("a1"))), parse_plan(T5, e.plan))
    e = settle(T5, h("a1"), h("b5"), "auto", 10)
    assert e.status in ("unsolvable", "solved")
    assert e.proof in ("classes", "pagoda", "layers", None)


def test_survey_skips_the_reversed_game_when_the_search_took_turns(monkeypatch):
    """On a board where the search takes turns (it played the reversed game already) the
    planner is not asked to play it again; the exhaustive step still runs."""
    import pegsat.apps.survey as survey_mod
    from pegsat.analysis import games
    from pegsat.apps.survey import settle
    from pegsat.model.result import Result

    real, asked = survey_mod.solve, []

    def turns_taken(problem, planner, config=None, deadline=None):
        asked.append((planner, problem.start))
        if planner == "auto":
            return Result(Status.UNKNOWN, problem, "auto", detail="simulated")
        return real(problem, planner, config, deadline)

    monkeypatch.setattr(survey_mod, "solve", turns_taken)
    monkeypatch.setattr(games, "SPLIT_ABOVE", 0)  # triangle-5 as large as the diamond
    h = T5.hole
    e = settle(T5, h("a1"), h("a1"), "auto", 10)
    assert [p for p, _ in asked] == ["auto", "layers"]
    assert e.status == "solved" and e.proof == "layers"
