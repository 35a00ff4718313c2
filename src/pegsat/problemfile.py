"""Problems from TOML files and from command-line options.

A problem file (``instances/*.toml``)::

    name = "English central game"
    board = "english"          # catalogue name, or a board file relative to this file
    [start]                    # one of: vacant = [...], pegs = [...], drawing = '''...'''
    vacant = ["d4"]            # default: the board's centre (else its first hole)
    [goal]                     # one of the forms below; default: one peg anywhere
    survivor = "d4"            # one peg, on this hole
    # pegs = 1                 # this many pegs, anywhere
    # at_most = 3              # at most this many pegs
    # pattern = ["d4", "e4"]   # exactly these holes (or drawing = '''...''')
    # full = ["g4"]            # partial: these full, these empty, the rest free
    # empty = []
    # special = "7"            # top level: the peg starting here must be the survivor

An ``[expect]`` table may record what is known (status, survivors, plans); the loader
ignores it and the regression tests read it.

Drawings list every hole in reading order, ``o`` (or ``* x @ O``) for a peg and ``.`` for
an empty hole, in the board's own layout or as ``pegsat show`` prints it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .board import Board
from .boardfile import load_board
from .errors import PegsatError, ProblemError
from .lattice import EMPTY_MARK, PEG_MARKS
from .notation import parse_holes
from .problem import Goal, Problem, bits, default_vacancy

_START_KEYS = ("vacant", "pegs", "drawing")
_GOAL_KEYS = ("survivor", "pegs", "at_most", "pattern", "drawing", "full", "empty")


def parse_drawing(board: Board, text: str) -> int:
    """A position drawn hole by hole in reading order; its marks must match the board's holes."""
    if board.coords is None:
        raise ProblemError(f"board {board.name} has no coordinates: list holes instead of drawing")
    marks = [ch for ch in text if ch in PEG_MARKS or ch == EMPTY_MARK]
    if len(marks) != board.n:
        raise ProblemError(
            f"the drawing marks {len(marks)} holes but board {board.name} has {board.n}"
        )
    order = sorted(range(board.n), key=lambda h: board.coords[h])
    return bits(h for h, m in zip(order, marks, strict=True) if m != EMPTY_MARK)


@dataclass(frozen=True)
class Options:
    """Problem options as given on the command line (names or ids, as strings)."""

    vacant: str | None = None
    start: str | None = None
    survivor: str | None = None
    pegs: int | None = None
    at_most: int | None = None
    pattern: str | None = None
    full: str | None = None
    empty: str | None = None
    special: str | None = None

    def as_tables(self) -> tuple[dict[str, Any], dict[str, Any], str | None]:
        start: dict[str, Any] = {}
        if self.vacant is not None:
            start["vacant"] = self.vacant
        if self.start is not None:
            start["pegs"] = self.start
        goal: dict[str, Any] = {}
        for key in ("survivor", "pegs", "at_most", "pattern", "full", "empty"):
            val = getattr(self, key)
            if val is not None:
                goal[key] = val
        return start, goal, self.special


def load_problem(spec: str, options: Options | None = None) -> Problem:
    """A problem from a TOML file, or a board (name or file) with default start and goal;
    command-line options override the file's tables."""
    options = options or Options()
    o_start, o_goal, o_special = options.as_tables()
    if spec.endswith(".pddl"):
        from .pddl import read_problem

        if o_start or o_goal or o_special:
            raise ProblemError(f"{spec}: a PDDL problem fixes its start and goal; drop the options")
        domain = Path(spec).parent / "domain.pddl"
        return read_problem(spec, domain if domain.is_file() else None)
    if spec.endswith(".toml"):
        path = Path(spec)
        try:
            data = tomllib.loads(path.read_text())
        except OSError as exc:
            raise ProblemError(f"{spec}: cannot read problem file ({exc.strerror})") from None
        except tomllib.TOMLDecodeError as exc:
            raise ProblemError(f"{spec}: not valid TOML ({exc})") from None
        if "board" not in data:
            raise ProblemError(f"{spec}: no 'board' key")
        board_spec = str(data["board"])
        if (path.parent / board_spec).is_file():
            board_spec = str(path.parent / board_spec)
        try:
            return build_problem(
                load_board(board_spec),
                o_start or data.get("start", {}),
                o_goal or data.get("goal", {}),
                o_special or data.get("special"),
                name=str(data.get("name", path.stem)),
            )
        except PegsatError as exc:
            raise type(exc)(f"{spec}: {exc}") from None
    return build_problem(load_board(spec), o_start, o_goal, o_special, name="")


def _one(table: dict[str, Any], allowed: tuple[str, ...], what: str, extra: tuple[str, ...] = ()) -> None:
    unknown = set(table) - set(allowed) - set(extra)
    if unknown:
        raise ProblemError(f"unknown {what} key(s) {sorted(unknown)}; use one of {list(allowed)}")


def build_problem(
    board: Board,
    start: dict[str, Any],
    goal: dict[str, Any],
    special: str | None,
    name: str = "",
) -> Problem:
    _one(start, _START_KEYS, "start")
    _one(goal, _GOAL_KEYS, "goal")
    if len(start) > 1:
        raise ProblemError(f"give one start form, not {sorted(start)}")
    if "pegs" in start:
        start_pos = bits(parse_holes(board, start["pegs"]))
    elif "drawing" in start:
        start_pos = parse_drawing(board, start["drawing"])
    else:
        vac = start.get("vacant")
        holes = [default_vacancy(board)] if vac is None else parse_holes(board, vac)
        start_pos = board.full & ~bits(holes)
    g = _goal(board, goal)
    sp = None
    if special is not None:
        sp_holes = parse_holes(board, str(special))
        if len(sp_holes) != 1:
            raise ProblemError("special names one hole")
        sp = sp_holes[0]
    return Problem(board, start_pos, g, special=sp, name=name)


def _goal(board: Board, goal: dict[str, Any]) -> Goal:
    forms = [k for k in goal if k not in ("full", "empty")]
    if len(forms) > 1:
        raise ProblemError(f"give one goal form, not {sorted(forms)}")
    if forms and ("full" in goal or "empty" in goal):
        raise ProblemError("full/empty (a partial pattern) cannot be combined with " + forms[0])

    def count(key: str) -> int:
        try:
            k = int(goal[key])
        except (TypeError, ValueError):
            raise ProblemError(f"goal {key} must be an integer, got {goal[key]!r}") from None
        if k < 1:
            raise ProblemError(f"goal {key} must be at least 1")
        return k

    if "survivor" in goal:
        holes = parse_holes(board, str(goal["survivor"]))
        if len(holes) != 1:
            raise ProblemError("survivor names one hole")
        return Goal.survivor(board, holes[0])
    if "pegs" in goal:
        k = count("pegs")
        return Goal(min_pegs=k, max_pegs=k)
    if "at_most" in goal:
        return Goal.at_most(count("at_most"))
    if "pattern" in goal:
        return Goal.pattern(board, bits(parse_holes(board, goal["pattern"])))
    if "drawing" in goal:
        return Goal.pattern(board, parse_drawing(board, goal["drawing"]))
    if "full" in goal or "empty" in goal:
        full = bits(parse_holes(board, goal.get("full", [])))
        empty = bits(parse_holes(board, goal.get("empty", [])))
        return Goal(full=full, empty=empty, min_pegs=max(1, full.bit_count()))
    return Goal.one_peg()
