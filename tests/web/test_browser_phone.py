"""A player's phone in a real Chromium (issue 34.5 "Done when"): the page, open and
waiting, calls the player within 5 s of their table becoming free — the previous match
ended by simulated sensors (a throw-line button, a drop, the board's clock), nobody
typing — with the beep, the call on screen and a notification (permission granted);
then "call the referee" from the phone reaches the referee console, where a logged-in
referee takes it, and the call leaves the screens."""

from __future__ import annotations

import time
from typing import Any

import pytest

from hub.devices.transport import FakeTransport
from hub.facade import Hub
from tests.web.conftest import login_page, new_page, server, wait_settled, watch_settling  # noqa: F401
from tests.web.test_accessibility import serious_violations
from web.server import ServerHandle

pytestmark = pytest.mark.browser

CALL_DEADLINE_MS = 5000  # the promise: called within 5 s of the table becoming free


class Board:
    """A simulated sensor board on the hub's device path (protocol v1 messages)."""

    def __init__(self, hub: Hub, board: str) -> None:
        self.link, self.board, self.seq = FakeTransport(), board, 0
        hub.add_transport(self.link)

    def event(self, kind: str, **fields: Any) -> None:
        self.seq += 1
        self.link.inject({"type": kind, "board": self.board, "boot": 1, "seq": self.seq,
                          "t_us": self.seq * 1_000_000, **fields})

    def clock(self) -> None:
        """A health message: the board's clock has passed the settle window."""
        self.link.inject({"type": "health", "board": self.board, "boot": 1, "seq": self.seq,
                          "t_us": (self.seq + 1) * 1_000_000, "uptime_s": 60, "mem_free": 10_000,
                          "beams": {}, "counters": {}, "overflow": 0})


def test_the_phone_calls_the_player_within_5_s_of_a_sensor_ended_match(
        browser: Any, hub: Hub, server: ServerHandle) -> None:  # noqa: F811
    svc = hub.tournaments
    svc.create({"name": "Vendredi", "game": "trigono", "format": "swiss", "rounds": 1, "check_in": False,
                "options": {"palets_per_player": 1, "rounds_to_win": 1}}, tournament_id="T1")
    svc.submit("T1", {"type": "station", "station": {"id": "7", "seats": 2, "boards": ["S7"]}})
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        svc.submit("T1", {"type": "register", "player": {"name": name}})
    view = svc.submit("T1", {"type": "start"})
    playing = next(m for m in view["matches"] if m["status"] == "called")
    waiting = next(m for m in view["matches"] if m["status"] == "ready")
    board = Board(hub, "S7")
    board.event("hello", fw="t", config="c", holes=["big", "small"])

    from web.phone import entry_token
    with server.app.test_request_context():
        me = f"{server.url}/me/T1/{entry_token('T1', waiting['players'][0])}"
    page = new_page(browser, locale="fr-FR", width=390, height=844)
    page.context.grant_permissions(["notifications"], origin=server.url)
    watch_settling(page)
    page.goto(me)
    wait_settled(page)
    assert page.locator("#phone-body").get_attribute("data-call") == ""
    page.click("#alerts-on")  # sound needs a tap first
    page.wait_for_function("() => window.__phoneAlerts.includes('beep')")

    # The match in play ends by the sensors alone: its first thrower's palet on the floor
    # (the throw-line button), the other's last chance into the small hole, the board's clock.
    board.event("button", button="floor")
    board.event("drop", hole="small")
    ended = time.monotonic()
    board.clock()
    page.wait_for_function("() => document.body.classList.contains('ringing')", timeout=CALL_DEADLINE_MS)
    assert time.monotonic() - ended < CALL_DEADLINE_MS / 1000
    call = f"{waiting['id']}@7"
    assert page.locator("#phone-body").get_attribute("data-call") == call
    assert page.locator(".callup-where").inner_text().casefold() == "poste 7"
    alerts = page.evaluate("() => window.__phoneAlerts")
    assert f"call:{call}" in alerts and "notification" in alerts and alerts.count("beep") >= 2
    # Read in sunlight: no serious contrast (or other) fault in the call-up (axe-core).
    page.emulate_media(reduced_motion="reduce")
    assert serious_violations(page) == []
    assert [m["status"] for m in svc.view("T1")["matches"] if m["id"] == playing["id"]] == ["done"]
    page.click("#on-my-way")
    page.wait_for_function("() => !document.body.classList.contains('ringing')")

    # "Call the referee" from the phone: on the console, taken by a logged-in referee.
    console = new_page(browser, locale="fr-FR")
    login_page(console, server, "/console/")
    page.click("#call-referee")
    page.wait_for_selector("#referee-coming")
    table = next(m["table"] for m in svc.view("T1")["matches"] if m["id"] == waiting["id"])
    console.wait_for_selector(f"#assist-list li[data-table='{table}']")
    console.click(f"#assist-list li[data-table='{table}'] button")
    console.wait_for_selector("#assist-list", state="detached")
    assert hub.assist.open_requests() == []
    assert page.js_errors == [] and console.js_errors == []
