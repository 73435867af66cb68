"""Screenshots of the tournament pages (issue 25), fr/en, phone and 1080p.

    python docs/screenshots/issue25/shoot.py OUT_DIR create,bracket,abc-standings,podium,...
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from playwright.sync_api import sync_playwright  # noqa: E402

from hub.facade import Hub  # noqa: E402
from tests.web.conftest import BROWSER_PASSWORD, CHROMIUM  # noqa: E402
from web.server import start_server  # noqa: E402

PAGES = {"create": "/tournaments/", "bracket": "/tournaments/ABC/bracket",
         "standings": "/tournaments/POOLS/standings", "podium": "/tournaments/FIN/podium",
         "big-standings": "/tournaments/POOLS/big?mode=standings",
         "big-bracket": "/tournaments/ABC/big?mode=bracket",
         "abc-standings": "/tournaments/ABC/standings",
         "big-podium": "/tournaments/FIN/big?mode=podium",
         "big-standings-final": "/tournaments/FIN/big?mode=standings"}
NAMES = ["Océane", "Ben", "Chloé", "Dan", "Eve", "Fred", "Gus", "Hugo", "Inès", "Jo", "Kim", "Léa",
         "Maximilien", "Noé", "Olga", "Paul-Henri"]
EVENTS = (("ABC", "Open de Nantes", "abc", "half"), ("FIN", "Grand prix de Vertou", "abc", None),
          ("POOLS", "Coupe du club", "pools", "pools"))


def main(out: Path, pages: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    hub = Hub(":memory:", settle_s=0.05, bot_budget_s=0.05)
    hub.start()
    svc = hub.tournaments
    rng = random.Random(4)

    def play(tid: str, until: str | None) -> None:
        while True:
            v = svc.view(tid)
            done = [m for m in v["matches"] if m["status"] == "done"]
            if v["status"] == "finished" or (until == "half" and sum(m["stage"] == "main" for m in done) >= 2) \
                    or (until == "pools" and sum(m["stage"] == "pools" for m in done) >= 14):
                return
            m = next(m for m in v["matches"] if m["status"] in ("ready", "called"))
            svc.submit(tid, {"type": "result", "match": m["id"], "ranking": rng.sample(m["players"], len(m["players"])),
                             "scores": {p: rng.randint(0, 13) for p in m["players"]}})

    for tid, name, fmt, until in EVENTS:
        svc.create({"name": name, "game": "triominos", "format": fmt, "check_in": False, "third_place": True},
                   tournament_id=tid)
        for n in NAMES:
            svc.submit(tid, {"type": "register", "player": {"name": n, "club": "Club " + n[0]}})
        for s in ("Poste 1", "Poste 2", "Poste 3"):
            svc.submit(tid, {"type": "station", "station": {"id": s, "seats": 2}})
        svc.submit(tid, {"type": "start"})
        play(tid, until)
    server = start_server(hub, password=BROWSER_PASSWORD, max_streams=16)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM)
        for locale, lang in (("fr-FR", "fr"), ("en-GB", "en")):
            for w, h, size in ((390, 844, "phone"), (1920, 1080, "1080p")):
                ctx = browser.new_context(locale=locale, viewport={"width": w, "height": h})
                page = ctx.new_page()
                page.goto(f"{server.url}/auth/login?next=/tournaments/")
                page.fill("input[name=password]", BROWSER_PASSWORD)
                page.click("form button[type=submit]")
                page.wait_for_url(f"{server.url}/tournaments/")
                for name in pages:
                    page.goto(server.url + PAGES[name])
                    if name == "create":
                        page.select_option("#new-tournament select[name=format]", "abc")
                    page.screenshot(path=str(out / f"{name}-{lang}-{size}.png"), full_page=not name.startswith("big"))
                ctx.close()
        browser.close()
    server.close()
    hub.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2].split(","))
