"""Calls for a referee (issue 34.5): a player's phone or a table's public page asks for
one; the request — the table, who asked, when — shows on the referee console and the big
screen until a referee takes it.

Requests are log entries (``source = "assist"``, no table id, body ``{"assist": {...}}``),
written through the hub's one :class:`~hub.log.writer.LogWriter` like every other entry:
stored, then folded here, then announced on the change feed as ``{"kind": "assist"}``
(the web's stream sends the open requests to every page). A restart folds them again
(from the snapshot the hub's close kept, then the log after it).

- ``{"type": "request", "table", "who", "tournament"?, "place"?}`` (``place``: where the
  players are, as they call it — a tournament's station — when it is not the table's id): refused while the table has a
  request open (one per table: the second press says so), and within
  :data:`COOLDOWN_S` of the table's last request (a phone pressed in a loop is not a
  queue of referees);
- ``{"type": "take", "table", "by"}``: a referee takes the table's open request.

>>> from hub.log.sqlite import SqliteStore
>>> desk = AssistDesk(LogWriter(SqliteStore(":memory:"), None), clock=lambda: 100.0)
>>> desk.request("T1-m3", "Ana")["table"]
'T1-m3'
>>> desk.request("T1-m3", "Ben")
Traceback (most recent call last):
...
hub.errors.RefusedError: table 'T1-m3' has called a referee already
>>> desk.take("T1-m3", "referee")["by"], desk.open_requests()
('referee', [])
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from hub.errors import BadInputError, RefusedError
from hub.log import clock as hub_clock
from hub.log.store import Entry
from hub.log.writer import LogWriter

JSONDict = dict[str, Any]
SOURCE = "assist"
COOLDOWN_S = 60.0
SNAPSHOT_KEY = "assist/calls"  # never a table id: hub.tables.spec.check_table_id refuses "/"
MAX_TEXT = 80


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise BadInputError(f"{what}: expected a text of 1 to {MAX_TEXT} characters", "assist_bad_input", what=what)
    return value.strip()


class AssistDesk:
    """The open requests for a referee (module doc), the fold of the ``assist`` entries."""

    def __init__(self, writer: LogWriter, *, clock: Callable[[], float] = hub_clock.now) -> None:
        self.writer = writer
        self.clock = clock
        self._lock: threading.RLock = writer.lock
        self._open: dict[str, JSONDict] = {}
        self._last: dict[str, float] = {}
        self._through = 0  # the newest entry folded
        snap = writer.store.snapshot(SNAPSHOT_KEY)
        if snap is not None:  # the calls as the last close left them, then the log after
            self._through = snap[0]
            self._open = {str(r["table"]): dict(r) for r in snap[1].get("open", [])}
            self._last = {str(k): float(v) for k, v in snap[1].get("last", {}).items()}
        for entry in writer.store.entries(after=self._through):
            self.follow(entry)

    def snapshot(self) -> None:
        """Keep the open calls in the store's snapshot table (the hub closes), so the
        next start reads only the log after it instead of the whole log."""
        with self._lock:
            data = {"open": list(self._open.values()), "last": dict(self._last)}
            self.writer.store.save_snapshot(SNAPSHOT_KEY, self.writer.store.last_id(), data, summary={}, final=False)

    def follow(self, entry: Entry) -> bool:
        """Fold an entry read from the log, if it is a call not folded yet (a read-only
        replica follows the log another hub writes, :mod:`hub.replica`); whether it was."""
        if (entry.source != SOURCE or entry.table_id is not None or entry.id is None
                or entry.id <= self._through or not isinstance(entry.body.get("assist"), dict)):
            return False
        with self._lock:
            self._fold(entry.body["assist"], entry.at, entry.id)
        return True

    def _fold(self, body: JSONDict, at: float, entry_id: int | None) -> JSONDict:
        self._through = max(self._through, entry_id or 0)
        table = str(body.get("table"))
        if body.get("type") == "request":
            request = {"id": entry_id, "table": table, "who": body.get("who"), "at": at,
                       "tournament": body.get("tournament"), "place": body.get("place") or table}
            self._open[table] = request
            self._last[table] = at
            return request
        taken = {**self._open.pop(table, {"table": table}), "by": body.get("by"), "taken_at": at}
        return taken

    def open_requests(self) -> list[JSONDict]:
        """The requests no referee has taken yet, oldest first."""
        with self._lock:
            return sorted((dict(r) for r in self._open.values()), key=lambda r: float(r["at"]))

    def request(self, table: str, who: str, *, tournament: str | None = None,
                place: str | None = None) -> JSONDict:
        """Ask for a referee at ``table`` (refused: one open per table, a cooldown)."""
        table, who = _text(table, "table"), _text(who, "who")
        with self._lock:
            now = self.clock()
            if table in self._open:
                raise RefusedError(f"table {table!r} has called a referee already", "assist_open", table=table)
            wait = COOLDOWN_S - (now - self._last.get(table, -COOLDOWN_S))
            if wait > 0:
                raise RefusedError(f"table {table!r} called a referee a moment ago: wait {wait:.0f} s",
                                   "assist_cooldown", table=table, seconds=round(wait))
            body: JSONDict = {"type": "request", "table": table, "who": who}
            if tournament:
                body["tournament"] = _text(tournament, "tournament")
            if place:
                body["place"] = _text(place, "place")
            return self._write(body, now)

    def take(self, table: str, by: str) -> JSONDict:
        """A referee takes the table's open request (refused when none is open)."""
        table = _text(table, "table")
        with self._lock:
            if table not in self._open:
                raise RefusedError(f"no call for a referee is open at table {table!r}", "assist_none", table=table)
            return self._write({"type": "take", "table": table, "by": _text(by, "by")}, self.clock())

    def _write(self, body: JSONDict, at: float) -> JSONDict:
        done: list[JSONDict] = []

        def apply(stored: list[Entry | None]) -> list[JSONDict]:
            entry = stored[0]
            assert entry is not None  # no dedup key: always new
            done.append(self._fold(body, at, entry.id))
            return [{"kind": "assist", "table": body["table"]}]

        self.writer.write([Entry.new(SOURCE, {"assist": body}, at=at)], apply)
        return done[0]
