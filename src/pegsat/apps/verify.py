"""Checking a plan someone wrote: read it in its notation, replay it with the verifier."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.bitboard import Replay, replay, replay_plan
from ..formats.notation import parse_plan
from ..model.problem import Problem
from .pose import Posed


def verify(posed: Posed, text: str, notation: str = "auto", partial: bool = False) -> Replay:
    """The replayed plan; a PlanError names the first bad step, a NotationError bad text.
    ``partial``: a game so far, which need not reach the goal."""
    return replay(posed.problem, parse_plan(posed.problem.board, text, notation, posed.task), partial)


def given_plan(problem: Problem, plan: str | Sequence[int], task: Any = None) -> tuple[int, ...]:
    """A plan someone gives as the bound of a search for fewer moves (``Config.upper_plan``):
    text in any notation, or jumps (another result's ``plan``), replayed to the goal; a
    PlanError names its first bad step."""
    if isinstance(plan, str):
        return replay(problem, parse_plan(problem.board, plan, "auto", task)).plan
    return replay_plan(problem, tuple(plan)).plan
