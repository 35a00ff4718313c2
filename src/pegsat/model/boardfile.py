"""User boards from text files, and resolving a board argument (catalogue name or file).

Two formats; the first non-comment line names the kind (``#`` starts a comment):

Lattice drawing (``square``, ``square+diagonal`` or ``triangular``), then the rows::

    square
      ooo
      ooo
    ooooooo

Any of ``o O * x @ .`` marks a hole; a space, ``-`` or ``_`` marks no hole. ``#`` starts a
comment; lines holding only a comment are not rows of the drawing.

Graph (anything else), holes with optional ``row col`` coordinates, then lines as triples
with the middle hole in the middle::

    graph
    hole 1 0 0
    hole 2 0 2
    hole 3 0 4
    line 1 2 3
"""

from __future__ import annotations

from pathlib import Path

from ..errors import BoardError
from ..files import read_text
from .board import Board
from .catalogue import get_board
from .lattice import DIRECTIONS, board_from_cells, parse_cells


def load_board(spec: str) -> Board:
    """A catalogue name, or a path to a board file."""
    p = Path(spec)
    if p.suffix in (".txt", ".board") or p.exists() and p.is_file():
        return read_board_file(p)
    return get_board(spec)


def read_board_file(path: Path) -> Board:
    """A board from a board file."""
    return parse_board_text(read_text(path, "board file", BoardError), source=str(path), name=path.stem)


def parse_board_text(text: str, *, source: str = "<board>", name: str = "custom") -> Board:
    """A board from a board file's text."""
    lines = text.split("\n")
    header_at = None
    for i, raw in enumerate(lines):
        if raw.split("#", 1)[0].strip():
            header_at = i
            break
    if header_at is None:
        raise BoardError(f"{source}: empty board file")
    kind = lines[header_at].split("#", 1)[0].strip()
    body = lines[header_at + 1 :]
    if kind == "graph":
        return _parse_graph(body, source=source, name=name, first_line=header_at + 2)
    if kind not in DIRECTIONS:
        raise BoardError(
            f"{source}:{header_at + 1}: first line must name the kind: "
            f"{', '.join(DIRECTIONS)} or graph (got {kind!r})"
        )
    rows = [
        (header_at + 2 + i, raw.split("#", 1)[0])
        for i, raw in enumerate(body)
        if not raw.lstrip().startswith("#")
    ]
    while rows and not rows[-1][1].strip():
        rows.pop()
    while rows and not rows[0][1].strip():
        rows.pop(0)
    texts = [t for _, t in rows]
    linenos = [n for n, _ in rows]
    cells = parse_cells(texts, source=source, linenos=linenos)
    return board_from_cells(name, kind, [(r, c) for r, c, _ in cells], source=source, linenos=linenos)


def _parse_graph(body: list[str], *, source: str, name: str, first_line: int) -> Board:
    names: list[str] = []
    coords: list[tuple[int, int]] = []
    index: dict[str, int] = {}
    triples: list[tuple[int, int, int]] = []
    for offset, raw in enumerate(body):
        lineno = first_line + offset
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{source}:{lineno}"
        if words[0] == "hole":
            if len(words) not in (2, 4):
                raise BoardError(f"{where}: expected 'hole NAME [ROW COL]'")
            nm = words[1]
            if nm in index:
                raise BoardError(f"{where}: duplicate hole {nm!r}")
            if "-" in nm:
                raise BoardError(f"{where}: hole name {nm!r} may not contain '-'")
            index[nm] = len(names)
            names.append(nm)
            if len(words) == 4:
                try:
                    coords.append((int(words[2]), int(words[3])))
                except ValueError:
                    raise BoardError(f"{where}: coordinates must be integers") from None
        elif words[0] == "line":
            if len(words) != 4:
                raise BoardError(f"{where}: expected 'line A B C' (B is the middle hole)")
            ids = []
            for w in words[1:]:
                if w not in index:
                    raise BoardError(f"{where}: line names unknown hole {w!r}")
                ids.append(index[w])
            if len(set(ids)) != 3:
                raise BoardError(f"{where}: a line needs three different holes")
            triples.append((ids[0], ids[1], ids[2]))
        else:
            raise BoardError(f"{where}: expected 'hole ...' or 'line ...', got {words[0]!r}")
    if not names:
        raise BoardError(f"{source}: the board has no hole")
    if not triples:
        raise BoardError(f"{source}: the board has no jump at all (no 'line' entries)")
    if coords and len(coords) != len(names):
        raise BoardError(f"{source}: give coordinates for every hole or for none")
    if coords and len(set(coords)) != len(coords):
        raise BoardError(f"{source}: two holes share coordinates")
    return Board(name, "graph", tuple(names), tuple(triples), tuple(coords) if coords else None)
