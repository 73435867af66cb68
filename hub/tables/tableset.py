"""The hub's tables: loaded ones, dormant finished ones, and their snapshots.

A table is rebuilt from the log (R1): its latest snapshot plus the entries after it, or
all its entries. Snapshots bound the replay at restart: one is due every
:data:`SNAPSHOT_EVERY` entries of a table and taken when the hub is idle
(:meth:`TableSet.snapshot_due`), or at once after :data:`SNAPSHOT_CAP`; a finished game
gets its summary saved, and every changed table is snapshotted at close. A finished game is not loaded at
restart at all — its snapshot's summary is enough until someone opens it (a festival
day leaves many of those); then its snapshot and the few entries after it (sensor
events it ignored) are read.

A running hub does the same with the matches that finish while it runs (issue 32.7: a
festival day of 739 matches took 85 → 270 MB, given back only at restart): it keeps the
:data:`KEEP_FINISHED` finished tables used last loaded (the dashboard shows the newest
finished ones, the pages open a few more) and puts the others to sleep
(:meth:`TableSet.retire_finished`: a snapshot if it changed since its last one, then only
its summary stays); opening one reads it back from the store, identical (R1).

Not thread-safe by itself: the hub calls it under its lock.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Any

from engines import GAMES
from hub.errors import BadInputError, HubError, UnknownTableError
from hub.log.store import Entry, EventStore
from hub.log.writer import LogWriter
from hub.tables.referee import TrigonoTable
from hub.tables.table import SNAPSHOT_FORMAT, Table, default_players, game_bot

JSONDict = dict[str, Any]
SNAPSHOT_EVERY = 200  # entries of one table after which a snapshot is due (taken when idle)
SNAPSHOT_CAP = 2000  # ... and taken at once, busy or not (a full dump costs ~2.6 ms)
# Finished tables kept loaded, the ones used last: twice the newest finished ones each
# dashboard snapshot shows (web.feed.RECENT_FINISHED), so building one loads none of them.
KEEP_FINISHED = 16
log = logging.getLogger("hub")


def make_table(table_id: str, spec: Mapping[str, Any], created_at: float) -> Table:
    """The table for a ``create`` entry's body: refereed from its sensor boards for a game
    played on them (its type's ``sensor_boards``)."""
    cls = TrigonoTable if GAMES[spec["game"]].game_type.sensor_boards else Table
    return cls(table_id, spec, created_at)


class TableSet:
    """Every table in the store, by id."""

    def __init__(self, writer: LogWriter) -> None:
        self.store: EventStore = writer.store
        self.writer = writer  # the hub's one door into its log
        self._tables: dict[str, Table] = {}
        self._dormant: dict[str, JSONDict] = {}  # finished, not loaded: id -> summary
        self._snapshot_at: dict[str, int] = {}
        self._since_snapshot: dict[str, int] = {}  # entries applied since the last snapshot
        self._due: dict[str, None] = {}  # tables whose snapshot waits for an idle moment
        self._final: dict[str, JSONDict] = {}  # summary saved since the game ended
        # Loaded finished tables, the one used last at the end (retire_finished).
        self._finished: OrderedDict[str, None] = OrderedDict()

    def restore(self) -> dict[str, str]:
        """Rebuild every table from the store; returns physical board → table id."""
        bound: dict[str, str] = {}
        heads = self.store.snapshot_heads()
        for table_id, _first, _last in self.store.table_spans():
            head = heads.get(table_id)
            if head is not None and head[1]:  # over: later entries (ignored drops) can wait
                self._dormant[table_id] = head[2]
                self._snapshot_at[table_id] = head[0]
                for board in head[2].get("boards", []):
                    bound[board] = table_id
                continue
            table = self._load(table_id)
            for board in table.physical_boards():
                bound[board] = table_id
        return bound

    def _load(self, table_id: str) -> Table:
        """Build one table from its snapshot and the entries after it (or all of them)."""
        snap = self.store.snapshot(table_id)
        if snap is not None and snap[1]["table"].get("format") != SNAPSHOT_FORMAT:
            # An older hub's cache (hub.tables.table.SNAPSHOT_FORMAT): fold the log again,
            # and take a snapshot of this format when the hub is idle (once, not at every start).
            snap = None
            self._snapshot_at.pop(table_id, None)
            self._due[table_id] = None
        table: Table | None = None
        if snap is not None:
            entry_id, data = snap
            table = make_table(table_id, data["spec"], data["created_at"])
            table.load(data["table"])
            self._snapshot_at[table_id] = entry_id
            entries = self.store.entries(table_id, after=entry_id)
        else:
            entries = self.store.entries(table_id)
        for entry in entries:
            if table is None:
                table = make_table(table_id, entry.body["create"], entry.at)
                table.applied_through = entry.id or 0
                continue
            try:
                table.apply_entry(entry)
            except HubError as err:  # stored inputs were valid; keep going regardless
                log.error("replay of entry %s on %s: %s", entry.id, table_id, err)
        assert table is not None, f"table {table_id} has no create entry"
        table.take_commands()  # asked in the past: a replay sends nothing
        self._tables[table_id] = table
        self._dormant.pop(table_id, None)
        if table.finished:
            self._finished[table_id] = None
        return table

    # -- reading -----------------------------------------------------------------------
    def get(self, table_id: str) -> Table | None:
        """A table, loading a dormant one on first use. Never puts one to sleep (a
        caller may hold several tables at once): :meth:`retire_finished` does that, after
        an applied entry and when the hub is idle."""
        table = self._tables.get(table_id)
        if table is None and table_id in self._dormant:
            table = self._load(table_id)
        elif table_id in self._finished:
            self._finished.move_to_end(table_id)  # used: the last to go to sleep
        return table

    def __getitem__(self, table_id: str) -> Table:
        """The table; :class:`UnknownTableError` if there is none."""
        table = self.get(table_id)
        if table is None:
            raise UnknownTableError(f"no table {table_id!r}", "unknown_table", table=table_id)
        return table

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._tables or table_id in self._dormant

    def __len__(self) -> int:
        return len(self._tables) + len(self._dormant)

    def loaded(self) -> Iterator[Table]:
        """The loaded tables (dormant ones are finished: nothing to do for them)."""
        return iter(list(self._tables.values()))

    def is_dormant(self, table_id: str) -> bool:
        return table_id in self._dormant

    def is_over(self, table_id: str) -> bool:
        """Whether the table's game is over, without loading a dormant one."""
        return table_id in self._dormant or self[table_id].finished

    def summaries(self) -> list[JSONDict]:
        """A summary of every table, oldest first."""
        tables = [(t.created_at, t.summary()) for t in self._tables.values()]
        tables += [(s["created_at"], s) for s in self._dormant.values()]
        return [dict(summary) for _, summary in sorted(tables, key=lambda t: t[0])]

    def next_id(self) -> str:
        """The first free id ``tN`` from N = number of tables + 1."""
        n = len(self) + 1
        while f"t{n}" in self:
            n += 1
        return f"t{n}"

    # -- changing ----------------------------------------------------------------------
    def create(self, table_id: str, body: JSONDict, now: float) -> Table:
        """Make the table a ``create`` body describes, store that entry, add the table.
        BadInputError (nothing stored) when the engine refuses the options or a bot seat
        is asked of a game without bots."""
        try:
            table = make_table(table_id, body, now)
        except ValueError as err:  # the engine's option errors (GameError)
            raise BadInputError(str(err)) from None
        if not body["seats"]:
            body["seats"] = table.seats = [
                {"name": p, "bot": False} for p in default_players(table.printed())]
        if any(s["bot"] for s in table.seats) and game_bot(table.game_name) is None:
            raise BadInputError(f"seats: the {table.game_name} engine has no bot yet", "no_bot", game=table.game_name)
        def add(stored: list[Entry | None]) -> list[JSONDict]:
            (entry,) = stored
            assert entry is not None and entry.id is not None
            table.applied_through = entry.id
            self.put(table)
            return [{"kind": "tables"}, {"kind": "table", "table": table_id}]

        self.writer.write([Entry.new("console", {"create": body}, table_id=table_id, at=now)], add)
        return table

    def put(self, table: Table) -> None:
        """Add a new table, or replace one by the copy that took an entry."""
        self._tables[table.id] = table

    def applied(self, table: Table) -> None:
        """One more entry was applied to ``table``: snapshot it when due; when it is
        finished, keep it among the finished tables used last, and put the finished
        tables beyond :data:`KEEP_FINISHED` to sleep."""
        self.used(table)
        self._count_applied(table)
        self.retire_finished()

    def used(self, table: Table) -> None:
        """``table`` just took an entry: a finished one is the last to go to sleep."""
        if table.finished:
            self._finished[table.id] = None
            self._finished.move_to_end(table.id)

    def _count_applied(self, table: Table) -> None:
        since = self._since_snapshot[table.id] = self._since_snapshot.get(table.id, 0) + 1
        if since >= SNAPSHOT_CAP:
            self.save_snapshot(table)
        elif since >= SNAPSHOT_EVERY:
            self._due[table.id] = None  # a drain of queued events does not pay for it
        elif table.finished and self._final.get(table.id) != (summary := table.summary()):
            # The match just ended (or its summary changed since: archived): a restart
            # needs only its summary (the table restarts dormant). No full dump on the
            # ingest path: opening the table later replays the entries after its last
            # full snapshot.
            self.store.save_final(table.id, summary)
            self._final[table.id] = summary

    def save_snapshot(self, table: Table) -> None:
        final = table.finished
        # Only a finished table's summary is read back (dormant restart): printing the
        # state for every periodic snapshot would cost a full copy of its log.
        summary = table.summary() if final else {}
        self.store.save_snapshot(table.id, table.applied_through, {
            "spec": table.spec, "created_at": table.created_at, "table": table.dump()},
            summary=summary, final=final)
        if final:
            self._final[table.id] = summary
        self._snapshot_at[table.id] = table.applied_through
        self._since_snapshot[table.id] = 0
        self._due.pop(table.id, None)

    def retire_finished(self, keep: int = KEEP_FINISHED) -> int:
        """Put to sleep the loaded finished tables beyond the ``keep`` used last (see the
        module doc); returns how many. Each keeps only its summary in memory; its
        snapshot is saved first if it took entries since its last one, so opening it
        again replays none of its log. The hub calls this after each applied entry and
        when idle (tables opened by pages alone), a read-only hub after each catch-up."""
        retired = 0
        while len(self._finished) > keep:
            table_id, _ = self._finished.popitem(last=False)
            table = self._tables.pop(table_id, None)
            if table is None or not table.finished:  # reopened by an undo: awake again
                if table is not None:
                    self._tables[table_id] = table
                continue
            if table.applied_through > self._snapshot_at.get(table_id, 0):
                self.save_snapshot(table)
            self._dormant[table_id] = table.summary()
            for per_table in (self._since_snapshot, self._due, self._final):
                per_table.pop(table_id, None)
            retired += 1
        return retired

    def snapshot_due(self, limit: int = 1) -> int:
        """Take up to ``limit`` due snapshots (the hub's timer, when no device message
        waits) and put the finished tables beyond :data:`KEEP_FINISHED` to sleep;
        returns how many snapshots were taken."""
        self.retire_finished()
        taken = 0
        for table_id in list(self._due)[:limit]:
            table = self._tables.get(table_id)
            self._due.pop(table_id, None)
            if table is not None:
                self.save_snapshot(table)
                taken += 1
        return taken

    def snapshot_changed(self) -> None:
        """Snapshot every loaded table changed since its last snapshot (at close)."""
        for table_id, table in self._tables.items():
            if table.applied_through > self._snapshot_at.get(table_id, 0):
                self.save_snapshot(table)
