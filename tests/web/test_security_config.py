"""Instance configuration, Secure cookies behind TLS or a trusted proxy, and the
addresses ``python -m web`` prints (issue 15, findings 3 and 4)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from flask import Flask

from hub.facade import Hub
from tests.web.conftest import PASSWORD_HASH, csrf_token, login
from web.addresses import lan_addresses, where_served
from web.server import make_app

ROOT = Path(__file__).resolve().parents[2]


def session_cookie_header(app: Flask, **environ: str) -> str:
    client = app.test_client()
    client.environ_base.update(environ)
    response = login(client)
    assert response.status_code == 302
    cookies: list[str] = response.headers.getlist("Set-Cookie")
    return next(h for h in cookies if h.startswith("session="))


def test_the_instance_config_file_is_honoured_and_the_command_line_wins(hub: Hub, tmp_path: Path) -> None:
    config = tmp_path / "config.py"
    config.write_text(f"MAX_STREAMS = 7\nSECURE_COOKIES = True\nPASSWORD_HASH = {PASSWORD_HASH!r}\n")
    app = make_app(hub, None, None, {"SECRET_KEY": "k"}, config_file=config)
    assert app.config["MAX_STREAMS"] == 7 and app.config["SECURE_COOKIES"] is True
    assert "Secure" in session_cookie_header(app)
    toml = tmp_path / "web.toml"
    toml.write_text("MAX_STREAMS = 9\n")
    assert make_app(hub, None, 3, None, config_file=toml).config["MAX_STREAMS"] == 3


def proxied_app(hub: Hub, proxies: int) -> Flask:
    return make_app(hub, None, None, {"SECRET_KEY": "k", "PASSWORD_HASH": PASSWORD_HASH,
                                      "TRUSTED_PROXIES": proxies})


def test_cookies_are_secure_when_a_trusted_proxy_says_https(hub: Hub) -> None:
    app = proxied_app(hub, 1)
    # (Over HTTPS Flask-WTF also wants the same-site Referer a browser sends.)
    assert "Secure" in session_cookie_header(app, HTTP_X_FORWARDED_PROTO="https",
                                             HTTP_REFERER="https://localhost/auth/login")
    assert "Secure" not in session_cookie_header(app)  # plain HTTP on the hall's Wi-Fi


def test_an_untrusted_forwarded_header_changes_nothing(hub: Hub) -> None:
    app = proxied_app(hub, 0)
    assert "Secure" not in session_cookie_header(app, HTTP_X_FORWARDED_PROTO="https")
    # ... nor the address the login throttle counts.
    client = app.test_client()
    client.environ_base.update(REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR="1.2.3.4")
    token = csrf_token(client, "/auth/login")
    statuses = [client.post("/auth/login", data={"password": "x", "csrf_token": token}).status_code
                for _ in range(6)]
    assert statuses[-1] == 429
    client.environ_base["HTTP_X_FORWARDED_FOR"] = "5.6.7.8"  # a new forged address gets no new allowance
    assert client.post("/auth/login", data={"password": "x", "csrf_token": token}).status_code == 429


def test_served_addresses_name_the_interfaces() -> None:
    everywhere = where_served("0.0.0.0", "http://127.0.0.1:8080")
    assert "every interface" in everywhere["serving"]
    assert everywhere["phones"] == [f"http://{a}:8080/" for _, a in lan_addresses()]
    assert all(not u.startswith("http://127.") for u in everywhere["phones"])
    local = where_served("127.0.0.1", "http://127.0.0.1:8080")
    assert local["phones"] == [] and "cannot reach" in local["serving"]


@pytest.mark.slow
def test_python_m_web_prints_lan_addresses_and_honours_its_config(tmp_path: Path) -> None:
    config = tmp_path / "web.toml"
    config.write_text("SECURE_COOKIES = true\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "web", "--db", str(tmp_path / "hub.db"), "--host", "0.0.0.0", "--port", "0",
         "--config", str(config), "--password", "pw"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        shown = json.loads(proc.stdout.readline())
        assert "every interface" in shown["serving"]
        assert shown["phones"] and all(not u.startswith("http://127.") for u in shown["phones"])
        with urllib.request.urlopen(shown["phones"][0] + "api/tables", timeout=10) as response:
            assert response.status == 200  # reachable at the printed LAN address
        with urllib.request.urlopen(shown["web"] + "auth/login", timeout=10) as response:
            cookie = response.headers.get("Set-Cookie", "")
            assert "Secure" in cookie
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert proc.stdout is not None
        proc.stdout.close()


@pytest.mark.slow
def test_cookies_are_secure_by_default_when_served_over_tls(hub: Hub, tmp_path: Path) -> None:
    import re
    import shutil
    import ssl
    import urllib.parse

    from web.server import start_server

    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=60)
    handle = start_server(hub, password="pw", tls=(str(cert), str(key)))
    try:
        assert handle.url.startswith("https://")
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context))
        with opener.open(handle.url + "/auth/login", timeout=10) as response:
            page = response.read().decode()
            cookie = response.headers.get("Set-Cookie", "")
        assert "Secure" in cookie  # no setting needed: the request came over TLS
        token = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert token is not None
        request = urllib.request.Request(
            handle.url + "/auth/login", method="POST",
            data=urllib.parse.urlencode({"password": "pw", "csrf_token": token.group(1)}).encode(),
            headers={"Cookie": cookie.split(";", 1)[0], "Referer": handle.url + "/auth/login"})
        no_redirect = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context),
                                                  NoRedirect())
        try:
            no_redirect.open(request, timeout=10)
            raise AssertionError("login did not redirect")
        except urllib.error.HTTPError as answer:
            assert answer.code == 302
            assert all("Secure" in c for c in answer.headers.get_all("Set-Cookie") or [])
    finally:
        handle.close()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None
