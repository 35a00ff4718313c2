"""``levels`` certificates: the levels of an exhausted search by jumps out of core, checked by
``proofs.layered`` (sharing no search code); every self-dual problem of a small board
certified exactly when it is unsolvable; tampering refused."""

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from pegsat import sealed
from pegsat.apps.solve import solve
from pegsat.checks import certificate, closure, evidence, kit, levels
from pegsat.deadline import Deadline
from pegsat.engine import disk
from pegsat.model import codec
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, single_vacancy
from pegsat.model.result import Status
from pegsat.planners.config import Config
from pegsat.planners.layers import on_disk

T5 = get_board("triangle-5")


def vv(board, hole):
    return single_vacancy(board, board.hole(hole), Goal.survivor(board, board.hole(hole)))


def levels_of(p, root, cluster):
    """The search by jumps out of core of ``p`` in ``root`` and a levels certificate of the
    levels it kept, whatever it found (a search that met a plan leaves levels that must
    not check)."""
    from pegsat.planners.ondisk import levels_certificate

    r = on_disk(p, root, scheduler=cluster, memory=1 << 20)
    state = disk.resume(root, "jumps", p, lambda line: None)
    fp = disk.fingerprint("jumps", p, state.built, state.pagodas)
    return r, levels_certificate(p, root, fp, state)


@pytest.mark.parametrize("hole", ["a1", "b3"])
def test_a_self_dual_problem_is_certified_exactly_when_it_is_unsolvable(hole, tmp_path, cluster):
    p = vv(T5, hole)
    truth = solve(p, "layers", Config(), Deadline(60))
    r, cert = levels_of(p, tmp_path, cluster)
    assert r.status.solved == truth.status.solved
    v = certificate.check(cert, tmp_path)
    assert v.ok == (truth.status is Status.UNSOLVABLE), v.message
    rebuilt = certificate.check(cert, tmp_path, rebuild=True)
    assert rebuilt.ok == v.ok, rebuilt.message
    if not v.ok:
        assert "a plan may pass through them" in v.message
    else:
        assert r.certificate == cert and (tmp_path / "certificate.json").is_file()


@pytest.fixture
def refuted(tmp_path, cluster):
    """triangle-5 b4 -> b4 (unsolvable): its levels and the certificate the search wrote."""
    r = on_disk(vv(T5, "b4"), tmp_path, scheduler=cluster, memory=1 << 20)
    assert r.status is Status.UNSOLVABLE and r.certificate["kind"] == "levels"
    return tmp_path, json.loads((tmp_path / "certificate.json").read_text())


def test_the_certificate_checks_through_the_cli_and_on_a_cluster(refuted, cluster, monkeypatch):
    from click.testing import CliRunner

    from pegsat.cli import main

    root, cert = refuted
    out = CliRunner().invoke(main, ["check", str(root / "certificate.json")])
    assert out.exit_code == 0 and "levels certificate holds" in out.output, out.output
    out = CliRunner().invoke(main, ["check", str(root / "certificate.json"), "--scheduler", cluster])
    assert out.exit_code == 0 and "levels certificate holds" in out.output, out.output

    def room(*args, **kwargs):  # the walk's room for buckets, as ``--disk-limit`` gives it
        rooms.append(args[3])
        return run_steps(*args, **kwargs)

    rooms: list[int | None] = []
    run_steps = levels.run_steps
    monkeypatch.setattr(levels, "run_steps", room)
    for limit, code, said in (("2MB", 0, "levels certificate holds"), ("1", 2, "less than 1MB")):
        out = CliRunner().invoke(main, ["check", str(root / "certificate.json"), "--disk-limit", limit])
        assert out.exit_code == code and said in out.output, out.output
    assert rooms == [2_000_000]


def test_the_levels_rebuilt_by_the_check_need_no_level_file(refuted, cluster, monkeypatch):
    """``check --rebuild``: with every level file gone, the certificate file alone checks
    (here and on a cluster), the check's levels no larger than the stated ones; a stated
    count below what a level holds is refused, as is a wrong premise; a rebuilt check
    stopped goes on from its journal, whose levels are removed at the verdict."""
    from click.testing import CliRunner

    from pegsat.cli import main

    root, cert = refuted
    said = sum(it["count"] for lv in cert["evidence"]["levels"] for it in lv)
    alone = root / "alone"
    alone.mkdir()
    (alone / "certificate.json").write_text(json.dumps(cert))
    out = CliRunner().invoke(main, ["check", str(alone / "certificate.json")])
    assert out.exit_code == 1 and "is missing" in out.output, out.output  # the files are read by default
    for extra in ([], ["--scheduler", cluster]):
        out = CliRunner().invoke(main, ["check", str(alone / "certificate.json"), "--rebuild", *extra])
        assert out.exit_code == 0 and "rebuilt by the check" in out.output, out.output
        made = int(out.output.split("rebuilt by the check (")[1].split(" positions")[0].replace(",", ""))
        assert 0 < made <= said and f"states {said:,}" in out.output
    assert [f.name for f in alone.iterdir()] == ["certificate.json"]  # nothing left behind

    def refused(changed, why):
        v = certificate.check(changed, alone, rebuild=True)
        assert not v.ok and v.finished and why in v.message, v.message

    bad = json.loads(json.dumps(cert))
    d = max(range(len(bad["evidence"]["levels"])), key=lambda d: bad["evidence"]["levels"][d][0]["count"])
    bad["evidence"]["levels"][d][0]["count"] -= 1
    refused(bad, f"level {d} part 0 rebuilt holds")
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["pagodas"][0]["floor"] += 100
    refused(bad, "a goal position weighs less than its floor")
    # an atlas being built (``walk_above``): past that size only the premises, the walk is ``check``'s
    v = certificate.check(cert, alone, rebuild=True, walk_above=0)
    assert not v.finished and "rebuilt by a whole check only" in v.message, v.message
    v = certificate.check(bad, alone, rebuild=True, walk_above=0)
    assert v.refused and "weighs less than its floor" in v.message, v.message
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["levels"].pop()
    refused(bad, "do not reach halfway")

    journal = alone / "journal.json"
    real = levels.Levels.build
    monkeypatch.setattr(levels.Levels, "build", lambda self, d, q, seconds=None, side="forward": (
        closure.UNSETTLED + "time limit" if d == 3 else real(self, d, q, seconds, side)))
    v = certificate.check(cert, alone, journal=journal, rebuild=True)
    assert not v.finished and len(list((alone / "journal.json.levels").glob("*/forward-3"))) == 1, v.message
    monkeypatch.setattr(levels.Levels, "build", real)
    other = json.loads(json.dumps(cert))  # another check on the same journal keeps its levels apart
    other["evidence"]["pagodas"] = []
    assert certificate.check(other, alone, journal=journal, rebuild=True).refused
    again = certificate.check(cert, alone, journal=journal, rebuild=True)
    assert again.ok and "taken from the journal" in again.message, again.message
    assert not (alone / "journal.json.levels").exists()
    (journal).unlink()
    assert certificate.check(cert, alone, journal=journal).refused  # the files: a key of its own


def reseal(root, part, positions):
    """Rewrite a level file with these positions, and its entry to match (as a forger would)."""
    path = root / part["file"]
    head = json.loads(path.read_bytes().split(b"\n")[1])
    sealed.write(path, "level", 1, head["fingerprint"], np.array(positions, dtype=np.uint64),
                 codec="zstd-planes")
    head = json.loads(path.read_bytes().split(b"\n")[1])
    part["count"], part["sha256"] = head["count"], head["sha256"]


@pytest.mark.parametrize("reference", [False, True], ids=["compiled", "reference"])
def test_tampering_is_refused(refuted, reference):
    """By the compiled checker and by its numpy reference alike."""
    root, cert = refuted
    assert certificate.check(cert, root, reference=reference).ok

    def refused(changed, why):
        v = certificate.check(changed, root, reference=reference)
        assert not v.ok and why in v.message, v.message

    # a position removed from a middle level (its file resealed, the entry updated)
    forged = json.loads(json.dumps(cert))
    part = forged["evidence"]["levels"][3][0]
    x = kit.load_level_part(root / part["file"], part["count"], part["sha256"])
    backup = (root / part["file"]).read_bytes()
    reseal(root, part, x[1:])
    refused(forged, "neither excluded nor in level 3")
    (root / part["file"]).write_bytes(backup)
    # the file changed under the certificate
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["levels"][3][0]["sha256"] = "0" * 64
    refused(bad, "does not hold the")
    # a pagoda floor raised past what the goal weighs
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["pagodas"][0]["floor"] += 100
    refused(bad, "a goal position weighs less than its floor")
    # no mirror, or a wrong one
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["mirror"] = None
    refused(bad, "without a mirror the levels must reach")
    bad = json.loads(json.dumps(cert))
    moves = next(s for s in T5.symmetries if s[T5.hole("b4")] != T5.hole("b4"))
    bad["evidence"]["mirror"] = list(moves)  # (the identity is a mirror of every v -> v)
    refused(bad, "the mirror does not map")
    # the last level dropped: the levels no longer reach halfway
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["levels"].pop()
    refused(bad, "do not reach halfway")
    # a symmetry that moves the start
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["symmetries"].append(list(moves))
    refused(bad, "does not map the")
    # another partition rule
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["partition"] = "0x1"
    refused(bad, "another rule")


def test_a_forged_empty_last_level_is_refused(refuted):
    """A search that runs dry ends with an empty level, and its certificate has no meeting to
    check; levels cut short with an empty level forged after them are refused by the
    closure of the level before it."""
    root, cert = refuted
    bad = json.loads(json.dumps(cert))
    levels = bad["evidence"]["levels"][:4]
    part = dict(levels[3][0], file="forged.lvl")
    shutil.copy(root / levels[3][0]["file"], root / "forged.lvl")
    reseal(root, part, [])
    bad["evidence"]["levels"] = [*levels[:3], [part]]
    v = certificate.check(bad, root)
    assert not v.ok and "neither excluded nor in level 3" in v.message, v.message


ROOM = 2000  # bytes: a few partitions' buckets


def test_levels_whose_buckets_do_not_fit_are_checked_in_rounds(tmp_path, cluster, monkeypatch):
    """Levels of several partitions, the check's buckets given room for a few kB: each level
    is walked in rounds of its partitions, each partition expanded once (the last level's
    mirrored meeting in passes of the partitions it meets), with the same verdict and
    children walked, from the files and rebuilt alike; no room at all is "not settled"."""
    from functools import partial

    from pegsat.engine import spill

    monkeypatch.setattr(spill, "MIN_PART_BYTES", 0)
    r = on_disk(vv(T5, "b4"), tmp_path, scheduler=cluster, memory=1 << 16)
    root, cert = tmp_path, r.certificate
    assert max(len(lv) for lv in cert["evidence"]["levels"]) >= 4
    ev = cert["evidence"]
    problem = codec.problem_from_json(cert["problem"])
    loaders = [[partial(kit.load_level_part, root / it["file"], it["count"], it["sha256"]) for it in lv]
               for lv in ev["levels"]]
    sizes = [sum(it["count"] for it in lv) for lv in ev["levels"]]
    args = (problem, loaders, ev["symmetries"], evidence.pagodas_of(problem, ev), ev["mirror"])
    whole = levels.check(*args, sizes=sizes)
    calls: list[tuple[int, int, object]] = []
    real = levels.Levels.expand

    def counted(self, d, p, targets=None, seconds=None, side="forward"):
        calls.append((d, p, targets))
        return real(self, d, p, targets, seconds, side)

    counts = [[it["count"] for it in lv] for lv in ev["levels"]]
    last = len(ev["levels"]) - 1
    monkeypatch.setattr(levels.Levels, "expand", counted)
    for how in ("files", "rebuilt"):
        calls.clear()
        told: list[str] = []
        given = args if how == "files" else (problem, counts, *args[2:])
        split = levels.check(*given, sizes=sizes, room=ROOM, progress=told.append, rebuild=how == "rebuilt")
        assert split.ok and split.walked == whole.walked, (how, split.message)
        closed = [(d, p) for d, p, _ in calls if d < last]
        assert len(closed) == len(set(closed)) == sum(len(lv) for lv in ev["levels"][:last]), how
        assert any(re.match(r"level \d+, \d+ of its \d+ partitions into ", t) for t in told), told
    assert "rebuilt by the check" in split.message, split.message
    monkeypatch.setattr(levels.Levels, "expand", real)
    # stopped in a round of level 4 after the first (part of level 5 rebuilt), then gone on
    journal = kit.Journal(tmp_path / "journal.json", "rounds")
    build, built = levels.Levels.build, []

    def stops(self, d, q, seconds=None, side="forward"):
        built.append(d)
        if d == 4 and built.count(4) > len(counts[5]):
            return closure.UNSETTLED + "time limit"
        return build(self, d, q, seconds, side)

    monkeypatch.setattr(levels.Levels, "build", stops)
    rebuilt = partial(levels.check, problem, counts, *args[2:], sizes=sizes, room=ROOM, rebuild=True,
                      journal=journal)
    assert not rebuilt().finished
    monkeypatch.setattr(levels.Levels, "build", build)
    again = rebuilt()
    assert again.ok and again.walked == whole.walked, again.message
    assert "taken from the journal" in again.message, again.message
    none = levels.check(*args, sizes=sizes, room=0)
    assert not none.finished and "no room on the disk" in none.message


def test_a_check_past_its_time_limit_is_not_settled_never_rejected(refuted):
    """The time limit passing mid-check (a task handed 0 seconds left) is "not settled"."""
    from pegsat.deadline import Deadline

    root, cert = refuted
    v = certificate.check(cert, root, deadline=Deadline.passed())
    assert not v.ok and not v.finished and "rejected" not in v.message, v.message



def test_a_full_disk_under_the_check_is_not_settled_never_rejected(refuted, monkeypatch):
    import errno

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    root, cert = refuted
    monkeypatch.setattr(kit.sealed, "write", full)
    v = certificate.check(cert, root)
    assert not v.ok and not v.finished and "could not be written" in v.message, v.message


def test_a_stopped_check_goes_on_from_its_journal(refuted, monkeypatch):
    """A check stopped at step 3 (its lookups 'out of time') leaves steps 0..2 in its journal;
    the check run again with it walks only the rest, ends with the verdict and the children
    of a check in one go, and says what it took from the journal. The journal is for that
    certificate only, and a file that is not one is exit 2 through the CLI."""
    from click.testing import CliRunner

    from pegsat.cli import main

    root, cert = refuted
    whole = certificate.check(cert, root)
    journal = root / "journal.json"
    real = levels.Levels.lookup

    def stops(self, d, q, seconds=None, side="forward"):
        return closure.UNSETTLED + "time limit" if d == 3 else real(self, d, q, seconds, side)

    monkeypatch.setattr(levels.Levels, "lookup", stops)
    v = certificate.check(cert, root, journal=journal)
    assert not v.finished
    monkeypatch.setattr(levels.Levels, "lookup", real)
    walked = []
    expand = levels.Levels.expand
    monkeypatch.setattr(levels.Levels, "expand",
                        lambda self, d, p, *a, **k: walked.append(d) or expand(self, d, p, *a, **k))
    told: list[str] = []
    again = certificate.check(cert, root, journal=journal, progress=told.append)
    assert again.ok and min(walked) == 3, again.message
    assert told[0].startswith("level 3 into level 4: ") and "mirrored" in told[-1], told
    assert "3 of the" in again.message and "taken from the journal" in again.message
    said = lambda v: v.message.split("): ", 1)[1].split(" children walked")[0]  # noqa: E731
    assert said(again) == said(whole)
    import pegsat

    steps = len(cert["evidence"]["levels"])
    assert f"{steps} of the {steps} steps taken from the journal" in pegsat.check(
        root / "certificate.json", journal=journal).message  # the library's, every step done
    other = json.loads(json.dumps(cert))
    other["evidence"]["pagodas"] = []  # another certificate (a wrong one): nothing of the journal applies
    walked.clear()
    assert not certificate.check(other, root, journal=journal).ok and min(walked) == 0
    (root / "bad.json").write_text('{"format": "pegsat-check-journal", "checks": {"k": {"x": 1}}}')
    args = ["check", str(root / "certificate.json"), "--journal", str(root / "bad.json")]
    out = CliRunner().invoke(main, args, catch_exceptions=False)
    assert out.exit_code == 2 and "not a journal" in out.output, out.output


@pytest.mark.parametrize("pair", ["a1-b3", "b3-c5"])
def test_a_search_grown_from_both_sides_is_certified_exactly_when_unsolvable(pair, tmp_path, cluster):
    """A fixed goal that is not the start's mirror: the search by jumps grows forward levels
    from the start and backward ones from the goal, and its certificate holds both, checked
    (backward: closed under jumps reversed, a position weighing more than the start under a
    pagoda excluded) exactly when the problem is unsolvable."""
    v, s = pair.split("-")
    p = single_vacancy(T5, T5.hole(v), Goal.survivor(T5, T5.hole(s)))
    truth = solve(p, "layers", Config(), Deadline(60))
    r, cert = levels_of(p, tmp_path, cluster)
    assert r.status.solved == truth.status.solved and cert["evidence"].get("backward")
    v = certificate.check(cert, tmp_path)
    assert v.ok == (truth.status is Status.UNSOLVABLE), v.message
    assert certificate.check(cert, tmp_path, reference=True).standing is v.standing  # numpy's, the same
    if not v.ok:
        assert "a plan may pass through them" in v.message, v.message
        return
    assert r.certificate == cert and "backward levels" in v.message
    rebuilt = certificate.check(cert, tmp_path, rebuild=True)
    assert rebuilt.ok and "backward levels, rebuilt by the check" in rebuilt.message, rebuilt.message
    # the meeting walked from each side (the checker walks the smaller one's children)
    from functools import partial

    ev = cert["evidence"]

    def loaders(key):
        return [[partial(kit.load_level_part, tmp_path / it["file"], it["count"], it["sha256"])
                 for it in lv] for lv in ev[key]]
    a, b = len(ev["levels"]), len(ev["backward"])
    for fs, bs, said in (([1] * a, [2] * b, "no child of level"), ([2] * a, [1] * b, "no parent of")):
        w = levels.check(p, loaders("levels"), ev["symmetries"], evidence.pagodas_of(p, ev), None,
                          sizes=fs, back=loaders("backward"), back_sizes=bs)
        assert w.ok and said in w.message, w.message
    # a position removed from a backward level (its file resealed, the entry updated)
    forged = json.loads(json.dumps(cert))
    back = forged["evidence"]["backward"]
    d = next(d for d in range(1, len(back)) if back[d][0]["count"])
    part = back[d][0]
    x = kit.load_level_part(tmp_path / part["file"], part["count"], part["sha256"])
    reseal(tmp_path, part, x[1:])
    for reference in (False, True):
        v = certificate.check(forged, tmp_path, reference=reference)
        assert not v.ok and f"neither excluded nor in backward level {d}" in v.message, v.message
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["backward"].pop()
    v = certificate.check(bad, tmp_path)
    assert not v.ok and "do not meet in a plan" in v.message, v.message


@pytest.mark.parametrize("side", ["forward", "backward"])
def test_an_empty_level_past_the_plans_jumps_proves_nothing(side):
    """Levels to T + 1 jumps end empty even when a plan exists (the goal's children have too
    few pegs, and are excluded): an empty level counts only within the plan's T jumps."""
    p = vv(T5, "a1")  # solvable, 13 jumps

    def none():
        return np.zeros(0, dtype=np.uint64)
    forward = [[none]] * (15 if side == "forward" else 1)
    back = [[none]] * 15 if side == "backward" else []
    w = levels.check(p, forward, [list(range(T5.n))], [], None, ends_empty=side, back=back)
    assert w.refused and "past the 13 jumps" in w.message, w.message


def test_a_part_stated_past_memory_or_linked_out_of_its_directory_is_rejected(refuted, tmp_path_factory):
    """A part stated at 2^40 positions whose file holds a few is rejected (its header says
    otherwise), not "not settled"; a level file that is a symbolic link out of the
    certificate's directory is not read."""
    root, cert = refuted
    bad = json.loads(json.dumps(cert))
    bad["evidence"]["levels"][2][0]["count"] = 1 << 40
    v = certificate.check(bad, root)
    assert v.finished and not v.ok and "does not hold the" in v.message, v.message
    part = cert["evidence"]["levels"][2][0]
    outside = tmp_path_factory.mktemp("elsewhere") / "part.lvl"
    (root / part["file"]).rename(outside)
    (root / part["file"]).symlink_to(outside)
    v = certificate.check(cert, root)
    assert v.finished and not v.ok and "leads out of the certificate's directory" in v.message, v.message
    (root / part["file"]).unlink()
    outside.rename(root / part["file"])
    assert certificate.check(cert, root).ok


def test_a_certificate_in_a_read_only_directory_is_checked_on_a_cluster(refuted, cluster, monkeypatch):
    """Its buckets go to a temporary directory, not beside it (a PermissionError there made a
    certificate that holds "rejected")."""
    import os

    from pegsat.engine.cluster import mapped

    root, cert = refuted
    real = os.access
    monkeypatch.setattr(evidence.os, "access",
                        lambda p, mode: False if Path(p).resolve() == root.resolve() else real(p, mode))
    before = sorted(root.rglob("*"))
    with mapped(2, cluster) as runner:
        v = certificate.check(cert, root, runner=runner)
    assert v.ok, v.message
    assert sorted(root.rglob("*")) == before
