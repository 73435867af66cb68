"""Issue 34: a season of several tournaments on one hub (one loaded from another hub's
export), a duplicate person merged, unmerged and merged again, a late correction and a
player back after months away; the season's ranking and the ratings equal an independent
fold of the log (written here from the stored entries, with openskill itself)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce

from hub.errors import RefusedError
from hub.facade import Hub
from hub.log.sqlite import SqliteStore
from hub.log.store import EventStore
from hub.tournament import placings
from hub.tournament.model import Player
from hub.tournament.people import Circuit
from hub.tournament.ratings import plackett_luce
from hub.tournament.service import TournamentService
from hub.tournament.state import Tournament

DAY = 86400.0
JAN = 1_767_225_600.0  # 2026-01-01 UTC
STRENGTH = ["Inès Morel", "Hugo Le Goff", "Léa Tanguy", "Marc Riou", "Ana Guen", "Ben Kerr", "Zoé Bihan",
            "Paul Caër"]


class Clock:
    def __init__(self) -> None:
        self.t = JAN

    def __call__(self) -> float:
        return self.t


def play(service: TournamentService, tid: str, order: list[str]) -> None:
    """Every ready match decided by ``order`` (names, best first) until the end."""
    for _ in range(200):
        view = service.view(tid)
        if view["status"] == "finished":
            return
        ready = [m for m in view["matches"] if m["status"] in ("ready", "called") and len(m["players"]) >= 2]
        assert ready, view["status"]
        for m in ready:
            ranked = sorted(m["players"], key=lambda p: order.index(m["names"][m["players"].index(p)]))
            service.submit(tid, {"type": "result", "match": m["id"], "ranking": ranked})
    raise AssertionError("the tournament never ended")


def tournament(service: TournamentService, tid: str, game: str, fmt: str,
               players: list[dict[str, str]], order: list[str], **extra: Any) -> None:
    spec = {"name": f"{tid} {game}", "game": game, "format": fmt, "check_in": False, "seeding": "registration",
            **extra}
    service.create(spec, tournament_id=tid)
    for p in players:
        service.submit(tid, {"type": "register", "player": p})
    service.submit(tid, {"type": "start"})
    play(service, tid, order)


# -- the independent fold ---------------------------------------------------------------------
MONTH = 30.44 * DAY


def fold(store: EventStore, points: list[list[float]], best: int, at: float) -> tuple[list[tuple[str, float]],
                                                                                      dict[str, dict[str, Any]]]:
    """The season's (identity, points) best first and each game's ratings, from the raw log."""
    logs: dict[str, list[tuple[dict[str, Any], float]]] = {}
    links: dict[tuple[str, str], str] = {}
    licences: dict[str, str] = {}
    merged: dict[str, str] = {}
    persons = 0
    season: list[str] = []
    for e in store.entries(after=0):
        if e.source == "tournament" and "tournament" in e.body:
            logs.setdefault(e.body["tournament"], []).append((e.body["entry"], e.at))
        elif e.source == "people":
            b = e.body["people"]
            if b["type"] == "person":
                persons += 1
                if b["person"].get("licence"):
                    licences[b["person"]["licence"]] = f"P{persons}"
            elif b["type"] == "link":
                links[(b["tournament"], b["player"])] = b["person"]
            elif b["type"] == "merge":
                merged[b["gone"]] = b["keep"]
            elif b["type"] == "unmerge":
                del merged[b["gone"]]
            elif b["type"] == "season_add":
                season.append(b["tournament"])

    def who(tid: str, p: Player) -> str:
        found = links.get((tid, p.id)) or licences.get(p.key)
        if found is None:
            return "~" + p.key
        while found in merged:
            found = merged[found]
        return found

    tours = {tid: (Tournament.replay(tid, [b for b, _ in items]), items[0][1]) for tid, items in logs.items()}
    results: dict[str, list[float]] = {}
    for tid in season:
        t, _ = tours[tid]
        for place, pid in placings.final_ranking(t):
            value = next(v for upto, v in sorted(points, key=lambda r: (r[0] == 0, r[0]))
                         if upto == 0 or place <= upto)
            results.setdefault(who(tid, t.players[pid]), []).append(value)
    table = sorted(((w, sum(sorted(v, reverse=True)[:best])) for w, v in results.items()), key=lambda r: -r[1])
    model = PlackettLuce()
    ratings: dict[str, dict[str, Any]] = {}
    for t, created in sorted(tours.values(), key=lambda x: (x[1], x[0].id)):
        game = ratings.setdefault(t.spec.game, {})
        for m in t.matches.values():
            if m.status != "done" or m.bye or len(m.players) < 2:
                continue
            keys = [who(t.id, t.players[p]) for g in m.ranking for p in g]
            teams = []
            for k in keys:
                if k in game:
                    mu, sigma, n, last = game[k]
                    months = int((created - last) // MONTH)
                    sigma = min(model.sigma, math.sqrt(sigma ** 2 + months)) if months > 0 else sigma
                    teams.append([model.rating(mu=mu, sigma=sigma)])
                else:
                    teams.append([model.rating()])
            ranks = [float(1 + sum(len(g) for g in m.ranking[:i])) for i, g in enumerate(m.ranking) for _ in g]
            for k, (r,) in zip(keys, model.rate(teams, ranks=ranks), strict=True):
                game[k] = (r.mu, r.sigma, game.get(k, (0, 0, 0, 0))[2] + 1, created)
    return table, ratings


def check_against_fold(service: TournamentService, store: EventStore, best: int) -> dict[str, Any]:
    view = service.season_view("S1")
    table, ratings = fold(store, view["season"]["points"], best, service.clock())
    lines = view["divisions"][0]["lines"]
    assert [(ln["identity"], ln["points"]) for ln in lines] == sorted(table, key=lambda r: (
        -r[1], next(ln["rank"] for ln in lines if ln["identity"] == r[0]), r[0]))
    book = service.book()
    for game, table_ in ratings.items():
        assert set(book.ratings[game]) == set(table_)
        for k, (mu, sigma, n, _) in table_.items():
            got = book.ratings[game][k]
            assert got.matches == n and math.isclose(got.mu, mu, abs_tol=1e-9) and math.isclose(
                got.sigma, sigma, abs_tol=1e-9)
    return view


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    h = Hub(tmp_path / "hub.db")
    yield h
    h.close()


def test_a_season_of_tournaments_merges_unmerges_corrects_and_equals_a_fold_of_the_log(
        hub: Hub, tmp_path: Path) -> None:
    service = hub.tournaments
    clock = service.clock = Clock()
    ines = service.people_submit({"type": "person", "person": {"name": "Inès Morel", "club": "Quimper",
                                                                "licence": "29001"}})["person"]
    assert ines == "P1"
    service.people_submit({"type": "season", "season": {"id": "S1", "name": "Circuit 2026", "best": 3}})
    # T1 (January, Trike): Inès by her licence, the others become persons at registration.
    clock.t = JAN + 9 * DAY
    t1 = [{"name": "Inès Morel", "key": "29001", "club": "Quimper"}, {"name": "Hugo Le Goff"},
          {"name": "Léa Tanguy"}, {"name": "Marc Riou"}]
    tournament(service, "T1", "trike", "elimination", t1, STRENGTH)
    assert service.identity("T1", "p1") == "P1"
    for pid in ("p2", "p3", "p4"):
        assert service.identity("T1", pid).startswith("~")  # nobody yet: never linked silently
        service.register_person("T1", pid)
    hugo, lea, marc = (service.identity("T1", p) for p in ("p2", "p3", "p4"))
    service.people_submit({"type": "season_add", "season": "S1", "tournament": "T1"})
    # T2 (February, Trike Swiss): "Ines Morel" typed without her licence: a new person by mistake;
    # Hugo is proposed by name and the organizer confirms.
    clock.t = JAN + 40 * DAY
    t2 = [{"name": "Ines Morel"}, {"name": "Hugo Le Goff"}, {"name": "Léa Tanguy"}, {"name": "Ana Guen"}]
    tournament(service, "T2", "trike", "swiss", t2, ["Ines Morel", *STRENGTH], rounds=2)
    assert [c["id"] for c in service.link_candidates("T2", "p1")] == [ines]  # similar: proposed, not linked
    assert service.identity("T2", "p1") == "~ines morel"
    twin = service.register_person("T2", "p1")  # the organizer said "a new person" (the mistake)
    assert [c["id"] for c in service.link_candidates("T2", "p2")] == [hugo]
    service.register_person("T2", "p2", hugo)
    service.register_person("T2", "p3", lea)
    service.register_person("T2", "p4")
    service.people_submit({"type": "season_add", "season": "S1", "tournament": "T2"})
    # T3: played on another hub, loaded from its export (licences link Inès).
    other = TournamentService(SqliteStore(tmp_path / "other.db"))
    tournament(other, "X", "trike", "elimination",
               [{"name": "Inès Morel", "key": "29001"}, {"name": "Zoé Bihan"}, {"name": "Paul Caër"},
                {"name": "Ben Kerr"}], STRENGTH)
    clock.t = JAN + 70 * DAY
    service.load(other.export("X"), tournament_id="T3")
    assert service.identity("T3", "p1") == ines
    service.people_submit({"type": "season_add", "season": "S1", "tournament": "T3"})
    # T4 (October, Triolet): Marc comes back after nine months.
    clock.t = JAN + 280 * DAY
    tournament(service, "T4", "triolet", "swiss", [{"name": "Marc Riou"}, {"name": "Ana Guen"},
                                                    {"name": "Hugo Le Goff"}, {"name": "Zoé Bihan"}],
               STRENGTH, rounds=2)
    service.register_person("T4", "p1", marc)
    service.register_person("T4", "p3", hugo)
    service.people_submit({"type": "season_add", "season": "S1", "tournament": "T4"})
    view = check_against_fold(service, hub.store, 3)

    # Marc's Trike rating, seen in October, is wider than after his last Trike match.
    trike_marc = service.book().ratings["trike"][marc]
    seen = next(r for r in service.person_view(marc)["ratings"] if r["game"] == "trike")
    assert seen["sigma"] > round(trike_marc.sigma, 3) and seen["provisional"]
    # Win chances when a match is called: the better-rated player is favoured.
    chances = service.win_chances("T1", "m1")
    assert math.isclose(sum(chances.values()), 1.0) and len(chances) == 2

    # The duplicate: proposed, previewed, merged, unmerged exactly, merged again.
    assert {(d["keep"]["id"], d["gone"]["id"]) for d in service.duplicates()} == {(ines, twin)}
    with pytest.raises(RefusedError) as refused:
        service.people_submit({"type": "merge", "keep": hugo, "gone": lea})
    assert refused.value.kind == "people_same_event"
    before = service.season_view("S1")
    preview = service.merge_preview(ines, twin)
    assert preview["refused"] is None and preview["seasons"][0]["moves"]
    ines_after = next(m for m in preview["seasons"][0]["moves"] if m["identity"] == ines)
    trike_before = service.book().ratings["trike"]
    service.people_submit({"type": "merge", "keep": ines, "gone": twin})
    merged = check_against_fold(service, hub.store, 3)
    assert next(ln["rank"] for ln in merged["divisions"][0]["lines"] if ln["identity"] == ines) == ines_after["after"]
    assert twin not in merged["ranks"]
    assert service.entries_of(ines) == [("T1", "p1"), ("T2", "p1"), ("T3", "p1")]
    assert service.book().ratings["trike"][ines].matches == (trike_before[ines].matches
                                                              + trike_before[twin].matches)
    service.people_submit({"type": "unmerge", "gone": twin})
    unmerged = check_against_fold(service, hub.store, 3)
    assert [(ln["identity"], ln["points"], ln["rank"]) for ln in unmerged["divisions"][0]["lines"]] == [
        (ln["identity"], ln["points"], ln["rank"]) for ln in before["divisions"][0]["lines"]]
    assert service.book().ratings["trike"] == trike_before
    assert service.entries_of(twin) == [("T2", "p1")]
    service.people_submit({"type": "merge", "keep": ines, "gone": twin})

    # A late correction in T2 re-ranks the season, and the page says who moved.
    ranks = service.season_view("S1")["ranks"]
    t2_final = service.get("T2")
    last = max((m for m in t2_final.matches.values() if m.status == "done" and not m.bye), key=lambda m: m.number)
    service.submit("T2", {"type": "correct", "match": last.id, "ranking": list(reversed(
        [p for g in last.ranking for p in g]))})
    corrected = check_against_fold(service, hub.store, 3)
    assert corrected["ranks"] != ranks  # Léa and Ana swap their last Swiss match: Léa ↓1, Ana ↑2
    assert corrected["moves"] and all(
        m["move"] == ranks[m["identity"]] - corrected["ranks"][m["identity"]] for m in corrected["moves"])

    # A restart (snapshot + people entries after it) gives the same season and ratings.
    service.snapshot()
    service.people_submit({"type": "person", "person": {"name": "Paul Caër"}})
    hub.close()
    again = Hub(hub.store.path if hasattr(hub.store, "path") else tmp_path / "hub.db")
    try:
        s2 = again.tournaments
        s2.clock = clock
        assert s2.season_view("S1")["divisions"][0]["lines"] == [
            {**ln, "move": 0} for ln in corrected["divisions"][0]["lines"]]
        assert s2.book().ratings == service.book().ratings
        assert len(s2.circuit.persons) == len(service.circuit.persons)
    finally:
        again.close()
    assert view["tournaments"][2]["id"] == "T3"


def test_a_merge_is_refused_for_two_licences_and_for_two_places_at_once() -> None:
    c = Circuit()
    for body in ({"name": "Inès Morel", "licence": "1"}, {"name": "Ines Morel", "licence": "2"},
                 {"name": "Inès Morél"}):
        c.apply({"type": "person", "person": body})
    entries = {"P1": [("T1", "p1")], "P2": [("T2", "p1")], "P3": [("T3", "p2")]}
    spans = {"T1": (0.0, 100.0), "T2": (500.0, 600.0), "T3": (50.0, 60.0)}
    with pytest.raises(RefusedError) as two:
        c.admit_merge("P1", "P2", entries.__getitem__, spans)
    assert two.value.kind == "people_two_licences"
    with pytest.raises(RefusedError) as at_once:
        c.admit_merge("P1", "P3", entries.__getitem__, spans)
    assert at_once.value.kind == "people_same_time"
    c.admit_merge("P2", "P3", entries.__getitem__, spans)  # T2 after T3: may be one person
    assert c.duplicates(entries.__getitem__, spans) == [("P2", "P3")]


def test_divisions_promote_and_relegate_at_the_season_end(hub: Hub) -> None:
    service = hub.tournaments
    service.clock = Clock()
    ids = [service.people_submit({"type": "person", "person": {"name": n, "licence": str(i)}})["person"]
           for i, n in enumerate(STRENGTH[:6])]
    service.people_submit({"type": "season", "season": {
        "id": "S1", "name": "Ligue", "divisions": [ids[3:], ids[:3]], "division_names": ["D1", "D2"],
        "promote": 1, "relegate": 1, "tiebreaks": ["wins", "best"]}})
    tournament(service, "T1", "trike", "swiss", [{"name": n, "key": str(i)} for i, n in enumerate(STRENGTH[:6])],
               STRENGTH, rounds=3)
    service.people_submit({"type": "season_add", "season": "S1", "tournament": "T1"})
    service.people_submit({"type": "season_close", "season": "S1"})
    view = service.season_view("S1")
    d1, d2 = view["divisions"]
    assert [ln["identity"] for ln in d2["lines"]][0] == ids[0] and d2["lines"][0]["end"] == "up"
    assert d1["lines"][-1]["end"] == "down"
    service.people_submit({"type": "season", "season": {"id": "S2", "name": "Ligue 2027", "previous": "S1"}})
    s2 = service.season_view("S2")
    assert ids[0] in [ln["identity"] for ln in s2["divisions"][0]["lines"]]
    assert d1["lines"][-1]["identity"] in [ln["identity"] for ln in s2["divisions"][1]["lines"]]


def test_the_written_out_plackett_luce_update_is_openskills() -> None:
    import random

    rng = random.Random(34)
    model = PlackettLuce()
    for _ in range(500):
        n = rng.choice([2, 2, 3, 4, 6])
        players = [(rng.gauss(25, 5), rng.uniform(0.5, 8.4)) for _ in range(n)]
        ranks = [float(rng.randint(1, n)) for _ in range(n)]
        library = model.rate([[model.rating(mu=m, sigma=s)] for m, s in players], ranks=ranks)
        for (mu, sigma), (r,) in zip(plackett_luce(players, ranks), library, strict=True):
            assert math.isclose(mu, r.mu, abs_tol=1e-12) and math.isclose(sigma, r.sigma, abs_tol=1e-12)


def test_a_replica_reads_persons_and_seasons_from_the_log(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "hub.db")
    writer = TournamentService(store)
    writer.people_submit({"type": "person", "person": {"name": "Inès Morel", "licence": "29001"}})
    reader = TournamentService(SqliteStore(tmp_path / "hub.db"), follows_log=True)
    assert [p["name"] for p in reader.persons()] == ["Inès Morel"]
    writer.people_submit({"type": "person", "person": {"name": "Ines Morel"}})
    writer.people_submit({"type": "season", "season": {"id": "S1", "name": "Circuit"}})
    writer.people_submit({"type": "merge", "keep": "P1", "gone": "P2"})
    reader.tail()
    assert reader.circuit.merged == {"P2": "P1"} and [s["id"] for s in reader.seasons()] == ["S1"]
    with pytest.raises(RefusedError) as taken:
        writer.people_submit({"type": "person", "person": {"name": "Someone", "licence": "29001"}})
    assert taken.value.kind == "people_licence_taken"
