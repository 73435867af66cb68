"""The hub's subcommands: ``trigono hub`` (run the hub), ``trigono export`` (a table as a
docs/records.md game record) and ``trigono sim`` (a simulated event). Loaded by :mod:`hub.cli.main`;
the hub itself is put together by :mod:`hub.assemble`.
"""

from __future__ import annotations

import argparse
import json
import sys

from hub.devices.address import parse_hostport

EXIT_BAD_INPUT = 2


def cmd_hub(args: argparse.Namespace) -> int:
    from hub.assemble import HubOptions, attach_links, open_hub, stop_on_signal, wait
    from hub.errors import HubError
    from hub.log.store import StoreOpenError

    options = HubOptions.from_args(args)
    stop = stop_on_signal()
    try:
        hub = open_hub(options)
    except HubError as err:
        print(f"--table: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except StoreOpenError as err:  # another hub on the file, a read-only location
        print(f"--db: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        attach_links(hub, options)
    except OSError as err:
        print(f"--mqtt-password-file: {err}", file=sys.stderr)
        hub.close()
        return EXIT_BAD_INPUT
    print(json.dumps({"hub": "ready", "db": options.db, "tables": [t["id"] for t in hub.list_tables()]}),
          flush=True)
    wait(stop)
    hub.close()
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from hub.errors import HubError
    from hub.facade import Hub
    from hub.log.open import open_store
    from hub.log.store import StoreOpenError

    try:
        hub = Hub(open_store(args.db))
    except StoreOpenError as err:  # a damaged entry (issue 32.4): its one line
        print(f"--db: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        record = hub.export(args.table)
    except HubError as err:
        try:  # issue 16: or a tournament's id
            record = hub.tournaments.export(args.table)
        except HubError:
            print(str(err), file=sys.stderr)
            return EXIT_BAD_INPUT
    finally:
        hub.close()
    sys.stdout.write(json.dumps(record, ensure_ascii=False, indent=1) + "\n")
    return 0


def cmd_sim(args: argparse.Namespace) -> int:
    import tempfile
    from pathlib import Path

    from hub.assemble import HubOptions, open_hub
    from hub.errors import HubError
    from hub.sim.runner import SimEvent, describe, make_specs

    if args.tournament is not None:  # issue 16: a simulated tournament (hub/tournament/sim.py)
        from hub.tournament.sim import cmd_tournament_sim

        return cmd_tournament_sim(args)
    if args.link == "mqtt" and args.mqtt is None:
        print("--link mqtt needs --mqtt HOST:PORT (a broker)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        specs = make_specs(args.tables, args.players, args.boards, args.layout, args.seed,
                           link=args.link)
        hub = open_hub(HubOptions.from_args(args))
    except ValueError as err:  # HubError included
        print(str(err), file=sys.stderr)
        return EXIT_BAD_INPUT
    hub.start()
    with tempfile.TemporaryDirectory(prefix="trigono-sim-") as work:
        event = SimEvent(hub, Path(work), specs, speed=args.speed, seed=args.seed, mqtt=args.mqtt,
                         settle_s=args.settle)
        try:
            event.start()
            while not event.wait(1.0):
                print(describe(event.progress()), flush=True)
        except HubError as err:
            print(str(err), file=sys.stderr)
            return EXIT_BAD_INPUT
        except KeyboardInterrupt:
            pass
        finally:
            event.close()
            hub.close()
    print(describe(event.progress()), flush=True)
    return 0


def add_sim(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from hub.assemble import add_hub_options

    p = sub.add_parser(
        "sim", help="a simulated event: simulated boards and players, the real hub",
        description="Run a simulated event against the real hub: simulated players throw, "
                    "simulated boards (the firmware's own node code) report drops over "
                    "pseudo-terminals or MQTT, a simulated referee answers what sensors cannot "
                    "see. Prints one progress line a second until every match is over.")
    p.add_argument("--tables", type=int, default=2, help="number of tables (default: 2)")
    p.add_argument("--players", type=int, default=2, help="players per table (default: 2)")
    p.add_argument("--boards", type=int, default=1, help="boards per table in a row (default: 1; "
                                                        "a hexagon always has 6)")
    p.add_argument("--layout", choices=["row", "hexagon"], default="row",
                   help="boards in a row, or six around a jackpot (default: row)")
    p.add_argument("--speed", type=float, default=0.0,
                   help="1 = real time, 0 = as fast as possible (default: 0)")
    p.add_argument("--seed", type=int, default=1, help="seed of every random choice (default: 1)")
    p.add_argument("--link", choices=["serial", "mqtt"], default="serial",
                   help="how the simulated boards reach the hub: pseudo-terminals or a broker")
    p.add_argument("--mqtt", type=parse_hostport, metavar="HOST:PORT",
                   help="the MQTT broker of --link mqtt")
    p.add_argument("--tournament", type=int, metavar="N",
                   help="instead: a whole tournament of N simulated players to a podium "
                        "(--tables stations, --players per match)")
    p.add_argument("--format", choices=["pools", "abc", "swiss", "elimination", "double"], default="pools",
                   help="tournament format (default: pools)")
    p.add_argument("--game", default="trigono",
                   help="tournament game (default: trigono, on simulated boards)")
    p.add_argument("--json", action="store_true", help="tournament: print the podium as JSON at the end")
    add_hub_options(p, db_default=":memory:", links=False,
                    settle_help="knock-in window after a drop, in seconds "
                                "(default: 0.8 with --speed 0, else 1)")
    p.set_defaults(func=cmd_sim, settle=None)


def add_hub(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from hub.assemble import add_hub_options

    p = sub.add_parser(
        "hub", help="run the hub: device links, event store, referee",
        description="Run the hub: listen to the boards (serial ports, MQTT), store every event "
                    "before applying it, referee the tables. Prints one JSON line when ready; "
                    "Ctrl-C stops. The web pages run with it under `python -m web`.")
    add_hub_options(p)
    p.set_defaults(func=cmd_hub)


def add_export(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="print a table as a game record (docs/records.md)",
                       description="Print a table of the event store as a docs/records.md game record "
                                   "(replay it with `trigono replay`), or a tournament as a file "
                                   "`trigono tournament load` reads into another store.")
    p.add_argument("table", help="table id (or tournament id)")
    p.add_argument("--db", required=True, help="event store: a SQLite file or a postgresql:// URL")
    p.set_defaults(func=cmd_export)


COMMANDS = [add_hub, add_export, add_sim]
