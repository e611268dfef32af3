"""A cap on the size of request bodies (``Settings.max_body_bytes``): an ASGI middleware."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, by the declared length or while reading."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await _too_large(self.limit, send, scope["path"])
            return
        seen = 0
        started = refused = False

        async def limited_receive() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                refused = True
                if not started:
                    await _too_large(self.limit, send, scope["path"])
                return {"type": "http.disconnect"}  # the app stops reading; its own answer is dropped
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except Exception:
            if not refused:
                raise


async def _too_large(limit: int, send: Send, path: str = "/api/") -> None:
    """413, as JSON for the API and as a page (its form cannot come back: it was not read) for pages."""
    message = f"the request body is larger than the limit of {limit} bytes"
    if path.startswith("/api/"):
        body, kind = f'{{"error": "{message}"}}'.encode(), b"application/json"
    else:
        body, kind = _too_large_page(message).encode(), b"text/html; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _too_large_page(message: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<title>Too large · Card Arena</title><link rel="stylesheet" href="/static/style.css"></head>'
        f'<body><main><h1>Error 413</h1><p class="error" role="alert">{message}: nothing was stored.</p>'
        '<p><a href="/submit">Back to the submit page</a> · <a href="/">the start page</a></p>'
        "</main></body></html>"
    )
