"""A 16-player pools-then-bracket tournament run to its podium in Chromium, through the
referee's pages, with one result corrected on the way (issue 16 "Done when").

The referee's own steps are clicked: the create form, the import, the check-in, the
stations, the launch, a result and the correction. The dozens of further results are the
same entry (the admin's result form, places in the listed order) recorded through the
hub's tournament service, which the form also posts to: each click cost a page load."""

from __future__ import annotations

from typing import Any

import pytest

from hub.facade import Hub
from tests.web.conftest import login_page, new_page, server, shot  # noqa: F401
from web.server import ServerHandle

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Ben", "Chloé", "Dan", "Eve", "Fred", "Gus", "Hugo",
         "Inès", "Jo", "Kim", "Léa", "Max", "Noé", "Olga", "Paul"]
RESULT_BUTTON = "#results > ul.admin-matches > li .result-form button"


def click_one_result(page: Any, hub: Hub, tid: str) -> None:
    """The referee records the first called match's result on the admin page (its form's
    places as listed), and the hub has it."""
    done = sum(m["status"] == "done" for m in hub.tournaments.view(tid)["matches"])
    page.locator(RESULT_BUTTON).first.click()
    page.wait_for_load_state()
    assert sum(m["status"] == "done" for m in hub.tournaments.view(tid)["matches"]) == done + 1


def away(page: Any) -> None:
    """Off the tournament's pages while the service records results: each would reload on
    every new entry (tournament.js), a page load for nothing."""
    page.goto("about:blank")


def record_one_result(hub: Hub, tid: str) -> dict[str, Any]:
    """What the admin's first result form posts (players placed as listed), through the
    tournament service the form reaches; returns the new view."""
    view = hub.tournaments.view(tid)
    m = next(m for m in view["matches"] if m["status"] == "called")
    ranking = [[p] for p in m["players"] if p not in m["forfeits"]]
    return hub.tournaments.submit(tid, {"type": "result", "match": m["id"], "ranking": ranking}, by="referee")


def test_sixteen_players_pools_then_bracket_to_the_podium(browser: Any, hub: Hub, server: ServerHandle) -> None:  # noqa: F811
    page = new_page(browser, locale="fr-FR", width=1280, height=900)
    login_page(page, server, "/tournaments/")
    page.fill("#new-tournament input[name=name]", "Open de Nantes")
    page.select_option("#new-tournament select[name=game]", "triominos")
    page.select_option("#new-tournament select[name=format]", "pools")
    page.fill("#new-tournament input[name=pool_size]", "4")
    page.fill("#new-tournament input[name=advance]", "2")
    page.fill("#new-tournament input[name=points]", "3 0")
    page.click("#new-tournament button[type=submit]")
    page.wait_for_url("**/admin")
    admin = page.url
    tid = admin.rstrip("/").split("/")[-2]
    page.fill("#import-form textarea[name=csv]", "name,club\n" + "\n".join(f"{n},Club {i % 3}" for i, n in enumerate(NAMES)))
    page.click("#import-form button[type=submit]")
    assert "16 joueurs inscrits" in page.locator(".flashes").inner_text()
    for _ in NAMES[:2]:  # two at the desk, one by one
        page.locator("#registration form:has(input[value=check_in]) button").first.click()
        page.wait_for_load_state()
    assert page.locator("#registration tr.present").count() == 2
    page.locator("#check-in-all button").click()  # then the rest
    page.wait_for_load_state()
    assert page.locator("#registration tr.present").count() == 16
    for station in ("row1", "row2", "row3"):
        page.fill("#station-form input[name=station]", station)
        page.click("#station-form button[type=submit]")
    page.click("#start-form button")
    page.wait_for_selector(".launch-preview")  # pools, matches and stations before it starts (issue 25)
    assert page.locator(".launch-pools .card").count() == 4
    shot(page, "tournament-launch-preview.png")
    page.click(".confirm-launch button[type=submit]")
    page.wait_for_selector("#results")
    api = server.url + f"/api/tournaments/{tid}"

    def view() -> Any:
        return page.request.get(api).json()

    assert len(view()["pools"]) == 4
    click_one_result(page, hub, tid)
    away(page)
    corrected = False
    for _ in range(60):
        if view()["status"] == "finished":
            break
        record_one_result(hub, tid)
        done = [m for m in view()["matches"] if m["status"] == "done" and m["stage"] == "pools"]
        if not corrected and len(done) >= 5:
            target = done[0]
            before = {s["player"]: s["points"] for s in view()["standings"]}
            page.goto(admin)
            page.click("#corrections summary")
            form = page.locator(f"#corrections form[data-match={target['id']}]")
            winner, loser = target["ranking"][0][0], target["ranking"][1][0]
            form.locator(f"select[name=place_{winner}]").select_option("2")
            form.locator(f"select[name=place_{loser}]").select_option("1")
            form.locator("button").click()
            page.wait_for_selector(".correction-preview")  # what it changes, before it is made (issue 25)
            assert "Avant de corriger" in page.inner_text("h2")
            assert page.locator(".correction-preview li").count() >= 2  # the two swapped standings
            shot(page, "tournament-correction-preview.png")
            page.click(".confirm-correction button[type=submit]")
            page.wait_for_load_state()
            after = {s["player"]: s["points"] for s in view()["standings"]}
            assert after[loser] == before[loser] + 3 and after[winner] == before[winner] - 3
            assert next(m for m in view()["matches"] if m["id"] == target["id"])["corrected"] == 1
            corrected = True
            away(page)
    final = view()
    assert corrected and final["status"] == "finished"
    page.goto(f"{server.url}/tournaments/{tid}/podium")
    places = page.locator(".podium li .medal").all_inner_texts()
    assert places[:2] == ["1", "2"] and places[2:] == ["3", "3"]
    assert page.locator(".podium li").first.inner_text().split()[-1] == final["podium"][0]["name"]
    shot(page, "tournament-podium.png")
    page.goto(f"{server.url}/tournaments/{tid}/bracket")
    assert page.locator(".bracket[data-stage=main] .bracket-match").count() == 7
    assert page.locator(".bracket[data-stage=consolation] .bracket-match").count() == 7
    shot(page, "tournament-bracket.png")
    page.goto(f"{server.url}/tournaments/{tid}/sheets")
    assert page.locator("#print-sheets").is_visible()
    assert page.locator(".sheet").count() >= 30  # QR codes only where phones reach the server: test_web
    assert page.js_errors == []


def test_big_screen_follows_the_calls_by_itself(browser: Any, hub: Hub, server: ServerHandle) -> None:  # noqa: F811
    svc = hub.tournaments
    svc.create({"name": "Duel", "game": "trike", "format": "swiss", "rounds": 2, "check_in": False,
                "options": {"size": 3}}, tournament_id="S1")
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        svc.submit("S1", {"type": "register", "player": {"name": name}})
    svc.submit("S1", {"type": "station", "station": {"id": "row1", "seats": 2}})
    view = svc.submit("S1", {"type": "start"})
    page = new_page(browser, locale="en-GB", width=1920, height=1080)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(f"{server.url}/tournaments/S1/big?mode=calls")
    page.wait_for_function("() => window.__live && window.__live.source.readyState === 1")
    first = view["calls"][-1]
    newest = page.locator(".call.newest")  # issue 32.15: the newest call, as large as the screen allows
    assert newest.get_attribute("data-match") == first["match"]
    assert newest.locator(".call-station").inner_text() == "station row1"
    assert newest.locator(".call-players").inner_text() == ", ".join(first["players"])
    called = next(m for m in view["matches"] if m["status"] == "called")
    view = svc.submit("S1", {"type": "result", "match": called["id"], "ranking": called["players"]})
    nxt = view["calls"][-1]
    assert nxt["number"] != first["number"]
    # The page reloads itself when the tournament has new entries (no manual refresh): a
    # `tournament` event on the live stream tells it.
    page.wait_for_selector(f".call.newest[data-match='{nxt['match']}']", timeout=10_000)
    # On the live stream every page shares (issue 25): no polling, the entry count is asked
    # once per page load (after the stream's first snapshot), never on a timer.
    page.wait_for_function("() => window.__live && window.__live.source.readyState === 1")
    loads = sum(1 for u in asked if "/tournaments/S1/big" in u)
    assert loads == 2 and any("/api/stream" in u for u in asked)
    assert sum(1 for u in asked if u.endswith("/api/tournaments/S1/version")) <= loads
    shot(page, "tournament-big-calls.png")
    assert page.js_errors == []


def test_the_create_form_shows_only_the_chosen_formats_settings(browser: Any, hub: Hub, server: ServerHandle) -> None:  # noqa: F811
    """Finding 8: no Swiss rounds for pools, no pool size for a Swiss (CSS :has, no script)."""
    page = new_page(browser, locale="fr-FR", width=390, height=844)
    login_page(page, server, "/tournaments/")
    form = "#new-tournament"
    page.select_option(f"{form} select[name=format]", "pools")
    assert page.is_visible(f"{form} input[name=pool_size]") and not page.is_visible(f"{form} input[name=rounds]")
    shot(page, "tournament-create-pools.png")
    page.select_option(f"{form} select[name=format]", "swiss")
    assert not page.is_visible(f"{form} input[name=pool_size]") and page.is_visible(f"{form} input[name=rounds]")
    assert not page.is_visible(f"{form} input[name=third_place]")
    assert page.get_attribute(f"{form} input[name=points]", "placeholder") == "1 0"  # what a win counts by default
    assert page.js_errors == []


def test_sixteen_players_ab_abc_with_a_correction_after_the_split(browser: Any, hub: Hub, server: ServerHandle) -> None:  # noqa: F811
    """Issue 25: an AB/ABC event from the create form: pools of 4 play their two games and
    the third, tournaments A, B and C are drawn by record; a pool game is then corrected
    (its preview names the started games and bracket matches to replay), confirmed, and
    everyone is still in exactly one tournament, A holding the two-win players."""
    page = new_page(browser, locale="fr-FR", width=1280, height=900)
    login_page(page, server, "/tournaments/")
    page.fill("#new-tournament input[name=name]", "Concours ABC")
    page.select_option("#new-tournament select[name=game]", "triominos")
    page.select_option("#new-tournament select[name=format]", "abc")
    assert page.locator("#new-tournament select[name=split]").is_visible()
    assert not page.locator("#new-tournament input[name=pool_size]").is_visible()
    page.select_option("#new-tournament select[name=split]", "ABC")
    page.click("#new-tournament button[type=submit]")
    page.wait_for_url("**/admin")
    admin = page.url
    tid = admin.rstrip("/").split("/")[-2]
    page.fill("#import-form textarea[name=csv]", "name\n" + "\n".join(NAMES))
    page.click("#import-form button[type=submit]")
    page.click("#check-in-all button")
    page.wait_for_selector("#registration tr.present")
    assert page.locator("#registration tr.present").count() == 16
    for station in ("row1", "row2"):
        page.fill("#station-form input[name=station]", station)
        page.click("#station-form button[type=submit]")
    page.click("#start-form button")
    page.wait_for_selector(".launch-preview")
    assert page.locator(".launch-pools .card").count() == 4
    page.click(".confirm-launch button[type=submit]")
    page.wait_for_selector("#results")
    api = server.url + f"/api/tournaments/{tid}"

    def view() -> Any:
        return page.request.get(api).json()

    click_one_result(page, hub, tid)
    away(page)
    # The pools: 5 games each (1st-4th, 2nd-3rd, winners, losers, the third game).
    while any(m["stage"] == "pools" and m["status"] != "done" for m in view()["matches"]):
        record_one_result(hub, tid)
    now = view()
    assert sum(m["stage"] == "pools" for m in now["matches"]) == 20
    page.goto(f"{server.url}/tournaments/{tid}/bracket")
    headings = page.locator(".bracket-block h2").all_inner_texts()
    assert headings == ["Concours A", "Concours B", "Concours C"]
    away(page)
    # Play on until a match of each tournament has started: the correction comes after the split.
    while not all(any(m["stage"] == s and m["status"] in ("called", "done") and not m["bye"] for m in view()["matches"])
                  for s in ("main", "consolation", "c")):
        record_one_result(hub, tid)
    game = next(m for m in view()["matches"] if m["stage"] == "pools" and m["round"] == 1 and m["pool"] == "A")
    winner, loser = game["ranking"][0][0], game["ranking"][1][0]
    page.goto(admin)
    page.click("#corrections summary")
    form = page.locator(f"#corrections form[data-match={game['id']}]")
    form.locator(f"select[name=place_{winner}]").select_option("2")
    form.locator(f"select[name=place_{loser}]").select_option("1")
    form.locator("button").click()
    page.wait_for_selector(".correction-preview")
    reset = page.locator(".correction-preview h3.warn + ul li").all_inner_texts()
    assert reset, "the later pool games already played must be listed to replay"
    page.click(".confirm-correction button[type=submit]")
    page.wait_for_load_state()
    after = view()
    assert next(m for m in after["matches"] if m["id"] == game["id"])["ranking"][0] == [loser]
    away(page)
    for _ in range(80):
        if view()["status"] == "finished":
            break
        record_one_result(hub, tid)
    final = view()
    assert final["status"] == "finished"
    wins = {p["id"]: 0 for p in final["players"]}
    for m in final["matches"]:
        if m["stage"] == "pools" and not m["bye"]:
            wins[m["ranking"][0][0]] += 1
    entered = {s: sorted(p for m in final["matches"] if m["stage"] == s and m["round"] == 1 for p in m["players"])
               for s in ("main", "consolation", "c")}
    assert sorted(p for ps in entered.values() for p in ps) == sorted(wins)  # everyone once
    assert [wins[p] for p in entered["main"]] == [2] * 8
    assert [wins[p] for p in entered["consolation"]] == [1] * 4 and [wins[p] for p in entered["c"]] == [0] * 4
    assert sorted(r["player"] for r in final["ranking"]) == sorted(wins)
    page.goto(f"{server.url}/tournaments/{tid}/bracket")
    for stage, count in (("main", 7), ("consolation", 3), ("c", 3)):
        assert page.locator(f".bracket[data-stage={stage}] .bracket-match").count() == count
    shot(page, "tournament-abc-bracket.png")
    assert page.js_errors == []
