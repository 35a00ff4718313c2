"""``solve --min-moves --spill``: the search by moves with its levels on disk, on a real
two-worker Dask cluster, a worker killed mid-level, a run stopped between levels and
resumed; always the in-memory search's levels and optimum."""

import json
import os
import signal

import pytest
from click.testing import CliRunner

from pegsat.cli import main
from pegsat.deadline import Deadline
from pegsat.engine import disk, spill
from pegsat.errors import PegsatError
from pegsat.model.catalogue import get_board
from pegsat.model.problem import Goal, single_vacancy
from pegsat.model.result import Status
from pegsat.planners.moves import Search

T6 = get_board("triangle-6")
GAME = single_vacancy(T6, T6.hole("a1"), Goal.one_peg())
MEMORY = 1 << 20  # bytes per worker: levels of up to 16 partitions


def fewest(problem, root, by="moves", **options):
    """The search on disk by moves (``planners.moves.on_disk``) or by jumps (``layers``)."""
    from pegsat.planners import layers, moves

    return (layers if by == "jumps" else moves).on_disk(problem, root, **options)


@pytest.fixture(autouse=True)
def small_partitions(monkeypatch):
    """Partitions as small as the tiny memory per worker asks (the floor is for real runs):
    many tasks a level, levels split differently."""
    monkeypatch.setattr(spill, "MIN_PART_BYTES", 0)


@pytest.fixture(scope="module")
def truth():
    """The in-memory search without a bound: its optimum and levels (it stops at the first
    meeting, inside the level that meets; out of core too: at the first partition that
    meets, the level unsaved)."""
    s = Search(GAME, Deadline())
    best, _, _ = s.run()
    return best, s.sizes()


def same_levels(r, truth):
    best, sizes = truth
    fwd, bwd = r.stats["forward_levels"], r.stats["backward_levels"]
    assert r.status is Status.SOLVED_OPTIMAL and r.moves == best == r.lower_bound
    assert fwd[:len(sizes["forward"])] == sizes["forward"]
    assert bwd[:len(sizes["backward"])] == sizes["backward"]
    assert len(fwd) + len(bwd) == len(sizes["forward"]) + len(sizes["backward"])


def test_a_worker_killed_mid_level_changes_nothing(tmp_path, truth):
    killed = {}

    def kill(client, side, d):
        if side == "backward" and d == 2 and not killed:  # the level of 89,165 positions in 16 partitions
            addr = sorted(client.scheduler_info()["workers"])[0]
            pid = client.run(os.getpid, workers=[addr])[addr]
            os.kill(pid, signal.SIGKILL)
            killed["pid"] = pid

    r = fewest(GAME, tmp_path / "levels", workers=2, memory=MEMORY, upper=False, on_level=kill)
    assert killed
    same_levels(r, truth)
    assert r.plan is not None and len(r.plan) == T6.n - 2  # replayed: one peg left


class Stop(Exception):
    pass


def test_a_run_stopped_between_levels_resumes_to_the_same_answer(tmp_path, truth, cluster):
    root = tmp_path / "levels"

    def stop(client, side, d):
        if side == "forward" and d == 5:
            raise KeyboardInterrupt  # Ctrl-C: the run says what it knew, and where to resume

    told = []
    with pytest.raises(KeyboardInterrupt):
        fewest(GAME, root, scheduler=cluster, memory=MEMORY, upper=False, on_level=stop, progress=told.append)
    manifest = json.loads((root / "manifest.json").read_text())
    assert len(manifest["levels"]["forward"]) == 6
    b = len(manifest["levels"]["backward"]) - 1
    assert told[-1] == (f"interrupted after 5 forward + {b} backward levels; any plan needs >= {5 + b + 1} "
                        f"moves; the levels are kept in {root}: rerun with --spill {root} to go on")
    said = []
    r = fewest(GAME, root, scheduler=cluster, memory=MEMORY, upper=False, progress=said.append)
    assert said[0].startswith("resuming from 6 forward")
    same_levels(r, truth)


def test_under_a_bound_the_levels_are_the_in_memory_ones_and_a_time_limit_is_unknown(tmp_path, cluster):
    """With a first plan as the upper bound, the levels are pruned by Merson's regions and the
    pagodas as the in-memory search prunes them under the same bound and pagodas; a deadline
    passed is "unknown" with the bound proven so far, never a proof."""
    b = get_board("english")
    p = single_vacancy(b, b.hole("d4"), Goal.survivor(b, b.hole("d4")))
    r = fewest(p, tmp_path / "levels", scheduler=cluster, memory=8 << 20)
    manifest = json.loads((tmp_path / "levels" / "manifest.json").read_text())
    bound, pagodas = manifest["upper"], [(tuple(w), f) for w, f in manifest["pagodas"]]
    s = Search(p, Deadline(), upper=bound, pagodas=pagodas)
    s.run()
    assert bound >= 18 and r.status is Status.SOLVED_OPTIMAL and r.moves == 18 and r.lower_bound == 18
    assert r.stats["total_s"] >= r.stats["search_s"] > 0  # the report's time line reads both
    for side in ("forward", "backward"):
        assert r.stats[f"{side}_levels"][:len(s.sizes()[side])] == s.sizes()[side]
    late = fewest(p, tmp_path / "other", scheduler=cluster, memory=8 << 20, deadline=Deadline(0.001))
    assert late.status is Status.UNKNOWN and late.proof is None


def test_solve_spill_through_the_command_line(tmp_path, truth, few_partitions):
    r = CliRunner().invoke(main, ["solve", "triangle-6", "--vacant", "a1", "--min-moves", "--spill",
                                  str(tmp_path / "l"), "--memory-limit", "2MB", "--workers", "2", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output.splitlines()[-1])
    assert data["status"] == "solved-optimal" and data["moves"] == truth[0]
    r = CliRunner().invoke(main, ["solve", "triangle-6", "--spill", str(tmp_path / "m")])
    assert r.exit_code == 2 and r.output.startswith("error: --spill is a level search on disk") and \
        r.output.count("\n") == 1


def test_past_the_memory_budget_the_search_goes_on_out_of_core(monkeypatch, few_partitions):
    """``solve --min-moves`` with a 0.1 MB budget: the in-memory levels outgrow it, the search
    goes on with its levels on disk, and answers (the temporary directory removed)."""
    monkeypatch.setenv("PEGSAT_MEMORY_GB", "0.0001")
    r = CliRunner().invoke(main, ["solve", "triangle-6", "--vacant", "a1", "--min-moves", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert "going on with the levels on disk in" in r.output and "optimal: 10 moves" in r.output
    # the search by jumps too: triangle-5 b4 -> b4's levels outgrow a 1 KB budget at once
    monkeypatch.setenv("PEGSAT_MEMORY_GB", "0.000001")
    r = CliRunner().invoke(main, ["solve", "triangle-5", "--vacant", "b4", "--survivor", "b4", "--planner",
                                  "layers", "--workers", "1"])
    assert r.exit_code == 10, r.output
    assert "going on with the levels on disk in" in r.output and "by jumps out of core" in r.output


def test_layers_out_of_core_answers_as_in_memory_and_resumes_with_its_pagodas(tmp_path, cluster):
    """``--planner layers --spill``: the search by jumps on disk. Solvable: a replayed plan;
    triangle-5 b4 -> b4, which no position class or pagoda refutes: "unsolvable" only from
    the last level probed with no meeting. v -> v is self-dual: forward levels only, the
    last probed against their mirror images; a1 -> a4 is not: both sides grown. A run
    stopped between levels resumes with the pagodas its levels were pruned with (the
    manifest keeps them: learning is time-bound)."""
    from pegsat.planners import layers
    from pegsat.planners.config import Config

    t5 = get_board("triangle-5")
    at = cluster  # the module's two-worker cluster
    for v, s in (("a1", "a1"), ("b4", "b4"), ("a1", "a4")):
        p = single_vacancy(t5, t5.hole(v), Goal.survivor(t5, t5.hole(s)))
        want = layers.solve(p, Deadline(), Config())
        r = fewest(p, tmp_path / (v + s), scheduler=at, memory=MEMORY, by="jumps")
        assert r.planner == "layers" and r.status is want.status, (v, s, r.detail)
        mirrored = v == s
        assert (r.stats["backward_levels"] == []) is mirrored and ("mirrored" in r.detail) is mirrored
        half = len(r.stats["forward_levels"]) - 1 == (t5.n - 2) // 2
        assert half if mirrored else r.stats["backward_levels"]
        if r.status is Status.SOLVED:
            assert r.plan is not None and len(r.plan) == t5.n - 2 and r.lower_bound is None
        else:
            assert want.status is Status.UNSOLVABLE and r.proof is want.proof
            assert "met no plan" in r.detail
    p = single_vacancy(t5, t5.hole("a1"), Goal.survivor(t5, t5.hole("a1")))
    root = tmp_path / "stopped"
    stopped_by_jumps(p, root, at)
    kept = json.loads((root / "manifest.json").read_text())["pagodas"]
    said = []
    r = fewest(p, root, scheduler=at, memory=MEMORY, by="jumps", progress=said.append)
    assert kept and said[0].startswith("resuming from") and r.status is Status.SOLVED
    assert json.loads((root / "manifest.json").read_text())["pagodas"] == kept


def stopped_by_jumps(p, root, at):
    """The search by jumps of ``p`` in ``root`` on the cluster at ``at``, stopped after level 3."""
    def stop(client, side, d):
        if d == 3:
            raise Stop

    with pytest.raises(Stop):
        fewest(p, root, scheduler=at, memory=MEMORY, by="jumps", on_level=stop)
    assert (root / "manifest.json").is_file()


def test_a_survey_goes_on_with_the_levels_a_stopped_search_left(tmp_path, cluster):
    """``survey --spill DIR``: the exhaustive step of a problem the planners left unknown
    goes on from the levels an earlier run kept in DIR/V-S (resumed out of core, not
    restarted in memory); they are removed once the answer is final, unless they hold the
    problem's levels certificate."""
    from pegsat.apps.survey import settle

    t5 = get_board("triangle-5")
    p = single_vacancy(t5, t5.hole("b4"), Goal.survivor(t5, t5.hole("b4")))
    root = tmp_path / "b4-b4"
    stopped_by_jumps(p, root, cluster)
    e = settle(t5, t5.hole("b4"), t5.hole("b4"), "auto", 1e-6, layers_limit=120, spill=tmp_path,
               scheduler=cluster)
    assert (e.status, e.proof) == ("unsolvable", "layers")
    # kept: b4 -> b4 is self-dual, and its levels are the certificate the atlas takes in
    assert json.loads((root / "certificate.json").read_text())["kind"] == "levels"
    a1 = single_vacancy(t5, t5.hole("a1"), Goal.survivor(t5, t5.hole("a1")))  # solvable: removed
    stopped_by_jumps(a1, tmp_path / "a1-a1", cluster)
    e = settle(t5, t5.hole("a1"), t5.hole("a1"), "auto", 1e-6, layers_limit=120, spill=tmp_path,
               scheduler=cluster)
    assert e.status == "solved" and not (tmp_path / "a1-a1").exists()


def test_layers_spill_through_the_cli(tmp_path, few_partitions):
    out = CliRunner().invoke(main, ["solve", "triangle-5", "--vacant", "b4", "--survivor", "b4", "--planner",
                                    "layers", "--spill", str(tmp_path / "l"), "--workers", "1"])
    assert out.exit_code == 10, out.output
    assert "unsolvable" in out.output and "by jumps out of core" in out.output
    assert "by moves" not in out.output and "first plan" not in out.output  # no plan first, by jumps
    bad = CliRunner().invoke(main, ["solve", "triangle-5", "--vacant", "b4", "--planner", "sat",
                                    "--spill", str(tmp_path / "s")])
    assert bad.exit_code != 0 and "--planner layers" in bad.output
    bad = CliRunner().invoke(main, ["survey", "triangle-5", "--scheduler", "tcp://127.0.0.1:1"])
    assert bad.exit_code == 2 and "add --spill" in bad.output, bad.output


def test_the_library_spills_level_searches_only(tmp_path, few_partitions):
    import pegsat
    from pegsat.errors import PegsatError

    p = pegsat.problem("triangle-5", vacant="b4", survivor="b4")
    r = pegsat.solve(p, "layers", spill=tmp_path / "l", workers=1, disk_limit=1 << 30)
    assert r.status is Status.UNSOLVABLE and "out of core" in r.detail
    assert r.certificate["kind"] == "levels" and pegsat.check(tmp_path / "l" / "certificate.json").ok
    with pytest.raises(PegsatError, match="level search"):
        pegsat.solve(p, "sat", spill=tmp_path / "s")


def test_a_plan_given_bounds_the_search_and_on_a_rerun_keeps_the_levels(tmp_path, truth, cluster):
    """``Config.upper_plan`` (``solve --min-moves --upper-plan``): the plan given, replayed,
    is the first bound. In memory: an optimal plan given comes back proven; a longer one is
    beaten. Out of core, on the rerun of a search stopped between levels with no bound: the
    levels kept (pruned under no bound, a superset of what the bound keeps), the bound
    lowered to the plan's moves, and the answer proven from there."""
    from pegsat.planners import moves
    from pegsat.planners.config import Config

    best = truth[0]
    optimal = moves.solve(GAME, Deadline(), Config()).plan
    assert optimal is not None
    mine = moves.solve(GAME, Deadline(), Config(upper_plan=optimal))
    assert mine.status is Status.SOLVED_OPTIMAL and mine.plan == optimal and "plan from you" in mine.detail
    root = tmp_path / "levels"

    def stop(client, side, d):
        if d == 2:
            raise Stop

    with pytest.raises(Stop):
        fewest(GAME, root, scheduler=cluster, memory=MEMORY, upper=False, on_level=stop)
    kept = json.loads((root / "manifest.json").read_text())
    said: list[str] = []
    r = fewest(GAME, root, scheduler=cluster, memory=MEMORY, config=Config(upper_plan=optimal),
               progress=said.append)
    assert said[0].startswith("resuming from") and f"the bound goes from None to {best}" in said[1], said
    assert r.status is Status.SOLVED_OPTIMAL and r.moves == best == r.lower_bound, r.detail
    now = json.loads((root / "manifest.json").read_text())
    assert now["upper"] == best and now["pruned_under"] is None and now["fingerprint"] == kept["fingerprint"]
    assert now["levels"]["forward"][:len(kept["levels"]["forward"])] == kept["levels"]["forward"]
    # a manifest whose levels claim a bound tighter than its plan (which would hide plans
    # between the two) is not believed, its fingerprint remade to match or not
    now["pruned_under"] = best - 1
    now["fingerprint"] = disk.fingerprint("moves", GAME, best - 1)
    (root / "manifest.json").write_text(json.dumps(now))  # edited by hand: not this user's pegsat's
    with pytest.raises(PegsatError, match="not signed by this user's pegsat"):
        fewest(GAME, root, scheduler=cluster, memory=MEMORY)
    del now["signature"]
    spill.save_manifest(root, now)  # signed, as if this user's pegsat had written it: still refused
    said.clear()
    fewest(GAME, root, scheduler=cluster, memory=MEMORY, progress=said.append)
    assert "a bound looser than the levels were pruned under" in said[0], said


def test_upper_plan_through_the_command_line(tmp_path):
    """``--upper-plan``: a plan file of another notation; only with --min-moves; a plan that
    does not replay is one line and exit 1."""
    from pegsat.planners import moves
    from pegsat.planners.config import Config

    plan = moves.solve(GAME, Deadline(), Config()).plan
    from pegsat.formats.notation import format_plan

    f = tmp_path / "plan.txt"
    f.write_text(format_plan(T6, plan) + "\n")
    base = ["solve", "triangle-6", "--vacant", "a1"]
    r = CliRunner().invoke(main, [*base, "--min-moves", "--upper-plan", str(f)])
    assert r.exit_code == 0 and "plan from you" in r.output, r.output
    r = CliRunner().invoke(main, [*base, "--upper-plan", str(f)])
    assert r.exit_code == 2 and r.output.startswith("error: --upper-plan bounds")
    assert r.output.count("\n") == 1
    r = CliRunner().invoke(main, [*base, "--min-moves", "--upper-plan", "a1-a3"])
    assert r.exit_code == 1 and r.output.count("\n") == 1, r.output


def test_a_probe_stopped_midway_resumes_with_the_pieces_left(tmp_path, monkeypatch, truth, cluster):
    """The last level under a bound is only probed, a piece per task; each piece that met
    nothing goes to the manifest at once, so a probe stopped midway (hours on the German
    board) goes on with the other pieces, to the same answer."""
    from pegsat.planners import moves
    from pegsat.planners.config import Config

    monkeypatch.setattr(disk, "PROBE_SAY", 0.0)
    best = truth[0]
    optimal = moves.solve(GAME, Deadline(), Config()).plan
    root = tmp_path / "levels"

    def stop(line: str) -> None:  # Ctrl-C after the first piece
        if "pieces probed, no meeting" in line:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fewest(GAME, root, scheduler=cluster, memory=MEMORY, config=Config(upper_plan=optimal), progress=stop)
    kept = json.loads((root / "manifest.json").read_text())["probed"]
    said: list[str] = []
    r = fewest(GAME, root, scheduler=cluster, memory=MEMORY, config=Config(upper_plan=optimal),
               progress=said.append)
    again = [line for line in said if "probed before, no meeting" in line]
    assert len(kept) >= 1 and again and again[0].split(":")[1].strip().startswith(f"{len(kept)} pieces"), said
    assert r.status is Status.SOLVED_OPTIMAL and r.moves == best == r.lower_bound, r.detail
    assert len(json.loads((root / "manifest.json").read_text())["probed"]) > len(kept)


def test_a_rerun_cut_into_other_pieces_probes_only_what_is_left():
    """Pieces probed by an earlier run (another number of workers: other ranges) are taken
    off the new pieces, range by range."""
    tasks = [(0, 0, 100), (0, 100, 200), (1, 0, 100)]
    assert spill.uncovered(tasks, []) == tasks
    assert spill.uncovered(tasks, [(0, 0, 150)]) == [(0, 150, 200), (1, 0, 100)]
    assert spill.uncovered(tasks, [(0, 20, 40), (0, 60, 120), (1, 0, 300)]) == [
        (0, 0, 20), (0, 40, 60), (0, 120, 200)]
    assert spill.uncovered([(2, 0, 50)], [(0, 0, 50), (2, 50, 90)]) == [(2, 0, 50)]


def test_levels_built_in_rounds_stopped_and_resumed_give_the_same_answer(tmp_path, truth, cluster,
                                                                          monkeypatch):
    """Room for 100 kB of buckets: the larger levels are built in rounds; a run stopped in a
    level's second round keeps its first round's work (not expanded again), and the rerun ends
    as in memory."""
    monkeypatch.setattr(spill, "room", lambda root, disk: 100_000)
    root = tmp_path / "levels"
    calls = []

    def stop(client, side, d):
        calls.append((side, d))
        if calls.count((side, d)) == 2:
            raise Stop

    told = []
    with pytest.raises(Stop):
        fewest(GAME, root, scheduler=cluster, memory=MEMORY, upper=False, on_level=stop, progress=told.append)
    side, d = calls[-1]
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["building"][:2] == [side, d + 1] and len(manifest["rounds"]) == 1
    assert told[-1].startswith(f"{side} level {d + 1}: round 2, ")
    said = []
    r = fewest(GAME, root, scheduler=cluster, memory=MEMORY, upper=False, progress=said.append)
    redone = [line for line in said if line.startswith(f"{side} level {d + 1}: round ")]
    assert redone[0].startswith(f"{side} level {d + 1}: round 2, ")  # the first round was not redone
    total = int(redone[0].split(" of the ")[1].split()[0].replace(",", ""))
    kept = sum(end - lo for _, lo, end in manifest["rounds"][0])
    assert sum(int(line.split(", ")[1].split()[0].replace(",", "")) for line in redone) + kept == total
    same_levels(r, truth)


def test_the_fewest_moves_on_disk_leave_a_moves_certificate_that_checks(tmp_path, monkeypatch, truth,
                                                                        cluster):
    """Each way the search on disk proves its fewest moves leaves a ``moves`` certificate
    naming its partitioned level files: the levels meeting (unbounded: the bound is the moves
    proven), the first plan's bound met by a probe of the last level, and a bound one above
    the optimum (the levels stop one short of it and the last level, probed unstored, meets the
    other side: were the meeting missed, the first plan's moves would not match the bound and
    the answer would be an error). Each checks in this process, one also with its
    children in bucket files on the cluster; a check stopped goes on from its journal; tampering with a
    partition, the partition rule or the claim is refused."""
    from pegsat.checks import certificate
    from pegsat.engine.cluster import mapped
    from pegsat.planners import moves

    best = truth[0]
    real = moves.first_plan

    def over(search, deadline, config, **kw):
        first, _ = real(search, deadline, config, **kw)
        return first, best + 1

    from pegsat.analysis import pagoda

    monkeypatch.setattr(pagoda, "LEARN_SECONDS", 600.0)  # every playout: pagodas however loaded the machine
    met = fewest(GAME, tmp_path / "met", scheduler=cluster, memory=MEMORY, upper=False)
    probed = fewest(GAME, tmp_path / "probed", scheduler=cluster, memory=MEMORY)
    monkeypatch.setattr(moves, "first_plan", over)
    over_one = fewest(GAME, tmp_path / "over", scheduler=cluster, memory=MEMORY)
    for r, where in ((met, "met"), (probed, "probed"), (over_one, "over")):
        root = tmp_path / where
        assert r.status is Status.SOLVED_OPTIMAL and r.moves == best, r.detail
        assert f"certificate: {root / 'certificate.json'}" in r.detail
        cert = json.loads((root / "certificate.json").read_text())
        ev = cert["evidence"]
        assert cert["kind"] == "moves" and ev["moves"] == best and ev["upper"] == best + (where == "over")
        assert (ev["probe"] != "") == (where == "probed")  # a bound met by a probe: one move more
        if where == "over":  # levels 0..a and 0..b, a + b = best - 1: the last level, probed, met the
            # other side, and the plan walked back from there has the optimum's moves
            assert len(r.stats["forward_levels"]) + len(r.stats["backward_levels"]) == best + 1
        assert max(len(lv) for lv in ev["forward"] + ev["backward"]) > 1  # levels of several partitions
        assert bool(ev["pagodas"]) == (where != "met")  # cut by pagodas under a bound, checked with them
        v = certificate.check(cert, root)
        assert v.ok and f"at least {best} moves" in v.message, v.message
        if where == "probed":  # the same walk with the children in bucket files, on the cluster
            with mapped(2, cluster) as run:
                v = certificate.check(cert, root, runner=run)
            assert v.ok, v.message
    cert = json.loads((tmp_path / "met" / "certificate.json").read_text())
    journal = tmp_path / "journal.json"
    from pegsat.checks import moves as moves_check

    def stops(self, how, side, d, *a, **k):  # in the fourth step: three are walked
        if (side, d) == ("forward", 3):
            raise Stop
        return real_lookup(self, how, side, d, *a, **k)

    real_lookup = moves_check.Moves.lookup
    monkeypatch.setattr(moves_check.Moves, "lookup", stops)
    with pytest.raises(Stop):
        certificate.check(cert, tmp_path / "met", runner=lambda fn, xs: [fn(x) for x in xs], journal=journal)
    monkeypatch.setattr(moves_check.Moves, "lookup", real_lookup)
    v = certificate.check(cert, tmp_path / "met", runner=lambda fn, xs: [fn(x) for x in xs], journal=journal)
    assert v.ok and "(3 of the 10 steps taken from the journal)" in v.message, v.message

    def refused(edit, why):
        bad = json.loads(json.dumps(cert))
        edit(bad["evidence"])
        v = certificate.check(bad, tmp_path / "met")
        assert not v.ok and v.finished and why in v.message, v.message
    wide = next(lv for lv in cert["evidence"]["forward"] if len(lv) > 1 and all(it["count"] for it in lv))
    at = cert["evidence"]["forward"].index(wide)
    refused(lambda e: e["forward"][at].reverse(), "of another partition")
    refused(lambda e: e["forward"][at][0].update(sha256="0" * 64), "with the SHA-256 stated")
    refused(lambda e: e.update(moves=best + 1), "the certificate claims")
    refused(lambda e: e.update(partition="0x1"), "by another rule")


def test_a_self_dual_probe_by_buckets_stopped_in_a_pass_goes_on_to_the_same_proof(tmp_path, cluster,
                                                                                monkeypatch):
    """The last level of a self-dual search by jumps is probed by buckets (its children's
    mirror images, each partition of the level they meet read once): with room for the
    buckets of two partitions at a time, in passes; a run stopped in the probe's second pass
    keeps the partitions it met with no meeting, and the rerun meets only the others, to the
    proof the search in memory gives, whose certificate checks."""
    from pegsat.checks import certificate
    from pegsat.planners import layers
    from pegsat.planners.config import Config

    t5 = get_board("triangle-5")
    p = single_vacancy(t5, t5.hole("b4"), Goal.survivor(t5, t5.hole("b4")))
    assert layers.solve(p, Deadline(), Config()).status is Status.UNSOLVABLE
    last = (t5.n - 2) // 2  # the forward level whose children are probed
    real = spill.passes

    def passes(root, fp, d, parts, sources, disk=None, rate=None):  # the probe's: room
        if d == last + 1:  # for two partitions' sieves and buckets (the marks of those met too)
            assert rate  # it is sieved
            disk = spill.disk_used(root) + int(2.5 * rate * sources / parts)
        return real(root, fp, d, parts, sources, disk, rate)

    monkeypatch.setattr(spill, "passes", passes)
    monkeypatch.setattr(spill, "SIEVED_BYTES", 200.0)  # a guess large beside the marks of partitions met
    root = tmp_path / "levels"
    calls = []

    def stop(client, side, d):
        calls.append(d)
        if d == last and calls.count(d) == 2:
            raise Stop

    told: list[str] = []
    with pytest.raises(Stop):
        fewest(p, root, by="jumps", scheduler=cluster, memory=MEMORY, on_level=stop, progress=told.append)
    m = json.loads((root / "manifest.json").read_text())["building"][2]
    marked = list(spill.level_dir(root / "forward", last + 1).glob("P*.lvl"))
    assert 0 < len(marked) < m and "a probe pass for" in told[-1], told[-3:]
    said: list[str] = []
    r = fewest(p, root, by="jumps", scheduler=cluster, memory=MEMORY, progress=said.append)
    again = [int(line.split("a probe pass for ")[1].split()[0]) for line in said
             if "a probe pass for" in line]
    assert sum(again) == m - len(marked), said  # the partitions met before are not met again
    assert r.status is Status.UNSOLVABLE and any("probed by buckets" in line for line in said), said
    assert certificate.check(json.loads((root / "certificate.json").read_text()), root).ok


def test_the_local_workers_keep_their_freed_memory(cluster):
    """A local cluster's workers (``engine.cluster.local_cluster``) run with glibc's adaptive
    limits at their largest, not the 64 kB trim threshold Dask's nanny sets, under which each
    large array was mapped afresh and its pages faulted in again."""
    from distributed import Client

    from pegsat.engine.cluster import WORKER_MALLOC

    want = {k: str(v) for k, v in WORKER_MALLOC.items()}
    with Client(cluster) as c:
        seen = c.run(lambda: {k: os.environ.get(k) for k in want})
    assert len(seen) == 2 and all(env == want for env in seen.values()), seen
