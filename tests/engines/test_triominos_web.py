"""The Triominos play page in a real browser (Chromium via Playwright, as tests/web does):
the table drawn as numbered triangles, legal spots highlighted, a human move made by
clicking a rack tile then a spot, the bot answering, and a bonus announced."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engines.triominos import TriominosGame
from engines.triominos.bot import greedy_choose
from hub.facade import Hub
from tests.web.conftest import (  # noqa: F401  (fixtures: hub, server; browser is tests/conftest.py's)
    hub,
    new_page,
    server,
    shot,
)
from tests.web.conftest import login_page as login
from web.server import ServerHandle

pytestmark = pytest.mark.browser


def _seat_page(browser: Any, server: ServerHandle, table: str, player: str) -> Any:  # noqa: F811
    console = new_page(browser)
    login(console, server, f"/console/{table}")
    link = console.locator(f".seats li[data-player='{player}'] a.seat-link").get_attribute("href")
    page = new_page(browser, locale="en-GB")
    page.goto(link)
    return page


def test_triominos_page_draws_tiles_highlights_spots_and_plays(
    browser: Any, hub: Hub, server: ServerHandle  # noqa: F811
) -> None:
    hub.create_table("triominos", seats=[{"name": "Ana", "bot": False}, {"name": "Bot", "bot": True}],
                     seed=5, table_id="m1")
    page = _seat_page(browser, server, "m1", "Ana")
    page.wait_for_selector("#game-root[data-your-turn='1'] svg.triominos-board", timeout=20_000)
    before = len(hub.table_view("m1")["state"]["log"])
    board = hub.table_view("m1")["state"]["board"]
    # every tile on the table is a triangle with its three numbers
    assert page.locator("svg.triominos-board g.tile").count() == len(board)
    for n, tile in enumerate(board):
        numbers = page.locator("svg.triominos-board g.tile").nth(n).locator("text.num").all_inner_texts()
        assert sorted(numbers) == sorted(str(v) for v in tile["corners"])
    spots = page.locator("svg.triominos-board g.spot")
    if spots.count() == 0:  # nothing fits: the draw button is there
        page.locator("button[data-action=draw]").click()
    else:
        fitting = page.locator(".triominos-rack button.rack-tile.fits").first
        fitting.click()
        page.locator("svg.triominos-board g.spot").first.click()
        choice = page.locator("button.turn-choice")
        if choice.count():
            choice.first.click()
    page.wait_for_function(
        f"() => document.querySelectorAll('.triominos-log li').length > {before}", timeout=20_000)
    after = hub.table_view("m1")["state"]["log"]
    assert len(after) > before and after[before]["player"] == "Ana"
    # the bot answers and the page follows
    page.wait_for_function(
        f"() => document.querySelectorAll('.triominos-log li').length > {before + 1}", timeout=20_000)
    assert page.locator(".triominos-players tr[data-player=Ana] .score").inner_text() != ""
    shot(page, "triominos.png")
    assert page.js_errors == []


def test_triominos_page_announces_a_bonus(
    browser: Any, hub: Hub, server: ServerHandle  # noqa: F811
) -> None:
    # find, with the engine, a seeded greedy game whose n-th move earns a bonus ...
    moves: list[Any] = []
    for seed in range(1, 100):
        state = TriominosGame().new_initial_state(random.Random(seed))
        rng = random.Random(seed)
        moves = []
        while not state.is_terminal() and not (state.log and state.log[-1]["bonus"]):
            action = greedy_choose(state, rng)
            moves.append(state.game.action_to_json(action))
            state.apply(action)
        if state.log and state.log[-1]["bonus"]:
            break
    bonus = state.log[-1]["bonus"]
    # ... then play those moves on a hub table with the same seed and open its page
    hub.create_table("triominos", seats=["P1", "P2"], seed=seed, table_id="b1")
    for move in moves:
        hub.submit("b1", {"move": move})
    assert hub.table_view("b1")["state"]["log"][-1]["bonus"] == bonus
    page = new_page(browser, locale="en-GB")
    page.goto(f"{server.url}/play/b1")
    announce = page.locator(".triominos-announce")
    announce.wait_for(timeout=20_000)
    assert announce.get_attribute("data-bonus") == bonus
    texts = {"bridge": "Bridge! +40", "hexagon": "Hexagon! +50",
             "double_hexagon": "Double hexagon! +60", "triple_hexagon": "Triple hexagon! +70"}
    assert texts[bonus] in announce.inner_text()
    assert page.locator(".triominos-log li.bonus").count() >= 1
    shot(page, "triominos-bonus.png")
    assert page.js_errors == []
