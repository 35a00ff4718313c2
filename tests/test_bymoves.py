"""Certificates of the fewest moves (kind ``moves``): written by ``prove_moves`` from the search
by moves, checked by the independent ``proofs.bymoves``, refused when tampered with, and never
taken for a refutation."""

import json
import re
import shutil

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import CHROMEDRIVER, CHROMIUM, NO_CHROMIUM, atlas_cell, reference_min_moves

from pegsat.apps.atlas import INDEX
from pegsat.apps.atlas import check as check_atlas
from pegsat.apps.solve import solve
from pegsat.checks import certificate, closure, evidence, positions
from pegsat.checks.moves import one_move
from pegsat.cli import main
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, single_vacancy
from pegsat.model.result import Status
from pegsat.proofs.prove import prove_moves

T5 = get_board("triangle-5")


def bounded(board, v, s, path):
    """The fewest moves of vacancy ``v`` -> survivor ``s`` (the planner's plan), certified at ``path``."""
    p = single_vacancy(board, board.hole(v), Goal.survivor(board, board.hole(s)))
    r = solve(p, "moves")
    assert r.status is Status.SOLVED_OPTIMAL
    got = prove_moves(p, r.plan, certificate_path=path)
    assert got.status is Status.SOLVED_OPTIMAL and got.certificate is not None, got.detail
    return p, r.moves


@pytest.fixture(scope="module")
def a1(tmp_path_factory):
    """Triangle-5 a1 -> a1's certificate (its last forward level probed)."""
    path = tmp_path_factory.mktemp("bound") / "a1.json"
    bounded(T5, "a1", "a1", path)
    return path


def verdict(path):
    return certificate.check(certificate.load(path), path.parent)


def test_the_certified_fewest_moves_are_dijkstras(tmp_path):
    """Differential: the moves each certificate proves (both probed sides among them) are the
    fewest a Dijkstra over (position, last peg) finds, and each checks."""
    sides = set()
    for v, s in [("a1", "a1"), ("a2", "c3"), ("a3", "a3"), ("b3", "c5"), ("a1", "c5")]:
        path = tmp_path / f"{v}-{s}.json"
        p, moves = bounded(T5, v, s, path)
        assert moves == reference_min_moves(p)
        data = certificate.load(path)
        assert data["kind"] == "moves" and data["evidence"]["moves"] == moves
        sides.add(data["evidence"]["probe"])
        v = verdict(path)
        assert v.ok and f"every plan has at least {moves} moves" in v.message, v.message
    assert sides == {"forward", "backward"}


@pytest.mark.slow  # 15 s; the triangle cases above walk the same checker in the default run
def test_the_english_central_game_needs_18_moves_checked_by_the_command(tmp_path):
    e = get_board("english")
    path = tmp_path / "d4.json"
    bounded(e, "d4", "d4", path)
    r = CliRunner().invoke(main, ["check", str(path)])
    assert r.exit_code == 0 and "moves certificate holds" in r.output, r.output
    assert "every plan has at least 18 moves" in r.output
    # a quarter turn alone is no group: the two sides could hold one position as two images
    data = json.loads(path.read_text())
    n = e.n
    quarter = next(p for p in data["evidence"]["symmetries"]
                   if [p[p[h]] for h in range(n)] != list(range(n)) and p != list(range(n)))
    data["evidence"]["symmetries"] = [quarter]
    path.write_text(json.dumps(data))
    v = verdict(path)
    assert not v.ok and "the symmetries are not a group" in v.message, v.message


def test_one_move_is_a_chain_and_undone_it_comes_back():
    """A chain: every jump by the peg that jumped last (a1 -> a3 -> c5 ...); undone from any of
    its ends, the start is among the positions one move back."""
    start = T5.full & ~(1 << T5.hole("a1"))
    x = np.array([start], dtype=np.uint64)
    kids = closure.distinct(one_move(x, T5.jumps))
    assert len(kids) == 2  # a3 or c3 jumps into a1, and can go no further
    for k in kids:
        back = one_move(np.array([k], dtype=np.uint64), T5.jumps, back=True)
        assert start in set(back.tolist())


def copy_with(src, tmp_path, edit, levels=None):
    """A copy of the certificate at ``src`` with its evidence edited, and (``levels``:
    (side, d) -> new positions) level files rewritten with their SHA-256."""
    dst = tmp_path / "t"
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src.parent, dst)
    path = dst / src.name
    data = json.loads(path.read_text())
    ev = data["evidence"]
    for (side, d), x in (levels or {}).items():
        it = ev[side][d]
        with open(dst / it["file"], "wb") as fh:
            positions.save_positions(fh, np.array(sorted(x), dtype=np.uint64))
        it["count"], it["sha256"] = len(x), evidence.sha256(dst / it["file"])
    edit(ev)
    path.write_text(json.dumps(data))
    return path


def level(path, side, d):
    it = json.loads(path.read_text())["evidence"][side][d]
    return positions.load_positions(path.parent / it["file"], it["count"]).tolist()


def test_tampering_is_refused(a1, tmp_path):
    assert verdict(a1).ok
    # past ``walk_above`` positions (an atlas rebuilt) its files are checked, its walk left to ``check``
    v = certificate.check(certificate.load(a1), a1.parent, walk_above=1)
    assert not v.ok and not v.finished and "not walked here" in v.message
    ev = json.loads(a1.read_text())["evidence"]
    a, b = len(ev["forward"]) - 1, len(ev["backward"]) - 1
    f2, b1 = level(a1, "forward", 2), level(a1, "backward", 1)
    cases = {
        "claims": (lambda e: e.update(moves=e["moves"] + 1), None),
        "more than the bound": (lambda e: e.update(upper=e["moves"] - 1), None),
        "follows level 1 by one move": (lambda e: None, {("forward", 2): f2[1:]}),
        "follows backward level 0 by one move undone": (lambda e: None, {("backward", 1): b1[1:]}),
        "in a forward and a backward level": (lambda e: None,
                                              {("forward", a): level(a1, "forward", a) + [b1[0]]}),
        "not a Merson region": (lambda e: e["regions"].__setitem__(3, e["regions"][3][:1]), None),
        "shares a hole": (lambda e: e["regions"].append(e["regions"][0][:1]), None),
        "the certificate claims": (lambda e: e.update(probe=""), None),  # a probe dropped: one move less
        "does not match its SHA-256": (lambda e: e["forward"][1].update(sha256="0" * 64), None),
    }
    for why, (edit, levels) in cases.items():
        v = verdict(copy_with(a1, tmp_path, edit, levels))
        assert not v.ok and why in v.message, (why, v.message)
    assert a >= 3 and b >= 2


@pytest.mark.parametrize("on_disk", [False, True])
def test_the_levels_rebuilt_by_the_check_need_no_level_file(a1, tmp_path, monkeypatch, on_disk):
    """``check --rebuild``: with every level file gone, the certificate file alone checks (the
    checker builds the levels by moves itself, no larger than the stated ones), in memory or,
    past the memory budget, on disk; a stated count below what the levels hold, a bound below
    the moves, a probe dropped, a claim raised are refused."""
    from pegsat.checks import moves

    if on_disk:
        monkeypatch.setattr(moves, "REBUILD_BYTES", 1 << 40)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "a1.json").write_text(a1.read_text())
    r = CliRunner().invoke(main, ["check", str(alone / "a1.json")])
    assert r.exit_code == 1 and "is missing" in r.output, r.output
    r = CliRunner().invoke(main, ["check", str(alone / "a1.json"), "--rebuild"])
    assert r.exit_code == 0 and "rebuilt by the check" in r.output, r.output
    assert ("closed under moves into the levels" in r.output) == on_disk  # the route taken
    assert "every plan has at least" in r.output
    data = json.loads(a1.read_text())
    cases = {
        "the certificate states": lambda e: e["forward"][2].update(count=e["forward"][2]["count"] - 1),
        "more than the bound": lambda e: e.update(upper=e["moves"] - 1),
        "the certificate claims": lambda e: e.update(probe=""),
    }
    cases["certificate claims"] = lambda e: e.update(moves=e["moves"] + 1)
    for why, edit in cases.items():
        bad = json.loads(json.dumps(data))
        edit(bad["evidence"])
        for reference in (False, True):  # the compiled loops and numpy's reference alike
            v = certificate.check(bad, alone, rebuild=True, reference=reference)
            assert not v.ok and v.finished and why in v.message, (why, reference, v.message)
    assert certificate.check(data, alone, rebuild=True, reference=True).ok


@pytest.fixture(scope="module")
def cut(tmp_path_factory):
    """Triangle-5 a1 -> a1's certificate from a search cut by pagodas (learned at once: here
    no quick phase runs without them)."""
    from pegsat.analysis import pagoda
    from pegsat.planners import moves

    path = tmp_path_factory.mktemp("cut") / "a1.json"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(moves, "QUICK_S", 0.0)
        mp.setattr(pagoda, "LEARN_SECONDS", 600.0)  # every playout, however loaded the machine
        bounded(T5, "a1", "a1", path)
    assert json.loads(path.read_text())["evidence"]["pagodas"]
    return path


def test_the_pagodas_that_cut_the_levels_are_checked(cut, tmp_path):
    """The pagodas in a certificate are verified (no jump raises one; no goal position below
    a floor) and are what lets its levels be smaller: without them a child is unaccounted."""
    v = verdict(cut)
    assert v.ok and "pagodas" in v.message, v.message
    n = len(json.loads(cut.read_text())["evidence"]["pagodas"])
    assert f"{n} pagodas" in v.message
    cases = {
        "neither excluded nor in": lambda e: e.update(pagodas=[]),
        "increases on jump": lambda e: e["pagodas"][0]["weights"].update(a1=10**6),
        "weighs less than its floor": lambda e: e["pagodas"][0].update(floor=e["pagodas"][0]["floor"] + 99),
    }
    for why, edit in cases.items():
        v = verdict(copy_with(cut, tmp_path, edit))
        assert not v.ok and why in v.message, (why, v.message)
    # rebuilt: the pagodas are what keeps the levels the checker builds within the stated ones
    data = json.loads(cut.read_text())
    assert certificate.check(data, tmp_path, rebuild=True).ok
    # an atlas being built (``walk_above``): past that size only the premises, the walk is ``check``'s
    v = certificate.check(data, tmp_path, rebuild=True, walk_above=0)
    assert not v.finished and "rebuilt by a whole check only" in v.message, v.message
    bad = json.loads(json.dumps(data))
    bad["evidence"]["pagodas"][0]["weights"].update(a1=10**6)
    v = certificate.check(bad, tmp_path, rebuild=True, walk_above=0)
    assert v.refused and "increases on jump" in v.message, v.message
    data["evidence"]["pagodas"] = []
    v = certificate.check(data, tmp_path, rebuild=True)
    assert not v.ok and "the certificate states" in v.message, v.message
    with pytest.MonkeyPatch.context() as mp:  # the same on disk
        from pegsat.checks import moves

        mp.setattr(moves, "REBUILD_BYTES", 1 << 40)
        v = certificate.check(data, tmp_path, rebuild=True)
        assert not v.ok and "the certificate states" in v.message, v.message
        data["evidence"]["pagodas"] = json.loads(cut.read_text())["evidence"]["pagodas"]
        v = certificate.check(data, tmp_path, rebuild=True)
        assert v.ok and "closed under moves into the levels" in v.message, v.message


@pytest.fixture(scope="module")
def atlas(tmp_path_factory):
    """The triangle-5 atlas with its fewest moves, built once through the CLI."""
    root = tmp_path_factory.mktemp("atlas") / "triangle-5"
    r = CliRunner().invoke(main, ["survey", "triangle-5", "--certificates", str(root), "--quiet",
                                  "--min-moves"])
    assert r.exit_code == 0 and "0 unknown" in r.output, r.output
    return root


def edited(atlas, tmp_path, edit):
    """The atlas's check after ``edit`` of its index (on a copy)."""
    root = tmp_path / "copy"
    shutil.copytree(atlas, root)
    data = json.loads((root / INDEX).read_text())
    edit(data["cells"])
    (root / INDEX).write_text(json.dumps(data))
    return check_atlas(root)


def test_every_fewest_moves_of_an_atlas_is_certified(atlas):
    report = check_atlas(atlas)
    assert report.ok and report.kinds["plan (fewest moves certified)"] == 54, report.lines()


def test_a_bound_is_never_a_refutation(a1, atlas, tmp_path):
    """Held by a ``reversed`` certificate, or named by an unsolvable cell of an atlas, a
    ``moves`` certificate (which holds: a1 -> a1 is solvable) is refused."""
    from pegsat.model.problem import dual

    p = single_vacancy(T5, T5.hole("a1"), Goal.survivor(T5, T5.hole("a1")))
    held = json.loads(a1.read_text())
    held["problem"] = certificate.make(dual(p), "moves", {})["problem"]
    v = certificate.check(certificate.make(p, "reversed", {"certificate": held}), a1.parent)
    assert not v.ok and "not a certificate of a plain kind" in v.message

    def refute_by_a_bound(cells):
        own = next(c for c in cells if c["status"] == "unsolvable" and c["via"] is None)
        own.update(kind="moves", certificate=next(c["bound"] for c in cells if c["bound"] and not c["via"]))
    report = edited(atlas, tmp_path, refute_by_a_bound)
    assert any("not a refutation" in f for f in report.failures), report.lines()


def test_an_atlas_bound_of_another_cell_is_refused(atlas, tmp_path):
    def swap(cells):
        reps = [c for c in cells if c["bound"] and c["via"] is None]
        reps[0]["bound"] = next(c["bound"] for c in reps if c["moves"] != reps[0]["moves"])
    report = edited(atlas, tmp_path, swap)
    assert any("about another problem" in f for f in report.failures), report.lines()


def test_solve_min_moves_writes_the_certificate(tmp_path):
    path = tmp_path / "c.json"
    r = CliRunner().invoke(main, ["solve", "triangle-5", "--vacant", "a1", "--survivor", "a1", "--min-moves",
                                  "--certificate", str(path)])
    assert r.exit_code == 0 and f"certificate: {path}" in r.output, r.output
    assert verdict(path).ok
    r = CliRunner().invoke(main, ["solve", "triangle-5", "--certificate", str(tmp_path / "x.json")])
    assert r.exit_code == 2 and "add --min-moves" in r.output
    r = CliRunner().invoke(main, ["solve", "english", "--survivor", "c4", "--min-moves", "--certificate",
                                  str(tmp_path / "y.json")])
    assert r.exit_code == 10 and "no certificate written" in r.output and not (tmp_path / "y.json").exists()


@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason=NO_CHROMIUM)
def test_the_pages_say_certified_and_link_the_certificate(atlas, tmp_path, browser):
    """In headless chromium: a solvable cell of a --min-moves atlas shows its fewest moves as
    certified and links their certificate, with no console error."""
    from selenium.webdriver.common.by import By

    site = tmp_path / "site"
    r = CliRunner().invoke(main, ["atlas", str(atlas), "--out", str(site)])
    assert r.exit_code == 0, r.output
    driver = browser
    atlas_cell(driver, site / "triangle-5" / "index.html", "a1", "a1")
    verdict = driver.find_element(By.ID, "verdict").text
    assert "one peg at a1: solvable, 10 (fewest, certified) moves" in verdict, verdict
    href = driver.find_element(By.ID, "bound-link").get_attribute("href")
    assert href.endswith("a1-a1.moves.json")
    assert (site / "triangle-5" / "certs" / "a1-a1.moves.json").is_file()
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_a_bound_too_large_for_the_memory_budget_is_not_settled_not_failed(atlas, monkeypatch):
    monkeypatch.setenv("PEGSAT_MEMORY_GB", "0.000001")  # a kilobyte: no level fits
    report = check_atlas(atlas)
    assert not report.failures, report.lines()
    assert any("its fewest moves: levels of" in u for u in report.unfinished), report.lines()


def test_a_walk_cut_short_writes_nothing(tmp_path, monkeypatch):
    """prove_moves keeps a certificate only once its whole walk passed: a limit in the walk is
    "unknown" with nothing on disk."""
    from pegsat.checks import moves as moves_check
    from pegsat.checks.verdict import unsettled

    monkeypatch.setattr(moves_check, "check", lambda *a, **k: (unsettled("time limit in level 3"), 0))
    p = single_vacancy(T5, T5.hole("a1"), Goal.survivor(T5, T5.hole("a1")))
    r = prove_moves(p, solve(p, "moves").plan, certificate_path=tmp_path / "c.json")
    assert r.status is Status.UNKNOWN and "level 3; no certificate written" in r.detail, r.detail
    assert not list(tmp_path.iterdir())


@pytest.mark.slow  # 9 s alone; the atlas takes a levels certificate on disk by default (test_atlas.py)
def test_past_the_memory_budget_an_atlas_certifies_its_fewest_moves_on_disk(tmp_path, monkeypatch, cluster):
    """When the search in memory cannot write a representative's certificate (here: it
    always says "unknown"), ``survey --min-moves --spill`` runs the search by moves on disk
    under the plan's moves and moves its levels into the atlas: every fewest moves is
    certified all the same, and ``check`` walks them."""
    from pegsat.apps.atlas import build
    from pegsat.model.result import Result
    from pegsat.proofs import prove

    monkeypatch.setattr(prove, "prove_moves", lambda p, plan, deadline, **kw: Result(
        Status.UNKNOWN, p, "moves", detail="memory budget: the levels would outgrow 0.0 GB"))
    root = tmp_path / "triangle-5"
    atlas = build(T5, root, min_moves=True, spill=tmp_path / "spill", scheduler=cluster)
    bounds = {c.bound for c in atlas.cells.values() if c.bound}
    assert bounds and all(b.endswith(".moves/certificate.json") for b in bounds), bounds
    assert all((root / b).is_file() for b in bounds) and not list((tmp_path / "spill").glob("*.moves"))
    report = check_atlas(root)
    assert report.ok and report.kinds["plan (fewest moves certified)"] == 54, report.lines()


def test_a_check_whose_buckets_do_not_fit_the_disk_goes_in_rounds(monkeypatch):
    """The partitioned levels of a search on disk (the fuzz corpus's), their children in
    bucket files: with room for 65 kB of buckets the larger steps are walked in rounds, each
    of a group of the level's partitions, each partition expanded once, to the same verdict;
    with no room at all the check is unfinished, not failed."""
    from functools import partial
    from pathlib import Path

    from pegsat.checks import kit
    from pegsat.checks import moves as moves_check
    from pegsat.model.codec import problem_from_json

    path = Path(__file__).parent / "fuzz" / "t6-a1-spill.cert.json"
    data = certificate.load(path)
    ev, p = data["evidence"], problem_from_json(data["problem"])
    index = {h: i for i, h in enumerate(p.board.names)}
    regions = [sum(1 << index[h] for h in r) for r in ev["regions"]]
    loaders = {side: [[partial(kit.load_level_part, path.parent / it["file"], it["count"], it["sha256"])
                       for it in lv] for lv in ev[side]] for side in moves_check.SIDES}
    sizes = {side: [sum(it["count"] for it in lv) for lv in ev[side]] for side in moves_check.SIDES}
    expanded = []
    real = moves_check.Moves.expand

    def counted(self, how, side, d, p, **kw):
        expanded.append((how, side, d, p))
        return real(self, how, side, d, p, **kw)
    monkeypatch.setattr(moves_check.Moves, "expand", counted)

    told: list[str] = []

    def run(room):
        expanded.clear()
        return moves_check.check(p, loaders["forward"], loaders["backward"], ev["symmetries"], regions,
                                 ev["upper"], ev["probe"], sizes=sizes, inline=False, room=room,
                                 progress=told.append)
    (whole, moves), once = run(None), sorted(expanded)
    assert whole.ok and moves == ev["moves"], whole.message
    told.clear()
    (rounds, moves) = run(65_000)
    assert rounds.ok and moves == ev["moves"] and rounds.walked == whole.walked, rounds.message
    assert sorted(expanded) == once  # each partition expanded once, in rounds of a level's partitions
    assert any(re.search(r", \d+ of its \d+ partitions into ", t) for t in told), told
    monkeypatch.setattr(moves_check, "REBUILD_BYTES", 1 << 40)  # rebuilt on disk: each round's added
    built = [certificate.check(data, path.parent, rebuild=True, room=room, progress=told.append)
             for room in (None, 65_000)]
    said = [v.message.split("): ", 1)[1] for v in built]  # the positions rebuilt, the moves walked
    assert all(v.ok for v in built) and said[0] == said[1] and "rebuilt by the check (" in said[0], said
    assert any(re.search(r"backward level \d+, \d+ of its \d+ partitions into .* rebuilt", t) for t in told)
    (none, _) = run(0)
    assert not none.finished and "no room on the disk" in none.message, none.message


def test_a_rebuild_on_disk_goes_on_from_its_journal(a1, tmp_path, monkeypatch):
    """A moves rebuild on disk stopped at level 3 ('out of time') keeps the levels it built
    beside its journal; run again, it takes the steps done from the journal, ends with the
    same verdict, and removes those levels."""
    from pegsat.checks import closure, moves

    monkeypatch.setattr(moves, "REBUILD_BYTES", 1 << 40)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "a1.json").write_text(a1.read_text())
    data = certificate.load(alone / "a1.json")
    journal = alone / "journal.json"
    real = moves.Moves.build
    monkeypatch.setattr(moves.Moves, "build", lambda self, side, d, q, seconds=None: (
        closure.UNSETTLED + "time limit" if d == 3 else real(self, side, d, q, seconds)))
    v = certificate.check(data, alone, journal=journal, rebuild=True)
    assert not v.finished and list((alone / "journal.json.levels").glob("*/forward-3")), v.message
    monkeypatch.setattr(moves.Moves, "build", real)
    again = certificate.check(data, alone, journal=journal, rebuild=True)
    assert again.ok and "taken from the journal" in again.message, again.message
    assert not (alone / "journal.json.levels").exists()
