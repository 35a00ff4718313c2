"""How a problem is posed on a board: one start form, one goal form, the special peg.

The same nine options come from the command line (``--vacant d4 --survivor d1``), from a
batch job line (the same words) and from a problem file's ``[start]``/``[goal]`` tables.
They are declared once, here, as the fields of ``ProblemOptions``: each field's metadata
names its group, its TOML key, its command-line help and whether it counts pegs. The CLI
options and the batch syntax are generated from this list.

Values are checked at the edge: a hole list is a string of names or ids or a list of them;
a peg count is an integer of at least 1 (not a boolean, not a float). Anything else is a
``ProblemError`` naming the key and what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from ..errors import ProblemError
from ..files import clip
from .board import Board, parse_holes
from .lattice import EMPTY_MARK, PEG_MARKS
from .problem import Goal, Problem, bits, default_vacancy


def _opt(group: str, key: str, help: str = "", kind: str = "holes", cli: bool = True) -> dict:
    return {"group": group, "key": key, "help": help, "kind": kind, "cli": cli}


@dataclass(frozen=True)
class ProblemOptions:
    """Problem options as the user wrote them (hole names or ids; unset fields are None)."""

    vacant: Any = field(default=None, metadata=_opt(
        "start", "vacant", "Start: full board minus these holes (default: the centre)."))
    start: Any = field(default=None, metadata=_opt("start", "pegs", "Start: pegs exactly on these holes."))
    start_drawing: Any = field(default=None, metadata=_opt("start", "drawing", kind="drawing", cli=False))
    survivor: Any = field(default=None, metadata=_opt("goal", "survivor", "Goal: one peg, on this hole."))
    pegs: Any = field(default=None, metadata=_opt("goal", "pegs", "Goal: this many pegs, anywhere.",
                                                  kind="count"))
    at_most: Any = field(default=None, metadata=_opt("goal", "at_most", "Goal: at most this many pegs.",
                                                     kind="count"))
    pattern: Any = field(default=None, metadata=_opt("goal", "pattern", "Goal: pegs on exactly these holes."))
    goal_drawing: Any = field(default=None, metadata=_opt("goal", "drawing", kind="drawing", cli=False))
    full: Any = field(default=None, metadata=_opt(
        "goal", "full", "Goal (partial): these holes hold pegs, the rest is free."))
    empty: Any = field(default=None, metadata=_opt("goal", "empty", "Goal (partial): these holes are empty."))
    special: Any = field(default=None, metadata=_opt(
        "special", "special", "Hopping Dots rule: the peg starting here must survive and is never "
        "jumped over."))

    @staticmethod
    def cli_fields() -> list:
        """The fields offered as ``--name`` options (command line and batch jobs)."""
        return [f for f in fields(ProblemOptions) if f.metadata["cli"]]

    def given(self, group: str) -> dict[str, Any]:
        """The options of one group (start, goal, special) that are set."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.metadata["group"] == group and getattr(self, f.name) is not None}

    def overridden_by(self, other: ProblemOptions) -> ProblemOptions:
        """These options with each group (start, goal, special) that ``other`` sets replaced."""
        out = self
        for group in ("start", "goal", "special"):
            mine = other.given(group)
            if mine:
                cleared = {f.name: None for f in fields(self) if f.metadata["group"] == group}
                out = replace(out, **{**cleared, **mine})
        return out

    @classmethod
    def from_pairs(cls, pairs: list[tuple[str, str]], where: str) -> ProblemOptions:
        """``--name value`` pairs as written in a batch job line."""
        known = {f.name.replace("_", "-"): f for f in cls.cli_fields()}
        kw: dict[str, Any] = {}
        for key, value in pairs:
            f = known.get(key)
            if f is None:
                raise ProblemError(f"{where}: unknown option --{key}; use one of "
                                   + ", ".join(f"--{k}" for k in known))
            kw[f.name] = _check(f, value, where)
        return cls(**kw)

    @classmethod
    def from_tables(cls, data: dict[str, Any], where: str) -> ProblemOptions:
        """The ``[start]``, ``[goal]`` tables and ``special`` key of a problem file."""
        kw: dict[str, Any] = {}
        for group in ("start", "goal"):
            table = data.get(group, {})
            if not isinstance(table, dict):
                raise ProblemError(f"{where}: [{group}] must be a table")
            by_key = {f.metadata["key"]: f for f in fields(cls) if f.metadata["group"] == group}
            unknown = sorted(set(table) - set(by_key))
            if unknown:
                raise ProblemError(f"{where}: unknown {group} key(s) {unknown}; use one of {list(by_key)}")
            for key, value in table.items():
                f = by_key[key]
                kw[f.name] = _check(f, value, f"{where}: {group}.{key}")
        if data.get("special") is not None:
            kw["special"] = _check(next(f for f in fields(cls) if f.name == "special"), data["special"],
                                   f"{where}: special")
        return cls(**kw)

    def pose(self, board: Board, name: str = "") -> Problem:
        """The problem these options describe on ``board`` (defaults: centre vacant, one peg)."""
        start = self.given("start")
        if len(start) > 1:
            raise ProblemError("give one start form, not " + " and ".join(sorted(start)))
        if self.start is not None:
            start_pos = bits(parse_holes(board, self.start))
        elif self.start_drawing is not None:
            start_pos = parse_drawing(board, self.start_drawing)
        else:
            holes = [default_vacancy(board)] if self.vacant is None else parse_holes(board, self.vacant)
            start_pos = board.full & ~bits(holes)
        sp = None
        if self.special is not None:
            sp_holes = parse_holes(board, str(self.special))
            if len(sp_holes) != 1:
                raise ProblemError("special names one hole")
            sp = sp_holes[0]
        return Problem(board, start_pos, self._goal(board), special=sp, name=name)

    def _goal(self, board: Board) -> Goal:
        goal = self.given("goal")
        forms = [k for k in goal if k not in ("full", "empty")]
        if len(forms) > 1:
            raise ProblemError("give one goal form, not " + " and ".join(sorted(forms)))
        if forms and ("full" in goal or "empty" in goal):
            raise ProblemError(f"full/empty (a partial pattern) cannot be combined with {forms[0]}")
        if self.survivor is not None:
            holes = parse_holes(board, self.survivor)
            if len(holes) != 1:
                raise ProblemError("survivor names one hole")
            return Goal.survivor(board, holes[0])
        if self.pegs is not None:
            return Goal(min_pegs=self.pegs, max_pegs=self.pegs)
        if self.at_most is not None:
            return Goal.at_most(self.at_most)
        if self.pattern is not None:
            return Goal.pattern(board, bits(parse_holes(board, self.pattern)))
        if self.goal_drawing is not None:
            return Goal.pattern(board, parse_drawing(board, self.goal_drawing))
        if self.full is not None or self.empty is not None:
            full = bits(parse_holes(board, self.full or []))
            empty = bits(parse_holes(board, self.empty or []))
            return Goal(full=full, empty=empty, min_pegs=max(1, full.bit_count()))
        return Goal.one_peg()


def _check(f, value: Any, where: str) -> Any:
    """``value`` in the form field ``f`` takes, or a ProblemError saying what was expected."""
    kind = f.metadata["kind"]
    if kind == "count":
        if isinstance(value, str) and value.strip().lstrip("+").isdigit():
            if len(value) > 18:
                raise ProblemError(f"{where}: {clip(value)} pegs is more than any board holds")
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProblemError(f"{where} must be a whole number of pegs, got {value!r}")
        if value < 1:
            raise ProblemError(f"{where} must be at least 1, got {value}")
        return value
    if kind == "drawing":
        if not isinstance(value, str):
            raise ProblemError(f"{where} must be a drawing (a string), got {type(value).__name__}")
        return value
    if f.name == "special":
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ProblemError(f"{where} must name one hole, got {value!r}")
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
        return tuple(value)
    raise ProblemError(f"{where} must be hole names or ids (a string or a list), got {value!r}")


def parse_drawing(board: Board, text: str) -> int:
    """A position drawn hole by hole in reading order; its marks must match the board's holes."""
    if board.coords is None:
        raise ProblemError(f"board {board.name} has no coordinates: list holes instead of drawing")
    marks = [ch for ch in text if ch in PEG_MARKS or ch == EMPTY_MARK]
    if len(marks) != board.n:
        raise ProblemError(f"the drawing marks {len(marks)} holes but board {board.name} has {board.n}")
    coords = board.coords
    order = sorted(range(board.n), key=lambda h: coords[h])
    return bits(h for h, m in zip(order, marks, strict=True) if m != EMPTY_MARK)
