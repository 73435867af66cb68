"""Addresses for phones: seat links and the dashboard's address, each with a QR code
(segno) on the console and admin pages.

A phone must reach the address, so ``localhost`` will not do. The base is
``app.config["PUBLIC_URL"]`` when the hub was started with one (``python -m web`` and
the demo set it to the LAN address when they serve every interface), else the address
the referee's browser used. When that is a loopback address the page says so and lists
the LAN addresses to open it at instead (:func:`web.addresses.lan_addresses`) — only when
the server answers there: bound to 127.0.0.1 only, the page says phones cannot reach it
and shows no QR code.

>>> qr_data_uri("http://192.168.1.5:8080/").startswith("data:image/svg+xml")
True
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import segno
from flask import Flask, current_app, request

from web.addresses import lan_addresses

LOOPBACK = ("localhost", "::1", "[::1]")


def base_url() -> str:
    configured = current_app.config.get("PUBLIC_URL")
    return str(configured).rstrip("/") if configured else request.host_url.rstrip("/")


def phone_url(path: str) -> str:
    """``path`` on this site at an address phones can open (see the module doc)."""
    return base_url() + path


def loopback(host: str) -> bool:
    return host.startswith("127.") or host in LOOPBACK


def reachable_by_phones() -> bool:
    """Whether the links built here open on a phone: ``--public-url`` says so; otherwise
    the address the browser used must not be this machine's own, nor may the server be
    bound to loopback only (``SERVED_HOST``, set by :func:`web.__main__.announce`)."""
    if current_app.config.get("PUBLIC_URL"):
        return True
    if serves_loopback_only():
        return False
    return not loopback(urlsplit(base_url()).hostname or "")


def serves_loopback_only() -> bool:
    """The server listens on a loopback address only: no LAN address answers."""
    served = current_app.config.get("SERVED_HOST")
    return served is not None and (loopback(str(served)) or str(served) == "localhost")


def lan_alternatives(path: str) -> list[str]:
    """``path`` at each LAN address, when this page was opened at a loopback address and the
    server answers on the LAN too (never addresses that are not served)."""
    if reachable_by_phones() or serves_loopback_only():
        return []
    served = current_app.config.get("SERVED_HOST")
    port = urlsplit(base_url()).port
    addresses = [address for _name, address in lan_addresses()]
    if served not in (None, "", "0.0.0.0", "::"):
        addresses = [str(served)]  # bound to one LAN address: that one only
    return [f"{request.scheme}://{address}{':' + str(port) if port else ''}{path}" for address in addresses]


def qr_data_uri(url: str) -> str:
    """A QR code of ``url`` as an SVG ``data:`` URI (the CSP allows data: images)."""
    return str(segno.make(url, error="m").svg_data_uri(scale=4, border=2, dark="#000", light="#fff"))


def init_app(app: Flask) -> None:
    helpers: dict[str, Any] = {"phone_url": phone_url, "qr_data_uri": qr_data_uri,
                               "reachable_by_phones": reachable_by_phones, "lan_alternatives": lan_alternatives,
                               "serves_loopback_only": serves_loopback_only}
    app.jinja_env.globals.update(helpers)
