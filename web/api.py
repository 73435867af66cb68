"""The JSON API (documented in docs/api.md) and the live stream.

Reads are public and show only public information (:meth:`Hub.public_view`: the
engine's observation for the audience).
Writes need the referee login (console inputs, table creation) or a claimed seat
(a player's move or hint), and a CSRF token in the ``X-CSRFToken`` header. Errors are
``{"error": {"type": ..., "message": ...}}`` with 400 (malformed or refused), 401
(no login), 403 (not your seat), 404 (unknown table), 409 (conflict).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, url_for
from werkzeug.exceptions import BadRequest, Forbidden, ServiceUnavailable

from hub.api import TableSpec
from web.context import get_feed, get_hub
from web.describe import hint_words
from web.feed import is_event_id
from web.i18n import current_language
from web.security import claimed_seat, is_logged_in, login_required
from web.view_readers import seat_names

bp = Blueprint("api", __name__, url_prefix="/api")

# Console inputs the referee may send (hub/facade.py documents each).
CONSOLE_INPUTS = (
    "answer", "landed", "invalid", "undo", "void", "recount", "amend", "target", "next_round", "move", "hint",
    "archive", "abandon",
)


def json_body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object")
    return data


def console_input(data: Any) -> dict[str, Any]:
    """Check the shape of one console input: an object with exactly one known input key
    (plus ``player``); the hub checks the rest."""
    if not isinstance(data, dict):
        raise BadRequest("an input is a JSON object")
    keys = [k for k in data if k != "player"]
    unknown = [k for k in keys if k not in CONSOLE_INPUTS]
    if unknown:
        raise BadRequest(f"unknown input {unknown[0]!r} (known: {', '.join(CONSOLE_INPUTS)})")
    if len(keys) != 1:
        raise BadRequest("an input has exactly one of: " + ", ".join(CONSOLE_INPUTS))
    if "player" in data and not isinstance(data["player"], str):
        raise BadRequest("player: expected a name")
    return {**data, "by": "referee"}


def play_view(table_id: str) -> dict[str, Any]:
    """The view a play page renders (web/GAMES.md): what the viewer's seat may see."""
    hub = get_hub()
    shown = hub.public_view(table_id)
    you = claimed_seat(table_id)
    if you not in seat_names(shown):
        you = None
    elif you is not None:
        shown = hub.public_view(table_id, you)
    state = shown.get("state") or {}
    your_turn = bool(you) and state.get("to_move") == you and shown.get("status", state.get("status")) == "playing"
    return {
        "table": table_id,
        "game": shown.get("game"),
        "options": shown.get("options", {}),
        "state": state,
        "players": shown.get("seats", []),
        "you": you,
        "your_turn": your_turn,
        "legal_actions": hub.legal_actions(table_id, you) if your_turn and you else [],
        "last_event_id": shown.get("change_id"),
        "lang": current_language(),
        "hint": hint_words(shown.get("game"), shown.get("hint")) if your_turn else None,
        "bot_thinking": shown.get("bot_thinking", False),
        "view": shown,
    }


@bp.get("/")
def index() -> Any:
    return jsonify({
        "docs": "docs/api.md",
        "endpoints": {
            "games": url_for("api.games"), "state": url_for("api.state"), "tables": url_for("api.tables"),
            "boards": url_for("api.boards"), "stream": url_for("api.stream"),
        },
    })


@bp.get("/games")
def games() -> Any:
    return jsonify(get_hub().games())


@bp.get("/state")
def state() -> Any:
    feed = get_feed()
    data = feed.snapshot_data()
    data["last_event_id"] = feed.last_id
    return jsonify(data)


@bp.get("/tables")
def tables() -> Any:
    return jsonify(get_hub().list_tables())


@bp.post("/tables")
@login_required
def create_table() -> Any:
    view = get_hub().create(TableSpec.from_json(json_body()))
    return jsonify(get_hub().public_view(str(view["id"]))), 201


@bp.get("/tables/<table_id>")
def table(table_id: str) -> Any:
    return jsonify(get_hub().public_view(table_id))


@bp.get("/tables/<table_id>/record")
@login_required
def record(table_id: str) -> Any:
    return jsonify(get_hub().export(table_id))


@bp.post("/tables/<table_id>/input")
@login_required
def console_submit(table_id: str) -> Any:
    data = json_body()
    version = data.pop("version", None) if isinstance(data, dict) else None
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise BadRequest("version: expected the integer version of the view answered")
    return jsonify(get_hub().submit(table_id, console_input(data), public=True, version=version))


@bp.get("/tables/<table_id>/play")
def play_get(table_id: str) -> Any:
    return jsonify(play_view(table_id))


def acting_player(table_id: str, data: dict[str, Any]) -> str:
    you = claimed_seat(table_id)
    if you is None and is_logged_in() and isinstance(data.get("player"), str):
        return str(data["player"])  # the referee plays for a seat
    if you is None:
        raise Forbidden("no seat at this table: open your seat link first")
    return you


@bp.post("/tables/<table_id>/play")
def play_post(table_id: str) -> Any:
    data = json_body()
    if "action" not in data:
        raise BadRequest("missing field 'action'")
    player = acting_player(table_id, data)
    get_hub().submit(table_id, {"move": data["action"], "player": player, "by": player})
    return jsonify({"ok": True, "view": play_view(table_id)})


@bp.post("/tables/<table_id>/landed")
def landed(table_id: str) -> Any:
    """The thrower says where their own palet came to rest: on a board or on the floor
    (a palet in a hole is the sensors' to report). The referee keeps the last word: an
    undo or an amendment from the console corrects it like any input."""
    data = json_body()
    where = data.get("where")
    if not isinstance(where, str) or not (where == "floor" or where.startswith("board:")):
        raise BadRequest("where: 'floor' or 'board:<board id>'")
    player = acting_player(table_id, data)
    get_hub().submit(table_id, {"landed": where, "player": player, "by": player})
    return jsonify({"ok": True, "view": play_view(table_id)})


@bp.post("/tables/<table_id>/hint")
def hint(table_id: str) -> Any:
    data = request.get_json(silent=True) or {}
    player = acting_player(table_id, data if isinstance(data, dict) else {})
    view = get_hub().submit(table_id, {"hint": True, "player": player, "by": player})
    return jsonify(hint_words(view.get("game"), view.get("hint")) or {})


@bp.get("/boards")
def boards() -> Any:
    return jsonify(get_hub().boards())


@bp.get("/stream")
def stream() -> Any:
    """Server-sent events: ``snapshot`` (everything), ``table`` (one table's new view),
    ``tables`` (the list changed), ``boards`` (board health, with ``?boards=1``, at most
    once a second), ``table_removed``. Reconnecting with ``Last-Event-ID`` resumes after
    that event."""
    feed = get_feed()
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    if raw and not is_event_id(raw):
        raise BadRequest("bad Last-Event-ID: expected the id of an event sent")
    last_id = int(raw) if raw else None
    only = request.args.get("table") or None
    boards = request.args.get("boards") == "1"
    slots = current_app.extensions["stream_slots"]
    if not slots.acquire():
        raise ServiceUnavailable("too many live connections")
    heartbeat = float(current_app.config["STREAM_HEARTBEAT_S"])

    # Not direct_passthrough: werkzeug then skips the close callbacks that free the slot.
    response = Response(feed.stream(last_id, heartbeat, only, boards), mimetype="text/event-stream")
    # Runs when the server closes the response, even if it never started iterating.
    response.call_on_close(slots.release)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response
