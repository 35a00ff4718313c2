"""Reading and writing plans and hole lists.

Three notations:

``names``   the board's hole names, a move as its chain of holes: ``e7-c7-c5`` (standard
            alphanumeric notation on square boards, George Bell's on triangular ones,
            the board's own names on graph boards);
``ids``     the same with 0-based integer hole ids: ``31-29-15``;
``coords``  1-based ``row col`` pairs, one move per line (or separated by ``;``):
            ``7 5 7 3 5 3``. On triangular boards the column is the place in the row.

``auto`` reads names when every token is a hole name, else ids, else coordinates.
"""

from __future__ import annotations

import re

from .bitboard import split_moves
from .board import Board
from .errors import NotationError

NOTATIONS = ("names", "ids", "coords")
Hops = list[tuple[int, int]]


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


def _coord_index(board: Board) -> dict[tuple[int, int], int]:
    return {hole_coord(board, h): h for h in range(board.n)}


def _chains_to_hops(chains: list[list[int]]) -> Hops:
    hops = []
    for chain in chains:
        hops.extend(zip(chain, chain[1:], strict=False))
    return hops


def _split_tokens(text: str) -> list[str]:
    text = re.sub(r"#[^\n]*", " ", text)  # comments
    return [t for t in re.split(r"[\s,;]+", text) if t]


def parse_plan(board: Board, text: str, notation: str = "auto") -> Hops:
    """Turn plan text into ``(src, dst)`` hops; the verifier then checks the jumps."""
    if notation not in ("auto", *NOTATIONS):
        raise NotationError(f"unknown notation {notation!r} (auto, {', '.join(NOTATIONS)})")
    tokens = _split_tokens(text)
    if notation == "auto":
        if tokens and all("-" in t for t in tokens):
            parts = [p for t in tokens for p in t.split("-")]
            if all(board.has_hole(p) for p in parts):
                notation = "names"
            elif all(p.isdigit() for p in parts):
                notation = "ids"
            else:
                bad = next(p for p in parts if not board.has_hole(p))
                raise NotationError(f"board {board.name} has no hole named {bad!r}")
        elif tokens and all(t.lstrip("-").isdigit() for t in tokens):
            notation = "coords"
        elif not tokens:
            return []
        else:
            bad = next(t for t in tokens if "-" not in t)
            raise NotationError(f"cannot read move {bad!r}: write a move as a chain like e7-c7-c5")
    if notation == "coords":
        return _parse_coords(board, text)
    chains = []
    for move_no, tok in enumerate(tokens, start=1):
        parts = tok.split("-")
        if len(parts) < 2 or "" in parts:
            raise NotationError(f"move {move_no} {tok!r}: a move is a chain of at least two holes")
        chains.append([_hole(board, p, notation, move_no) for p in parts])
    return _chains_to_hops(chains)


def _hole(board: Board, token: str, notation: str, move_no: int) -> int:
    if notation == "names":
        if not board.has_hole(token):
            raise NotationError(f"move {move_no}: board {board.name} has no hole named {token!r}")
        return board.hole(token)
    if not token.isdigit() or int(token) >= board.n:
        raise NotationError(f"move {move_no}: {token!r} is not a hole id 0..{board.n - 1}")
    return int(token)


def _parse_coords(board: Board, text: str) -> Hops:
    where = _coord_index(board)
    text = re.sub(r"#[^\n]*", " ", text)
    chains = []
    for move_no, chunk in enumerate((c for c in re.split(r"[\n;]", text) if c.strip()), start=1):
        nums = chunk.replace(",", " ").split()
        if not all(x.isdigit() for x in nums) or len(nums) < 4 or len(nums) % 2:
            raise NotationError(f"move {move_no} {chunk.strip()!r}: expected 'row col row col ...'")
        chain = []
        for i in range(0, len(nums), 2):
            rc = (int(nums[i]), int(nums[i + 1]))
            if rc not in where:
                raise NotationError(f"move {move_no}: no hole at row {rc[0]} column {rc[1]}")
            chain.append(where[rc])
        chains.append(chain)
    return _chains_to_hops(chains)


def format_plan(board: Board, plan, notation: str = "names") -> str:
    """Write a plan (jump ids) move by move: chains separated by spaces, coords one per line."""
    moves = split_moves(board, plan)
    out = []
    for move in moves:
        chain = [board.jumps[move[0]][0]] + [board.jumps[k][2] for k in move]
        if notation == "names":
            out.append("-".join(board.names[h] for h in chain))
        elif notation == "ids":
            out.append("-".join(str(h) for h in chain))
        elif notation == "coords":
            out.append(" ".join(f"{r} {c}" for h in chain for r, c in [hole_coord(board, h)]))
        else:
            raise NotationError(f"unknown notation {notation!r}")
    return ("\n" if notation == "coords" else " ").join(out)


def parse_holes(board: Board, items) -> list[int]:
    """Holes from names or ids (a string with spaces/commas, or a list)."""
    if isinstance(items, str):
        items = _split_tokens(items)
    out = []
    for it in items:
        s = str(it)
        if board.has_hole(s):
            out.append(board.hole(s))
        elif isinstance(it, int) or s.isdigit():
            if not 0 <= int(s) < board.n:
                raise NotationError(f"hole id {s} is not on board {board.name} (0..{board.n - 1})")
            out.append(int(s))
        else:
            raise NotationError(f"board {board.name} has no hole named {s!r}")
    return out
