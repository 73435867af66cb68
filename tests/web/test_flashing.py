"""Flash messages (web/flashing.py) are catalogue keys, shown in the language of the page
that shows them (a refusal keeps the hub's own reason)."""

from __future__ import annotations

from flask import Flask

from web.flashing import flash_key, flash_refusal, shown_messages


def test_a_flash_is_worded_by_the_page_that_shows_it(app: Flask) -> None:
    with app.test_request_context(headers={"Accept-Language": "fr"}):
        flash_key("admin.created", id="t9")
        flash_refusal("undo: nothing to undo")
        assert shown_messages() == [("info", "Table t9 créée."), ("error", "Refusé\u00a0: undo: nothing to undo")]
    with app.test_request_context(headers={"Accept-Language": "en"}):
        flash_key("admin.created", id="t9")
        assert shown_messages() == [("info", "Table t9 created.")]


def test_a_flash_that_is_not_a_key_is_shown_as_it_is(app: Flask) -> None:
    from flask import flash

    with app.test_request_context():
        flash("plain words", "info")
        assert shown_messages() == [("info", "plain words")]
