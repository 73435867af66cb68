"""The hub's subcommands: ``trigono hub`` (run the hub) and ``trigono export`` (a table
as a RECORDS.md game record). Loaded by :mod:`hub.cli`.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from typing import Any

EXIT_BAD_INPUT = 2


def parse_hostport(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (port 1883 when left out).

    >>> parse_hostport("127.0.0.1:1884"), parse_hostport("broker")
    (('127.0.0.1', 1884), ('broker', 1883))
    """
    host, _, port = text.rpartition(":")
    if not host:
        return text, 1883
    try:
        return host, int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad HOST:PORT {text!r}") from None


def cmd_hub(args: argparse.Namespace) -> int:
    from hub.errors import HubError
    from hub.service import Hub

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    from hub.standby import become_active
    from hub.store import open_store

    become_active(args.db)  # PostgreSQL: wait as the standby while another hub is active
    hub = Hub(open_store(args.db), settle_s=args.settle)
    for spec_text in args.table or []:
        try:
            spec = json.loads(spec_text)
            if not isinstance(spec, dict):
                raise ValueError("a table is a JSON object")
            if spec.get("id") not in {t["id"] for t in hub.list_tables()}:
                hub.create_table(spec.pop("game"), table_id=spec.pop("id", None), **spec)
        except (ValueError, HubError, KeyError, TypeError) as err:
            print(f"--table: {err}", file=sys.stderr)
            hub.close()
            return EXIT_BAD_INPUT
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    hub.start()
    if args.serial:
        from hub.serial_link import SerialTransport

        hub.add_transport(SerialTransport(args.serial, baudrate=args.baud))
    if args.mqtt:
        from hub.mqtt_link import transport_from_args

        try:
            mqtt_link = transport_from_args(args, args.db)
        except OSError as err:
            print(f"--mqtt-password-file: {err}", file=sys.stderr)
            hub.close()
            return EXIT_BAD_INPUT
        if mqtt_link is not None:
            hub.add_transport(mqtt_link)
    print(json.dumps({"hub": "ready", "db": args.db, "tables": [t["id"] for t in hub.list_tables()]}),
          flush=True)
    while not stop.wait(0.5):
        pass
    hub.close()
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from hub.errors import HubError
    from hub.service import Hub

    hub = Hub(args.db)
    try:
        record = hub.export(args.table)
    except HubError as err:
        print(str(err), file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        hub.close()
    sys.stdout.write(json.dumps(record, ensure_ascii=False, indent=1) + "\n")
    return 0


def cmd_sim(args: argparse.Namespace) -> int:
    import tempfile
    from pathlib import Path

    from hub.errors import HubError
    from hub.service import Hub
    from hub.sim.runner import SimEvent, describe, make_specs

    if args.link == "mqtt" and args.mqtt is None:
        print("--link mqtt needs --mqtt HOST:PORT (a broker)", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        specs = make_specs(args.tables, args.players, args.boards, args.layout, args.seed,
                           link=args.link)
    except ValueError as err:
        print(str(err), file=sys.stderr)
        return EXIT_BAD_INPUT
    hub = Hub(args.db)
    hub.start()
    with tempfile.TemporaryDirectory(prefix="trigono-sim-") as work:
        event = SimEvent(hub, Path(work), specs, speed=args.speed, seed=args.seed, mqtt=args.mqtt)
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
    p = sub.add_parser("sim", help="a simulated event: simulated boards and players, the real hub")
    p.add_argument("--tables", type=int, default=2)
    p.add_argument("--players", type=int, default=2, help="players per table")
    p.add_argument("--boards", type=int, default=1, help="boards per table (hexagon: 6)")
    p.add_argument("--layout", choices=["row", "hexagon"], default="row")
    p.add_argument("--speed", type=float, default=0.0, help="1 = real time, 0 = as fast as possible")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--link", choices=["serial", "mqtt"], default="serial",
                   help="how the simulated boards reach the hub: pseudo-terminals or a broker")
    p.add_argument("--mqtt", type=parse_hostport, metavar="HOST:PORT", help="MQTT broker (--link mqtt)")
    p.add_argument("--db", default=":memory:", help="SQLite event store")
    p.set_defaults(func=cmd_sim)


def add_hub(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("hub", help="run the hub: device links, event store, referee")
    p.add_argument("--serial", nargs="+", metavar="PORT", default=[], help="serial ports of boards")
    p.add_argument("--baud", type=int, default=115200)
    from hub.mqtt_link import add_mqtt_options

    add_mqtt_options(p)
    p.add_argument("--db", required=True, help="SQLite event store (created if missing)")
    p.add_argument("--settle", type=float, default=1.0, help="knock-in window after a drop, s")
    p.add_argument("--table", action="append", metavar="JSON",
                   help='create a table if its id is new, e.g. \'{"id": "t1", "game": "trigono", '
                        '"seats": ["Ana", "Ben"], "boards": ["B1"]}\'')
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(func=cmd_hub)


def add_export(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="print a table as a game record (RECORDS.md)")
    p.add_argument("table", help="table id")
    p.add_argument("--db", required=True, help="SQLite event store")
    p.set_defaults(func=cmd_export)


COMMANDS = [add_hub, add_export, add_sim]
