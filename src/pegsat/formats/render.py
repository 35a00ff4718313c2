"""Pictures of solutions: strips of small boards, a one-board overview, and a self-contained
HTML page that steps through the plan move by move.

Strip (the default SVG, as the books and Bell's pages draw a solution): one small board per
move, numbered, wrapped in rows: the position before the move, the move's chain as an arrow
from the peg that moves, and the pegs it removes crossed out. ``hint_strip`` draws the same
panels for the legal jumps of a position, each framed green (alive) or red (dead).

Overview SVG (``render --overview``): the start position, every move drawn as an arrow along
its chain of jumps, numbered in play order. HTML: one file, no network; the board is drawn
by a few lines of JavaScript from the embedded data (hole centres, lines, the position after
every move, each move's chain);
buttons first / previous / next / last and the arrow keys step through it; the current move's
chain is drawn as arrows and its peg is highlighted where it lands. ``#step=K`` opens at move
K; ``#selftest`` clicks "next" through to the end and writes the outcome into the page title
(used by the headless-browser test).
"""

from __future__ import annotations

import json
from html import escape

from ..engine.bitboard import replay_plan, split_moves
from ..model.problem import Problem
from .svg import RADIUS, board_svg, layout

ARROW = '<marker id="head" markerWidth="8" markerHeight="8" refX="6" refY="4" orient="auto">' \
        '<path d="M0,0 L8,4 L0,8 z" fill="#1f6fd1"/></marker>'


def plan_svg(problem: Problem, plan) -> str:
    """The start position with every move as a numbered arrow along its chain."""
    board = problem.board
    moves = split_moves(board, plan)
    title = problem.describe()
    legend = f"{len(plan)} jumps in {len(moves)} moves, numbered in play order"
    base = board_svg(board, pegs=problem.start, title=title, legend=legend)
    at, _, _ = layout(board, title, legend)
    extra = [f"<defs>{ARROW}</defs>"]
    for i, move in enumerate(moves, start=1):
        holes = [board.jumps[move[0]][0]] + [board.jumps[k][2] for k in move]
        pts = " ".join(f"{at[h][0]:.1f},{at[h][1]:.1f}" for h in holes)
        extra.append(f'<polyline class="move" points="{pts}" fill="none" stroke="#1f6fd1" '
                     'stroke-width="2.5" stroke-opacity="0.75" marker-end="url(#head)"/>')
        x, y = at[holes[0]]
        extra.append(f'<text x="{x + RADIUS:.1f}" y="{y - RADIUS:.1f}" font-size="11" '
                     f'fill="#1f6fd1">{i}</text>')
    return base.replace("</svg>", "\n".join(extra) + "\n</svg>")


STRIP_SCALE = 0.42  # a strip's boards, against the full-size drawing
PER_ROW = 6
DEAD, ALIVE = "#c0392b", "#1e7b34"


def _panel(board, at, ox: float, oy: float, pos: int, chain: list[int], removed: list[int],
           caption: str, frame: str | None, w: float, h: float) -> list[str]:
    """One small board at (ox, oy): pegs, the chain as an arrow, removed pegs crossed out."""
    r = RADIUS * STRIP_SCALE

    def xy(hole: int) -> tuple[float, float]:
        return ox + at[hole][0] * STRIP_SCALE, oy + at[hole][1] * STRIP_SCALE

    out = ['<g class="panel">', f'<rect x="{ox:.1f}" y="{oy:.1f}" width="{w:.1f}" height="{h:.1f}" '
           f'rx="6" fill="white" stroke="{frame or "#ddd"}" stroke-width="{2.5 if frame else 1}"/>']
    for a, _, c in board.lines:
        (x1, y1), (x2, y2) = xy(a), xy(c)
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#ddd" '
                   'stroke-width="1"/>')
    for hole in range(board.n):
        x, y = xy(hole)
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="white" stroke="#777" '
                   'stroke-width="0.8"/>')
        if pos >> hole & 1:
            fill = "#e0531f" if chain and hole == chain[0] else "#333"
            out.append(f'<circle class="peg" cx="{x:.1f}" cy="{y:.1f}" r="{r * 0.7:.1f}" fill="{fill}"/>')
    for hole in removed:
        x, y = xy(hole)
        d = r * 0.8
        out.append(f'<path class="removed" d="M{x - d:.1f},{y - d:.1f} L{x + d:.1f},{y + d:.1f} '
                   f'M{x - d:.1f},{y + d:.1f} L{x + d:.1f},{y - d:.1f}" stroke="{DEAD}" stroke-width="1.8"/>')
    if chain:
        pts = " ".join(f"{xy(hh)[0]:.1f},{xy(hh)[1]:.1f}" for hh in chain)
        out.append(f'<polyline class="move" points="{pts}" fill="none" stroke="#1f6fd1" stroke-width="2" '
                   'marker-end="url(#head)"/>')
    out.append(f'<text x="{ox + w / 2:.1f}" y="{oy + h - 6:.1f}" text-anchor="middle" font-size="11">'
               f'{escape(caption)}</text>')
    out.append("</g>")
    return out


Panel = tuple[int, list[int], list[int], str, "str | None"]


def strip_svg(board, title: str, panels: list[Panel],
              per_row: int = PER_ROW) -> str:
    """Small boards in rows: each panel is (position, chain of holes, removed holes, caption,
    frame colour or None)."""
    at, width, height = layout(board)
    w, h = width * STRIP_SCALE + 8, height * STRIP_SCALE + 18
    cols = max(1, min(per_row, len(panels)))
    rows = max(1, -(-len(panels) // cols))
    gap, top = 8, 34
    total_w, total_h = cols * (w + gap) + gap, top + rows * (h + gap) + gap
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{total_h:.0f}" '
           f'viewBox="0 0 {total_w:.0f} {total_h:.0f}" font-family="sans-serif">',
           f"<defs>{ARROW}</defs>", '<rect width="100%" height="100%" fill="#fafafa"/>',
           f'<text x="{gap}" y="22" font-size="15">{escape(title)}</text>']
    for i, (pos, chain, removed, caption, frame) in enumerate(panels):
        ox, oy = gap + (i % cols) * (w + gap), top + (i // cols) * (h + gap)
        out += _panel(board, at, ox, oy, pos, chain, removed, caption, frame, w, h)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def plan_strip(problem: Problem, plan, per_row: int = PER_ROW) -> str:
    """The plan as a strip: one numbered small board per move, before the move is played."""
    board = problem.board
    rep = replay_plan(problem, plan)  # only a verified plan is drawn
    panels: list[Panel] = []
    i = 0
    for n, move in enumerate(split_moves(board, plan), start=1):
        chain = [board.jumps[move[0]][0]] + [board.jumps[k][2] for k in move]
        removed = [board.jumps[k][1] for k in move]
        label = "-".join(board.names[hh] for hh in chain)
        panels.append((rep.positions[i], chain, removed, f"{n}. {label}", None))
        i += len(move)
    title = f"{problem.describe()}: {len(plan)} jumps in {len(panels)} moves"
    return strip_svg(board, title, panels, per_row)


def hint_strip(problem: Problem, pos: int, verdicts, title: str, per_row: int = PER_ROW) -> str:
    """One small board per legal jump from ``pos``, framed by its verdict (``apps.hint``)."""
    board = problem.board
    panels: list[Panel] = []
    for v in verdicts:
        a, b, c = board.jumps[v.jump]
        colour = {"alive": ALIVE, "dead": DEAD}.get(v.status, "#999")
        panels.append((pos, [a, c], [b], f"{board.names[a]}-{board.names[c]} {v.status}", colour))
    return strip_svg(board, title, panels, per_row)


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; }}
button {{ font-size: 1em; margin-right: .3em; }}
#status {{ margin: .6em 0; font-weight: bold; }}
.hole {{ fill: white; stroke: #555; stroke-width: 1.5; }}
.peg {{ fill: #333; }}
.moving {{ fill: #e0531f; }}
.vacated {{ fill: #f6c9b5; }}
</style></head><body>
<h2>{title}</h2>
<div><button id="first">&laquo; first</button><button id="prev">&lsaquo; previous</button>
<button id="next">next &rsaquo;</button><button id="last">last &raquo;</button></div>
<div id="status"></div>
<svg id="board" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}">
<defs>{arrow}</defs></svg>
<pre id="moves"></pre>
<script>
const DATA = {data};
const NS = "http://www.w3.org/2000/svg";
const svg = document.getElementById("board");
let step = 0;
function el(name, attrs) {{
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  svg.appendChild(e); return e;
}}
function draw() {{
  while (svg.childNodes.length > 1) svg.removeChild(svg.lastChild);
  const pos = DATA.positions[step];
  const mv = step > 0 ? DATA.moves[step - 1] : null;
  for (const [a, c] of DATA.lines) {{
    el("line", {{x1: DATA.at[a][0], y1: DATA.at[a][1], x2: DATA.at[c][0], y2: DATA.at[c][1],
                 stroke: "#c8c8c8", "stroke-width": 2}});
  }}
  DATA.at.forEach(([x, y], h) => {{
    el("circle", {{cx: x, cy: y, r: {radius}, class: "hole", "data-hole": DATA.names[h]}});
    const landed = mv && mv[mv.length - 1] === h;
    if (pos.includes(h)) el("circle", {{cx: x, cy: y, r: {peg}, class: landed ? "peg moving" : "peg"}});
    else if (mv && mv[0] === h) el("circle", {{cx: x, cy: y, r: {peg}, class: "vacated"}});
  }});
  if (mv) {{
    el("polyline", {{points: mv.map(h => DATA.at[h].join(",")).join(" "), fill: "none",
                     stroke: "#1f6fd1", "stroke-width": 3, "marker-end": "url(#head)"}});
  }}
  document.getElementById("status").textContent =
    (step === 0 ? "start" : "move " + step + " of " + DATA.moves.length + ": " +
     mv.map(h => DATA.names[h]).join("-")) + " \\u2014 " + pos.length + " pegs";
  document.getElementById("prev").disabled = step === 0;
  document.getElementById("next").disabled = step === DATA.moves.length;
}}
function go(k) {{ step = Math.max(0, Math.min(DATA.moves.length, k)); draw(); }}
document.getElementById("first").onclick = () => go(0);
document.getElementById("prev").onclick = () => go(step - 1);
document.getElementById("next").onclick = () => go(step + 1);
document.getElementById("last").onclick = () => go(DATA.moves.length);
document.addEventListener("keydown", e => {{
  if (e.key === "ArrowRight") go(step + 1);
  if (e.key === "ArrowLeft") go(step - 1);
}});
document.getElementById("moves").textContent =
  DATA.moves.map((m, i) => (i + 1) + ". " + m.map(h => DATA.names[h]).join("-")).join("\\n");
const hash = location.hash;
const m = hash.match(/step=(\\d+)/);
go(m ? parseInt(m[1], 10) : 0);
if (hash.includes("selftest")) {{
  const seen = [];
  while (!document.getElementById("next").disabled) {{
    document.getElementById("next").click();
    seen.push(step);
  }}
  const ok = seen.length === DATA.moves.length && seen.every((s, i) => s === i + 1) &&
             DATA.positions[step].length === DATA.final_pegs;
  document.title = (ok ? "SELFTEST OK " : "SELFTEST FAILED ") + seen.length + " steps";
}}
</script></body></html>
"""


def script_json(data: object, **dumps: object) -> str:
    """``data`` as JSON safe inside an HTML ``<script>`` element: ``<``, ``>`` and ``&`` (and
    the line separators JavaScript ends a line at) written as escapes, so no value — a hole
    named ``</script><script>...`` — can close the element or open another."""
    text = json.dumps(data, **dumps)  # type: ignore[arg-type]
    for ch in "<>&\u2028\u2029":
        text = text.replace(ch, f"\\u{ord(ch):04x}")
    return text


def plan_html(problem: Problem, plan) -> str:
    """A self-contained page stepping through the plan move by move."""
    board = problem.board
    rep = replay_plan(problem, plan)  # only a verified plan is drawn
    moves = split_moves(board, plan)
    positions = [problem.start]
    i = 0
    for move in moves:
        i += len(move)
        positions.append(rep.positions[i])
    at, width, height = layout(board)
    data = {
        "names": list(board.names),
        "at": [[round(x, 1), round(y, 1)] for x, y in at],
        "lines": [[a, c] for a, _, c in board.lines],
        "positions": [[h for h in range(board.n) if p >> h & 1] for p in positions],
        "moves": [[board.jumps[m[0]][0]] + [board.jumps[k][2] for k in m] for m in moves],
        "final_pegs": rep.final.bit_count(),
    }
    return _PAGE.format(title=escape(problem.describe()), width=width, height=height, arrow=ARROW,
                        data=script_json(data), radius=RADIUS, peg=round(RADIUS * 0.6, 1))
