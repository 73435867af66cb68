"""Screenshots of every page of a small seeded event, for docs/screenshots/ and for
looking at a page after changing it.

    .venv/bin/python scripts/screenshots.py OUT_DIR [--lang fr|en|both] [--sizes desktop,phone]

A real hub (in memory) and the web app under waitress; Debian's Chromium through
Playwright. Tables: ``t1`` (Trigono, three players on two boards, a few throws), ``hexa``
(Trigono, six boards around a jackpot), one table of Triominos, Trike and Triolet, each
with a person and a computer player. Play pages are shown from the seat of the player to
move (at ``t1``: Ben, who answers where his palet landed).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hub.facade import Hub  # noqa: E402
from web.server import ServerHandle, start_server  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PASSWORD = "shots"
SIZES = {"desktop": (1920, 1080), "phone": (390, 844)}
HEXAGON = [[0, 0, "up"], [-1, 0, "down"], [-1, 0, "up"], [-1, -1, "down"], [0, -1, "up"], [0, -1, "down"]]


def seed_event(hub: Hub) -> list[str]:
    """Create the tables; returns the ids of the game tables (one per game)."""
    hub.create_table("trigono", seats=["Ana", "Ben", "Chloé"], boards=["B1", "B2"], seed=3,
                     table_id="t1", options={"first": "Ana"})
    for where in ["board:B2", "B1.big", "floor", "board:B1"]:
        hub.submit("t1", {"landed": where, "by": "referee"})
    boards = [{"id": f"H{k + 1}", "cell": cell} for k, cell in enumerate(HEXAGON)]
    hub.create_table("trigono", seats=["Féodor", "Gaia", "Hugo", "Inès", "Jules", "Katia"],
                     options={"boards": boards, "first": "Féodor"}, seed=4, table_id="hexa")
    for where in ["board:H1", "board:H4", "H2.small"]:
        hub.submit("hexa", {"landed": where, "by": "referee"})
    games = []
    for game in ("triominos", "trike", "triolet"):
        table_id = f"{game}-1"
        hub.create_table(game, seats=[{"name": "Lou", "bot": False}, {"name": "Robot", "bot": True}],
                         seed=11, table_id=table_id)
        games.append(table_id)
    return games


# -- the plumbing every screenshot script shares (screenshots_event.py, screenshots_games.py)
def parse_args(doc: str | None, argv: list[str] | None, *, only: bool = False) -> argparse.Namespace:
    """OUT_DIR, --lang fr|en|both, --sizes desktop,phone (and --only); makes OUT_DIR."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--lang", choices=["fr", "en", "both"], default="both")
    parser.add_argument("--sizes", default="desktop,phone")
    if only:
        parser.add_argument("--only", default="", help="comma-separated page names (dashboard, big, ...)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    args.langs = ["fr", "en"] if args.lang == "both" else [args.lang]
    args.size_names = args.sizes.split(",")
    return args


@contextlib.contextmanager
def event_server(bot_budget_s: float = 0.05) -> Iterator[tuple[Hub, ServerHandle]]:
    """A real hub in memory and the web app serving it (referee password PASSWORD)."""
    hub = Hub(":memory:", settle_s=0.05, bot_budget_s=bot_budget_s)
    hub.start()
    handle = start_server(hub, password=PASSWORD, max_streams=32)
    try:
        yield hub, handle
    finally:
        handle.close()
        hub.close()


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium through Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_context(browser: Any, lang: str, size: str, **options: Any) -> Any:
    width, height = SIZES[size]
    return browser.new_context(locale="fr-FR" if lang == "fr" else "en-GB",
                               viewport={"width": width, "height": height}, **options)


def log_in(page: Any, url: str) -> None:
    """The referee's login, landing on the console's table list."""
    page.goto(f"{url}/auth/login?next=/console/")
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(f"{url}/console/")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(__doc__, argv, only=True)
    with event_server() as (hub, handle):
        shoot(handle.url, seed_event(hub), args)
    return 0


def shoot(url: str, games: list[str], args: Any) -> None:
    pages = {
        "dashboard": "/", "big": "/big?tables=hexa", "big-all": "/big", "table": "/tables/t1",
        "overlay": "/overlay/t1", "console": "/console/t1", "console-hexa": "/console/hexa",
        "admin": "/admin/", "console-index": "/console/", "play-index": "/play/", "play-trigono": "/play/t1",
        **{f"play-{g.split('-')[0]}": f"/play/{g}" for g in games},
    }
    only = [p for p in args.only.split(",") if p]
    with chromium() as browser:
        for lang in args.langs:
            for size in args.size_names:
                context = new_context(browser, lang, size)
                page = context.new_page()
                log_in(page, url)
                for game_table in games + ["t1"]:  # the seat of the player to move at each table
                    page.goto(f"{url}/console/{game_table}")
                    link = page.locator(".seats li.to-move a.seat-link")
                    if link.count():
                        page.goto(str(link.first.get_attribute("href")))
                for name, path in pages.items():
                    if only and name not in only:
                        continue
                    page.goto(url + path)
                    time.sleep(1.2)  # the live stream's first snapshot and the renderers
                    page.screenshot(path=str(args.out / f"{name}-{lang}-{size}.png"),
                                    full_page=size == "phone")
                context.close()


if __name__ == "__main__":
    sys.exit(main())
