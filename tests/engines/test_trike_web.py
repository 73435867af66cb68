"""The Trike renderer (web/static/games/trike.js) in a real Chromium against the real hub
and web app: K3 swap offered, K4 reachable cells highlighted and playable, K6 score shown."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.browser


@pytest.fixture
def site() -> Iterator[tuple[Any, Any]]:
    from hub.facade import Hub
    from web.server import start_server

    hub = Hub(":memory:", settle_s=0.05, bot_budget_s=0.1)
    hub.start()
    server = start_server(hub, password="pw-trike", max_streams=4)
    yield hub, server
    server.close()
    hub.close()


def wait_for(predicate: Any, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        time.sleep(0.05)


def test_K3_K4_K6_play_page_offers_swap_highlights_targets_and_shows_score(browser: Any, site: tuple[Any, Any]) -> None:
    from web.security import seat_token

    hub, server = site
    hub.create_table("trike", options={"size": 5}, seats=[{"name": "Bot", "bot": True}, {"name": "Ana"}],
                     seed=3, table_id="k1")
    with server.app.test_request_context():
        token = seat_token("k1", "Ana")
    state = lambda: hub.table_view("k1")["state"]  # noqa: E731
    wait_for(lambda: len(state()["log"]) == 1)  # the bot opened
    page = browser.new_context(locale="en-GB").new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(f"{server.url}/play/k1/join?seat={token}")
    swap = page.locator("button[data-action=swap]")
    swap.wait_for(timeout=10_000)
    targets = page.eval_on_selector_all(".trike-cell.target", "els => els.map(e => e.dataset.cell)")
    assert targets == [a for a in state()["legal_moves"] if a != "swap"]
    swap.click()
    wait_for(lambda: [e["action"] for e in state()["log"]][1:2] == ["swap"])
    assert state()["colors"]["Ana"] == "black"
    while state()["status"] != "over":
        if state()["to_move"] == "Ana":
            count = len(state()["log"])
            # the page shows this very state: its log list starts at the log length
            page.locator(f'ol.trike-log[start="{count}"]').wait_for(timeout=10_000)
            page.locator(".trike-cell.target").first.click()
            wait_for(lambda n=count: len(state()["log"]) > n)
        else:
            time.sleep(0.05)
    final = state()
    page.locator(".trike-result").wait_for(timeout=10_000)
    panel = page.inner_text(".trike-players")
    for player, points in final["scores"].items():
        assert f"{player}" in panel and f"{points} pt" in panel
    assert page.locator(".scoring").count() >= 3  # the pawn's cell and its neighbours
    assert errors == []
