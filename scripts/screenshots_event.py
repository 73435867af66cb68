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

from screenshots import chromium, event_server, log_in, new_context, parse_args

from hub.facade import Hub

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
    args = parse_args(__doc__, argv)
    with event_server(bot_budget_s=0.01) as (hub, handle):
        seed_big_event(hub)
        # The computer-against-computer games play out first (a page redrawn at every bot
        # move would not hold still for a screenshot).
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and any(
                t.get("status") == "playing" and not t.get("winner") and t["id"].startswith("t3")
                and int(t["id"][1:]) % 2 for t in hub.list_tables()):
            time.sleep(0.5)
        shoot(handle.url, args)
    return 0


def shoot(url: str, args: argparse.Namespace) -> None:
    pages = {"event-dashboard": "/", "event-big": "/big", "event-big-grid": "/big?mode=grid",
             "event-console-index": "/console/", "event-admin": "/admin/"}
    with chromium() as browser:
        for lang in args.langs:
            for size in args.size_names:
                context = new_context(browser, lang, size)
                page = context.new_page()
                log_in(page, url)
                for name, path in pages.items():
                    page.goto(url + path)
                    time.sleep(1.5)  # the live stream's first snapshot and the renderers
                    page.screenshot(path=str(args.out / f"{name}-{lang}-{size}.png"), full_page=size == "phone")
                context.close()


if __name__ == "__main__":
    sys.exit(main())
