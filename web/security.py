"""Login, CSRF, seat links and response headers.

- The referee/admin password is given when the hub starts; only its werkzeug hash is
  kept (``app.config["PASSWORD_HASH"]``). A login marks the signed session cookie.
- Flask-WTF's :class:`CSRFProtect` checks every POST/PUT/PATCH/DELETE: forms carry the
  ``csrf_token`` field, scripts send the ``X-CSRFToken`` header (the token is in the
  page's ``<meta name="csrf-token">``).
- A player at a game table plays through a *seat link*: ``/play/<table>?seat=TOKEN``
  where TOKEN is an HMAC of the table and the player under the app's secret key. The
  referee hands the links out from the console; without one a visitor only watches.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, jsonify, redirect, request, session, url_for
from flask.json.provider import DefaultJSONProvider
from flask_wtf.csrf import CSRFProtect  # type: ignore[import-untyped]
from werkzeug.security import check_password_hash, generate_password_hash

from hub import jsonlimits

csrf = CSRFProtect()

F = TypeVar("F", bound=Callable[..., Any])

# Pages are plain same-origin HTML + ES modules: no inline script, no third party.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; media-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

LOGIN_WINDOW_S = 60.0
LOGIN_MAX_FAILURES = 5


def hash_password(password: str) -> str:
    return generate_password_hash(password)


def is_logged_in() -> bool:
    return bool(session.get("referee"))


def check_password(password: str) -> bool:
    stored = current_app.config.get("PASSWORD_HASH")
    return bool(stored) and check_password_hash(str(stored), password)


class LoginThrottle:
    """At most :data:`LOGIN_MAX_FAILURES` wrong passwords per address per minute."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[str, list[float]] = {}

    def blocked(self, address: str) -> bool:
        now = time.monotonic()
        with self._lock:
            recent = [t for t in self._failures.get(address, []) if now - t < LOGIN_WINDOW_S]
            self._failures[address] = recent
            return len(recent) >= LOGIN_MAX_FAILURES

    def failed(self, address: str) -> None:
        with self._lock:
            self._failures.setdefault(address, []).append(time.monotonic())


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def login_required(view: F) -> F:
    """Pages redirect to the login form; the JSON API answers 401."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not is_logged_in():
            if wants_json():
                return json_error(401, "Unauthorized", "login required")
            return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return cast(F, wrapped)


def json_error(status: int, kind: str, message: str) -> Response:
    response = jsonify({"error": {"type": kind, "message": message}})
    response.status_code = status
    return response


def safe_next(target: str | None, default: str) -> str:
    """Only same-site paths are followed after login or a language switch."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return default
    if "\\" in target:
        return default
    return target


def seat_token(table_id: str, player: str) -> str:
    """The secret of one seat: stable for the app's secret key, unguessable without it."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    message = f"seat\x00{table_id}\x00{player}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:20]


def seat_for_token(table_id: str, players: list[str], token: str) -> str | None:
    for player in players:
        if hmac.compare_digest(seat_token(table_id, player), token):
            return player
    return None


def claimed_seat(table_id: str) -> str | None:
    seats = session.get("seats") or {}
    player = seats.get(table_id)
    return player if isinstance(player, str) else None


def claim_seat(table_id: str, player: str) -> None:
    seats = dict(session.get("seats") or {})
    seats[table_id] = player
    session["seats"] = seats


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON, reading with the limits of :mod:`hub.jsonlimits`."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return jsonlimits.loads(s)


def check_json_body() -> Response | None:
    """Check a JSON request body before any view: deep nesting, huge integers and
    malformed JSON are a clear 400 here, whatever the view then does (its ``get_json``
    reads through :class:`BoundedJSONProvider` too)."""
    if not request.is_json or request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    if not request.content_length and "chunked" not in request.headers.get("Transfer-Encoding", ""):
        return None
    try:
        jsonlimits.loads(request.get_data(cache=True))
    except jsonlimits.JSONLimitError as err:
        return json_error(400, "BadJSON", str(err))
    return None


def init_app(app: Flask) -> None:
    csrf.init_app(app)
    app.json = BoundedJSONProvider(app)
    app.before_request(check_json_body)
    app.extensions["login_throttle"] = LoginThrottle()

    @app.after_request
    def security_headers(response: Response) -> Response:
        headers = response.headers
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers.setdefault("Referrer-Policy", "same-origin")
        headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
        headers.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
        if request.endpoint == "dashboard.overlay":
            # Video-mixing software embeds the overlay page.
            headers.setdefault(
                "Content-Security-Policy",
                CONTENT_SECURITY_POLICY.replace("frame-ancestors 'none'", "frame-ancestors *"),
            )
        else:
            headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
            headers.setdefault("X-Frame-Options", "DENY")
        if is_logged_in() or request.path.startswith("/api/"):
            headers.setdefault("Cache-Control", "no-store")
        return response
