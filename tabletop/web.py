"""The web page: play either game by clicking, and Score Buddy under ``/score/``.

The server keeps every game (a :class:`~tabletop.session.TableSession` per table id); the
page receives only the person's view and the events they may know, and sends back action
names, which the session checks against the engine's legal mask. So the page cannot
cheat: it never holds another player's cards, the draw pile or the random stream.

API (JSON)::

    GET  /api/options                 the games (title, policies, table sizes, partners, the
                                      defaults and options of the setup form)
    POST /api/new    {game, players?, opponents?, seat?, target?, seed?, rules?, replaces?} -> {id, view, events, notes}
                                      (target: a match's, refused where no match is played)
    GET  /api/state?id=ID             -> {view, log, notes} (and game_over, the result, once the game is over)
                                      (log: the move list as the person was told it, the latest lines)
    POST /api/move   {id, action}     -> {view, events}   (400 {error, legal} if illegal)
    POST /api/next   {id}             -> {view, events}   the next game once one is over
    GET  /api/record?id=ID            the game record (JSON lines) as a download, once the game is over

Every request passes :mod:`tabletop.guard` first (the server's own hosts, same-origin
JSON for changes, a body cap). The game record holds every hand and the draw pile in
order, so it is refused (409) while the game is played; the opponents are the policies
the setup form offers, by name (no checkpoint paths from the page). A table left alone for
:data:`IDLE_SECONDS` is closed to make room; a table in play is never dropped for a new one.
"""

from __future__ import annotations

import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.registry import AGENT, SEARCH, strategies
from envs.config import MAX_SEED
from envs.games import GAMES
from envs.games import game as game_info
from tabletop.guard import JSON_ERRORS, check_fields, error_response, guards, json_object, shown
from tabletop.moves import MoveError
from tabletop.scorebuddy import DEFAULT_STORE
from tabletop.scorebuddy_web import scorebuddy_routes
from tabletop.session import TableSession
from tabletop.table_game import table_game

STATIC = Path(__file__).resolve().parent / "static"
#: Tables kept in memory at most (a server on this machine for a few people).
MAX_TABLES = 64
#: A table nobody has touched for this long (seconds) is closed when room is needed.
IDLE_SECONDS = 2 * 3600
#: Integers a request may give (players, seat, target): beyond this they are refused (a seed
#: may be any the terminal takes, up to ``envs.config.MAX_SEED``).
MAX_INT = 2**31 - 1


class TablesFull(Exception):
    """Every table is in play: a new one must wait until one is idle."""


class Tables:
    """The open tables by id. A new table takes the place of an idle one (untouched for
    ``idle_seconds``) or, when none is, of the least recently used finished one; never of a
    game in play: when all are in play it is refused. The page names the table it leaves
    (``replaces``), which is closed at once."""

    def __init__(
        self, limit: int = MAX_TABLES, idle_seconds: float = IDLE_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.by_id: OrderedDict[str, TableSession] = OrderedDict()  # least recently used first
        self.touched: dict[str, float] = {}
        self.limit, self.idle_seconds, self.clock = limit, idle_seconds, clock

    def add(self, session: TableSession, replaces: Any = None) -> str:
        now = self.clock()
        for old in [t for t in self.by_id if now - self.touched[t] >= self.idle_seconds or t == replaces]:
            del self.by_id[old], self.touched[old]
        finished = [t for t, table in self.by_id.items() if table.over]  # least recently used first
        if len(self.by_id) >= self.limit and finished:
            del self.by_id[finished[0]], self.touched[finished[0]]
        if len(self.by_id) >= self.limit:
            raise TablesFull(
                f"all {self.limit} tables are in play; one is closed after {self.idle_seconds / 60:.0f} "
                "minutes without a move: try again later"
            )
        table_id = secrets.token_urlsafe(12)
        self.by_id[table_id], self.touched[table_id] = session, now
        return table_id

    def get(self, table_id: Any) -> TableSession:
        if not isinstance(table_id, str) or table_id not in self.by_id:
            raise KeyError(f"no table with id {shown(table_id)}: start a new game")
        self.by_id.move_to_end(table_id)
        self.touched[table_id] = self.clock()
        return self.by_id[table_id]


def offered(game: str) -> list[str]:
    """The opponents the page offers for a game, by name (``agent``: the shipped agent)."""
    return sorted(strategies(game)) + [AGENT, SEARCH]


def _opponents(game: str, value: Any) -> list[str]:
    """The opponents' names, each one the page offers: a checkpoint path or a spec with
    parameters is not taken from a web request (it would open files on the server)."""
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, list):
        raise ValueError("opponents must be a list of policy names or a comma-separated string")
    allowed = offered(game)
    for name in value:
        if name not in allowed:
            raise ValueError(f"opponent {shown(name)} is not offered here; choose from: {', '.join(allowed)}")
    return value


def _int(data: dict[str, Any], key: str, default: int | None, most: int = MAX_INT) -> int | None:
    """An integer field of a request, at most ``most`` in size (a seed: any the terminal takes)."""
    value = data.get(key, default)
    if value is None or value == "":
        return default
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,19}", value.strip()):
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be an integer, got {shown(value)}")
    if not -most <= value <= most:
        raise ValueError(f"{key} must be an integer of at most {most:,} in size, got {shown(value)}")
    return value


def create_app(store_path: Path = Path(DEFAULT_STORE), allowed_hosts: Iterable[str] | None = None) -> Starlette:
    """The ASGI app: the game page at ``/``, its API at ``/api``, Score Buddy at ``/score``.
    ``allowed_hosts``: the names the server answers to (default :data:`tabletop.guard.LOCAL_HOSTS`)."""
    tables = Tables()

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "game.html")

    async def options(request: Request) -> Response:
        games = {}
        for name, g in GAMES.items():
            sizes = [g.table_sizes.start, g.table_sizes.stop - 1]
            games[name] = {
                "title": g.describe_table(sizes[0]) if g.teams else g.title,  # the setup form's choice
                "policies": offered(name),
                "players": sizes,
                "default_opponent": g.default_opponent,
                # seats that play for the person's side (partners), at the game's smallest table
                "partners": [s for s in range(1, sizes[0]) if g.side_of(s, sizes[0]) == g.side_of(0, sizes[0])],
            }
            games[name].update(table_game(name).page_options)  # e.g. classic UNO's match targets
        return JSONResponse({"games": games})

    async def new(request: Request) -> Response:
        try:
            data = await json_object(request)
            check_fields(data, ("game", "players", "opponents", "target", "seed", "rules", "seat", "replaces"))
            game = data.get("game", "uno")
            if not isinstance(game, str) or game not in GAMES:
                raise ValueError(f"game must be one of {', '.join(GAMES)}, got {shown(game)}")
            rules = data.get("rules") or {}
            if not isinstance(rules, dict):
                raise ValueError(f"rules must be an object of rules options, got {shown(rules)}")
            seed = _int(data, "seed", None, MAX_SEED)
            session = TableSession(
                game=game,
                num_players=int(_int(data, "players", game_info(game).table_sizes.start)),
                opponents=_opponents(game, data.get("opponents", game_info(game).default_opponent)),
                seat=int(_int(data, "seat", 0)),
                rules=rules,
                target=_int(data, "target", None),
                seed=seed,  # None: a fresh deal, and later ones no record foretells
            )
            table_id = tables.add(session, replaces=data.get("replaces"))
        except (ValueError, TypeError, OverflowError, MoveError) as err:
            return error_response(str(err))
        except TablesFull as err:
            return error_response(str(err), 503)
        events = session.advance()
        body = {"id": table_id, "view": session.view(), "events": [e.to_dict() for e in events]}
        return JSONResponse(body | {"notes": session.notes})  # an agent at a table it was not fitted to

    async def state(request: Request) -> Response:
        try:
            session = tables.get(request.query_params.get("id"))
        except KeyError as err:
            return error_response(err.args[0], 404)
        view, log = session.view(), list(session.log)  # a reload shows the move list again, as it was told
        body = {"id": request.query_params["id"], "view": view, "log": log, "notes": session.notes}
        if session.over:  # a reload of a finished game shows its result (and the way to the next)
            body["game_over"] = next((e.game_over for e in reversed(session.history) if e.game_over), None)
        return JSONResponse(body)

    async def move(request: Request) -> Response:
        try:
            data = await json_object(request)
            session = tables.get(data.get("id"))
        except ValueError as err:
            return error_response(str(err))
        except KeyError as err:
            return error_response(err.args[0], 404)
        action = data.get("action")
        if not isinstance(action, str):
            return error_response("action must be an action name such as 'play R7'", legal=session.legal_actions())
        try:
            events = session.act(action)
        except MoveError as err:
            return error_response(str(err), legal=session.legal_actions())
        return JSONResponse({"view": session.view(), "events": [e.to_dict() for e in events]})

    async def next_game(request: Request) -> Response:
        try:
            data = await json_object(request)
            session = tables.get(data.get("id"))
            events = session.next_game()
        except (ValueError, MoveError) as err:
            return error_response(str(err))
        except KeyError as err:
            return error_response(err.args[0], 404)
        return JSONResponse({"view": session.view(), "events": [e.to_dict() for e in events]})

    async def record(request: Request) -> Response:
        try:
            session = tables.get(request.query_params.get("id"))
        except KeyError as err:
            return error_response(err.args[0], 404)
        try:
            text = "\n".join(session.record_lines()) + "\n"
        except ValueError as err:  # the game is still in play
            return error_response(str(err), 409)
        name = f"unolab-{session.game}-game.jsonl"
        return Response(
            text, media_type="application/x-ndjson", headers={"Content-Disposition": f'attachment; filename="{name}"'}
        )

    routes = [
        Route("/", page),
        Route("/api/options", options),
        Route("/api/new", new, methods=["POST"]),
        Route("/api/state", state),
        Route("/api/move", move, methods=["POST"]),
        Route("/api/next", next_game, methods=["POST"]),
        Route("/api/record", record),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Mount("/score", routes=scorebuddy_routes(Path(store_path))),
    ]
    app = Starlette(routes=routes, middleware=guards(allowed_hosts), exception_handlers=JSON_ERRORS)
    app.state.tables = tables
    return app
