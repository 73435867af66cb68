"""The live stream: one reader of the hub's change feed, fanned out to every browser.

One background thread asks the hub for changes (``Hub.changes_since``), fetches each
changed table's view once, encodes it once as a server-sent-events frame and keeps the
frame in a ring. Every open stream waits on one condition and writes the frames after
its cursor: the cost per change is one hub call and one JSON encoding, whatever the
number of viewers. Event ids are the hub's change ids, so a browser that reconnects with
``Last-Event-ID`` gets exactly what it missed; when that is older than the ring (or the
hub says ``reset``) it gets a fresh ``snapshot`` instead.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from hub.api import jsonlimits
from web.readiness import board_states

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]

RECENT_FINISHED = 8  # finished tables a snapshot still shows (newest)
BOARDS_EVERY_S = 1.0  # board health goes out at most this often (every message changes it)
# Board health and board states go out under an id a viewer may already have (held back,
# then sent under the newest id): a stream sends them whatever its cursor.
HEALTH_KINDS = ("boards", "board_states")


def sse_frame(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One server-sent event. Compact JSON never holds a raw newline, so one data line.

    >>> sse_frame("table", {"id": "t1", "name": "Zoé"}, 5).decode()
    'id: 5\\nevent: table\\ndata: {"id":"t1","name":"Zoé"}\\n\\n'
    """
    head = f"id: {event_id}\n" if event_id is not None else ""
    # orjson: the same compact UTF-8 as json.dumps(ensure_ascii=False), ten times faster
    # (each change is encoded once, but at 10 a second).
    try:
        body = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        # Text with no UTF-8 form (a lone surrogate the edges now refuse, from an older
        # log) must not blank every screen: it goes out as U+FFFD.
        if jsonlimits.is_encodable(data):
            raise
        _log_once("a %s frame held text with no UTF-8 form: sent with U+FFFD", event)
        body = orjson.dumps(jsonlimits.encodable(data), option=orjson.OPT_NON_STR_KEYS)
    return b"%sevent: %s\ndata: %s\n\n" % (head.encode(), event.encode(), body)


_logged: set[str] = set()


def _log_once(message: str, *args: Any) -> None:
    """One log line per kind of fault, not one per frame (a feed encodes 10 a second)."""
    if message not in _logged:
        _logged.add(message)
        log.warning(message, *args)


def is_event_id(text: str) -> bool:
    """An id the feed may have sent: ASCII digits, at most 20 (``str.isdigit`` alone takes
    "²", which ``int`` refuses, and ``int`` refuses 5,000 digits).

    >>> is_event_id("42"), is_event_id("\u00b2"), is_event_id("9" * 5000), is_event_id("-1")
    (True, False, False, False)
    """
    return 0 < len(text) <= 20 and text.isascii() and text.isdigit()


@dataclass(frozen=True)
class StreamEvent:
    id: int
    kind: str  # "table", "table_removed", "tables", "boards", "board_states", "snapshot", "tournament"
    table: str | None
    frame: bytes


class Feed:
    """Reads the hub's change feed in one thread and serves it to many streams."""

    def __init__(self, hub: Any, history: int = 4096, poll_s: float = 1.0) -> None:
        self.hub = hub
        self.poll_s = poll_s
        self._cond = threading.Condition()
        self._events: deque[StreamEvent] = deque()
        self._history = history
        self._floor = 0  # every event with an id above this is in the ring
        self._last_id = 0  # newest event published to the streams
        self._cursor = 0  # newest hub change read (some are held back: board health)
        self._snapshot: tuple[int, bytes] | None = None
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        self._start_lock = threading.Lock()
        self._boards_pending: int | None = None  # newest board change not yet sent
        self._boards_sent_at = 0.0
        self._states: list[JSONDict] | None = None  # the board states last pushed
        self._listeners: list[Callable[[list[StreamEvent]], None]] = []

    # -- life cycle ------------------------------------------------------------------
    def start(self) -> None:
        with self._start_lock:
            if self._thread is not None:
                return
            self._cursor = self._last_id = self._floor = int(self.hub.last_change_id())
            self._thread = threading.Thread(target=self._run, name="web-feed", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        with self._cond:
            self._cond.notify_all()
        # The reader may sit in the hub's long poll for up to poll_s; it is a daemon and
        # leaves at its next wake-up without touching the hub again.

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    @property
    def last_id(self) -> int:
        return self._last_id

    def add_listener(self, listener: Callable[[list[StreamEvent]], None]) -> None:
        """Call ``listener(events)`` from the reader thread after each publish, in order
        (the event-loop server hands them to its loop this way)."""
        self._listeners.append(listener)

    # -- reading the hub ---------------------------------------------------------------
    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                changes = self.hub.changes_since(self._cursor, self._wait_s())
                if self._stopped.is_set() or (not changes and self.hub.closed):
                    # A closed hub answers at once: asking again would spin (every app
                    # left running by a test once held a core this way).
                    return
                if changes:
                    self._cursor = max(self._cursor, max(int(c["id"]) for c in changes))
                events = self._encode(changes) if changes else []
                events += self._due_boards()
                self._publish(events)
            except Exception:  # keep the stream alive through a hub hiccup
                if self._stopped.is_set():
                    return
                log.exception("reading the hub's change feed failed")
                self._stopped.wait(1.0)

    def _wait_s(self) -> float:
        """How long to wait for the hub's next change: no longer than until held-back board
        health is due (a board that dropped out shows within a second, not two)."""
        if self._boards_pending is None:
            return self.poll_s
        due_in = BOARDS_EVERY_S - (time.monotonic() - self._boards_sent_at)
        return max(0.0, min(self.poll_s, due_in))

    def _encode(self, changes: Iterable[JSONDict]) -> list[StreamEvent]:
        # Several changes of one table in one batch need only its newest view.
        newest: dict[tuple[str, str], int] = {}
        for change in changes:
            kind = str(change.get("kind"))
            if kind == "table":
                key = ("table", str(change.get("table")))
            elif kind == "board":
                key = ("boards", "")
            elif kind == "assist":  # the open calls for a referee, whichever table changed
                key = ("assist", "")
            elif kind == "tournament":  # {"id", "entries"}: its pages reload when they are behind
                key = ("tournament", f"{change.get('tournament')}/{change.get('entries')}")
            else:
                key = (kind, "")
            newest[key] = max(int(change["id"]), newest.get(key, 0))
        if ("boards", "") in newest:
            # Held back and sent by _due_boards, at most once per BOARDS_EVERY_S.
            self._boards_pending = newest.pop(("boards", ""))
        events = []
        for (kind, table), event_id in sorted(newest.items(), key=lambda kv: kv[1]):
            try:
                events.append(self._event(kind, table, event_id))
            except Exception:  # one table's fault must not hold back the others' updates
                log.exception("the live feed skipped %s %s (change %d)", kind, table, event_id)
        return events

    def _due_boards(self) -> list[StreamEvent]:
        if self._boards_pending is None or time.monotonic() - self._boards_sent_at < BOARDS_EVERY_S:
            return []
        event_id, self._boards_pending = self._boards_pending, None
        self._boards_sent_at = time.monotonic()
        # Ids in the ring never go down (streams scan it from the newest end).
        event_id = max(event_id, self._last_id)
        health = self.hub.boards()
        events = [StreamEvent(event_id, "boards", None, sse_frame("boards", health, event_id))]
        # Every page showing a board (the console, the table page, the big screen) follows
        # its state; that goes to every stream, only when a state changed (issue 32.9).
        states = board_states(health)
        if states != self._states:
            self._states = states
            events.append(StreamEvent(event_id, "board_states", None, sse_frame("board_states", states, event_id)))
        return events

    def _event(self, kind: str, table: str, event_id: int) -> StreamEvent:
        if kind == "table":
            try:
                view = self.hub.public_view(table)
            except ValueError:  # the table went away
                return StreamEvent(event_id, "table_removed", table, sse_frame("table_removed", {"id": table}, event_id))
            return StreamEvent(event_id, "table", table, sse_frame("table", view, event_id))
        if kind == "boards":
            return StreamEvent(event_id, "boards", None, sse_frame("boards", self.hub.boards(), event_id))
        if kind == "tournament":
            tid, entries = table.rsplit("/", 1)  # a tournament id has no "/"
            return StreamEvent(event_id, "tournament", f"tournament/{tid}",
                               sse_frame("tournament", {"id": tid, "entries": int(entries)}, event_id))
        if kind == "assist":
            return StreamEvent(event_id, "assist", None, sse_frame("assist", self.hub.assist.open_requests(), event_id))
        if kind == "tables":
            return StreamEvent(event_id, "tables", None, sse_frame("tables", self.hub.list_tables(), event_id))
        # "reset" and anything unknown: everything again.
        return StreamEvent(event_id, "snapshot", None, sse_frame("snapshot", self.snapshot_data(), event_id))

    def _publish(self, events: list[StreamEvent]) -> None:
        if not events:
            return
        with self._cond:
            for event in events:
                self._events.append(event)
                self._last_id = max(self._last_id, event.id)
            while len(self._events) > self._history:
                dropped = self._events.popleft()
                self._floor = dropped.id
            self._snapshot = None
            self._cond.notify_all()
        for listener in self._listeners:
            listener(events)

    # -- serving streams -----------------------------------------------------------------
    def snapshot_data(self) -> JSONDict:
        """Every table in play and the most recent finished ones (a festival piles up
        finished matches; the hub keeps those dormant and loading them all costs)."""
        summaries = self.hub.list_tables()
        finished = [s for s in summaries if s.get("status") != "playing"][-RECENT_FINISHED:]
        shown = [s for s in summaries if s.get("status") == "playing" or s in finished]
        tables = []
        for summary in shown:
            try:
                tables.append(self.hub.public_view(str(summary["id"])))
            except ValueError:
                continue
            except Exception:  # one table's fault must not leave new viewers with none
                log.exception("the snapshot skipped table %s", summary.get("id"))
        health = self.hub.boards()
        return {"tables": tables, "boards": health, "board_states": board_states(health),
                "assist": self.hub.assist.open_requests()}

    def cached_snapshot(self) -> tuple[int, bytes] | None:
        """The snapshot frame if it is still current, without asking the hub."""
        with self._cond:
            cached = self._snapshot
            return cached if cached is not None and cached[0] == self._last_id else None

    def snapshot(self) -> tuple[int, bytes]:
        """The current snapshot frame and the id it stands for (cached until a change)."""
        with self._cond:
            cached = self._snapshot
            event_id = self._last_id
        if cached is not None and cached[0] == event_id:
            return cached
        frame = sse_frame("snapshot", self.snapshot_data(), event_id)
        with self._cond:
            if self._last_id == event_id:
                self._snapshot = (event_id, frame)
        return event_id, frame

    def events_between(self, after: int, upto: int) -> list[StreamEvent] | None:
        """Events with ``after < id <= upto``, without waiting; None when ``after`` is
        older than the ring or newer than anything published (a snapshot is needed)."""
        with self._cond:
            if after < self._floor or after > self._last_id:
                return None
            newer: list[StreamEvent] = []
            for event in reversed(self._events):
                if event.id <= after:
                    break
                if event.id <= upto:
                    newer.append(event)
            newer.reverse()
            return newer

    def events_after(self, last_id: int, timeout: float) -> list[StreamEvent] | None:
        """Events with an id above ``last_id``, waiting up to ``timeout`` for one.

        None means ``last_id`` is older than the ring (or from the future: another hub's
        ids): the caller must send a snapshot.
        """
        with self._cond:
            if last_id < self._floor or last_id > self._last_id:
                return None
            if last_id == self._last_id:
                self._cond.wait(timeout)
            newer: list[StreamEvent] = []
            for event in reversed(self._events):  # new events sit at the right end
                if event.id <= last_id:
                    break
                newer.append(event)
            newer.reverse()
            return newer

    def stream(
        self, last_id: int | None, heartbeat_s: float, table: str | None = None, boards: bool = False
    ) -> Iterator[bytes]:
        """The frames of one browser's stream: a snapshot when needed, then live events
        (of one ``table`` only if given; board health only if ``boards``)."""
        yield b"retry: 2000\n\n"
        cursor = last_id
        while not self._stopped.is_set():
            if cursor is None:
                cursor, frame = self.snapshot()
                yield frame
                continue
            events = self.events_after(cursor, heartbeat_s)
            if events is None:
                cursor = None
                continue
            if not events:
                yield b": keep-alive\n\n"
                continue
            chunk = b"".join(e.frame for e in newest_per_table(events) if wanted(e, table, boards))
            if chunk:
                yield chunk
            cursor = events[-1].id


def newest_per_table(events: list[StreamEvent]) -> list[StreamEvent]:
    """A client that fell behind needs only each table's newest view (a view is complete;
    announcements come from the log, which the newest view holds whole). One write then
    carries them all.

    >>> e = [StreamEvent(1, "table", "t1", b"a"), StreamEvent(2, "table", "t2", b"b"),
    ...      StreamEvent(3, "table", "t1", b"c")]
    >>> [x.id for x in newest_per_table(e)]
    [2, 3]
    """
    if len(events) < 2:
        return events
    last = {e.table: e.id for e in events if e.kind == "table"}
    return [e for e in events if e.kind != "table" or last[e.table] == e.id]


def wanted(event: StreamEvent, table: str | None, boards: bool) -> bool:
    """Board health only to the pages that show it (``boards``); board states to all."""
    if event.kind == "boards":
        return boards
    return table is None or event.table in (None, table)
