"""Login and logout of the referee (one password, given when the hub starts)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for

from web.flashing import flash_key
from web.security import check_password, safe_next

bp = Blueprint("auth", __name__, url_prefix="/auth")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    target = safe_next(request.values.get("next"), url_for("console.index"))
    closed = not current_app.config.get("PASSWORD_HASH")
    status = 200
    if request.method == "POST" and not closed:
        throttle = current_app.extensions["login_throttle"]
        address = request.remote_addr or "?"
        if throttle.blocked(address):
            flash_key("auth.too_many", "error")
            status = 429
        elif check_password(request.form.get("password", "")):
            session.clear()
            session.permanent = True
            session["referee"] = True
            return redirect(target)
        else:
            throttle.failed(address)
            flash_key("auth.bad_password", "error")
            status = 401
    return render_template("auth/login.html", next=target, closed=closed), status


@bp.post("/logout")
def logout() -> Any:
    session.clear()
    flash_key("auth.logged_out")
    return redirect(url_for("dashboard.index"))
