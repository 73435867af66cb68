"""Seat links and QR codes point at an address phones reach (H3's ask): ``python -m web``
and the demo set PUBLIC_URL to ``--public-url``, else to the first LAN address when they
serve every interface, and print it; a console opened at localhost then still hands out
LAN links."""

from __future__ import annotations

import io
import json
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import PASSWORD_HASH, login
from web import create_app
from web.__main__ import announce, build_parser, main, web_settings
from web.addresses import lan_addresses
from web.demo import build_parser as demo_parser
from web.demo import readable


def lan() -> list[str]:
    found = [f"http://{address}:8080/" for _name, address in lan_addresses()]
    assert found, "this test needs a machine with a LAN address (phones reach nothing else)"
    return found


def console_seat_links(hub: Hub, config: dict[str, Any], host: str) -> tuple[dict[str, Any], list[str]]:
    """announce() on an app as python -m web makes it, then the console's seat links as a
    referee sees them at http://localhost/."""
    app = create_app({"TESTING": True, "PASSWORD_HASH": PASSWORD_HASH, "SECRET_KEY": "k", **config}, hub=hub)
    shown = announce(app, host, "http://127.0.0.1:8080")
    client = app.test_client()
    login(client)
    hub.create_table("triominos", seats=["Ana", {"name": "Robo", "bot": True}], seed=1, table_id="g1")
    html = client.get("/console/g1").get_data(as_text=True)
    return shown, re.findall(r'class="seat-link" href="([^"]+)"', html)


def test_serving_every_interface_links_seats_at_the_first_lan_address(hub: Hub, tmp_path: Path) -> None:
    settings = web_settings(build_parser().parse_args(["--db", str(tmp_path / "hub.db")]))
    assert "PUBLIC_URL" not in settings  # none given: the config file's, else the LAN address
    shown, links = console_seat_links(hub, settings, "0.0.0.0")
    first = lan()[0].rstrip("/")
    assert shown["public_url"] == first and shown["phones"] == lan()
    assert len(links) == 1 and links[0].startswith(f"{first}/play/g1/join?seat=")


def test_a_given_public_url_wins_and_is_the_first_phone_address(hub: Hub, tmp_path: Path) -> None:
    args = build_parser().parse_args(["--db", str(tmp_path / "hub.db"), "--public-url", "http://trigono.local:8080/"])
    shown, links = console_seat_links(hub, web_settings(args), "0.0.0.0")
    assert shown["public_url"] == "http://trigono.local:8080"
    assert shown["phones"] == ["http://trigono.local:8080/", *lan()]
    assert links[0].startswith("http://trigono.local:8080/play/g1/join?seat=")


def test_serving_this_machine_only_keeps_the_browsers_address(hub: Hub) -> None:
    shown, links = console_seat_links(hub, {}, "127.0.0.1")
    assert shown["public_url"] is None and shown["phones"] == []
    assert links[0].startswith("http://localhost/play/g1/join?seat=")


@pytest.mark.parametrize("bad", ["trigono.local:8080", "ftp://h", "http://h:8080/console", "http://h/?a=1", "http://"])
def test_public_url_must_be_a_site_address(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    for parser in (build_parser(), demo_parser()):
        with pytest.raises(SystemExit):
            parser.parse_args(["--db", "x.db", "--public-url", bad])
        assert "--public-url" in capsys.readouterr().err


def test_the_demo_takes_and_prints_the_public_url() -> None:
    args = demo_parser().parse_args(["--public-url", "https://demo.example"])
    assert args.public_url == "https://demo.example"
    shown = {"dashboard": "d", "big_screen": "b", "big_screen_grid": "g", "console": "c", "admin": "a",
             "play": "p", "overlay": {}, "play_against_the_computer": {}, "serving": "every interface",
             "phones": ["https://demo.example/"], "public_url": "https://demo.example"}
    assert "seat links and QR codes use https://demo.example" in readable(shown, "pw")


class FirstLine(io.StringIO):
    """stdout for main(): keeps the JSON line it prints, then stops it as Ctrl-C would."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: dict[str, Any] | None = None

    def write(self, text: str) -> int:
        if self.shown is None and text.startswith("{"):
            self.shown = json.loads(text)
            os.kill(os.getpid(), signal.SIGTERM)  # main's own handler sets its stop event
        return super().write(text)


def test_python_m_web_prints_and_uses_the_lan_address(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    out = FirstLine()
    monkeypatch.setattr("sys.stdout", out)
    try:
        assert main(["--db", str(tmp_path / "hub.db"), "--host", "0.0.0.0", "--port", "0", "--password", "pw"]) == 0
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    assert out.shown is not None
    port = out.shown["web"].rsplit(":", 1)[1].rstrip("/")
    assert out.shown["phones"] == [u.replace(":8080/", f":{port}/") for u in lan()]
    assert out.shown["public_url"] == out.shown["phones"][0].rstrip("/")
    assert "password" not in out.shown  # given, so not printed



def test_doctests_of_python_m_web() -> None:
    import doctest

    import web.__main__

    assert doctest.testmod(web.__main__).failed == 0
