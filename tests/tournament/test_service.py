"""The tournament service on a real hub (SQLite WAL file): matches called to stations
open tables, finished tables report their ranking by themselves, a SIGKILL and a restart
give the same tournament, an export loads into a new hub."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from engines.records import replay
from engines.trigono.scoreboard import detailed_ranking as trigono_detailed
from hub.errors import BadInputError, RefusedError
from hub.facade import Hub
from hub.log.sqlite import SqliteStore
from hub.tournament.service import TournamentService
from hub.tournament.sim import play_table

ROOT = Path(__file__).resolve().parents[2]
SPEC = {"name": "Trike night", "game": "trike", "format": "elimination", "check_in": True,
        "options": {"size": 3}, "seed": 3}


def test_called_matches_open_tables_that_report_their_results(tmp_path: Path) -> None:
    hub = Hub(tmp_path / "hub.db")
    service = TournamentService(hub.store, hub)
    service.create(SPEC, tournament_id="T1")
    names = ["Ana", "Ben", "Chloé", "Dan", "Eve"]
    for name in names:
        service.submit("T1", {"type": "register", "player": {"name": name}})
    for pid in ("p1", "p2", "p3", "p4"):  # Eve does not show up
        service.submit("T1", {"type": "check_in", "player": pid})
    for station in ("row1", "row2"):
        service.submit("T1", {"type": "station", "station": {"id": station, "seats": 2}})
    view = service.submit("T1", {"type": "start"})
    called = [m for m in view["matches"] if m["status"] == "called"]
    assert len(called) == 2 and {m["station"] for m in called} == {"row1", "row2"}
    assert all(m["table"] for m in called)
    assert sorted(hub.table_view(called[0]["table"])["players"]) == sorted(called[0]["names"])
    assert view["calls"][0]["players"] == called[0]["names"]
    rng = random.Random(1)
    rounds = 0
    while service.view("T1")["status"] != "finished":
        rounds += 1
        assert rounds < 10
        for m in [m for m in service.view("T1")["matches"] if m["status"] == "called"]:
            play_table(hub, m["table"], rng)
            service.table_changed(m["table"])  # what the feed follower does
            done = next(x for x in service.view("T1")["matches"] if x["id"] == m["id"])
            assert done["status"] == "done"
            winner = replay(hub.export(m["table"])).ranking()[0][0]
            assert done["names"][done["players"].index(done["ranking"][0][0])] == winner
    final = service.view("T1")
    assert [p["place"] for p in final["podium"]] == [1, 2, 3, 3]
    assert "Eve" not in {p["name"] for p in final["ranking"]}
    ratings = service.ratings()
    assert all(p["key"] in ratings for p in final["players"] if p["status"] == "present")
    hub.close()


def test_refused_entries_change_and_store_nothing(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "t.db")
    service = TournamentService(store)
    service.create({**SPEC, "check_in": False}, tournament_id="T1")
    before = store.last_id()
    with pytest.raises(BadInputError):
        service.submit("T1", {"type": "register", "player": {"nom": "Ana"}})
    with pytest.raises(RefusedError):
        service.submit("T1", {"type": "start"})  # nobody registered
    assert store.last_id() == before
    assert service.view("T1")["players"] == []


def test_a_results_feed_follower_reports_without_being_asked(tmp_path: Path) -> None:
    hub = Hub(tmp_path / "hub.db")
    hub.start()
    service = TournamentService(hub.store, hub)
    service.start()
    try:
        service.create({**SPEC, "check_in": False}, tournament_id="T1")
        for name in ("Ana", "Ben"):
            service.submit("T1", {"type": "register", "player": {"name": name}})
        service.submit("T1", {"type": "station", "station": {"id": "row1", "seats": 2}})
        view = service.submit("T1", {"type": "start"})
        table = view["matches"][0]["table"]
        play_table(hub, table, random.Random(2))
        import time

        deadline = time.monotonic() + 10
        while service.view("T1")["status"] != "finished":
            assert time.monotonic() < deadline, "the finished table never reported"
            time.sleep(0.05)
    finally:
        service.close()
        hub.close()


CHILD = textwrap.dedent("""
    import json, sys
    from hub.log.sqlite import SqliteStore
    from hub.tournament.service import TournamentService
    service = TournamentService(SqliteStore(sys.argv[1]))
    service.create({"name": "Kill", "game": "triominos", "format": "swiss", "rounds": 4,
                    "check_in": False, "seed": 5}, tournament_id="K")
    for i in range(9):
        service.submit("K", {"type": "register", "player": {"name": f"P{i}"}})
    view = service.submit("K", {"type": "start"})
    n = 0
    while view["status"] != "finished":
        m = next(m for m in view["matches"] if m["status"] == "ready")
        order = list(reversed(m["players"])) if n % 3 else m["players"]
        view = service.submit("K", {"type": "result", "match": m["id"], "ranking": order})
        n += 1
        print(json.dumps(view), flush=True)
""")


def run_then_kill(script: str, db: Path, lines: int) -> list[Any]:
    """Run ``script`` on ``db`` in a process, read ``lines`` JSON lines, then SIGKILL it."""
    proc = subprocess.Popen([sys.executable, "-c", script, str(db)], cwd=ROOT, stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    views = [json.loads(proc.stdout.readline()) for _ in range(lines)]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    return views


def test_sigkill_and_restart_give_the_same_tournament(tmp_path: Path) -> None:
    db = tmp_path / "kill.db"
    views = run_then_kill(CHILD, db, 7)
    store = SqliteStore(db)
    restored = TournamentService(store).view("K")
    store.close()
    # The kill may land after a commit whose view was not printed yet: never before one.
    assert restored["entries"] >= views[-1]["entries"]
    if restored["entries"] == views[-1]["entries"]:
        assert restored == views[-1]
    store = SqliteStore(db)
    assert TournamentService(store).view("K") == restored
    store.close()


def test_export_loads_into_a_new_hub(tmp_path: Path) -> None:
    first = TournamentService(SqliteStore(tmp_path / "a.db"))
    first.create({**SPEC, "check_in": False, "format": "pools", "pool_size": 3}, tournament_id="T7")
    for i in range(7):
        first.submit("T7", {"type": "register", "player": {"name": f"Player {i}"}})
    view = first.submit("T7", {"type": "start"})
    for m in view["matches"][:4]:
        view = first.submit("T7", {"type": "result", "match": m["id"], "ranking": m["players"]})
    doc: dict[str, Any] = json.loads(json.dumps(first.export("T7")))
    second = TournamentService(SqliteStore(tmp_path / "b.db"))
    loaded = second.load(doc)
    strip = ("created_at",)
    assert {k: v for k, v in loaded.items() if k not in strip} == {
        k: v for k, v in first.view("T7").items() if k not in strip}
    with pytest.raises(ValueError):
        second.load(doc)  # the id is taken
    assert TournamentService(SqliteStore(tmp_path / "b.db")).view("T7")["entries"] == loaded["entries"]


def register_swiss(service: TournamentService, tid: str, players: int) -> None:
    """A 3-round Swiss Trike tournament with ``players`` registered (no check-in)."""
    service.create({"name": tid, "game": "trike", "format": "swiss", "rounds": 3, "check_in": False},
                   tournament_id=tid)
    for i in range(players):
        service.submit(tid, {"type": "register", "player": {"name": f"P{i}"}})


def test_restart_reads_the_snapshot_then_only_newer_entries(tmp_path: Path) -> None:
    """Tournament logs are kept in the store's snapshot table, so a restart does not scan
    the whole event log; entries stored after the snapshot are replayed on top."""
    from hub.tournament import service as module

    store = SqliteStore(tmp_path / "s.db")
    first = TournamentService(store)
    register_swiss(first, "S", 6)
    first.snapshot()
    snap = store.snapshot(module.SNAPSHOT_KEY)
    assert snap is not None and len(snap[1]["logs"]["S"]) == 7
    view = first.submit("S", {"type": "start"})  # after the snapshot
    m = next(m for m in view["matches"] if m["status"] == "ready")
    view = first.submit("S", {"type": "result", "match": m["id"], "ranking": m["players"]})
    again = TournamentService(store)
    assert again.view("S") == view
    store.close()


def test_ratings_across_events_seed_the_next_tournament(tmp_path: Path) -> None:
    """Players known by their licence carry an OpenSkill rating from one tournament to
    the next, and a rating-seeded start puts the strongest first."""
    store = SqliteStore(tmp_path / "r.db")
    service = TournamentService(store)
    service.create({"name": "Round robin", "game": "trike", "format": "pools", "pool_size": 4, "advance": 1,
                    "consolation": False, "check_in": False}, tournament_id="A")
    licences = {"Ana": "L1", "Ben": "L2", "Chloé": "L3", "Dan": "L4"}
    for name, licence in licences.items():
        service.submit("A", {"type": "register", "player": {"name": name, "key": licence}})
    view = service.submit("A", {"type": "start"})
    strength = {"p1": 0, "p2": 1, "p3": 2, "p4": 3}  # Ana beats everyone, Dan loses to all
    while view["status"] != "finished":
        m = next(m for m in view["matches"] if m["status"] == "ready")
        view = service.submit("A", {"type": "result", "match": m["id"],
                                    "ranking": sorted(m["players"], key=strength.__getitem__)})
    ratings = service.ratings()
    assert ratings["L1"].ordinal > ratings["L2"].ordinal > ratings["L3"].ordinal > ratings["L4"].ordinal
    service.create({"name": "Next week", "game": "trike", "format": "elimination", "check_in": False},
                   tournament_id="B")
    for name in ("Dan", "Chloé", "Ben", "Ana"):  # registered weakest first
        service.submit("B", {"type": "register", "player": {"name": name, "key": licences[name]}})
    service.submit("B", {"type": "start"})
    order = [service.get("B").players[p].name for p in service.get("B").order]
    assert order == ["Ana", "Ben", "Chloé", "Dan"]
    assert service.ratings()["L1"].matches == 3
    store.close()


HUB_CHILD = textwrap.dedent("""
    import json, random, sys
    from hub.facade import Hub
    from hub.tournament.service import TournamentService
    from hub.tournament.sim import play_table
    hub = Hub(sys.argv[1])
    service = TournamentService(hub.store, hub)
    service.create({"name": "Kill", "game": "trike", "format": "pools", "pool_size": 3, "advance": 1,
                    "check_in": False, "options": {"size": 3}, "seed": 4}, tournament_id="K")
    for i in range(6):
        service.submit("K", {"type": "register", "player": {"name": f"P{i}"}})
    for s in ("row1", "row2"):
        service.submit("K", {"type": "station", "station": {"id": s, "seats": 2}})
    view = service.submit("K", {"type": "start"})
    rng = random.Random(5)
    while True:
        m = next(m for m in view["matches"] if m["status"] == "called")
        play_table(hub, m["table"], rng)
        service.table_changed(m["table"])
        view = service.view("K")
        print(json.dumps(view), flush=True)
""")


def test_sigkill_of_a_hub_mid_tournament_then_the_tables_and_the_tournament_go_on(tmp_path: Path) -> None:
    """A hub process running a tournament whose tables report their results is killed;
    the restarted hub has the same tournament, its called matches' tables are there,
    and playing them on finishes the tournament."""
    db = tmp_path / "hub.db"
    views = run_then_kill(HUB_CHILD, db, 4)
    hub = Hub(db)
    service = TournamentService(hub.store, hub)
    service.catch_up()  # a table that ended after the last result was stored reports now
    view = service.view("K")
    assert view["entries"] >= views[-1]["entries"]
    done_before = {m["id"] for m in views[-1]["matches"] if m["status"] == "done"}
    assert done_before <= {m["id"] for m in view["matches"] if m["status"] == "done"}
    rng = random.Random(6)
    while view["status"] != "finished":
        m = next(m for m in view["matches"] if m["status"] == "called")
        assert hub.table_view(m["table"])["players"] == m["names"]
        play_table(hub, m["table"], rng)
        service.table_changed(m["table"])
        view = service.view("K")
    assert view["podium"][0]["place"] == 1
    hub.close()


def test_a_read_only_replica_reads_the_tournaments_on(tmp_path: Path) -> None:
    """The read-only web (issue 18, hub.replica.ReadOnlyHub) shows what the active hub's
    tournaments become, and refuses to change them."""
    import time

    from hub.replica import ReadOnlyHub
    from web import create_app

    db = tmp_path / "hub.db"
    writer_store = SqliteStore(db)
    writer = TournamentService(writer_store)
    writer.create({**SPEC, "check_in": False}, tournament_id="T1")
    replica = ReadOnlyHub(str(db))
    replica.start()
    app = create_app({"TESTING": True, "SECRET_KEY": "k"}, hub=replica)
    client = app.test_client()
    try:
        assert client.get("/api/tournaments/T1").get_json()["entries"] == 1
        for name in ("Ana", "Ben"):
            writer.submit("T1", {"type": "register", "player": {"name": name}})
        expected = writer.submit("T1", {"type": "start"})
        deadline = time.monotonic() + 10
        while client.get("/api/tournaments/T1/version").get_json()["entries"] != expected["entries"]:
            assert time.monotonic() < deadline, "the replica never read the new entries"
            time.sleep(0.1)
        seen = client.get("/api/tournaments/T1").get_json()
        assert [m["players"] for m in seen["matches"]] == [m["players"] for m in expected["matches"]]
        with pytest.raises(RefusedError):
            replica.tournaments.submit("T1", {"type": "register", "player": {"name": "Eve"}})
        assert replica.tournaments.version("T1") == expected["entries"]
    finally:
        replica.tournaments.close()
        replica.close()
        writer_store.close()


def test_the_demo_tournament_plays_itself_to_a_podium(tmp_path: Path) -> None:
    """``python -m web.demo`` shows a tournament: its tables are played move by move and
    report their results through the feed follower, round after round."""
    import time

    from hub.tournament.demo import DemoTournament

    hub = Hub(tmp_path / "demo.db")
    hub.start()
    service = TournamentService(hub.store, hub)
    service.start()
    demo = DemoTournament(hub, 7, move_s=0.0, service=service)
    try:
        tid = demo.start()
        deadline = time.monotonic() + 60
        while service.view(tid)["status"] != "finished":
            assert time.monotonic() < deadline, service.view(tid)["matches"]
            time.sleep(0.1)
        view = service.view(tid)
        assert view["round"] == 3 and view["podium"][0]["place"] == 1
        assert all(m["table"] for m in view["matches"] if not m["bye"])
    finally:
        demo.close()
        service.close()
        hub.close()


def test_trigono_detailed_ranking_of_a_finished_table(tmp_path: Path) -> None:
    """A Trigono free-for-all reports rounds won, then who went out later, then palets
    held, when the tournament names the ``trigono_detailed`` ranking; the engine's own
    ranking would leave the losers tied."""
    hub = Hub(tmp_path / "hub.db")
    service = TournamentService(hub.store, hub)
    service.create({"name": "FFA", "game": "trigono", "format": "pools", "seats": 3, "pool_size": 3,
                    "advance": 1, "consolation": False, "check_in": False, "ranking": "trigono_detailed",
                    "options": {"palets_per_player": 3}}, tournament_id="F")
    for name in ("Ana", "Ben", "Chloé", "Dan", "Eve", "Fred"):
        service.submit("F", {"type": "register", "player": {"name": name}})
    service.submit("F", {"type": "station", "station": {"id": "hexa", "seats": 3}})
    view = service.submit("F", {"type": "start"})
    m = next(m for m in view["matches"] if m["status"] == "called")
    play_table(hub, m["table"], random.Random(3))
    service.table_changed(m["table"])
    done = next(x for x in service.view("F")["matches"] if x["id"] == m["id"])
    printed = hub.table_view(m["table"])["state"]
    ids = dict(zip(m["names"], m["players"], strict=True))
    assert done["ranking"] == [[ids[n] for n in g] for g in trigono_detailed(printed)]
    assert all(len(g) == 1 for g in done["ranking"]) or printed["eliminated"] == []
    hub.close()


def test_a_hexagon_station_opens_trigono_tables_on_its_six_boards(tmp_path: Path) -> None:
    hub = Hub(tmp_path / "hub.db")
    service = TournamentService(hub.store, hub)
    service.create({"name": "Hexa", "game": "trigono", "format": "swiss", "seats": 3, "rounds": 1,
                    "check_in": False}, tournament_id="H")
    for name in ("Ana", "Ben", "Chloé"):
        service.submit("H", {"type": "register", "player": {"name": name}})
    service.submit("H", {"type": "station", "station": {"id": "hexa", "seats": 6, "layout": "hexagon"}})
    view = service.submit("H", {"type": "start"})
    (m,) = [m for m in view["matches"] if m["status"] == "called"]
    layout = hub.table_view(m["table"])["layout"]
    assert sorted(b["board"] for b in layout) == [f"hexaB{k}" for k in range(1, 7)]
    assert any("jackpot" in b["holes"] for b in layout)
    hub.close()


def test_referees_entering_results_at_once_lose_nothing(tmp_path: Path) -> None:
    """Several request threads enter results at the same moment (some for the same
    match: one wins, the others are refused); the stored log replays to the same state."""
    import threading

    store = SqliteStore(tmp_path / "c.db")
    service = TournamentService(store)
    register_swiss(service, "R", 24)
    service.submit("R", {"type": "start"})
    refused: list[str] = []

    def referee(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(40):
            ready = [m for m in service.view("R")["matches"] if m["status"] == "ready"]
            if not ready:
                return
            m = rng.choice(ready)
            try:
                service.submit("R", {"type": "result", "match": m["id"], "ranking": m["players"]})
            except RefusedError as err:
                refused.append(str(err))

    threads = [threading.Thread(target=referee, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    view = service.view("R")
    assert view["status"] == "finished", view["round"]
    assert all("use a correction" in r for r in refused)
    assert TournamentService(store).view("R") == view
    store.close()


@pytest.mark.slow
def test_a_trigono_match_on_simulated_boards_reports_its_result(tmp_path: Path) -> None:
    """End to end: the director calls a Trigono match to a station of two boards, the
    hub opens its table on them, simulated boards (the firmware's node code, over
    pseudo-terminals) and a simulated referee play it, and the finished table's ranking
    becomes the match's result by itself (the service's feed follower)."""
    import time

    from hub.sim.runner import SimEvent, SimTable

    hub = Hub(tmp_path / "hub.db", settle_s=0.3)
    hub.start()
    service = TournamentService(hub.store, hub)
    service.start()
    service.create({"name": "Sensors", "game": "trigono", "format": "elimination", "check_in": False,
                    "options": {"palets_per_player": 3, "rounds_to_win": 2}, "seed": 9}, tournament_id="S")
    for name in ("Ana", "Ben"):
        service.submit("S", {"type": "register", "player": {"name": name}})
    # The simulator names a table's devices <table id>B1, B2: "{table}" in a board id.
    service.submit("S", {"type": "station", "station": {"id": "row1", "seats": 2,
                                                         "boards": ["{table}B1", "{table}B2"]}})
    view = service.submit("S", {"type": "start"})
    (m,) = view["matches"]
    assert m["table"] == "S-m1"
    event = SimEvent(hub, tmp_path / "pty", [SimTable("S-m1", {n: 0.7 for n in m["names"]}, boards=2)],
                     speed=0, seed=3, settle_s=0.3)
    try:
        event.start()
        assert event.wait(120), event.progress()
        deadline = time.monotonic() + 10
        while service.view("S")["status"] != "finished":
            assert time.monotonic() < deadline, "the finished table never reported"
            time.sleep(0.05)
        done = service.view("S")["matches"][0]
        assert [b["board"] for b in hub.table_view("S-m1")["layout"]] == ["S-m1B1", "S-m1B2"]
        winner = hub.table_view("S-m1")["winner"]
        assert done["names"][done["players"].index(done["ranking"][0][0])] == winner
        assert service.view("S")["podium"][0]["name"] == winner
    finally:
        event.close()
        service.close()
        hub.close()


def test_a_match_decided_by_hand_closes_its_table_with_that_result_and_frees_its_station(tmp_path: Path) -> None:
    """A called match's result entered by hand (or a forfeit that decides it) while its
    Trigono table is still open: the service closes that table with the match's result
    (issue 25.8: it abandoned it, 23 abandoned tables in an event), so the station's
    boards are free and the next match called there gets its own table on them.
    Corrections, round draws and calls stay as they were; a table that ended by itself
    is not touched."""
    hub = Hub(tmp_path / "hub.db")
    service = TournamentService(hub.store, hub)
    service.create({"name": "Row", "game": "trigono", "format": "swiss", "rounds": 2, "check_in": False,
                    "options": {"palets_per_player": 3}}, tournament_id="S")
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        service.submit("S", {"type": "register", "player": {"name": name}})
    service.submit("S", {"type": "station", "station": {"id": "row1", "seats": 2,
                                                       "boards": ["pico-1", "pico-2"]}})
    service.submit("S", {"type": "start"})

    def called() -> dict[str, Any]:
        (m,) = [m for m in service.view("S")["matches"] if m["status"] == "called"]
        return m

    def board_owners() -> dict[str, str]:
        owners = {}
        for summary in hub.list_tables():
            if not hub.game_over(summary["id"]):
                for b in hub.table_view(summary["id"])["layout"]:
                    assert b["board"] not in owners, f"{b['board']} bound twice"
                    owners[b["board"]] = summary["id"]
        return owners

    first = called()
    assert first["table"] and board_owners() == {"pico-1": first["table"], "pico-2": first["table"]}
    names = {p["id"]: p["name"] for p in service.view("S")["players"]}
    # 1. A result by hand: the table ends with it, the next match gets the boards.
    service.submit("S", {"type": "result", "match": first["id"], "ranking": first["players"]}, by="referee")
    closed = hub.table_view(first["table"])
    assert closed["abandoned"] is False
    assert closed["decided"] == [[names[first["players"][0]]], [names[first["players"][1]]]]
    assert closed["state"]["status"] == "decided" and hub.game_over(first["table"])
    assert next(s for s in hub.list_tables() if s["id"] == first["table"])["status"] == "decided"
    second = called()
    assert second["id"] != first["id"] and second["table"], "the next match got no table"
    assert board_owners() == {"pico-1": second["table"], "pico-2": second["table"]}
    # 2. A forfeit that decides the match: same (round 2 is drawn and called there).
    service.submit("S", {"type": "forfeit", "match": second["id"], "player": second["players"][0]})
    assert hub.table_view(second["table"])["decided"] == [[names[second["players"][1]]],
                                                          [names[second["players"][0]]]]
    assert hub.table_view(second["table"])["abandoned"] is False
    third = called()
    assert third["round"] == 2 and third["table"]
    assert board_owners() == {"pico-1": third["table"], "pico-2": third["table"]}
    # 3. A table that ends by itself reports its result and is not abandoned.
    play_table(hub, third["table"], random.Random(4))
    service.table_changed(third["table"])
    assert hub.table_view(third["table"])["abandoned"] is False
    assert hub.table_view(third["table"])["decided"] is None
    fourth = called()
    assert fourth["table"] and board_owners() == {"pico-1": fourth["table"], "pico-2": fourth["table"]}
    # The closed tables stay closed with their results after a restart, nothing was lost,
    # and no table of the event was abandoned.
    hub.close()
    hub = Hub(tmp_path / "hub.db")
    again = TournamentService(hub.store, hub)
    assert again.view("S") == service.view("S")
    assert [hub.table_view(m["table"])["decided"] is not None for m in (first, second)] == [True, True]
    assert not any(s["abandoned"] for s in hub.list_tables())
    hub.close()


def test_a_restart_closes_the_table_of_a_match_decided_while_the_service_was_away(tmp_path: Path) -> None:
    """The result by hand was stored but its table not closed (the process stopped in
    between; here: a service with no hub wrote it): the next service's catch-up closes it
    with that result, and leaves the open table of a match still being played alone."""
    hub = Hub(tmp_path / "hub.db")
    service = TournamentService(hub.store, hub)
    service.create({"name": "Row", "game": "trigono", "format": "swiss", "rounds": 1, "check_in": False},
                   tournament_id="S")
    for name in ("Ana", "Ben", "Chloé", "Dan"):
        service.submit("S", {"type": "register", "player": {"name": name}})
    for k in (1, 2):
        service.submit("S", {"type": "station", "station": {"id": f"row{k}", "seats": 2, "boards": [f"pico-{k}"]}})
    view = service.submit("S", {"type": "start"})
    decided, playing = [m for m in view["matches"] if m["status"] == "called"]
    TournamentService(hub.store).submit("S", {"type": "result", "match": decided["id"],
                                              "ranking": decided["players"]})
    assert hub.table_view(decided["table"])["decided"] is None
    later = TournamentService(hub.store, hub)
    later.catch_up()
    assert hub.table_view(decided["table"])["decided"] is not None
    assert hub.table_view(decided["table"])["abandoned"] is False
    assert hub.table_view(playing["table"])["abandoned"] is False
    assert not hub.game_over(playing["table"])
    hub.close()


def test_a_table_decided_off_it_checks_its_ranking_then_plays_nothing_more(tmp_path: Path) -> None:
    """The hub input a tournament closes a table with (issue 25.8): its ranking must name
    every seat once (refused otherwise, nothing changed); once decided, no move, undo or
    second decision is taken, and a restart keeps the result."""
    hub = Hub(tmp_path / "hub.db")
    hub.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], table_id="t1")
    for bad in ({"ranking": [["Ana"]]}, {"ranking": [["Ana"], ["Zoé"]]}, {"ranking": "Ana"}, [["Ana"], ["Ben"]]):
        with pytest.raises(BadInputError):
            hub.submit("t1", {"decided": bad})
    assert hub.table_view("t1")["decided"] is None and not hub.game_over("t1")
    hub.submit("t1", {"decided": {"ranking": [["Ben"], ["Ana"]]}, "by": "director"})
    assert hub.game_over("t1") and hub.table_view("t1")["decided"] == [["Ben"], ["Ana"]]
    for inp in ({"undo": True}, {"abandon": True}, {"decided": {"ranking": [["Ana"], ["Ben"]]}}):
        with pytest.raises(RefusedError):
            hub.submit("t1", inp)
    hub.close()
    again = Hub(tmp_path / "hub.db")
    assert again.table_view("t1")["decided"] == [["Ben"], ["Ana"]]
    assert again.list_tables()[0]["status"] == "decided"
    again.close()


def test_a_tournament_change_is_announced_on_the_hubs_change_feed(tmp_path: Path) -> None:
    """Issue 25: the tournament pages follow the live stream every page shares; each
    change of a tournament is a ``tournament`` item of the hub's change feed with its
    count of entries (what a page compares with the count it shows)."""
    hub = Hub(tmp_path / "hub.db")
    service = TournamentService(hub.store, hub)
    since = hub.last_change_id()
    service.create({"name": "Feed", "game": "trike", "format": "swiss", "check_in": False}, tournament_id="F")
    view = service.submit("F", {"type": "register", "player": {"name": "Ana"}})
    items = [c for c in hub.changes_since(since, timeout=0) if c["kind"] == "tournament"]
    assert [(c["tournament"], c["entries"]) for c in items] == [("F", 1), ("F", view["entries"])]
    hub.close()
