"""``search``: depth-first search with a dead-position table, in the compiled core.

The method of the classic brute-force solvers (``engine.dfs``), with what the larger boards
need on top:

- **pagodas**: before searching, integer pagodas for the problem's goal are learned by LP
  from randomly played positions (``analysis.pagoda.learn``); the core ends a branch whose
  weight falls below a pagoda's floor. On a goal of one peg anywhere they are weighed against
  each survivor the position classes allow (``analysis.pagoda.survivors_of``): a branch ends
  when every survivor is ruled out, each by some pagoda.
- **a quick descent**, **restarts, lanes and a portfolio** of threads sharing one dead table
  (``planners.game``, ``engine.drive``);
- **turns** on boards of more than ``analysis.games.SPLIT_ABOVE`` holes (``planners.turns``):
  the open goal itself, each class-compatible survivor, each game's time-reversed game and a
  beam, every one in turn, longer each round, each keeping its dead table and pagodas;
- **regions first** on boards of more than ``LOCAL_ABOVE`` holes whose goal fixes only some
  holes (``model.region``): the search runs on the holes within distance 1, 2, ... of the
  goal (at most 128, so in the compiled core), and a region's plan is the board's.

A special peg, or a board of more than 128 holes, goes to the pure-Python reference
(``engine.reference.depth_first``). Current figures (diamond e1 -> one peg refuted, the German
and diamond surveys): ``bench/engine.py``.
"""

from __future__ import annotations

import time

from ..analysis import games
from ..deadline import Deadline
from ..engine.kernel import MAX_HOLES
from ..model import region
from ..model.problem import Problem
from ..model.result import Result, Stats, Status
from . import game, turns
from .config import Config, any_problem

NAME = "search"
OPTIMAL = False  # its plans are not proven to have the fewest moves
supports = any_problem

LOCAL_ABOVE = 64  # holes: bigger boards with a partial goal try regions first
LOCAL_SLICE = 30.0  # seconds per region when there is no time limit


def covers_open_goal(problem: Problem) -> bool:
    """One search covers every survivor at once: no split needed."""
    return True


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    """Regions first where they apply, turns on large boards, else one game searched whole."""
    if problem.board.n > LOCAL_ABOVE and region.applies(problem):
        found = _local(problem, deadline, config)
        if found is not None:
            return found
    if games.large(problem) and problem.board.n <= MAX_HOLES and problem.special is None:
        planned = turns.plan_turns(problem)
        if planned is not None:
            return turns.in_turns(problem, *planned, deadline, config)
    return game.whole(problem, deadline, config)


def _local(problem: Problem, deadline: Deadline, config: Config) -> Result | None:
    """A plan found on a region around the goal, lifted to the board; or None (then the
    whole board is searched: a region's "unsolvable" says nothing about the board)."""
    t0 = time.perf_counter()
    tried = 0
    for reg in region.regions(problem, MAX_HOLES):
        left = deadline.remaining()
        if left is not None and left <= 0:
            return None
        r = game.whole(reg.problem, deadline.share(1 / 3, LOCAL_SLICE), config)
        tried += 1
        if r.status is Status.SOLVED and r.plan is not None:
            stats: Stats = {**r.stats, "region_radius": reg.radius, "region_holes": reg.problem.board.n,
                     "regions_tried": tried, "solve_s": round(time.perf_counter() - t0, 3)}
            return Result(Status.SOLVED, problem, NAME, plan=reg.lift(r.plan, problem.board), stats=stats,
                          detail=f"plan found on the {reg.problem.board.n} holes within "
                          f"{reg.radius} steps of the goal")
    return None
