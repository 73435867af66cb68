"""Issue 26, items 4, 12 (games), 13 (Triolet), 14 and the compact phone cards, in a real
Chromium (Playwright) beside a real hub: each test failed before its fix.

- 4/13: Triolet lights exactly the cells the hub's legal plays allow for the selected token
  (solid where it plays now, dashed where it needs another token), sends only a whole
  legal play, and its rings stay inside their cells.
- 12: every game board is one Tab stop (WAI-ARIA grid, roving tabindex), arrow keys move
  between cells, and focus stays on the board after a move."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import new_page, shot
from web.security import seat_token
from web.server import ServerHandle

pytestmark = pytest.mark.browser

TWO_PLAYERS = [{"name": "Lou", "bot": False}, {"name": "Ana", "bot": False}]
COLUMNS = "ABCDEFGHIJKLMNO"


def open_seat(browser: Any, server: ServerHandle, table_id: str, player: str, locale: str = "en-GB",
              width: int = 1280, height: int = 800) -> Any:
    page = new_page(browser, locale=locale, width=width, height=height)
    with server.app.app_context():
        page.goto(f"{server.url}/play/{table_id}/join?seat={seat_token(table_id, player)}")
    page.wait_for_url(f"{server.url}/play/{table_id}")
    return page


def active(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => { const a = document.activeElement;
        return {role: a.getAttribute('role'), cell: a.dataset ? (a.dataset.cell || null) : null,
                tag: a.tagName.toLowerCase(), grid: !!a.closest('[role=grid]')}; }""")


def wait_active_cell(page: Any) -> None:
    page.wait_for_function("() => document.activeElement && document.activeElement.getAttribute('role') === 'gridcell'",
                           timeout=10_000)


def one_tab_stop(page: Any) -> None:
    stops = page.evaluate("""() => [...document.querySelectorAll('[role=grid] [role=gridcell]')]
        .map((c) => c.getAttribute('tabindex'))""")
    assert stops.count("0") == 1 and set(stops) == {"0", "-1"}, stops


# -- item 4 and 13: Triolet lights exactly the hub's cells, inside them ---------------------
def triolet_after_one_play(hub: Hub) -> str:
    """Seed 11: Lou lays two tokens on G8 H8; Ana (2, 3, 11) is to move. A lone token on F7
    touches nothing, but F7 is in two-token plays: the cell that was lit and refused."""
    hub.create_table("triolet", seats=TWO_PLAYERS, seed=11, table_id="g3")
    plays = [a for a in hub.legal_actions("g3", "Lou") if "play" in a]
    hub.submit("g3", {"move": max(plays, key=lambda a: len(a["play"]))})
    to_move = str(hub.table_view("g3")["state"]["to_move"])
    assert to_move == "Ana"
    return to_move


def test_item4_triolet_lights_only_the_hubs_cells_for_the_token_and_plays_only_whole_plays(
    browser: Any, hub: Hub, server: ServerHandle
) -> None:
    player = triolet_after_one_play(hub)
    plays = [a["play"] for a in hub.legal_actions("g3", player) if "play" in a]
    page = open_seat(browser, server, "g3", player)
    page.wait_for_selector("#game-root[data-your-turn='1']")
    page.locator(".rack-token[data-token='2']").click()
    page.wait_for_selector(".rack-token.selected")
    solid = set(page.eval_on_selector_all("g.cell.legal", "gs => gs.map(g => g.dataset.cell)"))
    dashed = set(page.eval_on_selector_all("g.cell.step", "gs => gs.map(g => g.dataset.cell)"))
    alone = {p[0].split(":")[0] for p in plays if len(p) == 1 and p[0].endswith(":2")}
    with_more = {q.split(":")[0] for p in plays if len(p) > 1 for q in p if q.endswith(":2")} - alone
    assert solid == alone and dashed == with_more
    assert "F7" in dashed and "F7" not in solid  # a lone 2 on F7 would touch nothing
    # Item 13: every ring (highlight, focus) is drawn inside its own cell, stroke included.
    spill = page.evaluate("""() => [...document.querySelectorAll('g.cell.legal, g.cell.step')].filter((g) => {
        const bg = g.querySelector('.bg').getBBox(); const ring = g.querySelector('.ring');
        const r = ring.getBBox(); const half = parseFloat(getComputedStyle(ring).strokeWidth) / 2;
        return r.x - half < bg.x || r.y - half < bg.y || r.x + r.width + half > bg.x + bg.width
            || r.y + r.height + half > bg.y + bg.height; }).map((g) => g.dataset.cell)""")
    assert spill == []
    # On a dashed cell the token is only a step: Play waits and the page says why.
    page.locator("g.cell[data-cell='F7']").click()
    page.wait_for_selector("g.cell.pending[data-cell='F7']")
    assert page.locator("button.action.play").is_disabled()
    assert page.locator(".triolet-incomplete").is_visible()
    # The next token may go only where the two make one of the hub's plays.
    page.locator(".rack-token[data-token='3']").click()
    page.wait_for_selector("g.cell.legal")
    second = set(page.eval_on_selector_all("g.cell.legal", "gs => gs.map(g => g.dataset.cell)"))
    expected = {q.split(":")[0] for p in plays if len(p) == 2 and "F7:2" in p for q in p if q.endswith(":3")}
    assert second == expected - {"F7"}
    cell = sorted(second)[0]
    page.locator(f"g.cell[data-cell='{cell}']").click()
    assert page.locator("button.action.play").is_enabled()
    shot(page, "issue26-triolet-two-tokens.png")
    page.locator("button.action.play").click()
    page.wait_for_selector("#game-root[data-your-turn='0']", timeout=10_000)
    last = hub.table_view("g3")["state"]["log"][-1]
    assert last["player"] == player and sorted(last["action"]["play"]) == sorted(["F7:2", f"{cell}:3"])
    assert page.locator("#play-error").is_hidden()
    assert page.js_errors == []


# -- item 12: one focusable grid per board, arrow keys, focus kept after a move -------------
def test_item12_triolet_board_is_one_tab_stop_with_arrow_keys_and_keeps_focus_after_a_move(
    browser: Any, hub: Hub, server: ServerHandle
) -> None:
    player = triolet_after_one_play(hub)
    page = open_seat(browser, server, "g3", player, locale="fr-FR")
    page.wait_for_selector("#game-root[data-your-turn='1']")
    one_tab_stop(page)
    token = page.locator(".rack-token[data-token='2']")  # the rack's first token
    token.focus()
    page.keyboard.press("Enter")  # the token chosen from the keyboard
    page.wait_for_selector(".rack-token.selected[data-token='2']")
    page.keyboard.press("Shift+Tab")  # one press from the rack to the board (94 before)
    wait_active_cell(page)
    start = active(page)["cell"]
    assert start in set(page.eval_on_selector_all("g.cell.legal, g.cell.step", "gs => gs.map(g => g.dataset.cell)"))
    col, row = COLUMNS.index(start[0]), int(start[1:])
    page.keyboard.press("ArrowRight")
    assert active(page)["cell"] == f"{COLUMNS[col + 1]}{row}"
    page.keyboard.press("ArrowDown")
    assert active(page)["cell"] == f"{COLUMNS[col + 1]}{row + 1}"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowUp")
    assert active(page)["cell"] == start
    one_tab_stop(page)
    # Walk to G7, where a lone 2 plays (next to Lou's G8), and play it from the keyboard.
    target_col, target_row = COLUMNS.index("G"), 7
    for _ in range(abs(target_col - col)):
        page.keyboard.press("ArrowRight" if target_col > col else "ArrowLeft")
    for _ in range(abs(target_row - row)):
        page.keyboard.press("ArrowDown" if target_row > row else "ArrowUp")
    assert active(page)["cell"] == "G7"
    page.keyboard.press("Enter")
    page.wait_for_selector("g.cell.pending[data-cell='G7']")
    wait_active_cell(page)  # the redraw keeps focus on the cell
    assert active(page)["cell"] == "G7"
    page.keyboard.press("Tab")  # out of the board in one press
    assert not active(page)["grid"]
    play = page.locator("button.action.play")
    play.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#game-root[data-your-turn='0']", timeout=10_000)
    wait_active_cell(page)  # the Play button is gone: focus is back on the board
    assert active(page)["cell"] == "G7"
    assert hub.table_view("g3")["state"]["log"][-1]["action"]["play"] == ["G7:2"]
    assert page.js_errors == []


def test_item12_trike_board_is_one_tab_stop_with_arrow_keys_and_keeps_focus_after_a_move(
    browser: Any, hub: Hub, server: ServerHandle
) -> None:
    hub.create_table("trike", seats=TWO_PLAYERS, seed=11, table_id="g2")
    hub.submit("g2", {"move": hub.legal_actions("g2", "Lou")[0]})  # the opening stone
    player = str(hub.table_view("g2")["state"]["to_move"])
    page = open_seat(browser, server, "g2", player)
    page.wait_for_selector("#game-root[data-your-turn='1']")
    one_tab_stop(page)
    page.locator(".trike-panel button").first.focus()  # swap (pie rule) or hint
    page.keyboard.press("Shift+Tab")  # the board is one stop before the panel's buttons
    wait_active_cell(page)
    start = active(page)["cell"]
    moved = set()
    for key in ("ArrowRight", "ArrowLeft", "ArrowDown", "ArrowUp"):
        page.keyboard.press(key)
        moved.add(active(page)["cell"])
    assert len(moved) > 1 and active(page)["role"] == "gridcell"
    one_tab_stop(page)
    # Walk until a cell the pawn can reach has focus, and play it with Enter.
    targets = set(page.eval_on_selector_all("g.trike-cell.target", "gs => gs.map(g => g.dataset.cell)"))
    assert targets
    for _ in range(400):
        if active(page)["cell"] in targets:
            break
        page.keyboard.press("ArrowRight")
        if active(page)["cell"] in targets:
            break
        page.keyboard.press("ArrowDown")
    cell = active(page)["cell"]
    assert cell in targets, start
    page.keyboard.press("Enter")
    page.wait_for_selector("#game-root[data-your-turn='0']", timeout=10_000)
    wait_active_cell(page)
    assert active(page)["cell"] == cell  # the played cell, now holding a stone
    assert hub.table_view("g2")["state"]["log"][-1]["action"] == cell
    assert page.js_errors == []


def test_item12_triominos_board_is_one_tab_stop_with_arrow_keys_and_keeps_focus_after_a_move(
    browser: Any, hub: Hub, server: ServerHandle
) -> None:
    hub.create_table("triominos", seats=TWO_PLAYERS, seed=11, table_id="g1")
    for _ in range(40):  # play on until the board has a few tiles and the mover two spots
        to_move = str(hub.table_view("g1")["state"]["to_move"])
        legal = hub.legal_actions("g1", to_move)
        spots = {tuple(a["place"]["cell"]) for a in legal if "place" in a}
        if len(hub.table_view("g1")["state"]["board"]) >= 4 and len(spots) >= 2:
            break
        hub.submit("g1", {"move": next((a for a in legal if "place" in a), legal[0])})
    assert len(spots) >= 2
    page = open_seat(browser, server, "g1", to_move, locale="fr-FR")
    page.wait_for_selector("#game-root[data-your-turn='1']")
    one_tab_stop(page)
    page.locator("[role=grid] [tabindex='0']").focus()
    wait_active_cell(page)
    seen = {active(page)["cell"]}
    for key in ("ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "ArrowDown", "Home", "End"):
        page.keyboard.press(key)
        seen.add(active(page)["cell"])
    assert len(seen) > 1
    one_tab_stop(page)
    # Play from the keyboard: walk the rows to a spot, Enter, then a turned tile if asked.
    spot_cells = set(page.eval_on_selector_all("g.spot", "gs => gs.map(g => g.dataset.cell)"))
    page.keyboard.press("Control+Home")
    for _ in range(200):
        if active(page)["cell"] in spot_cells:
            break
        before = active(page)["cell"]
        page.keyboard.press("ArrowRight")
        if active(page)["cell"] == before:
            page.keyboard.press("ArrowDown")
            page.keyboard.press("Home")
    assert active(page)["cell"] in spot_cells
    cell = active(page)["cell"]
    ways = [a for a in legal if "place" in a and ",".join(map(str, a["place"]["cell"])) == cell]
    page.keyboard.press("Enter")
    if len(ways) > 1:  # the spot asks which way the tile turns
        choice = page.locator(".turn-choice").first
        choice.wait_for()
        choice.focus()
        page.keyboard.press("Enter")
    page.wait_for_selector("#game-root[data-your-turn='0']", timeout=10_000)
    wait_active_cell(page)  # on the board, not the page body
    assert active(page)["grid"]
    assert hub.table_view("g1")["state"]["log"][-1]["player"] == to_move
    assert page.js_errors == []


# -- compact phone cards: a dashboard of N tables stays within ~160 px a table on a phone ---
NAMES = ["Ana", "Ben", "Chloé", "Dan", "Élodie", "Féodor", "Gaia", "Hugo", "Inès", "Jules", "Katia", "Lou"]


def seed_tables(hub: Hub, trigono: int, others: int) -> list[str]:
    """Trigono tables of three to five players (one palet thrown: a question for the
    referee shows), then Trike/Triolet/Triominos tables of a person against the computer."""
    ids = []
    for k in range(trigono):
        seats = [NAMES[(k + j) % len(NAMES)] for j in range(3 + k % 3)]
        table_id = f"m{k + 1}"
        hub.create_table("trigono", seats=seats, boards=[f"P{k}a", f"P{k}b"], seed=k, table_id=table_id,
                         options={"first": seats[0]})
        hub.submit(table_id, {"landed": f"board:P{k}a", "by": "referee"})
        ids.append(table_id)
    for k in range(others):
        game = ("trike", "triolet", "triominos")[k % 3]
        hub.create_table(game, seats=[{"name": NAMES[k % len(NAMES)], "bot": False}, {"name": "Robot", "bot": True}],
                         seed=k, table_id=f"g{k}")
        ids.append(f"g{k}")
    return ids


@pytest.mark.parametrize("locale", ["fr-FR", "en-GB"])
def test_phone_dashboard_cards_are_compact_at_most_160_px_a_table(
    browser: Any, hub: Hub, server: ServerHandle, locale: str
) -> None:
    ids = seed_tables(hub, trigono=8, others=6)
    page = new_page(browser, locale=locale, width=390, height=844)
    page.goto(server.url + "/")
    for table_id in ids:
        page.locator(f"article[data-table={table_id}]").wait_for()
    sizes = page.evaluate("""() => {
        const cards = [...document.querySelectorAll('.table-group:not([hidden]) article.table-card')];
        const first = document.querySelector('.table-group:not([hidden])');
        return {page: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth,
                top: first.getBoundingClientRect().top + scrollY,
                groups: document.querySelectorAll('.table-group:not([hidden])').length,
                cards: cards.map((c) => [c.dataset.table, c.getBoundingClientRect().height])}; }""")
    n = len(ids)
    assert len(sizes["cards"]) == n
    assert sizes["width"] <= 390  # nothing wider than the phone
    heights = dict(sizes["cards"])
    assert max(heights.values()) <= 200, heights  # a five-player Trigono table included
    assert sum(heights.values()) <= 160 * n, heights
    # The page: its top (title, legend, filter), then N cards and each group's heading.
    assert sizes["page"] <= sizes["top"] + 160 * n + 60 * sizes["groups"], sizes
    # Compact, still whole: every player with palets in hand, who throws, the links.
    card = page.locator("article[data-table=m3]")
    assert card.locator("tr[data-player] .hand").count() == 5
    assert card.locator("tr.to-move").count() == 1
    assert card.locator(".card-links a").count() == 2
    shot(page, f"issue26-phone-dashboard-{locale}.png")
    assert page.js_errors == []


# -- item 14: contrast at least 4.5:1 everywhere, "hors jeu" on dark backgrounds included ----
AXE = (Path(__file__).parent / "assets" / "axe.min.js").read_text(encoding="utf-8")
PUBLIC_PAGES = ["/", "/tables/t1", "/big?tables=t1", "/big?mode=grid", "/overlay/t1", "/play/t1", "/play/g1"]


def contrast_failures(page: Any) -> list[dict[str, Any]]:
    """axe-core's color-contrast rule alone (WCAG AA: 4.5:1, 3:1 for large text), every
    impact counted; each failing node with its colours and ratio."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE)  # through the DevTools protocol: the page's CSP does not apply
    result = page.evaluate("axe.run(document, {runOnly: ['color-contrast'], resultTypes: ['violations']})")
    return [{"target": n["target"], "text": n["html"][:80], "why": (n["any"] or [{}])[0].get("message", "")}
            for v in result["violations"] for n in v["nodes"]]


# axe-core cannot tell an SVG text's background ("incomplete"): the boards' own labels and
# counts are checked here against the board they are drawn on.
SVG_CONTRAST = """() => {
    const lum = (css) => { const [r, g, b] = css.match(/[\\d.]+/g).slice(0, 3).map((v) => {
        const c = Number(v) / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    return [...document.querySelectorAll('svg.layout text.board-id, svg.layout text.board-count')]
        .filter((t) => t.checkVisibility())
        .map((t) => { const board = t.closest('g').querySelector('polygon') || t.closest('svg').querySelector('polygon');
            return [t.textContent, ratio(getComputedStyle(t).fill, getComputedStyle(board).fill)]; })
        .filter(([, r]) => r < 4.5); }"""


def eliminated_table(hub: Hub) -> None:
    """Four players with one palet each: Ana throws to the floor and is out ("hors jeu")."""
    hub.create_table("trigono", seats=["Ana", "Ben", "Chloé", "Dan"], boards=["B1", "B2"], seed=3, table_id="t1",
                     options={"first": "Ana", "palets_per_player": 1})
    hub.submit("t1", {"landed": "floor", "by": "referee"})
    assert hub.table_view("t1")["state"]["eliminated"] == ["Ana"]
    hub.create_table("triolet", seats=TWO_PLAYERS, seed=11, table_id="g1")


# Light and dark on the same page, one after the other: the scheme changes colours only
# (site.css: custom properties under prefers-color-scheme, no transition), so each page is
# loaded once and checked in both, axe injected once.
SCHEMES = ("light", "dark")


def contrast_in_both_schemes(page: Any, where: str, locale: str, boards: bool = True) -> list[dict[str, Any]]:
    """axe's contrast failures in each scheme, and (``boards``) the boards' SVG labels'."""
    failures = []
    for scheme in SCHEMES:
        # Reduced motion: no fade-in (the big screen's next table) is caught half-transparent.
        page.emulate_media(color_scheme=scheme, reduced_motion="reduce")
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        for failure in contrast_failures(page):
            failures.append({"url": where, "locale": locale, "scheme": scheme, **failure})
        for text, ratio in page.evaluate(SVG_CONTRAST) if boards else []:
            failures.append({"url": where, "locale": locale, "scheme": scheme, "target": ["svg.layout"],
                             "text": text, "why": f"{ratio:.2f}:1"})
    return failures


def test_item14_every_public_page_has_contrast_of_4_5_to_1_with_a_player_out(
    browser: Any, hub: Hub, server: ServerHandle
) -> None:
    eliminated_table(hub)
    failures = []
    for locale in ("fr-FR", "en-GB"):
        page = new_page(browser, locale=locale)
        for url in PUBLIC_PAGES:
            page.emulate_media(color_scheme=SCHEMES[0], reduced_motion="reduce")
            page.goto(server.url + url)
            # drawn from the live stream: wait until Ana's row (out) or the game's board is there
            page.wait_for_selector("tr.out, .overlay-player.out, .game-root svg", state="attached", timeout=10_000)
            failures += contrast_in_both_schemes(page, url, locale)
        page.context.close()
        # A seated player's Triolet page, a token chosen: the lit cells and the panel.
        seated = open_seat(browser, server, "g1", "Lou", locale=locale)
        seated.emulate_media(color_scheme=SCHEMES[0], reduced_motion="reduce")
        seated.locator(".rack-token").first.click()
        seated.wait_for_selector("g.cell.legal")
        failures += contrast_in_both_schemes(seated, "/play/g1 (seated)", locale, boards=False)
        seated.context.close()
    assert not failures, json.dumps(failures, indent=1, ensure_ascii=False)


def test_item14_grid_of_11_tables_shows_board_labels_at_24px_and_names_at_40px_at_1080p(
    browser: Any, hub: Hub, server: ServerHandle
) -> None:
    for k in range(11):
        hub.create_table("trigono", seats=["Chloé", "Dan", "Élodie"], boards=[f"B{k}a", f"B{k}b"], seed=k,
                         table_id=f"m{k}", options={"first": "Chloé"})
        hub.submit(f"m{k}", {"landed": f"board:B{k}a", "by": "referee"})
    page = new_page(browser, locale="fr-FR", width=1920, height=1080)
    page.goto(server.url + "/big?mode=grid")
    page.wait_for_selector("#tables .grid-cell:nth-child(11) .counts li[data-count='board:B10b']")
    labels = page.eval_on_selector_all("#tables .grid-cell .counts li[data-count^='board:']", """els => els.map((e) => {
        const cell = e.closest('.grid-cell').getBoundingClientRect(); const box = e.getBoundingClientRect();
        return [e.textContent, parseFloat(getComputedStyle(e).fontSize), e.checkVisibility(),
                box.top >= cell.top && box.bottom <= cell.bottom && box.left >= cell.left && box.right <= cell.right]; })""")
    assert len(labels) == 22, labels
    assert all(size >= 24 and visible and inside for _, size, visible, inside in labels), labels
    # The board's name and its palets, in words; never seen, its count says so (issue 32.9).
    assert labels[0][0] == "⚠ 1 B0a (Plateau B0a\u00a0: jamais vu)"
    assert page.locator("#tables .board-trouble").count() == 0  # no room for a line of it
    # No text left on the drawings smaller than that (their own labels were 9 and 16 px).
    drawn = page.eval_on_selector_all("#tables .grid-cell svg.layout text", """els => els
        .filter((t) => t.checkVisibility())
        .map((t) => [t.textContent, parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a])""")
    assert all(size >= 24 for _, size in drawn), drawn
    names = page.eval_on_selector_all("#tables .grid-cell .players .name",
                                      "els => els.map((e) => parseFloat(getComputedStyle(e).fontSize))")
    assert len(names) == 33 and min(names) >= 40, names
    overlaps = page.eval_on_selector_all("#tables .grid-cell", """cells => cells.filter((c) =>
        c.querySelector('.players').getBoundingClientRect().bottom > c.querySelector('.counts').getBoundingClientRect().top + 0.5)
        .map((c) => c.dataset.table)""")
    assert overlaps == []  # the counts sit under the players' rows, never over them
    assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight")
    shot(page, "issue26-grid-11-labels.png")
    assert page.js_errors == []
