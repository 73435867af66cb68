"""Season benchmark (issue 34): a season of 40 tournaments × 128 players, 10,240 matches.

Each tournament is a 4-round Swiss of 128 duels (64 matches a round) drawn from a circuit
of 600 licensed persons, played with seeded results (the better true level wins three
times in four), then loaded into one hub's log (``load``: the path of an export from
another hub) on a SQLite file, and added to one season (best 8 results). Timed:

- the re-rank: a late correction in the first tournament, then the whole season's
  standings and every game's ratings recomputed from the log (limit 2 s);
- the season page and a person page (``GET /seasons/S1``, ``GET /people/P1`` through the
  Flask app, French), cold — the first request after a correction, which pays the
  re-rank — and warm (limit 200 ms each); wall and CPU time (the machine is shared);
- a merge's preview (what the organizer sees before confirming).

``--provisional``: how many rated duels it takes a player's sigma to fall under half the
starting one, against a field of mixed levels (the provisional threshold, hub/tournament/ratings.py).

    python bench/season_rerank.py
    python bench/season_rerank.py --tournaments 10 --players 64
    python bench/season_rerank.py --provisional
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hub.tournament import scheduling  # noqa: E402
from hub.tournament.state import Tournament  # noqa: E402

DAY = 86400.0
FIRST = ("Inès", "Hugo", "Léa", "Marc", "Ana", "Ben", "Zoé", "Paul", "Yann", "Gwen", "Loïc", "Maël", "Erwan",
         "Anne", "Soizic", "Tanguy", "Nolwenn", "Ronan", "Katell", "Jean", "Marie", "Pierre", "Lucie", "Émile")
LAST = ("Morel", "Le Goff", "Tanguy", "Riou", "Guen", "Kerr", "Bihan", "Caër", "Le Gall", "Le Bras", "Guillou",
        "Le Roux", "Quéré", "Hamon", "Cariou", "Le Floch", "Jézéquel", "Madec", "Prigent", "Salaün", "Tréguer",
        "Le Borgne", "Morvan", "Corre", "Nédélec")


def played(tid: str, players: list[tuple[str, str, float]], rounds: int, rng: random.Random, at: float) -> dict[str, Any]:
    """A Swiss tournament's export: ``players`` (name, licence, level) over ``rounds`` rounds."""
    t = Tournament.create(tid, {"type": "create", "spec": {
        "name": f"Open {tid}", "game": "trike", "format": "swiss", "rounds": rounds, "check_in": False,
        "seeding": "registration"}}, at)
    level = {}
    for name, licence, lv in players:
        t.apply({"type": "register", "player": {"name": name, "key": licence}}, at)
        level[name] = lv
    last: dict[str, Any] = t.start_entry()
    t.apply(last, at)
    while True:
        follow = scheduling.follow_up(t, last)
        while follow is not None:
            t.apply(follow, at)
            last = follow
            follow = scheduling.follow_up(t, last)
        ready = [m for m in t.matches.values() if m.status == "ready" and len(m.players) == 2]
        if not ready:
            break
        for m in ready:
            a, b = m.players
            better = a if level[t.name(a)] >= level[t.name(b)] else b
            worse = b if better == a else a
            ranking = [better, worse] if rng.random() < 0.75 else [worse, better]
            last = {"type": "result", "match": m.id, "ranking": ranking}
            t.apply(last, at)
    assert t.status == "finished", t.status
    return {"format": "trigono-tournament", "version": 1, "id": tid, "created_at": at, "entries": t.log}


CPU: dict[str, float] = {}


def timed(fn: Any, repeat: int = 1, name: str = "") -> tuple[float, Any]:
    """The median wall time of ``fn`` (and, under ``name`` in :data:`CPU`, its median CPU
    time: the machine is shared, the wall time carries the others' load)."""
    times, cpu, out = [], [], None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    if name:
        CPU[name] = statistics.median(cpu)
    return statistics.median(times), out


def provisional(seed: int) -> None:
    from openskill.models import PlackettLuce
    model = PlackettLuce()
    rng = random.Random(seed)
    field = [rng.gauss(25, 5) for _ in range(100)]
    needed = []
    for _ in range(200):
        me, skill = model.rating(), rng.gauss(25, 5)
        for n in range(1, 100):
            other = rng.randrange(len(field))
            opp = model.rating(mu=field[other], sigma=3.0)
            win = rng.random() < 1 / (1 + 10 ** ((field[other] - skill) / 10))
            [[me], [_]] = model.rate([[me], [opp]], ranks=[1.0, 2.0] if win else [2.0, 1.0])
            if me.sigma < model.sigma / 2:
                needed.append(n)
                break
    q = statistics.quantiles(needed, n=10)
    print(f"duels until sigma < {model.sigma / 2:.2f} (half the start): median {statistics.median(needed):.0f}, "
          f"10th-90th percentile {q[0]:.0f}-{q[-1]:.0f}, over {len(needed)} players")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tournaments", type=int, default=40)
    ap.add_argument("--players", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--circuit", type=int, default=600, help="licensed persons in the circuit")
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--provisional", action="store_true")
    args = ap.parse_args(argv)
    if args.provisional:
        provisional(args.seed)
        return 0
    from hub.facade import Hub
    from web import create_app

    rng = random.Random(args.seed)
    names = [f"{first} {last}" for first in FIRST for last in LAST]
    rng.shuffle(names)
    circuit = [(names[i % len(names)] + (f" {i // len(names) + 1}" if i >= len(names) else ""), f"29{i:04d}",
                rng.gauss(25, 5)) for i in range(args.circuit)]
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub(Path(tmp) / "season.db")
        service = hub.tournaments
        start = time.perf_counter()
        for name, licence, _ in circuit:
            service.people_submit({"type": "person", "person": {"name": name, "licence": licence,
                                                                "club": f"Club {int(licence) % 23}"}})
        service.people_submit({"type": "season", "season": {"id": "S1", "name": "Circuit", "best": 8}})
        t0 = 1_767_225_600.0
        for i in range(args.tournaments):
            tid = f"T{i + 1}"
            doc = played(tid, rng.sample(circuit, args.players), args.rounds, rng, t0 + 7 * DAY * i)
            service.clock = lambda i=i: t0 + 7 * DAY * i + 3600  # type: ignore[misc]
            service.load(doc, tournament_id=tid)
            service.people_submit({"type": "season_add", "season": "S1", "tournament": tid})
        build_s = time.perf_counter() - start
        matches = sum(1 for t in service.ids() for m in service.get(t).matches.values() if not m.bye)
        print(f"season: {args.tournaments} tournaments x {args.players} players, {matches} matches, "
              f"{len(service.circuit.persons)} persons; built and loaded in {build_s:.1f} s")
        service.season_view("S1")
        first = service.get("T1")
        m = next(m for m in first.matches.values() if m.status == "done" and not m.bye)
        service.submit("T1", {"type": "correct", "match": m.id,
                              "ranking": list(reversed([p for g in m.ranking for p in g]))})
        rerank_s, view = timed(lambda: service.season_view("S1"), name="rerank")
        moved = len(view["moves"])
        print(f"re-rank after a late correction (ratings of {matches} matches + season standings): "
              f"{rerank_s:.2f} s, CPU {CPU['rerank']:.2f} s (limit 2 s); {moved} ranks moved")
        app = create_app({"SECRET_KEY": "bench"}, hub=hub)
        client = app.test_client()
        client.set_cookie("lang", "fr")
        client.get("/seasons/S1"), client.get("/people/P1")  # templates compiled: "cold" is after a change
        service.submit("T1", {"type": "correct", "match": m.id, "ranking": [p for g in m.ranking for p in g]})
        cold_season, r = timed(lambda: client.get("/seasons/S1"), name="cold_season")
        assert r.status_code == 200, r.status_code
        warm_season, _ = timed(lambda: client.get("/seasons/S1"), 20, "warm_season")
        service.submit("T1", {"type": "correct", "match": m.id,
                              "ranking": list(reversed([p for g in m.ranking for p in g]))})
        cold_person, r = timed(lambda: client.get("/people/P1"), name="cold_person")
        assert r.status_code == 200, r.status_code
        warm_person, _ = timed(lambda: client.get("/people/P1"), 20, "warm_person")
        size = len(client.get("/seasons/S1").data)
        print(f"season page: cold {cold_season * 1000:.0f} ms (CPU {CPU['cold_season'] * 1000:.0f}), "
              f"warm {warm_season * 1000:.0f} ms (CPU {CPU['warm_season'] * 1000:.0f}) ({size // 1024} KiB; limit 200 ms)")
        print(f"person page: cold {cold_person * 1000:.0f} ms (CPU {CPU['cold_person'] * 1000:.0f}), "
              f"warm {warm_person * 1000:.0f} ms (CPU {CPU['warm_person'] * 1000:.0f}) (limit 200 ms)")
        twin = service.people_submit({"type": "person", "person": {"name": circuit[0][0] + " bis"}})["person"]
        service.season_view("S1")
        preview_s, preview = timed(lambda: service.merge_preview("P1", twin))
        assert preview["refused"] is None
        print(f"merge preview (the log re-ranked with the merge, beside the current one): {preview_s:.2f} s")
        admin_s, dups = timed(lambda: (service.persons(), service.duplicates(), service.unlinked()), name="admin")
        print(f"the organizer's persons page data ({len(dups[0])} persons, {len(dups[1])} pairs proposed): "
              f"{admin_s * 1000:.0f} ms (CPU {CPU['admin'] * 1000:.0f})")
        hub.close()
    ok = rerank_s <= 2.0 and warm_season <= 0.2 and warm_person <= 0.2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
