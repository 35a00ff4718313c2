"""The search planner's turns on larger boards: each survivor of an open one-peg goal, and
each game both ways (the time-reversed game: vacancy and survivor swapped), in turns of
growing length (issue 13: the diamond's e3 and e4 vacancies)."""

import pytest

from pegsat.apps.solve import solve
from pegsat.deadline import Deadline
from pegsat.engine.bitboard import replay_plan, same_game
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, dual, single_vacancy
from pegsat.model.result import Proof, Result, Status
from pegsat.planners import game, turns
from pegsat.planners.config import Config
from pegsat.planners.turns import Part, Turn

D = get_board("diamond")


def test_a_plan_of_the_reversed_game_is_turned_into_a_plan_here():
    e = get_board("english")
    p = single_vacancy(e, e.hole("d1"), Goal.survivor(e, e.hole("d4")))
    reversed_game = Turn(Part.ITSELF, dual(p), True)  # vacancy d4 -> survivor d1
    r = turns.in_turns(p, [reversed_game], {}, 0, Deadline(60), Config(workers=1))
    assert r.status is Status.SOLVED and "time-reversed" in r.detail
    assert replay_plan(p, r.plan).final == p.goal.full


@pytest.mark.slow  # its turns are seconds of wall time: 6 s alone, 16 s beside the rest of the suite
def test_the_reversed_game_refutes_a_fixed_goal():
    # forward, e3 -> e1 was still open after 40 s; its reversal e1 -> e3 is exhausted in ~2 s.
    # No deadline: turns grow until the reversal's is long enough, however loaded the machine
    # (a deadline made the answer depend on the load).
    p = single_vacancy(D, D.hole("e3"), Goal.survivor(D, D.hole("e1")))
    r = solve(p, "search", deadline=Deadline())
    assert r.status is Status.UNSOLVABLE and r.proof is Proof.DUAL


def test_turns_grow_by_half_then_double(monkeypatch):
    """Every open game gets the same turn each round: 2 s, then 1.5 times longer while
    turns are under 16 s, then twice as long; from the second round on the open goal's own
    game gets WHOLE_TURN times as long as the other open games together; a refuted
    survivor's games get no more turns. A game mines pagodas (and grows its table) just
    before its next turn, the open goal's game after every turn, the others after turns of
    MINE_FROM seconds: a problem settled in the meantime never pays for it."""
    e = get_board("english")
    probs = [single_vacancy(e, e.hole(h), Goal.one_peg()) for h in ("d4", "d1", "c1")]
    games = [Turn(Part.OPEN, probs[0]), Turn(3, probs[1]), Turn(5, probs[2], True)]
    taken: list[tuple[int, float]] = []

    class Enough(Exception):
        pass

    def whole(problem, deadline, config, state=None):
        if len(taken) == 18:
            raise Enough
        i = next(k for k, q in enumerate(probs) if q is problem)
        taken.append((i, deadline.remaining()))
        events.append(("turn", i))
        if i == 2 and len(taken) > 3:  # the reversed game refutes survivor 5 in its second turn
            return Result(Status.UNSOLVABLE, problem, "search", proof=Proof.EXHAUSTED)
        return Result(Status.UNKNOWN, problem, "search")

    monkeypatch.setattr(game, "whole", whole)
    events: list[tuple[str, int]] = []
    monkeypatch.setattr(turns, "mine", lambda problem, *a: events.append(("mine", probs.index(problem))))
    monkeypatch.setattr(turns, "grow", lambda *a: None)
    with pytest.raises(Enough):
        turns.in_turns(probs[0], games, {}, 0, Deadline(10_000), Config(workers=1))
    w = turns.WHOLE_TURN
    want = [(0, 2), (1, 2), (2, 2), (0, 3 * w * 2), (1, 3), (2, 3)]  # two others, then one
    for t in (4.5, 6.75, 10.125, 15.1875, 22.78125, 45.5625):  # x1.5 below 16 s, then x2
        want += [(0, t * w), (1, t)]
    assert [i for i, _ in taken] == [i for i, _ in want]
    assert [t for _, t in taken] == pytest.approx([t for _, t in want], abs=0.05)
    assert events[:7] == [("turn", 0), ("turn", 1), ("turn", 2), ("mine", 0), ("turn", 0), ("turn", 1),
                          ("turn", 2)]
    first = events.index(("mine", 1))  # just before the turn after its first of MINE_FROM s
    spans = [t for i, t in taken if i == 1][:events[:first].count(("turn", 1))]
    assert events[first + 1] == ("turn", 1)
    assert spans[-1] >= turns.MINE_FROM > spans[-2]


def test_a_self_dual_game_is_not_played_twice():
    p = single_vacancy(D, D.hole("e1"), Goal.survivor(D, D.hole("e9")))  # e9 -> e1 is its mirror image
    games, refuted, _ = turns.plan_turns(p)
    assert same_game(p, dual(p)) and not refuted
    assert [g.reverse for g in games if g.key is not Part.BEAM] == [False]
    assert games[-1].key is Part.BEAM  # and the beam's turn, last


def test_an_open_goal_s_game_comes_first_then_the_beam_and_holds_half_the_memory():
    p = single_vacancy(D, D.hole("e1"), Goal.one_peg())
    games, refuted, _ = turns.plan_turns(p)
    assert [g.key for g in games[:2]] == [Part.OPEN, Part.BEAM] and not refuted
    rest = [g for g in games if isinstance(g.key, int)]
    assert len(rest) == 7  # e3, b6, e6 both ways; e9 once (e9 -> e1 is e1 -> e9 turned over)
    assert turns.share(games, refuted, games[0]) == 0.5
    assert turns.share(games, refuted, rest[0]) == pytest.approx(0.5 / 7)
    refuted.update({g.key: (Proof.EXHAUSTED, False) for g in rest})
    assert turns.share(games, refuted, games[0]) == 1.0


def test_a_full_dead_table_grows_and_keeps_its_positions():
    from pegsat.engine import dfs

    p = single_vacancy(D, D.hole("e4"), Goal.survivor(D, D.hole("e9")))
    s = dfs.DepthFirst(p, table=dfs.new_table(12))
    assert s.attempt(dfs.far_first(p), 20_000) == dfs.BUDGET
    old = s.table
    assert dfs.filled(old) > 0.5
    new = dfs.grown(p, old)
    assert len(new) == 4 * len(old)
    assert set(old[old != 0].tolist()) == set(new[new != 0].tolist())


def test_a_table_grows_ahead_of_a_turn_that_would_fill_it():
    """Less than half full, a table grows only when the next turn, ``longer`` times the
    last, would fill it past half at the rate it filled so far."""
    from pegsat.engine import dfs

    p = single_vacancy(D, D.hole("e4"), Goal.survivor(D, D.hole("e9")))
    s = dfs.DepthFirst(p, table=dfs.new_table(14))
    s.attempt(dfs.far_first(p), 5_000)
    assert 0.2 < dfs.filled(s.table) < 0.33
    state = game.State(table=s.table)
    turns.grow(p, state, 1.0, 1.4)
    assert state.table is s.table
    turns.grow(p, state, 1.0, 6.0)
    assert len(state.table) == 4 * len(s.table)
    # where four times does not fit the cap, twice does; at the cap, nothing
    state = game.State(table=s.table)
    turns.grow(p, state, 1.0, 6.0, bits=15)
    assert len(state.table) == 2 * len(s.table)
    turns.grow(p, state, 1.0, 6.0, bits=15)
    assert len(state.table) == 2 * len(s.table)


@pytest.mark.slow
def test_diamond_e4_has_no_one_peg_finish():
    """About 9 s on 2 cores: the survivor split and time reversal on a board of 41 holes (the
    turns' schedule is tested on small boards in the default run)."""
    p = single_vacancy(D, D.hole("e4"), Goal.one_peg())
    r = solve(p, "search", deadline=Deadline(120))
    assert r.status is Status.UNSOLVABLE and r.proof is Proof.SPLIT
    # every class-compatible survivor (up to symmetry) is named with how it was refuted
    for name in ("e3", "b6", "e6", "e9"):
        assert f"{name} by " in r.detail
    assert "time-reversed" in r.detail


@pytest.mark.slow
def test_diamond_e3_to_one_peg_is_solved():
    """About 50 s on 2 cores (instances/plans/diamond-e3-one.plan: found on the reversed game)."""
    p = single_vacancy(D, D.hole("e3"), Goal.one_peg())
    r = solve(p, "search", deadline=Deadline(300))
    assert r.status is Status.SOLVED
    assert replay_plan(p, r.plan).final.bit_count() == 1


@pytest.mark.slow
def test_diamond_e1_to_e9_is_exhausted_once_the_table_grows():
    """About 105 s on one core, 2.7 GB: 200 M dead positions; with the old fixed 2^26-slot
    table the search never finished (lossy overwrites kept re-proving the same positions)."""
    p = single_vacancy(D, D.hole("e1"), Goal.survivor(D, D.hole("e9")))
    r = solve(p, "search", Config(workers=1), deadline=Deadline(600))
    assert r.status is Status.UNSOLVABLE and r.proof is Proof.EXHAUSTED


def test_pagodas_mined_from_dead_positions_are_pagodas_and_rule_them_out():
    import numpy as np

    from pegsat.analysis import pagoda
    from pegsat.engine import dfs

    p = single_vacancy(D, D.hole("e1"), Goal.survivor(D, D.hole("e9")))
    known = pagoda.learn(p, 50, __import__("random").Random(1))
    s = dfs.DepthFirst(p, table=dfs.new_table(16), pagodas=[dfs.Pagoda(w, f) for w, f in known])
    assert s.attempt(dfs.far_first(p), 30_000) == dfs.BUDGET
    dead = s.table[s.table != 0][:2000]
    new = pagoda.mine(p, dead, known, keep=3, deadline=Deadline(20))
    assert 1 <= len(new) <= 3 and not set(new) & set(known)
    has = (dead[:, None] >> np.arange(D.n, dtype=np.uint64)) & np.uint64(1)
    for w, floor in new:
        assert all(w[c] <= w[a] + w[b] for a, b, c in D.jumps)  # no jump adds weight
        assert w[D.hole("e9")] >= floor  # the goal itself is never ruled out
        assert (has.astype(np.int64) @ np.array(w) < floor).any()  # each rules out some dead position
