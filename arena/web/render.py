"""Pages from the templates (``arena/web/templates``), for the signed-in user or for anyone, and how
a page's route is declared (``html``)."""

from __future__ import annotations

from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, select_autoescape

from arena.web import tables
from arena.web.api import API
from arena.web.deps import Viewer

templates = Environment(loader=PackageLoader("arena.web"), autoescape=select_autoescape())
templates.globals["API"] = API
templates.globals["table_script"] = tables.script

html: dict[str, Any] = {"response_class": HTMLResponse, "include_in_schema": False}
"""A page's route: it answers HTML, and the API's schema leaves it out."""


def render(template_name: str, who: Viewer | None, **context: Any) -> str:
    user = who.user if who else None
    return templates.get_template(template_name).render(user=user, csrf=who.csrf if who else None, **context)


def page(template_name: str, who: Viewer | None, status: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(render(template_name, who, **context), status_code=status)
