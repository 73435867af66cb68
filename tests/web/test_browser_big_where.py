"""Where a match is played, on the projector screens (issue 32.15), in a real Chromium at
1080p and 4K: a tournament's table on the big screen says its station, match number and
round; a grid card says the table's name; the tournament's calls screen fills the screen,
the newest call marked and as large as it goes, the matches on deck listed; names are not
cut where there is room for them."""

from __future__ import annotations

from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import new_page, shot
from web.server import ServerHandle

pytestmark = pytest.mark.browser

LONG = "Élodie Lefèvre-Marchand"
NAMES = [LONG, "Bartholomé Dupont", "Chloé", "Dan", "Eve", "Fred", "Gus", "Hugo", "Inès", "Jo"]
SIZES = [(1920, 1080), (3840, 2160)]


def tournament(hub: Hub) -> dict[str, Any]:
    """A Swiss tournament of ten on two Trigono stations: two matches called (one with the
    long name), three on deck."""
    svc = hub.tournaments
    svc.create({"name": "Open d'hiver", "game": "trigono", "format": "swiss", "rounds": 3, "check_in": False},
               tournament_id="S1")
    for name in NAMES:
        svc.submit("S1", {"type": "register", "player": {"name": name}})
    svc.submit("S1", {"type": "station", "station": {"id": "row1", "seats": 2, "boards": ["R11", "R12"]}})
    svc.submit("S1", {"type": "station", "station": {"id": "row2", "seats": 2, "boards": ["R21"]}})
    return svc.submit("S1", {"type": "start"})


# Each name's text against its box: cut when the text is wider than the box; the box had
# room when the card's body could give it that width (the drawing keeping its least share).
NAMES_CUT = """(least) => [...document.querySelectorAll('.players .name')].map((name) => {
    const body = name.closest('.card-body').getBoundingClientRect().width;
    const others = [...name.closest('tr').children].filter((td) => td !== name)
        .reduce((sum, td) => sum + td.getBoundingClientRect().width, 0);
    const style = getComputedStyle(name);
    const span = document.createElement('span'); // the text's own width, not the cell's
    span.style.whiteSpace = 'nowrap';
    span.append(...[...name.childNodes].map((n) => n.cloneNode(true)));
    name.closest('table').after(span);
    const need = span.getBoundingClientRect().width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    span.remove();
    return { name: name.textContent, cut: name.scrollWidth > name.clientWidth,
             room: need <= body * (1 - least) - others, px: parseFloat(style.fontSize) };
})"""


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_tournament_table_says_its_station_match_and_round(
        browser: Any, hub: Hub, server: ServerHandle, width: int, height: int) -> None:
    view = tournament(hub)
    called = [m for m in view["matches"] if m["status"] == "called" and m["table"]]
    assert len(called) == 2
    long_match = next(m for m in called if LONG in m["names"])
    for locale, station, match, round_ in (("en-GB", "station", "Match", "Tournament round 1"),
                                           ("fr-FR", "poste", "Partie", "Tour 1")):
        page = new_page(browser, locale=locale, width=width, height=height)
        page.goto(f"{server.url}/big?tables={long_match['table']}")
        where = page.locator("#big-head .where")
        where.wait_for()
        text = where.inner_text()
        assert f"{station} {long_match['station']}" in text and f"{match} {long_match['number']}" in text and round_ in text
        # Read from 10 m: the station as large as the table's name line, inside the screen.
        box = page.locator("#big-head .where .station").bounding_box()
        assert box is not None and box["x"] + box["width"] <= width and box["height"] >= height * 0.04
        names = page.evaluate(NAMES_CUT, 0.30)
        assert any(n["name"] == LONG for n in names)
        assert all(not n["cut"] for n in names if n["room"]), names
        assert all(n["room"] for n in names), names  # there is room for these: none is cut
        assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
        shot(page, f"big-tournament-table-{width}-{locale}.png")
        assert page.js_errors == []
        page.context.close()


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_grid_cards_show_the_tables_name_and_whole_names(
        browser: Any, hub: Hub, server: ServerHandle, width: int, height: int) -> None:
    view = tournament(hub)
    hub.create_table("trigono", seats=[LONG, "Ben"], boards=["B1", "B2"], seed=7, table_id="hall-3",
                     options={"first": "Ben"})
    page = new_page(browser, locale="fr-FR", width=width, height=height)
    page.goto(f"{server.url}/big?mode=grid")
    page.locator(".grid-cell .where").nth(1).wait_for()
    assert page.locator(".grid-cell").count() == 3
    # The table's own name, whole and in view, at the size of the head's line (30 px at 1080p).
    plain = page.locator(".grid-cell[data-table=hall-3] .card-head .table-id")
    assert plain.inner_text() == "hall-3"
    cell = page.locator(".grid-cell[data-table=hall-3]").bounding_box()
    box = plain.bounding_box()
    assert cell is not None and box is not None and box["x"] >= cell["x"] and box["x"] + box["width"] <= cell["x"] + cell["width"]
    assert page.evaluate("(e) => e.scrollWidth <= e.clientWidth", plain.element_handle())
    assert float(plain.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")) >= height * 0.028
    for m in (m for m in view["matches"] if m["status"] == "called"):
        where = page.locator(f".grid-cell[data-table='{m['table']}'] .where")
        assert where.inner_text().split() == ["poste", m["station"], "Partie", str(m["number"]), "Tour", "1"]
        assert float(where.locator(".station").evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")) >= height * 0.028
    names = page.evaluate(NAMES_CUT, 0.18)
    assert sum(n["name"] == LONG for n in names) == 2
    assert all(n["room"] and not n["cut"] for n in names), names
    assert all(n["px"] >= height * 0.037 for n in names), names
    shot(page, f"big-grid-where-{width}.png")
    assert page.js_errors == []


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_calls_screen_fills_the_screen_newest_call_first_then_on_deck(
        browser: Any, hub: Hub, server: ServerHandle, width: int, height: int) -> None:
    view = tournament(hub)
    calls = view["pending_calls"]
    newest, older = calls[-1], calls[0]
    on_deck = [next(m for m in view["matches"] if m["id"] == mid) for mid in view["queue"]]
    assert len(on_deck) == 3
    page = new_page(browser, locale="fr-FR", width=width, height=height)
    page.goto(f"{server.url}/tournaments/S1/big?mode=calls")
    card = page.locator(".call.newest")
    assert card.get_attribute("data-match") == newest["match"]
    assert card.locator(".call-tag").inner_text().lower() == "dernier appel"
    assert card.locator(".call-station").inner_text() == f"poste {newest['station']}"
    assert card.locator(".call-match").inner_text() == f"Partie {newest['number']} · Tour 1"
    assert card.locator(".call-players").inner_text() == ", ".join(newest["players"])
    size = card.locator(".call-station").evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= height * 0.12  # 130 px at 1080p: it was 32 px
    players = card.locator(".call-players").evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")
    assert players >= height * 0.07
    box = card.bounding_box()
    assert box is not None and box["width"] >= width * 0.9  # the whole width, not a quarter
    assert page.locator(".called-list .call").count() == 1
    assert page.locator(".called-list .call").get_attribute("data-match") == older["match"]
    deck = page.locator(".on-deck li")
    assert [deck.nth(k).get_attribute("data-match") for k in range(deck.count())] == [m["id"] for m in on_deck]
    assert page.locator(".on-deck h2").inner_text() == "À suivre"
    rows = page.evaluate("""() => [...document.querySelectorAll('.calls-rest li')].map((li) => {
        const r = li.getBoundingClientRect();
        return { px: parseFloat(getComputedStyle(li).fontSize), inside: r.right <= innerWidth && r.bottom <= innerHeight,
                 whole: li.scrollWidth <= li.clientWidth };
    })""")
    assert rows and all(r["px"] >= height * 0.04 and r["inside"] and r["whole"] for r in rows), rows
    assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight && document.scrollingElement.scrollWidth <= innerWidth")
    shot(page, f"tournament-calls-{width}.png")
    assert page.js_errors == []
