"""Public pages (read-only): the dashboard, the big screen, the video overlay, one table,
and the language switch. Everything on them is drawn by web/static/js/dashboard.js from
the live stream; the pages only carry the texts and settings it needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, make_response, redirect, render_template, request, url_for

from web.context import get_hub
from web.i18n import LANG_COOKIE, LANGUAGES
from web.security import safe_next

bp = Blueprint("dashboard", __name__)


def game_files() -> tuple[dict[str, str], list[str]]:
    """The play pages' renderers (``games/<renderer>.js``, by each game type's
    ``renderer``) and their styles, for the pages that draw the other games' boards too
    (big screen, one table)."""
    static = Path(current_app.static_folder or "") / "games"
    scripts, styles = {}, []
    for renderer in dict.fromkeys(str(caps["renderer"]) for caps in get_hub().game_types().values()):
        if not renderer.isidentifier():
            continue
        if (static / f"{renderer}.js").is_file():
            scripts[renderer] = url_for("static", filename=f"games/{renderer}.js")
        if (static / f"{renderer}.css").is_file():
            styles.append(url_for("static", filename=f"games/{renderer}.css"))
    return scripts, styles


def page(mode: str, **settings: Any) -> str:
    settings.setdefault("table", None)
    styles: list[str] = []
    if mode in ("big", "table"):
        settings["renderers"], styles = game_files()
    return render_template(f"dashboard/{mode}.html", mode=mode, styles=styles, settings={"mode": mode, **settings})


@bp.get("/")
def index() -> Any:
    return page("index")


@bp.get("/big")
def big() -> Any:
    """``?tables=t1,t2`` only those tables; ``?rotate=S`` (or ``?every=S``) seconds per
    table, 5 to 600 (default ``BIG_SCREEN_ROTATE_S``); ``?mode=grid`` (or ``?view=grid``)
    every table at once instead of in turn (twelve a page, the pages in turn); ``?bots=1``
    the computer's own tables too, ``?finished=1`` finished tables too (else the turn
    skips both)."""
    args = request.args
    every = args.get("rotate", type=int) or args.get("every", type=int) or current_app.config["BIG_SCREEN_ROTATE_S"]
    only = [t for t in args.get("tables", "").split(",") if t]
    view = "grid" if "grid" in (args.get("mode"), args.get("view")) else "rotate"
    return page("big", rotate_s=max(5, min(every, 600)), tables=only, view=view,
                bots=args.get("bots") == "1", finished=args.get("finished") == "1")


@bp.get("/overlay/<table_id>")
def overlay(table_id: str) -> Any:
    """``?sound=1`` plays the short sounds without a click (a video mixer's browser source)."""
    get_hub().table_view(table_id)  # 404 for an unknown table
    return page("overlay", table=table_id, sound=request.args.get("sound") == "1")


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
