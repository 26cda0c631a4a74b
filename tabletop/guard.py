"""Request guards for the web apps: the server's own hosts, same-origin JSON changes, small bodies.

Any page the person visits can make their browser send a form or a ``text/plain`` POST to
this server without asking first (no CORS preflight), and a DNS-rebinding page reaches it
under a foreign ``Host``. So, before a route sees a request:

* its ``Host`` must be one of the server's own names (:data:`LOCAL_HOSTS` plus the ones it
  was started with), else 400;
* a state-changing request (``POST`` and the like) must be ``application/json``, which a
  foreign page can only send after a preflight this server never grants, else 415, and
  must not carry a foreign ``Origin``, else 403;
* its body must be at most :data:`MAX_BODY` bytes, else 413, checked while it arrives.

Refusals are JSON ``{"error": message}`` like every other one of the apps' errors.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import parse_host_header
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Host names a server on this machine answers to by default.
LOCAL_HOSTS = ("127.0.0.1", "localhost")
#: The largest request body accepted, in bytes: a setup, a move or a score book is far smaller.
MAX_BODY = 64 * 1024
#: Methods that change something on the server.
CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: The longest text of an error message; longer ones are cut (an error never echoes a large input).
MAX_MESSAGE = 600


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages that quote an input."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def error_response(message: str, status: int = 400, **extra: Any) -> JSONResponse:
    """``{"error": message, ...}`` with the message cut to :data:`MAX_MESSAGE` characters."""
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    return JSONResponse({"error": message, **extra}, status_code=status)


class RequestGuard:
    """ASGI middleware: refuses foreign hosts, and cross-site and oversized state-changing
    requests (see the module), with JSON like every other refusal."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = LOCAL_HOSTS, max_body: int = MAX_BODY) -> None:
        self.app, self.max_body = app, max_body
        self.allowed_hosts = [host.lower() for host in allowed_hosts]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(scope, headers)
        if refusal is None:
            body, too_big = await self._read(receive, headers)
            if too_big:
                refusal = error_response(f"the request body is larger than {self.max_body:,} bytes", 413)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()  # after the body: the client's disconnect
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    def _refusal(self, scope: Scope, headers: Headers) -> JSONResponse | None:
        parsed = parse_host_header(headers.get("host"))
        host = parsed.host.lower() if parsed is not None else None
        if host not in self.allowed_hosts:  # a DNS-rebinding page, or a name the server was not started with
            return error_response(
                f"this server answers to {', '.join(self.allowed_hosts)}, not Host {shown(headers.get('host'))}",
                400,
            )
        if scope["method"] not in CHANGING:
            return None
        media_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if media_type != "application/json":
            return error_response(
                f"a {scope['method']} request must be application/json, got {shown(media_type or 'no type')}", 415
            )
        origin = headers.get("origin")
        if origin is not None and origin != f"{scope.get('scheme', 'http')}://{headers.get('host', '')}":
            return error_response(f"requests from another site are refused (Origin {shown(origin)})", 403)
        return None

    async def _read(self, receive: Receive, headers: Headers) -> tuple[bytes, bool]:
        """The whole body, or (partial, True) as soon as it passes the cap."""
        length = headers.get("content-length", "")
        if length.isdecimal() and int(length) > self.max_body:
            return b"", True
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return b"", True
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks), False


def check_fields(data: dict[str, Any], allowed: Iterable[str]) -> None:
    """``ValueError`` naming the fields of a request that no endpoint reads (a typo is no default)."""
    allowed = list(allowed)
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown field(s) {', '.join(shown(k) for k in unknown)}; allowed: {', '.join(allowed) or 'none'}"
        )


async def _http_error(request: Any, exc: HTTPException) -> JSONResponse:
    """A route that does not exist, or a method it does not take, as JSON like every refusal
    (a 405 keeps its ``Allow`` header)."""
    response = error_response(f"{exc.detail}: {request.method} {request.url.path}", exc.status_code)
    response.headers.update(exc.headers or {})
    return response


#: The apps' handlers for Starlette's own refusals (404, 405): ``{"error": ...}`` as every other.
JSON_ERRORS = {404: _http_error, 405: _http_error}


def guards(allowed_hosts: Iterable[str] | None = None, max_body: int = MAX_BODY) -> list[Middleware]:
    """The middleware both apps run: known hosts (default :data:`LOCAL_HOSTS`), then :class:`RequestGuard`."""
    hosts = list(LOCAL_HOSTS if allowed_hosts is None else allowed_hosts)
    return [Middleware(RequestGuard, allowed_hosts=hosts, max_body=max_body)]


async def json_object(request: Any) -> dict[str, Any]:
    """A request's body as a JSON object, or ``ValueError`` saying it must be one (bad JSON,
    bad UTF-8, nesting too deep for the parser, or another JSON value)."""
    try:
        data = await request.json()
    except (ValueError, UnicodeDecodeError, RecursionError):  # JSONDecodeError is a ValueError
        raise ValueError("the request body must be a JSON object") from None
    if not isinstance(data, dict):
        raise ValueError("the request body must be a JSON object")
    return data
