"""Every page in French shows no English of the hub's and no bare catalogue key (issue 23
"one form for translations", issue 26 item 5): tables with throws, an undo, a correction,
a refused sensor answer and a recount alert, seen through each page in a French Chromium."""

from __future__ import annotations

import re
from typing import Any

import pytest

from hub.facade import Hub
from hub.tables.wording import TEMPLATES
from tests.web.conftest import login_page, new_page, shot
from web.server import ServerHandle

pytestmark = pytest.mark.browser


def english_phrases() -> list[str]:
    """The fixed words of the hub's English templates (three words or more) and the
    English the issues saw on French pages."""
    found = {"turn to throw", "% of", "wins by force", "at least two present players", "would be illegal",
             "throw to floor", "throw player"}
    for template in TEMPLATES.values():
        for piece in re.split(r"\{[^}]*\}", template):
            piece = piece.strip(" :;,.()")
            if len(piece.split()) >= 3:
                found.add(piece)
    return sorted(found)


BARE_KEY = re.compile(r"\b(announce|where|table|event|alert|refusal|console|trike|triolet|triominos|trigono|moment)\.[a-z_]+\b")


def untranslated(page: Any) -> list[str]:
    text = page.locator("body").inner_text()
    return [p for p in english_phrases() if p.lower() in text.lower()] + BARE_KEY.findall(text)


def test_no_english_on_french_pages(browser: Any, hub: Hub, server: ServerHandle) -> None:
    hub.create_table("trigono", seats=["Hugo", "Inès"], boards=["B1"], seed=7, table_id="t1", options={"first": "Hugo"})
    for where in ["floor", "B1.small", "board:B1"]:
        hub.submit("t1", {"landed": where})
    hub.submit("t1", {"undo": True})
    hub.submit("t1", {"amend": {"index": 0, "action": {"throw": {"player": "Hugo", "to": "board:B1"}}}})
    hub.submit("t1", {"recount": {"board": "B1", "count": 9}})
    hub.create_table("triolet", seats=["Ana", "Ben"], seed=5, table_id="g1")
    hub.create_table("triominos", seats=["Ana", "Ben"], seed=5, table_id="g2")
    hub.create_table("trike", seats=["Ana", "Ben"], seed=5, table_id="g3")
    page = new_page(browser, locale="fr-FR", width=1280, height=900)
    pages = {"/": "article[data-table=t1]", "/big?tables=t1": "#tables svg.layout", "/overlay/t1": ".overlay-inner",
             "/tables/t1": "article[data-table=t1]", "/play/t1": "svg.layout", "/play/g1": ".triolet-board",
             "/play/g2": ".triominos-board", "/play/g3": ".trike-board"}
    found = {}
    for path, ready in pages.items():
        page.goto(server.url + path)
        page.locator(ready).first.wait_for()
        found[path] = untranslated(page)
    login_page(page, server, "/console/t1")
    for path in ("/console/t1", "/admin/"):
        page.goto(server.url + path)
        page.locator("main").wait_for()
        found[path] = untranslated(page)
    assert {path: words for path, words in found.items() if words} == {}
    assert page.js_errors == []


def test_the_trike_hint_is_worded_in_french(browser: Any, hub: Hub, server: ServerHandle) -> None:
    hub.create_table("trike", seats=["Ana", "Ben"], seed=5, table_id="g3")
    console = new_page(browser, locale="fr-FR")
    login_page(console, server, "/console/g3")
    to_move = hub.public_view("g3")["to_move"]
    link = console.locator(f".seats li[data-player='{to_move}'] a.seat-link").get_attribute("href")
    page = new_page(browser, locale="fr-FR")
    page.goto(link)
    page.locator(".trike-board .trike-cell.target").first.wait_for()
    page.click(".hint-button")
    page.locator(".hint:not(:empty)").wait_for()
    assert re.search(r"simulations|prouvé|seul coup", page.locator(".hint").inner_text()), page.locator(".hint").inner_text()
    assert untranslated(page) == []
    shot(page, "trike-hint-fr.png")
    assert page.js_errors == []
