"""The kinds that hold other certificates: ``split`` (a one-peg goal refuted survivor by
survivor) and ``reversed`` (the time-reversed game refuted). Each held certificate is of a
plain kind, about the game it must be about, and checked as on its own (``Context.held``)."""

from __future__ import annotations

from ..analysis.invariants import check_witness, odd_line
from ..model.problem import Goal, Problem, dual, holes_of
from .evidence import Context
from .verdict import Verdict, holds, rejected


def check_reversed(problem: Problem, ev: dict, ctx: Context) -> Verdict:
    """A ``reversed`` certificate: the time-reversed game's certificate, checked as on its own."""
    game = dual(problem)
    v = ctx.held(ev["certificate"], game, "the time-reversed game")
    if not v.ok or game is None:  # no time-reversed game: ``held`` rejects it
        return v
    return holds(f"the time-reversed game ({game.describe()}) refuted by {v.kind}: {v.message}; "
                 "a game is solvable exactly when its time-reversed game is")


def check_split(problem: Problem, ev: dict, ctx: Context) -> Verdict:
    """A ``split`` certificate: every survivor the goal allows ruled out, refuted, or the image of a refuted
    one."""
    board, g = problem.board, problem.goal
    if g.full or g.fixed_count != 1:
        return rejected("a split certificate needs a one-peg goal")
    index = {h: i for i, h in enumerate(board.names)}
    allowed = holes_of(board.full & ~g.empty)
    ruled: set[int] = set()
    for item in ev["ruled_out"]:
        h = index[item["target"]]
        w = sum(1 << index[x] for x in set(item["holes"]))
        if odd_line(board, w) is not None:
            return rejected(f"the weighting ruling out {item['target']} is odd on a line")
        if not check_witness(board, problem.start, 1 << h, w):
            return rejected(f"the weighting for {item['target']} has the same parity at start and survivor")
        ruled.add(h)
    refuted: dict[int, str] = {}
    for part in ev["survivors"]:
        name, sub = part["survivor"], part["certificate"]
        h = index[name]
        if h not in allowed:
            return rejected(f"{name} is not a survivor the goal allows")
        game = Problem(board, problem.start, Goal.survivor(board, h))
        how = "time-reversed game" if part["reversed"] else "game"
        v = ctx.held(sub, dual(game) if part["reversed"] else game, f"the {how} with survivor {name}")
        if not v.ok:
            return v
        routes = f" ({v.routes})" if v.routes else ""
        refuted[h] = sub["kind"] + routes + (" on the time-reversed game" if part["reversed"] else "")
    jumps = set(board.jumps)
    autos = [p for p in board.symmetries
             if all((p[a], p[b], p[c]) in jumps for a, b, c in board.jumps)
             and all(problem.start >> h & 1 == problem.start >> p[h] & 1 for h in range(board.n))
             and all(g.empty >> h & 1 == g.empty >> p[h] & 1 for h in range(board.n))]
    images = 0
    for h in allowed:
        if h in ruled or h in refuted:
            continue
        if not any(p[r] == h for p in autos for r in refuted):
            return rejected(f"survivor {board.names[h]} is neither ruled out nor refuted")
        images += 1
    said = ", ".join(f"{board.names[h]} by {how}" for h, how in sorted(refuted.items()))
    return holds(f"{len(ruled)} survivors ruled out by position classes; refuted: {said}; {images} more "
            "as their images under symmetries of the start; a time-reversed game is solvable "
            "exactly when its game is")
