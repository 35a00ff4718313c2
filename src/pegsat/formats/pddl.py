"""The planning competition's peg solitaire PDDL: problems in and out, plans in and out.

Read: the IPC domains ``pegsolitaire-sequential`` (2008/2011 sequential tracks, action
costs: ``jump-new-move`` costs 1, ``jump-continue-move`` 0, ``end-move`` closes a move, so
the plan cost is the number of moves), ``pegsolitaire-invasion`` (2016 unsolvability track,
``row5`` set) and ``pegsolitaire-netbenefit`` as the 2016 unsolvability track's ``pegsol``
set uses it (one ``jump`` action, no costs, hard goals). The 2008 net-benefit problems'
soft goals (``preference``) and the temporal variant are refused with the reason. A domain
file, when given, must define exactly the actions of its name. A problem lists locations,
``IN-LINE`` triples (both directions: a one-way line is refused, since pegsat's boards
jump both ways), ``occupied``/``free`` facts and a goal that is a conjunction of such facts.

Write: any pegsat problem whose goal is a pattern (full and empty holes; STRIPS goals cannot
count pegs) as a domain and problem pair in the same style, locations named ``pos-R-C`` on
square lattices (the IPC convention) and by hole name elsewhere; plans in IPC format (one
ground action per line, an ``end-move`` after each move, then ``; cost = N (general cost)``),
which VAL accepts, and plans read back from any planner, checked against the domain's own
preconditions (a ``jump-continue-move`` must start where the last jump landed) before the
verifier replays them.

The reader is small and strict (no PDDL library on PyPI reads action costs and these
problems without pulling in a grammar engine; the subset needed is five constructs): an
s-expression tokenizer, then the ``define problem`` form. Locations named ``pos-R-C`` are
placed at row R, column C; when their lines are exactly a square lattice's, the board is
built on that lattice (so the IPC problems land on the catalogue's English board with its
usual hole names), otherwise it is a graph board keeping the PDDL names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..engine.bitboard import split_moves
from ..errors import NotationError, PegsatError, PlanError, ProblemError
from ..files import read_text
from ..model.board import Board
from ..model.catalogue import LISTED, get_board
from ..model.lattice import board_from_cells
from ..model.problem import Goal, Problem, holes_of

#: domain name -> its actions; the domains whose plans are plain ``(jump a b c)`` sequences
#: are those with the one action.
DOMAINS = {
    "pegsolitaire-sequential": ("end-move", "jump-continue-move", "jump-new-move"),
    "pegsolitaire-invasion": ("jump",),
    "pegsolitaire-netbenefit": ("jump",),
}
_POS = re.compile(r"pos-(\d+)-(\d+)$")
_IGNORED_INIT = ("move-ended", "=")


class PddlError(ProblemError):
    pass


def tokenize(text: str) -> list[str]:
    """The tokens of a PDDL text (comments dropped, lower case)."""
    text = re.sub(r";[^\n]*", " ", text)
    return re.findall(r"[()]|[^\s()]+", text.lower())


def parse_sexpr(text: str, source: str):
    """The nested lists of a PDDL text; a one-line error names what is wrong."""
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
    """The domain's name, once its actions are checked to be those the name promises."""
    form = parse_sexpr(_read(path), str(path))
    if form[:1] != ["define"] or len(form) < 2 or form[1][:1] != ["domain"] or len(form[1]) < 2:
        raise PddlError(f"{path}: not a PDDL domain (expected (define (domain NAME) ...))")
    name = form[1][1]
    if name not in DOMAINS:
        raise PddlError(f"{path}: domain {name!r} is not peg solitaire ({', '.join(DOMAINS)})")
    actions = tuple(sorted(str(p[1]) for p in form[2:]
                           if isinstance(p, list) and len(p) > 1 and p[0] in (":action", ":durative-action")))
    if any(isinstance(p, list) and p[:1] == [":durative-action"] for p in form[2:]):
        raise PddlError(f"{path}: domain {name!r} has durative actions; pegsat reads the "
                        "classical (non-temporal) peg solitaire domains only")
    if actions != DOMAINS[name]:
        raise PddlError(f"{path}: domain {name!r} defines actions {', '.join(actions) or 'none'}; "
                        f"expected {', '.join(DOMAINS[name])}")
    return name


@dataclass(frozen=True)
class Task:
    """A problem read from PDDL, with the PDDL object name of every hole and the domain."""

    problem: Problem
    objects: tuple[str, ...]  # hole id -> location name in the file
    domain: str


def load(spec: str, domain: str | None = None) -> Task:
    """A task from a problem file; the domain is ``domain`` or ``domain.pddl`` beside it."""
    if domain is None:
        beside = Path(spec).parent / "domain.pddl"
        domain = str(beside) if beside.is_file() else None
    return read_task(spec, domain)


def read_task(path: str | Path, domain: str | Path | None = None) -> Task:
    """A PDDL problem file with its domain (given, or ``domain.pddl`` beside it)."""
    path = Path(path)
    src = str(path)
    if domain is not None:
        dname = domain_name(Path(domain))
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
    lines: list[tuple[int, int, int]] = []
    occupied: set[int] = set()
    free: set[int] = set()
    for fact in sections.get(":init", []):
        head = fact[0] if isinstance(fact, list) and fact else None
        if head == "in-line" and len(fact) == 4:
            a, b, c = (_loc(x, locations, src) for x in fact[1:])
            lines.append((a, b, c))
        elif head in ("occupied", "free") and len(fact) == 2:
            (occupied if head == "occupied" else free).add(_loc(fact[1], locations, src))
        elif head not in _IGNORED_INIT:
            raise PddlError(f"{src}: unexpected fact {_show(fact)} in :init")
    _two_way(lines, locations, src)
    both = occupied & free
    if both:
        raise PddlError(f"{src}: location {locations[min(both)]} is both occupied and free")
    if len(occupied | free) != len(locations):
        missing = sorted(set(range(len(locations))) - occupied - free)
        raise PddlError(f"{src}: location {locations[missing[0]]} is neither occupied nor free")
    board, where = _board(name, locations, lines, src)
    start = sum(1 << where[i] for i in occupied)
    goal = _goal(sections.get(":goal"), locations, where, board, src)
    objects = [""] * board.n
    for i, h in where.items():
        objects[h] = locations[i]
    return Task(Problem(board, start, goal, name=name), tuple(objects), dom)


def _read(path: Path) -> str:
    return read_text(path, "PDDL file", PddlError)


def _show(x) -> str:
    if isinstance(x, list):
        return "(" + " ".join(_show(y) for y in x) + ")"
    return str(x)


def _objects(items: list, src: str) -> list[str]:
    out: list[str] = []
    pending: list[str] = []
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


def _two_way(lines: list[tuple[int, int, int]], locations: list[str], src: str) -> None:
    """Every IN-LINE triple listed in both directions: a board's lines jump both ways."""
    have = set(lines)
    for a, b, c in lines:
        if (c, b, a) not in have:
            raise PddlError(f"{src}: (IN-LINE {locations[a]} {locations[b]} {locations[c]}) has no "
                            f"reverse (IN-LINE {locations[c]} {locations[b]} {locations[a]}); "
                            "one-way jumps are not supported")


def _board(name: str, locations: list[str], lines: list[tuple[int, int, int]], src: str):
    """(board, PDDL location index -> hole id)."""
    if not lines:
        raise PddlError(f"{src}: no IN-LINE facts: the board has no jump")
    norm = {(min(a, c), b, max(a, c)) for a, b, c in lines}
    matches = [_POS.match(x) for x in locations]
    coords = [m for m in matches if m is not None]
    cells = [(int(m.group(1)), int(m.group(2))) for m in coords]
    if len(coords) == len(locations):
        try:
            lattice = board_from_cells(name, "square", cells)
        except Exception:
            lattice = None
        if lattice is not None:
            r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
            hole = {rc: i for i, rc in enumerate(lattice.coords or ())}
            where = {i: hole[(r - r0, c - c0)] for i, (r, c) in enumerate(cells)}
            mapped = {(min(where[a], where[c]), where[b], max(where[a], where[c])) for a, b, c in norm}
            if mapped == set(lattice.lines):
                for cat in LISTED:
                    known = get_board(cat)
                    if known.coords == lattice.coords and known.lines == lattice.lines:
                        return known, where
                return lattice, where
    label = name if name not in LISTED else f"{name} (from PDDL)"  # not the catalogue's board
    board = Board(label, "graph", tuple(locations), tuple(norm),
                  tuple(cells) if len(coords) == len(locations) else None)
    return board, {i: i for i in range(len(locations))}


def _goal(goal, locations, where, board: Board, src: str) -> Goal:
    if not goal:
        raise PddlError(f"{src}: no :goal")
    body = goal[0]
    facts = body[1:] if body[:1] == ["and"] else [body]
    full = empty = 0
    for fact in facts:
        if isinstance(fact, list) and fact[:1] == ["preference"]:
            raise PddlError(f"{src}: the goal has soft goals (preference ...): net-benefit "
                            "planning is not supported; give hard (occupied X)/(free X) goals")
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


# --- writing ---------------------------------------------------------------------------------

SEQUENTIAL_DOMAIN = """\
;; Peg solitaire, sequential: a move is one or more jumps by the same peg; it costs 1.
;; Written by pegsat in the style of the IPC 2008/2011 pegsol domain.
(define (domain pegsolitaire-sequential)
  (:requirements :typing :action-costs)
  (:types location - object)
  (:predicates (IN-LINE ?x ?y ?z - location) (occupied ?l - location) (free ?l - location)
               (move-ended) (last-visited ?l - location))
  (:functions (total-cost) - number)
  (:action jump-new-move
    :parameters (?from - location ?over - location ?to - location)
    :precondition (and (move-ended) (IN-LINE ?from ?over ?to)
                       (occupied ?from) (occupied ?over) (free ?to))
    :effect (and (not (move-ended)) (not (occupied ?from)) (not (occupied ?over))
                 (not (free ?to)) (free ?from) (free ?over) (occupied ?to)
                 (last-visited ?to) (increase (total-cost) 1)))
  (:action jump-continue-move
    :parameters (?from - location ?over - location ?to - location)
    :precondition (and (last-visited ?from) (IN-LINE ?from ?over ?to)
                       (occupied ?from) (occupied ?over) (free ?to))
    :effect (and (not (occupied ?from)) (not (occupied ?over)) (not (free ?to))
                 (free ?from) (free ?over) (occupied ?to)
                 (not (last-visited ?from)) (last-visited ?to)))
  (:action end-move
    :parameters (?loc - location)
    :precondition (last-visited ?loc)
    :effect (and (move-ended) (not (last-visited ?loc)))))
"""

NETBENEFIT_DOMAIN = """\
;; Peg solitaire with one jump action and no costs, as the 2016 unsolvability track's
;; pegsol set states it. Written by pegsat.
(define (domain pegsolitaire-netbenefit)
  (:requirements :typing)
  (:types location - object)
  (:predicates (IN-LINE ?x ?y ?z - location) (occupied ?l - location) (free ?l - location))
  (:action jump
    :parameters (?from - location ?over - location ?to - location)
    :precondition (and (IN-LINE ?from ?over ?to) (occupied ?from) (occupied ?over) (free ?to))
    :effect (and (not (occupied ?from)) (not (occupied ?over)) (not (free ?to))
                 (free ?from) (free ?over) (occupied ?to))))
"""

#: what ``export-pddl --domain`` offers: short name -> (domain name, domain text)
WRITTEN = {"sequential": ("pegsolitaire-sequential", SEQUENTIAL_DOMAIN),
           "netbenefit": ("pegsolitaire-netbenefit", NETBENEFIT_DOMAIN)}

_SAFE = re.compile(r"[a-z][a-z0-9_-]*$")


def object_names(board: Board) -> tuple[str, ...]:
    """A PDDL location name per hole: ``pos-R-C`` on square lattices, else the hole name."""
    if board.lattice.startswith("square") and board.coords is not None:
        return tuple(f"pos-{r}-{c}" for r, c in board.coords)
    out = []
    for name in board.names:
        low = name.lower()
        out.append(low if _SAFE.match(low) else "h-" + re.sub(r"[^a-z0-9_-]", "_", low))
    if len(set(out)) != len(out):
        out = [f"h{h}" for h in range(board.n)]
    return tuple(out)


def write_problem(problem: Problem, objects: tuple[str, ...] | None = None,
                  domain: str = "sequential") -> str:
    """The problem in the ``domain`` of ``WRITTEN``; the goal must be a pattern of full/empty
    holes. The sequential domain's problems carry its move bookkeeping and cost metric."""
    board, goal = problem.board, problem.goal
    if problem.special is not None:
        raise PegsatError("PDDL export: the special-peg rule has no PDDL form in this domain")
    if goal.full | goal.empty != board.full and (goal.min_pegs > max(1, goal.full.bit_count())
                                                  or goal.max_pegs is not None):
        raise PegsatError("PDDL export: STRIPS goals cannot count pegs; give a pattern "
                          "(--survivor, --pattern, or --full/--empty)")
    obj = objects or object_names(board)
    name = re.sub(r"[^a-z0-9_-]", "-", (problem.name or board.name).lower()) or "problem"
    sequential = domain == "sequential"
    out = [f";; {problem.describe()}", ";; written by pegsat", f"(define (problem {name})",
           f"  (:domain {WRITTEN[domain][0]})", "  (:objects"]
    out += [f"    {o} - location" for o in obj]
    out += ["  )", "  (:init"] + (["    (= (total-cost) 0)", "    (move-ended)"] if sequential else [])
    for a, b, c in board.lines:
        out.append(f"    (IN-LINE {obj[a]} {obj[b]} {obj[c]})")
        out.append(f"    (IN-LINE {obj[c]} {obj[b]} {obj[a]})")
    for h in range(board.n):
        out.append(f"    ({'occupied' if problem.start >> h & 1 else 'free'} {obj[h]})")
    out += ["  )", "  (:goal (and"]
    out += [f"    (occupied {obj[h]})" for h in holes_of(goal.full)]
    out += [f"    (free {obj[h]})" for h in holes_of(goal.empty)]
    out += ["  ))"] + (["  (:metric minimize (total-cost))"] if sequential else []) + [")"]
    return "\n".join(out) + "\n"


def write_pddl(problem: Problem, outdir: Path, domain: str = "sequential") -> list[Path]:
    """``outdir/domain.pddl`` and ``outdir/problem.pddl`` for ``problem``, written atomically."""
    from ..files import Staging

    text = write_problem(problem, domain=domain)
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PegsatError(f"cannot create {outdir}: {exc.strerror}") from None
    paths = [outdir / "domain.pddl", outdir / "problem.pddl"]
    with Staging() as stage:
        stage.write(paths[0], lambda fh: fh.write(WRITTEN[domain][1]))
        stage.write(paths[1], lambda fh: fh.write(text))
        stage.commit()
    return paths


def write_ipc_plan(board: Board, plan, task: Task | None = None) -> str:
    """A plan as IPC ground actions, one per line, and its cost (the number of moves)."""
    obj = task.objects if task is not None else object_names(board)
    domain = task.domain if task is not None else "pegsolitaire-sequential"
    lines = []
    if DOMAINS.get(domain) == ("jump",):
        for k in plan:
            a, b, c = board.jumps[k]
            lines.append(f"(jump {obj[a]} {obj[b]} {obj[c]})")
        return "\n".join(lines + [f"; cost = {len(plan)} (unit cost)"]) + "\n"
    moves = split_moves(board, plan)
    for move in moves:
        for i, k in enumerate(move):
            a, b, c = board.jumps[k]
            act = "jump-new-move" if i == 0 else "jump-continue-move"
            lines.append(f"({act} {obj[a]} {obj[b]} {obj[c]})")
        lines.append(f"(end-move {obj[board.jumps[move[-1]][2]]})")
    return "\n".join(lines + [f"; cost = {len(moves)} (general cost)"]) + "\n"


def is_ipc_plan(text: str) -> bool:
    """One ground action per line (``[ \\t]``, not ``\\s``: linear time on blank lines)."""
    return bool(re.search(r"^[ \t]*(?:\d+[ \t]*:[ \t]*)?\((jump|end-move)", text, re.M | re.I))


def read_ipc_plan(board: Board, text: str, task: Task | None = None) -> list[tuple[int, int]]:
    """``(src, dst)`` hops from an IPC plan, checking the domain's move bookkeeping.

    ``jump-new-move`` needs the previous move ended, ``jump-continue-move`` must start where
    the last jump landed, ``end-move`` must name that hole; the jumps themselves are left to
    the verifier, which names the step of any illegal one.
    """
    obj = task.objects if task is not None else object_names(board)
    index = {o.lower(): h for h, o in enumerate(obj)}
    hops: list[tuple[int, int]] = []
    ended, last = True, None
    step = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";", 1)[0].strip().lower()
        if not line:
            continue
        m = re.fullmatch(r"(?:\d+\s*:\s*)?\(([a-z-]+)((?:\s+[^\s()]+)*)\s*\)(?:\s*\[\d+\])?", line)
        if not m:
            raise NotationError(f"plan line {lineno}: not a ground action: {raw.strip()[:60]!r}")
        act, args = m.group(1), m.group(2).split()
        try:
            holes = [index[x] for x in args]
        except KeyError as exc:
            raise NotationError(f"plan line {lineno}: unknown location {exc.args[0][:60]}") from None
        if act == "end-move" and len(holes) == 1:
            if last != holes[0]:
                raise PlanError(f"plan line {lineno}: end-move {args[0]} but no move ends there", step + 1)
            ended, last = True, None
            continue
        if act not in ("jump", "jump-new-move", "jump-continue-move") or len(holes) != 3:
            raise NotationError(f"plan line {lineno}: unknown action ({act[:40]} ...)")
        step += 1
        if act == "jump-new-move" and not ended:
            raise PlanError(f"plan line {lineno}: jump-new-move before the last move was ended", step)
        if act == "jump-continue-move" and last != holes[0]:
            raise PlanError(f"plan line {lineno}: jump-continue-move from {args[0]}, "
                            "which is not where the last jump landed", step)
        if (holes[0], holes[1], holes[2]) not in board.jump_index:
            raise PlanError(f"plan line {lineno}: {' '.join(args)} is not a line of the board", step)
        hops.append((holes[0], holes[2]))
        ended, last = act == "jump", holes[2]
    return hops
