"""The fleet page in Chromium (issue 33): sixty boards readable on a phone (390x844: one
card a board, nothing wider than the screen) and at 1080p, in English and French, with
no script or CSP error. The screenshots land in test-artifacts/ to be looked at."""

from __future__ import annotations

from typing import Any

import pytest

from hub.facade import Hub
from hub.sim.fleet import SimFleet
from tests.hub.boards import wait_for
from tests.web.conftest import ARTIFACTS, login_page, new_page, shot
from tests.web.test_fleet import sixty_boards
from web.server import ServerHandle


def busy_fleet(hub: Hub) -> SimFleet:
    """Sixty boards as on a festival morning: a few in trouble, three live tables, a
    rollout halted at its fourth board."""
    fleet = sixty_boards(hub)
    fleet.boot("S21", crash="MemoryError @node.py:212")
    fleet.boards["S33"].rssi = -87
    fleet.health("S33")
    for i, board in enumerate(("S12", "S13", "S14")):
        hub.create_table("trigono", seats=["Ana", "Ben"], boards=[board], seed=i, table_id=f"t{i + 1}")
    hub.create_table("trigono", seats=["Chloé", "Dan"], boards=["S61"], seed=9, table_id="t9")  # never heard
    assert hub.flush()
    hub.device_status(fleet, "S44", "lost", "sim:S44")
    fleet.fail["S04"] = "signature refused by the board"
    hub.start_rollout("1.1.0", {"version": "1.1.0"}, boards=[f"S{i:02d}" for i in range(1, 9)], wave=2)
    assert wait_for(lambda: hub.fleet_view()["rollout"]["state"] == "halted", 20)
    assert hub.flush()
    return fleet


@pytest.mark.browser
def test_sixty_boards_on_a_phone_and_a_laptop_in_both_languages(hub: Hub, server: ServerHandle,
                                                                browser: Any) -> None:
    busy_fleet(hub)
    for locale, lang in (("en-GB", "en"), ("fr-FR", "fr")):
        for width, height in ((390, 844), (1920, 1080)):
            page = new_page(browser, locale=locale, width=width, height=height)
            login_page(page, server, "/admin/fleet")
            assert page.locator("tr[data-board]").count() == 61
            first = [page.locator("tr[data-board]").nth(i).get_attribute("data-board") for i in range(2)]
            assert first == ["S44", "S61"]  # offline, never heard: most trouble first
            halted = page.locator("[data-halted]").inner_text()  # worded here, the board's own words beside
            assert {"en": "the board refused the update", "fr": "le plateau a refusé la mise à jour"}[lang] in halted
            assert "signature refused by the board" in halted
            wide = page.evaluate("() => document.documentElement.scrollWidth")
            assert wide <= width, f"{lang} {width}: the page is {wide} px wide"
            shot(page, f"fleet-{lang}-{width}x{height}.png")
            page.screenshot(path=str(ARTIFACTS / f"fleet-{lang}-{width}x{height}-screen.png"))  # what one sees first
            page.locator("#board-S07 td.actions summary").click()  # its actions menu, open
            page.locator("#board-S07").scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"fleet-{lang}-{width}x{height}-rows.png"))
            wide = page.evaluate("() => document.documentElement.scrollWidth")
            assert wide <= width, f"{lang} {width}: with a menu open the page is {wide} px wide"
            assert page.js_errors == []
            page.context.close()


@pytest.mark.browser
def test_the_open_page_follows_a_board_that_drops_off_and_keeps_an_open_menu(hub: Hub, server: ServerHandle,
                                                                             browser: Any) -> None:
    """Left open on the organizer's laptop, the page reloads itself (a short period set for
    the test): a board lost meanwhile shows as lost without a hand on the page; a board's
    action menu left open is not reloaded away."""
    fleet = sixty_boards(hub)
    assert hub.flush()
    server.app.config["FLEET_REFRESH_S"] = 1
    page = new_page(browser, width=1920, height=1080)
    login_page(page, server, "/admin/fleet")
    assert page.locator("#fleet-head").get_attribute("data-refresh-s") == "1"
    assert page.locator("#board-S44 .status").get_attribute("class") == "status online"
    hub.device_status(fleet, "S44", "lost", "sim:S44")
    assert hub.flush()
    page.wait_for_selector("#board-S44 .status.lost", timeout=10_000)
    assert page.locator("tr[data-board]").first.get_attribute("data-board") == "S44"  # the most trouble first
    loads: list[str] = []
    page.on("load", lambda _page: loads.append("load"))
    page.locator("#board-S07 td.actions summary").click()  # the organizer opens a menu...
    hub.device_status(fleet, "S45", "lost", "sim:S45")
    assert hub.flush()
    # ...and the page holds still for it: two periods go by without a reload.
    page.wait_for_function("() => Number(document.getElementById('fleet-head').dataset.held || 0) >= 2",
                           timeout=10_000)
    assert loads == [] and page.locator("#board-S07 td.actions details[open]").count() == 1
    assert page.locator("#board-S45 .status").get_attribute("class") == "status online"
    assert page.js_errors == []
    page.context.close()
