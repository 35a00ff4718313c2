"""SVG pictures of boards: holes, lines, pegs, and holes coloured by a number.

Hole centres come from the board's coordinates: square lattices one unit per column and row,
triangular ones already in doubled columns (so a row is offset by half a hole), graph boards
as given; a board without coordinates is drawn on a circle. Lines are drawn as faint
segments through their three holes, so diagonal and graph boards read correctly too. Plain
SVG 1.1 written by hand (a few elements): no drawing library is needed for circles and text.
"""

from __future__ import annotations

import math
from html import escape

from ..model.board import Board

UNIT = 44
RADIUS = 15
#: light to dark: how many survivors a vacancy allows (0 = no single-survivor finish at all)
PALETTE = ("#f2f2f2", "#fde0c5", "#facba6", "#f8b58b", "#f59e72", "#f2855d", "#ef6a4c",
           "#e04f39", "#c53a2b", "#a3281f")


def centres(board: Board) -> list[tuple[float, float]]:
    """The centre of each hole in the picture."""
    if board.coords is None:
        n = board.n
        r = max(2.0, n / (2 * math.pi) * 1.2)
        return [(r + r * math.cos(2 * math.pi * h / n), r + r * math.sin(2 * math.pi * h / n))
                for h in range(n)]
    xscale = 0.5 if board.lattice == "triangular" else 1.0
    yscale = math.sqrt(3) / 2 if board.lattice == "triangular" else 1.0
    return [(c * xscale, r * yscale) for r, c in board.coords]


def layout(board: Board, title: str = "", legend: str = "", values: bool = False):
    """(hole centres in pixels, width, height) of the picture ``board_svg`` draws."""
    pts = centres(board)
    xs, ys = [x for x, _ in pts], [y for _, y in pts]
    pad = 1.0
    top = 1.2 if title else 0.6
    width = (max(xs) - min(xs) + 2 * pad) * UNIT
    text_w = max(len(title) * 9.0, len(legend) * 6.5)  # room for the title and legend lines
    shift = max(0.0, (text_w - width) / 2)
    width += 2 * shift
    height = (max(ys) - min(ys) + pad + top + (1.2 if legend or values else 0.6)) * UNIT
    at = [((x - min(xs) + pad) * UNIT + shift, (y - min(ys) + top) * UNIT) for x, y in pts]
    return at, width, height


def board_svg(board: Board, *, values: dict[int, int] | None = None, pegs: int | None = None,
              title: str = "", legend: str = "", labels: bool = True) -> str:
    """The board with optional pegs (a position) and/or hole colours from ``values``."""
    centre, width, height = layout(board, title, legend, values is not None)

    def at(h: int) -> tuple[float, float]:
        return centre[h]

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">',
           '<rect width="100%" height="100%" fill="white"/>']
    if title:
        out.append(f'<text x="{width / 2:.0f}" y="{UNIT * 0.7:.0f}" text-anchor="middle" '
                   f'font-size="16">{escape(title)}</text>')
    for a, _, c in board.lines:
        (x1, y1), (x2, y2) = at(a), at(c)
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                   'stroke="#c8c8c8" stroke-width="2"/>')
    vmax = max(values.values()) if values else 0
    for h in range(board.n):
        x, y = at(h)
        fill = "white"
        if values is not None:
            v = values.get(h, 0)
            darkest = len(PALETTE) - 1
            fill = PALETTE[min(darkest, round(v * darkest / vmax))] if vmax else PALETTE[0]
        out.append(f'<circle class="hole" data-hole="{escape(board.names[h])}" cx="{x:.1f}" cy="{y:.1f}" '
                   f'r="{RADIUS}" fill="{fill}" stroke="#555" stroke-width="1.5"/>')
        if pegs is not None and pegs >> h & 1:
            out.append(f'<circle class="peg" cx="{x:.1f}" cy="{y:.1f}" r="{RADIUS * 0.6:.1f}" fill="#333"/>')
        if values is not None:
            out.append(f'<text x="{x:.1f}" y="{y + 5:.1f}" text-anchor="middle" font-size="13">'
                       f'{values.get(h, 0)}</text>')
        elif labels and pegs is None:
            out.append(f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="10">'
                       f'{escape(board.names[h])}</text>')
    if legend:
        out.append(f'<text x="{width / 2:.0f}" y="{height - UNIT * 0.4:.0f}" text-anchor="middle" '
                   f'font-size="12">{escape(legend)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
