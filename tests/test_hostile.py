"""The second fuzz target: files pegsat reads back and the limits it runs into.

Corrupted caches (hypothesis flips, cuts and forges them) never change a verdict; nested
documents, decompression bombs, hole ids of thousands of digits, unknown solver names and bad
memory budgets are one line and exit 2; memory refused by the system (``resource.setrlimit``
in a child) is "unknown" with exit 20, never a traceback or a segmentation fault; the play
server stays quiet and serving through disconnects, stalls and bursts.
"""

from __future__ import annotations

import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pegsat import sealed
from pegsat.apps import hint as H
from pegsat.apps import play
from pegsat.apps.pose import pose
from pegsat.cli import main
from pegsat.engine.bitboard import engine
from pegsat.model.catalogue import get_board
from pegsat.model.options import ProblemOptions
from pegsat.model.problem import single_vacancy

T5 = get_board("triangle-5")
GAME = single_vacancy(T5, T5.hole("a1"))
OTHER = single_vacancy(T5, T5.hole("c3"))
EXAMPLES = int(os.environ.get("PEGSAT_FUZZ_EXAMPLES", "60"))


def cli(*args, **env):
    return CliRunner().invoke(main, [str(a) for a in args], env=env or None)


def one_line(r, code):
    """Exit ``code`` with one line on stderr/out and no traceback."""
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output and r.output.count("\n") <= 2, r.output


@lru_cache(None)
def truth(pos: int) -> bool:
    e, g = engine(T5), GAME.goal
    return g.satisfied(pos) or any(truth(e.apply(pos, k)) for k in e.legal(pos))


def verdicts_are_true(hinter: H.Hinter) -> None:
    """Every jump of a few games, against brute force."""
    e = engine(T5)
    for first in e.legal(GAME.start):
        pos = e.apply(GAME.start, first)
        while e.legal(pos):
            for v in hinter.jumps(pos):
                assert v.status == ("alive" if truth(e.apply(pos, v.jump)) else "dead"), v
            pos = e.apply(pos, e.legal(pos)[0])


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache holding GAME's solvable set; returns its file and the true set."""
    monkeypatch.setenv("PEGSAT_CACHE", str(tmp_path))
    arr = H.solvable_set(GAME)
    (path,) = tmp_path.glob("solvable-*.bin")
    return path, arr


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.data())
def test_a_damaged_cache_is_rebuilt_never_believed(cache, data):
    path, truth_set = cache
    good = path.read_bytes()
    how = data.draw(st.sampled_from(["flip", "cut", "insert", "empty", "header"]))
    if how == "flip":
        i = data.draw(st.integers(0, len(good) - 1))
        bad = good[:i] + bytes([good[i] ^ data.draw(st.integers(1, 255))]) + good[i + 1:]
    elif how == "cut":
        bad = good[:data.draw(st.integers(0, len(good) - 1))]
    elif how == "insert":
        i = data.draw(st.integers(0, len(good)))
        bad = good[:i] + data.draw(st.binary(min_size=1, max_size=16)) + good[i:]
    elif how == "empty":
        bad = b""
    else:  # a header that claims other things, the bytes left as they are
        head = json.loads(good.split(b"\n")[1])
        key = data.draw(st.sampled_from(sorted(head)))
        head[key] = data.draw(st.sampled_from([0, -1, 10**12, "x", None, [], True]))
        lines = good.split(b"\n", 2)
        bad = lines[0] + b"\n" + json.dumps(head).encode() + b"\n" + lines[2]
    path.write_bytes(bad)
    notes = []
    got = H.solvable_set(GAME, notes=notes)
    assert np.array_equal(got, truth_set)
    assert len(notes) == 1 and "was not used" in notes[0], notes
    assert path.read_bytes() == good  # rebuilt whole


def test_a_forged_cache_with_a_matching_hash_is_refused(cache):
    """Sets written with the right header and SHA-256 but the wrong contents: a superset
    (dead positions added), a reordering, another problem's set, positions off the board."""
    path, right = cache
    head = json.loads(path.read_bytes().split(b"\n")[1])
    k = H.kernel(T5, tuple(tuple(p) for p in H.stabilizer(GAME)))
    dead = [p for p in k.ints(k.unique(k.canon(k.step(right)))) if not truth(p)]
    assert dead
    other = H.solvable_set(OTHER)
    forgeries = {
        "a superset": np.union1d(right, np.array(dead[:3], dtype=np.uint64)),
        "a reordering": right[::-1].copy(),
        "another problem's set": other,
        "pegs off the board": np.union1d(right, np.array([1 << 40], dtype=np.uint64)),
    }
    for what, arr in forgeries.items():
        sealed.write(path, H.CACHE_KIND, H.CACHE_VERSION, head["fingerprint"], arr)
        notes = []
        assert np.array_equal(H.solvable_set(GAME, notes=notes), right), what
        assert notes and "was not used" in notes[0], what


def test_another_problems_cache_file_is_not_believed(cache):
    path, right = cache
    H.solvable_set(OTHER)
    others = [p for p in path.parent.glob("solvable-*.bin") if p != path]
    path.write_bytes(others[0].read_bytes())
    notes = []
    hinter = H.Hinter(GAME, per_jump=5, moves_left=False)
    assert any("fingerprint" in n for n in hinter.notes), hinter.notes
    verdicts_are_true(hinter)
    assert np.array_equal(H.solvable_set(GAME, notes=notes), right) and not notes


def test_hint_and_play_survive_an_empty_or_unwritable_cache(tmp_path):
    """An empty file is rebuilt (it once made every run exit 130); a cache that cannot be
    written is a note on stderr, and the answer is the same."""
    cache = tmp_path / "c"
    cache.mkdir()
    args = ["hint", "triangle-5", "--vacant", "a1", "--json", "--no-moves"]
    first = cli(*args, PEGSAT_CACHE=str(cache))
    assert first.exit_code == 0
    for f in cache.iterdir():
        f.write_bytes(b"")
    again = cli(*args, PEGSAT_CACHE=str(cache))
    assert again.exit_code == 0 and "was not used" in again.output
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    r = cli(*args, PEGSAT_CACHE=str(blocked / "sub"))
    assert r.exit_code == 0 and "note: cannot write the cache" in r.output, r.output
    hints = [json.loads(x.output.splitlines()[-1])["hints"] for x in (first, again, r)]
    assert hints[0] == hints[1] == hints[2]


def test_a_sweep_past_its_limit_leaves_the_planners_to_decide(tmp_path, monkeypatch):
    monkeypatch.setenv("PEGSAT_CACHE", str(tmp_path))
    monkeypatch.setenv("PEGSAT_MEMORY_GB", "0.000001")  # 1 KB: the sweep stops at once
    hinter = H.Hinter(GAME, per_jump=5, moves_left=False)
    assert hinter.alive is None and "not built" in hinter.notes[0]
    verdicts_are_true(hinter)


DEEP = 100_000


@pytest.mark.parametrize("kind", ["certificate", "problem file", "cnf"])
def test_deeply_nested_documents_are_one_line(tmp_path, kind):
    if kind == "certificate":
        f = tmp_path / "c.json"
        f.write_text('{"format": "pegsat-certificate", "x": ' + "[" * DEEP + "]" * DEEP + "}")
        r = cli("check", f)
    elif kind == "problem file":
        f = tmp_path / "p.toml"
        f.write_text('board = "english"\nstart = ' + "[" * DEEP + "]" * DEEP + "\n")
        r = cli("solve", f)
    else:
        f = tmp_path / "x.cnf"
        f.write_text("c pegsat-cnf\nc problem " + "[" * DEEP + "\np cnf 1 1\n1 0\n")
        r = cli("decode", f, f)
    one_line(r, 2)
    assert "nested" in r.output


def test_a_decompression_bomb_with_a_matching_hash_is_refused_unread(tmp_path):
    """The dead-set certificate states 690 positions; its file inflates to 768 MB. ``check``
    must refuse it from the zip headers, fast, without the memory to inflate it."""
    from pegsat.checks.evidence import sha256

    r = cli("prove", "triangle-5", "--vacant", "b3", "--survivor", "a1", "--certificate", tmp_path / "a.json")
    assert r.exit_code == 10, r.output
    cert = json.loads((tmp_path / "a.json").read_text())
    bomb = tmp_path / cert["evidence"]["positions"]
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf, \
            zf.open("planes.npy", "w", force_zip64=True) as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": "|u1", "fortran_order": False,
                                                  "shape": (8, 96 << 20)})
        zero = bytes(1 << 24)
        for _ in range(48):
            fh.write(zero)
    cert["evidence"]["sha256"] = sha256(bomb)
    (tmp_path / "a.json").write_text(json.dumps(cert))
    t0 = time.perf_counter()
    r = run_limited(["check", str(tmp_path / "a.json")], 600)
    assert r.returncode == 1 and "REJECTED" in r.stdout and "expands to" in r.stdout, r
    assert time.perf_counter() - t0 < 30


def test_a_second_certificate_never_spoils_the_first(tmp_path):
    """Two certificates whose names share a stem: each keeps its own companion file."""
    for name, survivor in (("c.json", "a1"), ("c.txt", "b3")):
        r = cli("prove", "triangle-5", "--vacant", "b3", "--survivor", survivor,
                "--certificate", tmp_path / name)
        assert r.exit_code == 10, r.output
    for name in ("c.json", "c.txt"):
        assert cli("check", tmp_path / name).exit_code == 0
    one_line(cli("prove", "triangle-5", "--certificate", ""), 2)


@pytest.mark.parametrize("args", [
    ["solve", "english", "--vacant", "7" * 5000],
    ["verify", "english", "1" * 5000 + "-2", "--notation", "ids"],
    ["verify", "english", "1" * 5000 + " 2 3 4", "--notation", "coords"],
    ["solve", "english", "--pegs", "9" * 5000],
    ["solve", "english", "--solver", "nope"],
    ["solve", "english", "--solver", "nope", "--planner", "layers"],
    ["solve", "english", "--solver", "nope", "--planner", "beam"],
])
def test_hostile_values_are_one_short_line(args):
    r = cli(*args)
    one_line(r, 2)
    assert len(r.output) < 600


@pytest.mark.parametrize("value", ["inf", "nan", "abc", "-1", "0", "1e300", " "])
def test_a_bad_memory_budget_is_one_line(value):
    r = cli("count", "triangle-5", "--vacant", "a1", "--quiet", PEGSAT_MEMORY_GB=value)
    if value.strip():
        one_line(r, 2)
        assert "PEGSAT_MEMORY_GB" in r.output
    else:
        assert r.exit_code == 0


def run_limited(args: list[str], megabytes: int, **env) -> subprocess.CompletedProcess:
    """``pegsat ARGS`` in a child whose address space is capped."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))

    return subprocess.run([sys.executable, "-m", "pegsat.cli", *args], capture_output=True, text=True,
                          preexec_fn=cap, timeout=300, env={**os.environ, **env})


@pytest.mark.parametrize("args, megabytes", [
    (["count", "english", "--json", "--quiet"], 400),
    (["solve", "english", "--vacant", "c1", "--survivor", "c1", "--planner", "layers", "--json"], 400),
])
def test_memory_refused_by_the_system_is_unknown(args, megabytes, tmp_path):
    """No segmentation fault, no traceback: exit 20, JSON status "unknown", one line why."""
    r = run_limited(args, megabytes, PEGSAT_CACHE=str(tmp_path))
    assert r.returncode == 20, (r.returncode, r.stderr[-2000:])
    assert "Traceback" not in r.stderr and "Segmentation" not in r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["status"] == "unknown"
    assert "memory" in r.stdout


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("PEGSAT_CACHE", str(tmp_path))
    monkeypatch.setattr(play, "TIMEOUT", 1.0)
    monkeypatch.setattr(play._Handler, "timeout", 1.0)
    srv = play.make_server(pose("triangle-5", ProblemOptions(vacant="a1")))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def post(port: int, body: bytes) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/api/status", body=body,
                 headers={"Host": f"127.0.0.1:{port}", "Content-Type": "application/json"})
    r = conn.getresponse()
    return r.status, r.read()


def test_the_play_server_holds_up(server, capfd):
    port = server.server_address[1]
    # a nested body: 400, not a traceback in the handler
    code, body = post(port, b"[" * 60_000)
    assert code == 400 and b"nested" in body
    # clients that vanish mid-request, and one that stalls past the socket timeout
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(b"POST /api/status HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json"
                      b"\r\nContent-Length: 500\r\n\r\n{\"jumps\"" % port)
    stalled = socket.create_connection(("127.0.0.1", port))
    stalled.sendall(b"POST /api/status HTTP/1.1\r\n")
    time.sleep(1.5)
    assert stalled.recv(100) == b""  # the server closed it
    stalled.close()
    # a burst of 60 clients at once: every one answered
    with ThreadPoolExecutor(60) as pool:
        codes = list(pool.map(lambda _: post(port, b'{"jumps": []}')[0], range(60)))
    assert codes == [200] * 60
    time.sleep(0.2)
    assert capfd.readouterr().err == ""  # quiet throughout


def test_play_on_a_port_in_use_is_one_line_before_any_work(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        t0 = time.perf_counter()
        r = cli("play", "english", "--port", port, "--no-browser", PEGSAT_CACHE=str(tmp_path))
        assert time.perf_counter() - t0 < 5  # the English solvable set (10 s) was not built
    assert r.exit_code == 2 and "in use" in r.output and "Traceback" not in r.output, r.output


def test_a_full_disk_is_unknown_and_leaves_nothing(tmp_path, monkeypatch):
    import errno

    from pegsat import files

    def full(path):
        raise OSError(errno.ENOSPC, "No space left on device", path)

    monkeypatch.setattr(files, "_fsync_file", full)
    out = tmp_path / "p.plan"
    r = cli("solve", "triangle-5", "--vacant", "a1", "--planner", "search", "--out", out)
    assert r.exit_code == 20 and "unknown: disk full" in r.output, r.output
    assert list(tmp_path.iterdir()) == []


def test_a_committed_output_is_fsynced_file_and_directory(tmp_path, monkeypatch):
    """A plan written with ``--out`` reaches the disk before its name does: the temporary file
    is fsynced, renamed over the target, and the directory fsynced (the tests' own fsync is a
    no-op: conftest's ``_no_fsync``; here the real one is watched)."""
    synced = []

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))

    monkeypatch.setattr(os, "fsync", fsync)
    out = tmp_path / "p.plan"
    r = cli("solve", "triangle-5", "--vacant", "a1", "--planner", "search", "--out", out)
    assert r.exit_code == 0 and out.is_file(), r.output
    assert len(synced) == 2 and synced[1] == str(tmp_path), synced
    assert Path(synced[0]).parent == tmp_path and Path(synced[0]).name.startswith(".p.plan.")


@pytest.mark.parametrize("codec", sealed.CODECS)
def test_sealed_files_round_trip_and_refuse_damage(tmp_path, codec):
    """Every codec gives back the very array (sorted or not, empty or not); a file cut short,
    a flipped byte of the body, a body that inflates past its count (with a recomputed
    SHA-256: a bomb) or a codec nobody wrote is Stale, never an array."""
    rng = np.random.default_rng(7)
    path = tmp_path / "x.lvl"
    for arr in (np.zeros(0, np.uint64), np.sort(rng.integers(0, 1 << 45, 5000, dtype=np.uint64)),
                rng.integers(0, 1 << 63, 300, dtype=np.uint64)):
        size = sealed.write(path, "level", 1, "fp", arr, codec=codec)
        assert size == path.stat().st_size
        assert np.array_equal(sealed.read(path, "level", 1, "fp", len(arr)), arr)
        assert sealed.header(path, "level", 1, "fp", len(arr))["count"] == len(arr)
        room = np.full(len(arr) + 2, 9, dtype=np.uint64)  # decoded in place, nothing beside touched
        sealed.read(path, "level", 1, "fp", len(arr), out=room[1:-1])
        assert np.array_equal(room[1:-1], arr) and room[0] == room[-1] == 9
        with pytest.raises(sealed.Stale):  # a file whose count is not the room's
            sealed.read(path, "level", 1, "fp", len(arr), out=room)
    good = path.read_bytes()
    magic, head, body = good.split(b"\n", 2)
    damaged = {"cut short": good[:-3], "a flipped byte": good[:-5] + bytes([good[-5] ^ 1]) + good[-4:]}
    meta = json.loads(head)
    if codec != "raw":  # 300 words stated, 10 million zero planes inside, SHA-256 recomputed
        import hashlib

        import zstandard

        bomb = zstandard.ZstdCompressor().compress(bytes(80_000_000))
        forged = {**meta, "bytes": len(bomb), "sha256": hashlib.sha256(bomb).hexdigest()}
        damaged["a bomb"] = magic + b"\n" + json.dumps(forged).encode() + b"\n" + bomb
    damaged["an unknown codec"] = magic + b"\n" + json.dumps({**meta, "codec": "lz9"}).encode() + b"\n" + body
    for what, bad in damaged.items():
        path.write_bytes(bad)
        with pytest.raises(sealed.Stale):
            sealed.read(path, "level", 1, "fp", 300)
        assert what
