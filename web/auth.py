"""Login and logout of the referee (one password, given when the hub starts).

The throttle (:class:`web.security.LoginThrottle`) decides and counts an attempt before
the password is hashed; a successful login marks this browser as known (a signed device
cookie) so guessing from the same address cannot lock it out later. Logout ends this
session only (:class:`web.security.RevokedSessions`); "log out everywhere" ends every
referee session issued so far (:class:`web.security.SessionGeneration`). Both need a
logged-in session.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for

from web.flashing import flash_key
from web.security import (
    LoginRefused,
    check_password,
    known_device,
    log_in,
    log_out,
    log_out_everywhere,
    login_required,
    remember_device,
    safe_next,
)

bp = Blueprint("auth", __name__, url_prefix="/auth")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    target = safe_next(request.values.get("next"), url_for("console.index"))
    closed = not current_app.config.get("PASSWORD_HASH")
    status = 200
    retry_after: float | None = None
    if request.method == "POST" and not closed:
        throttle = current_app.extensions["login_throttle"]
        attempt = throttle.begin(request.remote_addr or "?", known_device())
        if isinstance(attempt, LoginRefused):
            flash_key("auth.too_many", "error")
            status, retry_after = 429, attempt.retry_after_s
        else:
            ok = False
            try:
                ok = check_password(request.form.get("password", ""))
            finally:
                throttle.finish(attempt, ok)
            if ok:
                log_in()
                response = redirect(target)
                remember_device(response)
                return response
            flash_key("auth.bad_password", "error")
            status = 401
    response = current_app.make_response((render_template("auth/login.html", next=target, closed=closed), status))
    if retry_after is not None:
        response.headers["Retry-After"] = str(max(1, round(retry_after)))
    return response


@bp.post("/logout")
@login_required
def logout() -> Any:
    """This session only: an anonymous visitor's POST changes nothing (issue 24.4)."""
    log_out()
    flash_key("auth.logged_out")
    return redirect(url_for("dashboard.index"))


@bp.post("/logout-everywhere")
@login_required
def logout_everywhere() -> Any:
    """Every referee session issued so far (a lost phone, a shared password changed)."""
    log_out_everywhere()
    flash_key("auth.logged_out")
    return redirect(url_for("dashboard.index"))
