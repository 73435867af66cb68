"""The hub's facade: the one object the web layer (and the CLI) talks to.

:class:`Hub` only holds the parts together and takes the lock; each idea has its own
module: :mod:`hub.devices.ingest` (device messages → entries, acks, board health; pure) and
:mod:`hub.devices.ingest_loop` (the ingest and timer threads around it), :mod:`hub.tables.tableset` (restore, dormant finished tables, snapshots), :mod:`hub.tables.table`
and :mod:`hub.tables.referee` (a table as a fold over its log entries), :mod:`hub.tables.bots` (the
bot worker), :mod:`hub.log.writer` (the hub's one door into the log), :mod:`hub.log.changes` (the
change feed), :mod:`hub.tables.spec` (a table to create), :mod:`hub.tournament.service` (the
hub's tournaments, :attr:`Hub.tournaments`), :mod:`hub.assemble` (a running hub from
command-line options).

:class:`Hub` is thread-safe: every public method may be called from any thread (Flask
request threads, the SSE stream, transports). Everything that changes a table goes
through the durable event store first (docs/design.md §6, R1): an input is validated, stored,
committed, and only then applied; a bad input raises a :class:`hub.errors.HubError`
(a ``ValueError``) and changes nothing.

The shapes it returns (table summary, table view, board health, change feed) are
documented in docs/hub.md, "Shapes"; all are plain JSON values.

The inputs :meth:`Hub.submit` takes are listed in :mod:`hub.tables.table`.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engines import GAMES
from firmware import protocol
from hub.devices import board_id, ingest
from hub.devices.health import GIVE_UP_S, SeqTracker
from hub.devices.ingest import IngestState
from hub.devices.ingest_loop import IngestLoop
from hub.devices.transport import Transport
from hub.errors import (
    BadInputError,
    ConflictError,
    HubError,
    RefusedError,
    StaleViewError,
    UnknownGameError,
    UnknownTableError,
)
from hub.fleet import view as fleet_view
from hub.fleet.service import BoardLiveError, FleetService, Updater
from hub.log import clock
from hub.log.changes import ChangeFeed
from hub.log.sqlite import SqliteStore
from hub.log.store import Entry, EventStore, HubBusyError, with_id
from hub.log.writer import LogWriter
from hub.tables import moments
from hub.tables.assist import AssistDesk
from hub.tables.bots import BotTurn, BotWorker
from hub.tables.drawing import layout_editor
from hub.tables.spec import TableSpec
from hub.tables.table import Table, game_bot, parse_input
from hub.tables.tableset import TableSet
from hub.tournament.service import TournamentService

if TYPE_CHECKING:
    from hub.sync import SyncService

__all__ = [
    "Hub",
    "HubError",
    "BadInputError",
    "ConflictError",
    "RefusedError",
    "StaleViewError",
    "UnknownGameError",
    "UnknownTableError",
]

JSONDict = dict[str, Any]
log = logging.getLogger("hub")

LOCK_WAIT_S = 2.0  # a request (read or write) waits this long for a commit in progress, then gets a 503
PRIVATE_FIELDS = ("seed", "hint")  # never in a public view (the seed fixes every future draw)
PUBLIC_EVENTS = 10  # a public view's newest table events (the referee's view keeps MAX_EVENTS)


class Hub:
    """The running hub: event store, tables, referees, board health, transports.

    ``Hub(db)`` opens (or creates) the SQLite event store at ``db`` (``":memory:"`` for
    a throwaway hub) and rebuilds every table from it. Call :meth:`start` to run the
    background threads (ingest, settle-window timers, bots) and :meth:`close` to stop.
    """

    follows_log = False
    """A read-only replica (:class:`hub.replica.ReadOnlyHub`) follows a log another hub
    writes; its tournaments do too."""

    def __init__(
        self,
        db: str | Path | EventStore,
        *,
        settle_s: float = 1.0,
        bot_budget_s: float = 1.0,
        lost_after_s: float = 30.0,
        gap_timeout_s: float = GIVE_UP_S,
        bot_pause_s: float = 0.0,
    ) -> None:
        self.settle_s = settle_s
        self.lost_after_s = lost_after_s
        self.store: EventStore = db if isinstance(db, EventStore) else SqliteStore(db)
        self._lock = threading.RLock()
        self.feed = ChangeFeed()
        # The one door into the log: tables, devices, the timer, bots and tournaments all
        # store → apply → announce through it, under this lock.
        self.writer = LogWriter(self.store, self.feed, self._lock)
        self.tables = TableSet(self.writer)
        self.devices: IngestState[Transport] = IngestState(seqs=SeqTracker(gap_timeout_s))
        self.bots = BotWorker(self, bot_budget_s, bot_pause_s)
        self._transports: list[Transport] = []
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._tournaments: TournamentService | None = None
        self._assist: AssistDesk | None = None
        self._fleet: FleetService | None = None
        self.updater: Updater | None = None
        """How a bundle reaches one board (:data:`hub.fleet.service.Updater`); None: the
        default, :func:`hub.fleet.transfer.update_board` when present."""
        self.ingest_loop = IngestLoop(self.writer, self.tables, self.devices, self.feed, self.bots,
                                      lost_after_s)
        with self._lock:
            for board, table_id in self.tables.restore().items():
                self.devices.bound[board] = table_id
            self.devices.restore(self.store.last_seen(), self.store.device_marks(),
                                 self.store.device_hellos())

    # -- life cycle ------------------------------------------------------------------
    def start(self) -> None:
        """Start the background threads (idempotent)."""
        if self._threads:
            return
        for target, name in (
                (lambda: self.ingest_loop.run(self._stop), "hub-ingest"),
                (lambda: self.ingest_loop.run_timer(self._stop), "hub-timer")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        self.bots.start()
        with self._lock:
            for table in self.tables.loaded():
                self.bots.request(table.id)
        if not self.follows_log:
            # A rollout a restart interrupted goes on (issue 33.4); the log is read in the
            # rollout's own thread, not on the way to a started hub.
            thread = threading.Thread(target=lambda: self.fleet.start(), name="hub-fleet-restore", daemon=True)
            thread.start()
            self._threads.append(thread)

    def add_transport(self, transport: Transport) -> None:
        """Attach a device link and start it."""
        self._transports.append(transport)
        transport.start(self)

    def close(self) -> None:
        """Stop transports and threads, snapshot the tables, close the store. Idempotent."""
        if self._stop.is_set():
            return
        self.flush(timeout=5.0)
        self.ingest_loop.send_due_acks()
        for transport in self._transports:
            transport.stop()
        self._stop.set()
        self.ingest_loop.timer_wake.set()
        self.ingest_loop.inbox.wake()
        self.feed.close()
        self.bots.stop()
        for thread in self._threads:
            thread.join(timeout=5.0)
        if self._fleet is not None:
            self._fleet.stop()
        if self.sync is not None:  # it reads the store: stopped before the store closes
            self.sync.stop()
        self._close_tournaments()
        with self._lock:
            self.tables.snapshot_changed()
            if self._assist is not None:
                self._assist.snapshot()
            self.store.close()

    @property
    def tournaments(self) -> TournamentService:
        """The hub's tournaments (:mod:`hub.tournament.service`): built on first use —
        replayed from the log, its follower of this hub's change feed started — and
        writing through this hub's writer, under its lock."""
        with self._lock:
            if self._tournaments is None:
                self._tournaments = TournamentService(self.store, self, follows_log=self.follows_log,
                                                      create_tables=not self.follows_log)
                self._tournaments.start()
            return self._tournaments

    @property
    def assist(self) -> AssistDesk:
        """The calls for a referee (:mod:`hub.tables.assist`): folded from the log on first use,
        written through this hub's writer."""
        with self._lock:
            if self._assist is None:
                self._assist = AssistDesk(self.writer)
            return self._assist

    @property
    def fleet(self) -> FleetService:
        """The hub's fleet (:mod:`hub.fleet.service`): built on first use from the log's
        fleet entries (target, actions, rollouts)."""
        with self._lock:
            if self._fleet is None:
                fleet = FleetService(self, self.updater)
                fleet.restore(self.store.entries())
                self._fleet = fleet
            return self._fleet

    def _close_tournaments(self) -> None:
        """Stop the tournaments' follower and snapshot them (after the feed closed: the
        follower's wait ends at once)."""
        if self._tournaments is not None:
            self._tournaments.close()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every message delivered so far is stored and applied (tests, bench)."""
        return self.ingest_loop.inbox.flush(timeout)

    # -- tables ------------------------------------------------------------------------
    @contextlib.contextmanager
    def _door(self) -> Iterator[None]:
        """The hub's lock for a request from a door (web pages, API, console, admin), waited
        for at most :data:`LOCK_WAIT_S`: a commit stuck on a frozen disk holds it, and a
        read or a write must then answer 503 at once rather than hang for the whole freeze
        (issue 24.8). A write refused this way changed nothing: it never got the lock."""
        if not self._lock.acquire(timeout=LOCK_WAIT_S):
            raise HubBusyError(f"the hub is waiting on its event store (a commit has not returned "
                               f"in {LOCK_WAIT_S:.0f} s): nothing was changed, try again shortly")
        try:
            yield
        finally:
            self._lock.release()

    def games(self) -> list[str]:
        """Names of the registered games (``engines.GAMES``)."""
        return sorted(GAMES)

    def now(self) -> float:
        """The time on the hub's clock (:mod:`hub.log.clock`, seconds), the clock of the
        times its views carry (a board's ``last_seen``, an alert's ``at``): a page says
        "seen 3 s ago" from the two, and tests drive that clock."""
        return clock.now()

    def place_label(self, where: str) -> JSONDict:
        """How a page names a place that a view, an event or a refusal gives by its id
        (``"B1.big"``, ``"board:B2"``, ``"floor"``): ``{"kind", **params}``, the label a
        view's ``places`` carry (the web's catalogue words it: ``where.<kind>``)."""
        return moments.label(where)

    def layout_editor(self) -> JSONDict:
        """What the admin's layout editor draws: the cells a board may be placed on, the
        jackpots, the box (:func:`hub.tables.drawing.layout_editor`); the page only scales
        and compares keys. The boards placed there come back as ``TableSpec``'s ``layout``."""
        return layout_editor()

    def game_types(self) -> dict[str, JSONDict]:
        """Each registered game's capabilities, by name: what a page branches on (sensor
        boards, its renderer, its words for a turn…; ``engines.core.GameSpec.capabilities``),
        the same object as the ``capabilities`` of its tables' views."""
        return {name: GAMES[name].capabilities() for name in sorted(GAMES)}

    def list_tables(self) -> list[JSONDict]:
        """A summary of every table, oldest first (see the module doc)."""
        with self._door():
            return self.tables.summaries()

    def game_over(self, table_id: str) -> bool:
        """Whether the table's game (match) is over — cheap, unlike a view."""
        with self._door():
            return self.tables.is_over(table_id)

    def table_view(self, table_id: str) -> JSONDict:
        """The referee's full view of one table; :class:`UnknownTableError` if none."""
        with self._door():
            return self._view(self.tables[table_id])

    def public_view(self, table_id: str, player: str | None = None) -> JSONDict:
        """What ``player`` (None: the audience) may see: the view with the engine's
        observation as ``state`` (other players' racks hidden), no seed, the newest
        PUBLIC_EVENTS events, and the hint only for ``player`` when they are to move."""
        with self._door():
            return self._public(self.tables[table_id], player)

    def _public(self, table: Table, player: str | None) -> JSONDict:
        # No page of the audience lists the table's events, and the view goes to every
        # phone at each change: 60 of them were nine tenths of its bytes.
        view = self._view(table, state=table.state.observation(player), events=PUBLIC_EVENTS)
        shown = {k: v for k, v in view.items() if k not in PRIVATE_FIELDS}
        if player is not None and view["to_move"] == player:
            shown["hint"] = view["hint"]
        return shown

    def legal_actions(self, table_id: str, player: str) -> list[Any]:
        """``player``'s legal actions now, in the record notation; [] when it is not
        their turn or the game is over."""
        with self._door():
            return self.tables[table_id].legal_actions(player)

    def _view(self, table: Table, state: JSONDict | None = None, events: int | None = None) -> JSONDict:
        view = table.view(state, events)
        for b in view["layout"]:
            h = self.devices.health.get(b["board"])
            b["online"] = h is not None and h.status == "online"
        view["bot_thinking"] = self.bots.thinking(table.id)
        view["change_id"] = self.feed.last_id()
        return view

    def create_table(self, game: str, *, options: Mapping[str, Any] | None = None,
                     seats: list[Any] | None = None, boards: list[Any] | None = None,
                     seed: int | None = None, table_id: str | None = None,
                     referee: Mapping[str, Any] | None = None) -> JSONDict:
        """Create a table and return its view: :meth:`TableSpec.build` then :meth:`create`
        (see :class:`hub.tables.spec.TableSpec` for each argument)."""
        return self.create(TableSpec.build(game, options=options, seats=seats, boards=boards,
                                           seed=seed, table_id=table_id, referee=referee))

    def create(self, spec: TableSpec) -> JSONDict:
        """Create the table ``spec`` describes and return its view. Raises
        :class:`BadInputError` (the engine's own option errors included) or
        :class:`ConflictError` (a board is bound to a live table, or the id is taken)."""
        seed = spec.seed if spec.seed is not None else random.SystemRandom().randrange(2**31)
        body = spec.entry_body(seed, self.settle_s)
        with self._door():
            table_id = spec.table_id or self.tables.next_id()
            if table_id in self.tables:
                raise ConflictError(f"table id {table_id!r} is taken", "table_id_taken", table=table_id)
            for b in spec.boards:
                other = self.devices.bound.get(b["board"])
                if other is not None and not self.tables.is_over(other):
                    raise ConflictError(f"board {b['board']} is bound to table {other}", "board_bound",
                                    board=b["board"], table=other)
            table = self.tables.create(table_id, body, clock.now())  # announced by the writer
            for b in spec.boards:
                self.devices.bind(b["board"], table_id)
            self._ask_resend(b["board"] for b in spec.boards)
            self.bots.request(table_id)
            return self._view(table)

    def _ask_resend(self, boards: Iterable[str]) -> None:
        """A board heard before this hub refereed it kept its events (unacknowledged):
        ask for them now rather than wait for its resend period."""
        asks = [ingest.Ack(self.devices.links[b], b, protocol.command(0, "resend"))
                for b in boards if b in self.devices.links]
        if asks:
            self.ingest_loop.send(asks)

    def submit(self, table_id: str, inp: Mapping[str, Any], *, public: bool = False,
               version: int | None = None) -> JSONDict:
        """Apply one console/player input (see the module doc) and return the new view
        (``public``: the audience's, as :meth:`public_view` gives it).

        Stored before it is applied; on any :class:`HubError` nothing is stored or
        changed. ``version``: the ``version`` of the view the input answers; when the
        table has moved on since (another referee answered first, a palet dropped), the
        input is refused with :class:`StaleViewError`, which carries the current view.
        A hint request is answered in the view's ``hint`` and is not stored.
        """
        body = parse_input(inp)
        if "hint" in body["input"]:
            return self._hint(table_id, public)
        with self._door():
            table = self.tables[table_id]
            if version is not None and version != table.version:
                raise StaleViewError(version, self._answer(table, public))
            self._apply_checked(table, Entry.new("console", body, table_id=table_id))
            return self._answer(table, public)

    def _apply_checked(self, table: Table, entry: Entry) -> None:
        """Try the entry on a copy (a refusal raises: nothing stored, nothing changed),
        store it, then apply the stored entry to the table and announce it.

        The copy is a check only, thrown away: the table records the ids of its entries,
        and the id the store will give is not known before the commit (PostgreSQL's
        identity skips the ids of a rolled-back insert), so the stored entry is folded
        again rather than the copy kept on a guessed id. A console input or a bot's move
        is folded twice; device messages, which come by the thousand, never are."""
        table.trial().apply_entry(with_id(entry, table.applied_through + 1))  # HubError: nothing stored

        def apply(stored: list[Entry | None]) -> list[JSONDict]:
            (got,) = stored
            assert got is not None  # a console entry has no dedup key: always new
            table.apply_entry(got)
            return self.ingest_loop.took(table)

        self.writer.write([entry], apply)
        self.ingest_loop.send([])  # the commands the table asked for

    def _answer(self, table: Table, public: bool) -> JSONDict:
        """What :meth:`submit` returns: the audience's view or the referee's."""
        return self._public(table, None) if public else self._view(table)

    def _hint(self, table_id: str, public: bool) -> JSONDict:
        with self._door():
            table = self.tables[table_id]
            bot = game_bot(table.game_name)
            if bot is None:
                raise RefusedError(f"hint: the {table.game_name} engine has no bot", "no_bot", game=table.game_name)
            if table.finished:
                raise RefusedError("hint: the game is over", "game_over")
            state, version = table.state.clone(), len(table.actions)
        hint = bot.hint(state, self.bots.budget_s)
        with self._door():
            table = self.tables[table_id]
            if len(table.actions) == version:
                table.hint = dict(hint)
                self.feed.table(table_id)
            return self._answer(table, public)

    def export(self, table_id: str) -> JSONDict:
        """The table as a docs/records.md game record (``game``, ``options``, ``seed``,
        ``actions``), replayable with ``trigono replay``."""
        with self._door():
            return copy.deepcopy(self.tables[table_id].record())

    # -- the BotHost side (hub.tables.bots) -----------------------------------------------------
    def bot_turn(self, table_id: str) -> BotTurn | None:
        with self._lock:
            table = self.tables.get(table_id)
            bot = None if table is None or table.bot_to_move() is None else game_bot(table.game_name)
            if table is None or bot is None:
                return None
            return BotTurn(table_id, table.state.clone(), len(table.actions), table.seed, bot)

    def bot_thinking(self, table_id: str) -> None:
        self.feed.table(table_id)

    def bot_played(self, turn: BotTurn, action: Any) -> None:
        with self._lock:
            table = self.tables[turn.table_id]
            if len(table.actions) != turn.version or table.bot_to_move() is None:
                return
            move = table.game.action_to_json(action)
            entry = Entry.new("bot", {"input": {"move": move}, "by": "bot"}, table_id=table.id)
            try:
                self._apply_checked(table, entry)
            except HubError as err:
                log.error("bot on %s played an illegal move %s: %s", table.id, move, err)

    # -- boards ------------------------------------------------------------------------
    def boards(self) -> list[JSONDict]:
        """Health of every board seen or bound, sorted by board id (see the module doc)."""
        with self._door():
            return [self.devices.health[b].to_json() for b in sorted(self.devices.health)]

    def fleet_view(self, which: str = "all", day_start: float | None = None) -> JSONDict:
        """The fleet page (issue 33.1): ``rows`` (one per board seen or configured, most
        trouble first; ``which``: all, outdated, offline, live, trouble), ``summary`` (the
        counts of every filter), ``target`` (firmware and config), ``rollout`` (the
        current one, or None), ``actions`` (the newest logged ones) and ``now``."""
        if which not in fleet_view.FILTERS:
            raise BadInputError(f"fleet filter {which!r}: expected one of {', '.join(fleet_view.FILTERS)}",
                                "bad_filter", filter=which)
        fleet = self.fleet
        with self._door():
            now = clock.now()
            rows = fleet.rows(now, day_start)
            return {"rows": fleet_view.select(rows, which), "summary": fleet_view.summary(rows),
                    "filter": which, "target": {"fw": fleet.target.fw, "config": fleet.target.config},
                    "rollout": fleet.rollout_view(), "actions": [dict(a) for a in fleet.actions[-10:]],
                    "now": now}

    def board_action(self, board: str, action: str, *, force: bool = False) -> JSONDict:
        """Send an action to a board (identify, selftest, rearm, reboot): refused with a
        :class:`hub.fleet.service.BoardLiveError` (409) while a match is live on it, unless
        ``force``."""
        fleet = self.fleet
        with self._door():
            return fleet.act(board, action, force=force)

    def assign_board(self, board: str, table_id: str, position: str, *, force: bool = False) -> JSONDict:
        """Put ``board`` at ``position`` (an engine board) of ``table_id`` in place of the
        board there (a dead board swapped for a spare): the table's ``rebind`` input,
        stored in its log. Refused while the table has a live match unless ``force``, and
        while ``board`` serves another live table. Returns the table's view."""
        refusal = board_id.refusal(board)
        if refusal is not None:
            raise BadInputError(refusal, "bad_board_id", board=board)
        with self._door():
            table = self.tables[table_id]
            if not table.finished and not force:
                raise BoardLiveError(f"table {table_id} has a match live: assigning board {board} there refused "
                                     "(force it to do it anyway)", "table_live", board=board, table=table_id)
            other = self.devices.bound.get(board)
            if other is not None and other != table_id and not self.tables.is_over(other):
                raise ConflictError(f"board {board} is bound to table {other}", "board_bound", board=board,
                                    table=other)
            before = table.physical_boards()
            self._apply_checked(table, Entry.new("console", {"input": {"rebind": {"position": position,
                                                                                  "board": board}},
                                                             "by": "referee"}, table_id=table_id))
            for gone in set(before) - set(table.physical_boards()):
                if self.devices.bound.get(gone) == table_id:
                    del self.devices.bound[gone]
                    if gone in self.devices.health:
                        self.devices.health[gone].table = None
            self.devices.bind(board, table_id)
            self._ask_resend([board])
            self.feed.boards([board, *before])
            return self._view(table)

    def fleet_target(self, fw: str | None, config: str | None = None) -> None:
        """Set the firmware version and config hash the fleet should run (logged)."""
        fleet = self.fleet
        with self._door():
            fleet.set_target(fw, config)

    def start_rollout(self, version: str, bundle: Any, boards: list[str] | None = None,
                      canary: str | None = None, wave: int = 5) -> JSONDict:
        """Start a staged rollout (:mod:`hub.fleet.rollout`) and return its view."""
        fleet = self.fleet
        with self._door():
            out = fleet.start_rollout(version, bundle, boards, canary, wave)
        fleet.start()
        return out

    def cancel_rollout(self) -> None:
        """Stop the current rollout: the boards under way finish, no more start."""
        fleet = self.fleet
        with self._door():
            fleet.cancel_rollout()
    sync: SyncService | None = None
    """A club's publisher or the federation's consumer (issue 35), when ``--sync`` is given."""

    def attach_sync(self, sync: SyncService) -> None:
        """Run ``sync`` beside the hub (:func:`hub.sync.service.start_sync` makes it); it is
        stopped before the store closes."""
        self.sync = sync

    def sync_status(self) -> JSONDict | None:
        """Where sync with the federation stands (None: this hub does not sync). A club:
        ``{"mode": "club", "online", "last_contact", "offline_since", "waiting", …}``; the
        federation: ``{"mode": "federation", "clubs": [a row per club], "conflicts"}``."""
        return None if self.sync is None else self.sync.status()

    def settle_person(self, licence: str, club: str, by: str = "organizer") -> None:
        """Settle a person two clubs disagree on, keeping ``club``'s version (the
        federation only): an entry in this hub's log. BadInputError otherwise."""
        settle = getattr(self.sync, "settle_version", None)
        if settle is None:
            raise BadInputError("only a federation hub settles persons between clubs")
        settle(licence, club, by)

    def store_alert(self) -> str | None:
        """Why the store stopped committing for good (its file deleted or replaced), else
        None: the admin page shows it (issue 24.5)."""
        return self.store.fault

    def links(self) -> list[JSONDict]:
        """The device links the hub listens on (serial ports, MQTT broker) and their state."""
        return [t.describe() for t in self._transports]

    def unregistered(self) -> list[JSONDict]:
        """Boards heard that no table binds, for the admin to bind (a table naming the
        board) or ignore: ``{"board", "messages", "first_seen", "last_seen", "link",
        "admitted", "ignored"}``. ``admitted``: its health is kept (at most
        :data:`hub.devices.ingest.MAX_UNREGISTERED` such boards); otherwise it is only counted.
        Either way its messages are neither stored nor acknowledged (the board keeps them
        until a table binds it or :meth:`register_board`; another hub may referee it).
        ``throttled``: how many of its ``messages`` were dropped unread, over the budget of
        a board this hub does not referee (:mod:`hub.devices.flood`)."""
        with self._door():
            rows = self.devices.unregistered()
        for row in rows:
            row["throttled"] = self.ingest_loop.limit.dropped(row["board"])
            row["messages"] += row["throttled"]
        return rows

    def unrefereed_dropped(self) -> int:
        """Every message of a board this hub does not referee dropped over its budget
        (boards no longer tracked included)."""
        return self.ingest_loop.limit.total_dropped

    def register_board(self, board: str) -> None:
        """Referee ``board`` before a table binds it: its events are stored and
        acknowledged from now on (an unbound board's are only counted, issue 24.2)."""
        with self._door():
            self.devices.registered.add(board)
            self.devices.ignored.discard(board)
            self._ask_resend([board])

    def ignore_board(self, board: str) -> None:
        """Stop taking the messages of a board bound to no table (counted only); binding
        it to a table takes it back."""
        with self._door():
            self.devices.ignore(board)
            self.feed.boards([board])

    # -- the DeviceSink side (called by transports, any thread) --------------------------
    def device_message(self, transport: Transport, msg: JSONDict, link: str,
                       raw: str | None = None) -> None:
        fleet = self._fleet
        if (fleet is not None and fleet.tapping or msg.get("type") == "update_state") and self._for_transfer(msg):
            return
        self.ingest_loop.put(transport, msg, link, raw)

    def device_messages(self, transport: Transport, messages: list[tuple[JSONDict, str | None]],
                        link: str, retained: bool = False) -> None:
        fleet = self._fleet
        if fleet is not None and fleet.tapping:
            messages = [(m, r) for m, r in messages if not self._for_transfer(m)]
        self.ingest_loop.put_many(transport, messages, link, retained)

    def _for_transfer(self, msg: JSONDict) -> bool:
        """An update under way sees its board's answers (:meth:`FleetService.tap`); an
        ``update_state`` is the transfer's only, never stored."""
        fleet = self._fleet
        return fleet.tap(msg) if fleet is not None else msg.get("type") == "update_state"

    def device_status(self, transport: Transport, board: str, status: str, link: str) -> None:
        self.device_message(transport, {"type": "status", "board": board, "status": status}, link)

    def device_corrupt(self, transport: Transport, link: str, reason: str, board: str | None) -> None:
        self.ingest_loop.corrupt(link, reason, board)

    # -- timers (the ingest loop's timer thread) ----------------------------------------
    def tick(self, now: float) -> bool:
        """One tick of the timer (:meth:`hub.devices.ingest_loop.IngestLoop.tick`): tests
        drive it with their own clock."""
        return self.ingest_loop.tick(now)

    @property
    def applied_hook(self) -> Callable[[list[JSONDict]], None] | None:
        """Called (ingest thread, outside the lock) with each batch of applied device
        messages; the benchmark measures latency with it."""
        return self.ingest_loop.applied_hook

    @applied_hook.setter
    def applied_hook(self, hook: Callable[[list[JSONDict]], None] | None) -> None:
        self.ingest_loop.applied_hook = hook

    # -- live feed ---------------------------------------------------------------------
    def last_change_id(self) -> int:
        """The id of the newest change (start an SSE stream from here)."""
        return self.feed.last_id()

    def changes_since(self, last_id: int, timeout: float) -> list[JSONDict]:
        """See :meth:`hub.log.changes.ChangeFeed.since`."""
        return self.feed.since(last_id, timeout)

    @property
    def closed(self) -> bool:
        """The hub has been closed: its change feed answers at once, with nothing."""
        return self.feed.closed
