"""Checking a plan someone wrote: read it in its notation, replay it with the verifier."""

from __future__ import annotations

from ..engine.bitboard import Replay, replay
from ..formats.notation import parse_plan
from .pose import Posed


def verify(posed: Posed, text: str, notation: str = "auto", partial: bool = False) -> Replay:
    """The replayed plan; a PlanError names the first bad step, a NotationError bad text.
    ``partial``: a game so far, which need not reach the goal."""
    return replay(posed.problem, parse_plan(posed.problem.board, text, notation, posed.task), partial)
