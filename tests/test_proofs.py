"""Proofs that do not ask anyone to trust pegsat: DRAT replayed by published checkers, and an
independent second route for exhaustive certificates."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import random_problems
from hypothesis import HealthCheck, given, settings

from pegsat import sealed
from pegsat.apps.solve import solve
from pegsat.checks import certificate, closure, drat, evidence, exhaustive, positions, verdict
from pegsat.checks import deadset as dead_check
from pegsat.cli import main
from pegsat.deadline import Deadline
from pegsat.engine.kernel import kernel
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Problem, single_vacancy
from pegsat.model.result import Result, Status

NB = Path(__file__).resolve().parent.parent / "instances" / "netbenefit"


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def sat_cert(tmp_path_factory):
    """triangle-5 b3 -> b3 proven by SAT with its DRAT proof (0.9 MB, 23,506 steps)."""
    d = tmp_path_factory.mktemp("sat")
    cert = d / "b3.json"
    r = cli("prove", "triangle-5", "--vacant", "b3", "--survivor", "b3", "--sat", "--certificate", cert)
    assert r.exit_code == 10, r.output
    return cert


def test_check_replays_the_drat_proof_with_dratify(sat_cert):
    r = cli("check", sat_cert)
    assert r.exit_code == 0, r.output
    assert "dratify" in r.output and "verified the DRAT proof in" in r.output


def test_both_dratify_engines_verify(sat_cert):
    data = json.loads(sat_cert.read_text())
    cnf, proof = (sat_cert.parent / data["evidence"][k] for k in ("cnf", "proof"))
    v = drat.check_dratify(cnf, proof, Deadline(120), engine="python")
    assert v.ok and "python engine" in v.reason


def test_a_proof_with_lemmas_removed_is_rejected_even_with_its_hash_updated(sat_cert, tmp_path):
    """The hash in the certificate only binds the files; the DRAT replay is what rejects a
    forged proof: here the proof's first 400 lemmas are dropped and the hash recomputed."""
    data = json.loads(sat_cert.read_text())
    for key in ("cnf", "proof"):
        (tmp_path / data["evidence"][key]).write_bytes((sat_cert.parent / data["evidence"][key]).read_bytes())
    proof = tmp_path / data["evidence"]["proof"]
    lines = proof.read_text().splitlines()
    adds = [i for i, ln in enumerate(lines) if not ln.startswith("d ")][:400]
    proof.write_text("\n".join(ln for i, ln in enumerate(lines) if i not in set(adds)) + "\n")
    data["evidence"]["proof_sha256"] = evidence.sha256(proof)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    r = cli("check", forged)
    assert r.exit_code == 1 and "REJECTED" in r.output and "dratify" in r.output, r.output


def test_a_check_past_its_time_limit_is_not_settled(sat_cert):
    r = cli("check", sat_cert, "--time-limit", "0.001")
    assert r.exit_code == 20 and "NOT SETTLED" in r.output, r.output


def test_exhaustive_certificate_says_both_routes_ran(tmp_path, monkeypatch):
    import pegsat.proofs.deadset as deadset

    monkeypatch.setattr(deadset, "supports", lambda p: "the level search's route, tested here")
    cert = tmp_path / "c.json"
    assert cli("prove", NB / "impossible.pddl", "--certificate", cert).exit_code == 10
    r = cli("check", cert)
    assert r.exit_code == 0 and "route 1" in r.output and "route 2 (independent walk" in r.output, r.output


def test_the_independent_route_rejects_a_bad_pagoda_and_a_reachable_goal():
    b = get_board("triangle-5")
    solvable = single_vacancy(b, b.hole("a1"))
    assert exhaustive.refute(solvable, []).refused  # the walk reaches the goal
    w = [0] * b.n
    w[b.hole("a1")] = 5  # a jump into a1 raises the weight
    bad = exhaustive.refute(solvable, [(w, 0)])
    assert bad.refused and "increases on jump" in bad.message


def test_the_independent_route_stops_at_its_limit():
    b = get_board("english")
    walk = exhaustive.refute(single_vacancy(b, b.hole("d4")), [], limit=1000)
    assert not walk.finished and "too large" in walk.message


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_problems((3, 4), (3, 5), special=False))
def test_the_independent_walk_agrees_with_the_search(problem: Problem):
    """Differential: the walk (no search code) and the depth-first search settle the same."""
    r = solve(problem, "search", deadline=Deadline(30))
    walk = exhaustive.refute(problem, [])
    assert r.status in (Status.SOLVED, Status.UNSOLVABLE)
    assert walk.ok is (r.status is Status.UNSOLVABLE)


@pytest.fixture(scope="module")
def dead_cert(tmp_path_factory):
    """triangle-5, b3 -> a1: no cheap proof; the depth-first search exhausts it."""
    from pegsat.model.problem import Goal
    from pegsat.proofs.prove import prove

    b = get_board("triangle-5")
    path = tmp_path_factory.mktemp("dead") / "b3a1.json"
    r = prove(single_vacancy(b, b.hole("b3"), Goal.survivor(b, b.hole("a1"))), Deadline(60),
              certificate_path=path)
    assert r.status is Status.UNSOLVABLE and r.certificate["kind"] == "dead-set", r.detail
    return path


def test_a_dead_set_certificate_is_checked_by_the_independent_checker(dead_cert):
    data = json.loads(dead_cert.read_text())
    assert (dead_cert.parent / data["evidence"]["positions"]).is_file()  # written beside it
    for extra in ([], ["--reference"]):  # the compiled loops, and numpy's
        r = cli("check", dead_cert, *extra)
        assert r.exit_code == 0 and "independent checker" in r.output, r.output
        assert "closed under jumps" in r.output


def _forged_dead(dead_cert, tmp_path, dead=None, change=None, packed=False, reference=False):
    """``packed``: the positions as ``prove`` writes them; else a plain ``.npy`` array (the
    older certificates' files), also read."""
    import numpy as np

    data = json.loads(dead_cert.read_text())
    ev = data["evidence"]
    if dead is not None:
        f = tmp_path / ("forged.npz" if packed else "forged.npy")
        if packed:
            with open(f, "wb") as fh:
                positions.save_positions(fh, dead)
        else:
            np.save(f, dead)
        ev.update(positions=f.name, count=len(dead), sha256=evidence.sha256(f))
    else:
        shutil.copy(dead_cert.parent / ev["positions"], tmp_path / ev["positions"])
    if change:
        change(ev)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    return cli("check", forged, *(["--reference"] if reference else []))


@pytest.mark.parametrize("reference", [False, True], ids=["compiled", "reference"])
def test_a_dead_set_with_a_gap_a_goal_or_a_false_pagoda_is_rejected(dead_cert, tmp_path, reference):
    """By the compiled checker and by its numpy reference alike."""
    import numpy as np

    b = get_board("triangle-5")
    data = json.loads(dead_cert.read_text())
    ev = data["evidence"]
    dead = positions.load_positions(dead_cert.parent / ev["positions"], ev["count"])
    start = b.full & ~(1 << b.hole("b3"))
    middle = np.delete(dead, len(dead) // 2)
    cases = [
        (dict(dead=middle), "neither excluded nor in the dead set"),
        (dict(dead=middle, packed=True), "neither excluded nor in the dead set"),
        (dict(dead=dead[dead != start]), "the start is neither"),
        (dict(dead=np.union1d(dead, np.array([1 << b.hole("a1")], dtype=np.uint64))),
         "a goal position is in"),
        (dict(change=lambda ev: ev["pagodas"][0].update(floor=ev["pagodas"][0]["floor"] + 100)),
         "weighs less than its floor"),
        (dict(change=lambda ev: ev["symmetries"].append(list(reversed(range(b.n))))), "symmetry"),
        (dict(change=lambda ev: ev.update(sha256="0" * 64)), "SHA-256"),
    ]
    for kw, words in cases:
        r = _forged_dead(dead_cert, tmp_path, reference=reference, **kw)
        assert r.exit_code == 1 and "REJECTED" in r.output and words in r.output, (words, r.output)


def test_a_dead_set_rebuilt_by_the_check_needs_no_file(dead_cert, tmp_path):
    """``check --rebuild``: the positions file gone, the certificate alone checks (the checker
    builds the positions the start reaches, by the compiled loops and by numpy's); a stated
    count below them and a false pagoda are refused."""
    data = json.loads(dead_cert.read_text())
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "c.json").write_text(json.dumps(data))
    r = cli("check", alone / "c.json")
    assert r.exit_code == 1 and "is missing" in r.output, r.output
    r = cli("check", alone / "c.json", "--rebuild")
    assert r.exit_code == 0 and "rebuilt by the check" in r.output and "none is a goal" in r.output, r.output
    assert certificate.check(data, alone, rebuild=True, reference=True).ok
    bad = json.loads(json.dumps(data))
    bad["evidence"]["count"] = 3
    v = certificate.check(bad, alone, rebuild=True)
    assert not v.ok and "the stated set is not closed" in v.message, v.message
    bad = json.loads(json.dumps(data))
    bad["evidence"]["pagodas"][0]["floor"] += 100
    v = certificate.check(bad, alone, rebuild=True)
    assert not v.ok and "weighs less than its floor" in v.message, v.message
    # an atlas being built (``walk_above``): past that size only the premises, the walk is ``check``'s
    v = certificate.check(data, alone, rebuild=True, walk_above=0)
    assert not v.finished and "rebuilt by a whole check only" in v.message, v.message
    v = certificate.check(bad, alone, rebuild=True, walk_above=0)
    assert v.refused and "weighs less than its floor" in v.message, v.message


def test_packed_positions_round_trip_and_reject_other_files(tmp_path):
    import numpy as np

    rng = np.random.default_rng(5)
    for arr in (np.array([], dtype=np.uint64), np.array([0, 1, 2**64 - 1], dtype=np.uint64),
                np.unique(rng.integers(0, 2**41, size=10_000, dtype=np.uint64))):
        f = tmp_path / "p.npz"
        with open(f, "wb") as fh:
            positions.save_positions(fh, arr)
        got = positions.load_positions(f, len(arr))
        assert got.dtype == np.uint64 and np.array_equal(got, arr)
        if len(arr):
            with pytest.raises(ValueError):  # fewer stated than the file holds
                positions.load_positions(f, len(arr) - 1)
    np.savez_compressed(tmp_path / "other.npz", planes=np.zeros((7, 3), dtype=np.uint8))
    with pytest.raises(ValueError):
        positions.load_positions(tmp_path / "other.npz", 3)
    np.savez_compressed(tmp_path / "two.npz", planes=np.zeros((8, 3), dtype=np.uint8), x=np.zeros(1))
    with pytest.raises(ValueError):
        positions.load_positions(tmp_path / "two.npz", 3)
    np.save(tmp_path / "plain.npy", np.arange(5, dtype=np.uint64))
    assert list(positions.load_positions(tmp_path / "plain.npy", 5)) == [0, 1, 2, 3, 4]
    for wrong in (np.arange(5, dtype=np.int64), np.arange(6, dtype=np.uint64).reshape(2, 3)):
        np.save(tmp_path / "wrong.npy", wrong)
        with pytest.raises(ValueError):
            positions.load_positions(tmp_path / "wrong.npy", 6)


def test_a_certificate_names_only_files_beside_it(dead_cert, tmp_path):
    """An absolute path or one climbing out with .. is refused before the file is opened."""
    for name in ("/etc/passwd", "../" + dead_cert.name, "a/../../x.npz", "", 7):
        data = json.loads(dead_cert.read_text())
        data["evidence"]["positions"] = name
        forged = tmp_path / "forged.json"
        forged.write_text(json.dumps(data))
        r = cli("check", forged)
        assert r.exit_code == 1 and "REJECTED" in r.output and "Traceback" not in r.output, r.output


def test_least_goal_weight_matches_listing_every_goal_position():
    import random

    from pegsat.errors import PegsatError
    from pegsat.model.problem import Goal

    b, rng, tried = get_board("triangle-4"), random.Random(3), 0
    while tried < 300:
        full = rng.getrandbits(b.n) & rng.getrandbits(b.n) & rng.getrandbits(b.n)
        empty = rng.getrandbits(b.n) & ~full & rng.getrandbits(b.n)
        low = rng.randint(0, 6)
        try:
            g = Goal(full=full, empty=empty, min_pegs=low, max_pegs=rng.choice([None, rng.randint(low, 10)]))
            p = Problem(b, b.full & ~1, g)
        except PegsatError:
            continue
        w = [rng.randint(-5, 5) for _ in range(b.n)]
        want = min((sum(w[h] for h in range(b.n) if x >> h & 1) for x in range(1 << b.n) if g.satisfied(x)),
                   default=None)
        assert closure._least_goal_weight(p, w) == want
        tried += 1


def _b3_a1_dead_set(monkeypatch, first_bits: int, **patches):
    """triangle-5 b3 -> a1 refuted with a first table of 2^first_bits slots (and the given
    module attributes patched); the dead set must pass the independent checker."""
    from pegsat.engine import dfs
    from pegsat.model.problem import Goal
    from pegsat.proofs import deadset

    real = dfs.new_table

    def first(bits, width=1):
        return real(first_bits if bits == 22 else bits, width)

    monkeypatch.setattr(dfs, "new_table", first)
    for name, value in patches.items():  # "dfs_SLICE": the search's own
        monkeypatch.setattr(dfs if name.startswith("dfs_") else deadset, name.removeprefix("dfs_"), value)
    b = get_board("triangle-5")
    p = single_vacancy(b, b.hole("b3"), Goal.survivor(b, b.hole("a1")))
    got = deadset.refute(p, Deadline(60))
    assert got.kind == "dead"
    walk = dead_check.dead_set(p, got.dead, [list(g) for g in got.group],
                                [(list(g.weights), g.floor) for g in got.pagodas])
    assert walk.ok, walk.message
    return got.stats


def test_a_lossy_table_is_repaired_into_a_closed_dead_set(monkeypatch):
    assert _b3_a1_dead_set(monkeypatch, 4, FILL=10**9)["repaired"] > 0  # 16 slots, never grown


def test_a_large_table_is_read_a_range_of_values_at_a_time(monkeypatch):
    """A table of more than ``SLICE`` slots is read back by value ranges (a pass each): the
    same sorted set as a read of the whole, duplicates and empty slots dropped; and a lossy
    table closed that way (its repair rounds merging in place) still passes the checker."""
    from pegsat.proofs import deadset

    k = kernel(get_board("english"), ())
    rng = np.random.default_rng(3)
    table = rng.integers(1, 1 << 33, size=5000, dtype=np.uint64)
    table[rng.random(5000) < 0.4] = 0
    table[:100] = table[100:200]  # repeats
    monkeypatch.setattr(deadset, "SLICE", 64)
    monkeypatch.setattr(deadset, "RANGE", 300)
    want = np.unique(table[table != 0])
    assert len(deadset._cuts(table, int(np.count_nonzero(table)))) > 5
    dead = deadset._read(k, table)
    assert np.array_equal(dead, want)
    # the repairs' positions are merged into the room after the set, then into a new buffer
    few = np.array([(1 << 33) + 5, (1 << 33) + 9], dtype=np.uint64)
    grown = deadset._add(k, dead, few)
    assert grown.base is dead.base and np.array_equal(grown, np.union1d(want, few))
    many = np.arange(1 << 34, (1 << 34) + len(want), dtype=np.uint64)
    again = deadset._add(k, grown, many)
    assert again.base is not dead.base and np.array_equal(again, np.union1d(np.union1d(want, few), many))
    assert _b3_a1_dead_set(monkeypatch, 4, FILL=10**9, SLICE=4, RANGE=3)["repaired"] > 0


def test_a_filling_table_grows_and_the_search_starts_a_new_descent(monkeypatch):
    assert _b3_a1_dead_set(monkeypatch, 4, dfs_SLICE=50)["descents"] > 1  # the fill looked at every 50 nodes


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_problems((3, 4), (3, 5), special=False))
def test_dead_sets_agree_with_the_search_and_pass_the_checker(problem: Problem):
    """Differential: the dead set exists exactly when the search says unsolvable, and the
    independent checker accepts every one; a plan found instead replays."""
    from pegsat.engine.bitboard import replay_plan
    from pegsat.proofs import deadset

    got = deadset.refute(problem, Deadline(30))
    r = solve(problem, "search", deadline=Deadline(30))
    assert got.kind == ("dead" if r.status is Status.UNSOLVABLE else "plan")
    if got.kind == "plan":
        replay_plan(problem, got.plan)
    else:
        for compiled in (True, False):
            walk = dead_check.dead_set(problem, got.dead, [list(p) for p in got.group],
                                        [(list(p.weights), p.floor) for p in got.pagodas],
                                        classes=list(got.classes) if got.classes else None, compiled=compiled)
            assert walk.ok, walk.message


@pytest.fixture(scope="module")
def split_cert(tmp_path_factory):
    """triangle-5, vacancy b3, one peg anywhere but c5 (the one reachable survivor): no cheap
    proof and no single level search is needed, but it is what the 41- and 45-hole boards get."""
    from pegsat.analysis import games
    from pegsat.model.problem import Goal
    from pegsat.proofs import prove as P

    b = get_board("triangle-5")
    p = single_vacancy(b, b.hole("b3"), Goal(min_pegs=1, max_pegs=1, empty=1 << b.hole("c5")))
    path = tmp_path_factory.mktemp("split") / "b3.json"
    old, games.SPLIT_ABOVE = games.SPLIT_ABOVE, 0
    whole, P._whole_game = P._whole_game, lambda problem, *a: Result(Status.UNKNOWN, problem, "prove")
    try:
        r = P.prove(p, Deadline(120), certificate_path=path)
    finally:
        games.SPLIT_ABOVE, P._whole_game = old, whole
    assert r.status is Status.UNSOLVABLE and r.proof.value == "split", r.detail
    return path


def _open_problem():
    from pegsat.model.problem import Goal, Problem

    b = get_board("english")
    start = sum(1 << b.hole(h) for h in "c2 e2 b3 c3 d3 e3 g3 a4 b4 e4 b5 d5 d6 e6 d7".split())
    return Problem(b, start, Goal.one_peg())  # no cheap proof; the search cuts by pagodas


@pytest.fixture(scope="module")
def open_cert(tmp_path_factory):
    """A goal of one peg anywhere, refuted by a whole search whose pagodas are weighed hole by
    hole against the survivors each position's class allows."""
    from pegsat.proofs import prove as P

    path = tmp_path_factory.mktemp("open") / "open.json"
    r = P.prove(_open_problem(), Deadline(120), certificate_path=path)
    assert r.status is Status.UNSOLVABLE and r.certificate["kind"] == "dead-set", r.detail
    assert r.certificate["evidence"]["classes"] and r.certificate["evidence"]["pagodas"]
    return path


def test_the_open_game_of_a_large_board_is_certified_from_the_search_turns(tmp_path):
    """On boards of more than ``SPLIT_ABOVE`` holes ``prove`` first searches the open game as
    the ``search`` planner's turns do, and closes the table it exhausted into the certificate,
    saying each step (a repair round: the set's size and the children it repairs)."""
    from pegsat.analysis import games
    from pegsat.proofs import prove as P

    said: list[str] = []
    old, games.SPLIT_ABOVE = games.SPLIT_ABOVE, 0
    try:
        r = P.prove(_open_problem(), Deadline(120), certificate_path=tmp_path / "open.json",
                    progress=said.append)
    finally:
        games.SPLIT_ABOVE = old
    assert r.status is Status.UNSOLVABLE and r.certificate["kind"] == "dead-set", r.detail
    assert "dead-open" in r.certificate["evidence"]["positions"]
    assert said[0].startswith("the open game") and said[-1].startswith("checking the dead-set certificate")
    rounds = [line for line in said if line.startswith("dead set: ")]
    assert rounds and rounds[-1].split(", ")[1].startswith("0 of their children"), said
    assert cli("check", tmp_path / "open.json").exit_code == 0


def test_an_open_game_certificate_weighs_pagodas_hole_by_hole(open_cert):
    data = json.loads(open_cert.read_text())
    ev = data["evidence"]
    assert ev["classes"] and ev["count"] > 0
    r = cli("check", open_cert)
    assert r.exit_code == 0 and "hole by hole" in r.output, r.output


def test_an_open_game_certificate_with_a_class_weighting_or_pagoda_changed_is_rejected(open_cert):
    tmp_path = open_cert.parent  # beside the dead set's file
    data = json.loads(open_cert.read_text())
    names = get_board("english").names
    ev = data["evidence"]
    one = ev["classes"][0]
    other = next(h for h in names if h not in one)
    r = _forged(data, tmp_path, lambda e: e["classes"][0].append(other))  # odd on some line now
    assert r.exit_code == 1 and "is odd on line" in r.output, r.output
    r = _forged(data, tmp_path, lambda e: e.update(classes=[]))  # every hole allowed everywhere
    assert r.exit_code == 1, r.output
    heavy = max(ev["pagodas"], key=lambda pg: len(pg["weights"]))
    hole = next(iter(heavy["weights"]))

    def raise_one(e):
        pg = next(x for x in e["pagodas"] if x["weights"] == heavy["weights"])
        pg["weights"][hole] += 5
    r = _forged(data, tmp_path, raise_one)
    assert r.exit_code == 1 and ("increases on jump" in r.output or "neither excluded" in r.output
                                 or "floor" in r.output), r.output


def test_a_split_certificate_checks_survivor_by_survivor(split_cert):
    data = json.loads(split_cert.read_text())
    assert data["kind"] == "split" and data["evidence"]["ruled_out"]
    r = cli("check", split_cert)
    assert r.exit_code == 0 and "refuted:" in r.output, r.output


def _forged(data, tmp_path, change):
    data = json.loads(json.dumps(data))
    change(data["evidence"])
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data))
    return cli("check", path)


def test_a_split_certificate_with_a_survivor_missing_or_misplaced_is_rejected(split_cert):
    tmp_path = split_cert.parent  # beside the sub-certificates' files
    data = json.loads(split_cert.read_text())
    parts = data["evidence"]["survivors"]
    assert len(parts) >= 2
    r = _forged(data, tmp_path, lambda ev: ev["survivors"].pop())
    assert r.exit_code == 1 and "neither ruled out nor refuted" in r.output, r.output
    r = _forged(data, tmp_path, lambda ev: ev["survivors"][0].update(survivor=parts[1]["survivor"]))
    assert r.exit_code == 1 and "is not about the" in r.output, r.output
    r = _forged(data, tmp_path, lambda ev: ev["ruled_out"][0].update(target=parts[0]["survivor"]))
    assert r.exit_code == 1, r.output


def test_a_table_that_lost_too_many_positions_closes_to_unknown_not_out_of_memory(monkeypatch):
    """``deadset.close`` repairs every child of the set neither in it nor excluded, each by a
    search of its own; a table that lost far more than it can repair (diamond d2 -> f8's,
    full at 2^29 slots, took 24 GB before the first repair) gives "unknown", not the OOM
    killer. Here a table holding only the start: all of its children are loose."""
    from pegsat.model.problem import Goal
    from pegsat.proofs import deadset

    b = get_board("english")
    p = single_vacancy(b, b.hole("d4"), Goal.survivor(b, b.hole("d4")))
    table = np.zeros(1 << 10, dtype=np.uint64)
    table[0] = p.start  # the full board less d4: every symmetry fixes it
    monkeypatch.setattr(deadset, "LOOSE", 0)
    got = deadset.close(p, table, (), Deadline(60))
    assert got.kind == "unknown" and "children of the set to repair" in got.why, got


def test_a_fixed_goal_refuted_by_its_time_reversed_game(tmp_path, monkeypatch):
    """On a large board ``prove`` searches a fixed goal first in the ``search`` planner's
    turns (diamond d2 -> f8, whose plain depth-first search overflows its table), and then
    both ways. Here triangle-5 b3 -> a1: the turns exhaust it, and its table closes into a
    dead set; with those and its own depth-first search made to give up, the time-reversed
    game a1 -> b3 is refuted, and the certificate is a ``reversed`` one holding that game's,
    checked as such; one holding a certificate of another problem, or of a wrapping kind,
    is refused."""
    from pegsat.analysis import games
    from pegsat.model.problem import Goal
    from pegsat.proofs import prove as P

    b = get_board("triangle-5")
    p = single_vacancy(b, b.hole("b3"), Goal.survivor(b, b.hole("a1")))
    real = P._exhaustive

    def one_way(game, *a, **k):
        if game == p:
            return Result(Status.UNKNOWN, game, "prove", detail="given up (the test)")
        return real(game, *a, **k)
    monkeypatch.setattr(games, "SPLIT_ABOVE", 0)
    said: list[str] = []
    r = P.prove(p, Deadline(60), certificate_path=tmp_path / "turns.json", progress=said.append)
    assert r.status is Status.UNSOLVABLE and r.certificate["kind"] == "dead-set", r.detail
    assert said[0] == "the game: searching it in turns", said
    assert cli("check", tmp_path / "turns.json").exit_code == 0
    own = r.certificate
    monkeypatch.setattr(P, "_whole_game", lambda problem, *a: Result(Status.UNKNOWN, problem, "prove"))
    monkeypatch.setattr(P, "_exhaustive", one_way)
    path = tmp_path / "b3a1.json"
    r = P.prove(p, Deadline(60), certificate_path=path)
    assert r.status is Status.UNSOLVABLE and r.certificate["kind"] == "reversed", r.detail
    held = r.certificate["evidence"]["certificate"]
    assert held["kind"] == "dead-set" and held["problem"] != r.certificate["problem"]
    out = cli("check", path)
    assert out.exit_code == 0 and "time-reversed game" in out.output, out.output
    data = json.loads(path.read_text())
    forged = _forged(data, tmp_path, lambda ev: ev.update(certificate=own))  # the game's, not its reversal's
    assert forged.exit_code == 1 and "is not about the time-reversed game" in forged.output, forged.output
    nested = json.loads(json.dumps(data))
    forged = _forged(data, tmp_path, lambda ev: ev.update(certificate=nested))
    assert forged.exit_code == 1 and "plain kind" in forged.output, forged.output


def _disk_full(*args, **kwargs):
    import errno

    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_dead_set_split_across_files_is_checked_one_part_at_a_time(tmp_path, monkeypatch):
    """The path of a dead set too large for one file or one memory (diamond e1's open game:
    about 1.3e8 positions), on triangle-5 b3 -> a1: ``prove`` writes the set as files of at
    most ``PART`` positions; the independent check holds one part at a time, so it settles
    under a memory budget the whole set does not fit (where one file is "not settled"); parts
    out of order, or one left out with the counts made to add up, are refused."""
    import pegsat.proofs.prove as prove_module
    from pegsat.model.problem import Goal
    from pegsat.proofs.prove import prove

    monkeypatch.setattr(prove_module, "PART", 100)
    b = get_board("triangle-5")
    problem = single_vacancy(b, b.hole("b3"), Goal.survivor(b, b.hole("a1")))
    path = tmp_path / "split" / "b3a1.json"
    path.parent.mkdir()
    r = prove(problem, Deadline(60), certificate_path=path)
    assert r.status is Status.UNSOLVABLE and r.certificate["kind"] == "dead-set", r.detail
    ev = r.certificate["evidence"]
    parts = ev["positions"]
    assert isinstance(parts, list) and len(parts) >= 3 and ev["count"] > 2 * 100
    assert all(p["count"] <= 100 and (path.parent / p["file"]).is_file() for p in parts)
    # prove's own check of a set of more than PART: all but the walk its repair pass made
    assert "closure under jumps is not walked here" in r.detail and "'pegsat check'" in r.detail, r.detail
    # room for one part (its positions, their children, their canonical forms), not the set
    monkeypatch.setenv("PEGSAT_MEMORY_GB", str(3 * 8 * 100 / (1 << 30) * 1.01))
    v = certificate.check(certificate.load(path), path.parent)
    assert v.ok and f"in {len(parts)} parts, one in memory at a time" in v.message, v.message
    with monkeypatch.context() as m:  # a full disk under the check's buckets: a limit, not a verdict
        m.setattr(sealed, "write", _disk_full)
        v = certificate.check(certificate.load(path), path.parent)
    assert not v.finished and "could not be written" in v.message, v.message
    whole = tmp_path / "whole" / "b3a1.json"
    whole.parent.mkdir()
    monkeypatch.setattr(prove_module, "PART", 1 << 24)
    monkeypatch.delenv("PEGSAT_MEMORY_GB")
    prove(problem, Deadline(60), certificate_path=whole)
    monkeypatch.setenv("PEGSAT_MEMORY_GB", str(3 * 8 * 100 / (1 << 30) * 1.01))
    v = certificate.check(certificate.load(whole), whole.parent)
    assert not v.finished and "memory budget" in v.message

    def forged(change):
        data = json.loads(path.read_text())
        change(data["evidence"])
        return certificate.check(data, path.parent)

    v = forged(lambda e: e["positions"].reverse())
    assert not v.ok and "does not lie above" in v.message, v.message
    data = json.loads(path.read_text())
    data["evidence"]["positions"].reverse()
    v = certificate.check(data, path.parent, walk_above=100)  # prove's own check refuses it too
    assert not v.ok and v.finished and "does not lie above" in v.message, v.message

    def leave_out(e):
        gone = e["positions"].pop(1)
        e["count"] -= gone["count"]
    v = forged(leave_out)
    assert not v.ok and v.finished and ("neither excluded nor in the dead set" in v.message
                                        or "the start" in v.message), v.message


def test_a_dead_set_in_parts_is_checked_on_a_dask_cluster(tmp_path, monkeypatch, cluster):
    """``check --workers 2``: the parts of a dead set expanded and looked up by tasks on a
    local two-worker Dask cluster (their buckets beside the parts), with the same verdict as
    in one process; a part left out (the counts made to add up) is refused there too, on a
    running cluster (``--scheduler``)."""
    import pegsat.proofs.prove as prove_module
    from pegsat.model.problem import Goal
    from pegsat.proofs.prove import prove

    monkeypatch.setattr(prove_module, "PART", 150)
    b = get_board("triangle-5")
    problem = single_vacancy(b, b.hole("b3"), Goal.survivor(b, b.hole("a1")))
    path = tmp_path / "b3a1.json"
    r = prove(problem, Deadline(60), certificate_path=path)
    assert r.status is Status.UNSOLVABLE and len(r.certificate["evidence"]["positions"]) >= 2
    here = cli("check", path)
    there = cli("check", path, "--workers", "2")
    assert here.exit_code == there.exit_code == 0, there.output
    assert here.output.split("(")[0] == there.output.split("(")[0]
    assert "parts, one in memory at a time" in there.output
    assert not list(tmp_path.glob("pegsat-dead-*"))  # the buckets beside the parts are gone
    data = json.loads(path.read_text())
    gone = data["evidence"]["positions"].pop(0)
    data["evidence"]["count"] -= gone["count"]
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    r = cli("check", forged, "--scheduler", cluster)
    assert r.exit_code == 1, r.output


def test_a_dead_set_check_past_its_time_limit_is_not_settled(dead_cert):
    """A task handed no time left says "not settled", never "rejected"."""
    v = certificate.check(certificate.load(dead_cert), dead_cert.parent, deadline=Deadline.passed())
    assert not v.ok and "rejected" not in v.message, v.message


def test_one_standing_and_one_registry_of_kinds(tmp_path):
    """A verdict's standing is typed (holds / rejected / not settled) with its exit code in
    one place; every kind the loader accepts has its checker in the one registry, and a kind
    outside it is not a certificate."""
    import json

    from pegsat.errors import PegsatError

    S = verdict.Standing
    found = [verdict.holds("fine"), verdict.rejected("no"), verdict.unsettled("time")]
    assert [f.standing for f in found] == [S.HOLDS, S.REJECTED, S.NOT_SETTLED]
    assert [f.message for f in found] == ["ok: fine", "rejected: no", f"{verdict.UNFINISHED}time"]
    assert [s.exit_code for s in S] == [0, 1, 20]
    assert verdict.worst([S.HOLDS, S.NOT_SETTLED]) is S.NOT_SETTLED and verdict.worst([]) is S.HOLDS
    assert verdict.worst([S.NOT_SETTLED, S.REJECTED, S.HOLDS]) is S.REJECTED
    assert verdict.judged(None, "x").standing is S.NOT_SETTLED and verdict.judged(False, "x").refused
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"format": certificate.FORMAT, "version": certificate.VERSION, "kind": "hunch",
                             "problem": {}, "evidence": {}}))
    with pytest.raises(PegsatError, match="unknown certificate kind"):
        certificate.load(p)


def test_the_registry_names_each_kind_once_with_its_writers_and_files():
    """Every kind: its checker is its own module's, each module named as writing it writes it,
    every proof of a result has its kind, and the files a certificate names (those of the
    certificates it holds included) are listed by the registry."""
    import importlib

    from pegsat.model.result import CERTIFICATE_KIND

    for name, kind in certificate.KINDS.items():
        assert kind.name == name and kind.check.__module__.startswith("pegsat.checks.")
        for writer in kind.writers:
            src = Path(importlib.import_module(f"pegsat.{writer}").__file__).read_text()
            assert f'"{name}"' in src, f"{writer} does not write {name} certificates"
    assert set(CERTIFICATE_KIND.values()) <= set(certificate.KINDS)
    assert certificate.BOUNDS == ("moves",) and set(certificate.WRAPPERS) == {"split", "reversed"}
    sat = {"kind": "sat", "evidence": {"cnf": "a.cnf", "proof": "a.drat"}}
    held = {"kind": "reversed", "evidence": {"certificate": sat}}
    levels = {"kind": "levels", "evidence": {"levels": [[{"file": "0-0"}, {"file": "0-1"}]],
                                             "backward": [[{"file": "b0-0"}]]}}
    moves = {"kind": "moves", "evidence": {"forward": [{"file": "f0"}], "backward": [{"file": "b0"}]}}
    split = {"kind": "split", "evidence": {"survivors": [{"certificate": held}, {"certificate": levels}]}}
    assert certificate.named(split) == ["a.cnf", "a.drat", "0-0", "0-1", "b0-0"]
    assert certificate.named(moves) == ["f0", "b0"]
    assert certificate.named({"kind": "dead-set", "evidence": {"positions": "d.npz"}}) == ["d.npz"]
    assert certificate.named({"kind": "pagoda", "evidence": {}}) == []


@pytest.mark.parametrize("reference", [False, True], ids=["compiled", "reference"])
def test_a_dead_set_of_a_board_with_more_than_64_symmetries_is_checked(reference):
    """A board of eight holes and one line has 240 symmetries, more than the compiled loop
    takes at once (``closure.GROUPS_AT_ONCE``): its children are made plain, then given their
    least images. Found by a random draw of the property test above."""
    from pegsat.model.lattice import board_from_cells
    from pegsat.model.problem import Goal, Problem
    from pegsat.proofs import deadset

    cells = [(0, 1), (0, 2), (1, 0), (1, 1), (2, 0), (2, 2), (3, 1), (3, 2)]
    board = board_from_cells("random", "square+diagonal", cells)
    assert len(board.lines) == 1 and len(board.symmetries) > closure.GROUPS_AT_ONCE
    p = Problem(board, 254, Goal(min_pegs=1, max_pegs=2))
    got = deadset.refute(p, Deadline(30))
    assert got.kind == "dead" and len(got.group) > closure.GROUPS_AT_ONCE
    walk = dead_check.dead_set(p, got.dead, [list(g) for g in got.group],
                               [(list(g.weights), g.floor) for g in got.pagodas],
                               classes=list(got.classes) if got.classes else None, compiled=not reference)
    assert walk.ok, walk.message
