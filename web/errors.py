"""How errors become answers: pages get a short page in the visitor's language, the JSON
API gets ``{"error": {"type", "message"}}`` (docs/api.md) — for a hub refusal also
``"text"`` (in the page's language), ``"kind"`` and ``"params"``.

Only the project's own errors say why: a :class:`hub.errors.HubError` is a refusal of
the request (404 unknown table, 409 clash, 400 otherwise) and says why in the reader's
language (:func:`web.describe.refusal_text`); a
werkzeug :class:`~werkzeug.exceptions.HTTPException` keeps its status. Anything else is
a bug: Flask logs it with its traceback and the visitor gets a plain 500 that tells
nothing of the inside.

>>> from hub.errors import RefusedError, UnknownTableError
>>> hub_error_status(UnknownTableError("no table 'x'")), hub_error_status(RefusedError("no"))
(404, 400)
"""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, make_response, render_template
from flask_wtf.csrf import CSRFError  # type: ignore[import-untyped]
from werkzeug.exceptions import HTTPException

from hub.api import (
    ConflictError,
    HubBusyError,
    HubError,
    StaleViewError,
    StoreWriteError,
    UnknownBoardError,
    UnknownTableError,
)
from web import security
from web.context import NoHubError
from web.describe import refusal_text

# The catalogue key (web/i18n.py) of each status a page may answer with.
STATUS_KEYS = {
    400: "error.bad_request", 401: "error.forbidden", 403: "error.forbidden", 404: "error.not_found",
    405: "error.method", 409: "error.conflict", 413: "error.too_large", 429: "error.too_many",
    500: "error.server", 503: "error.busy",
}


def hub_error_status(err: HubError) -> int:
    """404 for an unknown table or board, 409 for a clash, 400 for every other refusal."""
    if isinstance(err, (UnknownTableError, UnknownBoardError)):
        return 404
    if isinstance(err, ConflictError):
        return 409
    return 400


def status_key(status: int) -> str:
    return STATUS_KEYS.get(status, "error.server" if status >= 500 else "error.bad_request")


def page(status: int, key: str, detail: str | None = None) -> tuple[str, int]:
    return render_template("error.html", message_key=key, detail=detail, status=status), status


def register(app: Flask) -> None:
    @app.errorhandler(CSRFError)
    def csrf_failed(err: CSRFError) -> Any:
        if security.wants_json():
            return security.json_error(400, "CSRFError", str(err.description))
        return page(400, "error.csrf")

    @app.errorhandler(NoHubError)
    def no_hub(err: NoHubError) -> Any:
        if security.wants_json():
            return security.json_error(503, "NoHub", "the hub is not running")
        return page(503, "error.no_hub")

    @app.errorhandler(StoreWriteError)
    def store_failed(err: StoreWriteError) -> Any:
        # Nothing was stored (a full disk, a lost store file): say so in one line, no
        # traceback per request; the hub logs it (rate-limited) and the admin page shows it.
        if security.wants_json():
            answer: Any = security.json_error(503, "StoreWriteError", str(err))
        else:
            answer = page(503, "error.busy", str(err))
        if isinstance(err, HubBusyError):  # a commit in progress: worth a retry soon
            answer = make_response(answer)
            answer.headers["Retry-After"] = "2"
        return answer

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException) -> Any:
        # Also the 500 Flask makes of an unhandled exception, after logging it.
        status = err.code or 500
        security.note_unencodable(err.__cause__)  # a form field's lone surrogate (issue 24.1)
        if security.wants_json():
            message = "internal error (logged)" if status >= 500 else str(err.description)
            return security.json_error(status, type(err).__name__, message)
        return page(status, status_key(status))

    @app.errorhandler(HubError)
    def hub_refused(err: HubError) -> Any:
        # The hub's typed refusals: a clear message, nothing changed.
        status = hub_error_status(err)
        if security.wants_json():
            # "message" stays the hub's English line; "text" says it in the page's language.
            body: dict[str, Any] = {"error": {"type": type(err).__name__, "message": str(err),
                                              "text": refusal_text(err), "kind": err.kind,
                                              "params": err.params}}
            if isinstance(err, StaleViewError):
                body["view"] = err.view  # what the console shows instead of its old question
            response = jsonify(body)
            response.status_code = status
            return response
        return page(status, status_key(status), None if status == 404 else refusal_text(err))
