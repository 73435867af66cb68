"""Persons and seasons (issue 34), on the hub's tournament service (``hub.tournaments``).

Public (read-only): the seasons, a season's page (its standings per division, re-ranked
from the whole log, who moved since the last change: "Inès ↑2, Hugo ↓1"; ``?mode=big``
for a 1080p screen), its CSV for a federation office (licence, name, club, points,
events counted: French Excel's ``;`` and UTF-8 with a byte-order mark, as the
tournaments' French exports), and a person's page (tournaments, ratings per game with
the provisional flag, a chart of form over time drawn here as inline SVG, last matches).

Organizer (login): persons (new, link an entry after a confirmed match, duplicates
proposed), a merge shown before it is made (ratings, season ranks) and confirmed, an
unmerge, seasons (new, tournaments added, closed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask import Blueprint, Response, abort, jsonify, redirect, render_template, request, url_for
from markupsafe import Markup, escape

from hub.api import HubError, UnknownMatchError
from web.context import get_hub
from web.describe import refusal_text
from web.flashing import flash_key, flash_refusal
from web.hub_protocol import TournamentsAPI
from web.i18n import current_language, translate
from web.security import is_logged_in, login_required
from web.tournament import _csv, number_in
from web.tournament import unknown as unknown_as_404

bp = Blueprint("people", __name__)
CHART_W, CHART_H = 640, 260
GAME_COLOURS = ("#2471a3", "#c0392b", "#1e8449", "#b9770e", "#7d3c98")


def service() -> TournamentsAPI:
    return get_hub().tournaments


def _page(template: str, **context: Any) -> str:
    return render_template(f"people/{template}", referee=is_logged_in(), **context)


def moves_text(moves: Sequence[Mapping[str, Any]]) -> str:
    """"Inès ↑2, Hugo ↓1".

    >>> moves_text([{"name": "Inès", "move": 2}, {"name": "Hugo", "move": -1}])
    'Inès ↑2, Hugo ↓1'
    """
    return ", ".join(f"{m['name']} {'↑' if m['move'] > 0 else '↓'}{abs(m['move'])}" for m in moves)


def form_chart(form: Mapping[str, Sequence[Sequence[Any]]], label: str) -> Markup:
    """A person's form over time as an inline SVG: one line per game, the rating
    (ordinal) after each rated match, match by match (dates bunch up in one tournament)."""
    series = {g: [float(p[1]) for p in pts] for g, pts in form.items() if pts}
    if not series:
        return Markup("")
    values = [v for pts in series.values() for v in pts]
    low, high = min(values), max(values)
    if high - low < 1.0:
        low, high = low - 0.5, high + 0.5
    longest = max(len(p) for p in series.values())
    pad_l, pad_r, pad_t, pad_b = 64, 14, 14, 34
    w, h = CHART_W - pad_l - pad_r, CHART_H - pad_t - pad_b

    def x(i: int) -> float:
        return pad_l + (w * i / (longest - 1) if longest > 1 else w / 2)

    def y(v: float) -> float:
        return pad_t + h * (high - v) / (high - low)

    parts = [f'<svg class="form-chart" viewBox="0 0 {CHART_W} {CHART_H}" role="img" '
             f'aria-label="{escape(label)}">']
    for k in range(5):  # grid lines with their values
        v = low + (high - low) * k / 4
        parts.append(f'<line x1="{pad_l}" x2="{CHART_W - pad_r}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>'
                     f'<text x="{pad_l - 8}" y="{y(v) + 7:.1f}" text-anchor="end" class="axis">'
                     f'{escape(number_in(current_language(), round(v, 1)))}</text>')
    parts.append(f'<text x="{pad_l}" y="{CHART_H - 6}" class="axis">1</text>'
                 f'<text x="{CHART_W - pad_r}" y="{CHART_H - 6}" text-anchor="end" class="axis">{longest}</text>')
    for n, (game, pts) in enumerate(sorted(series.items())):
        colour = GAME_COLOURS[n % len(GAME_COLOURS)]
        line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(pts))
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="4" '
                     f'stroke-linejoin="round" data-game="{escape(game)}"/>')
        if len(pts) == 1:
            parts.append(f'<circle cx="{x(0):.1f}" cy="{y(pts[0]):.1f}" r="4" fill="{colour}"/>')
    parts.append("</svg>")
    return Markup("".join(parts))


# An unknown season or person (any UnknownMatchError): a 404 page, or JSON under /api/ —
# the tournament pages' handler.
bp.register_error_handler(UnknownMatchError, unknown_as_404)


@bp.get("/seasons")
def seasons() -> Any:
    return _page("seasons.html", seasons=service().seasons())


@bp.get("/seasons/<sid>")
def season(sid: str) -> Any:
    view = service().season_view(sid)
    big = request.args.get("mode") == "big"
    return _page("season.html", s=view, big=big, moves=moves_text(view["moves"]),
                 body_class="page big-season" if big else "page")


@bp.get("/seasons/<sid>/federation.csv")
def federation_csv(sid: str) -> Any:
    """The season for a federation office: licence, name, club, points, events counted,
    French Excel's way whatever the page's language (``;``, decimal comma, UTF-8 with BOM)."""
    view = service().season_view(sid)
    lang = "fr"
    rows: list[list[Any]] = [[translate(lang, f"season.csv.{c}") for c in
                              ("division", "rank", "licence", "name", "club", "points", "counted", "events")]]
    for division in view["divisions"]:
        for ln in division["lines"]:
            rows.append([division["name"], ln["rank"], ln["licence"], ln["name"], ln["club"], float(ln["points"]),
                         ln["counted"], ln["events"]])
    response: Response = _csv(rows, f"season-{sid}-federation.csv", lang)
    return response


@bp.get("/people/<who>")
def person(who: str) -> Any:
    view = service().person_view(who)
    if view["identity"] != who:  # merged into another: their page
        return redirect(url_for("people.person", who=view["identity"]))
    chart = form_chart(view["form"], translate(current_language(), "people.form_label", name=view["name"]))
    games = sorted(g for g, pts in view["form"].items() if pts)
    return _page("person.html", p=view, chart=chart,
                 legend=[(g, GAME_COLOURS[i % len(GAME_COLOURS)]) for i, g in enumerate(games)])


@bp.get("/api/seasons")
def api_seasons() -> Any:
    """The seasons (JSON): what the public seasons page lists."""
    return jsonify(service().seasons())


@bp.get("/api/seasons/<sid>")
def api_season(sid: str) -> Any:
    """One season's ranking (JSON): the season page's data, read-only."""
    return jsonify(service().season_view(sid))


@bp.get("/api/people/<who>")
def api_person(who: str) -> Any:
    """One person's public page data (JSON): ratings, form, tournaments, last matches,
    seasons; a merged person answers with the person they were merged into."""
    return jsonify(service().person_view(who))


@bp.get("/people")
@login_required
def admin() -> Any:
    svc = service()
    return _page("admin.html", persons=svc.persons(), duplicates=svc.duplicates(), unlinked=svc.unlinked(50),
                 seasons=svc.seasons(), tournaments=svc.summaries())


@bp.get("/people/merge")
@login_required
def merge_preview() -> Any:
    keep, gone = request.args.get("keep", ""), request.args.get("gone", "")
    svc = service()
    names = {p["id"]: p for p in svc.persons()}
    if not keep and not gone:
        return redirect(url_for("people.admin") + "#duplicates")
    if keep not in names or gone not in names:
        abort(404)
    preview = svc.merge_preview(keep, gone)
    refused = refusal_text(HubError(preview["refused"]["message"], preview["refused"]["kind"],
                                    **{k: v for k, v in preview["refused"].items() if k not in ("kind", "message")})
                           ) if preview["refused"] else None
    return _page("merge.html", preview=preview, keep=names[keep], gone=names[gone], refused=refused)


def _int(name: str, default: int) -> int:
    try:
        return int(request.form.get(name, default))
    except ValueError:
        return -1  # the hub refuses it, in words


def _season_from_form() -> dict[str, Any]:
    body: dict[str, Any] = {"id": request.form.get("id", "").strip(), "name": request.form.get("name", ""),
                            "best": _int("best", 0)}
    points = request.form.get("points", "").strip()
    if points:  # "1:100 2:80 8:40 0:5"
        table = []
        for item in points.replace(",", " ").split():
            place, _, value = item.partition(":")
            try:
                table.append([int(place), float(value.replace(",", "."))])
            except ValueError:
                table.append([-1, 0])  # refused by the hub with its reason
        body["points"] = table
    tiebreaks = request.form.getlist("tiebreaks")
    if tiebreaks:
        body["tiebreaks"] = tiebreaks
    if request.form.get("previous"):
        body["previous"] = request.form["previous"]
    lines = [line.strip() for line in request.form.get("divisions", "").splitlines() if line.strip()]
    if lines:  # "D1: P1 P2 P3" a line, the highest first
        names: list[str] = []
        divisions: list[list[str]] = []
        for line in lines:
            name, colon, ids = line.rpartition(":") if ":" in line else ("", "", line)
            names.append(name.strip() or str(len(names) + 1))
            divisions.append(ids.replace(",", " ").split())
        body["divisions"], body["division_names"] = divisions, names
    for key in ("promote", "relegate"):
        if request.form.get(key):
            body[key] = _int(key, 0)
    return body


@bp.post("/people")
@login_required
def admin_post() -> Any:
    svc = service()
    action = request.form.get("action", "")
    back = url_for("people.admin")
    try:
        if action == "person":
            person = {k: request.form.get(k, "").strip() for k in ("name", "club", "licence")}
            svc.people_submit({"type": "person", "person": {k: v for k, v in person.items() if v or k == "name"}},
                              by="referee")
        elif action == "link":
            svc.register_person(request.form.get("tournament", ""), request.form.get("player", ""),
                                request.form.get("person") or None, by="referee")
        elif action == "merge":
            keep, gone = request.form.get("keep", ""), request.form.get("gone", "")
            svc.people_submit({"type": "merge", "keep": keep, "gone": gone}, by="referee")
            back = url_for("people.person", who=keep)
        elif action == "unmerge":
            svc.people_submit({"type": "unmerge", "gone": request.form.get("gone", "")}, by="referee")
        elif action == "season":
            body = _season_from_form()
            svc.people_submit({"type": "season", "season": body}, by="referee")
            back = url_for("people.season", sid=body["id"])
        elif action in ("season_add", "season_remove"):
            svc.people_submit({"type": action, "season": request.form.get("season", ""),
                               "tournament": request.form.get("tournament", "")}, by="referee")
        elif action == "season_close":
            svc.people_submit({"type": "season_close", "season": request.form.get("season", ""),
                               "reopen": request.form.get("reopen") == "1"}, by="referee")
        else:
            abort(400)
        flash_key("tour.saved")
    except HubError as err:
        flash_refusal(refusal_text(err))
    return redirect(back)
