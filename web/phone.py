"""Phones that call players, and calls for a referee (issue 34.5).

Every tournament entry has a personal link, ``/me/<tournament>/<token>``: TOKEN is an
HMAC of the tournament and the player under the app's secret key (as seat links,
:func:`web.security.seat_token`), unguessable without it and the same after a restart
(``python -m web`` keeps its key). Its QR code is on the registration receipt and on
the match sheets. The page, open on the player's phone, shows their next match, its
table (the station) and opponents; it follows the live stream and *calls* the player —
sound (WebAudio), vibration, a browser notification where allowed — as soon as their
match is called to a free station, which the tournament director does by itself when a
table's game ends, sensors included (web/static/js/phone.js). Check-in and "call the
referee" are forms on that page (no login: the link is the key).

Calls for a referee (:mod:`hub.tables.assist`): from a player's page or a table's public page;
they show on the referee console and the big screen until a logged-in referee takes one.

Statistics (issue 34.4): ``/tournaments/<id>/players/<pid>/stats.json`` and ``.csv`` for
one entry, ``/api/stats?entry=T1:p1&entry=T2:p4`` (``&format=csv``) for a list of entries
(a person's): public, like the standings, no account.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
from collections.abc import Mapping
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)

from hub.api import HubError, UnknownTournamentError
from web.context import get_hub
from web.describe import refusal_text
from web.flashing import flash_key, flash_refusal
from web.security import json_error, login_required
from web.share import phone_url, qr_data_uri, reachable_by_phones

bp = Blueprint("phone", __name__)

JSONDict = dict[str, Any]
MAX_STATS_ENTRIES = 200  # entries one statistics request may name


def entry_token(tid: str, pid: str) -> str:
    """The secret of one tournament entry (module doc)."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, f"entry\x00{tid}\x00{pid}".encode(), hashlib.sha256).hexdigest()[:20]


def entry_link(tid: str, pid: str) -> str:
    """The personal link of an entry, at an address phones reach."""
    return phone_url(url_for("phone.me", tid=tid, token=entry_token(tid, pid)))


def entry_qr(tid: str, pid: str) -> str | None:
    """The QR code of the personal link, when phones can reach it."""
    return qr_data_uri(entry_link(tid, pid)) if reachable_by_phones() else None


def _entry(tid: str, token: str) -> tuple[JSONDict, JSONDict]:
    """(the tournament's view, the player) a token opens; 404 for any other token."""
    try:
        view = get_hub().tournaments.view(tid)
    except UnknownTournamentError:
        abort(404)
    for p in view["players"]:
        if hmac.compare_digest(entry_token(tid, p["id"]), token):
            return view, p
    abort(404)


def status(view: Mapping[str, Any], player: Mapping[str, Any]) -> JSONDict:
    """What the player's phone shows: their match in play (``call``: the match called,
    its station — the table they walk to — and opponents), else the next one in the queue;
    the open call for a referee at their table."""
    pid = player["id"]
    mine = [m for m in view["matches"] if pid in m["players"] and pid not in m["forfeits"] and not m["bye"]]
    now = next((m for m in mine if m["status"] == "called"), None)
    upcoming = next((m for m in mine if m["status"] == "ready"), None)

    def described(m: Mapping[str, Any] | None) -> JSONDict | None:
        if m is None:
            return None
        called_at = max((c["at"] for c in view["calls"] if c["match"] == m["id"] and c["station"] == m["station"]),
                        default=None)
        return {"match": m["id"], "number": m["number"], "status": m["status"], "station": m["station"],
                "table": m["table"], "round_name": m.get("round_name"), "called_at": called_at,
                "opponents": [n for p, n in zip(m["players"], m["names"], strict=True) if p != pid]}

    done = [m for m in mine if m["status"] == "done"]
    final = next((r for r in view["ranking"] if r["player"] == pid), None) if view["status"] == "finished" else None
    at_table = (now or {}).get("table") or (now or {}).get("station")
    assist = next((r for r in get_hub().assist.open_requests() if at_table and r["table"] == at_table), None)
    return {"tournament": {"id": view["id"], "name": view["spec"]["name"], "status": view["status"],
                           "check_in": view["spec"]["check_in"]},
            "player": {"id": pid, "name": player["name"], "status": player["status"]},
            "call": described(now), "next": described(upcoming), "played": len(done),
            "final_place": final["place"] if final else None, "assist": assist, "entries": view["entries"]}


# -- the player's phone ------------------------------------------------------------------------
@bp.get("/me/<tid>/<token>")
def me(tid: str, token: str) -> Any:
    view, player = _entry(tid, token)
    info = status(view, player)
    response = current_app.make_response(render_template(
        "phone/me.html", t=view, p=player, info=info, body_class="phone-page", theme="light",
        api=url_for("phone.me_json", tid=tid, token=token)))
    # The link is the key: never in a shared cache, never sent on as a referrer.
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@bp.get("/api/me/<tid>/<token>")
def me_json(tid: str, token: str) -> Any:
    view, player = _entry(tid, token)
    response = jsonify(status(view, player))
    response.headers["Cache-Control"] = "private, no-store"
    return response


@bp.post("/me/<tid>/<token>/check-in")
def me_check_in(tid: str, token: str) -> Any:
    _view, player = _entry(tid, token)
    try:
        get_hub().tournaments.submit(tid, {"type": "check_in", "player": player["id"]}, by=f"phone:{player['id']}")
        flash_key("phone.checked_in")
    except HubError as err:
        flash_refusal(refusal_text(err))
    return redirect(url_for("phone.me", tid=tid, token=token))


@bp.post("/me/<tid>/<token>/referee")
def me_referee(tid: str, token: str) -> Any:
    view, player = _entry(tid, token)
    call = status(view, player)["call"]
    if call is None:
        flash_key("phone.no_table", "error")
    else:
        _ask(call["table"] or call["station"], player["name"], tid, call["station"])
    return redirect(url_for("phone.me", tid=tid, token=token))


def _ask(table: str, who: str, tournament: str | None = None, place: str | None = None) -> bool:
    try:
        get_hub().assist.request(table, who, tournament=tournament, place=place)
    except HubError as err:
        flash_refusal(refusal_text(err))
        return False
    flash_key("assist.asked")
    return True


# -- a table's public page, the console ----------------------------------------------------------
@bp.post("/tables/<table_id>/referee")
def table_referee(table_id: str) -> Any:
    get_hub().table_view(table_id)  # 404 for an unknown table
    _ask(table_id, "table")
    return redirect(url_for("dashboard.table", table_id=table_id))


@bp.post("/assist/<path:table>/take")
@login_required
def take(table: str) -> Any:
    try:
        get_hub().assist.take(table, "referee")
        flash_key("assist.taken_ok")
    except HubError as err:
        flash_refusal(refusal_text(err))
    return redirect(url_for("console.index"))


@bp.get("/api/assist")
def api_assist() -> Any:
    return jsonify(get_hub().assist.open_requests())


# -- the registration receipt ------------------------------------------------------------------
@bp.get("/tournaments/<tid>/players/<pid>/receipt")
@login_required
def receipt(tid: str, pid: str) -> Any:
    view = get_hub().tournaments.view(tid)
    player = next((p for p in view["players"] if p["id"] == pid), None)
    if player is None:
        abort(404)
    return render_template("phone/receipt.html", t=view, p=player, link=entry_link(tid, pid),
                           qr=entry_qr(tid, pid), body_class="print-page")


# -- statistics ------------------------------------------------------------------------------------
def stats_csv(doc: Mapping[str, Any]) -> str:
    """One line per match of the statistics document, a column per counter (blank when
    the match's game has none); ``;`` and a BOM, which French Excel opens."""
    counters: list[str] = []
    for line in doc["matches"]:
        counters += [key for key in line["counts"] if key not in counters]
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\r\n")
    writer.writerow(["tournament", "match", "game", "player", "table", *counters])
    for line in doc["matches"]:
        writer.writerow([line["tournament"], line["number"], line["game"], line["player"], line["table"] or "",
                         *[line["counts"].get(c, "") for c in counters]])
    return "\ufeff" + out.getvalue()


def _stats_response(entries: list[tuple[str, str]], fmt: str, filename: str) -> Any:
    doc = get_hub().tournaments.stats(entries)
    if fmt == "csv":
        response = Response(stats_csv(doc).encode("utf-8"), mimetype="text/csv")
        response.headers["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
        return response
    return jsonify(doc)


@bp.get("/tournaments/<tid>/players/<pid>/stats.<fmt>")
def entry_stats(tid: str, pid: str, fmt: str) -> Any:
    if fmt not in ("json", "csv"):
        abort(404)
    try:
        return _stats_response([(tid, pid)], fmt, f"stats-{tid}-{pid}")
    except HubError:
        abort(404)


@bp.get("/api/stats")
def api_stats() -> Any:
    raw = request.args.getlist("entry")
    if not raw or len(raw) > MAX_STATS_ENTRIES or any(raw.count(":") != 1 for raw in raw):
        return json_error(400, "BadRequest", f"entry=TOURNAMENT:PLAYER, 1 to {MAX_STATS_ENTRIES} of them")
    entries = [(a, b) for a, b in (r.split(":") for r in raw)]
    try:
        return _stats_response(entries, request.args.get("format", "json"), "stats")
    except HubError as err:
        return json_error(404, type(err).__name__, str(err))


@bp.record_once
def _helpers(state: Any) -> None:
    """Template helpers: the personal link and its QR code of an entry (the match sheets),
    its statistics (the player's page)."""
    state.app.jinja_env.globals.update(entry_link=entry_link, entry_qr=entry_qr, entry_stats=entry_stats_view,
                                  person_stats=person_stats_view)


def entry_stats_view(tid: str, pid: str) -> JSONDict:
    """One entry's statistics for a page (the player's tournament page): per game, its
    shares then its counts; ``{}`` when the entry is unknown."""
    try:
        return dict(get_hub().tournaments.stats([(tid, pid)])["games"])
    except HubError:
        return {}


def person_stats_view(who: str) -> tuple[JSONDict, list[str]]:
    """A person's statistics over all their entries (the person page, issue 34.4), and
    those entries as ``TOURNAMENT:PLAYER`` for the export links (the newest
    :data:`MAX_STATS_ENTRIES`)."""
    try:
        entries = get_hub().tournaments.entries_of(who)[-MAX_STATS_ENTRIES:]
        games = dict(get_hub().tournaments.stats(entries)["games"]) if entries else {}
    except HubError:
        return {}, []
    return games, [f"{tid}:{pid}" for tid, pid in entries]
