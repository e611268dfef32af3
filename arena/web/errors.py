"""Errors as the app answers them: JSON (``{"error": ...}``) under ``/api/``, an error page
elsewhere. ``HANDLERS`` are the app's exception handlers."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match as RouteMatch
from starlette.types import Scope

from arena.games.base import GameError
from arena.sandbox import SandboxError
from arena.store.errors import NotAllowed, StoreError
from arena.submissions import SubmissionError
from arena.web.render import page
from arena.web.views.common import Forbidden, NotFound


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def error_response(
    request: Request, status: int, message: str, headers: Mapping[str, str] | None = None
) -> Response:
    if is_api(request):
        return JSONResponse({"error": message}, status_code=status, headers=headers)
    response = page("error.html", None, status, code=status, message=message)
    response.headers.update(headers or {})
    return response


async def http_error(request: Request, error: StarletteHTTPException) -> Response:
    headers = dict(error.headers or {})  # Retry-After on a 429
    if error.status_code == 405:  # the router names the first route's methods only
        headers["Allow"] = _allowed_methods(request.app, request.scope)
    return error_response(request, error.status_code, str(error.detail), headers)


async def validation_error(request: Request, error: RequestValidationError) -> Response:
    problems = "; ".join(
        f"{'.'.join(str(part) for part in problem['loc'] if part not in ('body', 'query', 'path'))}: "
        f"{problem['msg']}"
        for problem in error.errors()
    )
    return error_response(request, 422, f"bad request: {problems}")


async def not_found(request: Request, error: NotFound) -> Response:
    return error_response(request, 404, str(error))


async def forbidden(request: Request, error: Forbidden) -> Response:
    return error_response(request, 403, str(error))


async def store_error(request: Request, error: StoreError) -> Response:
    return error_response(request, 403 if isinstance(error, NotAllowed) else 400, str(error))


async def game_error(request: Request, error: GameError) -> Response:
    return error_response(request, 400, str(error))


async def submission_error(request: Request, error: SubmissionError) -> Response:
    return error_response(request, 400, str(error))


async def sandbox_error(request: Request, error: SandboxError) -> Response:
    return error_response(request, 503, f"the bot sandbox is not available here ({error}): nothing was lost")


HANDLERS: dict[int | type[Exception], Callable[[Request, Any], Coroutine[Any, Any, Response]]] = {
    StarletteHTTPException: http_error,
    RequestValidationError: validation_error,
    NotFound: not_found,
    Forbidden: forbidden,
    StoreError: store_error,
    GameError: game_error,
    SubmissionError: submission_error,
    SandboxError: sandbox_error,
}


def _allowed_methods(app: FastAPI, scope: Scope) -> str:
    """Every method some route takes at the request's path (the ``Allow`` of a 405)."""
    methods: set[str] = set()
    for route in iter_route_contexts(app.router.routes):  # the routers' routes too
        if isinstance(route.original_route, APIRoute) and route.matches(scope)[0] != RouteMatch.NONE:
            methods |= route.methods or set()
    return ", ".join(sorted(methods))
