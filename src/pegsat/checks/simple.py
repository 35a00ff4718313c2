"""The small kinds, each checked exactly in a moment:

``counting``  the goal needs more pegs than the start has, or no jump is legal at the start;
``classes``   GF(2) position classes: weightings even on every line (so the parity of the
              pegs' weight never changes) whose parity differs between the start and the goal
              (one per allowed survivor for a one-peg goal);
``pagoda``    a rational pagoda function (``analysis.pagoda``): no jump increases the pegs'
              weight, and every goal position weighs more than the start (weights are exact
              fractions written as strings, "3/8", checked with ``fractions.Fraction``).
"""

from __future__ import annotations

from fractions import Fraction

from ..analysis import pagoda
from ..analysis.invariants import check_witness, odd_line
from ..files import plural
from ..model.problem import Problem, holes_of
from .evidence import Context
from .verdict import Verdict, holds, rejected


def check_counting(problem: Problem, ev: dict, ctx: Context) -> Verdict:
    """A ``counting`` certificate: too few pegs, or no legal jump at the start."""
    g = problem.goal
    need = max(g.min_pegs, g.full.bit_count())
    if ev["reason"] == "too-few-pegs":
        return (holds(f"the goal needs {need} pegs, the start has {problem.pegs}") if need > problem.pegs
                else rejected("the start has enough pegs"))
    if ev["reason"] == "no-jump":
        legal = [j for j in problem.board.jumps if problem.start >> j[0] & 1 and problem.start >> j[1] & 1
                 and not problem.start >> j[2] & 1]
        if legal:
            return rejected("a jump is legal at the start")
        if g.satisfied(problem.start):
            return rejected("the start already satisfies the goal")
        return holds("no jump is legal at the start and the start is not a goal")
    return rejected(f"unknown counting reason {ev['reason']!r}")


def check_classes(problem: Problem, ev: dict, ctx: Context) -> Verdict:
    """A ``classes`` certificate: each weighting even on every line, its parity differing between start and
    goal."""
    board, g = problem.board, problem.goal
    index = {h: i for i, h in enumerate(board.names)}
    items = ev["weightings"]
    if g.full | g.empty == board.full:
        targets = {"pattern": g.full}
    elif g.fixed_count == 1 and not g.full:
        targets = {board.names[h]: 1 << h for h in holes_of(board.full & ~g.empty)}
    else:
        return rejected("class certificates need an exact pattern or a one-peg goal")
    for name, target in targets.items():
        item = next((it for it in items if it["target"] == name), None)
        if item is None:
            return rejected(f"no weighting for goal {name}")
        w = sum(1 << index[h] for h in set(item["holes"]))
        odd = odd_line(board, w)
        if odd is not None:
            line = "-".join(board.names[h] for h in odd)
            return rejected(f"the weighting for {name} is odd on line {line}")
        if not check_witness(board, problem.start, target, w):
            return rejected(f"the weighting for {name} has the same parity at start and goal")
    return holds(f"{plural(len(targets), 'weighting')}, each even on all {len(board.lines)} lines, "
            "separate start and goal")


def check_pagoda(problem: Problem, ev: dict, ctx: Context) -> Verdict:
    """A ``pagoda`` certificate: checked exactly with fractions (``analysis.pagoda.check``)."""
    index = {h: i for i, h in enumerate(problem.board.names)}
    w = {index[h]: Fraction(v) for h, v in ev["weights"].items()}
    reason = pagoda.check(problem, w)
    if reason:
        return rejected(f"{reason}")
    return holds("no jump increases the weight; the goal outweighs the start "
            f"({len(problem.board.jumps)} jumps checked)")
