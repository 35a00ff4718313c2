"""The beam (``engine.beam``, planner ``beam``, a turn of ``search``): its plans replay, it
never claims "unsolvable", its scores are exact, and where a beam is as wide as the levels
it finds every plan that exists (differential against the exhaustive reference search)."""

import random

import numpy as np
import pytest

from pegsat.apps.survey import orbit_pairs
from pegsat.deadline import Deadline
from pegsat.engine import beam as B
from pegsat.engine import dfs as D
from pegsat.engine import reference as R
from pegsat.engine.bitboard import replay_plan
from pegsat.engine.kernel import kernel
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, single_vacancy
from pegsat.model.result import Result, Status
from pegsat.planners import beam, game
from pegsat.planners import turns as scheduler
from pegsat.planners.config import Config


@pytest.mark.parametrize("name", ["english", "square-9x9"])  # one word, two words
def test_score_is_the_weighted_pegs_plus_the_isolated_ones(name):
    b = get_board(name)
    k = kernel(b, (tuple(range(b.n)),))
    rng = random.Random(7)
    over = {h: {m for a, m, _ in b.jumps if a == h} for h in range(b.n)}
    weights = [rng.randrange(-50, 100) for _ in range(b.n)]
    positions = [rng.getrandbits(b.n) & rng.getrandbits(b.n) for _ in range(300)] + [0, b.full]
    got = k.score(k.array(positions), weights, 1000)
    for pos, s in zip(positions, got.tolist(), strict=True):
        pegs = [h for h in range(b.n) if pos >> h & 1]
        lonely = sum(1 for h in pegs if not any(pos >> m & 1 for m in over[h]))
        assert s == sum(weights[h] for h in pegs) + 1000 * lonely, hex(pos)


@pytest.mark.slow  # 9 s: every triangle-5 orbit; the tests below cover the beam in the default run
def test_a_beam_as_wide_as_the_levels_finds_every_plan_and_claims_nothing_else():
    t = get_board("triangle-5")
    for v, s in orbit_pairs(t):
        p = single_vacancy(t, v, Goal.survivor(t, s))
        want, _ = R.depth_first(p, Deadline(60), D.far_first(p))
        r = beam.solve(p, Deadline(60), Config())
        if want is None:
            assert r.status is Status.UNKNOWN and "proves nothing" in r.detail, (v, s)
        else:
            assert r.status is Status.SOLVED, (v, s)
            assert replay_plan(p, r.plan).final == p.goal.full


def test_a_beam_that_dies_out_says_unknown(monkeypatch):
    monkeypatch.setattr(B, "MAX_WIDTH", 8)
    e = get_board("english")
    p = single_vacancy(e, e.hole("d4"), Goal.survivor(e, e.hole("c4")))  # no plan (classes)
    ladder = B.Ladder(p, [], width=1)
    assert ladder.run(Deadline(30)) is None and ladder.spent and ladder.width == 16


def test_two_word_board_beam():
    b = get_board("square-9x9")
    start = sum(1 << b.hole(f"{c}{r}") for c in "abc" for r in (1, 2, 3))
    p = Problem(b, start, Goal.one_peg())
    want, _ = R.depth_first(p, Deadline(60), D.far_first(p))
    r = beam.solve(p, Deadline(60), Config())
    assert (r.status is Status.SOLVED) == (want is not None)
    if r.plan:
        assert replay_plan(p, r.plan).final.bit_count() == 1


def test_a_goal_with_a_range_of_peg_counts_meets_every_backward_level_it_can():
    t = get_board("triangle-6")
    p = single_vacancy(t, t.hole("a1"), Goal.at_most(4))
    b = B.Beam(p, [])
    found = b.attempt(1000, 0, Deadline(30))
    assert b.levels.bwd is not None  # at most 4 pegs on 21 holes: few enough to list
    assert found is not None and replay_plan(p, found[1]).final.bit_count() <= 4


def test_a_goal_with_too_many_positions_to_list_is_tested_directly():
    b = get_board("square-9x9")
    start = sum(1 << b.hole(f"{c}{r}") for c in "abc" for r in (1, 2, 3))
    p = Problem(b, start, Goal.at_most(4))  # C(81, 4) = 1.7 M goal positions
    bm = B.Beam(p, [])
    found = bm.attempt(1000, 0, Deadline(30))
    assert bm.levels.bwd is None
    assert found is not None and replay_plan(p, found[1]).final.bit_count() <= 4


@pytest.mark.slow  # 8 s; the two-word beam is covered by test_two_word_board_beam
def test_german_e2_to_e2_the_depth_first_search_left_open():
    """Open after 150 s of depth-first search (2 cores); a beam of 25-50,000 positions has
    a plan in a few seconds."""
    g = get_board("german")
    p = single_vacancy(g, g.hole("e2"), Goal.survivor(g, g.hole("e2")))
    r = beam.solve(p, Deadline(60), Config())
    assert r.status is Status.SOLVED, r.detail
    assert replay_plan(p, r.plan).final == p.goal.full


class Enough(Exception):
    pass


def turns(monkeypatch, problem: Problem, seen: list[str], dfs_turns: int | None = None) -> Result:
    """``scheduler.in_turns`` on ``problem``'s depth-first game (a fake that always says
    "unknown", and raises ``Enough`` at its ``dfs_turns``-th turn) and the real beam's; the
    turns taken go to ``seen``, in order."""
    real = scheduler.beam_turn

    def whole(problem, deadline, config, state=None):
        seen.append("dfs")
        if seen.count("dfs") == dfs_turns:
            raise Enough
        return Result(Status.UNKNOWN, problem, "search")

    def beam_turn(*args):
        seen.append("beam")
        return real(*args)

    monkeypatch.setattr(game, "whole", whole)
    monkeypatch.setattr(scheduler, "beam_turn", beam_turn)
    monkeypatch.setattr(scheduler, "mine", lambda *a: None)
    monkeypatch.setattr(scheduler, "grow", lambda *a: None)
    games = [scheduler.Turn(scheduler.Part.ITSELF, problem), scheduler.Turn(scheduler.Part.BEAM, problem)]
    return scheduler.in_turns(problem, games, {}, 0, Deadline(600), Config(workers=1))


def test_the_beam_takes_its_turn_last_and_its_plan_wins(monkeypatch):
    e = get_board("english")
    p = single_vacancy(e, e.hole("d4"), Goal.survivor(e, e.hole("d4")))
    seen: list[str] = []
    r = turns(monkeypatch, p, seen)
    assert seen[:2] == ["dfs", "beam"] and seen[-1] == "beam"  # a turn each, the beam last
    assert r.status is Status.SOLVED and "beam" in r.detail
    assert replay_plan(p, r.plan).final == p.goal.full


def test_a_spent_beam_gets_no_more_turns(monkeypatch):
    monkeypatch.setattr(B, "MAX_WIDTH", 4)
    monkeypatch.setattr(B, "FIRST_WIDTH", 1)
    monkeypatch.setattr(B, "BACK_LIMIT", 1000)  # all within its first 2 s turn, even on a busy machine
    monkeypatch.setattr(beam, "pagodas_for", lambda *a: [])
    e = get_board("english")
    p = single_vacancy(e, e.hole("d4"), Goal.survivor(e, e.hole("c4")))  # no plan (classes)
    seen: list[str] = []
    with pytest.raises(Enough):
        turns(monkeypatch, p, seen, dfs_turns=4)
    assert seen == ["dfs", "beam", "dfs", "dfs", "dfs"]  # widths 1, 2, 4 died in its first turn


def test_kernel_unique_matches_numpy():
    for name in ("english", "square-9x9"):
        b = get_board(name)
        k = kernel(b, (tuple(range(b.n)),))
        rng = np.random.default_rng(3)
        raw = [int(x) for x in rng.integers(0, 1 << min(b.n, 62), 5000)] * 2
        want = sorted(set(raw))
        assert k.ints(k.unique(k.array(raw))) == want
        arr = k.array(raw)
        assert k.ints(k.unique(arr, own=True)) == want
