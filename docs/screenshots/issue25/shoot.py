"""Screenshots of the tournament pages (issue 25), fr/en, phone and 1080p."""
import random, sys
sys.path.insert(0, "/work/main")
from pathlib import Path
from hub.facade import Hub
from hub.tournament.service import service_for
from web.server import start_server
from tests.web.conftest import CHROMIUM, BROWSER_PASSWORD
from playwright.sync_api import sync_playwright

OUT = Path(sys.argv[1]); OUT.mkdir(parents=True, exist_ok=True)
NAMES = ["Océane", "Ben", "Chloé", "Dan", "Eve", "Fred", "Gus", "Hugo", "Inès", "Jo", "Kim", "Léa",
         "Maximilien", "Noé", "Olga", "Paul-Henri"]
hub = Hub(":memory:", settle_s=0.05, bot_budget_s=0.05); hub.start()
svc = service_for(hub)
rng = random.Random(4)
def play(tid, until=None):
    while True:
        v = svc.view(tid)
        if v["status"] == "finished" or (until and until(v)):
            return v
        m = next(m for m in v["matches"] if m["status"] in ("ready", "called"))
        svc.submit(tid, {"type": "result", "match": m["id"], "ranking": rng.sample(m["players"], len(m["players"])),
                         "scores": {p: rng.randint(0, 13) for p in m["players"]}})
# A: AB/ABC half-way (brackets with placeholders); B: finished ABC (podium); C: pools in progress
for tid, fmt, stop in (("ABC", "abc", "half"), ("FIN", "abc", None), ("POOLS", "pools", "pools")):
    spec = {"name": {"ABC": "Open de Nantes", "FIN": "Grand prix de Vertou", "POOLS": "Coupe du club"}[tid],
            "game": "triominos", "format": fmt, "check_in": False, "third_place": True}
    svc.create(spec, tournament_id=tid)
    for n in NAMES:
        svc.submit(tid, {"type": "register", "player": {"name": n, "club": "Club " + n[0]}})
    for s in ("Poste 1", "Poste 2", "Poste 3"):
        svc.submit(tid, {"type": "station", "station": {"id": s, "seats": 2}})
    svc.submit(tid, {"type": "start"})
    if stop == "half":
        play(tid, lambda v: sum(m["stage"] == "main" and m["status"] == "done" for m in v["matches"]) >= 2)
    elif stop == "pools":
        play(tid, lambda v: sum(m["stage"] == "pools" and m["status"] == "done" for m in v["matches"]) >= 14)
    else:
        play(tid)
server = start_server(hub, password=BROWSER_PASSWORD, max_streams=16)
pages = sys.argv[2].split(",")
with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path=CHROMIUM)
    for locale, lang in (("fr-FR", "fr"), ("en-GB", "en")):
        for w, h, size in ((390, 844, "phone"), (1920, 1080, "1080p")):
            ctx = browser.new_context(locale=locale, viewport={"width": w, "height": h})
            page = ctx.new_page()
            page.goto(f"{server.url}/auth/login?next=/tournaments/")
            page.fill("input[name=password]", BROWSER_PASSWORD); page.click("form button[type=submit]")
            page.wait_for_url(f"{server.url}/tournaments/")
            for name in pages:
                path = {"create": "/tournaments/", "bracket": "/tournaments/ABC/bracket",
                        "standings": "/tournaments/POOLS/standings", "podium": "/tournaments/FIN/podium",
                        "big-standings": "/tournaments/POOLS/big?mode=standings",
                        "big-bracket": "/tournaments/ABC/big?mode=bracket",
                        "abc-standings": "/tournaments/ABC/standings",
                        "big-podium": "/tournaments/FIN/big?mode=podium",
                        "big-standings-final": "/tournaments/FIN/big?mode=standings"}[name]
                page.goto(server.url + path)
                if name == "create":
                    page.select_option("#new-tournament select[name=format]", "abc")
                page.screenshot(path=str(OUT / f"{name}-{lang}-{size}.png"), full_page=(not name.startswith("big")))
            ctx.close()
    browser.close()
server.close(); hub.close()
print("ok")
