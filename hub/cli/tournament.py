"""``trigono tournament``: load an exported tournament into an event store, or run a
simulated one. Loaded by :mod:`hub.cli.main`. (The export is ``trigono export ID``, for a
table or a tournament.)

    trigono export T1 --db festival.db > t1.json
    trigono tournament load t1.json --db other.db
    trigono tournament sim 16 --format pools --db sim.db   # also: trigono sim --tournament 16 --db sim.db
    trigono export SIM --db sim.db > sim.json
"""

from __future__ import annotations

import argparse
import json
import sys

EXIT_BAD_INPUT = 2


def cmd_load(args: argparse.Namespace) -> int:
    from hub.log.open import open_store
    from hub.tournament.service import TournamentService

    try:
        with open(args.file, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as err:
        print(f"cannot read {args.file}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    store = open_store(args.db)
    try:
        view = TournamentService(store).load(doc, tournament_id=args.id)
    except ValueError as err:
        print(str(err), file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        store.close()
    print(json.dumps({"id": view["id"], "status": view["status"], "entries": view["entries"]}))
    return 0


def cmd_sim(args: argparse.Namespace) -> int:
    from hub.tournament.sim import cmd_tournament_sim

    args.tournament = args.players_count
    return cmd_tournament_sim(args)


def add_tournament(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("tournament", help="load or simulate a tournament",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="action", required=True)
    load = actions.add_parser("load", help="load an exported tournament into an event store")
    load.add_argument("file", help="the exported JSON file")
    load.add_argument("--db", required=True, help="event store: a SQLite file or a postgresql:// URL")
    load.add_argument("--id", help="load under another id")
    load.set_defaults(func=cmd_load)
    s = actions.add_parser("sim", help="a whole simulated tournament on the real hub, to a podium")
    s.add_argument("players_count", type=int, metavar="N", help="number of players")
    s.add_argument("--format", choices=["pools", "abc", "swiss", "elimination", "double"], default="pools")
    s.add_argument("--game", default="trigono", help="game of every match (default: trigono, on simulated boards)")
    s.add_argument("--players", type=int, default=2, help="players per match (default: 2)")
    s.add_argument("--tables", type=int, default=4, help="stations (default: 4)")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--db", default=":memory:",
                   help="event store the tournament is kept in: a SQLite file or a postgresql:// URL "
                        "(default: in memory)")
    s.add_argument("--json", action="store_true", help="print the podium as JSON at the end")
    s.set_defaults(func=cmd_sim)


COMMANDS = [add_tournament]
