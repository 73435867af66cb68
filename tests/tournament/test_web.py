"""Tournament pages and API through Flask's test client, on a real hub (issue 16)."""

from __future__ import annotations

import csv
import html
import io
import re

from flask.testing import FlaskClient

from hub.facade import Hub
from tests.web.conftest import api_post, csrf_token


def flashes(page: str) -> list[str]:
    """The flashed messages of a page, as the referee reads them."""
    return [html.unescape(t) for t in re.findall(r'<p class="flash [^"]*">([^<]*)</p>', page)]


def form(client: FlaskClient, url: str, data: dict[str, str], page: str | None = None) -> str:
    token = csrf_token(client, page or url)
    response = client.post(url, data={**data, "csrf_token": token})
    assert response.status_code == 302, response.get_data(as_text=True)[:500]
    return str(response.headers["Location"])


def test_referee_runs_a_tournament_from_the_pages(referee: FlaskClient, hub: Hub) -> None:
    where = form(referee, "/tournaments/", {"name": "Soirée Trike", "game": "trike", "format": "pools",
                                             "seats": "2", "pool_size": "3", "advance": "1",
                                             "options": '{"size": 3}'})
    tid = where.rstrip("/").split("/")[-2]
    admin = f"/tournaments/{tid}/admin"
    form(referee, f"/tournaments/{tid}/players.csv",
         {"csv": "name,club,licence\nAna,Nantes,L1\nBen,Rennes,\nChloé,,\nDan,,\nEve,,\nFred,,\n"}, page=admin)
    page = referee.get(admin).get_data(as_text=True)
    assert "Chloé" in page and "6 joueurs inscrits" in page
    form(referee, admin, {"action": "check_in", "player": "p1"})
    form(referee, admin, {"action": "check_in_all"})
    assert all(p["status"] == "present" for p in referee.get(f"/api/tournaments/{tid}").get_json()["players"])
    # Launch refuses zero stations, then shows what it builds and asks to confirm (issue 25).
    assert form(referee, admin, {"action": "start"}).endswith("#stations")
    assert "Aucun poste actif" in referee.get(admin).get_data(as_text=True)
    form(referee, admin, {"action": "station", "station": "row1", "seats": "2", "boards": ""})
    launch = referee.post(admin, data={"action": "start", "csrf_token": csrf_token(referee, admin)})
    assert launch.status_code == 200
    text = launch.get_data(as_text=True)
    assert "Avant de lancer le tournoi" in text and "Poule A" in text and "1 poste actif (row1)\u00a0: 1 partie démarre tout de suite" in text
    assert referee.get(f"/api/tournaments/{tid}").get_json()["status"] == "registration"
    form(referee, admin, {"action": "start", "confirm": "1"})
    view = referee.get(f"/api/tournaments/{tid}").get_json()
    assert view["status"] == "running" and len(view["pools"]) == 2
    called = [m for m in view["matches"] if m["status"] == "called"]
    assert len(called) == 1 and called[0]["station"] == "row1" and called[0]["table"]
    overview = referee.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert f"Partie {called[0]['number']}\u00a0: {', '.join(called[0]['names'])} → poste row1" in overview
    # Results by hand, place by place; a forfeit; then a correction.
    first = called[0]
    form(referee, admin, {"action": "result", "match": first["id"],
                          f"place_{first['players'][0]}": "2", f"place_{first['players'][1]}": "1"})
    view = referee.get(f"/api/tournaments/{tid}").get_json()
    done = next(m for m in view["matches"] if m["id"] == first["id"])
    assert done["ranking"] == [[first["players"][1]], [first["players"][0]]]
    # A correction first shows what it changes (issue 25), then is made on confirmation.
    fields = {"action": "correct", "match": first["id"],
              f"place_{first['players'][0]}": "1", f"place_{first['players'][1]}": "2"}
    preview = referee.post(admin, data={**fields, "csrf_token": csrf_token(referee, admin)})
    assert preview.status_code == 200
    page = preview.get_data(as_text=True)
    assert f"Avant de corriger la partie {first['number']}" in page and 'name="confirm" value="1"' in page
    assert referee.get(f"/api/tournaments/{tid}").get_json()["matches"][0]["corrected"] == 0
    form(referee, admin, {**fields, "confirm": "1"})
    view = referee.get(f"/api/tournaments/{tid}").get_json()
    done = next(m for m in view["matches"] if m["id"] == first["id"])
    assert done["ranking"][0] == [first["players"][0]] and done["corrected"] == 1
    nxt = next(m for m in view["matches"] if m["status"] in ("ready", "called"))
    form(referee, admin, {"action": "forfeit", "match": nxt["id"], "player": nxt["players"][0]})
    token = csrf_token(referee, admin)
    view = referee.get(f"/api/tournaments/{tid}").get_json()
    assert next(m for m in view["matches"] if m["id"] == nxt["id"])["status"] == "done"
    while view["status"] != "finished":
        m = next(m for m in view["matches"] if m["status"] in ("ready", "called"))
        response = api_post(referee, f"/api/tournaments/{tid}/entries",
                            {"type": "result", "match": m["id"], "ranking": m["players"]}, token)
        assert response.status_code == 200, response.get_json()
        view = response.get_json()
    assert view["podium"][0]["place"] == 1
    for url in ("", "/standings", "/bracket", "/podium", "/big", "/big?mode=bracket", "/big?mode=calls",
                f"/matches/{first['id']}", "/players/p1", "/sheets", "/admin"):
        assert referee.get(f"/tournaments/{tid}{url}").status_code == 200, url
    big_tables = referee.get(f"/tournaments/{tid}/big?mode=tables")  # over: its podium, not others' tables
    assert big_tables.status_code == 302 and big_tables.headers["Location"] == f"/tournaments/{tid}/big?mode=podium"
    ceremony = referee.get(f"/tournaments/{tid}/big?mode=podium").get_data(as_text=True)
    assert 'class="ceremony"' in ceremony and view["podium"][0]["name"] in ceremony
    assert referee.application is not None
    referee.application.config["PUBLIC_URL"] = "http://192.168.1.20:8000"  # phones reach it (issue 26.3)
    sheets = referee.get(f"/tournaments/{tid}/sheets").get_data(as_text=True)
    assert sheets.count('src="data:image/svg+xml') >= 5
    raw = referee.get(f"/tournaments/{tid}/results.csv").get_data()
    assert raw.startswith(b"\xef\xbb\xbf")  # French Excel reads UTF-8 only with its byte-order mark
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig")), delimiter=";"))
    assert rows[0][0] == "partie" and any(r[:1] == ["1"] for r in rows) and [] not in rows  # one table
    ranking = list(csv.reader(io.StringIO(referee.get(f"/tournaments/{tid}/ranking.csv").get_data().decode(
        "utf-8-sig")), delimiter=";"))
    assert ranking[0][:5] == ["place", "nom", "club", "points", "victoires"] and len(ranking) == 1 + len(view["ranking"])
    players = referee.get(f"/tournaments/{tid}/players.csv").get_data(as_text=True)
    assert players.startswith("\ufeffnom;club;licence;état") and "Ana;Nantes;L1;présent" in players
    export = referee.get(f"/api/tournaments/{tid}/export").get_json()
    assert export["format"] == "trigono-tournament" and export["entries"][0]["type"] == "create"
    player_page = referee.get(f"/tournaments/{tid}/players/p1").get_data(as_text=True)
    assert re.search(r'class="rating">-?\d+\.\d', player_page)
    assert "L1" in referee.get("/api/ratings").get_json()


def test_reads_are_public_writes_need_the_referee(client: FlaskClient, hub: Hub) -> None:
    assert client.get("/tournaments/").status_code == 200
    assert client.get("/api/tournaments").get_json() == []
    token = csrf_token(client, "/tournaments/")
    response = api_post(client, "/api/tournaments", {"name": "x", "game": "trike", "format": "swiss"}, token)
    assert response.status_code == 401
    assert client.get("/tournaments/T1").status_code == 404
    assert client.get("/api/tournaments/T1").get_json()["error"]["type"] == "UnknownTournamentError"


def test_api_refusals_are_typed_and_change_nothing(referee: FlaskClient, hub: Hub) -> None:
    token = csrf_token(referee, "/tournaments/")
    created = api_post(referee, "/api/tournaments", {"id": "S1", "name": "Suisse", "game": "triominos",
                                                     "format": "swiss", "rounds": 3, "check_in": False}, token)
    assert created.status_code == 201
    bad = api_post(referee, "/api/tournaments/S1/entries", {"type": "start"}, token)
    assert bad.status_code == 400 and bad.get_json()["error"]["type"] == "RefusedError"
    again = api_post(referee, "/api/tournaments", {"id": "S1", "name": "x", "game": "trike", "format": "swiss"}, token)
    assert again.status_code == 409
    assert referee.get("/api/tournaments/S1").get_json()["entries"] == 1


def test_create_form_names_the_detailed_trigono_ranking(referee: FlaskClient, hub: Hub) -> None:
    where = form(referee, "/tournaments/", {"name": "FFA", "game": "trigono", "format": "swiss", "seats": "4",
                                             "trigono_detailed": "1"})
    tid = where.rstrip("/").split("/")[-2]
    assert referee.get(f"/api/tournaments/{tid}").get_json()["spec"]["ranking"] == "trigono_detailed"


def test_a_referee_enters_a_result_from_the_match_page(referee: FlaskClient, hub: Hub) -> None:
    """The match sheet's QR code opens the match page; logged in, the referee's phone
    enters the result there and comes back to it."""
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "Q", "name": "QR", "game": "trike", "format": "elimination",
                                           "check_in": False}, token)
    for name in ("Ana", "Ben"):
        api_post(referee, "/api/tournaments/Q/entries", {"type": "register", "player": {"name": name}}, token)
    view = api_post(referee, "/api/tournaments/Q/entries", {"type": "start"}, token).get_json()
    m = view["matches"][0]
    page = referee.get(f"/tournaments/Q/matches/{m['id']}").get_data(as_text=True)
    assert 'class="result-form"' in page and 'http-equiv="refresh"' not in page
    where = form(referee, "/tournaments/Q/admin", {"action": "result", "match": m["id"], "back": "match",
                                                    "place_p1": "2", "place_p2": "1"})
    assert where.endswith(f"/tournaments/Q/matches/{m['id']}")
    assert referee.get("/api/tournaments/Q").get_json()["podium"][0]["name"] == "Ben"
    public = FlaskClient(referee.application).get(f"/tournaments/Q/matches/{m['id']}").get_data(as_text=True)
    assert 'class="result-form"' not in public


def test_a_station_out_of_order_sends_its_match_elsewhere(referee: FlaskClient, hub: Hub) -> None:
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "O", "name": "Out", "game": "triominos", "format": "swiss",
                                           "rounds": 1, "check_in": False}, token)
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        api_post(referee, "/api/tournaments/O/entries", {"type": "register", "player": {"name": name}}, token)
    for station in ("row1", "row2"):
        api_post(referee, "/api/tournaments/O/entries", {"type": "station", "station": {"id": station, "seats": 2}},
                 token)
    api_post(referee, "/api/tournaments/O/entries", {"type": "start"}, token)
    api_post(referee, "/api/tournaments/O/entries", {"type": "station", "station": {"id": "row3", "seats": 2}},
             token)
    form(referee, "/tournaments/O/admin", {"action": "station_active", "station": "row1", "active": "0"})
    view = referee.get("/api/tournaments/O").get_json()
    assert sorted(m["station"] for m in view["matches"] if m["status"] == "called") == ["row2", "row3"]
    assert [s["active"] for s in view["stations"]] == [False, True, True]
    moved = next(m for m in view["matches"] if m["station"] == "row3")
    form(referee, "/tournaments/O/admin", {"action": "uncall", "match": moved["id"]})
    again = next(m for m in referee.get("/api/tournaments/O").get_json()["matches"] if m["id"] == moved["id"])
    assert again["status"] == "called" and again["station"] == "row3"  # the director calls it again
    assert len([c for c in referee.get("/api/tournaments/O").get_json()["calls"] if c["match"] == moved["id"]]) == 3


def test_a_refused_creation_comes_back_to_the_form_with_its_reason(referee: FlaskClient, hub: Hub) -> None:
    where = form(referee, "/tournaments/", {"name": "X", "game": "trike", "format": "swiss", "seats": "two"})
    assert where == "/tournaments/"
    page = referee.get(where).get_data(as_text=True)
    assert flashes(page) == ["Refusé\u00a0: Joueurs par partie\u00a0: un nombre entier est attendu."]
    assert referee.get("/api/tournaments").get_json() == []


def test_a_refused_setting_is_worded_in_the_page_language_with_its_label(referee: FlaskClient) -> None:
    """Issue 23: the hub names the refusal (kind + params), the page words it; no English
    line of the hub on a French page."""
    cases = [({"pool_size": "40"}, "Joueurs par poule\u00a0: un nombre entier de 2 à 12 est attendu."),
             ({"name": "x" * 81}, "Nom\u00a0: un texte de 1 à 80 caractères est attendu."),
             ({"options": "[1]"}, "Options du jeu\u00a0: un objet JSON"),
             ({"format": "abc", "seats": "3"}, "se jouent en duels")]
    for fields, french in cases:
        data = {"name": "X", "game": "trike", "format": "pools", **fields}
        token = csrf_token(referee, "/tournaments/")
        response = referee.post("/tournaments/", data={**data, "csrf_token": token},
                                headers={"Accept-Language": "fr"})
        assert response.status_code == 302
        shown = flashes(referee.get("/tournaments/", headers={"Accept-Language": "fr"}).get_data(as_text=True))
        assert len(shown) == 1 and french in shown[0], (fields, shown)
    assert referee.get("/api/tournaments").get_json() == []


def test_a_correction_that_changes_nothing_is_not_made_and_the_api_previews(referee: FlaskClient) -> None:
    token = csrf_token(referee, "/tournaments/")
    created = api_post(referee, "/api/tournaments", {"id": "P1", "name": "Prévue", "game": "trike",
                                                     "format": "elimination", "check_in": False,
                                                     "options": {"size": 3}}, token)
    assert created.status_code == 201
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        api_post(referee, "/api/tournaments/P1/entries", {"type": "register", "player": {"name": name}}, token)
    view = api_post(referee, "/api/tournaments/P1/entries", {"type": "start"}, token).get_json()
    first, second = [m for m in view["matches"] if m["status"] == "ready"][:2]
    for m in (first, second):
        api_post(referee, "/api/tournaments/P1/entries", {"type": "result", "match": m["id"], "ranking": m["players"]},
                 token)
    final = next(m for m in api_post(referee, "/api/tournaments/P1/entries", {
        "type": "station", "station": {"id": "s1", "seats": 2}}, token).get_json()["matches"] if m["round"] == 2)
    assert final["status"] == "called"
    body = {"type": "correct", "match": first["id"], "ranking": list(reversed(first["players"]))}
    preview = api_post(referee, "/api/tournaments/P1/preview", body, token).get_json()
    assert [r["match"] for r in preview["reset"]] == [final["id"]]
    refused = api_post(referee, "/api/tournaments/P1/entries", body, token)
    assert refused.status_code in (400, 409) and "already started" in refused.get_data(as_text=True)
    page = referee.post("/tournaments/P1/admin", data={
        "action": "correct", "match": first["id"], f"place_{first['players'][0]}": "1",
        f"place_{first['players'][1]}": "2", "csrf_token": token})
    assert page.status_code == 302  # the same ranking again: nothing to correct
    assert api_post(referee, "/api/tournaments/P1/entries", {**body, "reset": [final["id"]]}, token).status_code == 200


def test_a_players_list_from_french_excel_is_imported_with_a_count_of_what_was_refused(
        referee: FlaskClient) -> None:
    """Finding 9: a ``;`` CSV with a byte-order mark; refused rows are counted and named,
    nothing is cut silently."""
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "I1", "name": "Import", "game": "trigono", "format": "swiss"}, token)
    text = "\ufeffnom;club;licence\nAna;Nantes;L1\nBen;Rezé;\nAna;Vertou;\n;Sans nom;\n"
    response = referee.post("/tournaments/I1/players.csv", data={"csv": text, "csrf_token": token},
                            headers={"Accept-Language": "fr"})
    assert response.status_code == 302
    shown = flashes(referee.get("/tournaments/I1/admin", headers={"Accept-Language": "fr"}).get_data(as_text=True))
    assert "2 joueurs inscrits." in shown and "2 lignes refusées." in shown
    assert shown[2:] == ["Refusé\u00a0: ligne 3 (Ana)\u00a0: Un joueur nommé Ana est déjà inscrit.",
                         "Refusé\u00a0: ligne 4 (—)\u00a0: Nom\u00a0: un nom de 1 à 40 caractères est attendu."], shown
    players = referee.get("/api/tournaments/I1").get_json()["players"]
    assert [(p["name"], p["club"]) for p in players] == [("Ana", "Nantes"), ("Ben", "Rezé")]
    referee.post("/tournaments/I1/admin", data={"action": "check_in_all", "csrf_token": token})
    assert {p["status"] for p in referee.get("/api/tournaments/I1").get_json()["players"]} == {"present"}


def test_a_double_elimination_is_created_from_the_form_and_its_bracket_page_shows_both_brackets(
        referee: FlaskClient) -> None:
    where = form(referee, "/tournaments/", {"name": "Double", "game": "trike", "format": "double",
                                             "grand_final_reset": "1", "options": '{"size": 3}'})
    tid = where.rstrip("/").split("/")[-2]
    token = csrf_token(referee, "/tournaments/")
    for i, name in enumerate(("Ana", "Ben", "Chloé", "Dan", "Eve"), 1):
        api_post(referee, f"/api/tournaments/{tid}/entries", {"type": "register", "player": {"name": name}}, token)
        assert api_post(referee, f"/api/tournaments/{tid}/entries", {"type": "check_in", "player": f"p{i}"},
                        token).status_code == 200
    view = api_post(referee, f"/api/tournaments/{tid}/entries", {"type": "start"}, token).get_json()
    assert view["spec"]["grand_final_reset"] is True
    while view["status"] != "finished":
        m = next(m for m in view["matches"] if m["status"] in ("ready", "called"))
        view = api_post(referee, f"/api/tournaments/{tid}/entries",
                        {"type": "result", "match": m["id"], "ranking": m["players"]}, token).get_json()
    assert sorted(r["player"] for r in view["ranking"]) == [f"p{i}" for i in range(1, 6)]
    page = referee.get(f"/tournaments/{tid}/bracket", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Tableau des perdants" in page and "Grande finale" in page


def test_bracket_rounds_are_named_from_the_final_back_in_both_languages(referee: FlaskClient) -> None:
    """16 duellists: 8es de finale, quarts, demi-finales, finale (issue 25: not "Tour 1..4")."""
    where = form(referee, "/tournaments/", {"name": "Coupe", "game": "trike", "format": "elimination",
                                             "options": '{"size": 3}'})
    tid = where.rstrip("/").split("/")[-2]
    token = csrf_token(referee, "/tournaments/")
    for i in range(1, 17):
        api_post(referee, f"/api/tournaments/{tid}/entries", {"type": "register", "player": {"name": f"J{i}"}}, token)
        api_post(referee, f"/api/tournaments/{tid}/entries", {"type": "check_in", "player": f"p{i}"}, token)
    view = api_post(referee, f"/api/tournaments/{tid}/entries", {"type": "start"}, token).get_json()
    kinds = {m["round"]: m["round_name"]["kind"] for m in view["matches"] if m["stage"] == "main"}
    assert kinds == {1: "round_of", 2: "quarter", 3: "semi", 4: "final"}
    fr = referee.get(f"/tournaments/{tid}/bracket", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    en = referee.get(f"/tournaments/{tid}/bracket", headers={"Accept-Language": "en"}).get_data(as_text=True)
    for words in ("8es de finale", "Quarts de finale", "Demi-finales", "Finale"):
        assert f"<h3>{words}</h3>" in fr
    for words in ("Round of 16", "Quarter-finals", "Semi-finals", "Final"):
        assert f"<h3>{words}</h3>" in en
    final = next(m for m in view["matches"] if m["stage"] == "main" and m["round"] == 4)
    page = referee.get(f"/tournaments/{tid}/matches/{final['id']}", headers={"Accept-Language": "fr"})
    assert "Finale" in page.get_data(as_text=True)


def test_issue32_8_the_correction_form_refuses_the_old_scores_behind_a_new_ranking(referee: FlaskClient) -> None:
    """The correction form shows the result's scores: swapping the places and leaving
    them is refused, in the reader's language, naming them; clearing them is taken."""
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "S8", "name": "Scores", "game": "trike", "format": "swiss",
                                           "rounds": 2, "check_in": False, "options": {"size": 3}}, token)
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        api_post(referee, "/api/tournaments/S8/entries", {"type": "register", "player": {"name": name}}, token)
    m = api_post(referee, "/api/tournaments/S8/entries", {"type": "start"}, token).get_json()["matches"][0]
    a, b = m["players"]
    admin = "/tournaments/S8/admin"
    form(referee, admin, {"action": "result", "match": m["id"], f"place_{a}": "1", f"place_{b}": "2",
                          f"score_{a}": "13", f"score_{b}": "7"})
    swapped = {"action": "correct", "match": m["id"], f"place_{a}": "2", f"place_{b}": "1"}
    form(referee, admin, {**swapped, f"score_{a}": "13", f"score_{b}": "7"})
    shown = flashes(referee.get(admin, headers={"Accept-Language": "fr"}).get_data(as_text=True))
    assert any("contredisent le nouveau classement" in s and "13" in s for s in shown), shown
    done = referee.get("/api/tournaments/S8").get_json()["matches"][0]
    assert done["ranking"] == [[a], [b]] and done["corrected"] == 0
    form(referee, admin, {**swapped, f"score_{a}": "", f"score_{b}": "", "confirm": "1"})
    done = referee.get("/api/tournaments/S8").get_json()["matches"][0]
    assert done["ranking"] == [[b], [a]] and done["scores"] == {} and done["corrected"] == 1


def test_issue32_18_a_double_elimination_names_its_losers_rounds_and_its_undecided_reset(
        referee: FlaskClient) -> None:
    """No "exempt / exempt" in the grand final's replay before the grand final is played
    (nor "Round 1, 2" under the grand final); the losers bracket's rounds are named as
    its rounds, its last as its final."""
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "D8", "name": "Double", "game": "trike", "format": "double",
                                           "check_in": False, "options": {"size": 3}}, token)
    for name in ("Ana", "Ben", "Chloé", "Dan", "Eve", "Fred", "Gus", "Hugo"):
        api_post(referee, "/api/tournaments/D8/entries", {"type": "register", "player": {"name": name}}, token)
    view = api_post(referee, "/api/tournaments/D8/entries", {"type": "start"}, token).get_json()
    names = {(m["stage"], m["round"]): m["round_name"] for m in view["matches"]}
    assert names[("losers", 1)] == {"kind": "losers_round", "n": 1}
    assert names[("losers", 4)] == {"kind": "losers_final"}
    assert names[("grand", 1)] == {"kind": "grand_final"} and names[("grand", 2)] == {"kind": "grand_final_reset"}
    for lang, words, absent in (("fr", ["Perdants, tour 1", "Finale du tableau des perdants",
                                        "Revanche de la grande finale", "Les deux finalistes à nouveau, si le vainqueur"
                                        " du tableau des perdants gagne la grande finale"], ["exempt", "Tour 1"]),
                                ("en", ["Losers round 1", "Losers' final", "Grand final replay",
                                        "The two finalists again, if the losers bracket's winner wins the grand final"],
                                 ["bye", "Round 1<"])):
        page = html.unescape(referee.get("/tournaments/D8/bracket", headers={"Accept-Language": lang})
                             .get_data(as_text=True))
        bracket = page.split('class="bracket-block"', 1)[1].split("<script", 1)[0]  # not the words' catalogue
        assert all(w in bracket for w in words), (lang, [w for w in words if w not in bracket])
        assert not any(a in bracket for a in absent), (lang, [a for a in absent if a in bracket])
    while view["status"] != "finished":  # the first slot wins: the winners bracket's winner takes the grand final
        m = next(m for m in view["matches"] if m["status"] in ("ready", "called"))
        view = api_post(referee, "/api/tournaments/D8/entries",
                        {"type": "result", "match": m["id"], "ranking": m["players"]}, token).get_json()
    page = html.unescape(referee.get("/tournaments/D8/bracket", headers={"Accept-Language": "fr"})
                         .get_data(as_text=True)).split('class="bracket-block"', 1)[1].split("<script", 1)[0]
    assert "Pas jouée\u00a0: le vainqueur du tableau des gagnants a gagné la grande finale" in page and "exempt" not in page


def test_a_name_that_only_looks_like_a_registered_one_is_flagged_at_registration(referee: FlaskClient) -> None:
    """Issue 32.12: "Ana" and a full-width "Ａｎａ" are two players to the hub (two people may
    share a name) but look the same on a screen: the organizer is told at registration and
    the players' list marks both, until one is withdrawn."""
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "L1", "name": "Look", "game": "trike", "format": "swiss"}, token)
    admin = "/tournaments/L1/admin"
    for name in ("Ana", "Ben", "Ａｎａ"):
        form(referee, admin, {"action": "register", "name": name, "club": ""})
    page = referee.get(admin, headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert flashes(page) == ["Ａｎａ est inscrit, mais son nom ressemble à celui d’Ana\u00a0: même personne\u00a0?", "Enregistré."]
    assert html.unescape(re.findall(r'<p class="notice look-alikes"[^>]*>([^<]*)</p>', page)[0]).startswith(
        "⚠ Ces noms se ressemblent\u00a0: Ana, Ａｎａ.")
    view = referee.get("/api/tournaments/L1").get_json()
    assert [[p["name"] for p in group] for group in view["look_alikes"]] == [["Ana", "Ａｎａ"]]
    flagged = re.findall(r'data-player="([^"]+)"><td><a [^>]*>[^<]*</a><span class="warn look-alike"', page)
    assert sorted(flagged) == sorted(p["player"] for p in view["look_alikes"][0])
    ben = next(p["id"] for p in view["players"] if p["name"] == "Ben")
    assert ben not in flagged
    form(referee, admin, {"action": "withdraw", "player": view["look_alikes"][0][1]["player"]})
    assert referee.get("/api/tournaments/L1").get_json()["look_alikes"] == []
