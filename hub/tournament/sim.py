"""A simulated tournament on the real hub: ``trigono sim --tournament 16 --format pools``.

Simulated players register and check in, the director calls each match to a free
station, which opens a real hub table, and the finished table reports its ranking by
itself (:meth:`TournamentService.table_changed`), up to the podium.

- Trigono (the default): every match is played on simulated boards — the firmware's
  own node code over pseudo-terminals (:mod:`hub.sim.runner`) — by simulated players
  of fixed skill, with the simulated referee answering what sensors cannot see. The
  simulator names a table's devices after the table (``<table id>B1``), so the
  stations' boards are ``{table}B1``…: named after whichever table they get.
- Trike, Triolet, Triominos: stations without boards; players make random legal moves.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engines import game_spec
from engines.records import replay
from hub.facade import Hub
from hub.tournament.service import TournamentService

FIRST_NAMES = ["Ana", "Ben", "Chloé", "Dan", "Eve", "Fred", "Gus", "Hugo", "Inès", "Jo", "Kim",
               "Léa", "Max", "Noé", "Olga", "Paul", "Quentin", "Rose", "Sam", "Théo", "Ugo",
               "Vera", "Will", "Xavier", "Yara", "Zoé"]
SETTLE_S = 0.3  # knock-in window of the simulated Trigono tables (as tests/sim)
MATCH_TIMEOUT_S = 300.0


def player_names(n: int) -> list[str]:
    """``n`` distinct names.

    >>> player_names(3), player_names(27)[-1]
    (['Ana', 'Ben', 'Chloé'], 'Ana 2')
    """
    return [FIRST_NAMES[i % len(FIRST_NAMES)] + (f" {i // len(FIRST_NAMES) + 1}" if i >= len(FIRST_NAMES) else "")
            for i in range(n)]


def play_table(hub: Hub, table_id: str, rng: random.Random, max_moves: int = 2000) -> None:
    """Random legal moves until the table's game is over."""
    spec = game_spec(hub.table_view(table_id)["game"])
    for _ in range(max_moves):
        if hub.game_over(table_id):
            return
        state = replay(hub.export(table_id))
        action = rng.choice(state.legal_actions())
        hub.submit(table_id, {"move": spec.action_to_json(action), "by": "sim"})


def run(players: int, fmt: str, *, game: str = "trigono", seats: int = 2, stations: int = 4,
        seed: int = 1, rounds: int = 4, out: Any = None, db: str = ":memory:") -> dict[str, Any]:
    """Run a whole simulated tournament; returns its final view. ``db``: the event store
    it is kept in (a SQLite file or a postgresql:// URL; ``trigono export SIM --db``)."""
    out = out or sys.stdout
    rng = random.Random(seed)
    hub = Hub(db, settle_s=SETTLE_S)
    hub.start()
    service = hub.tournaments
    try:
        tid = service.create({"name": f"Simulation {fmt}", "game": game, "format": fmt, "seats": seats,
                              "pool_size": max(4, seats), "rounds": rounds, "seed": seed,
                              "options": dict(game_spec(game).short_options)},
                             tournament_id=None if "SIM" in service.ids() else "SIM")["id"]
        for name in player_names(players):
            service.submit(tid, {"type": "register", "player": {"name": name}})
        for pid in list(service.get(tid).players):
            service.submit(tid, {"type": "check_in", "player": pid})
        if game_spec(game).game_type.sensor_boards:  # simulated boards report every throw
            view = _trigono_on_boards(hub, service, tid, stations, rng, out)
        else:
            view = _random_moves(hub, service, tid, stations, seats, rng, out)
        podium = ", ".join(f"{p['place']}. {p['name']}" for p in view["podium"])
        print(f"podium: {podium} ({len([m for m in view['matches'] if m['status'] == 'done'])} matches, "
              f"{view['entries']} log entries)", file=out, flush=True)
        if db != ":memory:":
            print(f"tournament {tid} kept in {db}: trigono export {tid} --db {db}", file=out, flush=True)
        return view
    finally:
        hub.close()  # and its tournaments


class _Calls:
    """Prints each new call once, every one of them (read from the tournament's log, not
    the view's list of the latest calls): ``match 12: Ana, Ben → row2``."""

    def __init__(self, service: TournamentService, tid: str, out: Any) -> None:
        self.service, self.tid, self.out, self.read = service, tid, out, 0

    def show(self) -> None:
        entries = self.service.export(self.tid)["entries"]
        if len(entries) == self.read:
            return
        t = self.service.get(self.tid)
        for body in entries[self.read:]:
            if body["type"] == "call":
                m = t.matches[body["match"]]
                print(f"match {m.number}: {', '.join(t.name(p) for p in m.players)} → {body['station']}",
                      file=self.out, flush=True)
        self.read = len(entries)


def _random_moves(hub: Hub, service: TournamentService, tid: str, stations: int, seats: int,
                  rng: random.Random, out: Any) -> dict[str, Any]:
    for i in range(stations):
        service.submit(tid, {"type": "station", "station": {"id": f"row{i + 1}", "seats": max(seats, 2)}})
    view = service.submit(tid, {"type": "start"})
    calls = _Calls(service, tid, out)
    while view["status"] != "finished":
        calls.show()
        playing = [m for m in view["matches"] if m["status"] == "called" and m["table"]]
        m = rng.choice(playing)
        play_table(hub, m["table"], rng)
        service.table_changed(m["table"])
        view = service.view(tid)
    calls.show()  # all of them, the final's included
    return view


def _trigono_on_boards(hub: Hub, service: TournamentService, tid: str, stations: int,
                       rng: random.Random, out: Any) -> dict[str, Any]:
    from hub.sim.runner import SimEvent, SimTable

    seats = service.get(tid).spec.seats
    boards = max(1, math.ceil(seats / 2))
    for i in range(stations):  # "{table}": each table's boards are named after it, as the simulator does
        service.submit(tid, {"type": "station", "station": {
            "id": f"row{i + 1}", "seats": seats, "boards": [f"{{table}}B{k}" for k in range(1, boards + 1)]}})
    skills = {p.name: round(rng.uniform(0.3, 0.9), 2) for p in service.get(tid).players.values()}
    view = service.submit(tid, {"type": "start"})
    calls = _Calls(service, tid, out)
    running: dict[str, tuple[SimEvent, float]] = {}  # table id -> (event, started)
    with tempfile.TemporaryDirectory(prefix="trigono-tournament-") as work:
        try:
            while view["status"] != "finished":
                calls.show()
                for m in view["matches"]:
                    table = m["table"]
                    if m["status"] == "called" and table and table not in running:
                        event = SimEvent(hub, Path(work) / table, [SimTable(table, {n: skills[n] for n in m["names"]},
                                                                            boards=boards)],
                                         speed=0, seed=rng.randrange(2**31), settle_s=SETTLE_S)
                        event.start()
                        running[table] = (event, time.monotonic())
                for table, (event, started) in list(running.items()):
                    if event.wait(0):
                        service.table_changed(table)  # the follower may not have seen it yet
                    elif time.monotonic() - started > MATCH_TIMEOUT_S:
                        raise RuntimeError(f"simulated tournament: table {table} never ended")
                time.sleep(0.05)
                view = service.view(tid)
        finally:
            for event, _started in running.values():
                event.close()
    calls.show()  # all of them, the final's included
    return view


def cmd_tournament_sim(args: argparse.Namespace) -> int:
    """``trigono sim --tournament N --format F``: see the module doc."""
    if args.tournament < 2:
        print("--tournament: at least 2 players", file=sys.stderr)
        return 2
    try:
        view = run(args.tournament, args.format, game=args.game, seats=args.players, seed=args.seed,
                   stations=max(1, args.tables), db=getattr(args, "db", None) or ":memory:")
    except ValueError as err:
        print(str(err), file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(json.dumps(view["podium"], ensure_ascii=False) + "\n")
    return 0
