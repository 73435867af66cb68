"""Board state, live on every screen (issue 32.9): when the hub decides a board dropped
out or came back, the referee's console, the table page and the big screen show it
without a reload, within 2 s. A real board on a pseudo-terminal, read by the hub's serial
link, and Chromium."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from tests.hub.boards import wait_for
from tests.web.conftest import login_page, new_page, serial_board
from web.server import ServerHandle

pytestmark = pytest.mark.browser


def board_status(hub: Hub, board: str) -> str | None:
    return next((b["status"] for b in hub.boards() if b["board"] == board), None)


def test_an_unplugged_board_shows_offline_on_the_console_table_page_and_big_screen_within_2_s(
    browser: Any, hub: Hub, server: ServerHandle, tmp_path: Path
) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1",
                     options={"first": "Ana"})
    board = serial_board(hub, tmp_path)
    plugged = True
    try:
        console = new_page(browser, locale="fr-FR")
        login_page(console, server, "/console/t1")
        console.locator(".board-states [data-board=B1][data-state=online]").wait_for()
        table_page = new_page(browser, locale="fr-FR")
        table_page.goto(server.url + "/tables/t1")
        big = new_page(browser, locale="en-GB", width=1920, height=1080)
        big.goto(server.url + "/big")
        for page in (table_page, big):
            page.locator("article[data-table=t1] .players").wait_for()
            assert page.locator("article[data-table=t1] .board-trouble").count() == 0  # all is well

        board.unplug()
        plugged = False
        assert wait_for(lambda: board_status(hub, "B1") == "lost", timeout=10)
        decided = time.monotonic()
        console.locator(".board-states [data-board=B1][data-state=offline]").wait_for(timeout=5_000)
        table_page.locator("article[data-table=t1] .board-trouble [data-board=B1][data-state=offline]").wait_for(timeout=5_000)
        big.locator("article[data-table=t1] .board-trouble [data-board=B1][data-state=offline]").wait_for(timeout=5_000)
        shown_after = time.monotonic() - decided
        assert shown_after < 2.0, f"the pages showed it {shown_after:.2f} s after the hub decided"
        assert "hors ligne" in console.locator("[data-readiness]").inner_text()
        assert table_page.locator(".board-trouble").inner_text() == "Plateau B1\u00a0: hors ligne"
        assert big.locator(".board-trouble").inner_text() == "Board B1: offline"

        board.plug()  # back: every page says so again, without a reload
        plugged = True
        board.event("hello", fw="test", config="c", holes=["big", "small"])
        console.locator(".board-states [data-board=B1][data-state=online]").wait_for(timeout=10_000)
        big.locator("article[data-table=t1] .board-trouble").wait_for(state="detached", timeout=10_000)
        assert console.js_errors == [] and table_page.js_errors == [] and big.js_errors == []
    finally:
        if plugged:
            board.unplug()
