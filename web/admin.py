"""Admin (login required): create tables of any registered game, place Trigono boards
on the triangular grid and bind them to physical boards, watch board health."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from werkzeug.exceptions import BadRequest

from hub.api import HubError, TableSpec, jsonlimits
from web.context import get_hub
from web.describe import refusal_text
from web.flashing import flash_key, flash_refusal
from web.readiness import board_choices, board_state, busy_tables
from web.security import login_required, text_refusals
from web.sync import sync_view

bp = Blueprint("admin", __name__, url_prefix="/admin")

BOT_PREFIX = "bot:"


@bp.before_request
@login_required
def require_login() -> None:
    return None


def parse_seats(text: str) -> list[dict[str, Any]] | None:
    """Seat order from the form: one name a line, ``bot:`` marks a computer player.

    >>> parse_seats("Ana\\n bot: Robo \\n\\nBen")
    [{'name': 'Ana', 'bot': False}, {'name': 'Robo', 'bot': True}, {'name': 'Ben', 'bot': False}]
    >>> parse_seats("  ") is None
    True
    """
    seats = []
    for line in text.splitlines():
        name = line.strip()
        if not name:
            continue
        bot = name.lower().startswith(BOT_PREFIX)
        if bot:
            name = name[len(BOT_PREFIX):].strip()
        if not name:
            raise BadRequest("players: a bot needs a name")
        seats.append({"name": name, "bot": bot})
    return seats or None


def parse_layout(text: str) -> Any:
    """The grid editor's ``[{"id", "cell", "device"}]``, read as JSON (the hub places the
    boards: ``TableSpec``'s ``layout``).

    >>> parse_layout('[{"id": "B1", "cell": [0, 0, "up"], "device": "pico-7"}]')[0]["device"]
    'pico-7'
    """
    try:
        return jsonlimits.loads(text)
    except json.JSONDecodeError as err:
        raise BadRequest(f"layout: not JSON ({err.msg})") from err
    except jsonlimits.JSONLimitError as err:
        raise BadRequest(f"layout: {err}") from err


def create_from_form() -> TableSpec:
    """The admin form as a :class:`hub.tables.spec.TableSpec` (the same checks as the API's):
    a malformed field is a 400 here, a refused spec a :class:`HubError`."""
    form = request.form
    game = form.get("game", "")
    if not game:
        raise BadRequest("missing field 'game'")
    options: dict[str, Any] = {}
    if form.get("options", "").strip():
        try:
            options = jsonlimits.loads(form["options"])
        except json.JSONDecodeError as err:
            raise BadRequest(f"options: not JSON ({err.msg})") from err
        except jsonlimits.JSONLimitError as err:
            raise BadRequest(f"options: {err}") from err
        if not isinstance(options, dict):
            raise BadRequest("options: expected a JSON object")
    seed_text = form.get("seed", "").strip()
    if seed_text and not (seed_text.isascii() and seed_text.isdigit() and len(seed_text) <= 20):
        raise BadRequest("seed: expected a whole number")
    layout = None
    on_boards = get_hub().game_types().get(game, {}).get("sensor_boards", False)
    if on_boards and form.get("layout", "").strip() not in ("", "[]"):
        layout = parse_layout(form["layout"])
    seats = parse_seats(form.get("players", ""))
    return TableSpec.build(game, options=options or None, seats=seats, layout=layout,
                           seed=int(seed_text) if seed_text else None,
                           table_id=form.get("table_id", "").strip() or None)


@bp.get("/")
def index() -> Any:
    return render_template("admin/index.html", **page_context())


def page_context(**extra: Any) -> dict[str, Any]:
    hub = get_hub()
    tables = hub.list_tables()
    boards = boards_context()
    choices = board_choices(boards["boards"], boards["unregistered"], busy_tables(tables))
    return {"games": hub.games(), "game_types": hub.game_types(), "tables": tables, **boards, "store_alert": hub.store_alert(),
            "sync": sync_view(hub.sync_status(), boards["now"]),
            "settings": {"mode": "admin", "board_choices": choices, "now": boards["now"],
                         "editor": hub.layout_editor()}, **extra}


def boards_context() -> dict[str, Any]:
    """Board health of the boards in use (bound to a table in play), the other boards as
    free (those of finished tables too: not "lost"), the device links' state and the
    boards no table binds."""
    hub = get_hub()
    health = hub.boards()
    busy = busy_tables(hub.list_tables())
    in_use = [b for b in health if b.get("table") in busy]
    free = [{**b, "state": board_state(b)} for b in health if b.get("table") not in busy]
    return {"boards": health, "in_use": in_use, "free": free, "links": hub.links(),
            "unregistered": hub.unregistered(), "text_refused": text_refusals().total, "now": hub.now()}


@bp.get("/boards")
def boards_panel() -> Any:
    return render_template("admin/boards.html", **boards_context())


@bp.post("/boards/<board>/ignore")
def ignore_board(board: str) -> Any:
    get_hub().ignore_board(board)
    flash_key("admin.ignored", board=board)
    return redirect(url_for("admin.index"), code=303)


@bp.post("/sync/settle")
def settle_person() -> Any:
    """The federation: keep one club's version of a person two clubs disagree on (issue 35)."""
    licence, club = request.form.get("licence", ""), request.form.get("club", "")
    try:
        get_hub().settle_person(licence, club, by="admin")
    except HubError as err:
        flash_refusal(refusal_text(err))
        return redirect(url_for("admin.index"), code=303)
    flash_key("sync.settled", licence=licence, club=club)
    return redirect(url_for("admin.index"), code=303)


@bp.post("/tables")
def create_table() -> Any:
    try:
        view = get_hub().create(create_from_form())
    except HubError as err:
        flash_refusal(refusal_text(err))
        return render_template("admin/index.html", **page_context(form=request.form)), 400
    flash_key("admin.created", id=view["id"])
    return redirect(url_for("console.table", table_id=view["id"]), code=303)


@bp.post("/tables/archive")
def archive_many() -> Any:
    """Archive every table ticked (``table``, repeated): a finished evening put away at once."""
    ids = [t for t in request.form.getlist("table") if t]
    if not ids:
        raise BadRequest("table: tick at least one table")
    done = 0
    for table_id in dict.fromkeys(ids):
        try:
            get_hub().submit(table_id, {"archive": True, "by": "referee"})
            done += 1
        except HubError as err:
            flash_refusal(f"{table_id}: {refusal_text(err)}")
    flash_key("admin.bulk_archived", n=done)
    return redirect(url_for("admin.index") + "#admin-tables", code=303)


@bp.post("/tables/<table_id>/archive")
def archive(table_id: str) -> Any:
    """Put a table away from the dashboard's lists (``archived=0`` brings it back)."""
    archived = request.form.get("archived", "1") != "0"
    get_hub().submit(table_id, {"archive": archived, "by": "referee"})
    flash_key("admin.archived_done" if archived else "admin.unarchived_done", id=table_id)
    return redirect(url_for("admin.index") + "#admin-tables", code=303)
