"""Every page answers, speaks French and English, refuses what it must, and keeps its
headers (Flask test client over a real hub)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.web.conftest import csrf_token, login
from web.i18n import MESSAGES

WEB = Path(__file__).resolve().parents[2] / "web"

PUBLIC_PAGES = ["/", "/big", "/big?every=5&tables=t1", "/overlay/t1", "/tables/t1", "/play/", "/play/t1",
                "/auth/login"]
REFEREE_PAGES = ["/console/", "/console/t1", "/console/t1/panel", "/admin/", "/admin/boards"]


# One hub per test costs ~0.3 s here, so a test walks a list of cases (the message names
# the failing one) rather than being parametrized.
def test_public_pages_answer_without_login(client: FlaskClient, trigono_table: Any) -> None:
    for url in PUBLIC_PAGES:
        response = client.get(url)
        assert (response.status_code, response.mimetype) == (200, "text/html"), url


def test_referee_pages_redirect_to_login_without_it_and_answer_with_it(client: FlaskClient, trigono_table: Any) -> None:
    for url in REFEREE_PAGES:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response.headers["Location"].startswith("/auth/login"), url
    login(client)
    for url in REFEREE_PAGES:
        assert client.get(url).status_code == 200, url


def test_unknown_table_or_page_is_404(client: FlaskClient, trigono_table: Any) -> None:
    for url in ["/overlay/nope", "/tables/nope", "/play/nope", "/no/such/page"]:
        assert client.get(url).status_code == 404, url


def test_console_for_unknown_table_is_404(referee: FlaskClient) -> None:
    assert referee.get("/console/nope").status_code == 404


def test_browser_language_chooses(client: FlaskClient, trigono_table: Any) -> None:
    french = client.get("/", headers={"Accept-Language": "fr-FR,fr;q=0.9"}).get_data(as_text=True)
    english = client.get("/", headers={"Accept-Language": "en-GB,en;q=0.9"}).get_data(as_text=True)
    assert '<html lang="fr"' in french and MESSAGES["fr"]["nav.big"] in french
    assert '<html lang="en"' in english and MESSAGES["en"]["nav.big"] in english


def test_language_defaults_to_french(client: FlaskClient) -> None:
    assert '<html lang="fr"' in client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)


def test_switch_overrides_the_browser(client: FlaskClient) -> None:
    response = client.get("/lang/en?next=/big", headers={"Accept-Language": "fr"})
    assert response.status_code == 302 and response.headers["Location"] == "/big"
    page = client.get("/big", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert '<html lang="en"' in page


def test_switch_never_redirects_off_site(client: FlaskClient) -> None:
    for target in ["https://evil.example/", "//evil.example/x", "/\\evil"]:
        assert client.get(f"/lang/fr?next={target}").headers["Location"] == "/", target


def test_unknown_language_is_ignored(client: FlaskClient) -> None:
    client.get("/lang/xx")
    assert '<html lang="fr"' in client.get("/").get_data(as_text=True)


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


def test_app_without_a_hub_says_so(tmp_path: Path) -> None:
    from web import create_app

    client = create_app({"TESTING": True}).test_client()
    assert client.get("/api/tables").status_code == 503
    assert client.get("/play/").status_code == 503


# -- the catalogue and the templates -------------------------------------------------------
def test_catalogue_has_the_same_keys_in_both_languages() -> None:
    assert set(MESSAGES["fr"]) == set(MESSAGES["en"])


def test_every_key_the_code_names_is_in_the_catalogue() -> None:
    used: set[str] = set()
    pattern = re.compile(r"""(?:\b_|\bt|gettext|flash_key)\(\s*['"]([a-z_]+\.[a-z_.]+)['"]""")
    for path in list(WEB.rglob("*.html")) + list(WEB.rglob("*.js")) + list(WEB.rglob("*.py")):
        if "games" in path.parts and path.name != "fallback.js":
            continue  # a game's renderer brings its own messages (web/GAMES.md)
        used |= set(pattern.findall(path.read_text(encoding="utf-8")))
    used = {k for k in used if not k.endswith(".")}  # prefixes completed at run time
    missing = sorted(k for k in used if k not in MESSAGES["en"])
    assert not missing, missing
    assert len(used) > 80


def visible_text(template: str) -> str:
    """What a template would show apart from what Jinja fills in."""
    text = re.sub(r"\{#.*?#\}", " ", template, flags=re.S)
    text = re.sub(r"\{%.*?%\}", " ", text, flags=re.S)
    text = re.sub(r"\{\{.*?\}\}", " ", text, flags=re.S)
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S)
    text = re.sub(r"<[^>]*>", " ", text, flags=re.S)
    return text


@pytest.mark.parametrize("template", sorted(p.relative_to(WEB).as_posix() for p in WEB.rglob("templates/**/*.html")))
def test_no_text_is_hard_coded_in_templates(template: str) -> None:
    words = re.findall(r"[^\W\d_]{2,}", visible_text((WEB / template).read_text(encoding="utf-8")))
    assert not words, f"{template} shows {words}: put them in web/i18n.py"
