"""Solving a problem: cheap proofs first, open goals split, every plan verified.

The pipeline, cheapest first:

1. the planner refuses what it does not support (``supports``), before any work;
2. the start already satisfies the goal: the empty plan;
3. the cheap proofs (``proofs.cheap``): counting, position classes, a pagoda function;
4. a one-peg goal that leaves the survivor's hole open is split into one fixed-goal
   subproblem per possible survivor, one per orbit of the symmetries fixing the start (a
   SAT solver given "one peg anywhere" on the English board did not finish in 5 minutes,
   the same game with the hole fixed takes a fraction of a second), vacated holes first,
   each with its own cheap proofs; planners that search the open goal whole skip this;
5. the chosen backend on each subproblem, under the one deadline.

Whatever a backend returns is replayed by the verifier before it leaves this module; a plan
that does not replay becomes an ERROR result, never a solution.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from ..analysis import games
from ..deadline import Deadline
from ..engine.bitboard import replay_plan
from ..errors import PlanError
from ..model.problem import Problem
from ..model.result import Proof, Result, Stats, Status
from ..planners import get_planner, refusal
from ..planners.config import Backend, Config
from ..proofs.cheap import cheap_proofs


def solve(problem: Problem, planner: str = "auto", config: Config | None = None,
          deadline: Deadline | None = None) -> Result:
    """Solve ``problem`` with ``planner``: cheap proofs first, the open goal split where needed, every plan
    replayed before it is returned."""
    t0 = time.perf_counter()
    backend = get_planner(planner)
    try:
        result = _solve(problem, backend, deadline or Deadline(), config or Config())
    except MemoryError:  # the system refused memory: a limit reached, so "unknown"
        result = Result(Status.UNKNOWN, problem, backend.NAME, detail="out of memory")
    result = _verified(result, problem)
    return replace(result, stats={**result.stats, "total_s": time.perf_counter() - t0})


def _solve(problem: Problem, backend: Backend, deadline: Deadline, config: Config) -> Result:
    refused = refusal(backend, problem)
    if refused is not None:
        return refused
    if 0 in problem.horizons and problem.goal.satisfied(problem.start):
        status = Status.SOLVED_OPTIMAL if backend.OPTIMAL else Status.SOLVED
        return Result(status, problem, backend.NAME, plan=(), lower_bound=0 if backend.OPTIMAL else None,
                      detail="the start satisfies the goal")
    cheap = cheap_proofs(problem)
    if cheap is not None:
        return replace(cheap, planner=backend.NAME)
    survivors = games.split(problem)
    # a level search on disk from the start takes the open goal whole, in its one directory
    whole = config.disk is not None and config.disk.first
    if survivors is not None and not backend.covers_open_goal(problem) and not whole:
        return _split_survivors(survivors, backend, deadline, config)
    return backend.solve(problem, deadline, config)


def _split_survivors(split: games.Split, backend: Backend, deadline: Deadline, config: Config) -> Result:
    problem = split.problem
    board, name = problem.board, backend.NAME
    totals: Stats = {"encode_s": 0.0, "solve_s": 0.0, "subproblems": 0}
    unknown, refuted = [], []
    for h in split.survivors:
        (game,) = split.games(h, both=False)
        # a level search on disk per survivor, each in its own directory
        mine = config if config.disk is None else replace(config, disk=config.disk.within(board.slugs[h]))
        r = cheap_proofs(game.problem) or backend.solve(game.problem, deadline, mine)
        totals["subproblems"] += 1
        totals["encode_s"] += r.stats.get("encode_s", 0.0)
        totals["solve_s"] += r.stats.get("solve_s", 0.0)
        if r.status.solved:
            totals["survivor"] = board.names[h]
            return game.lift_result(r, problem, **totals)
        if r.status is Status.UNSOLVABLE:
            refuted.append(board.names[h])
        elif r.status is Status.ERROR:
            return game.lift_result(r, problem, **totals)
        else:
            unknown.append(board.names[h])
    if unknown:
        return Result(Status.UNKNOWN, problem, name, stats=totals,
                      detail=f"survivor undecided at {' '.join(unknown)} (time limit)"
                      + (f"; refuted {' '.join(refuted)}" if refuted else ""))
    return Result(Status.UNSOLVABLE, problem, name, proof=Proof.SPLIT, stats=totals,
                  detail=f"{len(split.ruled_out)} holes ruled out by position classes; survivors "
                  f"{' '.join(refuted)} (up to symmetry) refuted by {name}")


def _verified(result: Result, problem: Problem) -> Result:
    """``result`` with its plan replayed on ``problem`` and its moves counted there; a plan that
    does not replay, or a result about another problem (every planner states its answer on the
    problem it was given, and ``analysis.games`` lifts a game's), is an error."""
    if result.problem != problem:
        return Result(Status.ERROR, problem, result.planner, stats=result.stats,
                      detail=f"{result.planner} answered another problem: {result.problem.describe()}")
    if result.plan is None:
        return result
    try:
        rep = replay_plan(problem, result.plan)
    except PlanError as exc:
        return Result(Status.ERROR, problem, result.planner, stats=result.stats,
                      detail=f"{result.planner} returned a plan that does not replay: {exc}")
    return replace(result, moves=rep.moves)


def certify_fewest(result: Result, path: str | Path, deadline: Deadline | None = None) -> Result:
    """``result`` (of a search for the fewest moves) with the ``moves`` certificate of its
    plan's moves written at ``path`` (``proofs.prove.prove_moves``: the search by moves again,
    bounded by the plan, in memory; its levels checked by the independent checker before they
    are written), or with its detail saying why none was written (nothing is then)."""
    from ..proofs.prove import prove_moves

    if result.status is not Status.SOLVED_OPTIMAL or result.plan is None:
        why = ("'pegsat prove' writes certificates of unsolvability" if result.status is Status.UNSOLVABLE
               else "only the fewest moves of a plan are certified")
        return replace(result, detail=f"{result.detail}; no certificate written: {why}")
    got = prove_moves(result.problem, result.plan, deadline, certificate_path=path)
    if got.status is Status.SOLVED_OPTIMAL and got.certificate is not None:
        return replace(result, certificate=got.certificate,
                       detail=f"{result.detail}; certificate: {path} (pegsat check {path})")
    return replace(result, detail=f"{result.detail}; no certificate written: {got.detail}")
