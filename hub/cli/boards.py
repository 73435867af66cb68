"""``trigono boards``: the organizer's signing key and firmware update bundles (issue 33).

    trigono boards keygen --key ~/.trigono/update.key     # once: prints the public key
    trigono boards bundle --key ~/.trigono/update.key --version 1.1.0 --board-type rp2 \\
        --out trigono-1.1.0-rp2.bundle                    # the application, signed

The public key goes into each board's config (``"update_keys": ["<64 hex>"]``) before its
first USB deploy; the secret key never leaves the organizer's machine. A bundle holds the
application files as the board runs them (.mpy from mpy-cross), a manifest with the
version, the board type and each file's SHA-256, and the Ed25519 signature of the
manifest's SHA-256 (hub/fleet/bundle.py; firmware/README.md, "Updates over the air").
    trigono boards update trigono-1.1.0-rp2.bundle --version 1.1.0 --url http://hub:8000
                                                          # the fleet, canary then waves

``update`` starts a staged rollout on the running hub (through its web API, logged in as
the referee: the password from ``--password-file`` or ``TRIGONO_PASSWORD``) and follows it
with a progress bar until it finishes or halts (exit 0, or 1 saying which board halted it
and why); ``--follow`` only follows the rollout under way. Loaded by :mod:`hub.cli.main`.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

EXIT_BAD_INPUT = 2
EXIT_HALTED = 1
POLL_S = 1.0
BAR = 30
CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)"')

JSONDict = dict[str, Any]


class HubClient:
    """The hub's web API with a referee session (a cookie jar and the CSRF token)."""

    def __init__(self, url: str, password: str, timeout_s: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = self._read("/auth/login?next=/admin/fleet")
        token = self._token(page)
        form = urllib.parse.urlencode({"password": password, "csrf_token": token,
                                       "next": "/admin/fleet"}).encode()
        try:
            landed = self._read("/auth/login", form)
        except urllib.error.HTTPError as err:
            if err.code in (401, 429):
                raise PermissionError(f"{self.url}: the referee password was refused ({err.code})") from None
            raise
        if "fleet-filters" not in landed:
            raise PermissionError(f"{self.url}: the referee password was refused")
        self.token = self._token(landed)

    @staticmethod
    def _token(page: str) -> str:
        found = CSRF_META.search(page)
        if found is None:
            raise ConnectionError("the hub's page carries no CSRF token: is this a Trigono hub?")
        return found.group(1)

    def _read(self, path: str, data: bytes | None = None, headers: dict[str, str] | None = None) -> str:
        request = urllib.request.Request(self.url + path, data=data, headers=headers or {})
        with self.opener.open(request, timeout=self.timeout_s) as answer:
            return str(answer.read().decode("utf-8"))

    def get(self, path: str) -> Any:
        return json.loads(self._read(path, headers={"Accept": "application/json"}))

    def post(self, path: str, body: JSONDict) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "application/json", "X-CSRFToken": self.token}
        return json.loads(self._read(path, json.dumps(body).encode(), headers))


def bar(rollout: JSONDict, width: int = BAR) -> str:
    """One line of progress.

    >>> print(bar({"version": "1.1", "state": "running", "done": 3, "total": 12, "updating": 2, "waiting": ["S9"],
    ...            "failed": 0, "halted": None}, width=12))
    1.1 [###.........]  3/12 running · 2 updating · 1 waiting
    """
    total = max(1, int(rollout["total"]))
    filled = int(width * int(rollout["done"]) / total)
    line = (f"{rollout['version']} [{'#' * filled}{'.' * (width - filled)}] "
            f"{rollout['done']:>2}/{rollout['total']} {rollout['state']}")
    if rollout.get("updating"):
        line += f" · {rollout['updating']} updating"
    if rollout.get("waiting"):
        line += f" · {len(rollout['waiting'])} waiting"
    return line


def follow(read: Callable[[], JSONDict | None], out: TextIO, poll_s: float = POLL_S,
           sleep: Callable[[float], None] = time.sleep) -> int:
    """Draw the rollout's progress until it is over; the exit code."""
    tty = out.isatty()
    last = ""
    while True:
        rollout = read()
        if rollout is None:
            print("no rollout on this hub", file=out)
            return EXIT_BAD_INPUT
        line = bar(rollout)
        if line != last:
            out.write(("\r\x1b[K" if tty else "") + line + ("" if tty else "\n"))
            out.flush()
            last = line
        if rollout["state"] != "running":
            if tty:
                out.write("\n")
            halted = rollout.get("halted")
            if halted:
                words = halted.get("outcome", "failed").replace("_", " ")
                detail = f" ({halted['reason']})" if halted.get("reason") else ""
                print(f"halted at board {halted['board']}: {words}{detail}", file=out)
                return EXIT_HALTED
            return 0
        sleep(poll_s)


def cmd_update(args: argparse.Namespace) -> int:
    password = os.environ.get("TRIGONO_PASSWORD")
    if args.password_file:
        try:
            password = Path(args.password_file).read_text(encoding="utf-8").strip()
        except OSError as err:
            print(f"--password-file: {err}", file=sys.stderr)
            return EXIT_BAD_INPUT
    if not password:
        print("the referee password: --password-file FILE or TRIGONO_PASSWORD", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        client = HubClient(args.url, password)
        if not args.follow:
            if not args.bundle or not args.version:
                print("BUNDLE and --version are required (or --follow)", file=sys.stderr)
                return EXIT_BAD_INPUT
            body = {"bundle": args.bundle, "version": args.version, "wave": args.wave, "canary": args.canary,
                    "boards": args.boards or None}
            client.post("/api/fleet/rollout", body)
        return follow(lambda: client.get("/api/fleet/rollout"), sys.stdout)
    except urllib.error.HTTPError as err:
        detail = err.read().decode("utf-8", "replace")
        try:
            detail = json.loads(detail)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            pass
        print(f"{args.url}: {err.code} {detail}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (OSError, PermissionError) as err:
        print(str(err), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("\nstopped following (the rollout goes on in the hub)", file=sys.stderr)
        return 0


def add_update(boards: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = boards.add_parser("update", help="update the fleet's firmware: canary, then waves of idle boards",
                          description="Start a staged rollout of BUNDLE (a path on the hub's machine, "
                                      "as `trigono boards bundle` wrote it) on the running hub and show "
                                      "its progress. Boards in a live match wait; the first failure halts "
                                      "the rollout (exit 1). A hub restarted meanwhile goes on by itself.")
    p.add_argument("bundle", nargs="?", help="the bundle file, on the hub's machine")
    p.add_argument("--version", help="the bundle's version")
    p.add_argument("--url", default="http://127.0.0.1:8000", help="the hub's web address (default: %(default)s)")
    p.add_argument("--password-file", help="a file holding the referee password (else TRIGONO_PASSWORD)")
    p.add_argument("--wave", type=int, default=5, help="boards updated at once after the canary (default: 5)")
    p.add_argument("--canary", help="the board updated first, alone (default: the first)")
    p.add_argument("--boards", nargs="*", help="only these boards (default: every board not on --version)")
    p.add_argument("--follow", action="store_true", help="only follow the rollout under way")
    p.set_defaults(func=cmd_update)



def cmd_keygen(args: argparse.Namespace) -> int:
    from hub.fleet.bundle import BundleError, keygen

    path = Path(args.key).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        public = keygen(path)
    except (BundleError, OSError) as err:
        print(f"--key: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"signing key written to {path} (keep it: it signs every update; boards trust its public key)")
    print(f"public key for the boards' \"update_keys\": {public}")
    return 0


def cmd_bundle(args: argparse.Namespace) -> int:
    from hub.fleet.bundle import FIRMWARE, BundleError, build, dump, public_key

    try:
        bundle = build(args.version, args.board_type, Path(args.key).expanduser(),
                       source=Path(args.source) if args.source else FIRMWARE)
        Path(args.out).write_bytes(dump(bundle))
        public = public_key(Path(args.key).expanduser())
    except (BundleError, OSError) as err:
        print(f"bundle: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"{args.out}: version {bundle.version} for {bundle.board_type}, {len(bundle.files)} files, "
          f"{bundle.size} bytes, id {bundle.id[:16]}, signed by {public[:16]}…")
    return 0


def add_boards(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("boards", help="sensor boards: signing key, update bundles, fleet updates",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="action", required=True)
    keygen = actions.add_parser("keygen", help="make the organizer's Ed25519 signing key (once)")
    keygen.add_argument("--key", required=True, help="where to write the secret key (refuses to overwrite)")
    keygen.set_defaults(func=cmd_keygen)
    bundle = actions.add_parser("bundle", help="build and sign an update bundle of the firmware")
    bundle.add_argument("--key", required=True, help="the secret key from `trigono boards keygen`")
    bundle.add_argument("--version", required=True, help="the new version, newer than the boards' (e.g. 1.1.0)")
    bundle.add_argument("--board-type", default="rp2", choices=("rp2", "esp32", "unix"),
                        help="the boards' port (default: rp2, Pico and Pico W)")
    bundle.add_argument("--out", required=True, help="the bundle file to write")
    bundle.add_argument("--source", help="the firmware folder (default: this checkout's firmware/)")
    bundle.set_defaults(func=cmd_bundle)
    add_update(actions)


COMMANDS = [add_boards]
