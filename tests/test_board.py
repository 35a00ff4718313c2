import pytest

from pegsat.errors import BoardError
from pegsat.model.boardfile import load_board, parse_board_text
from pegsat.model.catalogue import get_board

# name -> (holes, directed jumps, symmetries)
CATALOGUE = {
    "english": (33, 76, 8),
    "french": (37, 92, 8),
    "german": (45, 108, 8),
    "diamond": (41, 100, 8),
    "asymmetric": (39, 92, 2),
    "english-diagonal": (33, 136, 8),
    "hopping-dots": (13, 32, 8),
    "triangle-4": (10, 18, 6),
    "triangle-5": (15, 36, 6),
    "triangle-8": (36, 126, 6),
    "square-4x4": (16, 32, 8),
    "square-3x5": (15, 28, 4),
    "square-1x5": (5, 6, 2),
}


@pytest.mark.parametrize("name", CATALOGUE)
def test_catalogue_counts(name):
    b = get_board(name)
    assert (b.n, len(b.jumps), len(b.symmetries)) == CATALOGUE[name]


@pytest.mark.parametrize("name", CATALOGUE)
def test_symmetries_map_lines_to_lines(name):
    b = get_board(name)
    lines = set(b.lines)
    assert b.symmetries[0] == tuple(range(b.n))
    for p in b.symmetries:
        assert sorted(p) == list(range(b.n))
        for a, m, c in b.lines:
            assert (min(p[a], p[c]), p[m], max(p[a], p[c])) in lines


def test_triangle_family_sizes():
    for n in range(4, 10):
        b = get_board(f"triangle-{n}")
        assert b.n == n * (n + 1) // 2
        assert len(b.jumps) == 2 * 3 * sum(range(1, n - 1))


def test_english_names_and_centre():
    b = get_board("english")
    assert b.names[b.centre] == "d4"
    assert {"c1", "e1", "a3", "g5", "c7", "e7"} <= set(b.names)
    assert not b.has_hole("a1")


def test_triangle_bell_names():
    b = get_board("triangle-5")
    assert b.names[0] == "a1"
    bottom = [h for h in range(b.n) if b.names[h].endswith("5")]
    assert sorted(b.names[h] for h in bottom) == ["a5", "b5", "c5", "d5", "e5"]
    # the interior holes are the ones in the middle of six lines... of three directions
    interior = {b.names[h] for h in range(b.n) if sum(h == m for _, m, _ in b.lines) == 3}
    assert interior == {"b3", "b4", "c4"}


def test_hopping_dots_lines():
    b = get_board("hopping-dots")
    got = {"-".join(b.names[h] for h in ln) for ln in b.lines}
    want = ("1-2-3 1-6-11 3-8-13 11-12-13 1-4-7 2-4-6 2-5-8 3-5-7 6-9-12 7-9-11 8-10-12 "
            "7-10-13 4-7-10 5-7-9 6-7-8 2-7-12").split()
    # same triples with the same middle hole
    assert len(got) == 16
    assert {(x.split("-")[1], frozenset(x.split("-"))) for x in got} == \
        {(x.split("-")[1], frozenset(x.split("-"))) for x in want}


def test_board_files_match_catalogue(instances):
    for fname, name in [("english.txt", "english"), ("triangle5.txt", "triangle-5"),
                        ("hopping-dots.txt", "hopping-dots")]:
        mine, ref = load_board(str(instances / "boards" / fname)), get_board(name)
        assert mine.names == ref.names and mine.lines == ref.lines


def test_hexagon_board(instances):
    b = load_board(str(instances / "boards" / "hexagon19.txt"))
    assert b.n == 19 and len(b.symmetries) == 12 and b.names[b.centre] == "c3"


@pytest.mark.parametrize("text, message", [
    ("triangular\n  o\n o o\no  o\n", "board.txt:4: hole at column 4 is off the triangular lattice"),
    ("graph\nhole a\nhole b\nhole c\nline a b d\n", "board.txt:5: line names unknown hole 'd'"),
    ("graph\nhole a\nhole a\n", "board.txt:3: duplicate hole 'a'"),
    ("square\no o\n\no\n", "board.txt: the board has no jump at all"),
    ("graph\nhole a\nhole b\n", "board.txt: the board has no jump at all"),
    ("hexagonal\nooo\n", "board.txt:1: first line must name the kind"),
    ("square\nooq\n", "board.txt:2: unknown mark 'q' at column 3"),
])
def test_malformed_board_files(text, message):
    with pytest.raises(BoardError) as exc:
        parse_board_text(text, source="board.txt")
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_unknown_board():
    with pytest.raises(BoardError, match="unknown board 'englsh'"):
        get_board("englsh")


def _brute_force_automorphisms(board):
    from itertools import permutations

    lines = set(board.lines)
    out = set()
    for p in permutations(range(board.n)):
        if all((min(p[a], p[c]), p[b], max(p[a], p[c])) in lines for a, b, c in board.lines):
            out.add(p)
    return out


@pytest.mark.parametrize("lattice, cells", [
    ("square", [(0, 0), (0, 1), (0, 2), (1, 1), (2, 1), (2, 0)]),
    ("square+diagonal", [(r, c) for r in range(3) for c in range(3) if (r, c) != (0, 2)]),
    ("triangular", [(0, 0), (0, 2), (0, 4), (1, 1), (1, 3), (2, 2), (0, 6)]),
    ("square", [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]),
])
def test_symmetries_are_every_line_preserving_permutation(lattice, cells):
    from pegsat.model.lattice import board_from_cells

    b = board_from_cells("x", lattice, cells)
    assert set(b.symmetries) == _brute_force_automorphisms(b)


def test_symmetry_search_scales_to_large_boards():
    """Iterative backtracking: no recursion limit (square-40x40 died with RecursionError)."""
    assert len(get_board("square-40x40").symmetries) == 8
    assert len(get_board("triangle-40").symmetries) == 6


def test_huge_coordinates_are_refused_not_drawn(tmp_path):
    f = tmp_path / "big.txt"
    f.write_text("graph\nhole 1 0 0\nhole 2 0 2\nhole 3 99999999999 4\nline 1 2 3\n")
    with pytest.raises(BoardError, match="coordinates span"):
        load_board(str(f))


def test_boards_with_too_many_symmetries_keep_the_identity_only():
    """Thirty identical three-hole pieces permute freely (30! 2^30 automorphisms): the search
    gives up after MAX_SYMMETRIES instead of exhausting memory (found by the fuzz test)."""
    b = parse_board_text("square\n" + "ooo  " * 30 + "\n", name="pieces")
    assert b.symmetries == (tuple(range(b.n)),)
