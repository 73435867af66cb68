"""Dark mode on every page (issue 17, "Visual finish"): the device's choice by default,
a top-bar button to pick the other, kept for the next pages; the big screen stays dark."""

from __future__ import annotations

from typing import Any

import pytest

from hub.facade import Hub
from web.server import ServerHandle

pytestmark = pytest.mark.browser

BACKGROUND = "getComputedStyle(document.body).backgroundColor"


def luminance(css: str) -> float:
    r, g, b = (int(part) for part in css[css.index("(") + 1:css.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_pages_follow_the_device_and_the_toggle_keeps_the_choice(browser: Any, hub: Hub, server: ServerHandle) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    context = browser.new_context(color_scheme="dark", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(f"{server.url}/")
    toggle = page.locator("#theme-toggle")
    toggle.wait_for()
    assert luminance(page.evaluate(BACKGROUND)) < 0.2 and toggle.get_attribute("aria-pressed") == "true"
    toggle.click()
    assert luminance(page.evaluate(BACKGROUND)) > 0.8 and toggle.get_attribute("aria-pressed") == "false"
    for path in ("/console/", "/play/", "/tables/t1"):
        page.goto(f"{server.url}{path}")
        assert luminance(page.evaluate(BACKGROUND)) > 0.8, path  # the choice holds on every page
    page.goto(f"{server.url}/big")
    assert luminance(page.evaluate(BACKGROUND)) < 0.2  # the big screen is always dark
    light = browser.new_context(color_scheme="light").new_page()
    light.goto(f"{server.url}/admin/")
    assert luminance(light.evaluate(BACKGROUND)) > 0.8
    light.locator("#theme-toggle").click()
    assert luminance(light.evaluate(BACKGROUND)) < 0.2
    assert errors == []
