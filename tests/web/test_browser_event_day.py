"""Issue 26, event day second pass, in a real Chromium (Playwright) beside a real hub:
each test stands for one numbered item of the issue and failed before its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import BROWSER_PASSWORD, new_page, serial_board, shot
from tests.web.conftest import login_page as login
from web.__main__ import announce
from web.server import ServerHandle, start_server

pytestmark = pytest.mark.browser


def three_player_table(hub: Hub, table_id: str = "t1") -> None:
    hub.create_table("trigono", seats=["Ana", "Ben", "Chloé"], boards=["B1", "B2"], seed=3, table_id=table_id,
                     options={"first": "Ana"})


def wait_panel_at(page: Any, hub: Hub, table_id: str = "t1") -> None:
    """Until the console's panel shows the table as the hub has it now."""
    change = hub.table_view(table_id)["change_id"]
    page.wait_for_selector(f"#panel[data-change='{change}']", state="attached", timeout=10_000)


# -- item 1: live updates never replace what was typed -----------------------------------
def test_item1_console_keeps_typed_values_open_sections_and_focus_across_three_updates(
    browser: Any, hub: Hub, server: ServerHandle
) -> None:
    three_player_table(hub)
    for where in ("board:B1", "floor"):
        hub.submit("t1", {"landed": where, "by": "referee"})
    page = new_page(browser, locale="fr-FR")
    login(page, server, "/console/t1")
    page.locator("#manual summary").click()  # "Compter à la main" opened
    page.select_option("#amend-index", index=1)  # the older throw (Ana's, on B1)
    chosen = page.locator("#amend-index").input_value()
    page.select_option(".recount select[name=board]", "B2")
    count = page.locator(".recount input[name=count]")
    count.fill("7")
    count.press("Tab")  # focus moves on to the submit button: the field is no longer focused
    assert page.evaluate("document.activeElement.textContent") == page.locator(".recount button").inner_text()
    for where in ("board:B2", "B1.small", "floor"):  # three updates while the referee is busy
        hub.submit("t1", {"landed": where, "by": "referee"})
        wait_panel_at(page, hub)
    assert count.input_value() == "7"
    assert page.locator(".recount select[name=board]").input_value() == "B2"
    assert page.locator("#amend-index").input_value() == chosen
    assert page.locator("#manual details").get_attribute("open") is not None
    assert page.evaluate("document.activeElement.closest('form').dataset.form") == "recount"
    page.keyboard.press("Enter")  # submits what was typed, with the view's (fresh) version
    page.wait_for_url(f"{server.url}/console/t1")
    assert page.locator(".flash.error").count() == 0
    recounts = [a for a in hub.table_view("t1")["events"] if (a.get("params") or {}).get("key") == "recount"]
    assert recounts and recounts[-1]["params"]["value"] == {"board": "B2", "count": 7}
    assert page.js_errors == []


def test_item1_a_stale_answer_is_refused_plainly_and_the_fresh_question_shown(
    browser: Any, hub: Hub, server: ServerHandle
) -> None:
    three_player_table(hub)
    late = new_page(browser, locale="fr-FR")
    login(late, server, "/console/t1")
    late.route("**/api/stream**", lambda route: route.abort())  # this tablet misses the update
    late.reload()
    assert "Ana" in late.locator(".prompt[data-kind=landed] .question").inner_text()
    hub.submit("t1", {"landed": "floor", "by": "referee"}, version=hub.table_view("t1")["version"])
    late.locator(".prompt[data-kind=landed] button[data-choice='board:B1']").click()
    late.locator(".flash.error").wait_for()
    assert "Un autre arbitre a déjà répondu" in late.locator(".flash.error").inner_text()
    assert "Ben" in late.locator(".prompt[data-kind=landed] .question").inner_text()  # the question now
    assert late.url == f"{server.url}/console/t1"  # a reload does not post the old answer again
    assert [a["action"]["throw"]["to"] for a in hub.table_view("t1")["state"]["log"]] == ["floor"]
    shot(late, "issue26-stale.png")


# -- item 2: readiness is what the boards are -------------------------------------------
def test_item2_boards_that_never_connected_are_not_armed_and_a_live_one_is(
    browser: Any, hub: Hub, server: ServerHandle, tmp_path: Path
) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["pico-A", "pico-B"], seed=1, table_id="typo",
                     options={"first": "Ana"})
    assert hub.table_view("typo")["armed"]  # the hub arms the table: its boards are another matter
    page = new_page(browser, locale="fr-FR")
    login(page, server, "/console/typo")
    status = page.locator(".status-line .armed")
    assert status.get_attribute("data-readiness") == "never_seen"
    assert "Capteurs armés" not in page.locator("#panel").inner_text()
    assert "jamais connecté" in status.inner_text()
    assert page.locator(".board-state[data-board=pico-A]").get_attribute("data-state") == "never_seen"
    assert "jamais vu" in page.locator(".board-state[data-board=pico-B]").inner_text()
    shot(page, "issue26-never-seen.png")
    board = serial_board(hub, tmp_path, "B1")  # a real board on a pseudo-terminal, said hello
    try:
        hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=1, table_id="real",
                         options={"first": "Ana"})
        page.goto(server.url + "/console/real")
        assert page.locator(".status-line .armed").get_attribute("data-readiness") == "armed"
        line = page.locator(".board-state[data-board=B1]")
        assert line.get_attribute("data-state") == "online"
        assert "dernier contact il y a" in line.inner_text()
    finally:
        board.unplug()
    assert page.js_errors == []


# -- item 11: bind from the connected free boards ----------------------------------------
def test_item11_admin_binds_a_connected_free_board_from_a_list(
    browser: Any, hub: Hub, server: ServerHandle, tmp_path: Path
) -> None:
    board = serial_board(hub, tmp_path, "pico-7")
    try:
        page = new_page(browser, locale="fr-FR")
        login(page, server, "/admin/")
        page.locator("#layout-grid g[data-cell='0,0,up']").click()
        page.locator("#layout-grid g[data-cell='-1,0,down']").click()
        first = page.locator("#bindings select[data-board=B1]")
        assert first.input_value() == "pico-7"  # the connected free board, offered first
        assert "pico-7" in first.locator("option").first.inner_text()
        # The second has no connected board left: typed in, and said to be not connected yet.
        second = page.locator("#bindings tr[data-pending=true]")
        assert "pas encore connecté" in second.inner_text()
        second.locator("input[data-board=B2]").fill("pico-8")
        page.fill("textarea[name=players]", "Ana\nBen")
        shot(page, "issue26-bind.png")
        page.click("#create-form button[type=submit]")
        page.wait_for_url(f"{server.url}/console/t1")
        assert [b["board"] for b in hub.table_view("t1")["layout"]] == ["pico-7", "pico-8"]
        assert page.locator(".board-state[data-board=pico-8]").get_attribute("data-state") == "never_seen"
        assert page.locator(".board-state[data-board=pico-7]").get_attribute("data-state") == "online"
    finally:
        board.unplug()
    assert page.js_errors == []


# -- item 3: addresses and QR codes that answer ------------------------------------------
def game_with_seat(hub: Hub) -> None:
    hub.create_table("trike", seats=[{"name": "Lou", "bot": False}, {"name": "Robot", "bot": True}], seed=1,
                     table_id="g1")


def test_item3_served_on_loopback_only_the_pages_say_so_and_show_no_qr(browser: Any, hub: Hub) -> None:
    game_with_seat(hub)
    handle = start_server(hub, host="127.0.0.1", password=BROWSER_PASSWORD, max_streams=8)
    try:
        announce(handle.app, "127.0.0.1", handle.url)
        page = new_page(browser, locale="fr-FR")
        login(page, handle, "/console/g1")
        page.locator(".seat-share summary").first.click()
        assert page.locator(".seats [data-notice=loopback-only]").count() == 1
        assert "ne sert que cet ordinateur" in page.locator(".seats .notice").inner_text()
        assert page.locator(".seats img.qr").count() == 0
        assert page.locator(".seats .notice a").count() == 0  # no LAN address that is not served
        page.goto(handle.url + "/admin/")
        assert page.locator("[data-notice=loopback-only]").count() == 1
        assert page.locator(".share img.qr").count() == 0
        shot(page, "issue26-loopback-admin.png")
    finally:
        handle.close()


def test_item3_public_url_wins_on_console_admin_and_match_sheets(browser: Any, hub: Hub) -> None:
    game_with_seat(hub)
    public = "http://hall.example:8080"
    handle = start_server(hub, host="127.0.0.1", password=BROWSER_PASSWORD, max_streams=8,
                          config={"PUBLIC_URL": public})
    try:
        announce(handle.app, "127.0.0.1", handle.url)
        page = new_page(browser)
        login(page, handle, "/console/g1")
        assert page.locator(".seats .notice").count() == 0
        link = page.locator(".seats a.seat-link").first.get_attribute("href")
        assert link and link.startswith(public + "/play/g1/join?seat=")
        assert page.locator(".seats img.qr").count() == 1
        page.goto(handle.url + "/admin/")
        assert page.locator(".share img.qr").count() == 3
        assert all(c.startswith(public + "/") for c in page.locator(".share code").all_inner_texts())
        status = page.evaluate(
            """async () => {
                const headers = {'Content-Type': 'application/json',
                                 'X-CSRFToken': document.querySelector('meta[name=csrf-token]').content};
                let r = await fetch('/api/tournaments', {method: 'POST', headers,
                    body: JSON.stringify({id: 'cup', name: 'Coupe', game: 'trike', format: 'pools'})});
                for (const name of ['Ana', 'Ben', 'Chloé', 'Dan']) {
                    r = await fetch('/api/tournaments/cup/entries', {method: 'POST', headers,
                        body: JSON.stringify({type: 'register', player: {name}})});
                }
                r = await fetch('/api/tournaments/cup/entries', {method: 'POST', headers,
                    body: JSON.stringify({type: 'start'})});
                return r.status;
            }""")
        assert status in (200, 201)
        page.goto(handle.url + "/tournaments/cup/sheets")
        captions = page.locator(".sheet-qr figcaption").all_inner_texts()
        assert captions and all(c.startswith(public + "/tournaments/cup/matches/") for c in captions)
        # The QR code sits beside the header, not over the score table (item 13).
        qr = page.locator(".sheet .qr").first.bounding_box()
        table = page.locator(".sheet .sheet-table").first.bounding_box()
        assert qr and table and qr["y"] + qr["height"] <= table["y"]
        shot(page, "issue26-sheets.png")
    finally:
        handle.close()


def test_item3_a_lan_bind_gives_the_lan_address(browser: Any, hub: Hub) -> None:
    from web.addresses import lan_addresses

    if not lan_addresses():
        pytest.skip("this machine has no LAN address")
    game_with_seat(hub)
    handle = start_server(hub, host="0.0.0.0", password=BROWSER_PASSWORD, max_streams=8)
    try:
        shown = announce(handle.app, "0.0.0.0", handle.url)
        lan = lan_addresses()[0][1]
        assert shown["public_url"] and lan in shown["public_url"]
        page = new_page(browser)
        login(page, handle, "/console/g1")  # opened at 127.0.0.1
        link = page.locator(".seats a.seat-link").first.get_attribute("href")
        assert link and link.startswith(f"http://{lan}:")
        assert page.locator(".seats img.qr").count() == 1
    finally:
        handle.close()
