"""The application factory: :func:`create_app` (flaskr style), one blueprint per area."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping
from typing import Any

from flask import Flask
from jinja2.bccache import Bucket, BytecodeCache

from web import describe, errors, flashing, i18n, security, share
from web.feed import Feed
from web.hub_protocol import HubAPI


def create_app(test_config: Mapping[str, Any] | None = None, hub: HubAPI | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        SECRET_KEY=secrets.token_hex(32),
        PASSWORD_HASH=None,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=12 * 3600,
        # A console tablet stays open all evening: the token lives as long as the session.
        WTF_CSRF_TIME_LIMIT=None,
        MAX_CONTENT_LENGTH=256 * 1024,
        STREAM_HEARTBEAT_S=15.0,
        MAX_STREAMS=1000,
        BIG_SCREEN_ROTATE_S=20,  # seconds per table: calm enough to read a whole table
        FEED_POLL_S=1.0,
        FEED_HISTORY=4096,
        PUBLIC_URL=None,  # e.g. "http://192.168.1.5:8080": the base of seat links and QR codes
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    password = app.config.pop("PASSWORD", None)
    if password:
        app.config["PASSWORD_HASH"] = security.hash_password(str(password))

    app.jinja_env.bytecode_cache = TEMPLATE_CACHE
    app.extensions["hub"] = hub
    app.extensions["feed"] = (
        Feed(hub, history=int(app.config["FEED_HISTORY"]), poll_s=float(app.config["FEED_POLL_S"]))
        if hub is not None
        else None
    )
    app.extensions["stream_slots"] = StreamSlots(int(app.config["MAX_STREAMS"]))

    i18n.init_app(app)
    describe.init_app(app)
    share.init_app(app)
    flashing.init_app(app)
    security.init_app(app)
    errors.register(app)

    from web import admin, api, auth, console, dashboard, fleet, play

    for module in (dashboard, console, admin, api, auth, play, fleet):
        app.register_blueprint(module.bp)
    from web import tournament  # issue 16: tournament pages and API

    app.register_blueprint(tournament.bp)
    from web import phone  # issue 34.5: players' phones, calls for a referee

    app.register_blueprint(phone.bp)
    from web import people  # issue 34: persons, seasons

    app.register_blueprint(people.bp)
    return app


class ProcessBytecodeCache(BytecodeCache):
    """Compiled templates shared by every app of the process (tests make one per test)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        with self._lock:
            data = self._code.get(bucket.key)
        if data is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket: Bucket) -> None:
        with self._lock:
            self._code[bucket.key] = bucket.bytecode_to_string()


TEMPLATE_CACHE = ProcessBytecodeCache()


class StreamSlots:
    """Counts open live streams so they can never take every server thread."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self.open = 0

    def acquire(self) -> bool:
        with self._lock:
            if self.open >= self.limit:
                return False
            self.open += 1
            return True

    def release(self) -> None:
        with self._lock:
            self.open -= 1
