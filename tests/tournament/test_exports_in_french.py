"""Issue 32.20: CSV exports in the reader's language (French headers and codes, ``;`` and
a byte-order mark for French Excel; English ones with ``,``), ``ranking.csv`` naming each
column once; French typography in the catalogue (curly apostrophes, a non-breaking space
before ``: ; ! ?``, ordinals "1er", "1re", "2e")."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from hub.facade import Hub
from tests.web.conftest import api_post, csrf_token, new_page, server  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%\([a-z_]+\)[sd]")
"""``{name}`` (translate(), the browser's t()) and ``%(name)s`` placeholders: not French text."""


def _finished_pools(referee: FlaskClient) -> str:
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "C1", "name": "Coupe", "game": "trike", "format": "pools",
                                            "pool_size": 2, "advance": 1, "check_in": False,
                                            "seeding": "registration"}, token)
    for name, club in (("Ana", "Nantes"), ("Ben", "Rezé"), ("Chloé", ""), ("Dan", "Vertou")):
        api_post(referee, "/api/tournaments/C1/entries", {"type": "register", "player": {"name": name, "club": club}},
                 token)
    view = api_post(referee, "/api/tournaments/C1/entries", {"type": "start"}, token).get_json()
    while view["status"] != "finished":
        m = next(m for m in view["matches"] if m["status"] in ("ready", "called"))
        view = api_post(referee, "/api/tournaments/C1/entries",
                        {"type": "result", "match": m["id"], "ranking": m["players"],
                         "scores": {m["players"][0]: 13.5, m["players"][1]: 7}}, token).get_json()
    return "C1"


def _rows(raw: bytes, delimiter: str) -> list[list[str]]:
    assert raw.startswith(b"\xef\xbb\xbf")  # Excel reads UTF-8 only with its byte-order mark
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig")), delimiter=delimiter))


def test_csv_exports_speak_french_to_a_french_reader_and_english_to_an_english_one(
        referee: FlaskClient, hub: Hub) -> None:
    tid = _finished_pools(referee)
    fr = {"Accept-Language": "fr-FR,fr;q=0.9"}
    results = _rows(referee.get(f"/tournaments/{tid}/results.csv", headers=fr).get_data(), ";")
    assert results[0] == ["partie", "phase", "tour", "poule", "poste", "état", "joueurs", "classement", "scores"]
    pool_row = next(r for r in results[1:] if r[3] == "A")
    assert pool_row[1] == "Poules" and pool_row[5] == "terminée" and "13,5" in pool_row[8], pool_row
    assert any(r[1] == "Tableau principal" for r in results[1:])
    ranking = _rows(referee.get(f"/tournaments/{tid}/ranking.csv", headers=fr).get_data(), ";")
    assert ranking[0][:5] == ["place", "nom", "club", "points", "victoires"]
    assert len(ranking[0]) == len(set(ranking[0])), ranking[0]  # "wins" was there twice
    assert len(ranking) == 5 and all(len(r) == len(ranking[0]) for r in ranking)
    players = _rows(referee.get(f"/tournaments/{tid}/players.csv", headers=fr).get_data(), ";")
    assert players[0] == ["nom", "club", "licence", "état"] and players[1] == ["Ana", "Nantes", "", "présent"]

    en = {"Accept-Language": "en-GB,en;q=0.9"}
    results = _rows(referee.get(f"/tournaments/{tid}/results.csv", headers=en).get_data(), ",")
    assert results[0] == ["match", "stage", "round", "pool", "station", "status", "players", "ranking", "scores"]
    pool_row = next(r for r in results[1:] if r[3] == "A")
    assert pool_row[1] == "Pools" and pool_row[5] == "done" and "13.5" in pool_row[8], pool_row
    ranking = _rows(referee.get(f"/tournaments/{tid}/ranking.csv", headers=en).get_data(), ",")
    assert ranking[0][:5] == ["place", "name", "club", "points", "wins"] and len(ranking[0]) == len(set(ranking[0]))
    # ?lang= wins over the browser's language, as a link shared from a French page does.
    winner = next(r["player"] for r in referee.get(f"/api/tournaments/{tid}").get_json()["ranking"] if r["place"] == 1)
    page = referee.get(f"/tournaments/{tid}/players/{winner}", headers=fr).get_data(as_text=True)
    assert "Place finale\u00a0: 1re" in page
    assert "Final place: 1st" in referee.get(f"/tournaments/{tid}/players/{winner}", headers=en).get_data(as_text=True)
    asked = _rows(referee.get(f"/tournaments/{tid}/ranking.csv?lang=fr", headers=en).get_data(), ";")
    assert asked[0][:5] == ["place", "nom", "club", "points", "victoires"]


def test_a_french_players_export_imports_back(referee: FlaskClient, hub: Hub) -> None:
    tid = _finished_pools(referee)
    exported = referee.get(f"/tournaments/{tid}/players.csv", headers={"Accept-Language": "fr"}).get_data()
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "C2", "name": "Retour", "game": "trike", "format": "swiss"}, token)
    referee.post("/tournaments/C2/players.csv", data={"csv": exported.decode("utf-8"), "csrf_token": token})
    players = referee.get("/api/tournaments/C2").get_json()["players"]
    assert [(p["name"], p["club"]) for p in players] == [("Ana", "Nantes"), ("Ben", "Rezé"), ("Chloé", ""),
                                                         ("Dan", "Vertou")]


def french_typography_faults(key: str, text: str) -> list[str]:
    """What a French text gets wrong: a straight apostrophe, a plain space (or none)
    before ``: ; ! ?``, an ordinal written "1e"; placeholders are left out."""
    prose = re.sub(r"«[^»]*»", "X", PLACEHOLDER.sub("X", text))  # « bot: » is what one types
    faults = []
    if "'" in prose:
        faults.append("straight apostrophe")
    for m in re.finditer(r"(.)([:;!?])(?=\s|$|\))", prose):
        before = m.group(1)
        if before not in ("\u00a0", "\u202f") and not (before == "(" or before.isdigit() and m.group(2) == ":"):
            faults.append(f"no non-breaking space before {m.group(2)!r}")
    if re.search(r"\b1e\b|\{place\}e\b", text):
        faults.append("ordinal 1e / {place}e (1er, 1re, 2e: say it by the number)")
    return [f"{key}: {fault} in {text!r}" for fault in faults]


def test_french_typography_fault_finder_catches_what_it_should() -> None:
    assert french_typography_faults("k", "Vainqueur : {name}")
    assert french_typography_faults("k", "Vainqueur: {name}")
    assert french_typography_faults("k", "l'arbitre")
    assert french_typography_faults("k", "{place}e de poule")
    assert not french_typography_faults("k", "Vainqueur\u00a0: {name}, l’arbitre, Jackpot\u202f!")
    assert not french_typography_faults("k", "{a}:{b} à 12:30, docs/security.md")


def test_the_french_catalogue_keeps_french_typography() -> None:
    catalogue = json.loads((ROOT / "web" / "messages" / "fr.json").read_text(encoding="utf-8"))
    faults = [f for key, text in catalogue.items() for f in french_typography_faults(key, text)]
    assert not faults, "\n".join(faults)


def test_the_tournament_pages_doctests_hold() -> None:
    """Ordinals, points and numbers as each language writes them (web/tournament.py)."""
    import doctest

    import web.tournament
    result = doctest.testmod(web.tournament)
    assert result.failed == 0 and result.attempted >= 4


def test_a_decimal_parameter_takes_a_comma_in_french() -> None:
    from web.i18n import translate
    assert translate("fr", "announce.step_back", m="3.00") == "La ligne de lancer recule\u00a0: 3,00\u00a0m"
    assert translate("en", "announce.step_back", m="3.00") == "Throw line moves back: 3.00 m"


@pytest.mark.browser
@pytest.mark.parametrize(("locale", "said"), [("fr-FR", "Ligne de lancer 3,00\u00a0m"),
                                              ("en-GB", "Throw line 3.00 m")])
def test_the_table_page_writes_the_throw_line_as_its_language_does(
        hub: Hub, server: Any, browser: Any, locale: str, said: str) -> None:  # noqa: F811
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    page = new_page(browser, locale=locale)
    page.goto(f"{server.url}/tables/t1")
    page.wait_for_selector(".distance")
    assert page.inner_text(".distance") == said
    assert page.js_errors == []
