"""Login throttle and session revocation (issue 15, findings 1 and 2), through the app
with a production-cost password hash where timing matters.

- An attempt is allowed and counted in one step before the hash: parallel guesses from
  one address get no more checks than the policy (5 a minute).
- Never more than ``HASHES_AT_ONCE`` password checks at once, whatever the addresses.
- Unknown browsers from many addresses slow the account down (bounded delay); a browser
  that logged in before keeps its own allowance: the referee is not locked out behind
  the same address as a guesser.
- Logout revokes every referee cookie issued so far, across a restart; a password change
  revokes them too.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.security import generate_password_hash

from hub.facade import Hub
from tests.web.conftest import PASSWORD, csrf_token, login
from web import create_app, security

SLOW_HASH = generate_password_hash(PASSWORD)  # scrypt, as in production (~0.1 s a check)


def browser_at(app: Flask, address: str) -> FlaskClient:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def attempt(client: FlaskClient, password: str, token: str | None = None) -> int:
    token = token or csrf_token(client, "/auth/login")
    return client.post("/auth/login", data={"password": password, "csrf_token": token}).status_code


def in_parallel(calls: list[Any]) -> list[Any]:
    results: list[Any] = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(k: int) -> None:
        start.wait()
        results[k] = calls[k]()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.fixture
def slow_app(hub: Hub) -> Flask:
    return create_app({"TESTING": True, "PASSWORD_HASH": SLOW_HASH, "SECRET_KEY": "test-key"}, hub=hub)


def test_parallel_guesses_from_one_address_get_no_more_checks_than_the_policy(slow_app: Flask) -> None:
    clients = [browser_at(slow_app, "10.0.0.9") for _ in range(30)]
    tokens = [csrf_token(c, "/auth/login") for c in clients]
    statuses = in_parallel([lambda c=c, t=t: attempt(c, "guess", t) for c, t in zip(clients, tokens, strict=True)])
    checked = statuses.count(401)
    assert checked <= security.ADDRESS_MAX_FAILURES
    assert statuses.count(429) == 30 - checked


def test_password_checks_at_once_are_bounded(slow_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    running, most = [0], [0]
    lock = threading.Lock()
    from werkzeug.security import check_password_hash as real

    def counting(stored: str, password: str) -> bool:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            return real(stored, password)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(security, "check_password_hash", counting)
    clients = [browser_at(slow_app, f"10.0.1.{k}") for k in range(12)]
    tokens = [csrf_token(c, "/auth/login") for c in clients]
    statuses = in_parallel([lambda c=c, t=t: attempt(c, "guess", t) for c, t in zip(clients, tokens, strict=True)])
    assert most[0] <= security.HASHES_AT_ONCE
    assert set(statuses) <= {401, 429} and 401 in statuses


def test_guesses_from_many_addresses_slow_the_account_down(app: Flask) -> None:
    for k in range(security.ACCOUNT_FREE_FAILURES):
        assert attempt(browser_at(app, f"10.0.2.{k}"), "guess") == 401
    # A sixth unknown browser, from yet another address, must wait (even with the password).
    late = browser_at(app, "10.0.2.99")
    token = csrf_token(late, "/auth/login")
    response = late.post("/auth/login", data={"password": PASSWORD, "csrf_token": token})
    assert response.status_code == 429 and 1 <= int(response.headers["Retry-After"]) <= security.ACCOUNT_MAX_DELAY_S


def test_the_referee_is_not_locked_out_behind_a_guessers_address(app: Flask) -> None:
    referee = browser_at(app, "192.0.2.1")
    assert login(referee).status_code == 302  # this browser becomes known
    token = csrf_token(referee)
    referee.post("/auth/logout", data={"csrf_token": token})
    guesser = browser_at(app, "192.0.2.1")  # same NAT address
    statuses = [attempt(guesser, "guess") for _ in range(12)]
    assert statuses.count(401) == security.ADDRESS_MAX_FAILURES and statuses[-1] == 429
    assert login(referee).status_code == 302
    assert referee.get("/console/").status_code == 200


def steal_cookie(source: FlaskClient, app: Flask) -> FlaskClient:
    cookie = source.get_cookie("session")
    assert cookie is not None
    thief = app.test_client()
    thief.set_cookie("session", cookie.value)
    return thief


def test_logout_revokes_a_cookie_captured_before(app: Flask) -> None:
    referee = app.test_client()
    assert login(referee).status_code == 302
    thief = steal_cookie(referee, app)
    assert thief.get("/console/").status_code == 200
    referee.post("/auth/logout", data={"csrf_token": csrf_token(referee)})
    assert thief.get("/console/").status_code == 302  # to the login form
    assert thief.get("/api/tables/t1/record").status_code == 401


def make_app(hub: Hub, state: Path, password_hash: str) -> Flask:
    return create_app({"TESTING": True, "PASSWORD_HASH": password_hash, "SECRET_KEY": "kept-key",
                       "SESSION_STATE_FILE": str(state)}, hub=hub)


def test_logout_revocation_survives_a_restart(hub: Hub, tmp_path: Path) -> None:
    state = tmp_path / "event.db.web-sessions"
    before = make_app(hub, state, SLOW_HASH)
    staying, leaving = before.test_client(), before.test_client()
    assert login(staying).status_code == 302
    kept = steal_cookie(staying, before).get_cookie("session")
    assert login(leaving).status_code == 302
    captured = steal_cookie(leaving, before).get_cookie("session")
    leaving.post("/auth/logout", data={"csrf_token": csrf_token(leaving)})
    after = make_app(hub, state, SLOW_HASH)  # the hub restarted
    assert captured is not None and kept is not None
    thief, other = after.test_client(), after.test_client()
    thief.set_cookie("session", captured.value)
    other.set_cookie("session", kept.value)
    assert thief.get("/console/").status_code == 302
    assert other.get("/console/").status_code == 200  # issue 24.4: that logout was not theirs


def test_logout_needs_a_session_and_ends_that_session_only_24_4(app: Flask) -> None:
    """Issue 24.4: an anonymous visitor with a page's CSRF token logged every referee out."""
    first, second = app.test_client(), app.test_client()
    assert login(first).status_code == 302 and login(second).status_code == 302
    anonymous = app.test_client()
    for path in ("/auth/logout", "/auth/logout-everywhere"):
        answer = anonymous.post(path, data={"csrf_token": csrf_token(anonymous)})
        assert answer.status_code == 302 and "/auth/login" in answer.headers["Location"]
    assert first.get("/console/").status_code == 200 and second.get("/console/").status_code == 200
    first.post("/auth/logout", data={"csrf_token": csrf_token(first)})
    assert first.get("/console/").status_code == 302
    assert second.get("/console/").status_code == 200


def test_log_out_everywhere_ends_every_referee_session(hub: Hub, tmp_path: Path) -> None:
    state = tmp_path / "event.db.web-sessions"
    app = make_app(hub, state, SLOW_HASH)
    first, second = app.test_client(), app.test_client()
    assert login(first).status_code == 302 and login(second).status_code == 302
    assert second.post("/auth/logout-everywhere", data={"csrf_token": csrf_token(second)}).status_code == 302
    assert first.get("/console/").status_code == 302 and second.get("/console/").status_code == 302
    assert login(first).status_code == 302  # a new login works again
    assert first.get("/console/").status_code == 200


def test_a_password_change_revokes_older_cookies(hub: Hub, tmp_path: Path) -> None:
    state = tmp_path / "event.db.web-sessions"
    before = make_app(hub, state, SLOW_HASH)
    referee = before.test_client()
    assert login(referee).status_code == 302
    cookie = referee.get_cookie("session")
    after = make_app(hub, state, generate_password_hash("a new password", method="pbkdf2:sha256:1000"))
    same_browser = after.test_client()
    assert cookie is not None
    same_browser.set_cookie("session", cookie.value)
    assert same_browser.get("/console/").status_code == 302
    # ... while a restart with the same password keeps it.
    again = make_app(hub, state, SLOW_HASH).test_client()
    again.set_cookie("session", cookie.value)
    assert again.get("/console/").status_code == 200


def test_a_logout_in_one_web_process_is_seen_by_another_sharing_the_file(hub: Hub, tmp_path: Path) -> None:
    state = tmp_path / "event.db.web-sessions"
    first, second = make_app(hub, state, SLOW_HASH), make_app(hub, state, SLOW_HASH)
    referee = first.test_client()
    assert login(referee).status_code == 302
    cookie = referee.get_cookie("session")
    elsewhere = second.test_client()
    assert cookie is not None
    elsewhere.set_cookie("session", cookie.value)
    assert elsewhere.get("/console/").status_code == 200
    referee.post("/auth/logout", data={"csrf_token": csrf_token(referee)})
    assert elsewhere.get("/console/").status_code == 302
