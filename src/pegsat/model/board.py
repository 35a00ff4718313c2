"""Boards: holes with integer ids and jump lines, independent of any lattice.

A board is a set of holes ``0..n-1`` and a set of *lines*, triples ``(a, b, c)`` of holes in a
row with ``b`` in the middle. Every line gives two directed jumps, ``a`` over ``b`` into ``c``
and back. Everything that plans or verifies works on ids and lines only, so square,
triangular, diagonal and free-form graph boards are all handled by the same code; the
coordinates and names are for drawing and notation.

The symmetry group is computed, not typed in: it is the group of hole permutations that map
the set of lines onto itself with middles onto middles (the automorphisms of the line
hypergraph). Any such permutation maps a legal game onto a legal game, which is all the
planners need. It is found by backtracking over hole images, pruned by pairwise line
relations.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property

from ..errors import BoardError, NotationError
from ..files import clip

Line = tuple[int, int, int]
Jump = tuple[int, int, int]
Perm = tuple[int, ...]

MAX_SYMMETRIES = 1000  # more (identical disconnected pieces permute freely): the identity only
MAX_SPAN = 1000  # rows and columns a board's coordinates may span (drawings are printed whole)


_SLUG = re.compile(r"[A-Za-z0-9_]{1,40}")  # a hole name that is a file name as it is

@dataclass(frozen=True)
class Board:
    """An immutable board. ``lines`` are normalised ``(a, b, c)`` with ``a < c``, sorted."""

    name: str
    lattice: str
    names: tuple[str, ...]
    lines: tuple[Line, ...]
    coords: tuple[tuple[int, int], ...] | None = None
    # Hole names double as notation; columns/rows give the "row col" notation.
    _index: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        n = len(self.names)
        if n == 0:
            raise BoardError(f"board {self.name!r} has no holes")
        if len(set(self.names)) != n:
            raise BoardError(f"board {self.name!r} has duplicate hole names")
        if self.coords is not None and len(self.coords) != n:
            raise BoardError(f"board {self.name!r}: {len(self.coords)} coordinates for {n} holes")
        if self.coords is not None:
            (r0, r1), (c0, c1) = ((min(x), max(x)) for x in zip(*self.coords, strict=True))
            if r1 - r0 > MAX_SPAN or c1 - c0 > MAX_SPAN:
                raise BoardError(f"board {self.name!r}: coordinates span {r1 - r0 + 1} rows and "
                                 f"{c1 - c0 + 1} columns; at most {MAX_SPAN + 1} each")
        norm = set()
        for a, b, c in self.lines:
            if not all(0 <= h < n for h in (a, b, c)) or len({a, b, c}) != 3:
                raise BoardError(f"board {self.name!r}: bad line {(a, b, c)}")
            norm.add((min(a, c), b, max(a, c)))
        if not norm:
            raise BoardError(f"board {self.name!r} has no jump at all")
        object.__setattr__(self, "lines", tuple(sorted(norm)))
        self._index.update({nm: i for i, nm in enumerate(self.names)})

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def full(self) -> int:
        """The position with a peg in every hole."""
        return (1 << self.n) - 1

    @cached_property
    def jumps(self) -> tuple[Jump, ...]:
        """Directed jumps ``(src, over, dst)``; a jump's id is its index here."""
        out = []
        for a, b, c in self.lines:
            out.append((a, b, c))
            out.append((c, b, a))
        return tuple(sorted(out))

    @cached_property
    def jump_index(self) -> dict[Jump, int]:
        """Jump id by (from, over, to)."""
        return {j: k for k, j in enumerate(self.jumps)}

    def hole(self, name: str) -> int:
        """Id of the hole called ``name``; raises a one-line error naming the board."""
        try:
            return self._index[name]
        except KeyError:
            raise BoardError(f"board {self.name!r} has no hole named {name!r}") from None

    def __repr__(self) -> str:
        return f"<Board {self.name!r}: {self.n} holes, {len(self.lines)} lines>"

    def has_hole(self, name: str) -> bool:
        """Whether ``name`` names a hole of this board."""
        return name in self._index

    @cached_property
    def slugs(self) -> tuple[str, ...]:
        """Each hole's name as a file name takes it: the names themselves when every one is
        letters, digits and ``_`` (every catalogue board's), else ``h0 .. h{n-1}`` for all
        (a name such as ``../x`` or ``</script>`` never becomes a path)."""
        if all(_SLUG.fullmatch(nm) for nm in self.names):
            return self.names
        return tuple(f"h{h}" for h in range(self.n))

    @cached_property
    def symmetries(self) -> tuple[Perm, ...]:
        """All automorphisms of the line structure, identity first; the identity alone when
        there are more than ``MAX_SYMMETRIES`` (pieces that permute freely): using fewer
        symmetries only reduces less."""
        return _automorphisms(self.n, self.lines)

    @cached_property
    def centre(self) -> int | None:
        """The hole at the centroid of the coordinates, if it is fixed by every symmetry."""
        if self.coords is None:
            return None
        rs = sum(r for r, _ in self.coords)
        cs = sum(c for _, c in self.coords)
        n = self.n
        if rs % n or cs % n:
            return None
        try:
            h = self.coords.index((rs // n, cs // n))
        except ValueError:
            return None
        return h if all(p[h] == h for p in self.symmetries) else None

    def summary(self) -> str:
        """Counts shown by ``pegsat show``."""
        return f"{self.n} holes, {len(self.jumps)} jumps, {len(self.symmetries)} symmetries"


def _automorphisms(n: int, lines: tuple[Line, ...]) -> tuple[Perm, ...]:
    # rel[x][y]: 1 if x, y are neighbours on a line (one of them the middle), 2 if they are the
    # two ends of a line. Automorphisms preserve it, which prunes the backtracking early.
    rel: list[dict[int, int]] = [dict() for _ in range(n)]
    line_set = set()
    for a, b, c in lines:
        line_set.add((a, b, c))
        for x, y, r in ((a, b, 1), (b, c, 1), (a, c, 2)):
            rel[x][y] = rel[x].get(y, 0) | r
            rel[y][x] = rel[y].get(x, 0) | r
    as_mid = [0] * n
    as_end = [0] * n
    for a, b, c in lines:
        as_mid[b] += 1
        as_end[a] += 1
        as_end[c] += 1
    sig = [(as_mid[h], as_end[h], sorted(rel[h].values())) for h in range(n)]
    lines_of: list[list[Line]] = [[] for _ in range(n)]
    for ln in lines:
        for h in ln:
            lines_of[h].append(ln)

    # Order holes so that each one is related to an earlier one where possible.
    order: list[int] = []
    seen = [False] * n
    for root in sorted(range(n), key=lambda h: (sum(1 for s in sig if s == sig[h]), h)):
        if seen[root]:
            continue
        seen[root] = True
        queue = deque([root])
        while queue:
            h = queue.popleft()
            order.append(h)
            for y in sorted(rel[h]):
                if not seen[y]:
                    seen[y] = True
                    queue.append(y)
    pos_in_order = {h: i for i, h in enumerate(order)}
    # Lines that become fully assigned at step i.
    closing: list[list[Line]] = [[] for _ in range(n)]
    for ln in lines:
        closing[max(pos_in_order[h] for h in ln)].append(ln)

    # Backtracking without recursion (boards of thousands of holes): each hole after the first
    # of its component is related to an earlier one, so its image is among that one's image's
    # relatives; consistency is checked against related holes only, both ways (``pre``: the
    # hole whose image a hole is), which is the full check since unrelated pairs carry 0.
    earlier = [[z for z in rel[x] if pos_in_order[z] < pos_in_order[x]] for x in range(n)]
    image = [-1] * n
    pre = [-1] * n
    found: list[Perm] = []

    def candidates(i: int) -> list[int]:
        x = order[i]
        pool = rel[image[earlier[x][0]]] if earlier[x] else range(n)
        out = []
        for y in pool:
            if pre[y] != -1 or sig[y] != sig[x]:
                continue
            if any(rel[y].get(image[z], 0) != rel[x][z] for z in earlier[x]):
                continue
            if any(pre[w] != -1 and rel[x].get(pre[w], 0) != r for w, r in rel[y].items()):
                continue
            out.append(y)
        return out

    stack, next_ = [candidates(0)], [0]
    while stack:
        i = len(stack) - 1
        x = order[i]
        if image[x] != -1:  # undo this level's last choice
            pre[image[x]] = -1
            image[x] = -1
        if next_[i] == len(stack[i]):
            stack.pop()
            next_.pop()
            continue
        y = stack[i][next_[i]]
        next_[i] += 1
        image[x] = y
        if any((min(image[a], image[c]), image[b], max(image[a], image[c])) not in line_set
               for a, b, c in closing[i]):
            image[x] = -1
            continue
        pre[y] = x
        if i + 1 == n:
            found.append(tuple(image))
            if len(found) > MAX_SYMMETRIES:  # identical disconnected pieces: give up, stay sound
                return (tuple(range(n)),)
            continue
        stack.append(candidates(i + 1))
        next_.append(0)

    found.sort(key=lambda p: (p != tuple(range(n)), p))
    return tuple(found)


def as_id(text: str) -> int | None:
    """A plain decimal hole id (ASCII digits, few enough to be one), else None."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else None


def parse_holes(board: Board, items) -> list[int]:
    """Holes from names or ids: a string of names separated by spaces or commas, or a list."""
    if isinstance(items, str):
        items = [t for t in re.split(r"[\s,;]+", re.sub(r"#[^\n]*", " ", items)) if t]
    out = []
    for it in items:
        s = str(it)
        if board.has_hole(s):
            out.append(board.hole(s))
        elif isinstance(it, int) or (s.isascii() and s.isdigit()):
            h = it if isinstance(it, int) else as_id(s)
            if h is None or not 0 <= h < board.n:
                raise NotationError(f"hole id {clip(s)} is not on board {board.name} (0..{board.n - 1})")
            out.append(h)
        else:
            raise NotationError(f"board {board.name} has no hole named {clip(s)!r}")
    return out
