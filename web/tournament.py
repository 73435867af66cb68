"""Tournament pages and API (issue 16), on the hub's tournament service (``hub.tournaments``,
typed by :class:`web.hub_protocol.TournamentsAPI`).

Public (read-only): the list, a tournament's overview with the calls ("match 12: Ana,
Ben, Chloé → station row2"), standings, bracket, podium, match and player pages (with
the player's OpenSkill rating across events), big-screen modes (``?mode=standings``,
``bracket``, ``calls``), CSV and JSON exports. Live pages follow the live stream every page
shares (``/api/stream``: a ``tournament`` event after each change, web/static/js/tournament.js)
and reload when their tournament has new entries; without scripts a ``<meta
http-equiv="refresh">`` in ``<noscript>`` does it every few seconds.

Referee (login): creating a tournament, registration, check-in, withdrawals, the
players' CSV import and export, stations, start (its preview shows the pools with each
player's club, and swaps two players between pools before the launch), results by hand, corrections,
forfeits, and printable match sheets with a QR code (segno) to each match's page.

API: ``GET /api/tournaments``, ``GET /api/tournaments/<id>``,
``GET /api/tournaments/<id>/export``, ``GET /api/ratings``; with login and CSRF:
``POST /api/tournaments`` (a spec), ``POST /api/tournaments/<id>/entries`` (one entry,
:mod:`hub.tournament.state`), ``POST /api/tournaments/<id>/preview`` (what a correction
would change: :mod:`hub.tournament.corrections`), ``POST /api/tournaments/load`` (an
export). See docs/api.md.

A correction by form first shows its preview (what changes, which started matches are
replayed) and asks to confirm; a correction that changes nothing is not made. A pool
correction that moves bracket seeds shows two choices side by side, each with its
consequences: keep the draw (only the players whose pool place changed move) or seed
the brackets again.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections.abc import Mapping
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.exceptions import BadRequest

from hub.api import BadInputError, HubError, UnknownMatchError, UnknownTournamentError
from web.context import get_hub
from web.describe import refusal_text
from web.errors import page as error_page
from web.errors import status_key
from web.flashing import flash_key, flash_refusal
from web.hub_protocol import HubAPI, TournamentsAPI
from web.i18n import LANGUAGES, MESSAGES, current_language, gettext, translate
from web.readiness import board_choices, busy_tables
from web.security import is_logged_in, json_error, login_required
from web.share import phone_url, qr_data_uri, reachable_by_phones

bp = Blueprint("tournament", __name__)


@bp.record_once
def _follow_the_hub(state: Any) -> None:
    """Start the tournament service with the app, so finished tables report their
    results even before anyone opens a tournament page."""
    hub: HubAPI | None = state.app.extensions.get("hub")
    if hub is not None:
        _ = hub.tournaments  # created, and its feed follower started, on first use

@bp.app_template_filter("ordinal")
def ordinal(n: Any, feminine: bool = False) -> str:
    """A place said as the page's language says it: 1er / 1re, 2e; 1st, 2nd, 3rd, 11th
    (``feminine``: of a word like "place" in French).

    >>> [ordinal_in("fr", n) for n in (1, 2, 11)], ordinal_in("fr", 1, feminine=True)
    (['1er', '2e', '11e'], '1re')
    >>> [ordinal_in("en", n) for n in (1, 2, 3, 4, 11, 12, 21, 22)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '21st', '22nd']
    """
    return ordinal_in(current_language(), n, feminine=feminine)


def ordinal_in(lang: str, n: Any, *, feminine: bool = False) -> str:
    """:func:`ordinal` in ``lang`` (keys ``tour.ordinal.<1|2|3>[.f]``, else ``other``)."""
    if not isinstance(n, int):
        return str(n)
    digit = n % 10 if lang == "en" and n % 100 not in (11, 12, 13) else n
    keys = [f"tour.ordinal.{digit}.f", f"tour.ordinal.{digit}"] if feminine else [f"tour.ordinal.{digit}"]
    catalogue = MESSAGES.get(lang, {})
    key = next((k for k in keys if k in catalogue), "tour.ordinal.other")
    return translate(lang, key, n=n)


@bp.app_template_filter("points")
def points_text(value: Any) -> str:
    """Points as the page's language writes them: "2 pts", "1 pt", "1,5 pt" in French.

    >>> points_in("fr", 2.0), points_in("fr", 1.0), points_in("fr", 1.5), points_in("en", 1.5)
    ('2 pts', '1 pt', '1,5 pt', '1.5 pts')
    """
    return points_in(current_language(), value)


def points_in(lang: str, value: Any) -> str:
    """:func:`points_text` in ``lang`` (French: plural from 2 on; English: except 1)."""
    number = float(value)
    plural = number >= 2 if lang == "fr" else number != 1
    return translate(lang, f"tour.points_short.{'other' if plural else 'one'}", n=number_in(lang, number))


@bp.app_template_filter("number")
def number_text(value: Any) -> str:
    """A number as the page's language writes it: "1,5" in French, "1.5" in English."""
    return number_in(current_language(), value)


def number_in(lang: str, value: Any) -> str:
    """:func:`number_text` in ``lang``.

    >>> number_in("fr", 1.5), number_in("en", 1.5), number_in("fr", 13.0)
    ('1,5', '1.5', '13')
    """
    shown = f"{float(value):g}"
    return shown.replace(".", ",") if lang == "fr" else shown


REFRESH_S = 5
BIG_MODES = ("standings", "bracket", "calls", "podium")
ON_DECK = 6  # matches listed as next on the calls screen
CSV_FIELDS = ("name", "club", "licence")
MAX_IMPORT = 10_000  # rows read from one players' list; the rest refused, counted
MAX_REASONS = 20  # refusals shown one by one; the others counted


def service() -> TournamentsAPI:
    """The hub's tournament service."""
    return get_hub().tournaments


@bp.errorhandler(UnknownTournamentError)
@bp.errorhandler(UnknownMatchError)
def unknown(err: HubError) -> Any:
    if request.path.startswith("/api/"):
        return json_error(404, type(err).__name__, str(err))
    return error_page(404, status_key(404))


def _page(template: str, view: Mapping[str, Any] | None = None, **context: Any) -> str:
    return render_template(f"tournament/{template}", t=view, refresh_s=context.pop("refresh_s", None),
                           referee=is_logged_in(), **context)


def _players(view: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {p["id"]: p for p in view["players"]}


def _rounds(view: Mapping[str, Any], stage: str) -> list[list[Mapping[str, Any]]]:
    """A bracket's matches grouped by round (columns of the bracket page)."""
    rounds: dict[int, list[Mapping[str, Any]]] = {}
    for m in view["matches"]:
        if m["stage"] == stage:
            rounds.setdefault(m["round"], []).append(m)
    return [rounds[r] for r in sorted(rounds)]


def _brackets(view: Mapping[str, Any]) -> list[tuple[str, list[list[Mapping[str, Any]]]]]:
    """(stage, rounds) of the tournament's brackets that have matches."""
    return [(stage, rounds) for stage in ("main", "losers", "grand", "third", "consolation", "c")
            if (rounds := _rounds(view, stage))]


# -- public pages --------------------------------------------------------------------------
@bp.get("/tournaments/")
def index() -> Any:
    return _page("index.html", None, tournaments=service().summaries(), games=get_hub().games())


def chances_words(tid: str, match: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """"Inès 62 %, Hugo 38 %": each player's chance to win a match (ratings in its game,
    issue 34), best first; "" when there is nothing to say."""
    try:
        chances = service().win_chances(tid, str(match["id"]))
    except HubError:
        return ""
    lang = current_language()
    return ", ".join(translate(lang, "tour.win_chance", name=names.get(p, p), chance=round(100 * c))
                     for p, c in sorted(chances.items(), key=lambda pc: -pc[1]))


@bp.get("/tournaments/<tid>")
def overview(tid: str) -> Any:
    view = service().view(tid)
    names = {p["id"]: p["name"] for p in view["players"]}
    by_match = {m["id"]: m for m in view["matches"]}
    chances = {c["match"]: chances_words(tid, by_match[c["match"]], names)
               for c in list(reversed(view["pending_calls"]))[:6] if c["match"] in by_match}
    return _page("overview.html", view, refresh_s=REFRESH_S, by_id=_players(view), chances=chances)


@bp.get("/tournaments/<tid>/standings")
def standings(tid: str) -> Any:
    view = service().view(tid)
    return _page("standings.html", view, refresh_s=REFRESH_S)


@bp.get("/tournaments/<tid>/bracket")
def bracket(tid: str) -> Any:
    view = service().view(tid)
    return _page("bracket.html", view, refresh_s=REFRESH_S, brackets=_brackets(view))


@bp.get("/tournaments/<tid>/big")
def big(tid: str) -> Any:
    view = service().view(tid)
    mode = request.args.get("mode", "standings")
    if mode == "tables":  # the hub's big screen, on this tournament's tables in play
        tables = [m["table"] for m in view["matches"] if m["status"] == "called" and m["table"]]
        if tables:
            return redirect(url_for("dashboard.big", tables=",".join(tables)))
        # None in play: never the hub's whole big screen (other events' tables), but this
        # tournament's own: its podium once over, else its calls.
        if view["status"] == "finished":
            return redirect(url_for("tournament.big", tid=tid, mode="podium"))
        mode = "calls"
    if mode not in BIG_MODES:
        mode = "standings"
    matches = {m["id"]: m for m in view["matches"]}
    # The calls screen (issue 32.15): the newest call first, the others, then the matches
    # on deck (the queue: next to be called, as stations free up).
    on_deck = [matches[mid] for mid in view["queue"] if mid in matches][:ON_DECK]
    return _page("big.html", view, refresh_s=REFRESH_S, mode=mode, theme="dark",
                 body_class="big-page" + (" big-calls-page" if mode == "calls" else ""),
                 brackets=_brackets(view), matches=matches, on_deck=on_deck)


@bp.get("/tournaments/<tid>/podium")
def podium(tid: str) -> Any:
    view = service().view(tid)
    return _page("podium.html", view, refresh_s=REFRESH_S)


@bp.get("/tournaments/<tid>/matches/<mid>")
def match(tid: str, mid: str) -> Any:
    view = service().view(tid)
    found = next((m for m in view["matches"] if m["id"] == mid), None)
    if found is None:
        abort(404)
    # A referee entering the result on this page (from the sheet's QR code) must not
    # have the form reloaded under their fingers.
    chances = (chances_words(tid, found, {p["id"]: p["name"] for p in view["players"]})
               if found["status"] in ("called", "ready") and len(found["players"]) > 1 else "")
    return _page("match.html", view, refresh_s=None if is_logged_in() else REFRESH_S, m=found,
                 by_id=_players(view), chances=chances)


@bp.get("/tournaments/<tid>/players/<pid>")
def player(tid: str, pid: str) -> Any:
    view = service().view(tid)
    found = _players(view).get(pid)
    if found is None:
        abort(404)
    history = service().player_history(found["key"])
    line = next((s for s in view["standings"] if s["player"] == pid), None)
    # Their rating in this tournament's game, as a person across events (issue 34).
    who = service().identity(tid, pid)
    rating = service().game_ratings(view["spec"]["game"]).get(who)
    # In plain words: where they play now or next, their place (final, else in their pool).
    mine = [m for m in view["matches"] if pid in m["players"] and pid not in m["forfeits"]]
    now = next((m for m in mine if m["status"] == "called"), None)
    upcoming = next((m for m in mine if m["status"] == "ready"), None)
    final = next((r for r in view["ranking"] if r["player"] == pid), None) if view["status"] == "finished" else None
    pool = next(((pl["name"], s["rank"]) for pl in view["pools"] for s in pl["standings"] if s["player"] == pid), None)
    return _page("player.html", view, p=found, history=history, line=line, now=now, upcoming=upcoming,
                 final=final, pool=pool, rating=rating, person=None if who.startswith("~") else who,
                 chances=chances_words(tid, now, {p["id"]: p["name"] for p in view["players"]}) if now else "",
                 refresh_s=REFRESH_S)


@bp.get("/tournaments/<tid>/export.json")
def export_json(tid: str) -> Any:
    response = jsonify(service().export(tid))
    response.headers["Content-Disposition"] = f'attachment; filename="tournament-{tid}.json"'
    return response


def csv_language() -> str:
    """The language of a CSV export: ``?lang=fr|en``, else the page's (the switch's
    cookie, else Accept-Language, else French)."""
    asked = request.args.get("lang", "")
    return asked if asked in LANGUAGES else current_language()


def csv_cell(value: Any, lang: str = "fr") -> Any:
    """A cell a spreadsheet will not run as a formula (a name may start with ``=``), a
    number with the decimal separator of the export's language (a comma in French).

    >>> csv_cell("=1+1"), csv_cell("Ana"), csv_cell(-3), csv_cell(2.5), csv_cell(3.0), csv_cell(2.5, "en")
    ("'=1+1", 'Ana', -3, '2,5', '3', '2.5')
    """
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    if isinstance(value, float):
        return number_in(lang, value)
    return value


def _csv(rows: list[list[Any]], filename: str, lang: str) -> Response:
    """One table as a CSV file Excel opens as it is: UTF-8 with a byte-order mark; in
    French ``;`` between cells (a comma is the decimal separator there), in English ``,``."""
    out = io.StringIO()
    out.write("\ufeff")
    csv.writer(out, delimiter=";" if lang == "fr" else ",").writerows(
        [[csv_cell(v, lang) for v in row] for row in rows])
    return Response(out.getvalue().encode("utf-8"), mimetype="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def _header(lang: str, *columns: str) -> list[Any]:
    """A CSV header row in the export's language (keys ``tour.csv.<column>``)."""
    return [translate(lang, f"tour.csv.{c}") for c in columns]


def stage_label(view: Mapping[str, Any], stage: str, lang: str) -> str:
    """A stage's name, as the pages say it (the ``stage_name`` macro): AB/ABC's brackets
    are its concours A, B and C."""
    if view["spec"]["format"] == "abc" and stage in ("main", "consolation", "c"):
        return translate(lang, f"tour.abc.{stage}")
    return translate(lang, f"tour.{stage}")


@bp.get("/tournaments/<tid>/results.csv")
def export_csv(tid: str) -> Any:
    """Every match: number, stage, round, pool, station, players, ranking, scores (the
    final ranking is its own file: :func:`ranking_csv`), in the export's language."""
    view = service().view(tid)
    lang = csv_language()
    names = {p["id"]: p["name"] for p in view["players"]}
    rows: list[list[Any]] = [_header(lang, "match", "stage", "round", "pool", "station", "status", "players",
                                     "ranking", "scores")]
    for m in view["matches"]:
        rows.append([m["number"], stage_label(view, m["stage"], lang), m["round"], m["pool"] or "",
                     m["station"] or "", translate(lang, f"tour.match.{m['status']}"),
                     " / ".join(m["names"]),
                     " > ".join(" = ".join(names[p] for p in g) for g in m["ranking"]),
                     " ".join(f"{names[p]}:{csv_cell(v, lang)}" for p, v in m["scores"].items())])
    return _csv(rows, f"tournament-{tid}-results.csv", lang)


RANKING_COLUMNS = ("points", "wins")
"""The ranking's figures before the tie-breaks (a tie-break among them is not repeated)."""


@bp.get("/tournaments/<tid>/ranking.csv")
def ranking_csv(tid: str) -> Any:
    """The final ranking: place, name, club, points, wins and the spec's other numeric
    tie-breaks, each column once."""
    view = service().view(tid)
    lang = csv_language()
    tiebreaks = [tb for tb in view["spec"]["tiebreaks"] if tb not in ("lot", "head_to_head", *RANKING_COLUMNS)]
    clubs = {p["id"]: p["club"] for p in view["players"]}
    rows: list[list[Any]] = [[*_header(lang, "place", "name", "club", *RANKING_COLUMNS),
                              *(translate(lang, f"tour.tb.{tb}") for tb in tiebreaks)]]
    lines = {s["player"]: s for s in view["standings"]}
    for r in view["ranking"]:
        s = lines.get(r["player"], {})
        rows.append([r["place"], r["name"], clubs.get(r["player"], ""),
                     *(s.get(c, "") for c in RANKING_COLUMNS), *(s.get(tb, "") for tb in tiebreaks)])
    return _csv(rows, f"tournament-{tid}-ranking.csv", lang)


# -- referee pages ---------------------------------------------------------------------------
def _form_int(name: str, default: int) -> int:
    raw = request.form.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise BadInputError(f"{name}: expected a whole number", "tour_not_a_number", field=name) from None


@bp.post("/tournaments/")
@login_required
def create() -> Any:
    try:
        view = service().create(_spec_from_form(), by="referee")
    except HubError as err:  # a refusal goes back to the form with its reason
        flash_refusal(refusal_text(err))
        return redirect(url_for("tournament.index"))
    return redirect(url_for("tournament.admin", tid=view["id"]))


def _spec_from_form() -> dict[str, Any]:
    f = request.form
    spec: dict[str, Any] = {"name": f.get("name", ""), "game": f.get("game", ""), "format": f.get("format", ""),
                            "seats": _form_int("seats", 2), "pool_size": _form_int("pool_size", 4),
                            "advance": _form_int("advance", 2), "rounds": _form_int("rounds", 5)}
    if f.get("third_place"):
        spec["third_place"] = True
    if f.get("playoff") and spec["format"] in ("pools", "abc"):
        spec["playoff"] = True
    if spec["format"] == "double":
        spec["grand_final_reset"] = bool(f.get("grand_final_reset"))
    if spec["format"] == "abc":
        spec["split"] = f.get("split", "ABC")
    if f.get("trigono_detailed") and get_hub().game_types().get(str(spec["game"]), {}).get("detailed_ranking"):
        spec["ranking"] = "trigono_detailed"
    points = f.get("points", "").strip()
    if points:
        try:
            spec["points"] = [float(p) for p in points.replace(",", " ").split()]
        except ValueError:
            raise BadInputError("points: numbers separated by spaces") from None
    options = f.get("options", "").strip()
    if options:
        try:
            spec["options"] = json.loads(options)
        except ValueError:
            raise BadInputError("options: not JSON") from None
    return spec


@bp.get("/tournaments/<tid>/admin")
@login_required
def admin(tid: str) -> Any:
    view = service().view(tid)
    caps = get_hub().game_types().get(view["spec"]["game"], {})
    settings = {"board_choices": _board_choices(), "now": get_hub().now()} if caps.get("sensor_boards") else {}
    return _page("admin.html", view, by_id=_players(view), caps=caps, settings=settings)


def _board_choices() -> list[dict[str, Any]]:
    """The boards the stations form offers (issue 32.21), as the admin's layout editor."""
    hub = get_hub()
    return board_choices(hub.boards(), hub.unregistered(), busy_tables(hub.list_tables()))


def _entry_from_form(view: Mapping[str, Any]) -> dict[str, Any]:
    """One log entry from an admin form (``action`` names its type)."""
    f = request.form
    action = f.get("action", "")
    if action == "register":
        player = {"name": f.get("name", ""), "club": f.get("club", "")}
        if f.get("licence", "").strip():
            player["key"] = f.get("licence", "").strip()
        return {"type": "register", "player": player}
    if action in ("check_in", "withdraw"):
        return {"type": action, "player": f.get("player", "")}
    if action == "station":
        boards = [b.strip() for b in f.get("boards", "").split(",") if b.strip()]
        return {"type": "station", "station": {"id": f.get("station", ""), "seats": _form_int("seats", 2),
                                               "boards": boards, "layout": f.get("layout", "row")}}
    if action == "station_active":  # out of order, or back in service
        station = next((x for x in view["stations"] if x["id"] == f.get("station")), None)
        if station is None:
            raise UnknownMatchError(f"no station {f.get('station')!r}")
        return {"type": "station", "station": {**station, "active": f.get("active") == "1"}}
    if action == "uncall":
        return {"type": "uncall", "match": f.get("match", "")}
    if action == "start":
        return {"type": "start"}
    if action == "swap":  # before the start, from the launch preview
        return {"type": "swap", "players": [f.get("swap_a", ""), f.get("swap_b", "")]}
    if action == "forfeit":
        return {"type": "forfeit", "match": f.get("match", ""), "player": f.get("player", "")}
    if action in ("result", "correct"):
        mid = f.get("match", "")
        m = next((m for m in view["matches"] if m["id"] == mid), None)
        if m is None:
            raise UnknownMatchError(f"no match {mid!r}")
        places: dict[int, list[str]] = {}
        scores: dict[str, float] = {}
        for p in m["players"]:
            if p in m["forfeits"]:
                continue
            places.setdefault(_form_int(f"place_{p}", 0), []).append(p)
            raw = f.get(f"score_{p}", "").strip()
            if raw:
                try:
                    scores[p] = float(raw.replace(",", "."))  # "12,5" as French keyboards type it
                except ValueError:
                    raise BadInputError("score: expected a number", "tour_bad_scores") from None
        entry: dict[str, Any] = {"type": action, "match": mid, "ranking": [places[k] for k in sorted(places)]}
        if scores or action == "correct":
            # The correction form shows the result's scores: what it sends is all of them
            # (none: cleared), never the old ones kept behind a new ranking (issue 32.8).
            entry["scores"] = scores
        return entry
    raise BadRequest("unknown action")


def _flash_look_alikes(view: Mapping[str, Any], player: Mapping[str, Any]) -> None:
    """After a registration: the players whose names look like the new one's (issue 32.12)."""
    name = unicodedata.normalize("NFC", str(player.get("name", "")).strip())
    for group in view.get("look_alikes", []):
        names = [p["name"] for p in group]
        if name in names:
            flash_key("tour.look_alike_registered", "warning", name=name,
                      others=", ".join(n for n in names if n != name))


def _flash_person(tid: str, player: Mapping[str, Any]) -> None:
    """After a registration: the person it is (by licence), or those it may be — for the
    organizer to confirm on the persons' page (issue 34: never linked by a similar name)."""
    who = service().identity(tid, player["id"])
    if not who.startswith("~"):
        flash_key("people.registered_as", name=player["name"], person=who)
        return
    candidates = service().link_candidates(tid, player["id"])
    if candidates:
        flash_key("people.may_be", "warning", name=player["name"],
                  others=", ".join(f"{c['name']} ({c['id']})" for c in candidates))


@bp.post("/tournaments/<tid>/admin")
@login_required
def admin_post(tid: str) -> Any:
    svc = service()
    view = svc.view(tid)
    try:
        if request.form.get("action") == "check_in_all":  # one entry per player, as by hand
            svc.submit_many(tid, [{"type": "check_in", "player": p["id"]} for p in view["players"]
                                  if p["status"] == "registered"], by="referee")
        else:
            entry = _entry_from_form(view)
            if entry["type"] == "start" and request.form.get("confirm") != "1":
                launch = svc.launch_preview(tid)  # first what it builds, then confirm
                if not launch["stations"]:
                    flash_key("tour.launch_no_station", "error")
                    return redirect(url_for("tournament.admin", tid=tid) + "#stations")
                return _page("launch.html", view, launch=launch)
            if entry["type"] == "correct" and request.form.get("confirm") != "1":
                preview = svc.preview(tid, entry)  # first what it changes, then confirm
                if not preview["changes"]:
                    flash_key("tour.correct_nothing")
                    return redirect(url_for("tournament.admin", tid=tid))
                # A pool correction that moves seeds: both ways, each with its consequences.
                kept = (svc.preview(tid, {**entry, "keep_draw": True}) if preview["can_keep_draw"] else None)
                if kept is not None and (kept["reset"], kept["pairings"]) == (preview["reset"], preview["pairings"]):
                    kept = None  # the draw moves nobody else: one choice
                return _page("correct.html", view, preview=preview, kept=kept, form=request.form,
                             by_id=_players(view))
            if entry["type"] == "correct":
                entry["reset"] = request.form.getlist("reset")  # those the organizer saw listed
                if request.form.get("keep_draw") == "1":
                    entry["keep_draw"] = True
            svc.submit(tid, entry, by="referee")
            if entry["type"] == "register":  # taken; a name that only looks like another is said so
                _flash_look_alikes(svc.view(tid), entry["player"])
                _flash_person(tid, svc.view(tid)["players"][-1])
            if entry["type"] == "swap":  # back to the launch preview, the swap made
                flash_key("tour.saved")
                return _page("launch.html", svc.view(tid), launch=svc.launch_preview(tid))
        flash_key("tour.saved")
    except (UnknownMatchError, HubError) as err:
        flash_refusal(refusal_text(err))
    if request.form.get("back") == "match":  # the match page a QR code opened on a phone
        return redirect(url_for("tournament.match", tid=tid, mid=request.form.get("match", "")))
    anchor = request.form.get("anchor", "")
    return redirect(url_for("tournament.admin", tid=tid) + (f"#{anchor}" if anchor.replace("-", "_").isidentifier() else ""))


@bp.get("/tournaments/<tid>/players.csv")
@login_required
def players_csv(tid: str) -> Any:
    view = service().view(tid)
    lang = csv_language()
    rows: list[list[Any]] = [_header(lang, "name", "club", "licence", "status")]
    rows += [[p["name"], p["club"], p["key"] if p["key"] != p["name"].casefold() else "",
              translate(lang, f"tour.{p['status']}")] for p in view["players"]]
    return _csv(rows, f"tournament-{tid}-players.csv", lang)


def parse_players_csv(text: str) -> list[dict[str, str]]:
    """Players from a CSV (a header row naming name, club, licence — or those three
    columns in that order; cells between ``,`` or ``;``); empty lines are skipped.

    >>> parse_players_csv("name,club\\nAna,Nantes\\n\\nBen,\\n")
    [{'name': 'Ana', 'club': 'Nantes'}, {'name': 'Ben', 'club': ''}]
    >>> parse_players_csv("\\ufeffnom;club\\nAna;Nantes\\n")
    [{'name': 'Ana', 'club': 'Nantes'}]
    """
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    delimiter = ";" if first.count(";") > first.count(",") else ","  # French Excel writes ";"
    rows = [r for r in csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=delimiter)
            if any(c.strip() for c in r)]
    if not rows:
        return []
    header = [c.strip().lower() for c in rows[0]]
    if "name" in header or "nom" in header:
        columns = ["name" if c == "nom" else c for c in header]
        rows = rows[1:]
    else:
        columns = list(CSV_FIELDS)
    out = []
    for row in rows:
        player = {c: v.strip() for c, v in zip(columns, row, strict=False) if c in CSV_FIELDS}
        out.append({k: v for k, v in player.items() if k != "licence"} |
                   ({"key": player["licence"]} if player.get("licence") else {}))
    return out


@bp.post("/tournaments/<tid>/players.csv")
@login_required
def players_import(tid: str) -> Any:
    upload = request.files.get("file")
    text = upload.read().decode("utf-8-sig", "replace") if upload and upload.filename else request.form.get("csv", "")
    players = parse_players_csv(text)
    read = players[:MAX_IMPORT]
    taken, refused = service().submit_many(tid, [{"type": "register", "player": p} for p in read], by="referee")
    flash_key("tour.imported", n=taken)
    if refused or len(players) > len(read):
        flash_key("tour.import_refused", n=len(refused) + len(players) - len(read))
    for i, err in refused[:MAX_REASONS]:
        flash_refusal(gettext("tour.import_row", line=i + 1, name=read[i].get("name") or "—",
                              reason=refusal_text(err)))
    if len(refused) > MAX_REASONS:
        flash_key("tour.import_more", n=len(refused) - MAX_REASONS)
    if len(players) > len(read):
        flash_key("tour.import_cut", n=len(players) - len(read), limit=MAX_IMPORT)
    return redirect(url_for("tournament.admin", tid=tid))


@bp.get("/tournaments/<tid>/sheets")
@login_required
def sheets(tid: str) -> Any:
    view = service().view(tid)
    only = request.args.get("status", "")
    matches = [m for m in view["matches"] if m["players"] and not m["bye"] and (not only or m["status"] == only)]
    # The address phones reach (--public-url wins): no QR code of one they cannot open.
    links = {m["id"]: phone_url(url_for("tournament.match", tid=tid, mid=m["id"])) for m in matches}
    qr = {mid: qr_data_uri(link) for mid, link in links.items()} if reachable_by_phones() else {}
    return _page("sheets.html", view, matches=matches, qr=qr, links=links, body_class="print-page")


# -- JSON API --------------------------------------------------------------------------------
@bp.get("/api/tournaments")
def api_list() -> Any:
    return jsonify(service().summaries())


@bp.get("/api/tournaments/<tid>")
def api_view(tid: str) -> Any:
    return jsonify(service().view(tid))


@bp.get("/api/tournaments/<tid>/version")
def api_version(tid: str) -> Any:
    """``{"entries": N}``: what a live page asks once its stream (re)connects, to know
    whether it must reload (``tournament`` events on ``/api/stream`` say it after that)."""
    return jsonify({"entries": service().version(tid)})


@bp.get("/api/tournaments/<tid>/export")
def api_export(tid: str) -> Any:
    return jsonify(service().export(tid))


@bp.post("/api/tournaments/<tid>/preview")
@login_required
def api_preview(tid: str) -> Any:
    """What a ``correct`` entry would change (standings, qualifiers, pairings, matches to
    reset, final places), changing nothing; the entry itself then lists ``reset``."""
    return jsonify(service().preview(tid, _json_body()))


@bp.get("/api/ratings")
def api_ratings() -> Any:
    return jsonify({key: r.to_json() for key, r in service().ratings().items()})


def _json_body() -> Any:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise BadRequest("expected a JSON object")
    return body


@bp.post("/api/tournaments")
@login_required
def api_create() -> Any:
    body = _json_body()
    tid = body.pop("id", None)
    return jsonify(service().create(body, tournament_id=tid, by="referee")), 201


@bp.post("/api/tournaments/<tid>/entries")
@login_required
def api_entry(tid: str) -> Any:
    return jsonify(service().submit(tid, _json_body(), by="referee"))


@bp.post("/api/tournaments/load")
@login_required
def api_load() -> Any:
    return jsonify(service().load(_json_body())), 201
