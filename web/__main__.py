"""``python -m web``: run a hub and its web pages in one process.

    python -m web --db event.db --serial /dev/ttyACM0 --port 8080 --password secret
    python -m web --db event.db --public-url http://trigono.local:8080   # seat links/QR codes at that address

Same hub options as ``trigono hub``: this program is a composition root of its own, and
assembles its hub with :mod:`hub.assemble` as the CLI does (the hub cannot import the web
layer, imports go web → hub, so the process that shows both starts here). The pages it
serves (the web's library) see only that hub, through hub/api.py. The password
opens the referee console and admin; without ``--password`` (or ``TRIGONO_PASSWORD``) one is made up and
printed. The signing key of sessions and seat links is kept in ``<db>.web-secret`` so
they survive a restart. Seat links and QR codes point at ``--public-url`` (or the config's
PUBLIC_URL), else at the first LAN address when serving every interface, so a phone can
open them even when the console was opened at localhost. Prints one JSON line with the
addresses once serving; Ctrl-C stops.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from hub.assemble import add_hub_options
from hub.log.open import is_postgres_url

if TYPE_CHECKING:
    from flask import Flask


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m web", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_hub_options(p)  # the hub's own: --db, --serial, --baud, --mqtt…, --settle, --table, -v
    p.add_argument("--read-only", action="store_true",
                   help="serve the pages of a hub running elsewhere, from its event store "
                        "(postgresql://…; several such processes can serve the phones)")
    p.add_argument("--host", default="0.0.0.0", help="address to serve on (default: every interface)")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--password", default=os.environ.get("TRIGONO_PASSWORD"), help="referee/admin password")
    add_public_url_option(p)
    p.add_argument("--max-streams", type=int, default=None,
                   help="live connections held at once (default: as many as the open-file limit allows)")
    p.add_argument("--config", metavar="FILE", help="instance settings (.py or .toml; default instance/config.py)")
    p.add_argument("--secure-cookies", action=argparse.BooleanOptionalAction, default=None,
                   help="mark cookies Secure (default: when the request came over HTTPS)")
    p.add_argument("--trusted-proxies", type=int, default=None, metavar="N",
                   help="reverse proxies in front whose X-Forwarded-* headers count (default 0)")
    p.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this certificate (and --tls-key)")
    p.add_argument("--tls-key", metavar="FILE")
    return p


def public_url(text: str) -> str:
    """An address phones can open, as ``--public-url`` takes it: scheme and host, no path.

    >>> public_url("http://192.168.1.5:8080/")
    'http://192.168.1.5:8080'
    """
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(f"{text!r}: give http(s)://host[:port], e.g. http://192.168.1.5:8080")
    return text.rstrip("/")


def add_public_url_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--public-url", type=public_url, metavar="URL",
                        help="address phones open, the base of seat links and QR codes (default: the "
                             "first LAN address when serving every interface), e.g. http://trigono.local:8080")


def announce(app: Flask, host: str, url: str) -> dict[str, Any]:
    """Where the server is reached (:func:`web.addresses.where_served`), and the base of
    its seat links and QR codes, ``public_url``: the configured PUBLIC_URL, else the
    first LAN address when serving every interface (set in ``app.config``: the referee
    may open the console at localhost, which no phone reaches), else None (the address
    the browser used). A configured address is the first of ``phones``."""
    from web.addresses import where_served

    shown = where_served(host, url)
    app.config["SERVED_HOST"] = host  # the pages offer only addresses that answer (web/share.py)
    configured = app.config.get("PUBLIC_URL")
    if configured:
        given = str(configured).rstrip("/") + "/"
        shown["phones"] = [given, *(u for u in shown["phones"] if u != given)]
    elif shown["phones"]:
        app.config["PUBLIC_URL"] = shown["phones"][0].rstrip("/")
    shown["public_url"] = app.config.get("PUBLIC_URL")
    return shown


def stable_secret(path: str) -> str:
    """The app's signing key, kept beside the event store so seat links and logins
    survive a restart of the hub. Created once, readable by its owner only."""
    try:
        with open(path, encoding="ascii") as fh:
            key = fh.read().strip()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(key + "\n")
    return key


def web_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The web options given on the command line (they win over the config file)."""
    settings: dict[str, Any] = {}
    if not is_postgres_url(args.db):  # logout revokes sessions across restarts
        settings["SESSION_STATE_FILE"] = f"{args.db}.web-sessions"
    if args.secure_cookies is not None:
        settings["SECURE_COOKIES"] = args.secure_cookies
    if args.trusted_proxies is not None:
        settings["TRUSTED_PROXIES"] = args.trusted_proxies
    if args.public_url:
        settings["PUBLIC_URL"] = args.public_url
    return settings


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.read_only and (args.serial or args.mqtt or args.table):
        parser.error("--read-only serves pages only: no --serial, --mqtt or --table")
    from hub.api import Hub, HubError, StoreOpenError
    from hub.assemble import (
        HubOptions,
        attach_links,
        open_hub,
        open_read_only,
        stop_on_signal,
        wait,
    )
    from web.server import start_server

    stop = stop_on_signal()
    hub: Hub
    if args.read_only:  # issue 18: pages from the store of a hub running elsewhere
        hub = open_read_only(args.db)
    else:
        options = HubOptions.from_args(args)
        try:
            hub = open_hub(options)  # PostgreSQL: waits as the standby while another hub is active
        except HubError as err:
            print(f"--table: {err}", file=sys.stderr)
            return 2
        except StoreOpenError as err:  # another hub on the file, a read-only location
            print(f"--db: {err}", file=sys.stderr)
            return 2
        try:
            attach_links(hub, options)
        except OSError as err:
            print(f"--mqtt-password-file: {err}", file=sys.stderr)
            hub.close()
            return 2
    password = args.password or secrets.token_urlsafe(9)
    if is_postgres_url(args.db):  # one key for every web process of the event
        from hub.replica import shared_secret

        config = {"SECRET_KEY": shared_secret(args.db)}
    else:
        config = {"SECRET_KEY": stable_secret(f"{args.db}.web-secret")}
    config.update(web_settings(args))
    tls = (args.tls_cert, args.tls_key) if args.tls_cert and args.tls_key else None
    handle = start_server(hub, host=args.host, port=args.port, password=password, max_streams=args.max_streams,
                          config=config, config_file=args.config, tls=tls)
    shown: dict[str, Any] = {"web": handle.url + "/", "big_screen": handle.url + "/big",
                             "console": handle.url + "/console/"}
    shown.update(announce(handle.app, args.host, handle.url))  # the addresses phones can use
    if not args.password:
        shown["password"] = password
    print(json.dumps(shown), flush=True)
    wait(stop)
    handle.close()
    hub.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
