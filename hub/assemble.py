"""The composition root: one place that turns options into a running hub. The programs
— ``trigono hub`` (hub/cli), ``python -m web`` and the demo (web/__main__.py, web/demo.py),
the simulator — all go through here, so their options cannot drift apart. It is part of
no program: the web's programs use it without depending on the CLI, and the web's
library (its pages) never does: it gets a hub already running (hub/api.py).

- :func:`add_hub_options`: the shared argparse group (event store, device links, knock-in
  window, tables to create);
- :class:`HubOptions`: the same, typed (:meth:`HubOptions.from_args`);
- :func:`open_hub`: the event store opened (after the standby lock when it is
  PostgreSQL), every table rebuilt, the ``--table`` ones created when their id is new;
- :func:`open_read_only`: a read-only replica following the log another hub writes;
- :func:`attach_links`: the background threads started and the device links attached
  (serial ports at ``--baud``, the MQTT link of :mod:`hub.devices.mqtt_link`);
- :func:`stop_on_signal` and :func:`wait`: run until Ctrl-C or SIGTERM.

>>> parser = argparse.ArgumentParser()
>>> add_hub_options(parser)
>>> options = HubOptions.from_args(parser.parse_args(
...     ["--db", "x.db", "--serial", "/dev/ttyACM0", "--baud", "57600",
...      "--table", '{"id": "t1", "game": "trike"}']))
>>> options.serial, options.baud, [t.table_id for t in options.tables]
(('/dev/ttyACM0',), 57600, ['t1'])
"""

from __future__ import annotations

import argparse
import gc
import logging
import signal
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hub.devices.transport import Transport
from hub.errors import HubError
from hub.facade import Hub
from hub.tables.spec import TableSpec

if TYPE_CHECKING:
    from hub.sync import SyncConfig

DEFAULT_BAUD = 115200
DEFAULT_SETTLE_S = 1.0


def table_option(text: str) -> TableSpec:
    """``--table JSON``, checked while the command line is read (a clear usage error)."""
    try:
        return TableSpec.from_text(text)
    except HubError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def sync_option(path: str) -> SyncConfig:
    """``--sync FILE``, read and checked while the command line is read."""
    from hub.sync import SyncConfig

    try:
        return SyncConfig.load(path)
    except HubError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_hub_options(parser: argparse.ArgumentParser, *, db_default: str | None = None,
                    db_required: bool = True, links: bool = True,
                    settle_help: str = "knock-in window after a drop, in seconds (default: 1)") -> None:
    """The hub's options. ``--db`` is required unless ``db_default`` is given or
    ``db_required`` is False (the caller then picks one); ``links`` False leaves out the
    device links (the simulator makes its own)."""
    group = parser.add_argument_group("hub")
    group.add_argument("--db", required=db_required and db_default is None, default=db_default,
                       help="event store: a SQLite file (created if missing) or a postgresql:// URL"
                            + (f" (default: {db_default})" if db_default else ""))
    group.add_argument("--settle", type=float, default=DEFAULT_SETTLE_S, help=settle_help)
    group.add_argument("--table", action="append", type=table_option, default=[], metavar="JSON",
                       help='create a table if its id is new, e.g. \'{"id": "t1", "game": "trigono", '
                            '"seats": ["Ana", "Ben"], "boards": ["B1"]}\'')
    group.add_argument("-v", "--verbose", action="store_true", help="log what the hub does")
    group.add_argument("--sync", type=sync_option, default=None, metavar="FILE",
                       help="sync with a federation over NATS JetStream: a club's or the "
                            "federation's sync.json (`trigono federation`, docs/deploy.md)")
    if links:
        group.add_argument("--board", action="append", default=[], metavar="ID",
                           help="a board this hub referees before a table binds it (repeat): only "
                                "bound or registered boards are acknowledged (another hub on the "
                                "same broker may referee the others)")
        group.add_argument("--serial", nargs="+", metavar="PORT", default=[],
                           help="serial ports of boards")
        group.add_argument("--baud", type=int, default=DEFAULT_BAUD,
                           help=f"serial speed (default: {DEFAULT_BAUD})")
        from hub.devices.mqtt_link import add_mqtt_options  # paho: only when there are links

        add_mqtt_options(group)  # type: ignore[arg-type]  # an argument group adds arguments alike
        group.add_argument("--home-assistant", nargs="?", const="homeassistant", default=None, metavar="PREFIX",
                           help="with --mqtt: publish the boards to Home Assistant by MQTT discovery "
                                "(status, Wi-Fi signal, firmware update entity) under PREFIX "
                                "(default: homeassistant). Off unless given")


@dataclass(frozen=True)
class HubOptions:
    """What a running hub is made of."""

    db: str
    settle_s: float = DEFAULT_SETTLE_S
    tables: tuple[TableSpec, ...] = ()
    serial: tuple[str, ...] = ()
    baud: int = DEFAULT_BAUD
    mqtt: argparse.Namespace | None = None
    """The options of :func:`hub.devices.mqtt_link.add_mqtt_options` when ``--mqtt`` was given."""
    verbose: bool = False
    boards: tuple[str, ...] = ()
    """Boards this hub referees before a table binds them (``--board``)."""
    home_assistant: str | None = None
    """The Home Assistant discovery prefix (``--home-assistant``), None: off."""
    bot_budget_s: float = 1.0
    """Seconds a computer player thinks per move (not an option: the demo shortens it)."""
    bot_pause_s: float = 0.0
    """Rest of the bot worker after each move (the demo: bots at a watchable pace)."""
    sync: SyncConfig | None = None
    """``--sync``: the club or federation this hub syncs with (issue 35)."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> HubOptions:
        settle = DEFAULT_SETTLE_S if args.settle is None else args.settle
        return cls(db=str(args.db), settle_s=settle, tables=tuple(args.table),
                   serial=tuple(getattr(args, "serial", ()) or ()),
                   baud=getattr(args, "baud", DEFAULT_BAUD),
                   mqtt=args if getattr(args, "mqtt", None) is not None else None,
                   verbose=args.verbose, boards=tuple(getattr(args, "board", ()) or ()),
                   home_assistant=getattr(args, "home_assistant", None),
                   sync=getattr(args, "sync", None))


def open_hub(options: HubOptions) -> Hub:
    """The hub on its event store, tables rebuilt and ``options.tables`` created when
    their id is new. With a ``postgresql://`` store this first waits, as the standby,
    while another hub is active. Raises :class:`HubError` for a table the hub refuses
    (then nothing is left open). The process's collector is tuned (:func:`tune_gc`)."""
    from hub.log.open import open_store
    from hub.log.standby import become_active

    logging.basicConfig(level=logging.INFO if options.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    become_active(options.db)  # the lock before the store is read (a no-op for SQLite)
    hub = Hub(open_store(options.db), settle_s=options.settle_s, bot_budget_s=options.bot_budget_s,
              bot_pause_s=options.bot_pause_s)
    for board in options.boards:
        hub.register_board(board)
    try:
        known = {t["id"] for t in hub.list_tables()}
        for spec in options.tables:
            if spec.table_id is None or spec.table_id not in known:
                hub.create(spec)
    except HubError:
        hub.close()
        raise
    if options.sync is not None:  # nats is imported only here
        from hub.sync.service import start_sync

        start_sync(hub, options.sync)
    tune_gc()
    return hub


def open_read_only(db: str) -> Hub:
    """A replica on the event store at ``db`` (a ``postgresql://`` URL: several processes
    can serve the pages of one event), following the log another hub writes; started, the
    collector tuned like any server process's. :class:`hub.replica.ReadOnlyHub`."""
    from hub.replica import ReadOnlyHub

    hub = ReadOnlyHub(db)
    tune_gc()
    hub.start()
    return hub


def device_links(options: HubOptions) -> list[Transport]:
    """The links the options ask for (not started). OSError when the MQTT password file
    cannot be read."""
    links: list[Transport] = []
    if options.serial:
        from hub.devices.serial_link import SerialTransport

        links.append(SerialTransport(list(options.serial), baudrate=options.baud))
    if options.mqtt is not None:
        from hub.devices.mqtt_link import transport_from_args

        mqtt_link = transport_from_args(options.mqtt, options.db)
        if mqtt_link is not None:
            links.append(mqtt_link)
    return links


GC_GEN0_THRESHOLD = 20_000  # container allocations between young collections (CPython: 700)


def tune_gc() -> None:
    """Collect less often, and never again walk what exists now (the rebuilt tables,
    the imported code: ``gc.freeze``). Every device event allocates a few dozen dicts and
    lists that die young; at CPython's defaults the collector took about a seventh of the
    hub's ingest time (bench/hub_ingest.py). Garbage with reference cycles is still
    collected, a little later. Once per process: what a later call would freeze could
    be garbage by then (tests open many hubs in one process)."""
    if gc.get_freeze_count():
        return
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, *gc.get_threshold()[1:])


def attach_links(hub: Hub, options: HubOptions) -> None:
    """Start the hub's threads, then its device links."""
    links = device_links(options)
    hub.start()
    for link in links:
        hub.add_transport(link)
    settings = [getattr(link, "settings", None) for link in links]
    if options.home_assistant is not None and any(settings):
        from hub.fleet.homeassistant import start_discovery

        start_discovery(hub, next(s for s in settings if s is not None), options.home_assistant)


def stop_on_signal() -> threading.Event:
    """An event set by SIGINT (Ctrl-C) or SIGTERM (call from the main thread)."""
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    return stop


def wait(stop: threading.Event) -> None:
    """Block until ``stop`` is set (waking often: signals run between waits)."""
    while not stop.wait(0.5):
        pass
