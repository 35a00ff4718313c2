import pytest

from pegsat.engine.bitboard import count_moves, engine, replay, replay_plan
from pegsat.errors import PlanError
from pegsat.formats.notation import parse_plan
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, single_vacancy

BERGHOLT = ("f4-d4 e6-e4 g5-e5 d5-f5 b5-d5 c7-c5 c4-c6 e7-c7-c5 e3-e5 e1-e3 c2-c4-c6-e6-e4-e2 "
            "g3-g5-e5-c5 a3-c3 d3-b3 a5-a3-c3 c1-e1-e3 f3-d3-b3-b5-d5-d3 d2-d4")


def central():
    b = get_board("english")
    return single_vacancy(b, b.hole("d4"))


def test_bergholt_replays_in_18_moves():
    p = central()
    rep = replay(p, parse_plan(p.board, BERGHOLT))
    assert rep.final == 1 << p.board.hole("d4")
    assert (rep.jumps, rep.moves) == (31, 18)
    assert count_moves(p.board, rep.plan) == 18


def test_legal_first_jumps_of_central_game():
    p = central()
    eng = engine(p.board)
    got = sorted(f"{p.board.names[a]}-{p.board.names[c]}"
                 for a, _, c in (p.board.jumps[k] for k in eng.legal(p.start)))
    assert got == ["b4-d4", "d2-d4", "d6-d4", "f4-d4"]


@pytest.mark.parametrize("plan, step, reason", [
    ("d4-f4", 1, "no peg on d4 to move"),
    ("f4-d4 f4-d4", 2, "no peg on f4"),
    ("f4-d4 d6-d4", 2, "the target hole d4 is occupied"),
    ("f4-d4 g4-e4", 2, "the middle hole f4 is empty"),
    ("f4-d4 a3-c5", 2, "a3-c5 is not a line of board english"),
    ("f4-d4 e6-e4", 3, "goal not reached after 2 jumps"),
])
def test_replay_errors_name_step_and_reason(plan, step, reason):
    p = central()
    with pytest.raises(PlanError) as exc:
        replay(p, parse_plan(p.board, plan))
    assert exc.value.step == step
    assert reason in str(exc.value)


def test_special_peg_may_not_be_jumped():
    b = get_board("hopping-dots")
    p = single_vacancy(b, b.hole("7"), Goal.one_peg())
    from dataclasses import replace
    p = replace(p, special=b.hole("4"))
    with pytest.raises(PlanError, match="jumps over the special peg on 4"):
        replay(p, parse_plan(b, "1-7"))


def test_replay_plan_matches_replay():
    p = central()
    rep = replay(p, parse_plan(p.board, BERGHOLT))
    assert replay_plan(p, rep.plan) == rep
