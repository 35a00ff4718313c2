"""The built-in boards, by name.

Drawings follow the standard references: the English 33-hole and French 37-hole boards, the
45-hole Wiegleb (German) cross, the 41-hole diamond, the 39-hole asymmetric 3-3-2-2 cross
(Bell, "Solving peg solitaire on the asymmetric board"), triangular boards ``triangle-N``
(Bell, "Triangular peg solitaire unlimited"), rectangles ``square-RxC`` and the 13-point
"Hopping Dots" puzzle, whose lines are diagonals as well as rows and columns.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..errors import BoardError
from .board import Board
from .lattice import board_from_cells


def _cross(width: int, arms: tuple[int, int, int, int]) -> list[tuple[int, int]]:
    """A cross ``width`` holes wide with arm lengths (top, left, bottom, right)."""
    top, left, bottom, right = arms
    rows = top + width + bottom
    cols = left + width + right
    return [
        (r, c)
        for r in range(rows)
        for c in range(cols)
        if (left <= c < left + width) or (top <= r < top + width)
    ]


def _french() -> list[tuple[int, int]]:
    widths = (3, 5, 7, 7, 7, 5, 3)
    return [(r, c) for r, w in enumerate(widths) for c in range((7 - w) // 2, (7 + w) // 2)]


def _diamond() -> list[tuple[int, int]]:
    return [(r, c) for r in range(9) for c in range(9) if abs(r - 4) + abs(c - 4) <= 4]


def _triangle(n: int) -> list[tuple[int, int]]:
    return [(r, n - 1 - r + 2 * k) for r in range(n) for k in range(r + 1)]


HOPPING_DOTS_LINES = (
    "1-2-3 1-6-11 3-8-13 11-12-13 1-4-7 2-4-6 2-5-8 3-5-7 6-9-12 7-9-11 8-10-12 7-10-13 "
    "4-7-10 5-7-9 6-7-8 2-7-12"
)
_HOPPING_DOTS_COORDS = {
    1: (0, 0), 2: (0, 2), 3: (0, 4), 4: (1, 1), 5: (1, 3), 6: (2, 0), 7: (2, 2),
    8: (2, 4), 9: (3, 1), 10: (3, 3), 11: (4, 0), 12: (4, 2), 13: (4, 4),
}


def _hopping_dots() -> Board:
    names = tuple(str(i) for i in range(1, 14))
    lines = tuple(
        tuple(int(x) - 1 for x in triple.split("-")) for triple in HOPPING_DOTS_LINES.split()
    )
    coords = tuple(_HOPPING_DOTS_COORDS[i] for i in range(1, 14))
    return Board("hopping-dots", "graph", names, lines, coords)  # type: ignore[arg-type]


_FIXED = {
    "english": lambda: board_from_cells("english", "square", _cross(3, (2, 2, 2, 2))),
    "french": lambda: board_from_cells("french", "square", _french()),
    "german": lambda: board_from_cells("german", "square", _cross(3, (3, 3, 3, 3))),
    "diamond": lambda: board_from_cells("diamond", "square", _diamond()),
    "asymmetric": lambda: board_from_cells("asymmetric", "square", _cross(3, (3, 3, 2, 2))),
    "english-diagonal": lambda: board_from_cells(
        "english-diagonal", "square+diagonal", _cross(3, (2, 2, 2, 2))
    ),
    "hopping-dots": _hopping_dots,
}

#: Names shown by ``pegsat boards``: the fixed boards and a few members of each family.
LISTED = (*_FIXED, "triangle-4", "triangle-5", "triangle-6", "square-4x4", "square-5x5")

_TRIANGLE = re.compile(r"triangle-(\d+)$")
_SQUARE = re.compile(r"square-(\d+)x(\d+)$")


@lru_cache(maxsize=64)
def get_board(name: str) -> Board:
    """The catalogue board called ``name``; a one-line error lists what exists."""
    if name in _FIXED:
        return _FIXED[name]()
    if m := _TRIANGLE.match(name):
        n = int(m.group(1))
        if not 4 <= n <= 40:
            raise BoardError(f"triangle-N needs 4 <= N <= 40, got {name!r}")
        return board_from_cells(name, "triangular", _triangle(n))
    if m := _SQUARE.match(name):
        r, c = int(m.group(1)), int(m.group(2))
        if not (1 <= r <= 40 and 1 <= c <= 40) or max(r, c) < 3:
            raise BoardError(f"square-RxC needs 1 <= R, C <= 40 and a side of at least 3, got {name!r}")
        return board_from_cells(name, "square", [(i, j) for i in range(r) for j in range(c)])
    raise BoardError(
        f"unknown board {name!r}; known: {', '.join(_FIXED)}, triangle-N, square-RxC, "
        "or a board file"
    )


#: Default vacancy where the centroid rule gives none (the asymmetric board's cross centre).
HOME = {"asymmetric": "e5"}


def impostor(board: Board) -> str | None:
    """Why ``board``, named like a catalogue board, is not that board (its holes or lines
    differ), or None: a board of the user's own, named otherwise, is checked by its lines."""
    try:
        known = get_board(board.name)
    except BoardError:
        return None
    if known.names != board.names or known.lines != board.lines:
        return f"the board is called {board.name!r} but its holes and lines are not that board's"
    return None


def is_catalogued(board: Board) -> bool:
    """Whether ``board`` is the catalogue's board of its name."""
    return impostor(board) is None and _known(board.name)


def _known(name: str) -> bool:
    try:
        get_board(name)
    except BoardError:
        return False
    return True
