"""SAT, CP-SAT and exhaustive search agree on random small boards, starts and goals
(including the special-peg rule)."""

from conftest import random_problems
from hypothesis import HealthCheck, given, settings

from pegsat.apps.solve import solve
from pegsat.deadline import Deadline
from pegsat.model.result import Status
from pegsat.planners.config import Config


def problems():
    return random_problems((2, 4), (3, 4), special=True)


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
