"""Play pages for every game: Triominos, Trike and Triolet moves; on a Trigono table the
thrower says where their own palet came to rest (one tap; the referee keeps the last word).

One generic page loads the game's renderer ``web/static/games/<game>.js`` (contract:
web/GAMES.md) or, until it exists, ``fallback.js``. A player gets their seat through
the seat link the referee hands out (``/play/<table>/join?seat=TOKEN``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for

from web import get_hub
from web.flashing import flash_key
from web.security import claim_seat, seat_for_token
from web.views import seat_names

bp = Blueprint("play", __name__, url_prefix="/play")


def renderer_files(game: str) -> dict[str, str | None]:
    static = Path(current_app.static_folder or "")
    script = f"games/{game}.js" if game.isidentifier() and (static / "games" / f"{game}.js").is_file() else "games/fallback.js"
    style = f"games/{game}.css" if game.isidentifier() and (static / "games" / f"{game}.css").is_file() else None
    return {
        "renderer": url_for("static", filename=script),
        "fallback": url_for("static", filename="games/fallback.js"),
        "style": url_for("static", filename=style) if style else None,
    }


@bp.get("/")
def index() -> Any:
    return render_template("play/index.html", tables=get_hub().list_tables())


@bp.get("/<table_id>")
def table(table_id: str) -> Any:
    view = get_hub().table_view(table_id)
    game = str(view.get("game"))
    files = renderer_files(game)
    if request.args.get("renderer") == "fallback":  # the plain list, e.g. to check a renderer's moves
        files["renderer"] = files["fallback"]
    settings = {"mode": "play", "table": table_id, "game": game, **files}
    return render_template("play/table.html", settings=settings, table_id=table_id, game=game, style=files["style"])


@bp.get("/<table_id>/join")
def claim(table_id: str) -> Any:
    view = get_hub().table_view(table_id)
    player = seat_for_token(table_id, seat_names(view), request.args.get("seat", ""))
    if player is None:
        flash_key("play.bad_seat", category="error")
        return redirect(url_for("play.table", table_id=table_id)), 303
    claim_seat(table_id, player)
    flash_key("play.seat_claimed", name=player)
    return redirect(url_for("play.table", table_id=table_id), code=303)
