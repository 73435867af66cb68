"""The fleet page (issue 33, login required): every board one row, sorted by trouble,
with filters, the actions on a board and the staged firmware rollout — and the same as
JSON under ``/api/fleet`` (docs/api.md).

An action on a board a live match uses is refused (409, ``board_live``) unless the
form or the body says ``force``: the page then offers the forced button."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, redirect, render_template, request, url_for
from werkzeug.exceptions import BadRequest

from hub.api import HubError
from web.context import get_hub
from web.describe import refusal_text
from web.flashing import flash_key, flash_refusal
from web.security import login_required

bp = Blueprint("fleet", __name__)

ACTIONS = ("identify", "selftest", "rearm", "reboot")
# How often the open page reloads itself (web/static/js/fleet.js): boards come and go
# online, reboot, fall behind; during a rollout its progress moves every few seconds.
REFRESH_S = 15
ROLLOUT_REFRESH_S = 4
FILTERS = ("all", "trouble", "outdated", "offline", "live")


def chosen_filter() -> str:
    which = request.args.get("filter", "all")
    if which not in FILTERS:
        raise BadRequest(f"filter: expected one of {', '.join(FILTERS)}")
    return which


@bp.get("/admin/fleet")
@login_required
def page() -> Any:
    view = get_hub().fleet_view(chosen_filter())
    running = (view.get("rollout") or {}).get("state") == "running"
    refresh_s = ROLLOUT_REFRESH_S if running else current_app.config.get("FLEET_REFRESH_S", REFRESH_S)
    return render_template("admin/fleet.html", fleet=view, filters=FILTERS, actions=ACTIONS,
                           forced=request.args.get("force", ""), refresh_s=refresh_s)


@bp.post("/admin/fleet/<board>/<action>")
@login_required
def act(board: str, action: str) -> Any:
    if action not in ACTIONS:
        raise BadRequest(f"action: expected one of {', '.join(ACTIONS)}")
    force = request.form.get("force") == "1"
    back = url_for("fleet.page", filter=request.form.get("filter", "all"))
    try:
        get_hub().board_action(board, action, force=force)
    except HubError as err:
        flash_refusal(refusal_text(err))
        if err.kind == "board_live":  # the page offers the forced action on that board
            return redirect(url_for("fleet.page", filter=request.form.get("filter", "all"), force=board)
                            + f"#board-{board}", code=303)
        return redirect(back, code=303)
    flash_key(f"fleet.done.{action}", board=board)
    return redirect(back + f"#board-{board}", code=303)


@bp.post("/admin/fleet/<board>/assign")
@login_required
def assign(board: str) -> Any:
    table, position = request.form.get("table", "").strip(), request.form.get("position", "").strip()
    if not table or not position:
        raise BadRequest("table and position are required")
    force = request.form.get("force") == "1"
    try:
        get_hub().assign_board(board, table, position, force=force)
    except HubError as err:
        flash_refusal(refusal_text(err))
        if err.kind == "table_live":
            return redirect(url_for("fleet.page", force=board) + f"#board-{board}", code=303)
        return redirect(url_for("fleet.page"), code=303)
    flash_key("fleet.done.assign", board=board)
    return redirect(url_for("fleet.page") + f"#board-{board}", code=303)


def rollout_body(data: dict[str, Any]) -> dict[str, Any]:
    """A rollout request from the form or the JSON body: the bundle (a path on the hub's
    machine, as ``trigono boards bundle`` wrote it), its version, the wave size, the
    canary and the boards (default: every board not on that version)."""
    version = str(data.get("version", "")).strip()
    bundle = str(data.get("bundle", "")).strip()
    if not version or not bundle:
        raise BadRequest("version and bundle are required")
    wave_text = str(data.get("wave", "5")).strip() or "5"
    if not (wave_text.isascii() and wave_text.isdigit() and len(wave_text) <= 2):
        raise BadRequest("wave: expected a whole number from 1 to 60")
    boards = data.get("boards")
    if isinstance(boards, str):
        boards = [b for b in boards.replace(",", " ").split() if b] or None
    if boards is not None and not (isinstance(boards, list) and all(isinstance(b, str) for b in boards)):
        raise BadRequest("boards: expected a list of board ids")
    canary = str(data.get("canary", "") or "").strip() or None
    return {"version": version, "bundle": {"path": bundle, "version": version}, "boards": boards,
            "canary": canary, "wave": int(wave_text)}


@bp.post("/admin/fleet/rollout")
@login_required
def rollout_form() -> Any:
    try:
        get_hub().start_rollout(**rollout_body(dict(request.form)))
    except HubError as err:
        flash_refusal(refusal_text(err))
        return redirect(url_for("fleet.page"), code=303)
    flash_key("fleet.rollout.started")
    return redirect(url_for("fleet.page") + "#rollout", code=303)


@bp.post("/admin/fleet/rollout/cancel")
@login_required
def rollout_cancel_form() -> Any:
    get_hub().cancel_rollout()
    return redirect(url_for("fleet.page") + "#rollout", code=303)


# -- JSON ---------------------------------------------------------------------------------
@bp.get("/api/fleet")
@login_required
def api_fleet() -> Any:
    return jsonify(get_hub().fleet_view(chosen_filter()))


@bp.post("/api/fleet/boards/<board>/action")
@login_required
def api_act(board: str) -> Any:
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or data.get("action") not in ACTIONS:
        raise BadRequest(f"the body is {{\"action\": one of {', '.join(ACTIONS)}, \"force\": bool}}")
    return jsonify(get_hub().board_action(board, data["action"], force=data.get("force") is True))


@bp.post("/api/fleet/boards/<board>/assign")
@login_required
def api_assign(board: str) -> Any:
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or not isinstance(data.get("table"), str) or not isinstance(data.get("position"), str):
        raise BadRequest('the body is {"table": id, "position": engine board, "force": bool}')
    return jsonify(get_hub().assign_board(board, data["table"], data["position"], force=data.get("force") is True))


@bp.post("/api/fleet/target")
@login_required
def api_target() -> Any:
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or not all(isinstance(data.get(k), (str, type(None))) for k in ("fw", "config")):
        raise BadRequest('the body is {"fw": version or null, "config": hash or null}')
    get_hub().fleet_target(data.get("fw"), data.get("config"))
    return jsonify(get_hub().fleet_view("all")["target"])


@bp.get("/api/fleet/rollout")
@login_required
def api_rollout() -> Any:
    return jsonify(get_hub().fleet_view("all")["rollout"])


@bp.post("/api/fleet/rollout")
@login_required
def api_rollout_start() -> Any:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object")
    return jsonify(get_hub().start_rollout(**rollout_body(data))), 201


@bp.post("/api/fleet/rollout/cancel")
@login_required
def api_rollout_cancel() -> Any:
    get_hub().cancel_rollout()
    return jsonify(get_hub().fleet_view("all")["rollout"])
