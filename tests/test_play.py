"""``pegsat play``: the server (127.0.0.1 only, foreign hosts refused) and the page, driven in
Debian's headless chromium through Selenium and Debian's chromedriver."""

import http.client
import json
import threading
from pathlib import Path

import pytest

from pegsat.apps.play import make_server
from pegsat.apps.pose import pose
from pegsat.formats.notation import parse_plan
from pegsat.model.options import ProblemOptions

BERGHOLT = ("f4-d4 e6-e4 g5-e5 d5-f5 b5-d5 c7-c5 c4-c6 e7-c7-c5 e3-e5 e1-e3 c2-c4-c6-e6-e4-e2 "
            "g3-g5-e5-c5 a3-c3 d3-b3 a5-a3-c3 c1-e1-e3 f3-d3-b3-b5-d5-d3 d2-d4")
LOSING = ["d2-d4", "d5-d3", "b4-d4", "d3-d5"]  # the fourth jump leaves no way to d4
DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture(scope="module")
def server():
    posed = pose("english", ProblemOptions(survivor="d4"))
    srv = make_server(posed)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv, posed
    srv.shutdown()
    srv.server_close()


def request(srv, method, path, body=None, headers=None):
    port = srv.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    hdrs = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json", **(headers or {})}
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=hdrs)
    r = conn.getresponse()
    return r.status, r.read()


def test_binds_localhost_only_and_refuses_foreign_hosts(server):
    srv, _ = server
    assert srv.server_address[0] == "127.0.0.1"
    assert request(srv, "GET", "/")[0] == 200
    assert request(srv, "GET", "/", headers={"Host": "evil.example:80"})[0] == 403
    assert request(srv, "POST", "/api/status", {"jumps": []}, {"Origin": "http://evil.example"})[0] == 403
    assert request(srv, "GET", "/etc/passwd")[0] == 404


def test_api_replays_every_game(server):
    srv, posed = server
    board = posed.problem.board
    plan = [board.jump_index[(board.hole(a), board.hole(b), board.hole(c))] for a, b, c in
            [("f4", "e4", "d4")]]
    code, body = request(srv, "POST", "/api/status", {"jumps": plan})
    assert code == 200 and json.loads(body)["status"] == "alive"
    code, body = request(srv, "POST", "/api/status", {"jumps": plan * 2})  # the same jump twice: illegal
    assert json.loads(body)["status"] == "error"
    assert request(srv, "POST", "/api/status", {"jumps": ["x"]})[0] == 200
    assert request(srv, "POST", "/api/status", {"jumps": [10**9]})[0] == 200


def _play(driver, srv, board, hops, played=0):
    """Click ``hops`` on a fresh page, or (``played``) go on after the first ``played`` of them."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 30)
    if not played:
        driver.get(f"http://127.0.0.1:{srv.server_address[1]}/")
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "0")
    for i, (src, dst) in enumerate(hops[played:], start=played + 1):
        for h in (src, dst):
            driver.find_element(By.CSS_SELECTOR, f'circle.hole[data-hole="{board.names[h]}"]').click()
        wait.until(lambda d, i=i: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == str(i))
    return driver.find_element(By.ID, "status"), driver.find_element(By.ID, "counter").text


@pytest.mark.external
@pytest.mark.slow  # 9 s; the default run plays in the browser through the next two tests
def test_click_through_the_18_move_solution(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    srv, posed = server
    board = posed.problem.board
    hops = parse_plan(board, BERGHOLT, "names")
    status, counter = _play(browser, srv, board, hops[:10])
    assert status.get_attribute("data-status") == "alive" and status.text == "still solvable"
    browser.save_screenshot(str(DOCS / "play.png"))  # a game in progress, for the README
    status, counter = _play(browser, srv, board, hops, played=10)
    assert status.get_attribute("data-status") == "won", status.text
    assert counter == "move 18, jump 31, 1 peg left"
    assert len(browser.find_elements(By.CSS_SELECTOR, "circle.peg")) == 1
    assert browser.find_element(By.CSS_SELECTOR, 'circle.peg[data-peg="d4"]')
    browser.find_element(By.ID, "save").click()
    note = browser.find_element(By.ID, "note")
    WebDriverWait(browser, 30).until(lambda d: "replayed by the verifier" in note.text)
    assert "18 moves" in note.text
    assert parse_plan(board, note.get_attribute("data-plan"), "names") == hops


@pytest.mark.external
def test_a_losing_jump_is_shown_dead_and_hint_offers_a_live_one(server, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    srv, posed = server
    board = posed.problem.board
    status, _ = _play(browser, srv, board, parse_plan(board, " ".join(LOSING), "names"))
    assert status.get_attribute("data-status") == "dead" and status.text.startswith("dead: "), status.text
    browser.find_element(By.ID, "undo").click()
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
                                     == "3")
    browser.find_element(By.ID, "hint").click()
    note = browser.find_element(By.ID, "note")
    WebDriverWait(browser, 30).until(lambda d: note.text.startswith("hint: "))
    assert "keeps the game alive" in note.text
    assert len(browser.find_elements(By.CSS_SELECTOR, "circle.hinted")) == 2


@pytest.mark.external
def test_the_console_has_no_errors(server, browser):
    srv, posed = server
    _play(browser, srv, posed.problem.board, parse_plan(posed.problem.board, "f4-d4 e6-e4", "names"))
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert not errors, errors
