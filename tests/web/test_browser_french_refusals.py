"""French pages show the hub's refusals in French (issue 23 "the hub sends kinds + params
only", issue 26 item 5), in a real Chromium beside a real hub: the console after refused
inputs (an engine's reason, a turn-shifting void), a Triolet refusal and hint, a Trike
hint, a tournament's refusal. Each fails if an English sentence of the hub or an engine
shows, or a name starting with a vowel is not elided ("de Élodie")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import login_page, new_page, shot
from tests.web.test_french_pages import english_phrases
from web.server import ServerHandle

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
NOT_ELIDED = re.compile(r"\b(?:de|que) [AEIOUYÉÈaeiouyéè]\w*")


def engine_english() -> list[str]:
    """The fixed words (three or more) of the English catalogue's engine reasons, hints and
    refusals: on a French page any of them is the hub's or an engine's English."""
    catalogue = json.loads((ROOT / "web" / "messages" / "en.json").read_text(encoding="utf-8"))
    found = set(english_phrases())
    for key, text in catalogue.items():
        if key.startswith(("engine.", "hint.", "refusal.")):
            for piece in re.split(r"\{[^}]*\}", text):
                piece = piece.strip(" :;,.()")
                if len(piece.split()) >= 3:
                    found.add(piece)
    return sorted(found)


def english_on(page: Any) -> list[str]:
    text = page.locator("body").inner_text()
    return [p for p in engine_english() if p.lower() in text.lower()] + NOT_ELIDED.findall(text)


def csrf(page: Any) -> str:
    return str(page.locator("meta[name=csrf-token]").get_attribute("content"))


def post_form(page: Any, server: ServerHandle, path: str, form: dict[str, Any]) -> Any:
    """A form post from the browser's own session (its cookies), the redirect not followed:
    the flashed refusal is for the next page the browser opens."""
    return page.request.post(server.url + path, form={**form, "csrf_token": csrf(page)}, max_redirects=0)


def flashes(page: Any) -> str:
    page.locator(".flashes .flash").first.wait_for()
    return str(page.locator(".flashes").inner_text())


def test_the_console_says_refused_inputs_in_french_T3_T17(browser: Any, hub: Hub, server: ServerHandle) -> None:
    hub.create_table("trigono", seats=["Hugo", "Élodie", "Ana"], boards=["B1"], seed=7, table_id="t1",
                     options={"first": "Hugo"})
    hub.submit("t1", {"landed": "floor"})  # Hugo
    hub.submit("t1", {"landed": "floor"})  # Élodie
    page = new_page(browser, locale="fr-FR", width=390, height=844)
    login_page(page, server, "/console/t1")
    said = {}
    # An engine's refusal (T17: a target is chosen only in a final).
    post_form(page, server, "/console/t1/input", {"input": "target", "hole": "B1.big"})
    page.goto(server.url + "/console/t1")
    said["target"] = flashes(page)
    # Voiding Hugo's throw would make Élodie's the first: refused with the names.
    first_drop = next(e["id"] for e in hub.table_view("t1")["events"] if e.get("kind") == "input")
    post_form(page, server, "/console/t1/input", {"input": "void", "entry": str(first_drop)})
    page.goto(server.url + "/console/t1")
    said["void"] = flashes(page)
    shot(page, "fr-console-refused-390.png")
    assert "aucune finale n’est en cours\u00a0: on ne choisit un trou visé qu’en finale (T17)" in said["target"], said
    assert "deviendrait un lancer d’Élodie alors que c’est à Hugo de lancer" in said["void"], said
    assert english_on(page) == []
    assert [english for text in said.values() for english in engine_english() if english.lower() in text.lower()] == []
    assert page.js_errors == []


def test_a_triolet_refusal_and_hint_read_in_french_L4(browser: Any, hub: Hub, server: ServerHandle) -> None:
    hub.create_table("triolet", seats=["Ana", "Élodie"], seed=5, table_id="g1")
    to_move = hub.public_view("g1")["to_move"]
    first = next(a for a in hub.legal_actions("g1", to_move) if "play" in a)
    hub.submit("g1", {"move": first, "player": to_move})
    page = new_page(browser, locale="fr-FR")
    login_page(page, server, "/console/g1")
    # The console's move form, as a referee types it: refused by the engine (L4).
    post_form(page, server, "/console/g1/input", {"input": "move", "action": '{"play": ["A1:1"]}'})
    page.goto(server.url + "/console/g1")
    said = flashes(page)
    assert "Ce coup n’est pas permis\u00a0: le coup ne touche pas les jetons déjà posés (L4)." in said, said
    assert english_on(page) == [], said
    # The player's page: the hint in French.
    to_move = hub.public_view("g1")["to_move"]
    link = page.locator(f".seats li[data-player='{to_move}'] a.seat-link").get_attribute("href")
    play = new_page(browser, locale="fr-FR")
    play.goto(link)
    play.locator(".triolet-board").wait_for()
    play.click(".hint-button")
    play.locator(".hint:not(:empty)").wait_for()
    hint = play.locator(".hint").inner_text()
    assert re.search(r"marque|échangez|passez|ni coup", hint), hint
    shot(play, "fr-triolet-hint.png")
    assert english_on(play) == [], hint
    assert page.js_errors == [] and play.js_errors == []


def test_a_tournament_refusal_reads_in_french(browser: Any, hub: Hub, server: ServerHandle) -> None:
    page = new_page(browser, locale="fr-FR")
    login_page(page, server, "/tournaments/")
    created = page.request.post(server.url + "/api/tournaments", headers={"X-CSRFToken": csrf(page)}, data={
        "id": "S1", "name": "Suisse", "game": "triominos", "format": "swiss", "rounds": 3, "check_in": False})
    assert created.status == 201
    page.goto(server.url + "/tournaments/S1/admin")
    post_form(page, server, "/tournaments/S1/admin", {"action": "start", "confirm": "1"})
    page.goto(server.url + "/tournaments/S1/admin")
    said = flashes(page)
    shot(page, "fr-tournament-refused.png")
    assert "Il faut au moins deux joueurs présents pour commencer." in said, said
    assert english_on(page) == []
    assert page.js_errors == []
