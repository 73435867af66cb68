"""The winning board stays on the screens until the palets are collected (issue 32.19): the
engine starts the next round within the round's last throw, so the big screen and the
table page jumped to an empty board and the spectators never saw the winning one. They
now show the board as that throw left it, who won the round and that the palets are being
picked up, until the referee starts the next round (the console's "palets collected"
prompt: the hub's ``next_round`` input); then the next round."""

from __future__ import annotations

from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import new_page
from web.server import ServerHandle

pytestmark = pytest.mark.browser

# Ana, Ben, Ana: Ana's second palet on the board leaves her none, Ben wins round 1 with
# one palet on B1 (the engine then starts round 2 with an empty board).
WINNING_ROUND = ["board:B1", "B1.big", "board:B1"]


def on_board(page: Any) -> str:
    return str(page.locator("#tables svg.layout g[data-board=B1] .board-count, main svg.layout g[data-board=B1] .board-count")
               .first.text_content())


@pytest.mark.parametrize("path", ["/big?tables=t1", "/tables/t1"])
def test_the_winning_board_stays_until_the_palets_are_collected(browser: Any, hub: Hub, server: ServerHandle, path: str) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1",
                     options={"first": "Ana", "palets_per_player": 2})
    page = new_page(browser, width=1920, height=1080)
    page.goto(f"{server.url}{path}")
    page.locator("svg.layout g[data-board=B1]").first.wait_for()
    for where in WINNING_ROUND:
        view = hub.submit("t1", {"landed": where})
    assert view["state"]["round"] == 2 and view["state"]["boards"] == {"B1": 0}  # the engine is in round 2 already
    assert view["round_end"]["boards"] == {"B1": 1} and not view["armed"]
    status = page.locator("article[data-table=t1] .status-line .round-end")
    status.wait_for()
    assert status.inner_text() == "Round 1 to Ben"
    assert "palets being collected" in page.locator("article[data-table=t1] .status-line").inner_text()
    assert on_board(page) == "1"  # the winning board, not round 2's empty one
    hands = page.locator("article[data-table=t1] .players td.hand")
    assert sorted(hands.all_inner_texts()) == ["0", "3"]
    if path.startswith("/big"):
        assert "Round 1" in page.locator("#big-head").inner_text()
    # The referee says the palets are collected: the next round shows.
    hub.submit("t1", {"next_round": True})
    page.wait_for_function("""() => !document.querySelector('article[data-table=t1] .status-line .round-end')""")
    assert on_board(page) == "0"
    if path.startswith("/big"):
        assert "Round 2" in page.locator("#big-head").inner_text()
    assert page.js_errors == []
