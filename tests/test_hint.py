"""``pegsat hint``: verdicts from the solvable set and from the planners, against brute force."""

import json
import random
from functools import lru_cache

import pytest
from click.testing import CliRunner

from pegsat.apps import hint as H
from pegsat.cli import main
from pegsat.engine.bitboard import engine
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, Problem, single_vacancy

T5 = get_board("triangle-5")


def winnable(problem: Problem):
    e, g = engine(problem.board), problem.goal

    @lru_cache(None)
    def win(p):
        return g.satisfied(p) or any(win(e.apply(p, k)) for k in e.legal(p))

    return win


@pytest.mark.parametrize("problem", [single_vacancy(T5, T5.hole("a1")),
                                     Problem(T5, T5.full & ~(1 << T5.hole("c3")), Goal.one_peg())])
@pytest.mark.parametrize("route", ["sweep", "planners"])
def test_verdicts_match_brute_force_along_random_games(problem, route, monkeypatch):
    if route == "planners":
        monkeypatch.setattr(H, "SWEEP_HOLES", 0)  # force the per-position planners
    hinter = H.Hinter(problem, per_jump=10, moves_left=False)
    assert (hinter.alive is not None) == (route == "sweep")
    win, e, rng = winnable(problem), engine(problem.board), random.Random(5)
    for _ in range(6):
        pos = problem.start
        while e.legal(pos):
            for v in hinter.jumps(pos):
                assert v.status == ("alive" if win(e.apply(pos, v.jump)) else "dead"), v
            pos = e.apply(pos, rng.choice(e.legal(pos)))


def test_the_solvable_set_is_cached_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("PEGSAT_CACHE", str(tmp_path))
    p = single_vacancy(T5, T5.hole("a1"))
    first = H.solvable_set(p)
    files = list(tmp_path.glob("solvable-*.bin"))
    assert len(files) == 1
    files[0].write_bytes(b"damaged")  # a broken cache is rebuilt, not trusted
    notes = []
    assert (H.solvable_set(p, notes=notes) == first).all()
    assert len(notes) == 1 and "not a pegsat sealed file" in notes[0]
    notes = []
    assert (H.solvable_set(p, notes=notes) == first).all() and notes == []  # rebuilt whole


def test_hint_cli_verdicts_match_brute_force(tmp_path):
    """Through the command line: every verdict after a short game equals brute force."""
    out, p = tmp_path / "h.svg", Problem(T5, T5.full & ~(1 << T5.hole("a1")), Goal.one_peg())
    r = CliRunner().invoke(main, ["hint", "triangle-5", "--vacant", "a1", "c3-a1 b4-b2", "--json",
                                  "--out", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    e, win, pos = engine(T5), winnable(p), p.start
    name = {k: f"{T5.names[a]}-{T5.names[c]}" for k, (a, _, c) in enumerate(T5.jumps)}
    for text in ("c3-a1", "b4-b2"):
        pos = e.apply(pos, next(k for k in e.legal(pos) if name[k] == text))
    truth = {name[k]: "alive" if win(e.apply(pos, k)) else "dead" for k in e.legal(pos)}
    assert {h["jump"]: h["status"] for h in data["hints"]} == truth
    assert set(truth.values()) == {"alive", "dead"} and data["jumps_so_far"] == 2
    assert out.read_text().count('class="panel"') == len(truth)


@pytest.mark.slow
def test_hint_cli_shows_the_losing_jump_dead(tmp_path):
    """The English board's solvable set (3-4 s to build): a known losing jump is dead."""
    out = tmp_path / "h.svg"
    r = CliRunner().invoke(main, ["hint", "english", "--survivor", "d4", "d2-d4 d5-d3 b4-d4", "--json",
                                  "--out", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    verdict = {h["jump"]: h["status"] for h in data["hints"]}
    assert verdict["d3-d5"] == "dead" and verdict["c2-c4"] == "alive" and len(verdict) == 8
    assert data["jumps_so_far"] == 3 and data["position"] == "alive"
    assert out.read_text().count('class="panel"') == 8


def test_hint_rejects_an_illegal_game():
    r = CliRunner().invoke(main, ["hint", "english", "f4-d4 f4-d4"])
    assert r.exit_code != 0 and r.output.count("\n") == 1 and "step 2" in r.output, r.output


def test_moves_left_on_a_small_position():
    """Nine pegs, three moves before the end of Bergholt's 18-move game: the moves left are computed."""
    b = get_board("english")
    p = Problem(b, sum(1 << b.hole(h) for h in ("c1", "d1", "d2", "e2", "c3", "f3", "b4", "d4", "c5")),
                Goal.survivor(b, b.hole("d4")))
    h = H.Hinter(p, per_jump=10)
    alive = [v for v in h.jumps(p.start) if v.status == "alive"]
    assert alive and all(v.moves_left is not None and v.moves_left >= 1 for v in alive)


def test_the_default_time_per_position_grows_with_the_board():
    """2 s up to 33 holes, doubling every 4 holes more, at most 30 s."""
    from pegsat.apps.hint import per_position
    from pegsat.model.catalogue import get_board
    from pegsat.model.problem import single_vacancy

    def limit(name):
        b = get_board(name)
        return per_position(single_vacancy(b, 0))

    assert limit("english") == limit("triangle-5") == 2.0
    assert limit("french") == 4.0 and limit("diamond") == 8.0 and limit("german") == 16.0
    assert limit("square-10x10") == 30.0
