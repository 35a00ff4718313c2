"""``search``: depth-first search with a dead-position table, in the compiled core.

The method of the classic brute-force solvers (``engine.dfs``), with what the larger boards
need on top:

- **pagodas**: before searching, integer pagodas for the problem's goal are learned by LP
  from randomly played positions (``analysis.pagoda.learn``); the core ends a branch whose
  weight falls below a pagoda's floor. On a goal of one peg anywhere they are weighed against
  each survivor the position classes allow (``analysis.pagoda.survivors_of``): a branch ends
  when every survivor is ruled out, each by some pagoda.
- **a quick descent** of ``QUICK`` nodes in this process, far-first, before anything else:
  most English and French problems end there, before the LP and the threads would cost more
  than the search.
- **restarts**: a first descent in far-first order (the jumping peg farthest from the goal
  first), then descents with random tie-breaking and Luby budgets; the dead table carries
  over, so nothing proven is lost and a descent that exhausts the tree is a proof. From the
  second descent on, each thread runs ``LANES`` descents interleaved (``engine.dfs``: one
  lane's memory misses overlap another's work).
- **a portfolio**: ``config.workers`` threads (default: every core; the core releases the
  GIL), each with its own random order, share one dead table (one-word positions; boards of
  more than 64 holes give each its own). The first answer wins.
- **turns** on boards of more than ``SPLIT_ABOVE`` holes (``analysis.games``): the open goal
  itself, each class-compatible survivor, and each game's time-reversed game (a plan of it,
  reversed, is a plan here, and its refutation refutes the game), every one in turn, for
  ``FIRST_TURN`` seconds and longer each round. Each game keeps its dead table and pagodas,
  so a turn resumes the last. A game still open after long turns, and the open goal's game
  after every turn, mines new pagodas from its dead table (``analysis.pagoda.mine``); the
  mining and the table's growth happen just before the game's next turn, so a problem
  another game settles meanwhile never pays for them. From the second round on the open
  goal's game gets ``WHOLE_TURN`` times the others' turns together and half the memory for
  its table: its exhaustion is the one proof that covers every survivor, and the largest.
- **a beam's turn** (``engine.beam``) in every round (right after the open goal's game, else
  last): beams of doubling width toward exact backward levels, resumed across turns; it
  proves nothing, but finds plans the depth-first games leave open for minutes.
- **regions first** on boards of more than ``LOCAL_ABOVE`` holes whose goal fixes only some
  holes (``model.region``): the search runs on the holes within distance 1, 2, ... of the
  goal (at most 128, so in the compiled core), and a region's plan is the board's.

A special peg, or a board of more than 128 holes, goes to the pure-Python reference
(``engine.reference.depth_first``). Runs are repeatable: the orders come from a fixed seed
(only which portfolio member answers first can differ); ``PEGSAT_SEED=N`` shifts it, for
measuring the run-to-run spread. Current figures (diamond e1 -> one peg refuted, the German
and diamond surveys): ``bench/engine.py``.
"""

from __future__ import annotations

import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..analysis import games, pagoda
from ..deadline import Deadline, Timeout
from ..engine import dfs as D
from ..engine import reference
from ..engine.beam import Ladder
from ..engine.kernel import MAX_HOLES, words
from ..engine.levels import memory_budget
from ..model import region
from ..model.problem import Problem, dual
from ..model.result import Proof, Result, Status
from ..process import OUT_OF_MEMORY
from . import beam
from .config import Config, any_problem

NAME = "search"
OPTIMAL = False  # its plans are not proven to have the fewest moves
supports = any_problem

QUICK = 200_000  # nodes of the first descent, in process, without pagodas
PROBE = 400_000  # nodes of the first descent with pagodas (deterministic order)
BASE = 100_000  # nodes per Luby unit of the later descents (per lane)
#: descents run at once in each thread from the second on (``engine.dfs``: lanes); more
#: lanes' state crowds the caches (measured by bench/engine.py's node-rate rows)
LANES = 2
SEED = 20261122
LOCAL_ABOVE = 64  # holes: bigger boards with a partial goal try regions first
LOCAL_SLICE = 30.0  # seconds per region when there is no time limit
FIRST_TURN = 2.0  # seconds of every game's first turn ...
#: ... 1.5 times longer each round up to LONG_TURN seconds, then twice as long: growing
#: slowly, the game that answers first waits less for the others' overshoot; past LONG_TURN
#: a minutes-long exhaustion's per-turn overheads (restarted descents, mining) weigh more
TURN_GROWTH, LONG_TURN = 1.5, 16.0
WHOLE = -2  # the key of the open goal's own game (first in every round)
#: from the second round on, the open goal's game gets a turn this many times as long as all
#: the other open games' turns together (its exhaustion settles every survivor at once)
WHOLE_TURN = 4
BEAM = -3  # the key of the beam's turn (second in every round after an open goal's game, else last)
GROW_AT = 0.5  # a game's dead table this full is made four times larger between turns
MAX_TABLE_BITS = 28  # 2 GB of one-word slots at most (grown 4x: from 2^25, 2^27 is the last)
MINE_FROM = 8.0  # seconds: after turns this long (a game still open after a few rounds) ...
MINE_SAMPLE = 20_000  # dead positions drawn from a game's table between turns ...
MINE_KEEP = 8  # ... the new pagodas kept from them per turn ...
MAX_PAGODAS = 40  # ... while the game has fewer than this many


def covers_open_goal(problem: Problem) -> bool:
    """One search covers every survivor at once: no split needed."""
    return True


def table_bits(problem: Problem) -> int:
    """Dead-table size (2**bits slots): 32 MB up to 36 holes, 512 MB (one word) or 256 MB
    per process (two words) above; the diamond's first one-peg plan needed a 2**26 table.
    Never more than a quarter of the memory budget (a process under ``ulimit -v``)."""
    bits = 22 if problem.board.n <= 36 else 26 if words(problem.board) == 1 else 24
    while bits > 16 and (8 * words(problem.board)) << bits > memory_budget() // 4:
        bits -= 1
    return bits


def solve(problem: Problem, deadline: Deadline, config: Config) -> Result:
    if problem.board.n > LOCAL_ABOVE and region.applies(problem):
        found = _local(problem, deadline, config)
        if found is not None:
            return found
    if games.large(problem) and problem.board.n <= MAX_HOLES and problem.special is None:
        split = _games(problem)
        if split is not None:
            return _in_turns(problem, *split, deadline, config)
    return _whole(problem, deadline, config)


@dataclass(frozen=True)
class _Game:
    """One game tried in turns: the problem with a fixed survivor (``key``), or its
    time-reversed game (vacancy and survivor swapped), whose plan reversed is a plan here;
    for an open goal also the open goal itself (``WHOLE``: its far-first order differs; alone
    it found the diamond's d2 plan in 6 s, where no fixed survivor had one within 60 s)."""

    key: int
    problem: Problem
    reverse: bool


def _games(problem: Problem) -> tuple[list[_Game], dict[int, tuple[Proof, bool]], int] | None:
    """(the games to take turns on; survivors already refuted: how, and whether on the
    reversed game; holes ruled out by the classes), or None when the goal is neither one
    peg anywhere nor an exact pattern (no survivors to split, no reversed game). A single
    game (self-dual) still takes turns: its dead table can grow between them."""
    refuted: dict[int, tuple[Proof, bool]] = {}
    ruled_out = 0
    survivors = games.split(problem)
    if survivors is not None:
        ruled_out = len(survivors.ruled_out)
        pairs = [(h, survivors.games(h)) for h in survivors.survivors]
        whole = [_Game(WHOLE, problem, False)]  # one search for every survivor at once
    elif dual(problem) is not None:
        back = games.reversed_game(problem)
        pairs, whole = [(-1, [games.Game(problem)] + ([back] if back is not None else []))], []
    else:
        return None
    turns = list(whole)
    for key, pair in pairs:
        for game in pair:  # a pagoda may rule out one direction and not the other
            # (the problem's own pagoda was tried before)
            if game.problem is not problem and pagoda.find(game.problem) is not None:
                refuted[key] = (Proof.PAGODA, game.reverse)
                break
        else:
            turns.extend(_Game(key, game.problem, game.reverse) for game in pair)
    if not turns and not refuted:
        return None
    if whole and not turns[1:]:  # every survivor refuted by a pagoda already
        turns = []
    elif turns and beam.supports(problem) is None:
        # right after the open goal's game (a first beam often settles the open goal); last
        # for a fixed goal, whose games mostly answer in their first turn
        turns.insert(1 if whole else len(turns), _Game(BEAM, problem, False))
    return turns, refuted, ruled_out


def _in_turns(problem: Problem, games: list[_Game], refuted: dict[int, tuple[Proof, bool]], ruled_out: int,
              deadline: Deadline, config: Config) -> Result:
    """Every game in turn, for FIRST_TURN seconds, then longer each round (TURN_GROWTH times,
    from LONG_TURN seconds on twice), until a plan, until every survivor is refuted (in
    either direction), or the deadline. A game learns its pagodas once and keeps its dead
    table, so its later turns resume where the last one stopped: the time lost to the wrong
    games is at most the right one's."""
    t0 = time.perf_counter()
    names = problem.board.names
    # each game keeps its dead table between turns (a later turn resumes, it does not
    # start over); with many games the tables are halved
    memo: dict[int, dict] = {i: {"smaller": int(len(games) > 4)} for i in range(len(games))}
    totals: dict[str, Any] = {}
    turn = FIRST_TURN
    while True:
        live = [i for i, g in enumerate(games)
                if g.key not in refuted and not (g.key == BEAM and memo[i].get("spent"))]
        if not any(games[i].key >= -1 for i in live):  # a beam alone decides nothing
            break
        for i in live:
            g = games[i]
            if g.key in refuted:
                continue
            left = deadline.remaining()
            if left is not None and left <= 0:
                break
            span = turn
            if g.key == WHOLE and turn > FIRST_TURN:  # WHOLE_TURN times the other open games'
                span *= WHOLE_TURN * max(1, sum(1 for j in live if games[j].key not in refuted) - 1)
            last = memo[i].pop("mine_after", None)
            if last is not None:  # between its last turn and this one, only if due
                _prepare(g.problem, memo[i], deadline.within(min(span / 16, pagoda.LEARN_SECONDS)),
                         _share(games, refuted, g), span / last)
            if g.key == BEAM:  # the pagodas its own problem's game learned, if it has
                known = next((memo[j]["pagodas"] for j, h in enumerate(games)
                              if h.key != BEAM and h.problem is g.problem and "pagodas" in memo[j]), None)
                r = _beam_turn(g.problem, deadline.within(span), memo[i], known)
            else:
                r = _whole(g.problem, deadline.within(span), config, memo[i])
            if r.status is Status.UNKNOWN and (span >= MINE_FROM or g.key == WHOLE):
                memo[i]["mine_after"] = span
            for k, v in r.stats.items():
                if k in ("pagodas", "workers"):  # the latest turn's, not a sum
                    totals[k] = v
                elif isinstance(v, int | float):
                    totals[k] = totals.get(k, 0) + v
            if r.status is Status.SOLVED and r.plan is not None:
                plan = tuple(reversed(r.plan)) if g.reverse else r.plan
                how = (" (found on the time-reversed game)" if g.reverse
                       else f" (from a beam of {r.stats['beam_width']} positions)" if g.key == BEAM else "")
                stats: dict[str, Any] = {**totals, "solve_s": round(time.perf_counter() - t0, 3),
                                         "games": len(games)}
                if g.key >= 0:
                    stats["survivor"] = names[g.key]
                return Result(Status.SOLVED, problem, NAME, plan=plan, stats=stats,
                              detail=f"plan{how}" if how else "")
            if r.status is Status.UNSOLVABLE and g.key == WHOLE:
                return replace(r, problem=problem, stats={**totals, "games": len(games)})
            if r.status is Status.UNSOLVABLE:
                refuted[g.key] = (r.proof or Proof.EXHAUSTED, g.reverse)
                memo[i].pop("table", None)  # its memory goes back to the others
            elif r.status is Status.ERROR:
                return replace(r, problem=problem)
        if deadline.expired():
            break
        turn *= TURN_GROWTH if turn < LONG_TURN else 2
    stats = {**totals, "solve_s": round(time.perf_counter() - t0, 3), "games": len(games)}
    open_keys = sorted({g.key for g in games if g.key not in refuted and g.key >= -1})
    if open_keys or not refuted:
        why = "stopped" if deadline.stop is not None and deadline.stop() else "time limit reached"
        if open_keys != [-1]:
            why += "; survivor undecided at " + " ".join(names[k] for k in open_keys)
        return Result(Status.UNKNOWN, problem, NAME, stats=stats, detail=why)

    def said(proof: Proof, reverse: bool) -> str:
        return proof.value + (" on the time-reversed game" if reverse else "")

    if list(refuted) == [-1]:
        proof, reverse = refuted[-1]
        return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.DUAL if reverse else proof, stats=stats,
                      detail=f"refuted by {said(proof, reverse)}")
    parts = ", ".join(f"{names[k]} by {said(*v)}" for k, v in sorted(refuted.items()))
    return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.SPLIT, stats=stats,
                  detail=f"{ruled_out} holes ruled out by position classes; survivors (up to "
                  f"symmetry) refuted: {parts}")


def _beam_turn(problem: Problem, deadline: Deadline, state: dict, pagodas: list[D.Pagoda] | None
               ) -> Result:
    """One turn of the beam ladder (``engine.beam``): a plan, or "unknown" (never a proof);
    a spent ladder retires from the turns (``refuted`` is not the word: it proves nothing).
    ``pagodas``: learned for the problem already (else learned here)."""
    t0 = time.perf_counter()
    if "ladder" not in state:
        state["ladder"] = Ladder(problem, beam.pagodas_for(problem, deadline) if pagodas is None else pagodas)
    ladder = state["ladder"]
    found = ladder.run(deadline)
    state["spent"] = ladder.spent
    stats = {"beam_s": round(time.perf_counter() - t0, 3)}
    if found is not None:
        stats["beam_width"] = ladder.width
        return Result(Status.SOLVED, problem, NAME, plan=found[1], stats=stats)
    return Result(Status.UNKNOWN, problem, NAME, stats=stats)


def _share(games: list[_Game], refuted: dict, game: _Game) -> float:
    """The part of the memory budget a game's dead table may grow to: half for the open
    goal's own game (its exhaustion is the one proof that settles every survivor, and the
    largest: diamond e1, 250 M dead positions), the rest shared by the other games still open."""
    live = [h for h in games if h.key not in refuted and h.key != BEAM]
    whole = any(h.key == WHOLE for h in live)
    if game.key == WHOLE:
        return 0.5 if len(live) > 1 else 1.0
    return (0.5 if whole else 1.0) / max(1, len(live) - whole)


def _prepare(problem: Problem, state: dict, deadline: Deadline, share: float, longer: float) -> None:
    """A game's work between two turns: its pagoda mining (LPs, one core) and, on another
    thread meanwhile, the growth of its table (the core rehashes without the GIL; diamond
    e1's open game, 2^25 -> 2^27 slots: 2 s, mostly the kernel handing out 1 GB)."""
    with ThreadPoolExecutor(1) as pool:
        grown = pool.submit(_grow, problem, state, share, longer)
        _mine(problem, state, deadline)
        grown.result()


def _grow(problem: Problem, state: dict, share: float, longer: float = 1.0) -> None:
    """Between turns: a game's dead table more than ``GROW_AT`` full, or that will be by the
    end of a next turn ``longer`` times as long as the last, is replaced by one four times
    larger holding the same positions, up to 2^MAX_TABLE_BITS slots and the game's ``share``
    of the memory budget (``engine.levels.memory_budget``)."""
    table = state.get("table")
    if table is None or words(problem.board) != 1 or D.filled(table) * max(1.0, longer) < GROW_AT:
        return
    if 4 * table.nbytes > share * memory_budget() or 4 * len(table) > 1 << MAX_TABLE_BITS:
        return
    state["table"] = D.grown(problem, table)


def _mine(problem: Problem, state: dict, deadline: Deadline) -> None:
    """Between turns: pagodas learned from the positions the game's search proved dead the
    hard way (``analysis.pagoda.mine``) join the game's pagodas. Playouts from the start
    find few (4 on diamond e1 -> e9); most dead positions of a long search fall to a pagoda
    of their own, and a few of those rule out many others."""
    table, known = state.get("table"), state.get("pagodas")
    if table is None or known is None or words(problem.board) != 1 or len(known) >= MAX_PAGODAS:
        return
    rng = np.random.default_rng(SEED + len(known))
    slots = table[rng.integers(0, len(table), size=10 * MINE_SAMPLE)]
    dead = np.unique(slots[slots != 0])
    rng.shuffle(dead)
    dead = dead[:MINE_SAMPLE]
    new = pagoda.mine(problem, dead, [(p.weights, p.floor) for p in known],
                      min(MINE_KEEP, MAX_PAGODAS - len(known)), deadline, pagoda.survivors_of(problem))
    state["pagodas"] = known + [D.Pagoda(w, floor) for w, floor in new]


def _local(problem: Problem, deadline: Deadline, config: Config) -> Result | None:
    """A plan found on a region around the goal, lifted to the board; or None (then the
    whole board is searched: a region's "unsolvable" says nothing about the board)."""
    t0 = time.perf_counter()
    tried = 0
    for reg in region.regions(problem, MAX_HOLES):
        left = deadline.remaining()
        if left is not None and left <= 0:
            return None
        r = _whole(reg.problem, deadline.within(LOCAL_SLICE if left is None else left / 3), config)
        tried += 1
        if r.status is Status.SOLVED and r.plan is not None:
            stats = {**r.stats, "region_radius": reg.radius, "region_holes": reg.problem.board.n,
                     "regions_tried": tried, "solve_s": round(time.perf_counter() - t0, 3)}
            return Result(Status.SOLVED, problem, NAME, plan=reg.lift(r.plan, problem.board), stats=stats,
                          detail=f"plan found on the {reg.problem.board.n} holes within "
                          f"{reg.radius} steps of the goal")
    return None


def _whole(problem: Problem, deadline: Deadline, config: Config, memo: dict | None = None) -> Result:
    """``memo``: kept between turns on the same game (its dead table and learned pagodas;
    ``smaller``: halve the table)."""
    t0 = time.perf_counter()
    if problem.special is not None or problem.board.n > MAX_HOLES:
        return _reference(problem, deadline, t0)
    workers = max(1, config.workers)
    bits = table_bits(problem) - (memo or {}).get("smaller", 0)
    shared = workers > 1 and words(problem.board) == 1
    table = (memo or {}).get("table")
    if table is None:
        table = D.new_table(bits, words(problem.board))
        if memo is not None:  # the dead positions carry over to the game's next turn
            memo["table"] = table
    # A short descent here first: most problems on small boards end in it, before the LP and
    # the forks cost more than the search. Its dead positions stay in the table.
    quick = D.DepthFirst(problem, table=table)
    try:
        code = quick.attempt(D.far_first(problem), QUICK, deadline.check)
    except Timeout:
        code = D.BUDGET
    learn_s = 0.0
    pagodas: list[D.Pagoda] = []
    stats: dict[str, Any]
    if code == D.FOUND:
        kind, plan, stats = "found", quick.plan(), quick.stats()
    elif code == D.EXHAUSTED:
        kind, plan, stats = "exhausted", None, quick.stats()
    elif deadline.expired():
        kind, plan, stats = "unknown", None, quick.stats()
    else:
        t1 = time.perf_counter()
        if memo is not None and "pagodas" in memo:
            pagodas = memo["pagodas"]
        else:
            learned = pagoda.learn_for(problem, deadline, pagoda.survivors_of(problem))
            pagodas = [D.Pagoda(w, floor) for w, floor in learned]
            if memo is not None:
                memo["pagodas"] = pagodas
        learn_s = time.perf_counter() - t1
        if workers == 1:
            kind, plan, stats = _descend(problem, pagodas, table, 0, deadline)
        else:
            kind, plan, stats = _portfolio(problem, pagodas, workers, deadline, table if shared else None)
        stats = {k: v + quick.stats().get(k, 0) for k, v in stats.items()}
    stats = {**stats, "pagodas": len(pagodas), "learn_s": round(learn_s, 3), "workers": workers,
             "solve_s": round(time.perf_counter() - t0, 3), "encode_s": 0.0}
    if kind == "found":
        return Result(Status.SOLVED, problem, NAME, plan=plan, stats=stats)
    if kind == "exhausted":
        return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.EXHAUSTED, stats=stats,
                      detail="depth-first search exhausted every reachable position")
    if kind == "error":
        return Result(Status.ERROR, problem, NAME, stats=stats, detail=str(plan))
    if kind == OUT_OF_MEMORY:
        return Result(Status.UNKNOWN, problem, NAME, stats=stats, detail=str(plan))
    why = "stopped" if deadline.stop is not None and deadline.stop() else "time limit reached"
    return Result(Status.UNKNOWN, problem, NAME, stats=stats, detail=why)


def _descend(problem: Problem, pagodas: list[D.Pagoda], table, seed: int, deadline: Deadline
             ) -> tuple[str, Any, dict]:
    """Restarts until a plan ("found"), a proof ("exhausted") or the deadline ("unknown")."""
    search = D.DepthFirst(problem, table=table, table_bits=table_bits(problem), pagodas=pagodas,
                          survivors=pagoda.survivors_of(problem))
    shift = int(os.environ.get("PEGSAT_SEED", "0")) if os.environ.get("PEGSAT_SEED", "").isdigit() else 0
    rng = random.Random(SEED + shift * 1009 + seed)
    i = 0
    while True:
        order = D.far_first(problem) if i == 0 and seed == 0 and not shift else D.far_first(problem, rng)
        budget = PROBE if i == 0 else BASE * D.luby(i)
        lanes = [D.far_first(problem, rng) for _ in range(LANES - 1)] if i > 0 else []
        try:
            code = search.attempt(order, budget * (1 + len(lanes)), deadline.check, lanes)
        except Timeout:
            return "unknown", None, search.stats()
        if code == D.FOUND:
            return "found", search.plan(), search.stats()
        if code == D.EXHAUSTED:
            return "exhausted", None, search.stats()
        i += 1


def _portfolio(problem: Problem, pagodas: list[D.Pagoda], workers: int, deadline: Deadline, table
               ) -> tuple[str, Any, dict]:
    """``workers`` descents with different orders on threads (the core releases the GIL);
    the first answer wins and stops the others within a slice. ``table``: the dead table
    they share (one-word positions: a slot is read and written atomically), or None (each
    its own: a two-word slot could be read half-written)."""
    won = threading.Event()
    outer = deadline.stop
    mine = deadline.stopping(lambda: won.is_set() or (outer is not None and bool(outer())))

    def one(seed: int) -> tuple[str, Any, dict]:
        try:
            own = table if table is not None else D.new_table(table_bits(problem), words(problem.board))
            answer = _descend(problem, pagodas, own, seed, mine)
        except MemoryError:  # a limit: this member knows nothing
            answer = (OUT_OF_MEMORY, "out of memory", {})
        except Exception as exc:  # one member's failure is reported, not raised past the race
            answer = ("error", f"{type(exc).__name__}: {exc}", {})
        if answer[0] in ("found", "exhausted"):
            won.set()
        return answer

    with ThreadPoolExecutor(workers) as pool:
        futures = [pool.submit(one, seed) for seed in range(workers)]
        try:
            answers = [f.result() for f in futures]
        except BaseException:  # Ctrl-C: stop the members before leaving
            won.set()
            raise
    for i, a in enumerate(answers):
        if a[0] in ("found", "exhausted"):
            return a[0], a[1], {**a[2], "winner": i}
    errors = [a for a in answers if a[0] == "error"]
    if errors and len(errors) == len(answers):
        return errors[0]
    total: dict[str, int] = {}
    for a in answers:
        for k, v in a[2].items():
            total[k] = total.get(k, 0) + v
    return "unknown", None, total


def _reference(problem: Problem, deadline: Deadline, t0: float) -> Result:
    """The pure-Python search: a special peg, or a board too wide for the core."""
    group = () if problem.special is not None else D.goal_group(problem)
    try:
        plan, stats = reference.depth_first(problem, deadline, D.far_first(problem), group)
    except Timeout:
        why = "stopped" if deadline.stop is not None and deadline.stop() else "time limit reached"
        return Result(Status.UNKNOWN, problem, NAME, detail=why,
                      stats={"engine": "reference", "solve_s": round(time.perf_counter() - t0, 3)})
    stats = {**stats, "engine": "reference", "solve_s": round(time.perf_counter() - t0, 3), "encode_s": 0.0}
    if plan is None:
        return Result(Status.UNSOLVABLE, problem, NAME, proof=Proof.EXHAUSTED, stats=stats,
                      detail="depth-first search exhausted every reachable position")
    return Result(Status.SOLVED, problem, NAME, plan=plan, stats=stats)
