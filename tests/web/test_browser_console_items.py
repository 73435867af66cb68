"""Issue 26 items 6, 7 and 8 (the referee console), in a real Chromium (Playwright) beside
a real hub: one numbering for actions, correction choices and Void offered only where
the hub takes them, an undone throw off the band, and who starts a round and why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hub.errors import RefusedError
from hub.facade import Hub
from tests.web.conftest import login_page as login
from tests.web.conftest import new_page, serial_board, shot
from tests.web.test_event_day import wait_for
from web.server import ServerHandle

pytestmark = pytest.mark.browser

FIVE = ["Ana", "Ben", "Chloé", "Dan", "Elodie"]
ELODIE_DRAWN = 5  # the seed that draws Elodie, the fifth seat, to throw first (checked below)


def three_throws(hub: Hub) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben", "Chloé"], boards=["B1", "B2"], seed=3, table_id="t1",
                     options={"first": "Ana"})
    for where in ("board:B1", "floor", "board:B2"):  # Ana, Ben, Chloé
        hub.submit("t1", {"landed": where, "by": "referee"})


# -- item 6: one numbering, from 1 ----------------------------------------------------------
@pytest.mark.parametrize(("locale", "corrected"), [("en-GB", "corrected action 2 to"),
                                                   ("fr-FR", "a corrigé l’action 2 en")])
def test_item6_the_correction_form_and_the_log_count_actions_alike_from_1(
    browser: Any, hub: Hub, server: ServerHandle, locale: str, corrected: str
) -> None:
    three_throws(hub)
    page = new_page(browser, locale=locale)
    login(page, server, "/console/t1")
    ben = page.locator("#amend-index option[value='1']")  # the record's index 1: Ben's throw
    assert ben.inner_text().startswith("2. Ben")
    page.select_option("#amend-index", "1")
    page.select_option("#amend select[name=to]", "board:B2")
    page.locator("#amend button[type=submit]").click()
    page.wait_for_url(f"{server.url}/console/t1")
    assert hub.table_view("t1")["state"]["log"][1]["action"]["throw"] == {"player": "Ben", "to": "board:B2"}
    log = page.locator(".events-table").inner_text()
    assert corrected in log  # the same number as the form's "2. Ben"
    assert page.locator("#amend-index option[value='1']").inner_text().startswith("2. Ben")
    assert page.js_errors == []


def test_item6_refusals_name_the_action_as_the_form_counts_it(hub: Hub, server: ServerHandle, browser: Any) -> None:
    three_throws(hub)
    page = new_page(browser)
    login(page, server, "/console/t1")
    # A form posted for action 7 of a 3-action record (e.g. from a page left open on an
    # older table): the refusal names it as the form would, "7", not the hub's index 6.
    token = page.locator("#amend input[name=csrf_token]").input_value()
    response = page.request.post(f"{server.url}/api/tables/t1/input", headers={"X-CSRFToken": token, "Accept-Language": "en"},
                                 data={"amend": {"index": 6, "action": {"throw": {"player": "Ana", "to": "floor"}}}})
    assert response.status == 400, response.text()
    assert response.json()["error"]["text"] == "There is no action 7.", response.json()


# -- item 7: correction choices and Void only where they apply; undone throws off the band --
def test_item7_really_went_lists_each_place_once(browser: Any, hub: Hub, server: ServerHandle) -> None:
    three_throws(hub)
    page = new_page(browser, locale="fr-FR")
    login(page, server, "/console/t1")
    values = page.locator("#amend select[name=to] option").evaluate_all("(options) => options.map((o) => o.value)")
    assert len(values) == len(set(values)), values
    assert set(values) == set(hub.table_view("t1")["places"])
    labels = page.locator("#amend select[name=to] option").all_inner_texts()
    assert len(labels) == len(set(labels)), labels
    assert page.js_errors == []


def test_item7_void_is_offered_only_on_sensor_drops_the_hub_will_take_out(
    browser: Any, hub: Hub, server: ServerHandle, tmp_path: Path
) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1", options={"first": "Ana"},
                     referee={"settle_s": 0.05})
    board = serial_board(hub, tmp_path)
    try:
        board.event("drop", hole="small")  # Ana's throw
        assert wait_for(lambda: len(hub.table_view("t1")["state"]["log"]) == 1, timeout=10)
        board.event("drop", hole="big")  # Ben's throw
        assert wait_for(lambda: len(hub.table_view("t1")["state"]["log"]) == 2, timeout=10)
        drops = [e for e in hub.table_view("t1")["events"] if e["source"] == "device" and e["kind"] == "drop"]
        ana, ben = drops[-2]["id"], drops[-1]["id"]
        page = new_page(browser, locale="fr-FR")
        page.on("dialog", lambda dialog: dialog.accept())
        login(page, server, "/console/t1")
        # Taking Ana's old throw out would make Ben's throw hers: the hub refuses that, so
        # the console does not offer it ...
        assert page.locator(f"tr[data-entry='{ana}'] button[data-input=void]").count() == 0
        with pytest.raises(RefusedError):
            hub.submit("t1", {"void": ana, "by": "referee"})
        # ... and offers the last one, which it takes.
        page.locator(f"tr[data-entry='{ben}'] button[data-input=void]").click()
        page.wait_for_selector(f"tr[data-entry='{ben}'].voided", timeout=10_000)
        assert page.locator(".flash.error").count() == 0
        assert [a["player"] for a in hub.table_view("t1")["state"]["log"]] == ["Ana"]
        # Now Ana's throw is the last: a void of it is accepted, so it is offered.
        page.locator(f"tr[data-entry='{ana}'] button[data-input=void]").wait_for()
        shot(page, "issue26-item7-void.png")
    finally:
        board.unplug()
    assert page.js_errors == []


@pytest.mark.parametrize(("locale", "big", "undone"), [
    ("en-GB", "Big hole — Ben takes", "Ben's throw undone"),
    ("fr-FR", "Grand trou — Ben prend", "Lancer de Ben annulé"),
])
def test_item7_an_undone_throw_leaves_the_big_screens_band_and_a_later_page_never_shows_it(
    browser: Any, hub: Hub, server: ServerHandle, locale: str, big: str, undone: str
) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1", "B2"], seed=7, table_id="t1",
                     options={"first": "Ana"})
    hub.submit("t1", {"landed": "board:B1", "by": "referee"})
    page = new_page(browser, locale=locale, width=1920, height=1080)
    page.goto(f"{server.url}/big?tables=t1")
    page.locator("#tables article[data-table=t1]").wait_for()
    # The live stream may connect after the page shows the table: throw again until the band
    # says it (each throw is undone below, so only the last one counts).
    band = page.locator("#announce")

    def band_says(text: str) -> bool:
        return bool(page.evaluate("(t) => document.getElementById('announce').innerText.includes(t)", text))

    hub.submit("t1", {"landed": "B1.big", "by": "referee"})  # Ben's palet in B1's big hole
    for _ in range(20):
        try:
            page.wait_for_function("(t) => document.getElementById('announce').innerText.includes(t)",
                                   arg=big, timeout=1000)
            break
        except Exception:  # the stream was not connected yet: say it again
            hub.submit("t1", {"undo": True, "by": "referee"})
            hub.submit("t1", {"landed": "B1.big", "by": "referee"})
    assert band_says(big)
    hub.submit("t1", {"undo": True, "by": "referee"})
    page.wait_for_function("(t) => document.getElementById('announce').innerText.includes(t)", arg=undone)
    assert big not in band.inner_text()
    shot(page, f"issue26-item7-undone-{locale}.png")
    later = new_page(browser, locale=locale, width=1920, height=1080)  # opened after the undo
    later.goto(f"{server.url}/big?tables=t1")
    later.locator("#tables article[data-table=t1]").wait_for()
    assert big not in later.locator("body").inner_text()
    assert page.js_errors == [] and later.js_errors == []


# -- item 8: who starts and why; seats in play order -------------------------------------
def test_item8_a_drawn_first_thrower_is_said_drawn_and_the_seats_start_with_her_T4(
    browser: Any, hub: Hub, server: ServerHandle
) -> None:
    hub.create_table("trigono", seats=FIVE, boards=["B1", "B2"], seed=ELODIE_DRAWN, table_id="t5")
    assert hub.table_view("t5")["state"]["to_move"] == "Elodie"
    page = new_page(browser, locale="fr-FR")
    login(page, server, "/console/t5")
    note = page.locator(".prompts .starter-note")
    assert note.inner_text() == "Elodie commence la manche 1\u00a0: tirage au sort"
    assert page.locator(".seats li").evaluate_all("(items) => items.map((li) => li.dataset.player)") == \
        ["Elodie", "Ana", "Ben", "Chloé", "Dan"]
    assert "Elodie commence la manche 1" in page.locator(".seats").inner_text()
    shot(page, "issue26-item8-drawn-fr.png")
    # Elodie has thrown (into a hole: her palet comes back to her hand), the question is Ana's
    hub.submit("t5", {"landed": "B1.small", "by": "referee"})
    page.locator(".prompt .question:has-text('Ana')").wait_for()
    assert note.count() == 0
    assert "Elodie commence la manche 1" in page.locator(".seats").inner_text()  # still said beside the seats
    assert page.js_errors == []


def test_item8_a_first_thrower_named_at_set_up_is_said_chosen_T4(browser: Any, hub: Hub, server: ServerHandle) -> None:
    hub.create_table("trigono", seats=FIVE, boards=["B1", "B2"], seed=ELODIE_DRAWN, table_id="t5",
                     options={"first": "Dan"})
    page = new_page(browser)
    login(page, server, "/console/t5")
    assert page.locator(".prompts .starter-note").inner_text() == \
        "Dan starts round 1: chosen when the table was set up"
    assert page.locator(".seats li").evaluate_all("(items) => items.map((li) => li.dataset.player)") == \
        ["Dan", "Elodie", "Ana", "Ben", "Chloé"]
    assert page.locator(".seats li.to-move").get_attribute("data-player") == "Dan"
    assert page.js_errors == []


@pytest.mark.parametrize(("locale", "said"), [("en-GB", "Elodie starts round 1: drawn by lot"),
                                              ("fr-FR", "Elodie commence la manche 1\u00a0: tirage au sort")])
def test_item8_the_tables_page_says_who_starts_and_lists_the_players_in_play_order_T4(
    browser: Any, hub: Hub, server: ServerHandle, locale: str, said: str
) -> None:
    hub.create_table("trigono", seats=FIVE, boards=["B1", "B2"], seed=ELODIE_DRAWN, table_id="t5")
    page = new_page(browser, locale=locale)
    page.goto(f"{server.url}/tables/t5")
    page.locator("article[data-table=t5] .status-line .starter").wait_for()
    card = page.locator("article[data-table=t5]")
    assert card.locator(".status-line .starter").inner_text() == said
    rows = card.locator("table.players tr")
    assert rows.evaluate_all("(rows) => rows.map((tr) => tr.dataset.player)") == ["Elodie", "Ana", "Ben", "Chloé", "Dan"]
    # each keeps the colour of her seat: Elodie is the fifth seat's
    assert card.locator("tr[data-player=Elodie] .dot").get_attribute("class") == "dot p4"
    shot(page, f"issue26-item8-table-{locale}.png")
    hub.submit("t5", {"landed": "B1.small", "by": "referee"})  # once she has thrown (a hole: hand full again), the line goes
    page.wait_for_function("() => !document.querySelector('article[data-table=t5] .status-line .starter')")
    assert page.js_errors == []


def test_the_questions_keep_focus_across_a_live_refresh(browser: Any, hub: Hub, server: ServerHandle) -> None:
    """The skip link's target (#questions) kept focus only until the next refresh of the
    panel (the stream's first snapshot could land right after the Enter: issue 26 item 12's
    test failed about one run in three)."""
    three_throws(hub)
    page = new_page(browser)
    login(page, server, "/console/t1")
    page.locator("a.skip-link").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "questions"
    hub.submit("t1", {"landed": "floor", "by": "referee"})  # Ana: the panel is redrawn
    change = hub.table_view("t1")["change_id"]
    page.wait_for_selector(f"#panel[data-change='{change}']", state="attached", timeout=10_000)
    assert page.evaluate("document.activeElement.id") == "questions"
    assert page.js_errors == []
