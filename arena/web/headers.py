"""Security headers on every response the web app sends.

The pages load their scripts and styles from ``/static`` only: no inline ``<script>``, no event
handler attributes, no ``style`` attributes (scripts may still set ``element.style``, which CSP does
not restrict), so the policy allows nothing but the site itself. Charts are inline SVG elements,
which need nothing more. Nothing may frame a page (clickjacking the forms), no content type is
guessed, and other sites are not told which page a link was followed from.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
}
_RAW = [(name.lower().encode(), value.encode()) for name, value in HEADERS.items()]


class SecurityHeaders:
    """Add ``HEADERS`` to every HTTP response (those a route set itself are kept)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend((name, value) for name, value in _RAW if name not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
