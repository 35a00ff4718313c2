"""Regression instances: every instances/*.toml with an [expect] table."""

import tomllib

import pytest
from conftest import INSTANCES, load_problem

from pegsat.apps.solve import solve
from pegsat.deadline import Deadline
from pegsat.engine.bitboard import replay
from pegsat.errors import PlanError
from pegsat.formats.notation import parse_plan
from pegsat.model.problem import Goal
from pegsat.model.result import Status

CASES = sorted(INSTANCES.glob("*.toml"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_instance(path):
    expect = tomllib.loads(path.read_text()).get("expect", {})
    p = load_problem(str(path))
    r = solve(p, "auto", deadline=Deadline(300))
    assert r.status.value == expect["status"], r.detail
    if "proof" in expect:
        assert r.proof.value == expect["proof"]
    for plan, moves in zip(expect.get("valid", []), expect.get("valid_moves", []), strict=True):
        assert replay(p, parse_plan(p.board, plan)).moves == moves
    for plan, reason in zip(expect.get("invalid", []), expect.get("invalid_reason", []), strict=True):
        with pytest.raises(PlanError, match=reason):
            replay(p, parse_plan(p.board, plan))
    if "survivors" in expect:
        b = p.board
        got = {b.names[h] for h in range(b.n)
               if solve(type(p)(b, p.start, Goal.survivor(b, h)), "auto",
                        deadline=Deadline(120)).status is Status.SOLVED}
        assert got == set(expect["survivors"])
