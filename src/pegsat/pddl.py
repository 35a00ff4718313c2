"""The planning competition's peg solitaire PDDL: problems in.

The IPC domains ``pegsolitaire-sequential`` (2008/2011, action costs: one per move),
``pegsolitaire-netbenefit``/``-temporal`` variants are not read; ``pegsolitaire-invasion``
(2016 unsolvability track) is. A problem lists locations, ``IN-LINE`` triples (both
directions), ``occupied``/``free`` facts and a goal that is a conjunction of such facts.

The reader is small and strict (no PDDL library on PyPI reads action costs and these
problems without pulling in a grammar engine; the subset needed is five constructs): an
s-expression tokenizer, then the ``define problem`` form. Locations named ``pos-R-C`` are
placed at row R, column C; when their lines are exactly a square lattice's, the board is
built on that lattice (so the IPC problems land on the catalogue's English board with its
usual hole names), otherwise it is a graph board keeping the PDDL names.
"""

from __future__ import annotations

import re
from pathlib import Path

from .board import Board
from .catalogue import LISTED, get_board
from .errors import ProblemError
from .lattice import board_from_cells
from .problem import Goal, Problem

DOMAINS = ("pegsolitaire-sequential", "pegsolitaire-invasion")
_POS = re.compile(r"pos-(\d+)-(\d+)$")
_IGNORED_INIT = ("move-ended", "=")


class PddlError(ProblemError):
    pass


def tokenize(text: str) -> list[str]:
    text = re.sub(r";[^\n]*", " ", text)
    return re.findall(r"[()]|[^\s()]+", text.lower())


def parse_sexpr(text: str, source: str):
    tokens = tokenize(text)
    stack: list[list] = [[]]
    for tok in tokens:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise PddlError(f"{source}: unbalanced ')'")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise PddlError(f"{source}: unbalanced '(' (file ends inside an expression)")
    if len(stack[0]) != 1 or not isinstance(stack[0][0], list):
        raise PddlError(f"{source}: expected one (define ...) form")
    return stack[0][0]


def domain_name(path: Path) -> str:
    form = parse_sexpr(_read(path), str(path))
    if form[:1] != ["define"] or len(form) < 2 or form[1][:1] != ["domain"]:
        raise PddlError(f"{path}: not a PDDL domain (expected (define (domain NAME) ...))")
    return form[1][1]


def read_problem(path: str | Path, domain: str | Path | None = None) -> Problem:
    """A pegsat problem from an IPC peg solitaire problem file (and optionally its domain)."""
    path = Path(path)
    src = str(path)
    if domain is not None:
        dname = domain_name(Path(domain))
        if dname not in DOMAINS:
            raise PddlError(f"{domain}: domain {dname!r} is not peg solitaire ({', '.join(DOMAINS)})")
    form = parse_sexpr(_read(path), src)
    if form[:1] != ["define"] or len(form) < 2 or form[1][:1] != ["problem"]:
        raise PddlError(f"{src}: not a PDDL problem (expected (define (problem NAME) ...))")
    name = form[1][1] if len(form[1]) > 1 else path.stem
    sections = {}
    for part in form[2:]:
        if not isinstance(part, list) or not part or not part[0].startswith(":"):
            raise PddlError(f"{src}: unexpected {_show(part)} in the problem")
        sections[part[0]] = part[1:]
    dom = sections.get(":domain", [None])[0]
    if dom not in DOMAINS:
        raise PddlError(f"{src}: domain {dom!r} is not peg solitaire ({', '.join(DOMAINS)})")
    if domain is not None and dom != dname:
        raise PddlError(f"{src}: the problem is for domain {dom!r}, the domain file defines {dname!r}")
    locations = _objects(sections.get(":objects", []), src)
    lines, occupied, free = [], set(), set()
    for fact in sections.get(":init", []):
        head = fact[0] if isinstance(fact, list) and fact else None
        if head == "in-line" and len(fact) == 4:
            lines.append(tuple(_loc(x, locations, src) for x in fact[1:]))
        elif head in ("occupied", "free") and len(fact) == 2:
            (occupied if head == "occupied" else free).add(_loc(fact[1], locations, src))
        elif head not in _IGNORED_INIT:
            raise PddlError(f"{src}: unexpected fact {_show(fact)} in :init")
    both = occupied & free
    if both:
        raise PddlError(f"{src}: location {locations[min(both)]} is both occupied and free")
    if len(occupied | free) != len(locations):
        missing = sorted(set(range(len(locations))) - occupied - free)
        raise PddlError(f"{src}: location {locations[missing[0]]} is neither occupied nor free")
    board, where = _board(name, locations, lines, src)
    start = sum(1 << where[i] for i in occupied)
    goal = _goal(sections.get(":goal"), locations, where, board, src)
    return Problem(board, start, goal, name=name)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as exc:
        raise PddlError(f"cannot read {path}: {exc.strerror}") from None


def _show(x) -> str:
    if isinstance(x, list):
        return "(" + " ".join(_show(y) for y in x) + ")"
    return str(x)


def _objects(items: list, src: str) -> list[str]:
    out, pending = [], []
    it = iter(items)
    for tok in it:
        if tok == "-":
            typ = next(it, None)
            if typ != "location":
                raise PddlError(f"{src}: objects of type {typ!r}; peg solitaire has only locations")
            out.extend(pending)
            pending = []
        else:
            pending.append(tok)
    out.extend(pending)
    if not out:
        raise PddlError(f"{src}: no locations in :objects")
    return out


def _loc(name, locations: list[str], src: str) -> int:
    try:
        return locations.index(name)
    except ValueError:
        raise PddlError(f"{src}: unknown location {_show(name)}") from None


def _board(name: str, locations: list[str], lines: list[tuple[int, int, int]], src: str):
    """(board, PDDL location index -> hole id)."""
    if not lines:
        raise PddlError(f"{src}: no IN-LINE facts: the board has no jump")
    norm = {(min(a, c), b, max(a, c)) for a, b, c in lines}
    coords = [_POS.match(x) for x in locations]
    if all(coords):
        cells = [(int(m.group(1)), int(m.group(2))) for m in coords]
        try:
            lattice = board_from_cells(name, "square", cells)
        except Exception:
            lattice = None
        if lattice is not None:
            r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
            hole = {rc: i for i, rc in enumerate(lattice.coords)}
            where = {i: hole[(r - r0, c - c0)] for i, (r, c) in enumerate(cells)}
            mapped = {(min(where[a], where[c]), where[b], max(where[a], where[c])) for a, b, c in norm}
            if mapped == set(lattice.lines):
                for cat in LISTED:
                    known = get_board(cat)
                    if known.coords == lattice.coords and known.lines == lattice.lines:
                        return known, where
                return lattice, where
    board = Board(name, "graph", tuple(locations), tuple(norm),
                  tuple((int(m.group(1)), int(m.group(2))) for m in coords) if all(coords) else None)
    return board, {i: i for i in range(len(locations))}


def _goal(goal, locations, where, board: Board, src: str) -> Goal:
    if not goal:
        raise PddlError(f"{src}: no :goal")
    body = goal[0]
    facts = body[1:] if body[:1] == ["and"] else [body]
    full = empty = 0
    for fact in facts:
        if not (isinstance(fact, list) and len(fact) == 2 and fact[0] in ("occupied", "free")):
            raise PddlError(f"{src}: goal {_show(fact)} is not an (occupied X) or (free X) fact")
        h = where[_loc(fact[1], locations, src)]
        if fact[0] == "occupied":
            full |= 1 << h
        else:
            empty |= 1 << h
    if full | empty == board.full:
        return Goal.pattern(board, full)
    return Goal(full=full, empty=empty, min_pegs=max(1, full.bit_count()))
