"""Pictures of plans: SVG for every lattice and graph board; the HTML page in a real browser."""

import re
import zlib

import pytest
from click.testing import CliRunner

from pegsat.apps.solve import solve
from pegsat.cli import main
from pegsat.engine.bitboard import replay_plan
from pegsat.formats.render import plan_html, plan_strip, plan_svg
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, single_vacancy

BERGHOLT = ("f4-d4 e6-e4 g5-e5 d5-f5 b5-d5 c7-c5 c4-c6 e7-c7-c5 e3-e5 e1-e3 c2-c4-c6-e6-e4-e2 "
            "g3-g5-e5-c5 a3-c3 d3-b3 a5-a3-c3 c1-e1-e3 f3-d3-b3-b5-d5-d3 d2-d4")


def solved(board: str, **kw) -> tuple[Problem, tuple]:
    b = get_board(board)
    if "special" in kw:
        p = Problem(b, b.full & ~(1 << b.hole("7")), Goal.one_peg(), special=b.hole(kw["special"]))
    elif "pegs" in kw:  # a small start: quick to solve, still uses the board's diagonal lines
        p = Problem(b, sum(1 << b.hole(h) for h in kw["pegs"]), Goal.one_peg())
    else:
        p = single_vacancy(b, b.hole(kw["vacant"]), Goal.one_peg())
    r = solve(p)
    return p, r.plan


BOARDS = [("triangle-5", {"vacant": "a1"}), ("hopping-dots", {"special": "1"}),
          ("english-diagonal", {"pegs": ("c3", "d4", "f4", "f3")}), ("triangle-6", {"vacant": "a1"})]


@pytest.mark.parametrize("board, kw", BOARDS)
def test_svg_and_html_for_every_kind_of_board(board, kw):
    p, plan = solved(board, **kw)
    moves = replay_plan(p, plan).moves
    svg = plan_svg(p, plan)
    assert svg.startswith("<svg") and svg.count('class="move"') == moves
    assert svg.count('class="hole"') == p.board.n
    page = plan_html(p, plan)
    assert page.startswith("<!DOCTYPE html>") and "http" not in page.replace("http://www.w3.org", "")
    strip = plan_strip(p, plan)
    assert strip.count('class="panel"') == moves and strip.count('class="move"') == moves
    assert strip.count('class="removed"') == len(plan)  # every jumped peg crossed out once


def test_strip_is_numbered_in_play_order_and_wraps(tmp_path):
    out = tmp_path / "b.svg"
    r = CliRunner().invoke(main, ["render", "english", BERGHOLT, "--survivor", "d4", "--out", str(out),
                                  "--per-row", "5"])
    assert r.exit_code == 0, r.output
    svg = out.read_text()
    captions = re.findall(r'font-size="11">(\d+)\. ([a-g0-9-]+)</text>', svg)
    assert [int(n) for n, _ in captions] == list(range(1, 19))
    assert captions[10][1] == "c2-c4-c6-e6-e4-e2"
    ys = sorted({float(y) for y in re.findall(r'<rect x="[\d.]+" y="([\d.]+)" width', svg)})
    assert len(ys) == 4  # 18 boards, 5 per row
    r = CliRunner().invoke(main, ["render", "english", BERGHOLT, "--survivor", "d4", "--out", str(out),
                                  "--overview"])
    assert out.read_text().count('class="panel"') == 0 and out.read_text().count('class="move"') == 18


def test_render_cli_rejects_bad_plans_and_formats(tmp_path):
    r = CliRunner().invoke(main, ["render", "english", "f4-d4 f4-d4", "--out", str(tmp_path / "x.svg")])
    assert r.exit_code == 1 and "step 2" in r.output and not (tmp_path / "x.svg").exists()
    r = CliRunner().invoke(main, ["render", "english", BERGHOLT, "--survivor", "d4",
                                  "--out", str(tmp_path / "x.png")])
    assert r.exit_code == 2 and "give a .svg or .html file" in r.output


def _png_colours(path) -> int:
    """Distinct byte values in the decompressed image data: a blank page has very few."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    i, idat = 8, b""
    while i < len(data):
        n = int.from_bytes(data[i:i + 4], "big")
        if data[i + 4:i + 8] == b"IDAT":
            idat += data[i + 8:i + 8 + n]
        i += 12 + n
    return len(set(zlib.decompress(idat)))


@pytest.mark.external
def test_html_page_in_headless_chromium(tmp_path, browser):
    from selenium.webdriver.support.ui import WebDriverWait

    page = tmp_path / "english.html"
    r = CliRunner().invoke(main, ["render", "english", BERGHOLT, "--survivor", "d4", "--out", str(page)])
    assert r.exit_code == 0, r.output
    # The page clicks "next" through all 18 moves itself and reports in its title.
    browser.get(f"file://{page}#selftest")
    WebDriverWait(browser, 60).until(lambda d: d.title.startswith("SELFTEST"))
    assert browser.title == "SELFTEST OK 18 steps", browser.title
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    # Opened at move 5: the status line says so, and a screenshot shows a drawn board.
    browser.get("about:blank")  # a new document, not a hash change of the old one
    browser.get(f"file://{page}#step=5")
    WebDriverWait(browser, 60).until(lambda d: "move 5 of 18" in d.page_source)  # drawn once loaded
    dom = browser.page_source
    assert "move 5 of 18: b5-d5" in dom
    assert dom.count('class="hole"') == 33
    shot = tmp_path / "shot.png"
    assert browser.save_screenshot(str(shot))
    assert shot.exists() and _png_colours(shot) > 20
