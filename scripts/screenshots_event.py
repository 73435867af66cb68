"""Screenshots of a big event (issue 26): 60 tables — Trigono tables in play and finished,
bot-against-bot tables, person-against-computer tables — for the pages built for many
tables (dashboard, big screen in turn and in a grid, console index, admin).

    .venv/bin/python scripts/screenshots_event.py OUT_DIR [--lang fr|en|both] [--sizes desktop,phone]

A real hub (in memory) and the web app; Debian's Chromium through Playwright.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hub.facade import Hub  # noqa: E402
from web.server import start_server  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PASSWORD = "shots"
SIZES = {"desktop": (1920, 1080), "phone": (390, 844)}
NAMES = ["Ana", "Ben", "Chloé", "Dan", "Élodie", "Féodor", "Gaia", "Hugo", "Inès", "Jules", "Katia", "Lou"]


def seed_big_event(hub: Hub, trigono: int = 12) -> None:
    """``trigono`` Trigono tables (two finished), then bot tables up to 60 in all."""
    for k in range(trigono):
        seats = [NAMES[(k + j) % len(NAMES)] for j in range(3)]
        table_id = f"demo1-m{k + 1}"
        hub.create_table("trigono", seats=seats, boards=[f"P{k}a", f"P{k}b"], seed=k, table_id=table_id,
                         options={"first": seats[0]})
        hub.submit(table_id, {"landed": f"board:P{k}a", "by": "referee"})
        if k < 2:
            hub.submit(table_id, {"abandon": True, "by": "referee"})
    games = ("trike", "triolet", "triominos")
    for k in range(60 - trigono):
        game = games[k % 3]
        seats = [{"name": f"Bot {k}a", "bot": True}, {"name": f"Bot {k}b", "bot": True}] if k % 2 else \
            [{"name": NAMES[k % len(NAMES)], "bot": False}, {"name": "Robot", "bot": True}]
        hub.create_table(game, seats=seats, seed=k, table_id=f"t{300 + k}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--lang", choices=["fr", "en", "both"], default="both")
    parser.add_argument("--sizes", default="desktop,phone")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    hub = Hub(":memory:", settle_s=0.05, bot_budget_s=0.01)
    hub.start()
    handle = start_server(hub, password=PASSWORD, max_streams=32)
    try:
        seed_big_event(hub)
        # The computer-against-computer games play out first (a page redrawn at every bot
        # move would not hold still for a screenshot).
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and any(
                t.get("status") == "playing" and not t.get("winner") and t["id"].startswith("t3")
                and int(t["id"][1:]) % 2 for t in hub.list_tables()):
            time.sleep(0.5)
        shoot(handle.url, args)
    finally:
        handle.close()
        hub.close()
    return 0


def shoot(url: str, args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    pages = {"event-dashboard": "/", "event-big": "/big", "event-big-grid": "/big?mode=grid",
             "event-console-index": "/console/", "event-admin": "/admin/"}
    langs = ["fr", "en"] if args.lang == "both" else [args.lang]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for lang in langs:
            for size in args.sizes.split(","):
                width, height = SIZES[size]
                context = browser.new_context(locale="fr-FR" if lang == "fr" else "en-GB",
                                              viewport={"width": width, "height": height})
                page = context.new_page()
                page.goto(f"{url}/auth/login?next=/console/")
                page.fill("input[name=password]", PASSWORD)
                page.click("form button[type=submit]")
                page.wait_for_url(f"{url}/console/")
                for name, path in pages.items():
                    page.goto(url + path)
                    time.sleep(1.5)  # the live stream's first snapshot and the renderers
                    page.screenshot(path=str(args.out / f"{name}-{lang}-{size}.png"), full_page=size == "phone")
                context.close()
        browser.close()


if __name__ == "__main__":
    sys.exit(main())
