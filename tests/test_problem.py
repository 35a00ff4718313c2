import pytest
from conftest import Options, load_problem

from pegsat.errors import ProblemError
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, single_vacancy


def test_default_problem_is_centre_vacancy_one_peg(tmp_path):
    p = load_problem("english")
    b = p.board
    assert p.start == b.full & ~(1 << b.hole("d4"))
    assert p.goal == Goal.one_peg()
    assert list(p.horizons) == [31]


def test_options_override():
    p = load_problem("french", Options(vacant="c1", survivor="e1"))
    b = p.board
    assert p.start == b.full & ~(1 << b.hole("c1"))
    assert p.goal == Goal.survivor(b, b.hole("e1"))


def test_counting_rejects_goal_with_more_pegs_than_start():
    b = get_board("english")
    with pytest.raises(ProblemError, match="needs at least 5 pegs but the start has only 3"):
        Problem(b, 0b111, Goal(min_pegs=5, max_pegs=5))
    with pytest.raises(ProblemError, match="needs at least"):
        load_problem("english", Options(start="d4 d5", pattern="a3 a4 a5"))


def test_partial_goal_horizons():
    p = load_problem("english", Options(full="d1"))
    assert list(p.horizons) == list(range(0, 32))
    q = load_problem("english", Options(at_most=3))
    assert list(q.horizons) == [29, 30, 31]


def test_toml_instances_load(instances):
    for path in sorted(instances.glob("*.toml")):
        p = load_problem(str(path))
        assert p.name


def test_bad_toml(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('board = "english"\n[goal]\nsurvivor = "z9"\n')
    with pytest.raises(Exception, match="bad.toml: .*no hole named 'z9'"):
        load_problem(str(f))
    f.write_text('board = "english"\n[goal]\nsurvivor = "d4"\npegs = 2\n')
    with pytest.raises(ProblemError, match="one goal form"):
        load_problem(str(f))
    f.write_text("board = \n")
    with pytest.raises(ProblemError, match="not valid TOML"):
        load_problem(str(f))


def test_special_peg_requires_one_peg_goal():
    b = get_board("hopping-dots")
    with pytest.raises(ProblemError, match="single survivor"):
        Problem(b, b.full & ~1, Goal.at_most(3), special=3)
    with pytest.raises(ProblemError, match="empty at the start"):
        Problem(b, b.full & ~1, Goal.one_peg(), special=0)


def test_drawing_start(instances):
    p = load_problem(str(instances / "invasion-english.toml"))
    assert p.pegs == 13
    assert p.goal.full == 1 << p.board.hole("d3")


def test_describe():
    b = get_board("english")
    assert single_vacancy(b, b.hole("d4")).describe() == "english: vacancy d4 -> one peg at d4"
