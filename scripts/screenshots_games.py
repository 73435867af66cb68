"""Screenshots of issue 26's game and dashboard items (4, 12, 13, 14, compact phone cards):
a seated Triolet page with a token chosen (solid and dashed cells, focus on the board),
Trike and Triominos boards with a focused cell, the dashboard with a player out (light and
dark), and the big screen's grid of 11 tables.

    .venv/bin/python scripts/screenshots_games.py OUT_DIR [--lang fr|en|both] [--sizes desktop,phone]

A real hub (in memory) and the web app; Debian's Chromium through Playwright.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from screenshots import chromium, event_server, new_context, parse_args

from hub.facade import Hub
from web.security import seat_token
from web.server import ServerHandle

HUMANS = [{"name": "Lou", "bot": False}, {"name": "Ana", "bot": False}]
NAMES = ["Ana", "Ben", "Chloé", "Dan", "Élodie", "Féodor", "Gaia", "Hugo", "Inès", "Jules", "Katia", "Lou"]


def seed(hub: Hub) -> None:
    # Triolet: Lou laid two tokens, Ana (2, 3, 11) to move: F7 is lit dashed for a 2.
    hub.create_table("triolet", seats=HUMANS, seed=11, table_id="g3")
    plays = [a for a in hub.legal_actions("g3", "Lou") if "play" in a]
    hub.submit("g3", {"move": max(plays, key=lambda a: len(a["play"]))})
    hub.create_table("trike", seats=HUMANS, seed=11, table_id="g2")
    hub.submit("g2", {"move": hub.legal_actions("g2", "Lou")[0]})
    hub.create_table("triominos", seats=HUMANS, seed=11, table_id="g1")
    for _ in range(13):
        to_move = str(hub.table_view("g1")["state"]["to_move"])
        legal = hub.legal_actions("g1", to_move)
        hub.submit("g1", {"move": next((a for a in legal if "place" in a), legal[0])})
    # Trigono: four players with one palet each; Ana threw to the floor and is out.
    hub.create_table("trigono", seats=["Ana", "Ben", "Chloé", "Dan"], boards=["B1", "B2"], seed=3, table_id="t1",
                     options={"first": "Ana", "palets_per_player": 1})
    hub.submit("t1", {"landed": "floor", "by": "referee"})
    for k in range(10):
        seats = [NAMES[(k + j) % len(NAMES)] for j in range(3 + k % 3)]
        hub.create_table("trigono", seats=seats, boards=[f"P{k}a", f"P{k}b"], seed=k, table_id=f"m{k + 1}",
                         options={"first": seats[0]})
        hub.submit(f"m{k + 1}", {"landed": f"board:P{k}a", "by": "referee"})


def seat(handle: ServerHandle, table: str, player: str) -> str:
    with handle.app.app_context():
        return f"{handle.url}/play/{table}/join?seat={seat_token(table, player)}"


def shoot(hub: Hub, handle: ServerHandle, out: Path, langs: list[str], sizes: list[str]) -> None:
    with chromium() as browser:
        for lang in langs:
            for size in sizes:
                for scheme in ("light", "dark"):
                    context = new_context(browser, lang, size, color_scheme=scheme)
                    page = context.new_page()
                    suffix = f"{lang}-{size}" + ("-dark" if scheme == "dark" else "")
                    page.goto(handle.url + "/")
                    page.wait_for_selector("article[data-table=m10]")
                    page.wait_for_selector("tr.out")
                    snap(page, out / f"games-dashboard-{suffix}.png", size)
                    if scheme == "dark":
                        context.close()
                        continue
                    page.goto(handle.url + "/big?mode=grid")
                    page.wait_for_selector("#tables .grid-cell:nth-child(11) .counts li", state="attached")
                    snap(page, out / f"games-big-grid-{suffix}.png", size)
                    triolet(page, handle, out / f"games-triolet-{suffix}.png", size)
                    focused_board(page, seat(handle, "g2", "Ana"), out / f"games-trike-{suffix}.png", size)
                    focused_board(page, seat(handle, "g1", str(hub.table_view("g1")["state"]["to_move"])), out / f"games-triominos-{suffix}.png", size)
                    context.close()


def snap(page: Any, path: Path, size: str) -> None:
    page.wait_for_timeout(400)  # fonts and the last redraw settle (a picture, not a test)
    page.screenshot(path=str(path), full_page=size == "phone")


def triolet(page: Any, handle: ServerHandle, path: Path, size: str) -> None:
    page.goto(seat(handle, "g3", "Ana"))
    page.wait_for_selector("#game-root[data-your-turn='1']")
    page.locator(".rack-token[data-token='2']").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Tab")  # one press to the board
    page.wait_for_selector("g.cell.step")
    page.locator("g.cell[data-cell='F7']").click()
    page.wait_for_selector(".triolet-incomplete")
    page.locator(".rack-token[data-token='3']").click()
    page.wait_for_selector("g.cell.legal")
    page.locator("g.cell.legal").first.focus()
    snap(page, path, size)


def focused_board(page: Any, link: str, path: Path, size: str) -> None:
    page.goto(link)
    page.wait_for_selector("#game-root[data-your-turn='1']")
    page.locator("[role=grid] [tabindex='0']").focus()
    page.keyboard.press("ArrowRight")
    snap(page, path, size)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(__doc__, argv)
    with event_server(bot_budget_s=0.01) as (hub, handle):
        seed(hub)
        shoot(hub, handle, args.out, args.langs, args.size_names)
    return 0


if __name__ == "__main__":
    sys.exit(main())
