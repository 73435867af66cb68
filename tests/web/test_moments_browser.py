"""The pages show the hub's moments (hub/tables/moments.py) in their own language, and an
undone throw leaves the announcement band at once (issue 26 item 7, issue 23)."""

from __future__ import annotations

from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import new_page, shot
from web.server import ServerHandle

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("locale", "small", "undone"), [
    ("en-GB", "Small hole — Ana takes", "Ana's throw undone"),
    ("fr-FR", "Petit trou — Ana prend", "Lancer d’Ana annulé"),
])
def test_an_undone_throw_leaves_the_announcement_band(
    browser: Any, hub: Hub, server: ServerHandle, locale: str, small: str, undone: str
) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1", options={"first": "Ana"})
    page = new_page(browser, locale=locale, width=1920, height=1080)
    page.goto(f"{server.url}/overlay/t1")
    page.locator(".overlay-inner[data-table=t1]").wait_for()
    hub.submit("t1", {"landed": "B1.small"})
    band = page.locator("#announce")
    page.wait_for_function("(text) => document.getElementById('announce').innerText.includes(text)", arg=small)
    hub.submit("t1", {"undo": True})
    page.wait_for_function("(text) => document.getElementById('announce').innerText.includes(text)", arg=undone)
    assert small not in band.inner_text()
    shot(page, f"overlay-undone-{locale}.png")
    assert page.js_errors == []


@pytest.mark.parametrize(("locale", "words"), [
    ("en-GB", ["Jackpot! David's palet is in", "Big hole — David's palet is in", "Jackpot! David takes 7"]),
    ("fr-FR", ["Jackpot\u00a0! Le palet de David y est", "Grand trou — le palet de David y est",
               "Jackpot\u00a0! David prend 7"]),
])
def test_a_hole_that_took_nothing_in_the_final_is_not_worded_as_taking_0(
    browser: Any, hub: Hub, server: ServerHandle, locale: str, words: list[str]
) -> None:
    """Issue 32.19: in a final the holes take nothing and the target never takes (T17): the
    hub's moment has n = 0, and "Jackpot ! David prend 0" said what did not happen."""
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    page = new_page(browser, locale=locale)
    page.goto(f"{server.url}/overlay/t1")
    page.locator(".overlay-inner[data-table=t1]").wait_for()
    said = page.evaluate("""async () => {
      const { momentText } = await import("/static/js/live.js");
      const moment = (kind, n) => ({ kind, params: { player: "David", n, hole: "J1" } });
      return [momentText(moment("jackpot", 0)), momentText(moment("big", 0)), momentText(moment("jackpot", 7))];
    }""")
    assert said == words
