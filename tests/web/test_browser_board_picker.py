"""Boards are picked from the connected ones, in any order (issue 32.21), in a real
Chromium beside real boards (the hub's serial link on pseudo-terminals): the admin's
layout positions (a hexagon's six) and a tournament's stations. A board a table in play
holds is shown taken; one already placed says where, and picking it again moves it; a
board not connected yet is still typed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import login_page, new_page, serial_board, shot
from web.server import ServerHandle

pytestmark = pytest.mark.browser

HEXAGON = ["0,0,up", "-1,0,down", "-1,0,up", "-1,-1,down", "0,-1,up", "0,-1,down"]


def test_the_hexagons_positions_take_connected_boards_in_any_order(
        browser: Any, hub: Hub, server: ServerHandle, tmp_path: Path) -> None:
    boards = [serial_board(hub, tmp_path, b) for b in ("pico-7", "pico-9", "pico-5")]
    try:
        hub.create_table("trigono", seats=["Ana", "Ben"], boards=["pico-5"], seed=1, table_id="t9")  # in play
        page = new_page(browser, locale="fr-FR")
        login_page(page, server, "/admin/")
        for cell in HEXAGON:
            page.locator(f"#layout-grid g[data-cell='{cell}']").click()
        picker = page.locator("#board-picker")
        # The connected free boards first, then the one a table in play holds: taken.
        assert picker.locator("li").evaluate_all("(lis) => lis.map((li) => li.dataset.board)") == ["pico-7", "pico-9", "pico-5"]
        assert picker.locator("li[data-board=pico-5] button").is_disabled()
        assert "utilisé à la table t9" in picker.locator("li[data-board=pico-5]").inner_text()
        assert "en ligne" in picker.locator("li[data-board=pico-7]").inner_text()
        # Position B4 first, then its board.
        page.locator("#bindings button[data-slot=B4]").click()
        assert page.locator("#bindings button[data-slot=B4]").get_attribute("aria-pressed") == "true"
        picker.locator("button[data-board=pico-9]").click()
        assert page.locator("#bindings b.bound[data-board=B4]").inner_text() == "pico-9"
        assert "B4" in picker.locator("li[data-board=pico-9]").inner_text()  # says where it is
        # A board with no position chosen: the first position without a connected board.
        picker.locator("button[data-board=pico-7]").click()
        assert page.locator("#bindings b.bound[data-board=B1]").inner_text() == "pico-7"
        # pico-9 moved to B2, explicitly: its button says so; B4 is left to be typed.
        page.locator("#bindings button[data-slot=B2]").click()
        assert "en B4\u00a0: le déplacer vers B2" in picker.locator("button[data-board=pico-9]").inner_text()
        picker.locator("button[data-board=pico-9]").click()
        assert page.locator("#bindings b.bound[data-board=B2]").inner_text() == "pico-9"
        assert page.locator("#bindings tr[data-slot=B4]").get_attribute("data-pending") == "true"
        page.locator("#bindings input[data-board=B4]").fill("pico-later")  # not connected yet: typed
        page.fill("textarea[name=players]", "Ana\nBen\nChloé")
        shot(page, "admin-board-picker.png")
        page.click("#create-form button[type=submit]")
        page.wait_for_url(f"{server.url}/console/t2")  # the hub's next id
        bound = {b["as"]: b["board"] for b in hub.table_view("t2")["layout"]}
        assert (bound["B1"], bound["B2"], bound["B4"]) == ("pico-7", "pico-9", "pico-later")
        assert page.js_errors == []
    finally:
        for board in boards:
            board.unplug()


def test_a_tournament_station_takes_connected_boards_in_their_order(
        browser: Any, hub: Hub, server: ServerHandle, tmp_path: Path) -> None:
    boards = [serial_board(hub, tmp_path, b) for b in ("pico-7", "pico-9")]
    try:
        svc = hub.tournaments
        svc.create({"name": "Open", "game": "trigono", "format": "swiss", "rounds": 2, "check_in": False},
                   tournament_id="S1")
        svc.submit("S1", {"type": "station", "station": {"id": "row0", "seats": 2, "boards": ["pico-7"]}})
        page = new_page(browser, locale="en-GB")
        login_page(page, server, "/tournaments/S1/admin")
        picker = page.locator("#station-picker")
        assert "at station row0" in picker.locator("li[data-board=pico-7]").inner_text()  # another station's
        field = page.locator("#station-boards")
        picker.locator("button[data-board=pico-9]").click()
        picker.locator("button[data-board=pico-7]").click()
        assert field.input_value() == "pico-9, pico-7"  # in the order clicked
        assert "number 1 in the list" in picker.locator("li[data-board=pico-9]").inner_text()
        picker.locator("button[data-board=pico-9]").click()  # out again
        assert field.input_value() == "pico-7"
        picker.locator("button[data-board=pico-9]").click()
        field.fill(field.input_value() + ", later-1")  # a board not connected yet, typed
        page.fill("#station-form input[name=station]", "row1")
        shot(page, "tournament-station-picker.png")
        page.click("#station-form button[type=submit]")
        page.wait_for_load_state()
        station = next(s for s in svc.view("S1")["stations"] if s["id"] == "row1")
        assert station["boards"] == ["pico-7", "pico-9", "later-1"]
        assert page.js_errors == []
    finally:
        for board in boards:
            board.unplug()
