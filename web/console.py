"""The referee console (login required): per table, the hub's prompts and every
correction the referee can make. Plain forms (each with its CSRF token) that work
without JavaScript; web/static/js/console.js refreshes the panel when the table changes."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for
from werkzeug.exceptions import BadRequest

from hub.errors import UnknownTableError
from web import get_hub
from web.flashing import flash_key, flash_refusal
from web.i18n import gettext
from web.security import login_required, seat_token
from web.views import human_seats

bp = Blueprint("console", __name__, url_prefix="/console")


@bp.before_request
@login_required
def require_login() -> None:
    return None


def hole_label_parts(hole: str) -> tuple[str, dict[str, Any]]:
    """The catalogue key and parameters naming a hole or a landing place.

    >>> hole_label_parts("B1.big")
    ('where.big', {'board': 'B1'})
    >>> hole_label_parts("board:B2")
    ('where.board', {'board': 'B2'})
    >>> hole_label_parts("jackpot.2")
    ('where.jackpot_n', {'n': '2'})
    """
    if hole == "floor":
        return "where.floor", {}
    if hole.startswith("board:"):
        return "where.board", {"board": hole[len("board:"):]}
    if hole == "jackpot":
        return "where.jackpot", {}
    if hole.startswith("jackpot."):
        return "where.jackpot_n", {"n": hole.split(".", 1)[1]}
    board, _, kind = hole.rpartition(".")
    if kind in ("big", "small") and board:
        return f"where.{kind}", {"board": board}
    return "where.board", {"board": hole}


CHOICE_KEYS = {"valid": "console.choice.valid", "invalid": "console.choice.invalid", "start": "console.choice.start"}


@bp.app_template_global()
def where_label(choice: Any) -> str:
    """A prompt choice or a landing place in the page's language."""
    if isinstance(choice, str):
        if choice in CHOICE_KEYS:
            return gettext(CHOICE_KEYS[choice])
        key, params = hole_label_parts(choice)
        return gettext(key, **params)
    return json.dumps(choice, ensure_ascii=False)


@bp.app_template_global()
def prompt_text(prompt: dict[str, Any], view: dict[str, Any]) -> str:
    """The hub's question in the page's language (the hub's own words for new kinds)."""
    kind, name = prompt.get("kind"), prompt.get("player") or ""
    state = view.get("state") or {}
    if kind == "landed":
        return gettext("console.landed", name=name)
    if kind == "valid":
        drops = (view.get("throw") or {}).get("drops") or [{}]
        return gettext("console.valid", name=name, hole=where_label(str(drops[0].get("hole", "?"))))
    if kind == "target":
        return gettext("console.target")
    if kind == "next_round":
        return gettext("console.next_round_q", n=state.get("round", ""))
    if kind == "fix":
        return gettext("console.fix", name=name)
    return str(prompt.get("question", ""))


def panel_context(table_id: str) -> dict[str, Any]:
    view = get_hub().table_view(table_id)
    state = view.get("state") or {}
    places = [f"board:{b}" for b in (state.get("boards") or {})] + ["floor"] + list(state.get("holes") or {})
    seats = [
        {**seat, "link": url_for("play.claim", table_id=table_id, seat=seat_token(table_id, str(seat.get("name"))), _external=True)
         if seat.get("name") in human_seats(view) else None}
        for seat in view.get("seats", [])
    ]
    return {
        "table_id": table_id, "view": view, "state": state, "places": places, "seats": seats,
        "holes": list(state.get("holes") or {}), "boards": list(state.get("boards") or {}),
        "is_trigono": view.get("game") == "trigono",
        "events": list(reversed(view.get("events") or []))[:15],
        "settings": {"mode": "console", "table": table_id},
    }


@bp.get("/")
def index() -> Any:
    return render_template("console/index.html", tables=get_hub().list_tables())


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
        return json.loads(raw)
    except json.JSONDecodeError as err:
        raise BadRequest(f"{name}: not JSON ({err.msg})") from err


def form_int(name: str) -> int:
    raw = request.form.get(name, "").strip()
    if not raw.lstrip("-").isdigit():
        raise BadRequest(f"{name}: expected a whole number")
    return int(raw)


def form_text(name: str) -> str:
    raw = request.form.get(name, "").strip()
    if not raw:
        raise BadRequest(f"missing field {name!r}")
    return raw


def input_from_form(kind: str) -> dict[str, Any]:
    """The hub input a console form stands for (hub/service.py lists them)."""
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
    if kind == "move":
        # Trike's moves are bare cell names: accept "c2" as well as the JSON "\"c2\"".
        text = form_text("action")
        try:
            return {"move": json.loads(text)}
        except json.JSONDecodeError:
            return {"move": text}
    raise BadRequest(f"unknown console input {kind!r}")


@bp.post("/<table_id>/input")
def submit(table_id: str) -> Any:
    inp = input_from_form(request.form.get("input", ""))
    player = request.form.get("player")
    if player:
        inp["player"] = player
    inp["by"] = "referee"
    hub = get_hub()
    try:
        hub.submit(table_id, inp)
    except ValueError as err:
        if isinstance(err, UnknownTableError):
            abort(404)
        flash_refusal(str(err))
        return redirect(url_for("console.table", table_id=table_id), code=303)
    flash_key("console.done")
    return redirect(url_for("console.table", table_id=table_id), code=303)
