"""The web page: play either game by clicking, and Score Buddy under ``/score/``.

The server keeps every game (a :class:`~tabletop.session.TableSession` per table id); the
page receives only the person's view and the events they may know, and sends back action
names, which the session checks against the engine's legal mask. So the page cannot
cheat: it never holds another player's cards, the draw pile or the random stream.

API (JSON)::

    GET  /api/options                 policies per game and the defaults of the setup form
    POST /api/new    {game, players, opponents, target, seed?, rules?} -> {id, view, events}
    GET  /api/state?id=ID             -> {view}
    POST /api/move   {id, action}     -> {view, events}   (400 {error, legal} if illegal)
    POST /api/next   {id}             -> {view, events}   the next game once one is over
    GET  /api/record?id=ID            the game record (JSON lines) as a download
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.registry import AGENT, SEARCH, policy_table
from tabletop.moves import MoveError
from tabletop.scorebuddy_web import scorebuddy_routes
from tabletop.session import TableSession

STATIC = Path(__file__).resolve().parent / "static"
#: Tables kept in memory; the oldest is dropped beyond this (a localhost server for a few people).
MAX_TABLES = 64


def _error(message: str, status: int = 400, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


class Tables:
    """The open tables by id, oldest dropped first."""

    def __init__(self) -> None:
        self.by_id: OrderedDict[str, TableSession] = OrderedDict()

    def add(self, session: TableSession) -> str:
        table_id = secrets.token_urlsafe(12)
        self.by_id[table_id] = session
        while len(self.by_id) > MAX_TABLES:
            self.by_id.popitem(last=False)
        return table_id

    def get(self, table_id: Any) -> TableSession:
        if not isinstance(table_id, str) or table_id not in self.by_id:
            raise KeyError(f"no table with id {table_id!r}: start a new game")
        self.by_id.move_to_end(table_id)
        return self.by_id[table_id]


async def _body(request: Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except ValueError:
        raise ValueError("the request body must be a JSON object") from None
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data


def _opponents(value: Any) -> list[Any]:
    if isinstance(value, str):
        return [v for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return value
    raise ValueError("opponents must be a list of policy names or a comma-separated string")


def _int(data: dict[str, Any], key: str, default: int | None) -> int | None:
    value = data.get(key, default)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise ValueError(f"{key} must be an integer, got {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{key} must be an integer, got {value!r}") from None


def create_app(store_path: Path = Path("scorebuddy.json")) -> Starlette:
    """The ASGI app: the game page at ``/``, its API at ``/api``, Score Buddy at ``/score``."""
    tables = Tables()

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "game.html")

    async def options(request: Request) -> Response:
        games = {}
        for game in ("uno", "tricks"):
            games[game] = {"policies": sorted(policy_table(game)) + [AGENT, SEARCH]}
        games["uno"].update(players=[2, 10], default_opponent="heuristic", targets=[200, 300, 500])
        games["tricks"].update(players=[4, 4], default_opponent="heuristic")
        return JSONResponse({"games": games})

    async def new(request: Request) -> Response:
        try:
            data = await _body(request)
            unknown = set(data) - {"game", "players", "opponents", "target", "seed", "rules", "seat"}
            if unknown:
                raise ValueError(
                    f"unknown field(s) {', '.join(sorted(unknown))}; "
                    "allowed: game, players, opponents, target, seed, rules, seat"
                )
            game = data.get("game", "uno")
            if game not in ("uno", "tricks"):
                raise ValueError(f"game must be 'uno' or 'tricks', got {game!r}")
            seed = _int(data, "seed", None)
            session = TableSession(
                game=game,
                num_players=int(_int(data, "players", 2 if game == "uno" else 4)),
                opponents=_opponents(data.get("opponents", "heuristic")),
                seat=int(_int(data, "seat", 0)),
                rules=data.get("rules") or {},
                target=int(_int(data, "target", 500)),
                seed=seed if seed is not None else secrets.randbelow(2**31),
            )
        except (ValueError, MoveError) as err:
            return _error(str(err))
        table_id = tables.add(session)
        events = session.advance()
        return JSONResponse({"id": table_id, "view": session.view(), "events": [e.to_dict() for e in events]})

    async def state(request: Request) -> Response:
        try:
            session = tables.get(request.query_params.get("id"))
        except KeyError as err:
            return _error(err.args[0], 404)
        return JSONResponse({"id": request.query_params["id"], "view": session.view()})

    async def move(request: Request) -> Response:
        try:
            data = await _body(request)
            session = tables.get(data.get("id"))
        except ValueError as err:
            return _error(str(err))
        except KeyError as err:
            return _error(err.args[0], 404)
        action = data.get("action")
        if not isinstance(action, str):
            return _error("action must be an action name such as 'play R7'", legal=session.legal_actions())
        try:
            events = session.act(action)
        except MoveError as err:
            return _error(str(err), legal=session.legal_actions())
        return JSONResponse({"view": session.view(), "events": [e.to_dict() for e in events]})

    async def next_game(request: Request) -> Response:
        try:
            data = await _body(request)
            session = tables.get(data.get("id"))
            events = session.next_game()
        except (ValueError, MoveError) as err:
            return _error(str(err))
        except KeyError as err:
            return _error(err.args[0], 404)
        return JSONResponse({"view": session.view(), "events": [e.to_dict() for e in events]})

    async def record(request: Request) -> Response:
        try:
            session = tables.get(request.query_params.get("id"))
        except KeyError as err:
            return _error(err.args[0], 404)
        text = "\n".join(session.record.to_lines()) + "\n"
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
    app = Starlette(routes=routes)
    app.state.tables = tables
    return app
