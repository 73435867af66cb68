"""Every page under the site's own Content-Security-Policy (issue 15, finding 7): no
violation on any page, for every game's renderer; a violation anywhere fails here (and,
through ``new_page``, in every browser test)."""

from __future__ import annotations

from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import login_page, new_page, wait_settled, watch_settling
from web.server import ServerHandle

pytestmark = pytest.mark.browser

# Records each violation as the page sees it (the console message can come late).
WATCH_CSP = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI || "inline"} ${e.sourceFile}:${e.lineNumber}`));
"""


def violations(page: Any, url: str, ready: str) -> list[str]:
    page.js_errors.clear()
    page.goto(url)
    page.locator(ready).first.wait_for(state="attached")
    wait_settled(page)  # the live stream's first snapshot drawn, the page's fetches answered
    found: list[str] = page.evaluate("window.__cspViolations")
    return found + [e for e in page.js_errors if "Content Security Policy" in e]


def test_no_page_violates_the_content_security_policy(browser: Any, hub: Hub, server: ServerHandle) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    hub.create_table("triolet", seats=["Ana", "Ben", "Chloé", "Dan"], seed=5, table_id="g1")
    hub.create_table("triominos", seats=["Ana", "Ben"], seed=5, table_id="g2")
    hub.create_table("trike", seats=["Ana", "Ben"], seed=5, table_id="g3")
    page = new_page(browser)
    page.add_init_script(WATCH_CSP)
    watch_settling(page)
    pages = {
        "/": "article[data-table=t1]",
        "/big": "main",
        "/overlay/t1": "body",
        "/tables/t1": "article[data-table=t1]",
        "/play/g1": ".triolet-board",  # four players: the renderer's player rows
        "/play/g2": "main",
        "/play/g3": "main",
    }
    found = {path: violations(page, server.url + path, ready) for path, ready in pages.items()}
    login_page(page, server, "/console/t1")
    for path in ("/console/t1", "/admin/"):
        found[path] = violations(page, server.url + path, "main")
    assert {path: v for path, v in found.items() if v} == {}
