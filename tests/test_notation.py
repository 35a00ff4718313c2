import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pegsat.engine.bitboard import engine, replay
from pegsat.errors import NotationError
from pegsat.formats.notation import format_plan, hole_coord, parse_plan
from pegsat.model.board import parse_holes
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem


def random_game(board, seed_choices):
    """A random legal jump sequence from the full board minus hole 0."""
    eng = engine(board)
    pos = board.full & ~1
    plan = []
    for choice in seed_choices:
        legal = eng.legal(pos)
        if not legal:
            break
        k = legal[choice % len(legal)]
        plan.append(k)
        pos = eng.apply(pos, k)
    return board.full & ~1, plan, pos


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(["english", "triangle-6", "hopping-dots", "english-diagonal"]),
       notation=st.sampled_from(["names", "ids", "coords"]),
       choices=st.lists(st.integers(0, 50), max_size=20))
def test_round_trip(name, notation, choices):
    b = get_board(name)
    start, plan, final = random_game(b, choices)
    text = format_plan(b, plan, notation)
    hops = parse_plan(b, text, notation)
    p = Problem(b, start, Goal(min_pegs=1))
    assert replay(p, hops).plan == tuple(plan)
    if notation != "ids" or name != "hopping-dots":  # hopping-dots names are numbers too
        assert replay(p, parse_plan(b, text, "auto")).plan == tuple(plan)


def test_coordinates():
    e = get_board("english")
    assert hole_coord(e, e.hole("d4")) == (4, 4)
    assert hole_coord(e, e.hole("c1")) == (1, 3)
    t = get_board("triangle-5")
    assert hole_coord(t, t.hole("c5")) == (5, 3)
    assert parse_plan(e, "2 4 4 4") == parse_plan(e, "d2-d4")


def test_multi_jump_chain():
    e = get_board("english")
    assert parse_plan(e, "e7-c7-c5") == [(e.hole("e7"), e.hole("c7")), (e.hole("c7"), e.hole("c5"))]


@pytest.mark.parametrize("text, message", [
    ("d4-z9", "no hole named 'z9'"),
    ("d4", "write a move as a chain"),
    ("9 9 1 1", "no hole at row 9 column 9"),
])
def test_notation_errors(text, message):
    with pytest.raises(NotationError, match=message):
        parse_plan(get_board("english"), text)


def test_parse_holes_names_and_ids():
    e = get_board("english")
    assert parse_holes(e, "d4, 0 c1") == [e.hole("d4"), 0, e.hole("c1")]
    with pytest.raises(NotationError):
        parse_holes(e, "99")
