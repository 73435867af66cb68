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
