"""Score Buddy on a web page: a small JSON API plus one static page, mounted under ``/score``.

The book lives in one JSON file (``store_path``): every request reads it, every change
writes it back atomically before answering, so killing the server loses nothing and the
page resumes where it was after a reload or a restart. The server keeps no state of its
own; endpoints are ``async`` and do their read-change-write without awaiting in between,
so two requests never interleave on the event loop.

API (all JSON; bad input answers HTTP 400 ``{"error": message}``; changes must be
same-origin ``application/json``, see :mod:`tabletop.guard`)::

    GET  api/book        {"book": {...} | null, "standings": [...], "match_over", "winners", ...}
    POST api/setup       {"players": [...], "target": 500, "variant": "standard" | "reverse"}
    POST api/hand        {"closer": "Anna", "points": 37}  or  {"points_by_player": {...}, "closer": ...}
    POST api/undo        {hands?}  (the hands the page shows: refused if another page changed them)
    POST api/new-match   {}
    POST api/hand-value  {"cards": "R7 GS W+4"}  ->  {"value": 77}
    GET  export.csv      the hands as CSV
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from tabletop.guard import JSON_ERRORS, check_fields, error_response, guards, json_object, shown
from tabletop.scorebuddy import DEFAULT_TARGET, QUICK_KEYS, TARGET_PRESETS, VARIANTS, ScoreBook, hand_value

STATIC_DIR = Path(__file__).resolve().parent / "static"


def book_state(book: ScoreBook | None) -> dict[str, Any]:
    """What the page shows: the book, the sorted leaderboard and the match result."""
    state: dict[str, Any] = {
        "book": None,
        "presets": list(TARGET_PRESETS),
        "quick_keys": list(QUICK_KEYS),
        "variants": list(VARIANTS),
        "default_target": DEFAULT_TARGET,
    }
    if book is not None:
        state.update(
            book=book.to_dict(),
            totals=book.totals(),
            standings=[row.to_dict() for row in book.standings()],
            match_over=book.match_over,
            winners=book.winners(),
        )
    return state


def _aside(path: Path) -> Path:
    """A free name beside ``path`` for a damaged book: ``scores.json.damaged``, then
    ``scores.json.damaged.2`` and on, so a second damaged book never replaces the first."""
    aside, n = path.with_name(path.name + ".damaged"), 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged.{n}")
    return aside


def scorebuddy_routes(store_path: Path) -> list[BaseRoute]:
    """The Score Buddy routes, to be mounted with ``Mount("/score", routes=scorebuddy_routes(path))``."""
    store_path = Path(store_path)

    def load() -> ScoreBook | None:
        return ScoreBook.load(store_path) if store_path.exists() else None

    def change(action: Callable[[ScoreBook, dict[str, Any]], None]) -> Callable[[Request], Any]:
        """An endpoint that reads the book, applies ``action`` and saves it before answering."""

        async def endpoint(request: Request) -> Response:
            try:
                data = await json_object(request)
                book = load()
                if book is None:
                    return error_response("no table yet: set up the players first (api/setup)", 409)
                action(book, data)
            except ValueError as err:
                return error_response(str(err))
            book.save(store_path)
            return JSONResponse(book_state(book))

        return endpoint

    async def page(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "score.html", headers={"Cache-Control": "no-cache"})

    async def get_book(request: Request) -> Response:
        try:
            return JSONResponse(book_state(load()))
        except ValueError as err:
            return error_response(
                f"{err}; set the table up again to start a new book (the damaged file is kept aside)", 500
            )

    async def setup(request: Request) -> Response:
        try:
            data = await json_object(request)
            check_fields(data, ("players", "target", "variant"))
            book = ScoreBook(data.get("players"), data.get("target", DEFAULT_TARGET), data.get("variant", "standard"))
        except ValueError as err:
            return error_response(str(err))
        try:
            load()
        except ValueError:  # a damaged book is kept for inspection, never silently overwritten
            store_path.replace(_aside(store_path))
        book.save(store_path)
        return JSONResponse(book_state(book))

    def hand(book: ScoreBook, data: dict[str, Any]) -> None:
        check_fields(data, ("closer", "points", "points_by_player"))
        if "points_by_player" in data:
            book.record_reverse_hand(data["points_by_player"], data.get("closer"))
        elif "closer" in data and "points" in data:
            book.record_hand(data["closer"], data["points"])
        else:
            raise ValueError('a hand is {"closer": name, "points": n} or {"points_by_player": {name: n, ...}}')

    async def value(request: Request) -> Response:
        try:
            data = await json_object(request)
            check_fields(data, ("cards",))
            cards = data.get("cards", "")
            if not isinstance(cards, (str, list)):
                raise ValueError(f"cards are a string such as 'R7 GS W+4' or a list of card names, got {shown(cards)}")
            return JSONResponse({"value": hand_value(cards)})
        except ValueError as err:
            return error_response(str(err))

    def undo(book: ScoreBook, data: dict[str, Any]) -> None:
        check_fields(data, ("hands",))
        seen = data.get("hands")
        if seen is not None and (isinstance(seen, bool) or not isinstance(seen, int)):
            raise ValueError(f"hands is the number of hands the page shows, got {shown(seen)}")
        book.undo(seen)

    async def export(request: Request) -> Response:
        try:
            book = load()
        except ValueError as err:
            return error_response(str(err), 500)
        if book is None:
            return error_response("no table yet: nothing to export", 404)
        return Response(
            book.to_csv(),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="scorebuddy.csv"'},
        )

    return [
        Route("/", page),
        Route("/api/book", get_book),
        Route("/api/setup", setup, methods=["POST"]),
        Route("/api/hand", change(hand), methods=["POST"]),
        Route("/api/undo", change(undo), methods=["POST"]),
        Route(
            "/api/new-match", change(lambda book, data: (check_fields(data, ()), book.new_match())), methods=["POST"]
        ),
        Route("/api/hand-value", value, methods=["POST"]),
        Route("/export.csv", export),
        Mount("/static", StaticFiles(directory=STATIC_DIR)),
    ]


def create_app(store_path: Path, allowed_hosts: Iterable[str] | None = None) -> Starlette:
    """A stand-alone app with Score Buddy at ``/score/`` (``/`` redirects there); its requests
    pass :mod:`tabletop.guard` (``allowed_hosts``: default :data:`tabletop.guard.LOCAL_HOSTS`)."""
    from starlette.responses import RedirectResponse

    async def home(request: Request) -> Response:
        return RedirectResponse("/score/")

    routes = [Route("/", home), Mount("/score", routes=scorebuddy_routes(store_path))]
    return Starlette(routes=routes, middleware=guards(allowed_hosts), exception_handlers=JSON_ERRORS)
