"""Plan notations, in one registry: the name of a notation -> how to write and read a plan.

``names``   the board's hole names, a move as its chain of holes: ``e7-c7-c5`` (standard
            alphanumeric notation on square boards, George Bell's on triangular ones,
            the board's own names on graph boards);
``ids``     the same with 0-based integer hole ids: ``31-29-15``;
``coords``  1-based ``row col`` pairs, one move per line (or separated by ``;``):
            ``7 5 7 3 5 3``. On triangular boards the column is the place in the row;
``ipc``     the planning competition's ground actions, one per line (``formats.pddl``),
            with the PDDL file's location names when the problem came from one.

Reading with ``auto`` recognises IPC plans, then names when every token is a hole name, else
ids, else coordinates. Every reader returns ``(src, dst)`` hops; the verifier then checks
the jumps, so a reader only has to get the holes right.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..engine.bitboard import split_moves
from ..errors import NotationError
from ..files import clip
from ..model.board import Board, as_id
from . import pddl

Hops = list[tuple[int, int]]


@dataclass(frozen=True)
class Notation:
    name: str
    write: Callable[[Board, tuple[int, ...], pddl.Task | None], str]
    read: Callable[[Board, str, pddl.Task | None], Hops]


def hole_coord(board: Board, h: int) -> tuple[int, int]:
    """1-based (row, column) of a hole in the coordinate notation."""
    if board.coords is None:
        raise NotationError(f"board {board.name} has no coordinates")
    r, c = board.coords[h]
    rows = sorted({rr for rr, _ in board.coords})
    if board.lattice == "triangular":
        same_row = sorted(cc for rr, cc in board.coords if rr == r)
        return rows.index(r) + 1, same_row.index(c) + 1
    return r + 1, c + 1


def _chains(board: Board, plan) -> list[list[int]]:
    return [[board.jumps[m[0]][0]] + [board.jumps[k][2] for k in m] for m in split_moves(board, plan)]


def _hops(chains: list[list[int]]) -> Hops:
    return [hop for chain in chains for hop in zip(chain, chain[1:], strict=False)]


def _tokens(text: str) -> list[str]:
    text = re.sub(r"#[^\n]*", " ", text)  # comments
    return [t for t in re.split(r"[\s,;]+", text) if t]


def _write_chains(label: Callable[[Board, int], str]):
    def write(board: Board, plan, task=None) -> str:
        return " ".join("-".join(label(board, h) for h in chain) for chain in _chains(board, plan))
    return write


def _read_chains(hole: Callable[[Board, str, int], int]):
    def read(board: Board, text: str, task=None) -> Hops:
        chains = []
        for move_no, tok in enumerate(_tokens(text), start=1):
            parts = tok.split("-")
            if len(parts) < 2 or "" in parts:
                raise NotationError(f"move {move_no} {tok!r}: a move is a chain of at least two holes")
            chains.append([hole(board, p, move_no) for p in parts])
        return _hops(chains)
    return read


def _name(board: Board, token: str, move_no: int) -> int:
    if not board.has_hole(token):
        raise NotationError(f"move {move_no}: board {board.name} has no hole named {clip(token)!r}")
    return board.hole(token)


def _id(board: Board, token: str, move_no: int) -> int:
    h = as_id(token)
    if h is None or h >= board.n:
        raise NotationError(f"move {move_no}: {clip(token)!r} is not a hole id 0..{board.n - 1}")
    return h


def _write_coords(board: Board, plan, task=None) -> str:
    return "\n".join(" ".join(f"{r} {c}" for h in chain for r, c in [hole_coord(board, h)])
                     for chain in _chains(board, plan))


def _read_coords(board: Board, text: str, task=None) -> Hops:
    where = {hole_coord(board, h): h for h in range(board.n)}
    text = re.sub(r"#[^\n]*", " ", text)
    chains = []
    for move_no, chunk in enumerate((c for c in re.split(r"[\n;]", text) if c.strip()), start=1):
        nums = chunk.replace(",", " ").split()
        if not all(as_id(x) is not None for x in nums) or len(nums) < 4 or len(nums) % 2:
            raise NotationError(f"move {move_no} {clip(chunk.strip())!r}: expected 'row col row col ...'")
        chain = []
        for i in range(0, len(nums), 2):
            rc = (int(nums[i]), int(nums[i + 1]))
            if rc not in where:
                raise NotationError(f"move {move_no}: no hole at row {rc[0]} column {rc[1]}")
            chain.append(where[rc])
        chains.append(chain)
    return _hops(chains)


def _write_ipc(board: Board, plan, task=None) -> str:
    return pddl.write_ipc_plan(board, plan, task).rstrip("\n")


#: name -> notation. ``auto`` (reading only) is not a notation but a guess among these.
NOTATIONS: dict[str, Notation] = {
    "names": Notation("names", _write_chains(lambda b, h: b.names[h]), _read_chains(_name)),
    "ids": Notation("ids", _write_chains(lambda b, h: str(h)), _read_chains(_id)),
    "coords": Notation("coords", _write_coords, _read_coords),
    "ipc": Notation("ipc", _write_ipc, pddl.read_ipc_plan),
}


def _notation(name: str) -> Notation:
    if name not in NOTATIONS:
        raise NotationError(f"unknown notation {name!r} ({', '.join(NOTATIONS)})")
    return NOTATIONS[name]


def format_plan(board: Board, plan, notation: str = "names", task: pddl.Task | None = None) -> str:
    """Write a plan (jump ids) move by move in ``notation``."""
    return _notation(notation).write(board, plan, task)


def guess(board: Board, text: str) -> str:
    """The notation ``auto`` reads ``text`` in."""
    if pddl.is_ipc_plan(text):
        return "ipc"
    tokens = _tokens(text)
    if tokens and all("-" in t for t in tokens):
        parts = [p for t in tokens for p in t.split("-")]
        if all(board.has_hole(p) for p in parts):
            return "names"
        if all(p.isdigit() for p in parts):
            return "ids"
        bad = next(p for p in parts if not board.has_hole(p))
        raise NotationError(f"board {board.name} has no hole named {bad!r}")
    if all(t.lstrip("-").isdigit() for t in tokens):
        return "coords"
    bad = next(t for t in tokens if "-" not in t)
    raise NotationError(f"cannot read move {bad!r}: write a move as a chain like e7-c7-c5")


def parse_plan(board: Board, text: str, notation: str = "auto", task: pddl.Task | None = None) -> Hops:
    """Turn plan text into ``(src, dst)`` hops; the verifier then checks the jumps."""
    if notation == "auto":
        if not _tokens(text):
            return []
        notation = guess(board, text)
    return _notation(notation).read(board, text, task)
