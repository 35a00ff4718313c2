"""Boards from ASCII drawings on a lattice, and hole naming.

Square lattices use one character per column and lines along rows and columns (plus both
diagonals for ``square+diagonal``). Triangular lattices are drawn with holes on alternate
character columns, each row offset by one from the next::

        o
       o o
      o o o

so the three line directions are (0, 2), (1, 1) and (1, -1) in (row, column) characters.

Names follow the usual notations: on square boards a column letter (a = leftmost column
holding a hole) and a row number (1 = top row), so the English centre is d4; on triangular
boards George Bell's names, row r (1 = apex) holding a r, b r, ... from the left. Boards
wider than 26 columns are named ``r<row>c<col>``.
"""

from __future__ import annotations

from ..errors import BoardError
from .board import Board

#: Characters that mark a hole. In start drawings a ``.`` is an empty hole, the rest hold pegs.
PEG_MARKS = frozenset("oO*x@")
EMPTY_MARK = "."
HOLE_MARKS = PEG_MARKS | {EMPTY_MARK}
#: Characters that mark "no hole here".
GAP_MARKS = frozenset(" -_")

DIRECTIONS = {
    "square": ((0, 1), (1, 0)),
    "square+diagonal": ((0, 1), (1, 0), (1, 1), (1, -1)),
    "triangular": ((0, 2), (1, 1), (1, -1)),
}


def parse_cells(
    rows: list[str], *, source: str = "<drawing>", linenos: list[int] | None = None
) -> list[tuple[int, int, str]]:
    """The ``(row, col, mark)`` of every hole in a drawing; unknown marks are errors."""
    cells = []
    linenos = linenos or list(range(1, len(rows) + 1))
    for r, text in enumerate(rows):
        for c, ch in enumerate(text.rstrip()):
            if ch in HOLE_MARKS:
                cells.append((r, c, ch))
            elif ch not in GAP_MARKS:
                raise BoardError(
                    f"{source}:{linenos[r]}: unknown mark {ch!r} at column {c + 1} "
                    f"(holes: {''.join(sorted(HOLE_MARKS))}, no hole: space - _)"
                )
    return cells


def board_from_cells(
    name: str,
    lattice: str,
    cells: list[tuple[int, int]],
    *,
    source: str = "<drawing>",
    linenos: list[int] | None = None,
) -> Board:
    """Build a lattice board from hole coordinates, naming holes by the board's notation."""
    if lattice not in DIRECTIONS:
        raise BoardError(f"{source}: unknown lattice {lattice!r} (square, square+diagonal, triangular)")
    if not cells:
        raise BoardError(f"{source}: the drawing has no hole")
    if len(set(cells)) != len(cells):
        raise BoardError(f"{source}: duplicate holes")
    if lattice == "triangular":
        parity = (cells[0][0] + cells[0][1]) % 2
        for r, c in cells:
            if (r + c) % 2 != parity:
                raise BoardError(
                    f"{source}:{linenos[r] if linenos else r + 1}: hole at column {c + 1} "
                    "is off the triangular "
                    "lattice (each row must be offset by one column from the row above)"
                )
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    cells = sorted(((r - r0, c - c0) for r, c in cells))
    where = {rc: i for i, rc in enumerate(cells)}
    lines = []
    for (r, c), a in where.items():
        for dr, dc in DIRECTIONS[lattice]:
            b = where.get((r + dr, c + dc))
            cc = where.get((r + 2 * dr, c + 2 * dc))
            if b is not None and cc is not None:
                lines.append((a, b, cc))
    if not lines:
        raise BoardError(f"{source}: the board has no jump at all (no three holes in a row)")
    return Board(name=name, lattice=lattice, names=hole_names(lattice, cells), lines=tuple(lines),
                 coords=tuple(cells))


def hole_names(lattice: str, cells: list[tuple[int, int]]) -> tuple[str, ...]:
    """Column letter and row number for each cell of a lattice."""
    rows = sorted({r for r, _ in cells})
    row_no = {r: i + 1 for i, r in enumerate(rows)}
    if lattice == "triangular":
        by_row: dict[int, list[int]] = {}
        for r, c in cells:
            by_row.setdefault(r, []).append(c)
        if max(len(v) for v in by_row.values()) > 26:
            return tuple(f"r{row_no[r]}c{sorted(by_row[r]).index(c) + 1}" for r, c in cells)
        return tuple(f"{chr(97 + sorted(by_row[r]).index(c))}{row_no[r]}" for r, c in cells)
    width = max(c for _, c in cells) + 1
    if width > 26:
        return tuple(f"r{r + 1}c{c + 1}" for r, c in cells)
    return tuple(f"{chr(97 + c)}{r + 1}" for r, c in cells)
