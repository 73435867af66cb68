"""The demo as a live event: ``python -m web.demo`` (scripts/demo).

Starts the hub, the web pages and a seeded simulated event, with no hardware and no
broker: two Trigono tables on a row of boards and one on a hexagon of six boards with
its jackpot (simulated boards run the firmware's node code and reach the hub over
pseudo-terminals; a simulated referee answers what sensors cannot see), and for each of
Trike, Triolet and Triominos a table where two computer players play each other and one
where you play against the computer (open its link: no referee needed), and a Swiss
Trike tournament that plays itself (hub/tournament/demo.py). Matches start again when
they end. Prints every address and the referee password; Ctrl-C stops.

A program, like ``python -m web``: it assembles its hub with :mod:`hub.assemble` and runs
the simulator (:mod:`hub.sim.runner`) and the demo tournament beside the pages it serves.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import secrets
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hub.assemble import HubOptions, add_hub_options
from hub.devices.address import parse_hostport
from web.__main__ import add_public_url_option, announce

if TYPE_CHECKING:
    from hub.api import Hub
    from hub.sim.runner import SimTable

BOT_BUDGET_S = 0.3  # a computer player's thinking time per move
BOT_PAUSE_S = 1.0  # then a rest: moves people can follow, and CPU left to the simulated event
YOU = "You"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m web.demo (scripts/demo)",
                                description=__doc__.split("\n\n")[1].replace("\n", " "),
                                epilog="Example: scripts/demo --port 8099 --speed 2")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to serve on (default: 127.0.0.1; 0.0.0.0 lets phones on the LAN in)")
    p.add_argument("--port", type=int, default=8080, help="port to serve on (default: 8080; 0: any free port)")
    p.add_argument("--password", help="referee/admin password (default: a random one, printed)")
    add_public_url_option(p)
    p.add_argument("--speed", type=float, default=1.0,
                   help="pace of the simulated Trigono players: 1 = real time, 2 = twice as fast, "
                        "0 = as fast as possible (default: 1)")
    p.add_argument("--seed", type=int, default=2026, help="seed of the simulated event (default: 2026)")
    p.add_argument("--mqtt", type=parse_hostport, metavar="HOST:PORT",
                   help="MQTT broker for the simulated boards (default: serial over pseudo-terminals)")
    add_hub_options(p, db_required=False, links=False,
                    settle_help="knock-in window after a drop, in seconds "
                                "(default: 0.8 with --speed 0, else 1)")
    p.set_defaults(settle=None)
    for action in p._actions:  # the demo picks its own store: say so
        if action.dest == "db":
            action.help = "event store (default: a temporary file, removed at the end)"
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


class GameTables:
    """For each board game: a bots-only table and a table against the computer, each
    started again under a new id when its game ends."""

    def __init__(self, hub: Hub, seed: int) -> None:
        self.hub, self.seed = hub, seed
        self.rounds: dict[str, int] = {}
        self.current: dict[str, str] = {}  # kind-game -> live table id

    def start(self) -> None:
        for game, caps in self.hub.game_types().items():  # the games played on screen, with a bot
            if caps["sensor_boards"] or not caps["bot"]:
                continue
            self._new("bots", game)
            self._new("vs", game)

    def _new(self, kind: str, game: str) -> str:
        key = f"{kind}-{game}"
        n = self.rounds[key] = self.rounds.get(key, 0) + 1
        table_id = key if n == 1 else f"{key}-{n}"
        seats: list[Any] = ([{"name": "Robo", "bot": True}, {"name": "Droid", "bot": True}]
                            if kind == "bots" else [YOU, {"name": "Robot", "bot": True}])
        if table_id not in {t["id"] for t in self.hub.list_tables()}:
            self.hub.create_table(game, table_id=table_id, seats=seats, seed=self.seed + n)
        self.current[key] = table_id
        return table_id

    def renew(self) -> None:
        """Start a new table for each bots-only game that ended."""
        for key, table_id in list(self.current.items()):
            kind, game = key.split("-", 1)
            if kind == "bots" and self.hub.game_over(table_id):
                self._new(kind, game)

    def vs_tables(self) -> dict[str, str]:
        return {key.split("-", 1)[1]: t for key, t in self.current.items() if key.startswith("vs-")}


def addresses(base: str, app: Any, trigono: list[str], games: GameTables) -> dict[str, Any]:
    """Every page worth opening, with a seat link for each table against the computer."""
    from web.security import seat_token

    with app.app_context():
        play = {game: f"{base}/play/{t}/join?seat={seat_token(t, YOU)}"
                for game, t in games.vs_tables().items()}
    return {
        "dashboard": base + "/", "big_screen": base + "/big", "big_screen_grid": base + "/big?mode=grid",
        "console": base + "/console/",
        "admin": base + "/admin/", "overlay": {t: f"{base}/overlay/{t}" for t in trigono},
        "play": base + "/play/", "play_against_the_computer": play,
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from hub.assemble import open_hub, stop_on_signal
    from hub.sim.runner import SimEvent, describe
    from web.server import start_server

    work = Path(tempfile.mkdtemp(prefix="trigono-demo-"))
    args.db = args.db or str(work / "demo.db")
    stop = stop_on_signal()
    hub = open_hub(dataclasses.replace(HubOptions.from_args(args), bot_budget_s=BOT_BUDGET_S,
                                       bot_pause_s=BOT_PAUSE_S))
    hub.start()
    password = args.password or secrets.token_urlsafe(9)
    handle = start_server(hub, host=args.host, port=args.port, password=password,
                          config={"PUBLIC_URL": args.public_url} if args.public_url else None)
    served = announce(handle.app, args.host, handle.url)  # before any seat link is shown
    games = GameTables(hub, args.seed)
    games.start()
    from hub.tournament.demo import DemoTournament  # issue 16: a tournament that plays itself

    tournament = DemoTournament(hub, args.seed)
    tournament_url = f"{handle.url}/tournaments/{tournament.start()}"
    generation = 1
    while not stop.is_set():
        specs = demo_specs(generation, args.seed, "mqtt" if args.mqtt else "serial")
        event = SimEvent(hub, work / f"pty{generation}", specs, speed=args.speed,
                         seed=args.seed + generation, mqtt=args.mqtt, hub_mqtt=generation == 1,
                         settle_s=args.settle)
        event.start()
        if generation == 1:  # the tables exist now: every address shown answers
            shown = addresses(handle.url, handle.app, [s.id for s in specs], games)
            shown["tournament"] = tournament_url
            shown.update(served)  # what phones on the LAN can open
            print(json.dumps({**shown, "password": password, "tables": [s.id for s in specs],
                              "games": sorted(games.current.values())}), flush=True)
            print(readable(shown, password), flush=True)
        while not stop.is_set() and not event.wait(0.5):
            games.renew()
        print(describe(event.progress()), flush=True)
        event.close()
        generation += 1
    tournament.close()
    handle.close()
    hub.close()
    shutil.rmtree(work, ignore_errors=True)
    return 0


def readable(shown: dict[str, Any], password: str) -> str:
    """The addresses for people, one a line."""
    lines = ["", "Trigono demo running:",
             f"  dashboard          {shown['dashboard']}",
             f"  big screen         {shown['big_screen']}   (every table at once: {shown['big_screen_grid']})",
             f"  referee console    {shown['console']}   (password: {password})",
             f"  admin              {shown['admin']}",
             f"  play a game        {shown['play']}   (any game against the computer: no referee needed)",
             f"  tournament         {shown.get('tournament', '-')}"]
    lines += [f"  overlay {t:<10} {url}" for t, url in shown["overlay"].items()]
    lines += [f"  play {g} vs computer: {url}" for g, url in shown["play_against_the_computer"].items()]
    lines += ["", f"Serving {shown['serving']}."]
    lines += [f"  phones             {url}" for url in shown["phones"]]
    if shown.get("public_url"):
        lines += [f"  seat links and QR codes use {shown['public_url']}"]
    lines += ["", "Ctrl-C to stop.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
