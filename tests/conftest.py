from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"
SHARED = ROOT.parent / "shared"


@pytest.fixture
def instances() -> Path:
    return INSTANCES
