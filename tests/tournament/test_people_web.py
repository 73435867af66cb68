"""Issue 34's pages: the public season and person pages (phone and big screen, French and
English), the federation CSV, the organizer's merge shown before it is made, the unmerge,
the win chances of a called match; a real Chromium takes the screenshots."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from hub.facade import Hub
from tests.tournament.test_seasons import DAY, JAN, STRENGTH, Clock, tournament
from tests.web.conftest import csrf_token, login_page, new_page, server, shot  # noqa: F401
from tests.web.test_accessibility import serious_violations


def season(hub: Hub) -> dict[str, str]:
    """Three tournaments in a season, Inès twice as two persons (one by licence)."""
    service = hub.tournaments
    clock = service.clock = Clock()
    ines = service.people_submit({"type": "person", "person": {"name": "Inès Morel", "club": "Quimper",
                                                                "licence": "29001"}})["person"]
    service.people_submit({"type": "season", "season": {"id": "S1", "name": "Circuit 2026", "best": 2}})
    for n, (game, names) in enumerate([
            ("trike", ["Inès Morel", "Hugo Le Goff", "Léa Tanguy", "Marc Riou"]),
            ("trike", ["Ines Morel", "Hugo Le Goff", "Léa Tanguy", "Ana Guen"]),
            ("triolet", ["Inès Morel", "Hugo Le Goff", "Zoé Bihan", "Ana Guen"])]):
        clock.t = JAN + 30 * DAY * n
        tid = f"T{n + 1}"
        players = [{"name": x, "key": "29001"} if x == "Inès Morel" else {"name": x} for x in names]
        tournament(service, tid, game, "swiss", players, ["Ines Morel", *STRENGTH], rounds=3)
        for pid in ("p1", "p2", "p3", "p4"):
            if service.identity(tid, pid).startswith("~"):
                found = [c["id"] for c in service.link_candidates(tid, pid) if c["name"] == names[int(pid[1:]) - 1]]
                service.register_person(tid, pid, found[0] if found else None)
        service.people_submit({"type": "season_add", "season": "S1", "tournament": tid})
    twin = service.identity("T2", "p1")
    assert twin != ines
    return {"ines": ines, "twin": twin}


def test_the_season_and_person_pages_are_public_and_the_csv_is_french_excel(client: FlaskClient, hub: Hub) -> None:
    who = season(hub)
    page = client.get("/seasons/S1", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Circuit 2026" in page and "Inès Morel" in page and "les 2 meilleurs résultats comptent" in page
    assert 'name="csrf_token"' not in page  # read-only
    big = client.get("/seasons/S1?mode=big", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "big-season-page" in big and "best 2 results count" in big
    person = client.get(f"/people/{who['ines']}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "<svg class=\"form-chart\"" in person and "<polyline" in person and "provisional" in person
    assert 'id="person-statistics"' in person and "Last matches" in person
    raw = client.get("/seasons/S1/federation.csv", headers={"Accept-Language": "en"}).data
    assert raw.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig")), delimiter=";"))
    assert rows[0] == ["division", "rang", "licence", "nom", "club", "points", "tournois comptés", "tournois joués"]
    ines = next(r for r in rows if r[2] == "29001")
    assert ines[3] == "Inès Morel" and ines[4] == "Quimper" and ines[6] == "2"
    assert client.get("/people/P99").status_code == 404 and client.get("/seasons/nope").status_code == 404
    assert client.get("/people").status_code == 302  # the organizer's page needs a login
    player = client.get("/tournaments/T2/players/p2", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "/people/P2" in player and "provisional" in player  # Hugo: his Trike rating, as a person


def test_a_league_with_divisions_is_made_by_form(referee: FlaskClient, hub: Hub) -> None:
    season(hub)
    token = csrf_token(referee, "/people")
    referee.post("/people", data={"csrf_token": token, "action": "season", "id": "L1", "name": "Ligue",
                                  "best": "0", "points": "1:10 2:6 0:1", "tiebreaks": ["wins", "best"],
                                  "divisions": "Élite: P1 P2 P3\nHonneur: P4, P6, P7", "promote": "1", "relegate": "1"})
    spec = next(s for s in hub.tournaments.seasons() if s["id"] == "L1")
    assert spec["divisions"] == [["P1", "P2", "P3"], ["P4", "P6", "P7"]] and spec["division_names"] == ["Élite", "Honneur"]
    assert spec["points"] == [[1, 10.0], [2, 6.0], [0, 1.0]] and spec["tiebreaks"] == ["wins", "best"]
    for tid in ("T1", "T3"):
        referee.post("/people", data={"csrf_token": token, "action": "season_add", "season": "L1", "tournament": tid})
    referee.post("/people", data={"csrf_token": token, "action": "season_close", "season": "L1"})
    page = referee.get("/seasons/L1", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Division Élite" in page and "Division Honneur" in page and "monte" in page and "descend" in page


def test_a_merge_is_shown_then_confirmed_then_undone(referee: FlaskClient, hub: Hub) -> None:
    who = season(hub)
    admin = referee.get("/people", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Perhaps one person" in admin and f"keep={who['ines']}&amp;gone={who['twin']}" in admin
    preview = referee.get(f"/people/merge?keep={who['ines']}&gone={who['twin']}",
                          headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Confirmer la fusion" in preview and "Lignes de saison qui changent" in preview
    assert hub.tournaments.identity("T2", "p1") == who["twin"]  # nothing changed yet
    token = csrf_token(referee, "/people")
    done = referee.post("/people", data={"csrf_token": token, "action": "merge", "keep": who["ines"],
                                         "gone": who["twin"]})
    assert done.status_code == 302 and hub.tournaments.identity("T2", "p1") == who["ines"]
    assert referee.get(f"/people/{who['twin']}").headers["Location"].endswith(f"/people/{who['ines']}")
    refused = referee.post("/people", data={"csrf_token": token, "action": "merge", "keep": "P2", "gone": "P3"},
                           headers={"Accept-Language": "en"}, follow_redirects=True).get_data(as_text=True)
    assert "Refused: Both played in tournament T" in refused, re.findall(r"<p class=.flash[^<]*", refused)
    referee.post("/people", data={"csrf_token": token, "action": "unmerge", "gone": who["twin"]})
    assert hub.tournaments.identity("T2", "p1") == who["twin"]


def test_a_called_match_shows_each_players_chance(client: FlaskClient, hub: Hub) -> None:
    season(hub)
    service = hub.tournaments
    service.create({"name": "Final", "game": "trike", "format": "elimination", "check_in": False,
                    "seeding": "registration"}, tournament_id="T9")
    for name in ("Inès Morel", "Marc Riou"):
        service.submit("T9", {"type": "register", "player": {"name": name, "key": "29001"} if name == "Inès Morel"
                              else {"name": name}})
    service.register_person("T9", "p2", service.identity("T1", "p4"))
    service.submit("T9", {"type": "start"})
    page = client.get("/tournaments/T9/matches/m1", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    chances = service.win_chances("T9", "m1")
    assert chances["p1"] > chances["p2"]
    assert f"Inès Morel {round(100 * chances['p1'])}\u00a0%" in page
    service.submit("T9", {"type": "station", "station": {"id": "row1", "seats": 2}})  # called there now
    assert service.view("T9")["matches"][0]["status"] == "called"
    for url in ("/tournaments/T9", "/tournaments/T9/players/p2"):
        shown = client.get(url, headers={"Accept-Language": "en"}).get_data(as_text=True)
        assert f"Marc Riou {round(100 * chances['p2'])} %" in shown, url


@pytest.mark.browser
@pytest.mark.parametrize("lang,locale", [("fr", "fr-FR"), ("en", "en-GB")])
def test_screenshots_of_the_person_and_season_pages(browser: Any, hub: Hub, server: Any, lang: str,  # noqa: F811
                                                    locale: str) -> None:
    who = season(hub)
    hub.tournaments.season_view("S1")
    hub.tournaments.people_submit({"type": "merge", "keep": who["ines"], "gone": who["twin"]})
    failures = []
    for width, height, tag in ((390, 844, "phone"), (1920, 1080, "1080p")):
        page = new_page(browser, locale=locale, width=width, height=height)
        page.goto(f"{server.url}/people/{who['ines']}")
        assert page.locator("svg.form-chart polyline").count() == 2  # Trike and Triolet
        shot(page, f"issue34-person-{tag}-{lang}.png")
        failures += serious_violations(page)
        if lang == "fr":  # the device's dark scheme: its contrasts
            page.emulate_media(color_scheme="dark")
            failures += serious_violations(page, ["color-contrast"])
            page.goto(f"{server.url}/seasons/S1")
            failures += serious_violations(page, ["color-contrast"])
            page.emulate_media(color_scheme="light")
        page.goto(f"{server.url}/seasons/S1" + ("?mode=big" if tag == "1080p" else ""))
        assert page.locator(".season-table tbody tr").count() >= 6
        assert "↑" in page.locator(".moves").inner_text()  # the merge moved the others up
        shot(page, f"issue34-season-{tag}-{lang}.png")
        failures += serious_violations(page)
        if tag == "1080p":
            login_page(page, server, "/people")
            failures += serious_violations(page)
            page.goto(f"{server.url}/people/merge?keep=P4&gone=P7")  # Marc, Zoé: one person?
            assert page.locator("#confirm-merge").count() == 1
            shot(page, f"issue34-merge-{lang}.png")
            failures += serious_violations(page)
        assert not page.js_errors
        page.context.close()
    assert not failures, failures


def test_registration_says_who_the_entry_is_or_may_be(referee: FlaskClient, hub: Hub) -> None:
    service = hub.tournaments
    service.people_submit({"type": "person", "person": {"name": "Inès Morel", "licence": "29001"}})
    service.create({"name": "Friday", "game": "trike", "format": "swiss", "check_in": False}, tournament_id="F1")
    token = csrf_token(referee, "/tournaments/F1/admin")
    for form in ({"name": "Inès Morel", "licence": "29001"}, {"name": "Ines Morel"}):
        referee.post("/tournaments/F1/admin", data={"csrf_token": token, "action": "register", **form})
    page = referee.get("/tournaments/F1/admin", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Inès Morel is P1 (their licence)." in page
    assert "Ines Morel may be Inès Morel (P1): confirm on the Persons page." in page
    assert service.identity("F1", "p2") == "~ines morel"  # proposed, not linked


def test_the_person_page_sums_the_statistics_of_every_entry_of_the_person(client: FlaskClient, hub: Hub) -> None:
    """Issue 34.4 on the person page: the statistics of all the person's entries (both of
    Inès's persons once merged), and export links naming exactly those entries."""
    who = season(hub)
    service = hub.tournaments
    service.people_submit({"type": "merge", "keep": who["ines"], "gone": who["twin"]})
    entries = service.entries_of(who["ines"])
    assert {tid for tid, _ in entries} == {"T1", "T2", "T3"}
    games = service.stats(entries)["games"]
    assert set(games) == {"trike", "triolet"} and games["trike"]["matches"] == sum(
        service.stats([e])["games"].get("trike", {}).get("matches", 0) for e in entries)
    page = client.get(f"/people/{who['ines']}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    section = page[page.index('id="person-statistics"'):]
    assert f"Trike · matches {games['trike']['matches']}<" in section
    assert f"Triolet · matches {games['triolet']['matches']}<" in section
    export = re.search(r'href="(/api/stats\?[^"]*format=csv[^"]*)"', section)
    assert export is not None
    named = re.findall(r"entry=([^&]+)", export.group(1).replace("&amp;", "&"))
    assert sorted(n.replace("%3A", ":") for n in named) == sorted(f"{t}:{p}" for t, p in entries)


def test_seasons_and_persons_answer_in_json_read_only(client: FlaskClient, hub: Hub) -> None:
    """The JSON API beside the pages: the same data, no login, unknown ids a 404 in JSON,
    and a merged person answers as the person they were merged into."""
    who = season(hub)
    assert [s["id"] for s in client.get("/api/seasons").get_json()] == ["S1"]
    ranking = client.get("/api/seasons/S1").get_json()
    assert ranking == hub.tournaments.season_view("S1")
    person = client.get(f"/api/people/{who['ines']}").get_json()
    assert person["name"] == "Inès Morel" and person == hub.tournaments.person_view(who["ines"])
    hub.tournaments.people_submit({"type": "merge", "keep": who["ines"], "gone": who["twin"]})
    assert client.get(f"/api/people/{who['twin']}").get_json()["identity"] == who["ines"]
    missing = client.get("/api/seasons/nope")
    assert missing.status_code == 404 and missing.get_json()["error"]
    assert client.get("/api/people/P99").status_code == 404
    assert client.post("/api/seasons/S1").status_code == 405
