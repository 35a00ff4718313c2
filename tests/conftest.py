from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"
SHARED = ROOT.parent / "shared"


@pytest.fixture
def instances() -> Path:
    return INSTANCES


def load_problem(spec: str, options=None):
    """The problem as the command line poses it (a board, a TOML file, a PDDL file)."""
    from pegsat.apps.pose import pose

    return pose(spec, options).problem


def Options(**kw):  # noqa: N802 - reads like the options dataclass it builds
    from pegsat.model.options import ProblemOptions

    return ProblemOptions(**kw)


def random_problems(rows: tuple[int, int], cols: tuple[int, int], special: bool):
    """A hypothesis strategy: random boards (square, with diagonals, triangular) of about
    ``rows`` x ``cols`` cells, dense random starts (about 70% pegs, one hole empty at least)
    and a goal of one peg, one peg on a given hole, or at most 1-3 pegs; with ``special``,
    sometimes the special-peg rule."""
    from hypothesis import strategies as st

    from pegsat.errors import BoardError
    from pegsat.model.lattice import board_from_cells
    from pegsat.model.problem import Goal, Problem

    @st.composite
    def problems(draw):
        lattice = draw(st.sampled_from(["square", "square+diagonal", "triangular"]))
        r, c = draw(st.integers(*rows)), draw(st.integers(*cols))
        if lattice == "triangular":
            cells = [(i, j) for i in range(r) for j in range(2 * c) if (i + j) % 2 == 0]
        else:
            cells = [(i, j) for i in range(r) for j in range(c)]
        keep = draw(st.lists(st.booleans(), min_size=len(cells), max_size=len(cells)))
        cells = [x for x, k in zip(cells, keep, strict=True) if k or draw(st.booleans())]
        try:
            board = board_from_cells("random", lattice, cells)
        except BoardError:
            cells = [(0, 0), (0, 2), (0, 4)] if lattice == "triangular" else [(0, 0), (0, 1), (0, 2)]
            board = board_from_cells("random", lattice, cells)
        dice = draw(st.lists(st.integers(0, 9), min_size=board.n, max_size=board.n))
        start = sum(1 << h for h, d in enumerate(dice) if d < 7) & ~(1 << draw(st.integers(0, board.n - 1)))
        start = start or 1
        kind = draw(st.sampled_from(["one", "survivor", "at_most"]))
        if kind == "survivor":
            goal = Goal.survivor(board, draw(st.integers(0, board.n - 1)))
        elif kind == "at_most":
            goal = Goal.at_most(draw(st.integers(1, 3)))
        else:
            goal = Goal.one_peg()
        if goal.min_pegs > start.bit_count():
            goal = Goal.at_most(start.bit_count())
        peg = None
        if special and draw(st.booleans()) and goal.fixed_count == 1:
            peg = draw(st.sampled_from([h for h in range(board.n) if start >> h & 1]))
        return Problem(board, start, goal, special=peg)

    return problems()


@pytest.fixture(scope="session", autouse=True)
def _solvable_set_cache(tmp_path_factory):
    """One cache of solvable sets (apps.hint) for the whole run, never the user's own."""
    import os

    old = os.environ.get("PEGSAT_CACHE")
    os.environ["PEGSAT_CACHE"] = str(tmp_path_factory.mktemp("pegsat-cache"))
    yield
    if old is None:
        os.environ.pop("PEGSAT_CACHE", None)
    else:
        os.environ["PEGSAT_CACHE"] = old
