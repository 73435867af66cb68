"""Play pages for every game: Triominos, Trike and Triolet moves; on a Trigono table the
thrower says where their own palet came to rest (one tap; the referee keeps the last word).

One generic page loads the game's renderer ``web/static/games/<game>.js`` (contract:
web/GAMES.md) or, until it exists, ``fallback.js``. A player gets their seat through
the seat link the referee hands out (``/play/<table>/join?seat=TOKEN``)."""

from __future__ import annotations

import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from werkzeug.exceptions import BadRequest, TooManyRequests

from hub.api import TableSpec
from web.context import get_hub
from web.flashing import flash_key
from web.i18n import gettext
from web.security import claim_seat, seat_for_token
from web.view_readers import live_first, seat_names

bp = Blueprint("play", __name__, url_prefix="/play")


def renderer_files(renderer: str) -> dict[str, str | None]:
    """The page module drawing a game (its type's ``renderer``: ``games/<renderer>.js``,
    ``fallback.js`` until it exists) and its style sheet, if any."""
    static = Path(current_app.static_folder or "")
    name = renderer if renderer.isidentifier() else ""
    script = f"games/{name}.js" if name and (static / "games" / f"{name}.js").is_file() else "games/fallback.js"
    style = f"games/{name}.css" if name and (static / "games" / f"{name}.css").is_file() else None
    return {
        "renderer": url_for("static", filename=script),
        "fallback": url_for("static", filename="games/fallback.js"),
        "style": url_for("static", filename=style) if style else None,
    }


QUICK_PER_ADDRESS = 5  # new games per address per QUICK_WINDOW_S: nobody fills the hub with tables
QUICK_IN_ALL = 30
QUICK_WINDOW_S = 600.0


class QuickGames:
    """How many games against the computer were started lately, per address and in all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._starts: deque[tuple[float, str]] = deque()

    def allow(self, address: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        with self._lock:
            while self._starts and self._starts[0][0] < now - QUICK_WINDOW_S:
                self._starts.popleft()
            mine = sum(1 for _, who in self._starts if who == address)
            if mine >= QUICK_PER_ADDRESS or len(self._starts) >= QUICK_IN_ALL:
                return False
            self._starts.append((now, address))
            return True


def quick_games() -> list[str]:
    """Games a visitor may start against the computer: every game with a bot and no sensors."""
    return [g for g, caps in get_hub().game_types().items() if caps["bot"] and not caps["sensor_boards"]]


@bp.get("/")
def index() -> Any:
    return render_template("play/index.html", tables=live_first(get_hub().list_tables()), quick=quick_games())


@bp.post("/new")
def new_game() -> Any:
    """Play against the computer, no referee needed: a new table with the visitor's seat
    (claimed at once) and a computer player."""
    game = request.form.get("game", "")
    if game not in quick_games():
        raise BadRequest(f"game: one of {', '.join(quick_games())}")
    counter: QuickGames = current_app.extensions.setdefault("quick_games", QuickGames())
    if not counter.allow(request.remote_addr or "?"):
        raise TooManyRequests("too many new games from here: wait a few minutes")
    name = request.form.get("name", "").strip()[:24] or gettext("play.you_name")
    seats = [{"name": name, "bot": False}, {"name": gettext("play.computer_name"), "bot": True}]
    view = get_hub().create(TableSpec.build(game, seats=seats))
    claim_seat(str(view["id"]), name)
    return redirect(url_for("play.table", table_id=view["id"]), code=303)


@bp.get("/<table_id>")
def table(table_id: str) -> Any:
    view = get_hub().table_view(table_id)
    game = str(view.get("game"))
    files = renderer_files(str(view["capabilities"]["renderer"]))
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
