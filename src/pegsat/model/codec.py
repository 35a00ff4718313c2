"""The one Problem <-> JSON codec, used by DIMACS headers and certificates.

A problem is written by hole *names* so that a reader can follow it without pegsat::

    {"name": "", "description": "english: vacancy d4 -> one peg at d4",
     "board": {"name": "english", "lattice": "square", "holes": ["c1", ...],
               "lines": [["c1", "c2", "c3"], ...], "coords": [[0, 2], ...]},
     "start": ["c1", ...], "goal": {"full": ["d4"], "empty": [...], "min_pegs": 1, "max_pegs": 1},
     "special": null}

The board is rebuilt from its holes and lines (the catalogue is not consulted); the
``description`` is for people and is never read back. Files written before this codec (DIMACS
headers by hole ids, with ``names`` for ``holes``) still read: a hole may be named or given by
its id. Every value is type-checked; a damaged description raises ``error`` with one line.
"""

from __future__ import annotations

from typing import Any

from ..errors import PegsatError
from .board import Board
from .problem import Goal, Problem, holes_of


def board_to_json(b: Board) -> dict[str, Any]:
    """A board by hole names: its name, lattice, holes, lines and coordinates."""
    names = b.names
    return {"name": b.name, "lattice": b.lattice, "holes": list(names),
            "lines": [[names[a], names[m], names[c]] for a, m, c in b.lines],
            "coords": [list(c) for c in b.coords] if b.coords is not None else None}


def problem_to_json(problem: Problem) -> dict[str, Any]:
    """The problem by hole names: its board (``board_to_json``), start and goal."""
    b, g = problem.board, problem.goal
    names = b.names
    return {
        "name": problem.name,
        "description": problem.describe(),
        "board": board_to_json(b),
        "start": [names[h] for h in holes_of(problem.start)],
        "goal": {"full": [names[h] for h in holes_of(g.full)],
                 "empty": [names[h] for h in holes_of(g.empty)],
                 "min_pegs": g.min_pegs, "max_pegs": g.max_pegs},
        "special": names[problem.special] if problem.special is not None else None,
    }


class _Bad(Exception):
    pass


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise _Bad(what)


def _int(v: Any, what: str, lo: int = 0) -> int:
    _need(isinstance(v, int) and not isinstance(v, bool) and v >= lo, f"{what} must be an integer >= {lo}")
    return v


def _hole(holes: list[str], index: dict[str, int], x: Any) -> int:
    if isinstance(x, str) and x in index:
        return index[x]
    if isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(holes):
        return x
    raise _Bad(f"{x!r} is not a hole of the board")


def _board(bd: Any) -> Board:
    _need(isinstance(bd, dict), "'board' must be an object")
    holes = bd.get("holes", bd.get("names"))
    _need(isinstance(holes, list) and bool(holes) and all(isinstance(h, str) for h in holes),
          "'board.holes' must be a non-empty list of hole names")
    index = {h: i for i, h in enumerate(holes)}
    lines = bd.get("lines")
    _need(isinstance(lines, list) and all(isinstance(ln, list) and len(ln) == 3 for ln in lines),
          "'board.lines' must be a list of [end, middle, end] triples")
    coords = bd.get("coords")
    if coords is not None:
        _need(isinstance(coords, list) and len(coords) == len(holes) and all(
            isinstance(c, list) and len(c) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                        for x in c) for c in coords),
            "'board.coords' must be a [row, column] pair of integers per hole")
    lattice = bd.get("lattice", "graph")
    _need(isinstance(lattice, str), "'board.lattice' must be a string")
    name = bd.get("name", "board")
    _need(isinstance(name, str), "'board.name' must be a string")
    triples = tuple(tuple(_hole(holes, index, x) for x in ln) for ln in lines)
    return Board(name, lattice, tuple(holes), triples,  # type: ignore[arg-type]
                 tuple(tuple(c) for c in coords) if coords is not None else None)


def board_from_json(data: Any, error: type[PegsatError] = PegsatError) -> Board:
    """The board ``board_to_json`` wrote; anything malformed is one ``error`` line."""
    try:
        return _board(data)
    except _Bad as exc:
        raise error(f"the board description is malformed: {exc}") from None
    except PegsatError as exc:
        raise error(f"the board description is not a valid board: {exc}") from None


def problem_from_json(data: Any, error: type[PegsatError] = PegsatError) -> Problem:
    """The problem ``problem_to_json`` wrote; anything malformed is one ``error`` line."""
    try:
        _need(isinstance(data, dict), "the problem must be an object")
        board = _board(data.get("board"))
        holes = list(board.names)
        index = {h: i for i, h in enumerate(holes)}

        def hole(x: Any) -> int:
            return _hole(holes, index, x)

        def mask(xs: Any, what: str) -> int:
            _need(isinstance(xs, list), f"{what} must be a list of holes")
            return sum(1 << h for h in {hole(x) for x in xs})

        g = data.get("goal")
        _need(isinstance(g, dict), "'goal' must be an object")
        max_pegs = g.get("max_pegs")
        goal = Goal(full=mask(g.get("full"), "'goal.full'"), empty=mask(g.get("empty"), "'goal.empty'"),
                    min_pegs=_int(g.get("min_pegs"), "'goal.min_pegs'", 1),
                    max_pegs=None if max_pegs is None else _int(max_pegs, "'goal.max_pegs'", 1))
        special = data.get("special")
        pname = data.get("name", "")
        _need(isinstance(pname, str), "'name' must be a string")
        return Problem(board, mask(data.get("start"), "'start'"), goal,
                       None if special is None else hole(special), pname)
    except _Bad as exc:
        raise error(f"the problem description is malformed: {exc}") from None
    except PegsatError as exc:
        raise error(f"the problem description is not a valid problem: {exc}") from None
