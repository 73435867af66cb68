"""Addresses for phones (web/share.py): seat links and the screens' addresses with QR
codes, on PUBLIC_URL when the hub has one, with a warning when the page was opened at a
loopback address phones cannot reach."""

from __future__ import annotations

import re
from typing import Any

from flask.testing import FlaskClient

from hub.facade import Hub
from tests.web.conftest import PASSWORD_HASH, login
from web import create_app
from web.share import qr_data_uri


def test_seat_links_and_qr_codes_use_the_public_url(hub: Hub) -> None:
    app = create_app({"TESTING": True, "PASSWORD_HASH": PASSWORD_HASH, "SECRET_KEY": "k",
                      "PUBLIC_URL": "http://192.168.1.5:8080/"}, hub=hub)
    client = app.test_client()
    login(client)
    hub.create_table("triominos", seats=["Ana", {"name": "Robo", "bot": True}], seed=1, table_id="g1")
    html = client.get("/console/g1").get_data(as_text=True)
    links = re.findall(r'class="seat-link" href="([^"]+)"', html)
    assert len(links) == 1 and links[0].startswith("http://192.168.1.5:8080/play/g1/join?seat=")
    assert html.count('class="qr"') == 1  # one person, one code; the bot has none
    assert "phones cannot reach" not in html and "téléphones ne peuvent" not in html
    admin = client.get("/admin/").get_data(as_text=True)
    assert "http://192.168.1.5:8080/big" in admin and admin.count('class="qr"') == 3


def test_a_loopback_address_is_flagged_for_phones(referee: FlaskClient, hub: Hub) -> None:
    hub.create_table("trike", seats=["Ana", "Ben"], seed=1, table_id="g1")
    html = referee.get("/console/g1", headers={"Accept-Language": "en"}).get_data(as_text=True)  # at localhost
    assert "which phones cannot reach" in html
    assert re.search(r'class="seat-link" href="http://localhost/play/g1/join\?seat=', html)


def test_qr_codes_are_svg_data_and_stable() -> None:
    first = qr_data_uri("http://192.168.1.5:8080/play/t1/join?seat=abc")
    assert first.startswith("data:image/svg+xml") and first == qr_data_uri("http://192.168.1.5:8080/play/t1/join?seat=abc")
    assert first != qr_data_uri("http://192.168.1.5:8080/play/t1/join?seat=abd")


def test_trigono_seats_get_links_too(referee: FlaskClient, trigono_table: Any) -> None:
    html = referee.get("/console/t1").get_data(as_text=True)
    assert len(re.findall(r'class="seat-link"', html)) == 2  # the thrower answers "where did it land"
