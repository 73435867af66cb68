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
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from flask import (
    Flask,
    Request,
    Response,
    current_app,
    has_request_context,
    jsonify,
    redirect,
    request,
    session,
    url_for,
)
from flask.json.provider import DefaultJSONProvider
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface, SessionMixin
from flask_wtf.csrf import CSRFProtect  # type: ignore[import-untyped]
from itsdangerous import BadSignature, URLSafeTimedSerializer
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.security import check_password_hash, generate_password_hash
from werkzeug.wrappers import Response as BaseResponse

from hub.api import jsonlimits

csrf = CSRFProtect()

F = TypeVar("F", bound=Callable[..., Any])

# Pages are plain same-origin HTML + ES modules: no inline script, no third party.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; media-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

LOGIN_WINDOW_S = 60.0
ADDRESS_MAX_FAILURES = 5  # wrong passwords a minute from one address (unknown browsers)
DEVICE_MAX_FAILURES = 5  # ... from one browser that has logged in before
ACCOUNT_FREE_FAILURES = 5  # a minute, from unknown browsers, before the account slows down
ACCOUNT_MAX_DELAY_S = 30.0
HASHES_AT_ONCE = 2  # a password check costs ~0.1 s of CPU: never more than this at once
DEVICE_COOKIE = "trigono_device"
DEVICE_MAX_AGE_S = 90 * 24 * 3600
SESSION_REFRESH_S = 300.0  # an unchanged session cookie is re-signed at most this often


def hash_password(password: str) -> str:
    return generate_password_hash(password)


def check_password(password: str) -> bool:
    stored = current_app.config.get("PASSWORD_HASH")
    return bool(stored) and check_password_hash(str(stored), password)


@dataclass
class LoginAttempt:
    """A password check allowed to run; counted as a failure until :meth:`LoginThrottle.finish`
    says it succeeded."""

    keys: tuple[str, ...]
    at: float


@dataclass
class LoginRefused:
    retry_after_s: float


class LoginThrottle:
    """Who may try a password now: decided and counted in one step, before the hash.

    - A browser that logged in before (signed device cookie) has its own limit,
      :data:`DEVICE_MAX_FAILURES` a minute, whatever else goes on: the referee is not
      locked out by someone guessing from the same address (a festival's one NAT).
    - Unknown browsers: :data:`ADDRESS_MAX_FAILURES` a minute per address, and the
      account slows down for all of them after :data:`ACCOUNT_FREE_FAILURES`: one try
      per 1, 2, 4 … :data:`ACCOUNT_MAX_DELAY_S` seconds — guessing from many addresses
      stays slow, and the wait is bounded, never a lock-out.
    - At most :data:`HASHES_AT_ONCE` password checks run at once; more are refused
      (retry in a second) rather than queued.

    An attempt counts as a failure from the moment it is allowed, so parallel attempts
    see each other; a success takes its count back.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[str, list[float]] = {}
        self._hashing = threading.BoundedSemaphore(HASHES_AT_ONCE)

    def _recent(self, key: str, now: float) -> list[float]:
        kept = [t for t in self._failures.get(key, ()) if now - t < LOGIN_WINDOW_S]
        if kept:
            self._failures[key] = kept
        else:
            self._failures.pop(key, None)
        return kept

    def begin(self, address: str, device: str | None, now: float | None = None) -> LoginAttempt | LoginRefused:
        now = time.monotonic() if now is None else now
        with self._lock:
            if device is not None:
                keys: tuple[str, ...] = (f"device:{device}",)
                recent = self._recent(keys[0], now)
                if len(recent) >= DEVICE_MAX_FAILURES:
                    return LoginRefused(recent[0] + LOGIN_WINDOW_S - now)
            else:
                keys = (f"address:{address}", "account")
                recent = self._recent(keys[0], now)
                if len(recent) >= ADDRESS_MAX_FAILURES:
                    return LoginRefused(recent[0] + LOGIN_WINDOW_S - now)
                account = self._recent("account", now)
                if len(account) >= ACCOUNT_FREE_FAILURES:
                    delay = min(ACCOUNT_MAX_DELAY_S, 2.0 ** (len(account) - ACCOUNT_FREE_FAILURES))
                    if now < account[-1] + delay:
                        return LoginRefused(account[-1] + delay - now)
            if not self._hashing.acquire(blocking=False):
                return LoginRefused(1.0)
            for key in keys:
                self._failures.setdefault(key, []).append(now)
            return LoginAttempt(keys, now)

    def finish(self, attempt: LoginAttempt, succeeded: bool) -> None:
        self._hashing.release()
        if not succeeded:
            return
        with self._lock:
            for key in attempt.keys:
                stamps = self._failures.get(key, [])
                if attempt.at in stamps:
                    stamps.remove(attempt.at)


def known_device() -> str | None:
    """The id in this browser's device cookie if the app signed it (a past login)."""
    raw = request.cookies.get(DEVICE_COOKIE)
    if not raw:
        return None
    try:
        value = device_signer().loads(raw, max_age=DEVICE_MAX_AGE_S)
    except BadSignature:
        return None
    return value if isinstance(value, str) else None


def remember_device(response: BaseResponse) -> None:
    device = known_device() or secrets.token_urlsafe(12)
    response.set_cookie(DEVICE_COOKIE, device_signer().dumps(device), max_age=DEVICE_MAX_AGE_S,
                        httponly=True, samesite="Lax", secure=cookies_secure(), path="/auth/")


def device_signer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(str(current_app.config["SECRET_KEY"]), salt="login-device")


# -- sessions -----------------------------------------------------------------------------------
class SessionGeneration:
    """The number every referee cookie must carry to count: logout moves it on, so every
    cookie issued before is dead — kept in a file (``SESSION_STATE_FILE``, beside the
    event store) so a restart does not bring them back, and so every web process of the
    event that shares the file sees a logout at once (it is re-read when it changes).
    Without a file: this process only."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._value = 0

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path) if self.path else None
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_ino) if st else None

    @property
    def value(self) -> int:
        if self.path:
            stamp = self._file_stamp()
            if stamp != self._stamp:
                with self._lock:
                    self._stamp, self._value = stamp, self._read()
        return self._value

    def _read(self) -> int:
        if not self.path:
            return self._value
        try:
            with open(self.path, encoding="ascii") as fh:
                return int(fh.read().strip() or 0)
        except (FileNotFoundError, ValueError):
            return 0

    def advance(self) -> int:
        with self._lock:
            new = max(self._value, self._read()) + 1
            if self.path:
                tmp = f"{self.path}.{os.getpid()}.tmp"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w", encoding="ascii") as fh:
                    fh.write(f"{new}\n")
                os.replace(tmp, self.path)
                self._stamp = self._file_stamp()
            self._value = new
            return new


class RevokedSessions:
    """Sessions ended by their own logout: a cookie carries its session's id (``sid``),
    and a logout revokes that id only — the other referees stay logged in (issue 24.4).
    Kept in a file (``SESSION_STATE_FILE`` + ``.revoked``, one ``sid expiry`` line each)
    so a restart, and every other web process sharing it, refuse a cookie replayed after
    its logout; an id is forgotten once no cookie signed before its logout can still be
    valid (its expiry). Without a file: this process only."""

    def __init__(self, path: str | None, lifetime_s: float) -> None:
        self.path = path
        self.lifetime_s = lifetime_s
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._revoked: dict[str, float] = {}

    def _file_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path) if self.path else None
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_ino, st.st_size) if st else None

    def _current(self) -> dict[str, float]:
        if self.path:
            stamp = self._file_stamp()
            if stamp != self._stamp:
                with self._lock:
                    self._stamp, self._revoked = stamp, self._read()
        return self._revoked

    def _read(self) -> dict[str, float]:
        revoked: dict[str, float] = {}
        try:
            with open(str(self.path), encoding="ascii", errors="replace") as fh:
                for line in fh:
                    sid, _, expiry = line.partition(" ")
                    try:
                        revoked[sid] = float(expiry)
                    except ValueError:
                        continue
        except FileNotFoundError:
            pass
        return revoked

    def __contains__(self, sid: object) -> bool:
        return sid in self._current()

    def revoke(self, sid: str) -> None:
        now = time.time()
        with self._lock:
            revoked = {k: v for k, v in (self._read() if self.path else self._revoked).items() if v > now}
            revoked[sid] = now + self.lifetime_s
            if self.path:  # rewritten whole (expired ids dropped), replaced atomically
                tmp = f"{self.path}.{os.getpid()}.tmp"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w", encoding="ascii") as fh:
                    fh.writelines(f"{k} {v:.0f}\n" for k, v in revoked.items())
                os.replace(tmp, self.path)
                self._stamp = self._file_stamp()
            self._revoked = revoked


def password_fingerprint() -> str:
    """Changes with the password: a cookie from before a password change is dead."""
    return fingerprint(str(current_app.config["SECRET_KEY"]), str(current_app.config.get("PASSWORD_HASH") or ""))


@lru_cache(maxsize=8)
def fingerprint(secret_key: str, password_hash: str) -> str:
    # Asked on every referee request (twice: the view and the response headers).
    return hmac.new(secret_key.encode(), b"password\x00" + password_hash.encode(), hashlib.sha256).hexdigest()[:16]


def log_in() -> None:
    session.clear()
    session.permanent = True
    session["referee"] = True
    session["sid"] = secrets.token_urlsafe(12)
    session["generation"] = current_app.extensions["session_generation"].value
    session["password"] = password_fingerprint()


def log_out() -> None:
    """Logout: this session only (its cookie, wherever it was copied, is dead)."""
    sid = session.get("sid")
    if isinstance(sid, str):
        current_app.extensions["revoked_sessions"].revoke(sid)
    session.clear()


def log_out_everywhere() -> None:
    """"Log out everywhere": this session and every other referee cookie issued so far."""
    current_app.extensions["session_generation"].advance()
    session.clear()


def is_logged_in() -> bool:
    sid = session.get("sid")
    return (
        bool(session.get("referee"))
        and isinstance(sid, str)
        and session.get("generation") == current_app.extensions["session_generation"].value
        and session.get("password") == password_fingerprint()
        and sid not in current_app.extensions["revoked_sessions"]
    )


def cookies_secure() -> bool:
    """``SECURE_COOKIES``: True/False, or None (default) for "when the request came over
    HTTPS" — TLS here, or a proxy that says so and is trusted (``TRUSTED_PROXIES``)."""
    setting = current_app.config.get("SECURE_COOKIES")
    if setting is None:
        return bool(has_request_context() and request.is_secure)
    return bool(setting)


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed cookie, re-signed at most every :data:`SESSION_REFRESH_S` when
    nothing in it changed (Flask re-signs a permanent session on every request: about a
    seventh of Flask's CPU for a console input). The session still lasts
    ``PERMANENT_SESSION_LIFETIME`` after the last refresh."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return cookies_secure()

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        serializer = self.get_signing_serializer(app)
        if serializer is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        max_age = int(app.permanent_session_lifetime.total_seconds())
        try:
            data, signed_at = serializer.loads(value, max_age=max_age, return_timestamp=True)
        except BadSignature:
            return self.session_class()
        opened = self.session_class(data)
        opened.signed_at = signed_at.timestamp()  # type: ignore[attr-defined]
        return opened

    def should_set_cookie(self, app: Flask, session: SessionMixin) -> bool:
        if session.modified:
            return True
        if not (session.permanent and app.config["SESSION_REFRESH_EACH_REQUEST"]):
            return False
        signed_at = getattr(session, "signed_at", None)
        return signed_at is None or time.time() - signed_at >= SESSION_REFRESH_S


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


class TextRefusals:
    """Requests refused because their text has no UTF-8 form (a lone surrogate, issue
    24.1), counted by the door they came through (``api``, ``console``, ``admin``...;
    the first part of the path) and logged at WARNING once per ``every_s`` with the count
    of the others: one visitor cannot flood the log. The admin's boards panel shows them.

    >>> refusals = TextRefusals(logging.getLogger("doctest.text"))
    >>> refusals.note("/api/tables", "lone surrogate"); refusals.note("/console/t1/input", "x")
    >>> refusals.total, refusals.by_door()
    (2, {'api': 1, 'console': 1})
    """

    MAX_DOORS = 32  # doors are paths a visitor chooses: bound them

    def __init__(self, logger: logging.Logger, every_s: float = 30.0) -> None:
        self.total = 0
        self._doors: dict[str, int] = {}
        self._lock = threading.Lock()
        self._logger, self._every_s = logger, every_s
        self._logged_at: float | None = None  # monotonic time of the last line logged

    def note(self, path: str, reason: str) -> None:
        door = path.strip("/").split("/", 1)[0][:32] or "/"
        now = time.monotonic()
        with self._lock:
            self.total += 1
            if door not in self._doors and len(self._doors) >= self.MAX_DOORS:
                door = "(other)"
            self._doors[door] = self._doors.get(door, 0) + 1
            total = self.total
            due = self._logged_at is None or now - self._logged_at >= self._every_s
            if due:
                self._logged_at = now
        if due:  # the line carries the running count: those held back are in it
            self._logger.warning("refused a request to %s: %s (%d such requests refused so far)",
                                 path[:200], reason, total)

    def by_door(self) -> dict[str, int]:
        with self._lock:
            return dict(sorted(self._doors.items()))


def text_refusals() -> TextRefusals:
    """The app's count of requests refused for unencodable text."""
    return cast(TextRefusals, current_app.extensions["text_refusals"])


def note_unencodable(err: BaseException | None) -> None:
    """Count (and log, rate-limited) a request refused for text with no UTF-8 form; any
    other error is not counted here."""
    if isinstance(err, jsonlimits.UnencodableTextError):
        text_refusals().note(request.path, str(err))


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
        note_unencodable(err)
        return json_error(400, "BadJSON", str(err))
    except ValueError as err:  # malformed JSON, bad UTF-8
        return json_error(400, "BadJSON", f"not JSON: {err}")
    return None


def init_app(app: Flask) -> None:
    csrf.init_app(app)
    app.json = BoundedJSONProvider(app)
    app.before_request(check_json_body)
    app.extensions["text_refusals"] = TextRefusals(logging.getLogger("web.security"))
    app.extensions["login_throttle"] = LoginThrottle()
    state_file = app.config.get("SESSION_STATE_FILE")
    app.extensions["session_generation"] = SessionGeneration(state_file)
    app.extensions["revoked_sessions"] = RevokedSessions(
        f"{state_file}.revoked" if state_file else None, app.permanent_session_lifetime.total_seconds())
    app.session_interface = SessionInterface()
    proxies = int(app.config.get("TRUSTED_PROXIES") or 0)
    if proxies:
        # Only as many X-Forwarded-* hops as there are proxies we run: the address the
        # login throttle counts and the https that makes cookies Secure come from them.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_port=proxies, x_prefix=proxies
        )

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
        if request.path.startswith("/api/") or is_logged_in():
            headers.setdefault("Cache-Control", "no-store")
        return response
