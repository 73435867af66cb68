"""Issue 32.17: the pool draw keeps clubs apart where it can (serpentine by seed, then
swaps within a seed band), the launch preview shows clubs, and the organizer can swap
two players between pools before the launch (a ``swap`` entry of the log)."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.errors import HubError
from hub.facade import Hub
from hub.log.sqlite import SqliteStore
from hub.tournament import formats
from hub.tournament.service import TournamentService
from hub.tournament.state import Tournament
from tests.web.conftest import api_post, csrf_token

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(clubs=st.lists(st.sampled_from(["", "Nantes", "Rezé", "Vertou", "Brest"]), min_size=2, max_size=24),
       pool_size=st.integers(min_value=2, max_value=5))
def test_the_draw_never_puts_two_of_a_club_in_a_pool_when_a_separation_exists(clubs: list[str],
                                                                               pool_size: int) -> None:
    seeded = [f"p{i}" for i in range(1, len(clubs) + 1)]
    club_of = dict(zip(seeded, clubs, strict=True))
    count = formats.pool_count(len(seeded), pool_size)
    pools = formats.club_pools(seeded, count, club_of)
    assert sorted(p for pool in pools for p in pool) == sorted(seeded)
    assert sorted(map(len, pools)) == sorted(map(len, formats.snake_pools(seeded, count)))
    seed = {p: i for i, p in enumerate(seeded)}
    for pool in pools:
        assert pool == sorted(pool, key=seed.__getitem__)  # best seed first
        bands = Counter(seed[p] // count for p in pool)
        assert max(bands.values()) == 1  # moves stay within a band: one per band and pool
    sizes = Counter(c for c in clubs if c)
    for club, size in sizes.items():
        most = max(sum(club_of[p] == club for p in pool) for pool in pools)
        # No club has more players than there are pools: a separation exists, and is found;
        # else nobody gets more of a club than they must.
        assert most == math.ceil(size / count), (club, size, count, pools)
    assert formats.club_pools(seeded, count, club_of) == pools  # the same seeding, the same draw


def _event(store: SqliteStore, players: list[tuple[str, str]], fmt: str = "pools") -> TournamentService:
    service = TournamentService(store)
    service.create({"name": "Coupe des clubs", "game": "trigono", "format": fmt, "check_in": False,
                    "seeding": "registration", "pool_size": 4}, tournament_id="T1")
    for name, club in players:
        service.submit("T1", {"type": "register", "player": {"name": name, "club": club}})
    service.submit("T1", {"type": "station", "station": {"id": "S1", "seats": 2}})
    return service


# Eight players, two pools: the serpentine puts seeds 1, 4, 5, 8 together — three of Nantes.
FIELD = [("Ana", "Nantes"), ("Ben", "Rezé"), ("Chloé", "Vertou"), ("Dan", "Nantes"), ("Eve", "Nantes"),
         ("Fred", "Rezé"), ("Gus", "Vertou"), ("Hugo", "Brest")]


@pytest.mark.parametrize("fmt", ["pools", "abc"])
def test_a_started_tournament_keeps_clubs_apart_and_its_start_entry_stores_the_draw(fmt: str) -> None:
    store = SqliteStore(":memory:")
    service = _event(store, FIELD, fmt)
    preview = service.launch_preview("T1")
    for pool in preview["pools"]:
        clubs = Counter(m["club"] for m in pool["members"])
        assert clubs["Nantes"] <= 2 and clubs["Rezé"] <= 1 and clubs["Vertou"] <= 1, preview["pools"]
        assert all(m["clash"] == (m["club"] == "Nantes" and clubs["Nantes"] == 2)  # 3 of Nantes, 2 pools
                   for m in pool["members"])
    view = service.submit("T1", {"type": "start"})
    by_name = {p["id"]: (p["name"], p["club"]) for p in view["players"]}
    pools = [[by_name[s["player"]] for s in pool["standings"]] for pool in view["pools"]]
    for pool in pools:
        clubs = Counter(club for _, club in pool)
        assert clubs["Nantes"] <= 2 and clubs["Rezé"] <= 1 and clubs["Vertou"] <= 1, pools
    start = next(e for e in service.export("T1")["entries"] if e["type"] == "start")
    assert sorted(len(p) for p in start["pools"]) == [4, 4]
    # The stored draw is what a replay builds, whatever the drawing code says then.
    again = Tournament.replay("T1", service.export("T1")["entries"])
    assert again.pools == service.get("T1").pools


def test_a_start_stored_before_the_club_draw_folds_as_the_plain_serpentine() -> None:
    log = [{"type": "create", "spec": {"name": "Vieux", "game": "trigono", "format": "pools", "check_in": False,
                                       "pool_size": 4}}]
    log += [{"type": "register", "player": {"name": n, "club": c}} for n, c in FIELD]
    log += [{"type": "start", "order": [f"p{i}" for i in range(1, 9)]}]
    t = Tournament.replay("T9", log)
    assert t.pools == formats.snake_pools([f"p{i}" for i in range(1, 9)], 2)


def test_a_start_whose_pools_do_not_place_everyone_once_is_refused_and_changes_nothing() -> None:
    log = [{"type": "create", "spec": {"name": "x", "game": "trigono", "format": "pools", "check_in": False,
                                       "pool_size": 4}}]
    log += [{"type": "register", "player": {"name": n, "club": c}} for n, c in FIELD]
    t = Tournament.replay("T9", log)
    order = [f"p{i}" for i in range(1, 9)]
    for pools in ([order[:4], order[4:7]], [order[:3], order[3:]], [order[:4], [*order[4:7], "p1"]], "x"):
        with pytest.raises(HubError):
            t.apply({"type": "start", "order": order, "pools": pools})
        assert t.status == "registration" and t.order == [] and t.pools == []


def test_the_organizer_swaps_two_players_before_the_launch_and_not_after() -> None:
    service = _event(SqliteStore(":memory:"), FIELD)
    before = service.launch_preview("T1")["pools"]
    a, b = before[0]["members"][0], before[1]["members"][1]
    service.submit("T1", {"type": "swap", "players": [a["player"], b["player"]]})
    after = service.launch_preview("T1")["pools"]
    assert a["name"] in after[1]["players"] and b["name"] in after[0]["players"]
    assert {m["player"] for m in after[0]["members"]} == ({m["player"] for m in before[0]["members"]}
                                                          - {a["player"]} | {b["player"]})
    for bad in ({"players": [a["player"]]}, {"players": [a["player"], a["player"]]},
                {"players": [a["player"], "p99"]}):
        with pytest.raises(HubError):
            service.submit("T1", {"type": "swap", **bad})
    view = service.submit("T1", {"type": "start"})
    pool_a = {s["player"] for s in view["pools"][0]["standings"]}
    assert b["player"] in pool_a and a["player"] not in pool_a
    entries = len(service.export("T1")["entries"])
    with pytest.raises(HubError) as refused:
        service.submit("T1", {"type": "swap", "players": [a["player"], b["player"]]})
    assert refused.value.kind == "tour_started" and len(service.export("T1")["entries"]) == entries


def test_a_swap_in_a_tournament_without_pools_is_refused() -> None:
    service = TournamentService(SqliteStore(":memory:"))
    service.create({"name": "KO", "game": "trigono", "format": "elimination", "check_in": False}, tournament_id="K")
    for name in ("Ana", "Ben"):
        service.submit("K", {"type": "register", "player": {"name": name}})
    with pytest.raises(HubError) as refused:
        service.submit("K", {"type": "swap", "players": ["p1", "p2"]})
    assert refused.value.kind == "tour_swap_no_pools"


def test_the_launch_page_shows_clubs_and_swaps_two_players(referee: FlaskClient, hub: Hub) -> None:
    token = csrf_token(referee, "/tournaments/")
    api_post(referee, "/api/tournaments", {"id": "W1", "name": "Clubs", "game": "trigono", "format": "pools",
                                            "check_in": False, "seeding": "registration", "pool_size": 4}, token)
    for name, club in FIELD:
        api_post(referee, "/api/tournaments/W1/entries", {"type": "register", "player": {"name": name, "club": club}},
                 token)
    api_post(referee, "/api/tournaments/W1/entries", {"type": "station", "station": {"id": "S1", "seats": 2}}, token)
    fr = {"Accept-Language": "fr"}
    page = referee.post("/tournaments/W1/admin", data={"action": "start", "csrf_token": token}, headers=fr)
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "(Nantes)" in text and "(Rezé)" in text and 'name="swap_a"' in text
    swapped = referee.post("/tournaments/W1/admin", headers=fr, data={
        "action": "swap", "swap_a": "p1", "swap_b": "p2", "csrf_token": token})
    assert swapped.status_code == 200 and "Avant de lancer le tournoi" in swapped.get_data(as_text=True)
    entries = referee.get("/api/tournaments/W1/export").get_json()["entries"]
    assert entries[-1] == {"type": "swap", "players": ["p1", "p2"]}
    assert referee.get("/api/tournaments/W1").get_json()["status"] == "registration"
