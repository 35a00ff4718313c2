import heapq
import os
import shutil
from pathlib import Path

import dask
import pytest
from hypothesis import settings

# The property tests draw the same examples every run: a test that could fail by chance is a
# defect, and a case a random draw found is kept as a regression test of its own.
settings.register_profile("pegsat", derandomize=True)
settings.load_profile("pegsat")

# The tests start a Dask cluster dozens of times in one process: its worker processes forked
# from a server that has imported Dask once (0.2 s a cluster, 1.3 s spawned afresh)
dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"
#: the planning competitions' own files (the directory with optimal_costs.tsv and the
#: pegsol-08-strips, ... folders), where ``PEGSAT_IPC_DIR`` names one: tests marked ``ipc``
#: read them and are skipped, with this reason, where it names none
IPC = Path(os.environ.get("PEGSAT_IPC_DIR") or "/nonexistent/pegsat-ipc")
NO_IPC = "PEGSAT_IPC_DIR names no directory of the competitions' PDDL files (.ci/run sets it)"
#: Debian's chromium and its driver, for the pages' tests (None where not installed)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
NO_CHROMIUM = "Debian's chromium and chromium-driver are not installed (.ci/run installs them)"


def chromium(*flags: str):
    """Debian's chromium, headless, driven through its chromedriver, keeping the browser's
    console log (for the tests that read it for errors)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", *flags):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


@pytest.fixture(scope="session")
def _chromium_session():
    """One headless chromium for every page test of this process (each start costs seconds)."""
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip(NO_CHROMIUM)
    driver = chromium("--window-size=900,1000")
    yield driver
    driver.quit()


@pytest.fixture
def browser(_chromium_session):
    """The process's headless chromium on a blank page, its console log read empty: what a
    test reads from it is what its own pages did."""
    _chromium_session.get("about:blank")
    _chromium_session.get_log("browser")
    return _chromium_session


def atlas_cell(driver, page: Path, vacancy: str, survivor: str):
    """An atlas page's box for ``vacancy -> survivor``, opened as a reader would: the vacancy
    picked, the survivor's hole clicked."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(f"file://{page}")
    Select(driver.find_element(By.ID, "vacancy")).select_by_value(vacancy)
    driver.find_element(By.CSS_SELECTOR, f'circle.hole[data-hole="{survivor}"]').click()
    return driver.find_element(By.ID, "cell")


@pytest.fixture(autouse=True)
def quick_disk_beams(monkeypatch):
    """A search on disk's first plan (``planners.moves.first_for_disk``) from in-memory levels
    of at most 2^16 positions and beams of 2,000 and 5,000, not 2^20 and up to a million:
    sized for searches of hours, those took most of the seconds of the tests' small searches
    on disk (the several-widths path stays the one taken)."""
    from pegsat.planners import moves

    monkeypatch.setattr(moves, "WARM", 1 << 16)
    monkeypatch.setattr(moves, "DISK_WIDTHS", (2000, 5000))


@pytest.fixture
def few_partitions(monkeypatch):
    """Partitions of a level on disk as real runs make them (a few): for the tests of how a
    search gets to disk and what it says, not of how its levels are split (a task a
    partition: where test_fewest.py and test_reach.py make them tiny, a small search takes
    seconds of tasks)."""
    from pegsat.engine import spill

    monkeypatch.setattr(spill, "MIN_PART_BYTES", 8 << 20)


@pytest.fixture(scope="session")
def cluster():
    """One two-worker Dask cluster, bound to 127.0.0.1, for the level-search tests that kill
    no worker (a cluster takes seconds to start)."""
    from pegsat.engine.cluster import local_cluster

    with local_cluster(2) as c:  # as the planners start one
        yield c.scheduler_address


def pytest_collection_modifyitems(config, items):
    if not IPC.is_dir():
        skip = pytest.mark.skip(reason=NO_IPC)
        for item in items:
            if "ipc" in item.keywords:
                item.add_marker(skip)


# Problems of the competitions, stated as facts and written by pegsat's own exporter, so the
# default run needs no file from elsewhere (tests marked ``ipc`` compare them with the files).
#: IPC 2008 pegsol p10 and p29 (English board, goal one peg at d4); p10's optimal cost is 6
#: moves (the competition's optimal_costs.tsv: Fast Downward A*+LM-cut and SymK agree)
IPC_FACTS = {
    "p10": "c1 d1 c2 d2 c3 d3 b4 e4 f4 c5 d5 c6 d6",
    "p29": "vacant c1 a3 c3 a5 c5",
}


def ipc_problem(name: str):
    """The IPC 2008 problem ``name`` as a Problem (see IPC_FACTS)."""
    from pegsat.model.catalogue import get_board
    from pegsat.model.problem import Goal, Problem

    b = get_board("english")
    words = IPC_FACTS[name].split()
    holes = sum(1 << b.hole(h) for h in words if h != "vacant")
    start = b.full & ~holes if words[0] == "vacant" else holes
    return Problem(b, start, Goal.survivor(b, b.hole("d4")), name=name)


@pytest.fixture
def ipc08(tmp_path):
    """A directory holding ``domain.pddl`` and ``pNN.pddl`` for IPC_FACTS, as pegsat writes them."""
    from pegsat.formats.pddl import write_pddl

    for name in IPC_FACTS:
        write_pddl(ipc_problem(name), tmp_path / name)
        (tmp_path / name / "problem.pddl").rename(tmp_path / f"{name}.pddl")
        (tmp_path / name / "domain.pddl").replace(tmp_path / "domain.pddl")
        (tmp_path / name).rmdir()
    return tmp_path


def invasion(n: int, reach: int):
    """Conway's soldiers on a narrow board, as the IPC 2016 unsolvability track's "row5"
    problems pose them: an n x n army (the first n columns of ``square-{n}x{n + 5}``), goal a
    peg ``reach`` columns past the army in its middle row. The track's probNN is
    ``invasion(NN, 5)`` (unsolvable: Conway's pagoda argument) and satprobNN
    ``invasion(10 + NN, 4)`` (solvable)."""
    from pegsat.model.catalogue import get_board
    from pegsat.model.problem import Goal, Problem

    b = get_board(f"square-{n}x{n + 5}")
    start = sum(1 << b.hole(f"{chr(97 + c)}{r + 1}") for c in range(n) for r in range(n))
    goal = b.hole(f"{chr(97 + n - 1 + reach)}{(n + 2) // 2}")
    return Problem(b, start, Goal(full=1 << goal), name=f"invasion-{n}")


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
def _no_fsync():
    """The tests' files are scratch: ``os.fsync`` does nothing in the test processes (each call
    waited 5-20 ms on this machine's disk, hundreds of times a run). That pegsat's outputs are
    fsynced, file and directory, is tested with the real call
    (``test_hostile.py::test_a_committed_output_is_fsynced_file_and_directory``); the pegsat
    commands the tests start as processes, and Dask's workers, fsync as a user's do."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "fsync", lambda fd: None)
        yield


@pytest.fixture(scope="session", autouse=True)
def _solvable_set_cache(tmp_path_factory):
    """One cache of solvable sets (apps.hint) for the whole run, both test processes (the
    English central game's takes seconds to make; its files are written atomically, so the
    two processes may share them), and one key signing checkpoints and journals
    (``sealed.user_key``) for each process, never the user's own."""
    saved = {name: os.environ.get(name) for name in ("PEGSAT_CACHE", "PEGSAT_KEY")}
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the run's directory, above each process's own
        cache = tmp_path_factory.getbasetemp().parent / "pegsat-cache"
        cache.mkdir(exist_ok=True)
    else:
        cache = tmp_path_factory.mktemp("pegsat-cache")
    os.environ["PEGSAT_CACHE"] = str(cache)
    os.environ["PEGSAT_KEY"] = str(tmp_path_factory.mktemp("pegsat-key") / "key")
    yield
    for name, old in saved.items():
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def reference_min_moves(problem) -> int | None:
    """Independent check: Dijkstra over (position, hole of the peg that moved last).

    A jump from the hole where the last jump landed continues the move (cost 0); any other
    jump starts a move (cost 1).
    """
    from pegsat.engine.bitboard import engine

    board, eng = problem.board, engine(problem.board)
    best = {(problem.start, -1): 0}
    heap = [(0, problem.start, -1)]
    while heap:
        d, pos, last = heapq.heappop(heap)
        if best.get((pos, last), 1 << 30) < d:
            continue
        if problem.goal.satisfied(pos):
            return d
        for k in eng.legal(pos):
            a, _, c = board.jumps[k]
            nd = d + (a != last)
            key = (eng.apply(pos, k), c)
            if nd < best.get(key, 1 << 30):
                best[key] = nd
                heapq.heappush(heap, (nd, *key))
    return None
