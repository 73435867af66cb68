"""Every page answers (web/dashboard.py and the pages of the other blueprints), with and
without login, and an unknown table or page is a 404 (Flask test client over a real hub)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from tests.web.conftest import login

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


def test_app_without_a_hub_says_so(tmp_path: Path) -> None:
    from web import create_app

    client = create_app({"TESTING": True}).test_client()
    assert client.get("/api/tables").status_code == 503
    assert client.get("/play/").status_code == 503


