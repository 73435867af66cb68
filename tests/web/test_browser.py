"""Real-browser tests: Debian's Chromium driven by Playwright against the app served by
waitress beside a real hub, with sensor events arriving over a real serial link
(pseudo-terminal, protocol v1). Screenshots go to test-artifacts/."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import login_page as login
from tests.web.conftest import new_page, serial_board, shot
from web.server import ServerHandle

pytestmark = pytest.mark.browser

def test_T6_dashboard_updates_live_when_a_sensor_event_arrives(
    browser: Any, hub: Hub, server: ServerHandle, tmp_path: Path
) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1",
                     options={"first": "Ana"})
    hub.submit("t1", {"landed": "board:B1"})  # Ana's palet lies on B1
    board = serial_board(hub, tmp_path)
    try:
        page = new_page(browser)
        page.goto(server.url + "/")
        card = page.locator("article[data-table=t1]")
        card.locator(".hand[data-player=Ben]").wait_for()
        assert card.locator(".hand[data-player=Ben]").inner_text() == "10"
        assert page.locator("#live-status").get_attribute("data-state") == "online"
        board.event("drop", hole="big")  # Ben's palet falls into B1's big hole
        # T6: Ben takes the palet on B1 and his own from the hole: 9 + 2.
        page.wait_for_selector("article[data-table=t1] .hand[data-player=Ben]:text-is('11')", timeout=10_000)
        assert card.locator("[data-count='board:B1'] b").inner_text() == "0"
        announce = page.locator("#announce")
        announce.wait_for(state="visible")
        assert "Big hole — Ben takes 2" in announce.inner_text()
        shot(page, "dashboard.png")
        assert page.js_errors == []
    finally:
        board.unplug()


def test_referee_answers_a_prompt_and_the_dashboard_follows(browser: Any, hub: Hub, server: ServerHandle) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben", "Chloé"], boards=["B1", "B2"], seed=3, table_id="t1",
                     options={"first": "Ana"})
    dashboard = new_page(browser, locale="fr-FR")
    dashboard.goto(server.url + "/")
    dashboard.locator("article[data-table=t1] .hand[data-player=Ana]").wait_for()
    console = new_page(browser, locale="fr-FR")
    login(console, server, "/console/t1")
    prompt = console.locator(".prompt[data-kind=landed]")
    assert "Où est tombé le palet d’Ana" in prompt.locator(".question").inner_text()
    shot(console, "console.png")
    prompt.locator("button[data-choice='board:B2']").click()
    console.wait_for_url(f"{server.url}/console/t1")
    dashboard.wait_for_selector("article[data-table=t1] .hand[data-player=Ana]:text-is('4')", timeout=10_000)
    assert dashboard.locator("article[data-table=t1] [data-count='board:B2'] b").inner_text() == "1"
    assert "Ben" in dashboard.locator("article[data-table=t1] tr.to-move").inner_text()
    # The console's panel follows too (live refresh): now Ben is asked.
    console.wait_for_selector(".prompt[data-kind=landed] .question:has-text('Ben')", timeout=10_000)
    assert dashboard.js_errors == [] and console.js_errors == []


def test_console_refuses_without_login(browser: Any, hub: Hub, server: ServerHandle) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], seed=1, table_id="t1")
    page = new_page(browser)
    page.goto(server.url + "/console/t1")
    assert "/auth/login" in page.url
    assert page.locator("#panel").count() == 0
    page.fill("input[name=password]", "guess")
    page.click("form button[type=submit]")
    assert page.locator(".flash.error").inner_text() == "Wrong password."
    # A script on a public page cannot act either: no session, so 401.
    status = page.evaluate(
        """async () => (await fetch('/api/tables/t1/input', {method: 'POST',
            headers: {'Content-Type': 'application/json',
                      'X-CSRFToken': document.querySelector('meta[name=csrf-token]').content},
            body: JSON.stringify({landed: 'floor'})})).status"""
    )
    assert status == 401
    assert hub.table_view("t1")["state"]["log"] == []
    # With the password the console lists the table, and follows new ones live.
    login(page, server, "/console/")
    page.locator("li[data-table=t1]").wait_for()
    hub.create_table("trike", seats=["Ana", "Ben"], seed=1, table_id="t2")
    page.locator("li[data-table=t2]").wait_for(timeout=10_000)
    assert page.js_errors == []


def test_big_screen_rotates_and_overlay_shows_hands(browser: Any, hub: Hub, server: ServerHandle) -> None:
    from engines.trigono.layout import hexagon_boards

    hub.create_table("trigono", seats=["Ana", "Ben", "Chloé"], boards=["B1", "B2"], seed=3, table_id="t1")
    hub.create_table("trigono", seats=["Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"],
                     options={"boards": hexagon_boards()}, seed=4, table_id="hex")
    page = new_page(browser, locale="fr-FR", width=1920, height=1080)
    page.clock.install()  # the rotation's timer on a clock the test drives: no 3 s of real time
    page.goto(server.url + "/big?every=3")
    page.locator("#tables article").wait_for(timeout=10_000)
    page.clock.pause_at(page.evaluate("Date.now()") + 100)  # from here the screen turns only when told
    first = page.locator("#tables article").get_attribute("data-table")
    shot(page, "big-screen.png")
    other = "hex" if first == "t1" else "t1"
    page.clock.run_for(5_100)  # one period (?every=3 is held to the 5 s floor: web/dashboard.py)
    page.wait_for_selector(f"#tables article[data-table={other}]", timeout=10_000)
    if other == "hex":
        assert page.locator("svg.layout .jackpot").count() == 1  # T20
    overlay = new_page(browser, width=1280, height=720)
    overlay.goto(server.url + "/overlay/t1")
    overlay.locator(".overlay-player[data-player=Ana] .hand").wait_for()
    assert overlay.locator(".overlay-player").count() == 3
    shot(overlay, "overlay.png")
    phone = new_page(browser, locale="fr-FR", width=390, height=844)
    phone.goto(server.url + "/")
    phone.locator("article[data-table=hex]").wait_for()
    # Nothing wider than the phone: no sideways scrolling.
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    shot(phone, "phone.png")
    assert page.js_errors == [] and overlay.js_errors == []


def test_admin_places_a_hexagon_by_clicking_and_creates_the_table(browser: Any, hub: Hub, server: ServerHandle) -> None:
    page = new_page(browser)
    login(page, server, "/admin/")
    for cell in ["0,0,up", "-1,0,down", "-1,0,up", "-1,-1,down", "0,-1,up", "0,-1,down"]:
        page.locator(f"#layout-grid g[data-cell='{cell}']").click()
    page.locator("#layout-grid .jackpot").wait_for()  # six boards around (0, 0): T20
    # The hub drew the grid (hub/tables/drawing.py layout_editor): one jackpot, at the vertex.
    assert page.locator("#layout-grid .jackpot").get_attribute("data-jackpot") == "0,0"
    assert page.locator("#layout-grid g.cell").count() == 77
    page.fill("textarea[name=players]", "Ana\nBen\nChloé\nDan\nEve\nFay\nGus")
    page.locator("#bindings input[data-board=B1]").fill("pico-a")
    shot(page, "admin.png")
    page.click("#create-form button[type=submit]")
    page.wait_for_url(f"{server.url}/console/t1")
    view = hub.table_view("t1")
    assert "jackpot" in view["state"]["holes"]
    assert view["layout"][0]["board"] == "pico-a"
    assert page.js_errors == []


def test_play_page_fallback_renderer_plays_a_move(browser: Any, hub: Hub, server: ServerHandle) -> None:
    hub.create_table("triolet", seats=["Ana", "Ben"], seed=5, table_id="g1")
    to_move = hub.table_view("g1")["state"]["to_move"]
    console = new_page(browser)
    login(console, server, "/console/g1")
    link = console.locator(f".seats li[data-player='{to_move}'] a.seat-link").get_attribute("href")
    player = new_page(browser, locale="fr-FR")
    player.goto(link)  # claims the seat, then the play page
    player.goto(f"{server.url}/play/g1?renderer=fallback")
    button = player.locator(".fallback-actions button.action").first
    button.wait_for(timeout=10_000)
    assert player.locator("#play-status").inner_text() == "À vous de jouer"
    button.click()
    player.wait_for_selector("#game-root[data-your-turn='0']", timeout=10_000)
    assert hub.table_view("g1")["state"]["log"][0]["player"] == to_move
    shot(player, "play.png")
    assert player.js_errors == []


def test_the_workers_chromium_is_shared_clean_and_leaves_asyncio_free(chromium: Any) -> None:
    """Between browser tests (tests/conftest.py): no context of an earlier test is left
    open, and ``asyncio.run`` works in this thread (a doctest of web/wsgi_bridge.py uses
    it), which Playwright's sync API would refuse while it holds its loop."""
    async def answer() -> int:
        return 42

    assert chromium.is_connected() and chromium.contexts == []
    assert asyncio.run(answer()) == 42
