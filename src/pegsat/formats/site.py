"""The atlas pages: static HTML (no server, no network, no build step) over an atlas's cells.

``board_page`` is one self-contained page per board: the board drawn by ``formats.svg``, and
a short script over the cells embedded as JSON. Pick a vacancy (the list, a click on a hole,
or ``#v=NAME`` in the address) and every hole is coloured by the problem vacancy -> that
hole: solvable (green), unsolvable (red), unknown (grey); the table below lists each
survivor with its verdict, its evidence and its moves (fewest, when proven; "certified" with
the certificate of the fewest moves linked). A solvable cell links to its plan page
(``formats.render.plan_html``); an unsolvable one to its certificate, with the one command
that checks it. ``index_page`` lists the boards.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from ..model.board import Board
from .render import script_json
from .svg import board_svg

STYLE = """body{font-family:sans-serif;margin:1.5em;max-width:60em}
svg circle.hole{cursor:pointer} svg text{pointer-events:none}
table{border-collapse:collapse;margin-top:1em}
td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left}
.solvable{color:#17692b} .unsolvable{color:#a3281f} .unknown{color:#666}
#cell{margin-top:1em;padding:.6em;border:1px solid #ccc;min-height:2em}
code{background:#f4f4f4;padding:0 .3em}"""

SCRIPT = r"""
const A = JSON.parse(document.getElementById('atlas').textContent);
const COLOUR = {solvable: '#7bc47f', unsolvable: '#e8766b', unknown: '#cfcfcf'};
const holes = Array.from(document.querySelectorAll('svg circle.hole'));
const pick = document.getElementById('vacancy');
let vacancy = null;

function cellOf(v, s) { return (A.cells[v] || {})[s]; }
function evidence(c) {
  const from = c.via ? c.via + ' of ' + c.of.join(' \u2192 ') : '';
  if (c.status === 'solvable') return from ? 'plan (' + from + ')' : 'plan';
  const kind = c.kind + ' certificate';
  if (c.status === 'unsolvable') return from ? from + ' (' + kind + ')' : kind;
  return c.note || 'unknown';
}
function moves(c) {
  return c.moves == null ? '' : c.moves + (c.bound ? ' (fewest, certified)' : c.optimal ? ' (fewest)' : '');
}
function link(box, id, what, file, levels, alone) {  // a certificate's file and the command that checks it
  const p = document.createElement('div'), a = document.createElement('a');
  const code = document.createElement('code');
  a.id = id; a.href = file; a.textContent = file;
  code.textContent = 'pegsat check ' + file + (alone ? ' --rebuild' : '');
  p.append(what + ': ', a, alone ? ' (carried without its files); check it from that file alone with '
           : '; check it with ', code);
  if (levels && !alone) {  // its levels can be built by the checker: the file alone is the evidence
    const alone = document.createElement('code');
    alone.textContent = 'pegsat check ' + file + ' --rebuild';
    p.append(' (or, from that file alone, ', alone, ')');
  }
  box.appendChild(p);
}
function show(s) {
  const c = cellOf(vacancy, s), box = document.getElementById('cell');
  box.textContent = '';
  const head = document.createElement('div');
  head.id = 'verdict';
  head.className = c.status;
  head.textContent = A.board + ': vacancy ' + vacancy + ' \u2192 one peg at ' + s + ': ' + c.status
    + (c.moves == null ? '' : ', ' + moves(c) + ' moves') + ' \u2014 ' + evidence(c);
  box.appendChild(head);
  if (c.page) {
    const a = document.createElement('a');
    a.id = 'plan-link'; a.href = c.page; a.textContent = 'step through the plan';
    box.appendChild(a);
  }
  if (c.certificate) {
    link(box, 'certificate-link', 'certificate', c.certificate, c.kind === 'levels', c.alone);
  }
  if (c.bound) link(box, 'bound-link', 'certificate of the fewest moves', c.bound);
}
function choose(v) {
  vacancy = v;
  pick.value = v;
  if (location.hash !== '#v=' + v) history.replaceState(null, '', '#v=' + v);
  const rows = document.getElementById('rows');
  rows.textContent = '';
  for (const h of holes) {
    const s = h.dataset.hole, c = cellOf(v, s);
    h.setAttribute('fill', s === v ? '#ffffff' : COLOUR[c ? c.status : 'unknown']);
    h.setAttribute('stroke-width', s === v ? '4' : '1.5');
    h.setAttribute('class', 'hole ' + (c ? c.status : 'unknown'));
    if (!c || c.status === 'unsolvable' && c.kind === 'classes') continue;
    const tr = document.createElement('tr');
    tr.className = c.status;
    tr.dataset.survivor = s;
    for (const text of [s, c.status, evidence(c), moves(c)]) {
      const td = document.createElement('td'); td.textContent = text; tr.appendChild(td);
    }
    tr.addEventListener('click', () => show(s));
    rows.appendChild(tr);
  }
  const counts = {solvable: 0, unsolvable: 0, unknown: 0};
  for (const s of A.holes) { const c = cellOf(v, s); counts[c ? c.status : 'unknown'] += 1; }
  document.getElementById('summary').textContent = 'vacancy ' + v + ': ' + counts.solvable
    + ' solvable, ' + counts.unsolvable + ' unsolvable, ' + counts.unknown
    + ' unknown (survivors ruled out by position classes are not listed)';
  document.getElementById('cell').textContent = 'click a hole for its survivor';
}
for (const h of holes) {
  h.addEventListener('click', () => {
    if (vacancy === null) choose(h.dataset.hole); else show(h.dataset.hole);
  });
}
pick.addEventListener('change', () => choose(pick.value));
const m = /^#v=(.+)$/.exec(location.hash);
choose(m && A.holes.includes(decodeURIComponent(m[1])) ? decodeURIComponent(m[1]) : A.holes[A.first]);
"""


def local(link: object) -> bool:
    """Whether ``link`` is a file below the page's directory, as the page may link to it: a
    relative path of plain names (no scheme such as ``javascript:``, no ``..``, no leading
    ``/``); an atlas from anyone chooses its links."""
    return isinstance(link, str) and bool(_LOCAL.fullmatch(link)) and ".." not in link.split("/")


_LOCAL = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.\-]*(?:/[A-Za-z0-9_.][A-Za-z0-9_.\-]*)*")


def board_page(board: Board, cells: list[dict[str, Any]], summary: str) -> str:
    """The page of one board's atlas; ``cells``: the atlas's cells, each with ``page`` (its
    plan page) and ``certificate`` (its certificate's file) as links relative to the page."""
    table: dict[str, dict[str, Any]] = {}
    for c in cells:
        keep = {k: c.get(k) for k in ("status", "kind", "moves", "optimal", "via", "of", "note")}
        keep["alone"] = c.get("alone") is True  # its certificate carried without its files
        keep.update({k: c.get(k) if local(c.get(k)) else None for k in ("page", "certificate", "bound")})
        table.setdefault(c["vacancy"], {})[c["survivor"]] = keep
    first = board.centre if board.centre is not None else 0
    data = {"board": board.name, "holes": list(board.names), "first": first, "cells": table}
    blob = script_json(data, separators=(",", ":"))
    options = "".join(f'<option value="{escape(n)}">{escape(n)}</option>' for n in board.names)
    svg = board_svg(board, title=f"{board.name}: pick a vacancy, then a hole")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(board.name)} atlas</title>
<style>{STYLE}</style></head><body>
<p><a href="../index.html">all boards</a></p>
<h1>{escape(board.name)}: every single vacancy &rarr; single survivor</h1>
<p>{escape(summary)}</p>
<p><label>vacancy <select id="vacancy">{options}</select></label> <span id="summary"></span></p>
{svg}
<div id="cell"></div>
<table><thead><tr><th>survivor</th><th>verdict</th><th>evidence</th><th>moves</th></tr></thead>
<tbody id="rows"></tbody></table>
<p>Check the whole atlas: <code>pegsat check .</code> in this page's directory.</p>
<script type="application/json" id="atlas">{blob}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def index_page(boards: list[tuple[str, str, str]]) -> str:
    """The list of boards: (link, name, summary) each."""
    items = "\n".join(f'<li><a href="{escape(link)}">{escape(name)}</a>: {escape(summary)}</li>'
                      for link, name, summary in boards)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>pegsat atlas</title><style>{STYLE}</style></head>
<body><h1>pegsat atlas</h1>
<p>Every single-vacancy &rarr; single-survivor problem of each board: a plan replayed by the
verifier, or a certificate anyone can check with <code>pegsat check</code>.</p>
<ul>
{items}
</ul></body></html>
"""
