"""The referee console (login required): per table, the hub's prompts and every
correction the referee can make. Plain forms (each with its CSRF token) that work
without JavaScript; web/static/js/console.js refreshes the panel when the table changes."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from werkzeug.exceptions import BadRequest

from hub.api import HubError, StaleViewError, UnknownTableError, jsonlimits
from web.context import get_hub
from web.describe import known, refusal_text
from web.flashing import flash_key, flash_refusal
from web.i18n import gettext
from web.readiness import readiness, table_boards
from web.security import login_required, seat_token
from web.share import phone_url
from web.sync import sync_view
from web.view_readers import human_seats, live_first

bp = Blueprint("console", __name__, url_prefix="/console")


@bp.before_request
@login_required
def require_login() -> None:
    return None


@bp.app_template_global()
def can_void(event: dict[str, Any]) -> bool:
    """Whether Void applies to a table event: the hub marks the sensor drops (knock-ins,
    blocked beams) a void would take out (``voidable``) — never a hello or a console line."""
    return bool(event.get("voidable"))


@bp.app_template_global()
def starter_text(view: dict[str, Any]) -> str | None:
    """Who starts the round and why, as the hub says it (a Trigono view's ``starter``):
    "Elodie starts round 1: drawn by lot"; None for a view without one."""
    starter = view.get("starter")
    if not isinstance(starter, dict) or not known(f"starter.{starter.get('why')}"):
        return None
    round_n = starter.get("round")
    previous = round_n - 1 if isinstance(round_n, int) else ""
    return gettext(f"starter.{starter['why']}", name=starter.get("player") or "", round=round_n, prev=previous)


def amendable_throws(state: dict[str, Any], keep: int = 12) -> list[dict[str, Any]]:
    """The last throws of the game record, newest first, for the "correct a throw" form:
    ``[{"index": K, "player", "to"}]`` (K is the action's place in the record).

    >>> amendable_throws({"log": [{"player": "Ana", "action": {"throw": {"player": "Ana", "to": "floor"}}}]})
    [{'index': 0, 'player': 'Ana', 'to': 'floor'}]
    """
    out = []
    for index, item in enumerate(state.get("log") or []):
        action = item.get("action") if isinstance(item, dict) else None
        throw = action.get("throw") if isinstance(action, dict) else None  # other games' actions: "c2", 2…
        if isinstance(throw, dict):
            out.append({"index": index, "player": throw.get("player"), "to": throw.get("to")})
    return list(reversed(out))[:keep]


def in_play_order(seats: list[dict[str, Any]], order: Any) -> list[dict[str, Any]]:
    """The seats in the order the hub says they throw this round (a Trigono view's
    ``starter.play_order``: from the round's first thrower), else as they are.

    >>> [s["name"] for s in in_play_order([{"name": "Ana"}, {"name": "Ben"}, {"name": "Eli"}], ["Eli", "Ana", "Ben"])]
    ['Eli', 'Ana', 'Ben']
    """
    if not isinstance(order, list) or sorted(map(str, order)) != sorted(str(s.get("name")) for s in seats):
        return seats
    return sorted(seats, key=lambda seat: order.index(seat.get("name")))


def panel_context(table_id: str) -> dict[str, Any]:
    view = get_hub().table_view(table_id)
    state = view.get("state") or {}
    places = list(view.get("places") or {})  # the hub's: boards, floor, holes (hub/tables/moments.py)
    seats = [
        {**seat, "link": phone_url(url_for("play.claim", table_id=table_id, seat=seat_token(table_id, str(seat.get("name")))))
         if seat.get("name") in human_seats(view) else None}
        for seat in in_play_order(view.get("seats", []), (view.get("starter") or {}).get("play_order"))
    ]
    return {
        "table_id": table_id, "view": view, "state": state, "places": places, "seats": seats,
        "holes": list(state.get("holes") or {}), "boards": list(state.get("boards") or {}),
        "caps": view["capabilities"],  # what the game is (engines GameType): never its name
        "finished": bool(state.get("winner") or view.get("abandoned")) or state.get("status", "playing") != "playing",
        "throws": amendable_throws(state),
        "events": list(reversed(view.get("events") or []))[:15],
        "settings": {"mode": "console", "table": table_id},
        **boards_readiness(view),
    }


def boards_readiness(view: dict[str, Any]) -> dict[str, Any]:
    """The table's boards as they are (never seen, offline, faulty, online) and the table's
    readiness (web/readiness.py): never "armed" on boards that are not there."""
    hub = get_hub()
    if not view.get("layout"):
        return {"table_boards": [], "readiness": "no_boards", "now": hub.now()}
    boards = table_boards(view, hub.boards())
    return {"table_boards": boards, "readiness": readiness(view, boards), "now": hub.now()}


@bp.get("/")
def index() -> Any:
    hub = get_hub()
    return render_template("console/index.html", tables=live_first(hub.list_tables()),
                           assist=hub.assist.open_requests(), sync=sync_view(hub.sync_status(), hub.now()))


@bp.get("/<table_id>")
def table(table_id: str) -> Any:
    return render_template("console/table.html", **panel_context(table_id))


@bp.get("/<table_id>/panel")
def panel(table_id: str) -> Any:
    return render_template("console/panel.html", **panel_context(table_id))


def form_json(name: str) -> Any:
    raw = request.form.get(name)
    if raw is None:
        raise BadRequest(f"missing field {name!r}")
    try:
        return jsonlimits.loads(raw)
    except json.JSONDecodeError as err:
        raise BadRequest(f"{name}: not JSON ({err.msg})") from err
    except jsonlimits.JSONLimitError as err:
        raise BadRequest(f"{name}: {err}") from err


def form_int(name: str) -> int:
    raw = request.form.get(name, "").strip()
    digits = raw.removeprefix("-")
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 20):
        raise BadRequest(f"{name}: expected a whole number")
    return int(raw)


def form_text(name: str) -> str:
    raw = request.form.get(name, "").strip()
    if not raw:
        raise BadRequest(f"missing field {name!r}")
    return raw


def input_from_form(kind: str) -> dict[str, Any]:
    """The hub input a console form stands for (hub/facade.py lists them)."""
    if kind == "answer":
        return {"answer": {"prompt": form_text("prompt"), "choice": form_json("choice")}}
    if kind == "landed":
        return {"landed": form_text("where")}
    if kind == "invalid":
        return {"invalid": True}
    if kind == "undo":
        return {"undo": True}
    if kind == "void":
        return {"void": form_int("entry")}
    if kind == "recount":
        return {"recount": {"board": form_text("board"), "count": form_int("count")}}
    if kind == "target":
        return {"target": form_text("hole")}
    if kind == "next_round":
        return {"next_round": True}
    if kind == "abandon":
        return {"abandon": True}
    if kind == "amend":
        # Trigono's "correct a throw": same thrower (filled in by submit), new landing place.
        return {"amend": {"index": form_int("index"), "action": {"throw": {"to": form_text("to")}}}}
    if kind == "move":
        # Trike's moves are bare cell names: accept "c2" as well as the JSON "\"c2\"".
        text = form_text("action")
        try:
            return {"move": jsonlimits.loads(text)}
        except json.JSONDecodeError:
            return {"move": text}
        except jsonlimits.JSONLimitError as err:
            raise BadRequest(f"action: {err}") from err
    raise BadRequest(f"unknown console input {kind!r}")


def form_version() -> int | None:
    """The ``version`` of the view the form was drawn from (None: a form without one,
    e.g. a script posting by hand, is applied to the table as it is)."""
    if not request.form.get("version", "").strip():
        return None
    return form_int("version")


def thrower(table_id: str, index: int) -> str:
    for throw in amendable_throws(get_hub().table_view(table_id).get("state") or {}, keep=10**6):
        if throw["index"] == index:
            return str(throw["player"])
    raise BadRequest(f"index: action {index} is not a throw")


@bp.post("/<table_id>/input")
def submit(table_id: str) -> Any:
    inp = input_from_form(request.form.get("input", ""))
    player = request.form.get("player")
    if player:
        inp["player"] = player
    inp["by"] = "referee"
    if "amend" in inp:
        inp["amend"]["action"]["throw"]["player"] = thrower(table_id, inp["amend"]["index"])
    try:
        get_hub().submit(table_id, inp, version=form_version())
    except UnknownTableError:
        raise
    except StaleViewError as err:
        # Another referee answered first: 409, and the console as the table is now (its
        # question, not the one answered), with the reason on top.
        flash_refusal(refusal_text(err))
        return table(table_id), 409
    except HubError as err:
        flash_refusal(refusal_text(err))
        return redirect(url_for("console.table", table_id=table_id), code=303)
    flash_key("console.done")
    return redirect(url_for("console.table", table_id=table_id), code=303)
