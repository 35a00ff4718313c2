"""``count --spill``: levels by jumps on disk, expanded on a real two-worker Dask cluster, a
worker killed mid-level, a run stopped between levels and resumed; always the in-memory
count's numbers."""

import json
import os
import signal

import pytest
from click.testing import CliRunner

from pegsat.apps.count import count
from pegsat.apps.reach import reach
from pegsat.cli import main
from pegsat.engine import spill
from pegsat.errors import PegsatError
from pegsat.model.catalogue import get_board
from pegsat.model.problem import single_vacancy


@pytest.fixture(autouse=True)
def small_partitions(monkeypatch):
    """Partitions as small as the tiny memory per worker asks (the floor is for real runs):
    many tasks a level, levels split differently."""
    monkeypatch.setattr(spill, "MIN_PART_BYTES", 0)


T6 = get_board("triangle-6")
GAME = single_vacancy(T6, T6.hole("a1"))


@pytest.fixture(scope="module")
def truth():
    c = count(GAME)
    return [lv.classes for lv in c.levels], [lv.positions for lv in c.levels]


@pytest.mark.slow  # a cluster of its own; test_fewest kills a worker of the same level loop by default
def test_a_worker_killed_mid_level_changes_nothing(tmp_path, truth):
    """Small memory per worker: levels of up to 16 partitions, dozens of tasks a level; one
    worker is SIGKILLed while a level's tasks are out, and Dask reruns them elsewhere."""
    killed = {}

    def kill(client, d):
        if d == 9 and not killed:
            addr = sorted(client.scheduler_info()["workers"])[0]
            pid = client.run(os.getpid, workers=[addr])[addr]
            os.kill(pid, signal.SIGKILL)
            killed["pid"] = pid

    got = reach(GAME, tmp_path / "levels", workers=2, memory=1 << 20, on_level=kill)
    assert killed
    assert max(lv.parts for lv in got.levels) >= 8
    assert [lv.classes for lv in got.levels] == truth[0]
    assert [lv.raw for lv in got.levels] == truth[1]


class Stop(Exception):
    pass


def test_a_run_stopped_between_levels_resumes_to_the_same_numbers(tmp_path, truth, cluster):
    root = tmp_path / "levels"

    def stop(client, d):
        if d == 7:
            raise Stop

    with pytest.raises(Stop):
        reach(GAME, root, scheduler=cluster, memory=1 << 20, on_level=stop)
    manifest = json.loads((root / "manifest.json").read_text())
    assert len(manifest["levels"]["forward"]) == 8  # levels 0..7 finished
    said = []
    got = reach(GAME, root, scheduler=cluster, memory=1 << 20, progress=said.append)
    assert said[0].startswith("resuming from level 7")
    assert [lv.classes for lv in got.levels] == truth[0]
    assert [lv.raw for lv in got.levels] == truth[1]
    # the directory of another problem's census is refused, named, and left as it was
    before = (root / "manifest.json").read_bytes()
    other = single_vacancy(T6, T6.hole("c3"))
    with pytest.raises(PegsatError, match="holds the levels of count triangle-6: vacancy a1"):
        reach(other, root, scheduler=cluster)
    assert (root / "manifest.json").read_bytes() == before


def test_a_tree_that_ends_before_one_peg_ends_there(tmp_path, cluster):
    """square-4x5 from b2: the last jumps leave two pegs at best; no empty level is added."""
    b = get_board("square-4x5")
    p = single_vacancy(b, b.hole("b2"))
    want = [lv.classes for lv in count(p).levels]
    got = reach(p, tmp_path / "levels", scheduler=cluster)
    assert [lv.classes for lv in got.levels] == want and want[-1] and got.complete
    again = reach(p, tmp_path / "levels", scheduler=cluster)  # a finished run: nothing more to do
    assert [lv.classes for lv in again.levels] == want


@pytest.mark.slow  # the census on disk by the CLI: test_an_edited_count_in_the_manifest_is_refused too
def test_count_spill_through_the_command_line(tmp_path, truth):
    r = CliRunner().invoke(main, ["count", "triangle-6", "--vacant", "a1", "--spill", str(tmp_path / "l"),
                                  "--json", "--quiet", "--memory-limit", "8MB"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output.splitlines()[-1])
    assert [lv["classes"] for lv in data["levels"]] == truth[0] and data["complete"]
    r = CliRunner().invoke(main, ["count", "triangle-6", "--spill", str(tmp_path / "m"), "--memory-limit",
                                  "lots"])
    assert r.exit_code == 2 and "is not a size" in r.output


def test_a_tiny_memory_per_worker_does_not_make_thousands_of_partitions(monkeypatch):
    """A level of 10^6 positions at 1 MB per worker: 1024 partitions as the memory asks, 64
    under the floor (each a task and a bucket file per source partition)."""
    assert spill.partitions(10**6, 24, 1 << 20) == 1024
    monkeypatch.setattr(spill, "MIN_PART_BYTES", 8 << 20)
    assert spill.partitions(10**6, 24, 1 << 20) == 64
    assert spill.partitions(10**6, 24, 1 << 30) == 1  # what fits a worker stays whole


def test_a_count_past_the_memory_budget_goes_on_out_of_core(monkeypatch, truth, few_partitions):
    """``count`` with a 0.1 MB budget: the levels in memory outgrow it, the census goes on on
    disk by itself, with the in-memory count's classes and raw positions (and says that the
    rest of the count needs memory), the temporary directory removed."""
    monkeypatch.setenv("PEGSAT_MEMORY_GB", "0.0001")
    r = CliRunner().invoke(main, ["count", "triangle-6", "--vacant", "a1", "--json"])
    assert r.exit_code == 0, r.output
    assert "going on with the reachable positions on disk in" in r.output
    data = json.loads(r.output.splitlines()[-1])
    assert [lv["classes"] for lv in data["levels"]] == truth[0]
    assert [lv["raw"] for lv in data["levels"]] == truth[1] and data["complete"]
    where = r.output.split("on disk in ")[1].split()[0]
    assert not os.path.exists(where)


def test_the_time_limit_holds_inside_a_level(tmp_path, truth, cluster):
    """A deadline that passes while a level is being built ends the count there ("unknown",
    the levels finished before it kept), not after the level (a German level takes minutes)."""
    from pegsat.deadline import Deadline
    from pegsat.errors import Unknown

    late = {"now": False}

    def passes(client, d):
        if d == 6:
            late["now"] = True  # the limit passes while level 7 is built

    with pytest.raises(Unknown) as got:
        reach(GAME, tmp_path / "levels", scheduler=cluster, memory=1 << 20,
              deadline=Deadline(stop=lambda: late["now"]), on_level=passes)
    assert "while level 7 was built" in str(got.value)
    assert got.value.facts["classes_per_level"] == truth[0][:7]


def test_a_level_built_in_rounds_goes_on_after_a_kill_and_rebuilds_a_damaged_partition_whole(
        tmp_path, truth, cluster, monkeypatch):
    """Room for 200 kB of buckets: the larger levels are built in rounds, each expanding some
    of the level before once and folding its buckets into a file per partition. A run stopped
    in a level's second round keeps the first's; the rerun expands only what is left (every
    position of the level before once in all) and is killed once its last round's buckets are
    written and its partitions merged, one of them then damaged (its last byte flipped, its
    header still valid): the third run reads every partition whole, rebuilds the damaged one
    from the rounds' files and the last round expanded again for it alone (never reading it
    as empty, nor from the last round's children only), and counts what a run in one go
    counts."""
    from distributed import Future, wait

    from pegsat.engine import disk
    from pegsat.engine.bitboard import stabilizer
    from pegsat.engine.kernel import kernel

    monkeypatch.setattr(spill, "room", lambda root, disk: 200_000)
    real, seen = spill.rounds, []

    def rounds(*args, **kw):
        for r in real(*args, **kw):
            seen.append((args[2], r))
            yield r

    monkeypatch.setattr(spill, "rounds", rounds)
    root, forward = tmp_path / "levels", tmp_path / "levels" / "forward"

    def second(client, d):
        if seen[-1][0] == d + 1 and seen[-1][1].index == 1:  # the second round of level d + 1 is out
            raise Stop

    told = []
    with pytest.raises(Stop):
        reach(GAME, root, scheduler=cluster, memory=1 << 20, on_level=second, progress=told.append)
    d = seen[-1][0]
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["building"][:2] == ["forward", d] and len(manifest["rounds"]) == 1
    assert told[-1].startswith(f"level {d}: round 2, "), told[-1]
    first = next(line for line in told if line.startswith(f"level {d}: round 1, "))
    total = int(first.split(" of the ")[1].split()[0].replace(",", ""))
    kept = sum(end - lo for _, lo, end in manifest["rounds"][0])
    assert kept == int(first.split(", ")[1].split()[0].replace(",", "")) < total
    assert list(spill.level_dir(forward, d).glob("R*-0000.bkt"))
    assert not list(spill.level_dir(forward, d).glob("P*.lvl"))

    def last(client, e):
        if seen[-1][0] == e + 1 == d and seen[-1][1].last:  # level d's last round: its buckets written
            wait([Future(key, client) for key in list(client.futures)])
            raise Stop

    said = []
    with pytest.raises(Stop):
        reach(GAME, root, scheduler=cluster, memory=1 << 20, on_level=last, progress=said.append)
    assert said[0].startswith(f"resuming from level {d - 1}")
    rounds_said = [line for line in said if line.startswith(f"level {d}: round ")]
    assert rounds_said[0].startswith(f"level {d}: round 2, ")  # the first round was not redone
    redone = sum(int(line.split(", ")[1].split()[0].replace(",", "")) for line in rounds_said)
    assert redone + kept == total  # each position of level d - 1 expanded once
    parts = json.loads((root / "manifest.json").read_text())["building"][2]
    k = kernel(GAME.board, tuple(tuple(p) for p in stabilizer(GAME)))
    fp = disk.side_fp(disk.fingerprint("census", GAME), "forward")
    _, _, max_count = spill.prepare(root, 1 << 20, 2, disk.FANOUT["census"])
    merged = [spill.merge(k, forward, fp, d, q, max_count) for q in range(parts)]  # the merges, then the kill
    q = max(range(parts), key=lambda i: merged[i].classes)
    path = spill.part_path(forward, d, q)
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF
    path.write_bytes(bytes(raw))
    got = reach(GAME, root, scheduler=cluster, memory=1 << 20)
    assert [lv.classes for lv in got.levels] == truth[0] and [lv.raw for lv in got.levels] == truth[1]


def test_rounds_cut_the_level_before_into_about_equal_groups_that_fit(tmp_path, monkeypatch):
    """The rounds of a level take every position of the level before once, in groups the
    room fits (a piece cut where a round is full), about equal; a rerun goes on after the
    rounds done, its killed round's buckets dropped; no room for a round of a quarter of the
    level before (a pass's for one of its 4 partitions) is NoRoom."""
    import numpy as np

    fp, here = "fp", tmp_path
    for p, n in enumerate((1000, 600)):
        spill.write_part(here, fp, 2, p, np.arange(n, dtype=np.uint64))
    (here / spill.RATE).write_text("10\n")  # bytes of buckets a position expanded
    monkeypatch.setattr(spill, "room", lambda root, disk: 6000)  # 600 positions a round
    tasks = [(0, 0, 1024), (1, 0, 1024)]
    got = list(spill.rounds(here, fp, 3, 4, tasks, merged=0.0))
    assert [r.pieces for r in got] == [((0, 0, 534),), ((0, 534, 1000), (1, 0, 67)), ((1, 67, 600),)]
    assert [r.positions for r in got] == [534, 533, 533] and [r.last for r in got] == [False, False, True]
    level = spill.level_dir(here, 3)
    level.mkdir()
    for name in ("R0001-0000.bkt", "R0001-0001.bkt", "B0001-0000-0000000000-0000.bkt"):
        (level / name).write_bytes(b"x")
    again = list(spill.rounds(here, fp, 3, 4, tasks, done=[got[0].pieces], merged=0.0))
    assert [r.index for r in again] == [1, 2] and sum(r.positions for r in again) == 1066
    assert sorted(f.name for f in level.iterdir()) == ["R0001-0000.bkt", "R0001-0001.bkt"]  # buckets gone
    monkeypatch.setattr(spill, "room", lambda root, disk: 3990)  # 399 positions of the 400
    with pytest.raises(spill.NoRoom, match="give --disk-limit more"):
        next(spill.rounds(here, fp, 3, 4, tasks))


def test_the_room_for_buckets_is_the_disk_limit_less_what_the_directory_holds(tmp_path, cluster,
                                                                             few_partitions):
    """``--disk-limit``: no room for one partition's buckets is "unknown" (exit 20, one line),
    the levels finished kept for a rerun."""
    (tmp_path / "a").write_bytes(b"x" * 1000)
    assert spill.room(tmp_path, 5000) == 4000
    assert 0 < spill.room(tmp_path, None) < spill.shutil.disk_usage(tmp_path).free
    r = CliRunner().invoke(main, ["count", "english", "--spill", str(tmp_path / "l"), "--disk-limit", "2MB",
                                  "--memory-limit", "64MB", "--scheduler", cluster])
    assert r.exit_code == 20 and "needs ~" in r.output and "give --disk-limit more" in r.output, r.output
    assert "levels before it are kept" in r.output
    assert len(json.loads((tmp_path / "l" / "manifest.json").read_text())["levels"]["forward"]) >= 2


def test_an_edited_count_in_the_manifest_is_refused(tmp_path, cluster, few_partitions):
    """The checkpoint is signed: a level count edited by hand is not printed as the census."""
    root = tmp_path / "levels"
    reach(GAME, root, scheduler=cluster, memory=1 << 20)
    data = json.loads((root / "manifest.json").read_text())
    data["levels"]["forward"][3]["classes"] += 1
    (root / "manifest.json").write_text(json.dumps(data))
    r = CliRunner().invoke(main, ["count", "triangle-6", "--vacant", "a1", "--spill", str(root),
                                  "--scheduler", cluster])
    assert r.exit_code == 2 and "not signed by this user's pegsat" in r.output, r.output
