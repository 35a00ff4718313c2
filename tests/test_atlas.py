"""Certified atlases: ``survey --certificates DIR`` builds them, ``pegsat check DIR`` re-verifies
them from the files alone and refuses every kind of tampering, ``pegsat atlas`` writes pages
tested in headless chromium."""

import json
import shutil

import pytest
from click.testing import CliRunner
from conftest import CHROMEDRIVER, CHROMIUM, NO_CHROMIUM, atlas_cell

from pegsat.apps.atlas import INDEX, build, check
from pegsat.cli import main
from pegsat.model.catalogue import get_board

T5 = get_board("triangle-5")


@pytest.fixture(scope="module")
def triangle(tmp_path_factory):
    """The triangle-5 atlas, built once through the CLI."""
    root = tmp_path_factory.mktemp("atlas") / "triangle-5"
    r = CliRunner().invoke(main, ["survey", "triangle-5", "--certificates", str(root), "--quiet",
                                  "--time-limit", "30"])
    assert r.exit_code == 0, r.output
    assert "225 problems" in r.output and "0 unknown" in r.output
    return root


def cells(root):
    return {(c["vacancy"], c["survivor"]): c for c in json.loads((root / INDEX).read_text())["cells"]}


def test_triangle_atlas_every_cell_settled_and_checked(triangle):
    got = cells(triangle)
    assert len(got) == 15 * 15 and all(c["status"] in ("solvable", "unsolvable") for c in got.values())
    kinds = {c["kind"] for c in got.values() if c["status"] == "unsolvable" and not c["via"]}
    assert kinds and kinds <= {"classes", "pagoda", "dead-set", "exhaustive", "sat", "counting"}
    assert any(c["via"] == "symmetry" for c in got.values() if c["status"] == "unsolvable")
    report = check(triangle)
    assert report.ok, report.lines()
    assert sum(report.kinds.values()) == 225
    v = report.verdict  # the one verdict type, for an atlas too
    assert v.ok and v.kind == "atlas" and v.walked == 225 and v.reason == report.lines()[0]
    r = CliRunner().invoke(main, ["check", str(triangle)])
    assert r.exit_code == 0 and "225 cells checked" in r.output, r.output


def tampered(triangle, tmp_path, change):
    copy = tmp_path / "copy"
    shutil.copytree(triangle, copy)
    change(copy)
    return check(copy)


def edit_index(copy, edit):
    data = json.loads((copy / INDEX).read_text())
    edit(data)
    (copy / INDEX).write_text(json.dumps(data))


def test_a_flipped_cell_an_edited_plan_a_missing_cell_are_refused(triangle, tmp_path):
    got = cells(triangle)
    solvable = next(k for k, c in got.items() if c["status"] == "solvable" and not c["via"])
    unsolvable = next(k for k, c in got.items() if c["status"] == "unsolvable" and not c["via"])
    image = next(k for k, c in got.items() if c["status"] == "unsolvable" and c["via"] == "symmetry")

    def flip(data):  # a solvable cell called unsolvable, naming another cell's certificate
        for c in data["cells"]:
            if (c["vacancy"], c["survivor"]) == solvable:
                c.update(status="unsolvable", kind=got[unsolvable]["kind"], plan=None, moves=None,
                         certificate=got[unsolvable]["certificate"])
    rep = tampered(triangle, tmp_path / "a", lambda d: edit_index(d, flip))
    assert not rep.ok and any("another problem" in f for f in rep.failures), rep.failures

    def edit_plan(data):  # the last move dropped
        for c in data["cells"]:
            if (c["vacancy"], c["survivor"]) == solvable:
                c["plan"] = c["plan"].rsplit(" ", 1)[0]
    rep = tampered(triangle, tmp_path / "b", lambda d: edit_index(d, edit_plan))
    assert not rep.ok and any("does not replay" in f or "moves" in f for f in rep.failures), rep.failures

    def bad_symmetry(data):  # the image's symmetry swapped for the identity
        for c in data["cells"]:
            if (c["vacancy"], c["survivor"]) == image:
                c["symmetry"] = list(range(15))
    rep = tampered(triangle, tmp_path / "c", lambda d: edit_index(d, bad_symmetry))
    assert not rep.ok and any("takes the representative" in f for f in rep.failures), rep.failures

    rep = tampered(triangle, tmp_path / "d", lambda d: edit_index(d, lambda x: x["cells"].pop()))
    assert not rep.ok and any("missing" in f for f in rep.failures)


def test_a_changed_certificate_is_refused(triangle, tmp_path):
    got = cells(triangle)
    by_kind = {c["kind"]: c for c in got.values() if c["status"] == "unsolvable" and not c["via"]}

    def weaken(copy):  # a class weighting or a pagoda changed
        c = by_kind.get("classes") or by_kind["pagoda"]
        path = copy / c["certificate"]
        data = json.loads(path.read_text())
        ev = data["evidence"]
        if data["kind"] == "classes":
            ev["weightings"][0]["holes"] = ev["weightings"][0]["holes"][:-1]
        else:
            first = next(iter(ev["weights"]))
            ev["weights"][first] = "1000"
        path.write_text(json.dumps(data))
    rep = tampered(triangle, tmp_path / "a", weaken)
    assert not rep.ok and any("certificate" in f and "rejected" in f for f in rep.failures), rep.failures


def test_english_atlas_end_to_end(tmp_path):
    board = get_board("english")
    atlas = build(board, tmp_path / "english", time_limit=30)
    assert atlas.counts()["unknown"] == 0
    report = check(tmp_path / "english")
    assert report.ok and sum(report.kinds.values()) == 33 * 33, report.lines()
    assert report.kinds["certificate: classes"] > 0 and report.kinds["plan"] > 0


@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason=NO_CHROMIUM)
def test_the_pages_in_headless_chromium(triangle, tmp_path, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    site = tmp_path / "site"
    r = CliRunner().invoke(main, ["atlas", str(triangle.parent), "--out", str(site)])
    assert r.exit_code == 0, r.output
    page = site / "triangle-5" / "index.html"
    assert page.is_file() and (site / "index.html").is_file()
    # the site's copy is itself an atlas: the command the page shows works there
    assert check(site / "triangle-5").ok
    driver = browser
    driver.get(f"file://{site / 'index.html'}")
    driver.find_element(By.LINK_TEXT, "triangle-5").click()
    Select(driver.find_element(By.ID, "vacancy")).select_by_value("a1")
    assert driver.current_url.endswith("#v=a1")
    assert "vacancy a1:" in driver.find_element(By.ID, "summary").text
    # a1 -> a1 is solvable (the classic); an unsolvable survivor of a1: colours and verdicts say so
    no = next(s for (v, s), c in cells(triangle).items() if v == "a1" and c["status"] == "unsolvable")
    hole = driver.find_element(By.CSS_SELECTOR, f'circle.hole[data-hole="{no}"]')
    assert "unsolvable" in hole.get_attribute("class")
    hole.click()
    verdict = driver.find_element(By.ID, "verdict").text
    assert f"a1 \u2192 one peg at {no}: unsolvable" in verdict and "certificate" in verdict
    assert driver.find_element(By.ID, "certificate-link").get_attribute("href").endswith(".json")
    driver.find_element(By.CSS_SELECTOR, 'circle.hole[data-hole="a1"]').click()
    assert "a1 \u2192 one peg at a1: solvable" in driver.find_element(By.ID, "verdict").text
    driver.find_element(By.ID, "plan-link").click()
    WebDriverWait(driver, 10).until(lambda d: "plans/a1-a1.html" in d.current_url)
    assert len(driver.find_elements(By.CSS_SELECTOR, ".hole")) == 15
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    driver.save_screenshot(str(tmp_path / "atlas.png"))


def test_a_dead_set_short_of_a_position_or_with_a_raised_floor_is_refused(triangle, tmp_path):
    """The sceptic's tampering with the exhausted searches' certificates, the file's SHA-256 and
    count made to match: the independent checker still refuses."""
    import numpy as np

    from pegsat.checks.evidence import sha256
    from pegsat.checks.positions import load_positions, save_positions

    dead = next(c for c in cells(triangle).values() if c["kind"] == "dead-set" and not c["via"])

    def drop_one(copy):
        path = copy / dead["certificate"]
        data = json.loads(path.read_text())
        ev = data["evidence"]
        npz = path.parent / ev["positions"]
        pos = load_positions(npz, ev["count"])
        with open(npz, "wb") as fh:
            save_positions(fh, np.delete(pos, len(pos) // 2))
        ev.update(count=ev["count"] - 1, sha256=sha256(npz))
        path.write_text(json.dumps(data))
    rep = tampered(triangle, tmp_path / "a", drop_one)
    assert not rep.ok and any("dead" in f or "child" in f for f in rep.failures), rep.failures

    def raise_floor(copy):
        path = copy / dead["certificate"]
        data = json.loads(path.read_text())
        data["evidence"]["pagodas"][0]["floor"] = 100
        path.write_text(json.dumps(data))
    rep = tampered(triangle, tmp_path / "b", raise_floor)
    assert not rep.ok and any("rejected" in f for f in rep.failures), rep.failures


def test_what_the_survey_leaves_unknown_goes_to_prove(tmp_path, monkeypatch):
    """A survey that settled nothing (as if every problem ran out of time): ``prove`` settles
    each representative, with a plan (its depth-first search finds one) or a certificate."""
    import pegsat.apps.survey as survey

    monkeypatch.setattr(survey, "run", lambda *a, **k: {})
    atlas = build(T5, tmp_path / "t5", time_limit=5)
    assert atlas.counts()["unknown"] == 0 and atlas.counts()["solvable"] == 54
    assert check(tmp_path / "t5").ok


def test_a_vacancy_whose_open_game_is_refuted_covers_its_survivors(tmp_path, monkeypatch):
    """Survivors ``prove`` leaves open (as diamond e1's do within its limit) are settled by
    their vacancy's open game (one peg anywhere: triangle-4 a1, by position classes), whose
    one certificate every such cell names and ``check`` accepts for them; a cell of another
    vacancy that names it is refused."""
    import pegsat.proofs.prove as P
    from pegsat.model.result import Result, Status

    real = P.prove

    def open_games_only(problem, *a, **k):
        if problem.goal.full:  # a fixed survivor: left open
            return Result(Status.UNKNOWN, problem, "prove", detail="left open by the test")
        return real(problem, *a, **k)

    monkeypatch.setattr(P, "prove", open_games_only)
    board = get_board("triangle-4")
    root = tmp_path / "t4"
    atlas = build(board, root, time_limit=5)
    mine = [c for c in atlas.cells.values() if c.vacancy == "a1"]
    assert all(c.status == "unsolvable" for c in mine)
    assert {c.certificate for c in mine if c.via is None} == {"certs/a1-any.json"}
    report = check(root)
    assert report.ok, report.lines()
    other = next(c for c in cells(root).values() if c["vacancy"] != "a1" and c["status"] == "unsolvable"
                 and not c["via"])

    def point_elsewhere(data):
        for c in data["cells"]:
            if (c["vacancy"], c["survivor"]) == (other["vacancy"], other["survivor"]):
                c.update(certificate="certs/a1-any.json", kind="classes")
    edit_index(root, point_elsewhere)
    report = check(root)
    assert any("another problem" in f for f in report.failures), report.lines()


def test_a_levels_certificate_the_survey_left_is_taken_into_the_atlas(triangle, tmp_path, request):
    """b3 -> b3's search by jumps out of core (as ``survey --spill`` runs it when the planners
    leave it open) keeps its levels and their certificate in SPILL/b3-b3; rebuilt without its
    own certificate, the atlas moves them in, ``check`` walks them, and the pages link them
    rather than copy them; with the level files gone, ``check(rebuild=True)`` builds them."""
    from pegsat.apps.atlas import site
    from pegsat.apps.solve import solve
    from pegsat.deadline import Deadline
    from pegsat.model.problem import Goal, single_vacancy
    from pegsat.planners.config import Config, Disk

    spill = tmp_path / "spill"
    p = single_vacancy(T5, T5.hole("b3"), Goal.survivor(T5, T5.hole("b3")))
    r = solve(p, "layers", Config(workers=1, disk=Disk(spill / "b3-b3", first=True)), Deadline(60))
    assert r.certificate is not None and r.certificate["kind"] == "levels"
    root = tmp_path / "t5"
    shutil.copytree(triangle, root)  # its survey's results: nothing is solved again
    (root / "certs" / "b3-b3.json").unlink()
    atlas = build(T5, root, time_limit=5, spill=spill)
    cell = atlas.cells[(T5.hole("b3"), T5.hole("b3"))]
    assert (cell.kind, cell.certificate) == ("levels", "certs/b3-b3.levels/certificate.json")
    assert not (spill / "b3-b3").exists() and atlas.counts()["unknown"] == 0
    report = check(root)
    assert report.ok and report.kinds["certificate: levels"] == 1, report.lines()
    site(root, tmp_path / "site")
    level = next((root / "certs" / "b3-b3.levels" / "forward").rglob("*.lvl"))
    copy = tmp_path / "site" / "triangle-5" / level.relative_to(root)
    assert copy.is_file() and copy.stat().st_ino == level.stat().st_ino
    if CHROMIUM is not None and CHROMEDRIVER is not None:  # the page gives the command for the file alone
        driver = request.getfixturevalue("browser")
        said = atlas_cell(driver, tmp_path / "site" / "triangle-5" / "index.html", "b3", "b3").text
        assert "pegsat check certs/b3-b3.levels/certificate.json --rebuild" in said, said
        assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    shutil.rmtree(root / "certs" / "b3-b3.levels" / "forward")  # the level files gone: the certificate alone
    assert not check(root).ok
    report = check(root, rebuild=True)
    assert report.ok and report.kinds["certificate: levels"] == 1, report.lines()


def test_a_certificate_given_alone_is_taken_and_walked_by_a_rebuild(triangle, tmp_path, monkeypatch, request):
    """b3 -> b3's levels certificate carried without its files (as instances/certificates/ ships
    German e1 -> e1's) and given to the atlas (``survey --given``): taken for its cell and
    rebuilt at build; past ``WALK_AT_BUILD`` only its premises are checked there, so a count
    edited in it is taken, and refused by ``check --rebuild``; a plain check says it is not
    settled (only a rebuild can walk it). A false premise is not taken; a bound, another
    board's certificate, or --given without --certificates is one line and exit 2."""
    import pegsat.apps.atlas as A
    from pegsat.apps.solve import solve
    from pegsat.deadline import Deadline
    from pegsat.model.problem import Goal, single_vacancy
    from pegsat.planners.config import Config, Disk

    p = single_vacancy(T5, T5.hole("b3"), Goal.survivor(T5, T5.hole("b3")))
    r = solve(p, "layers", Config(workers=1, disk=Disk(tmp_path / "spill", first=True)), Deadline(60))
    assert r.certificate is not None and r.certificate["kind"] == "levels"
    given = tmp_path / "given" / "b3-b3.json"
    given.parent.mkdir()
    given.write_text(json.dumps(r.certificate))

    def built(where, cert, **kw):
        root = tmp_path / where
        shutil.copytree(triangle, root)  # its survey's results: nothing is solved again
        (root / "certs" / "b3-b3.json").unlink()
        told: list[str] = []
        atlas = build(T5, root, time_limit=5, given=[cert], progress=told.append, **kw)
        return root, atlas.cells[(T5.hole("b3"), T5.hole("b3"))], told

    root, cell, told = built("whole", given)  # small: rebuilt at build
    assert (cell.kind, cell.certificate) == ("levels", "certs/b3-b3.given/certificate.json"), told
    assert cell.alone and cells(root)[("b3", "b3")]["alone"] and not cells(root)[("a1", "a1")]["alone"]
    if CHROMIUM is not None and CHROMEDRIVER is not None:  # the page gives the one command that can check it
        A.site(root, tmp_path / "site")
        driver = request.getfixturevalue("browser")
        said = atlas_cell(driver, tmp_path / "site" / "triangle-5" / "index.html", "b3", "b3").text
        assert "carried without its files" in said and said.count("pegsat check") == 1, said
        assert "pegsat check certs/b3-b3.given/certificate.json --rebuild" in said, said
    assert sorted(f.name for f in (root / "certs" / "b3-b3.given").iterdir()) == ["certificate.json"]
    report = check(root)
    assert report.standing.name == "NOT_SETTLED" and "--rebuild" in report.unfinished[0], report.lines()
    r = CliRunner().invoke(main, ["check", str(root)])
    assert r.exit_code == 20 and "NOT SETTLED b3 -> b3" in r.output, r.output
    report = check(root, rebuild=True)
    assert report.ok and report.kinds["certificate: levels"] == 1, report.lines()
    again = build(T5, root, time_limit=5)  # a rerun keeps what it took, given or not
    assert again.cells[(T5.hole("b3"), T5.hole("b3"))].certificate == cell.certificate

    data = json.loads(given.read_text())
    big = max(data["evidence"]["levels"], key=lambda lv: lv[0]["count"])
    big[0]["count"] -= 1  # fewer positions than the level holds
    edited = tmp_path / "given" / "edited.json"
    edited.write_text(json.dumps(data))
    monkeypatch.setattr(A, "WALK_AT_BUILD", 0)  # as German e1 -> e1's 6.0 x 10^9 positions are
    root, cell, told = built("large", edited)
    assert cell.certificate == "certs/b3-b3.given/certificate.json", told
    report = check(root, rebuild=True)
    assert not report.ok and any("rejected" in f for f in report.failures), report.lines()

    data = json.loads(given.read_text())
    data["evidence"]["pagodas"][0]["floor"] += 100
    edited.write_text(json.dumps(data))
    root, cell, told = built("false", edited)
    assert cell.certificate != "certs/b3-b3.given/certificate.json" and cell.status == "unsolvable"
    assert any("does not check: not taken" in line for line in told), told
    assert not (root / "certs" / "b3-b3.given").exists()

    english = tmp_path / "given" / "english.json"
    r = CliRunner().invoke(main, ["prove", "english", "--vacant", "a3", "--survivor", "d4",
                                  "--certificate", str(english)])
    assert english.is_file(), r.output
    for args, words in (([], "add --certificates"), (["--certificates", str(tmp_path / "e")],
                                                      "not about a single vacancy of the board triangle-5")):
        r = CliRunner().invoke(main, ["survey", "triangle-5", "--given", str(english), *args])
        assert r.exit_code == 2 and words in r.output and "Traceback" not in r.output, r.output


def test_an_atlas_is_checked_against_the_catalogue_board_of_its_name(triangle, tmp_path):
    """An atlas whose board carries a line triangle-5 does not have (making a1 -> a2 look
    solvable) is refused as a whole, through the CLI too; a board of the atlas's own, named
    otherwise, is checked against its drawing, and the report says so."""
    lines = {tuple(sorted((T5.names[a], T5.names[c]))) for a, _, c in T5.lines}
    extra = next([a, b, c] for a in T5.names for b in T5.names for c in T5.names
                 if len({a, b, c}) == 3 and tuple(sorted((a, c))) not in lines)
    rep = tampered(triangle, tmp_path / "a",
                   lambda d: edit_index(d, lambda x: x["board"]["lines"].append(extra)))
    assert not rep.ok and "its holes and lines are not that board's" in rep.failures[0], rep.failures
    r = CliRunner().invoke(main, ["check", str(tmp_path / "a" / "copy")])
    assert r.exit_code == 1 and "not that board's" in r.output, r.output
    rep = tampered(triangle, tmp_path / "b",
                   lambda d: edit_index(d, lambda x: x["board"].update(name="mine")))
    assert "not from the catalogue" in rep.board and rep.ok, rep.failures  # the same drawing: all true
    assert "not from the catalogue" in rep.lines()[0]


def test_pages_onto_their_own_atlas_are_refused(triangle, tmp_path):
    """``atlas DIR --out DIR`` (or the directory holding it, or one inside it) would copy its
    certificates onto themselves: one line, exit 2, and every certificate still there."""
    home = tmp_path / "x" / "triangle-5"
    shutil.copytree(triangle, home)
    certs = sorted((home / "certs").rglob("*"))
    for out in (home, home.parent, home / "pages"):
        r = CliRunner().invoke(main, ["atlas", str(home), "--out", str(out)])
        assert r.exit_code == 2 and "a directory of their own" in r.output and "Traceback" not in r.output, \
            r.output
    assert sorted((home / "certs").rglob("*")) == certs and check(home).ok
