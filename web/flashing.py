"""Flash messages that are catalogue keys (translated when shown) or a hub's own words."""

from __future__ import annotations

import json
from typing import Any

from flask import Flask, flash, get_flashed_messages

from web.i18n import gettext


def flash_key(key: str, category: str = "info", **params: Any) -> None:
    flash(json.dumps({"key": key, "params": params}), category)


def flash_refusal(reason: str) -> None:
    flash(json.dumps({"key": "console.refused", "params": {"reason": reason}}), "error")


def shown_messages() -> list[tuple[str, str]]:
    out = []
    flashed: list[tuple[str, str]] = get_flashed_messages(with_categories=True)  # type: ignore[assignment]
    for category, raw in flashed:
        try:
            data = json.loads(raw)
            text = gettext(data["key"], **data.get("params", {}))
        except (ValueError, KeyError, TypeError):
            text = raw
        out.append((category, text))
    return out


def init_app(app: Flask) -> None:
    app.jinja_env.globals["flashed"] = shown_messages
