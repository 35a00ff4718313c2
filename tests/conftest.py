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
