"""The demo as a live event: ``python -m web.demo`` (scripts/demo).

Starts the hub, the web pages and a seeded simulated event — two tables on a row of
boards and one on a hexagon of six boards with its jackpot — with no hardware and no
broker (the simulated boards run the firmware's node code and reach the hub over
pseudo-terminals). Prints the dashboard's address and the referee password, and plays
match after match until Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hub.commands import parse_hostport

if TYPE_CHECKING:
    from hub.sim.runner import SimTable


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m web.demo", description=__doc__.splitlines()[0])
    p.add_argument("--db", help="SQLite event store (default: a temporary file)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080, help="0: any free port")
    p.add_argument("--password", help="referee/admin password (default: a random one)")
    p.add_argument("--speed", type=float, default=1.0, help="1 = real time, 0 = as fast as possible")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--mqtt", type=parse_hostport, metavar="HOST:PORT",
                   help="MQTT broker for the boards (default: serial over pseudo-terminals)")
    return p


def demo_specs(generation: int, seed: int, link: str = "serial") -> list[SimTable]:
    from hub.sim.runner import SimTable

    g = f"g{generation}" if generation > 1 else ""
    return [
        SimTable(f"{g}row1", {"Ana": 0.7, "Ben": 0.5, "Chloé": 0.4}, boards=2, link=link),
        SimTable(f"{g}row2", {"Dario": 0.6, "Eva": 0.8}, boards=1, link=link),
        SimTable(f"{g}hexa", {"Féodor": 0.8, "Gaia": 0.7, "Hugo": 0.6, "Inès": 0.9},
                  layout="hexagon", link=link),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from hub.service import Hub
    from hub.sim.runner import SimEvent, describe
    from web.server import start_server

    work = Path(tempfile.mkdtemp(prefix="trigono-demo-"))
    hub = Hub(args.db or str(work / "demo.db"))
    hub.start()
    password = args.password or secrets.token_urlsafe(9)
    handle = start_server(hub, host=args.host, port=args.port, password=password)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    generation = 1
    while not stop.is_set():
        event = SimEvent(hub, work / f"pty{generation}",
                         demo_specs(generation, args.seed, "mqtt" if args.mqtt else "serial"),
                         speed=args.speed, seed=args.seed + generation, mqtt=args.mqtt,
                         hub_mqtt=generation == 1)
        event.start()
        if generation == 1:  # the tables exist now: every address shown answers
            print(json.dumps({"dashboard": handle.url + "/", "big_screen": handle.url + "/big",
                              "console": handle.url + "/console/", "password": password,
                              "tables": [s.id for s in demo_specs(1, args.seed)]}), flush=True)
        while not stop.is_set() and not event.wait(0.5):
            pass
        print(describe(event.progress()), flush=True)
        event.close()
        generation += 1
    handle.close()
    hub.close()
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
