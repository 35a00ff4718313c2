"""ASCII drawings of boards and positions (``o`` peg, ``.`` empty, ``@`` the special peg)."""

from __future__ import annotations

from ..model.board import Board
from ..model.problem import holes_of


def render(board: Board, pos: int | None = None, special: int | None = None, labels: bool = False) -> str:
    """Draw ``pos`` (default: every hole full). ``labels`` draws hole names instead."""
    if pos is None:
        pos = board.full
    if board.coords is None:
        pegs = " ".join(board.names[h] for h in holes_of(pos))
        return f"pegs: {pegs or '(none)'}"

    def mark(h: int) -> str:
        if labels:
            return board.names[h]
        if h == special:
            return "@"
        return "o" if pos >> h & 1 else "."

    # Square and graph coordinates are one column per hole; triangular ones already skip
    # every other column. Each hole gets ``width`` characters plus a space.
    width = max(len(board.names[h]) for h in range(board.n)) if labels else 1
    step = (width + 2) // 2 if board.lattice == "triangular" else width + 1
    grid: dict[int, dict[int, str]] = {}
    for h, (r, c) in enumerate(board.coords):
        grid.setdefault(r, {})[c * step] = mark(h)
    out = []
    for r in range(min(grid), max(grid) + 1):
        text = ""
        for at, m in sorted(grid.get(r, {}).items()):
            text = text.ljust(at) + m
        out.append(text.rstrip())
    return "\n".join(out)


def board_text(board: Board, labels: bool = True) -> list[str]:
    """What ``pegsat show`` prints: counts, the drawing, the hole names (or the lines)."""
    out = [f"{board.name}: {board.summary()}", render(board)]
    if labels and board.coords is not None:
        out += ["", render(board, labels=True)]
    if board.coords is None:
        out.append("lines: " + " ".join("-".join(board.names[h] for h in ln) for ln in board.lines))
    return out
