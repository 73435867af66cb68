"""A simulated tournament on the real hub: ``trigono sim --tournament 16 --format pools``.

Simulated players register and check in, stations are opened, the director calls each
match to a free station, which opens a real hub table; simulated players play it with
random legal moves (``hub.submit``), and the finished table reports its ranking by
itself (:meth:`TournamentService.table_changed`), up to the podium. Trigono tables need
sensor boards and a referee (``trigono sim`` without ``--tournament`` simulates those):
here their results are entered by a simulated referee as random rankings, and the
output says so.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from engines import game_spec
from engines.records import replay
from hub.service import Hub
from hub.tournament.service import TournamentService

FIRST_NAMES = ["Ana", "Ben", "Chloé", "Dan", "Eve", "Fred", "Gus", "Hugo", "Inès", "Jo", "Kim",
               "Léa", "Max", "Noé", "Olga", "Paul", "Quentin", "Rose", "Sam", "Théo", "Ugo",
               "Vera", "Will", "Xavier", "Yara", "Zoé"]
GAME_OPTIONS: dict[str, dict[str, Any]] = {"trike": {"size": 5}}


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


def run(players: int, fmt: str, *, game: str = "trike", seats: int = 2, stations: int = 4,
        seed: int = 1, rounds: int = 4, out: Any = None) -> dict[str, Any]:
    """Run a whole simulated tournament; returns its final view."""
    out = out or sys.stdout
    rng = random.Random(seed)
    hub = Hub(":memory:")
    service = TournamentService(hub.store, hub)
    try:
        service.create({"name": f"Simulation {fmt}", "game": game, "format": fmt, "seats": seats,
                        "pool_size": max(4, seats), "rounds": rounds, "seed": seed,
                        "options": GAME_OPTIONS.get(game, {})}, tournament_id="SIM")
        for name in player_names(players):
            service.submit("SIM", {"type": "register", "player": {"name": name}})
        for pid in list(service.get("SIM").players):
            service.submit("SIM", {"type": "check_in", "player": pid})
        for i in range(stations):
            service.submit("SIM", {"type": "station", "station": {"id": f"row{i + 1}", "seats": max(seats, 2)}})
        if game == "trigono":
            print("trigono: matches need sensor boards (plain `trigono sim` simulates those); "
                  "here a simulated referee enters each ranking", file=out, flush=True)
        view = service.submit("SIM", {"type": "start"})
        shown = 0
        while view["status"] != "finished":
            for call in view["calls"][shown:]:
                print(f"match {call['number']}: {', '.join(call['players'])} → {call['station']}", file=out, flush=True)
            shown = len(view["calls"])
            playing = [m for m in view["matches"] if m["status"] == "called"]
            ready = [m for m in view["matches"] if m["status"] == "ready"]
            m = rng.choice(playing or ready)
            if m["table"] and game != "trigono":
                play_table(hub, m["table"], rng)
                service.table_changed(m["table"])
            else:  # the simulated referee enters the ranking
                order = [p for p in m["players"] if p not in m["forfeits"]]
                rng.shuffle(order)
                service.submit("SIM", {"type": "result", "match": m["id"], "ranking": order}, by="sim-referee")
            view = service.view("SIM")
        podium = ", ".join(f"{p['place']}. {p['name']}" for p in view["podium"])
        print(f"podium: {podium} ({len([m for m in view['matches'] if m['status'] == 'done'])} matches, "
              f"{view['entries']} log entries)", file=out, flush=True)
        return view
    finally:
        hub.close()


def cmd_tournament_sim(args: argparse.Namespace) -> int:
    """``trigono sim --tournament N --format F``: see the module doc."""
    if args.tournament < 2:
        print("--tournament: at least 2 players", file=sys.stderr)
        return 2
    try:
        view = run(args.tournament, args.format, game=args.game, seats=args.players, seed=args.seed,
                   stations=max(1, args.tables))
    except ValueError as err:
        print(str(err), file=sys.stderr)
        return 2
    if args.json:
        sys.stdout.write(json.dumps(view["podium"], ensure_ascii=False) + "\n")
    return 0
