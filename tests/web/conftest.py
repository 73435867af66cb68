"""Fixtures for the web tests: a real hub on a SQLite file, the Flask app on top of it
(CSRF on, as in production), a logged-in client, and helpers to read CSRF tokens."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.security import generate_password_hash

from hub.facade import Hub
from web import create_app
from web.server import ServerHandle, start_server

PASSWORD = "referee-secret"
CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)"')


@pytest.fixture
def hub() -> Iterator[Hub]:
    # In memory: the web tests need the hub's behaviour, not its durability (tests/hub has that).
    h = Hub(":memory:", settle_s=0.05, bot_budget_s=0.05)
    h.start()
    yield h
    h.close()


@pytest.fixture
def trigono_table(hub: Hub) -> dict[str, Any]:
    return hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")


# The production default (scrypt) costs ~0.2 s a call on this machine; tests hash once
# with a cheap pbkdf2 and still go through werkzeug's check on every login.
PASSWORD_HASH = generate_password_hash(PASSWORD, method="pbkdf2:sha256:1000")


@pytest.fixture
def app(hub: Hub) -> Flask:
    return create_app({"TESTING": True, "PASSWORD_HASH": PASSWORD_HASH, "SECRET_KEY": "test-key"}, hub=hub)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def csrf_token(client: FlaskClient, page: str = "/") -> str:
    """The token a page hands its forms and scripts (the session keeps its secret)."""
    html = client.get(page).get_data(as_text=True)
    match = CSRF_META.search(html)
    assert match, "no csrf meta on the page"
    return match.group(1)


def login(client: FlaskClient, password: str = PASSWORD) -> Any:
    token = csrf_token(client, "/auth/login")
    return client.post("/auth/login", data={"password": password, "csrf_token": token})


@pytest.fixture
def referee(client: FlaskClient) -> FlaskClient:
    """A client logged in as the referee."""
    assert login(client).status_code == 302
    return client


def api_post(client: FlaskClient, url: str, body: Any, token: str | None = None) -> Any:
    headers = {"X-CSRFToken": token if token is not None else csrf_token(client)}
    return client.post(url, json=body, headers=headers)


def serial_board(hub: Hub, tmp_path: Path, board: str = "B1") -> Any:
    """A board on a real pseudo-terminal, read by the hub's serial link (pyserial), that
    has said hello. Its ``event(kind, **fields)`` sends protocol v1 lines."""
    from hub.devices.serial_link import SerialTransport
    from tests.hub.boards import PtyBoard, wait_for

    device = PtyBoard(board, tmp_path / f"tty{board}")
    link = SerialTransport([str(device.path)])
    hub.add_transport(link)
    assert wait_for(lambda: link.describe()["ports"][0]["open"], timeout=10)
    device.event("hello", fw="test", config="c", holes=["big", "small"])
    # Heard (online in board health); acknowledged only when the hub referees it (a
    # table binds it): an unbound board's events wait for that (issue 24.2).
    assert wait_for(lambda: any(b["board"] == board and b["status"] == "online" for b in hub.boards()),
                    timeout=10)
    if board in hub.devices.bound:
        assert wait_for(lambda: device.out.acked >= 1, timeout=10)
    return device


# -- real browser (Chromium through Playwright) ------------------------------------------
# `browser` (one Chromium per worker, the test's contexts closed after it) is in tests/conftest.py.
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
BROWSER_PASSWORD = "pw-browser"


@pytest.fixture
def server(hub: Hub) -> Iterator[ServerHandle]:
    handle = start_server(hub, password=BROWSER_PASSWORD, max_streams=16)
    yield handle
    handle.close()


def new_page(browser: Any, locale: str = "en-GB", width: int = 1280, height: int = 800) -> Any:
    context = browser.new_context(locale=locale, viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    # A Content-Security-Policy violation (Chromium reports it on the console) is an
    # error too: every browser test that checks js_errors fails on one.
    page.on("console", lambda msg: errors.append(msg.text)
            if msg.type == "error" and "Content Security Policy" in msg.text else None)
    page.js_errors = errors
    return page


def login_page(page: Any, server: ServerHandle, next_path: str) -> None:
    """Log a browser page in as the referee, landing on ``next_path``."""
    page.goto(f"{server.url}/auth/login?next={next_path}")
    page.fill("input[name=password]", BROWSER_PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(f"{server.url}{next_path}")


# What a page still has to do before its DOM is final: fetches (and reading their bodies)
# under way, timers due within half a second (a debounced redraw), and, once it opened the
# live stream, the stream's first snapshot handled. Added before the page's own scripts
# (through the DevTools protocol: the page's CSP does not apply), it wraps fetch,
# setTimeout and EventSource without changing what they do.
SETTLE_PROBE = """(() => {
  let busy = 0;
  const done = () => { busy -= 1; };
  const fetch0 = window.fetch;
  window.fetch = function (...args) {
    busy += 1;
    return fetch0.apply(this, args).then((response) => {
      for (const read of ["json", "text"]) {
        const body = response[read].bind(response);
        response[read] = () => { busy += 1; return body().finally(done); };
      }
      return response;
    }).finally(done);
  };
  const setTimeout0 = window.setTimeout, clearTimeout0 = window.clearTimeout;
  const soon = new Set();
  window.setTimeout = function (fn, ms, ...args) {
    if (!(Number(ms || 0) < 500) || typeof fn !== "function") return setTimeout0(fn, ms, ...args);
    const id = setTimeout0((...a) => { soon.delete(id); fn(...a); }, ms, ...args);
    soon.add(id);
    return id;
  };
  window.clearTimeout = function (id) { soon.delete(id); return clearTimeout0(id); };
  let streams = 0, snapshots = 0;
  const EventSource0 = window.EventSource;
  window.EventSource = class extends EventSource0 {
    constructor(...args) {
      super(...args);
      streams += 1;
      this.addEventListener("snapshot", () => { snapshots += 1; }, { once: true });
    }
  };
  window.__settled = () => document.readyState === "complete" && busy === 0 && soon.size === 0
    && (streams === 0 || snapshots > 0);
})();"""


def watch_settling(page: Any) -> None:
    """From the next navigation on, ``wait_settled(page)`` can tell when the page is drawn."""
    page.add_init_script(SETTLE_PROBE)


def wait_settled(page: Any) -> None:
    """Until the page's DOM is final (see SETTLE_PROBE): the condition, not a pause."""
    page.wait_for_function("() => window.__settled()", timeout=20_000)


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)
