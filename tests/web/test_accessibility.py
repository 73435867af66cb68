"""Every page passes axe-core (tests/web/assets/axe.min.js, axe-core 4.14.1 from the npm
registry, MPL-2.0: axe-LICENSE.txt) in a real Chromium, in French and in English, light
and dark, logged in (so the referee pages are checked too), with no serious or critical
violation.

The page list comes from the app's own routes, so a new page is checked without being
listed here; routes that are not pages (API, stream, fragments, redirects, downloads) are
left out by rule, and routes whose parameters we cannot fill (a tournament's id) are
skipped unless a table id fills them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import login_page, new_page, wait_settled, watch_settling
from web.security import seat_token
from web.server import ServerHandle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AXE = (Path(__file__).parent / "assets" / "axe.min.js").read_text(encoding="utf-8")
NOT_PAGES = ("/static/", "/api/", "/lang/", "/auth/logout")
FRAGMENTS = ("/panel", "/join", "/boards", ".json", ".csv")
GAME_TABLES = {"trigono": "t1", "triominos": "g1", "trike": "g2", "triolet": "g3"}
TOURNAMENT = "cup"  # a tournament in registration, with four players (issue 16's pages)


def page_urls(server: ServerHandle) -> list[str]:
    urls = []
    for rule in server.app.url_map.iter_rules():
        path = rule.rule
        if "GET" not in (rule.methods or ()) or path.startswith(NOT_PAGES) or path.endswith(FRAGMENTS):
            continue
        if not rule.arguments:
            urls.append(path)
        elif rule.arguments == {"table_id"}:
            tables = GAME_TABLES.values() if path.startswith("/play/") else ["t1"]
            urls += [path.replace("<table_id>", t) for t in tables]
        elif rule.arguments == {"tid"}:
            urls.append(path.replace("<tid>", TOURNAMENT))
    return sorted(set(urls))


def create_tournament(page: Any) -> None:
    """Through the API as the logged-in referee: a Trike tournament with four players."""
    entries = [{"type": "register", "player": {"name": name}} for name in ("Ana", "Ben", "Chloé", "Dan")]
    status = page.evaluate(
        """async ([spec, entries]) => {
            const headers = {'Content-Type': 'application/json',
                             'X-CSRFToken': document.querySelector('meta[name=csrf-token]').content};
            let r = await fetch('/api/tournaments', {method: 'POST', headers, body: JSON.stringify(spec)});
            if (r.status !== 201) return r.status;
            for (const entry of entries) {
                r = await fetch(`/api/tournaments/${spec.id}/entries`, {method: 'POST', headers, body: JSON.stringify(entry)});
                if (!r.ok) return r.status;
            }
            return 201;
        }""",
        [{"id": TOURNAMENT, "name": "Coupe", "game": "trike", "format": "pools"}, entries])
    assert status == 201


def serious_violations(page: Any, rules: list[str] | None = None) -> list[dict[str, Any]]:
    """axe's serious and critical violations on the page (every rule, or only ``rules``);
    axe is added to the page once (through the DevTools protocol: its CSP does not apply)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE)
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    result = page.evaluate("options => axe.run(document, options)", options)
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [n["target"] for n in v["nodes"]][:5]}
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


# Both languages in the device's light scheme, and French once more in the dark one (every
# page follows the device: its contrasts are checked too). The scheme changes colours only
# (site.css: custom properties under prefers-color-scheme, no transition), so the dark pass
# switches the same page to dark and runs axe's contrast rule alone, with axe already in
# it. One test a language: xdist spreads them.
@pytest.mark.parametrize(("locale", "schemes"), [("fr-FR", ("light", "dark")), ("en-GB", ("light",))])
def test_every_page_passes_axe_in_both_languages(browser: Any, hub: Hub, server: ServerHandle,
                                                  locale: str, schemes: tuple[str, ...]) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben", "Chloé"], boards=["B1", "B2"], seed=3, table_id="t1",
                     options={"first": "Ana"})
    hub.submit("t1", {"landed": "board:B2"})
    for game, table_id in GAME_TABLES.items():
        if game != "trigono":
            hub.create_table(game, seats=[{"name": "Lou", "bot": False}, {"name": "Robot", "bot": True}],
                             seed=11, table_id=table_id)
    urls = page_urls(server)
    assert f"/tournaments/{TOURNAMENT}/standings" in urls
    assert {"/", "/big", "/console/t1", "/admin/", "/play/g3"} <= set(urls)
    failures = []
    page = new_page(browser, locale=locale)
    watch_settling(page)
    login_page(page, server, "/console/")
    create_tournament(page)
    for table_id in GAME_TABLES.values():
        with server.app.app_context():
            page.goto(f"{server.url}/play/{table_id}/join?seat={seat_token(table_id, 'Lou')}")
    checked = {scheme: 0 for scheme in schemes}
    for url in urls:
        # Reduced motion: no fade-in (the big screen's table) is caught half-transparent.
        page.emulate_media(color_scheme=schemes[0], reduced_motion="reduce")
        page.goto(server.url + url)
        wait_settled(page)  # the live stream's first snapshot is drawn, its fetches answered
        for scheme in schemes:
            page.emulate_media(color_scheme=scheme)
            assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
            for violation in serious_violations(page, None if scheme == "light" else ["color-contrast"]):
                failures.append({"url": url, "locale": locale, "scheme": scheme, **violation})
            checked[scheme] += 1
    page.context.close()
    assert checked == {scheme: len(urls) for scheme in schemes}
    assert not failures, json.dumps(failures, indent=1, ensure_ascii=False)
