"""Login, logout, the password and the response headers (web/auth.py, web/security.py)
through the Flask test client over a real hub."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.web.conftest import api_post, csrf_token, login
from web.i18n import MESSAGES


def test_security_headers_on_pages(client: FlaskClient) -> None:
    headers = client.get("/").headers
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"


def test_overlay_may_be_embedded_by_video_software(client: FlaskClient, trigono_table: Any) -> None:
    headers = client.get("/overlay/t1").headers
    assert "frame-ancestors *" in headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in headers


def test_session_cookie_is_httponly_and_samesite(client: FlaskClient) -> None:
    response = login(client)
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_wrong_password_is_refused(client: FlaskClient) -> None:
    response = login(client, "wrong")
    assert response.status_code == 401
    assert client.get("/console/").status_code == 302


def test_login_is_throttled_after_five_failures(client: FlaskClient) -> None:
    for _ in range(5):
        assert login(client, "wrong").status_code == 401
    assert login(client).status_code == 429  # even the right password must wait


def test_login_without_csrf_token_is_refused(client: FlaskClient) -> None:
    from tests.web.conftest import PASSWORD

    response = client.post("/auth/login", data={"password": PASSWORD})
    assert response.status_code == 400
    assert client.get("/console/").status_code == 302


def test_login_follows_next_but_only_on_site(client: FlaskClient, trigono_table: Any) -> None:
    from tests.web.conftest import PASSWORD

    token = csrf_token(client, "/auth/login")
    response = client.post("/auth/login", data={"password": PASSWORD, "csrf_token": token, "next": "/console/t1"})
    assert response.headers["Location"] == "/console/t1"
    client.post("/auth/logout", data={"csrf_token": csrf_token(client)})
    token = csrf_token(client, "/auth/login")
    response = client.post("/auth/login", data={"password": PASSWORD, "csrf_token": token, "next": "http://evil/"})
    assert response.headers["Location"] == "/console/"


def test_logout_needs_csrf_and_ends_the_session(referee: FlaskClient) -> None:
    assert referee.post("/auth/logout").status_code == 400
    assert referee.get("/console/").status_code == 200
    assert referee.post("/auth/logout", data={"csrf_token": csrf_token(referee)}).status_code == 302
    assert referee.get("/console/").status_code == 302


def test_console_is_closed_without_a_password(hub: Any) -> None:
    from web import create_app

    client = create_app({"TESTING": True}, hub=hub).test_client()
    page = client.get("/auth/login").get_data(as_text=True)
    assert MESSAGES["fr"]["auth.no_password"].split(" ")[0] in page
    token = csrf_token(client, "/auth/login")
    client.post("/auth/login", data={"password": "", "csrf_token": token})
    assert client.get("/console/").status_code == 302


def test_password_is_kept_only_as_a_hash(hub: Any) -> None:
    from tests.web.conftest import PASSWORD
    from web import create_app

    app = create_app({"TESTING": True, "PASSWORD": PASSWORD}, hub=hub)
    assert "PASSWORD" not in app.config
    assert PASSWORD not in str(app.config["PASSWORD_HASH"])
    assert app.config["PASSWORD_HASH"].startswith(("scrypt:", "pbkdf2:"))
    assert login(app.test_client()).status_code == 302


def test_an_unchanged_session_is_re_signed_only_every_few_minutes(
        referee: FlaskClient, trigono_table: Any, monkeypatch: Any) -> None:
    """Re-signing the cookie on every request was a third of a console input's CPU; the
    session still slides: a cookie older than SESSION_REFRESH_S is sent again."""
    import web.security

    token = csrf_token(referee, "/console/")
    answered = api_post(referee, "/api/tables/t1/input", {"landed": "floor"}, token)
    assert answered.status_code == 200 and "Set-Cookie" not in answered.headers
    assert "seed" not in answered.get_json()  # the audience's view, as before
    monkeypatch.setattr(web.security, "SESSION_REFRESH_S", 0.0)
    refreshed = api_post(referee, "/api/tables/t1/input", {"undo": True}, token)
    assert refreshed.status_code == 200
    cookie = refreshed.headers["Set-Cookie"]
    assert cookie.startswith("session=") and "Expires=" in cookie and "HttpOnly" in cookie
    assert referee.get("/console/").status_code == 200  # the new cookie logs in
