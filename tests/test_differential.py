"""SAT, CP-SAT and exhaustive search agree on random small boards, starts and goals
(including the special-peg rule)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegsat.apps.solve import solve
from pegsat.deadline import Deadline
from pegsat.errors import BoardError
from pegsat.model.board import Board
from pegsat.model.lattice import board_from_cells
from pegsat.model.problem import Goal, Problem
from pegsat.model.result import Status
from pegsat.planners.config import Config


@st.composite
def problems(draw):
    lattice = draw(st.sampled_from(["square", "square+diagonal", "triangular"]))
    rows, cols = draw(st.integers(2, 4)), draw(st.integers(3, 4))
    if lattice == "triangular":
        cells = [(r, c) for r in range(rows) for c in range(2 * cols) if (r + c) % 2 == 0]
    else:
        cells = [(r, c) for r in range(rows) for c in range(cols)]
    keep = draw(st.lists(st.booleans(), min_size=len(cells), max_size=len(cells)))
    cells = [c for c, k in zip(cells, keep, strict=True) if k or draw(st.booleans())]
    try:
        board: Board = board_from_cells("random", lattice, cells)
    except BoardError:
        cells = [(0, 0), (0, 2), (0, 4)] if lattice == "triangular" else [(0, 0), (0, 1), (0, 2)]
        board = board_from_cells("random", lattice, cells)
    # dense starts (about 70% pegs) make long games; at least one hole is empty
    dice = draw(st.lists(st.integers(0, 9), min_size=board.n, max_size=board.n))
    start = sum(1 << h for h, d in enumerate(dice) if d < 7) & ~(1 << draw(st.integers(0, board.n - 1)))
    if not start:
        start = 1
    kind = draw(st.sampled_from(["one", "survivor", "at_most"]))
    if kind == "survivor":
        goal = Goal.survivor(board, draw(st.integers(0, board.n - 1)))
    elif kind == "at_most":
        goal = Goal.at_most(draw(st.integers(1, 3)))
    else:
        goal = Goal.one_peg()
    if goal.min_pegs > start.bit_count():
        goal = Goal.at_most(start.bit_count())
    special = None
    if draw(st.booleans()) and goal.fixed_count == 1:
        pegs = [h for h in range(board.n) if start >> h & 1]
        special = draw(st.sampled_from(pegs))
    return Problem(board, start, goal, special=special)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_planners_agree(problem):
    statuses = {}
    for planner in ["search", "sat", "cpsat"]:
        r = solve(problem, planner, Config(workers=1), Deadline(60))
        assert r.status in (Status.SOLVED, Status.UNSOLVABLE), (planner, r.detail)
        statuses[planner] = r.status
    assert len(set(statuses.values())) == 1, statuses


@settings(max_examples=20, deadline=None)
@given(problems())
def test_sequential_and_parallel_agree(problem):
    from pegsat.encoding.encoder import EncodeOptions
    got = {solve(problem, "sat", Config(encode=EncodeOptions(steps=s)), Deadline(60)).status
           for s in ["parallel", "sequential"]}
    assert len(got) == 1
