"""A floor throw decided by the throw gate (issue 28) shows on the console, the table's
page and the big screen like any other throw: a real hub fed over a real pty by a board
whose `throw` says it is weighed, and a real Chromium, in English and French."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from tests.hub.boards import wait_for
from tests.web.conftest import login_page, new_page, serial_board, shot

pytestmark = pytest.mark.browser


def floor_by_the_gate(hub: Hub, tmp_path: Path) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1",
                     options={"first": "Ana"}, referee={"landing_s": 0.5})
    board = serial_board(hub, tmp_path)
    board.event("throw", lane="L1", t_us=1_000_000, loadcell=True)  # this board weighs its board too
    board.event("weight", board_palets=0, t_us=2_000_000)  # the board's clock passes landing_s + DECIDE_S: the window closes
    assert wait_for(lambda: [a["throw"]["to"] for a in hub.export("t1")["actions"] if "throw" in a] == ["floor"],
                    timeout=15), hub.table_view("t1")["events"]


@pytest.mark.parametrize(("locale", "by_sensors", "floor"), [("en-GB", "Sensors", "floor"),
                                                                ("fr-FR", "Capteurs", "sol")])
def test_a_floor_throw_decided_by_the_gate_shows_like_any_other(hub: Hub, server: Any, browser: Any,
                                                               tmp_path: Path, locale: str, by_sensors: str,
                                                               floor: str) -> None:
    floor_by_the_gate(hub, tmp_path)
    for width, height in ((390, 844), (1920, 1080)):
        page = new_page(browser, locale=locale, width=width, height=height)
        login_page(page, server, "/console/t1")
        page.wait_for_function("() => document.body.innerText.includes('Ben')")
        text = page.inner_text("body")
        assert by_sensors in text and floor in text.lower(), text[:2000]
        shot(page, f"throw-line-console-{locale}-{width}.png")
        page.goto(f"{server.url}/tables/t1")
        page.wait_for_function("() => document.body.innerText.includes('Ben')")
        assert floor in page.inner_text("body").lower()
        shot(page, f"throw-line-table-{locale}-{width}.png")
        page.goto(f"{server.url}/big")
        page.wait_for_function("() => document.body.innerText.includes('Ana')")
        shot(page, f"throw-line-big-{locale}-{width}.png")
        assert page.js_errors == []
        page.context.close()
