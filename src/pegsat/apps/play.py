"""``pegsat play``: a board to play on in the browser, with live verdicts from ``hint``.

The standard library's ``http.server`` (threaded), bound to 127.0.0.1 on a free port: no
web framework, no front-end build, no network. One page (``play.html``, self-contained: the
board is drawn in SVG with ``formats.svg``'s geometry) and three JSON endpoints, each of which
replays the game so far with the verifier before answering:

- ``POST /api/status`` {"jumps": [ids]}: the position's verdict (``apps.hint.Hinter``: won,
  alive, dead with its reason, unknown), pegs, moves;
- ``POST /api/hint``: one jump that keeps the game alive (or why there is none);
- ``POST /api/save``: the game as a plan in hole names, replayed by the verifier.

Requests whose ``Host`` is not this server's own address, or whose ``Origin`` (when sent) is
another site, are refused (403): a page elsewhere cannot drive the server, and DNS
rebinding finds nothing. The page reads no files; bodies are capped at 64 KB.
"""

from __future__ import annotations

import errno
import json
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

from ..deadline import Deadline
from ..engine.bitboard import count_moves, replay, replay_plan
from ..errors import PegsatError, PlanError
from ..files import clip, parse_json
from ..formats.notation import format_plan
from ..formats.render import script_json
from ..formats.svg import RADIUS, layout
from .hint import Hinter
from .pose import Posed

MAX_BODY = 64 * 1024
TIMEOUT = 10.0  # seconds a client may take to send a request


def page(posed: Posed) -> str:
    """The page, with the game's board, start and goal written into it as JSON."""
    problem = posed.problem
    board = problem.board
    at, width, height = layout(board)
    game = {"title": problem.describe(), "names": board.names,
            "at": [[round(x, 1), round(y, 1)] for x, y in at],
            "width": round(width), "height": round(height), "radius": RADIUS,
            "lines": board.lines, "jumps": board.jumps,
            "start": [h for h in range(board.n) if problem.start >> h & 1]}
    text = resources.files("pegsat.apps").joinpath("play.html").read_text(encoding="utf-8")
    blob = script_json(game)
    return text.replace("/*GAME*/null", blob)


class Game:
    """The server's side of one game: the problem and its verdicts (thread-safe)."""

    def __init__(self, posed: Posed, per_position: float = 2.0, sweep: Deadline | None = None) -> None:
        self.posed = posed
        self.hinter = Hinter(posed.problem, per_position, moves_left=False, sweep=sweep)
        self.lock = threading.Lock()

    def replay(self, jumps) -> tuple[int, int]:
        """(position, moves) after ``jumps``; PlanError for an illegal game."""
        problem = self.posed.problem
        ints = isinstance(jumps, list) and all(isinstance(k, int) and not isinstance(k, bool) for k in jumps)
        if not ints:
            raise PlanError("jumps must be a list of jump ids", 0)
        if any(k < 0 or k >= len(problem.board.jumps) for k in jumps):
            raise PlanError("a jump id is not a jump of this board", 0)
        board = problem.board
        rep = replay(problem, [(board.jumps[k][0], board.jumps[k][2]) for k in jumps], partial=True)
        return rep.final, count_moves(board, list(jumps))

    def status(self, jumps) -> dict:
        """The verdict on the position after ``jumps`` (replayed first)."""
        pos, moves = self.replay(jumps)
        with self.lock:
            v = self.hinter.position(pos)
        won = self.posed.problem.goal.satisfied(pos)
        word = "won" if won else {"alive": "still solvable", "dead": "dead", "unknown": "unknown"}[v.status]
        return {"status": "won" if won else v.status, "text": word if won or v.status == "alive"
                else f"{word}: {v.reason}", "reason": v.reason, "pegs": pos.bit_count(), "moves": moves,
                "jumps": len(jumps), "legal": len(self.hinter.eng.legal(pos))}

    def hint(self, jumps) -> dict:
        """One jump that keeps the game alive after ``jumps``, or why there is none."""
        pos, _ = self.replay(jumps)
        board = self.posed.problem.board
        with self.lock:
            unknown = 0
            for k in self.hinter.eng.legal(pos):
                v = self.hinter.position(self.hinter.eng.apply(pos, k))
                if v.status == "alive":
                    return {"jump": k, "text": f"hint: {format_plan(board, (k,))} keeps the game alive"}
                unknown += v.status == "unknown"
        why = "no jump is legal" if not self.hinter.eng.legal(pos) else (
            "every jump loses" if not unknown else f"no jump proven alive ({unknown} unknown)")
        return {"jump": None, "text": f"hint: {why}"}

    def save(self, jumps) -> dict:
        """The game so far as a plan in hole names (a won game replayed whole)."""
        pos, moves = self.replay(jumps)
        problem = self.posed.problem
        plan = format_plan(problem.board, tuple(jumps))
        if problem.goal.satisfied(pos):
            replay_plan(problem, tuple(jumps))  # the verifier's full check, goal included
            note = f"a winning plan: {len(jumps)} jumps, {moves} moves, replayed by the verifier"
        else:
            note = f"the game so far: {len(jumps)} jumps, {moves} moves (the goal is not reached)"
        return {"plan": plan + "\n", "text": note, "won": problem.goal.satisfied(pos)}


class Server(ThreadingHTTPServer):
    """The standard threaded server with a backlog for dozens of clients at once (the
    default of 5 resets connections under a burst), quiet when a client goes away."""

    request_queue_size = 128
    daemon_threads = True
    game: Game
    html: bytes

    def handle_error(self, request, client_address) -> None:
        """Quiet for a client that went away; one line for anything else."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return  # a client that disconnected or stalled: nothing to tell the player
        sys.stderr.write(f"play: a request failed ({type(exc).__name__}: {clip(exc)})\n")


def make_server(posed: Posed, port: int = 0, per_position: float = 2.0,
                sweep: Deadline | None = None) -> Server:
    """The server, bound to 127.0.0.1 (``port`` 0: a free one) before any verdict is built,
    so a port in use is one line at once; not yet serving. ``sweep``: as ``Hinter``'s."""
    try:
        server = Server(("127.0.0.1", port), _Handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise PegsatError(f"port {port} on 127.0.0.1 is in use; give another --port, or 0 for a "
                              "free one") from None
        raise PegsatError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror})") from None
    try:
        server.game = Game(posed, per_position, sweep)
        server.html = page(posed).encode("utf-8")
    except BaseException:
        server.server_close()
        raise
    return server


class _Handler(BaseHTTPRequestHandler):
    server: Server
    server_version = "pegsat"
    timeout = TIMEOUT  # seconds a client may take to send its request: a stalled one is dropped

    def log_message(self, fmt, *args):  # quiet: the terminal shows the address only
        return

    def allowed(self) -> bool:
        port_ = self.server.server_address[1]
        hosts = {f"127.0.0.1:{port_}", f"localhost:{port_}"}
        if self.headers.get("Host") not in hosts:
            return False
        origin = self.headers.get("Origin")
        return origin is None or origin in {f"http://{h}" for h in hosts}

    def send(self, code: int, body: bytes, kind: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'; "
                         "script-src 'unsafe-inline'; img-src 'self' data:")
        self.end_headers()
        self.wfile.write(body)

    def json(self, code: int, data: dict) -> None:
        self.send(code, json.dumps(data).encode(), "application/json")

    def do_GET(self):  # noqa: N802 - http.server's name
        if not self.allowed():
            return self.json(HTTPStatus.FORBIDDEN, {"error": "foreign host or origin"})
        if self.path in ("/", "/index.html"):
            return self.send(HTTPStatus.OK, self.server.html, "text/html; charset=utf-8")
        return self.json(HTTPStatus.NOT_FOUND, {"error": "not found"})

    def do_POST(self):  # noqa: N802
        if not self.allowed():
            return self.json(HTTPStatus.FORBIDDEN, {"error": "foreign host or origin"})
        game = self.server.game
        actions = {"/api/status": game.status, "/api/hint": game.hint, "/api/save": game.save}
        action = actions.get(self.path)
        if action is None:
            return self.json(HTTPStatus.NOT_FOUND, {"error": "not found"})
        try:
            size = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            size = -1
        if not 0 <= size <= MAX_BODY or self.headers.get_content_type() != "application/json":
            return self.json(HTTPStatus.BAD_REQUEST, {"error": "a JSON body of at most 64 KB"})
        try:
            body = parse_json(self.rfile.read(size) or b"{}", "request")
            return self.json(HTTPStatus.OK, action(body.get("jumps", [])))
        except PlanError as exc:
            return self.json(HTTPStatus.OK, {"status": "error", "text": f"illegal game: {exc}"})
        except (ValueError, AttributeError, PegsatError) as exc:
            return self.json(HTTPStatus.BAD_REQUEST, {"error": f"bad request: {clip(exc, 200)}"})

