"""Public pages (read-only): the dashboard, the big screen, the video overlay, one table,
and the language switch. Everything on them is drawn by web/static/js/dashboard.js from
the live stream; the pages only carry the texts and settings it needs."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, make_response, redirect, render_template, request, url_for

from web import get_hub
from web.i18n import LANG_COOKIE, LANGUAGES
from web.security import safe_next

bp = Blueprint("dashboard", __name__)


def page(mode: str, **settings: Any) -> str:
    settings.setdefault("table", None)
    return render_template(f"dashboard/{mode}.html", mode=mode, settings={"mode": mode, **settings})


@bp.get("/")
def index() -> Any:
    return page("index")


@bp.get("/big")
def big() -> Any:
    every = request.args.get("every", type=int) or current_app.config["BIG_SCREEN_ROTATE_S"]
    only = [t for t in request.args.get("tables", "").split(",") if t]
    return page("big", rotate_s=max(3, min(every, 600)), tables=only)


@bp.get("/overlay/<table_id>")
def overlay(table_id: str) -> Any:
    get_hub().table_view(table_id)  # 404 for an unknown table
    return page("overlay", table=table_id)


@bp.get("/tables/<table_id>")
def table(table_id: str) -> Any:
    get_hub().table_view(table_id)
    return page("table", table=table_id)


@bp.get("/lang/<code>")
def switch_language(code: str) -> Any:
    if code not in LANGUAGES:
        return redirect(url_for("dashboard.index"))
    response = make_response(redirect(safe_next(request.args.get("next"), url_for("dashboard.index"))))
    response.set_cookie(LANG_COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax", httponly=True)
    return response
