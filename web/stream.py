"""The live stream served from an event loop: no thread per viewer.

:class:`web.feed.Feed` reads the hub's change feed in one thread and encodes each change
once as a server-sent-events frame. :class:`StreamFanout` takes those frames onto the
server's event loop and writes them to every open ``/api/stream`` response, in one
pass: viewers are grouped by what they asked for (every table or one, board health or
not), each group's bytes are joined once, and each viewer costs one socket write.

Writes are tried at once; only a write that has to wait for a slow socket gets a task
of its own, and until it is done that viewer's later frames are *held*, newest per
table (a view is complete), never queued: a phone that stops reading costs at most its
socket buffer plus one frame per table. A viewer that goes away frees its slot as soon
as the server sees the connection close.

Browsers reconnect with ``Last-Event-ID`` (or ``?last_event_id=``) and get exactly the
events they missed from the feed's ring, or a fresh snapshot when that is too old.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable, Coroutine, Iterable, MutableMapping
from typing import Any, Protocol, cast
from urllib.parse import parse_qs

from web.feed import HEALTH_KINDS, Feed, StreamEvent, is_event_id, newest_per_table, wanted

log = logging.getLogger(__name__)

Message = MutableMapping[str, Any]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

RETRY = b"retry: 2000\n\n"
HIGH_WATER = 64 * 1024  # bytes waiting in a viewer's transport: above, hold its frames
LOW_WATER = 16 * 1024  # ... until it is down to this
UNBLOCK_EVERY_S = 0.25
SOCKET_SEND_BUFFER = 64 * 1024
KEEP_ALIVE = b": keep-alive\n\n"
HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
    (b"x-content-type-options", b"nosniff"),
]

Group = tuple[str | None, bool]  # (only this table, with board health)


class Slots(Protocol):
    """What :class:`StreamFanout` needs of ``web.app.StreamSlots``."""

    def acquire(self) -> bool: ...

    def release(self) -> None: ...


class Viewer:
    """One open stream: where it is (``cursor``), what it wants, what it holds back."""

    __slots__ = ("send", "transport", "group", "cursor", "busy", "held", "task")

    def __init__(self, send: Send, group: Group, cursor: int) -> None:
        self.send = send
        self.transport = raw_transport(send)
        self.group = group
        self.cursor = cursor
        self.busy = False  # a write is waiting for the socket
        self.held: dict[str, StreamEvent] = {}  # newest event per table while busy
        self.task: asyncio.Task[Any] | None = None

    def hold(self, events: Iterable[StreamEvent]) -> None:
        """Keep only what a late reader needs: each table's newest view, the newest list
        and board health; a snapshot replaces everything before it.

        >>> v = Viewer(send=None, group=(None, False), cursor=0)  # type: ignore[arg-type]
        >>> v.hold([StreamEvent(1, "table", "t1", b"a"), StreamEvent(2, "table", "t2", b"b"),
        ...         StreamEvent(3, "table", "t1", b"c")])
        >>> v.take_held(), v.cursor
        (b'bc', 3)
        """
        for event in events:
            if event.kind == "snapshot":
                self.held.clear()
            self.held[event.table or event.kind] = event

    def take_held(self) -> bytes:
        events = sorted(self.held.values(), key=lambda e: e.id)
        self.held.clear()
        if events:
            self.cursor = max(self.cursor, events[-1].id)
        return b"".join(e.frame for e in events)


class StreamFanout:
    """Serves ``GET /api/stream`` as an ASGI endpoint from the feed's frames."""

    def __init__(self, feed: Feed, slots: Slots, heartbeat_s: float = 15.0) -> None:
        self.feed = feed
        self.slots = slots
        self.heartbeat_s = heartbeat_s
        self.groups: dict[Group, set[Viewer]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._delivered = 0  # newest event id written on the loop
        self._snapshot_job: asyncio.Future[tuple[int, bytes]] | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._blocked: set[Viewer] = set()  # busy viewers written to directly
        self._closed = False

    @property
    def open(self) -> int:
        return sum(len(g) for g in self.groups.values())

    # -- joining the loop ------------------------------------------------------------------
    def _bind(self) -> None:
        if self._loop is not None:
            return
        loop = self._loop = asyncio.get_running_loop()
        self.feed.start()
        self._delivered = self.feed.last_id

        def from_feed_thread(events: list[StreamEvent]) -> None:
            try:
                loop.call_soon_threadsafe(self._publish, events)
            except RuntimeError:  # the loop is closed: the server has stopped
                pass

        self.feed.add_listener(from_feed_thread)
        self._heartbeat = loop.create_task(self._beat())

    def close(self) -> None:
        """End every stream (thread-safe); the server can then stop."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._close)
        except RuntimeError:
            pass

    def _close(self) -> None:
        self._closed = True
        if self._heartbeat is not None:
            self._heartbeat.cancel()
        for group in self.groups.values():
            for viewer in group:
                if viewer.task is not None:
                    viewer.task.cancel()

    # -- one viewer --------------------------------------------------------------------------
    async def serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI endpoint: headers, the snapshot or what was missed, then live frames
        until the client goes."""
        self._bind()
        if self._closed or not self.slots.acquire():
            await refuse(send, 503, b"too many live connections")
            return
        try:
            await self._serve(scope, receive, send)
        finally:
            self.slots.release()

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        table = (query.get("table") or [""])[0] or None
        boards = (query.get("boards") or [""])[0] == "1"
        raw = header(scope, b"last-event-id") or (query.get("last_event_id") or [""])[0]
        if raw and not is_event_id(raw):
            await refuse(send, 400, b"bad Last-Event-ID: expected the id of an event sent")
            return
        cursor = int(raw) if raw else None
        group: Group = (table, boards)

        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        head = [RETRY]
        while True:
            if cursor is None:
                cursor, frame = await self._snapshot()
                head.append(frame)
            # From here to joining the group nothing awaits, so no event can slip between
            # what this viewer is sent now and what the fan-out sends it next.
            missed = self.feed.events_between(cursor, self._delivered)
            if missed is not None:
                break
            cursor = None
        head += [e.frame for e in newest_per_table(missed) if wanted(e, table, boards)]
        if missed:
            cursor = max(cursor, missed[-1].id)
        viewer = Viewer(send, group, cursor)
        viewer.task = asyncio.current_task()
        if viewer.transport is not None:
            # A phone that stops reading fills the kernel's buffer first: keep that small
            # so it is held to the newest views soon, not after megabytes.
            sock = viewer.transport.get_extra_info("socket")
            with contextlib.suppress(AttributeError, OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_SEND_BUFFER)
        self.groups.setdefault(group, set()).add(viewer)
        try:
            self._write(viewer, b"".join(head))
            while (await receive())["type"] != "http.disconnect":
                pass
        except asyncio.CancelledError:  # the server is stopping (close()): end the response
            if not viewer.busy:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(send({"type": "http.response.body", "body": b"", "more_body": False}), 1.0)
        finally:
            self._blocked.discard(viewer)
            members = self.groups.get(group)
            if members is not None:
                members.discard(viewer)
                if not members:
                    del self.groups[group]

    async def _snapshot(self) -> tuple[int, bytes]:
        cached = self.feed.cached_snapshot()
        if cached is not None:
            return cached
        # One hub read for every viewer that arrives meanwhile (a reconnect storm), off
        # the loop so the live frames keep flowing.
        if self._snapshot_job is None or self._snapshot_job.done():
            loop = asyncio.get_running_loop()
            self._snapshot_job = loop.run_in_executor(None, self.feed.snapshot)
        return await asyncio.shield(self._snapshot_job)

    # -- the fan-out -----------------------------------------------------------------------
    def _publish(self, events: list[StreamEvent]) -> None:
        if not events:
            return
        self._delivered = max(self._delivered, events[-1].id)
        self._unblock()
        for (table, boards), viewers in list(self.groups.items()):
            mine = newest_per_table([e for e in events if wanted(e, table, boards)])
            if not mine:
                continue
            chunk = b"".join(e.frame for e in mine)
            framed = http_chunk(chunk)
            first, last = mine[0].id, mine[-1].id
            # Board health is held back up to a second and then published under the
            # newest id, which a viewer may already have: it goes out whatever the cursor.
            health = any(e.kind in HEALTH_KINDS for e in mine)
            for viewer in tuple(viewers):
                # The common case first and inline: this loop runs once per viewer per
                # change (docs/performance.md, Web: CPU per change per viewer).
                transport = viewer.transport
                if viewer.cursor < first and not viewer.busy and transport is not None:
                    viewer.cursor = last
                    if not transport.is_closing():
                        transport.write(framed)
                        if transport.get_write_buffer_size() > HIGH_WATER:
                            viewer.busy = True
                            self._blocked.add(viewer)
                elif viewer.busy:
                    viewer.hold(e for e in mine if e.id > viewer.cursor or e.kind in HEALTH_KINDS)
                elif viewer.cursor < first:
                    viewer.cursor = last
                    self._write(viewer, chunk, framed)
                elif viewer.cursor < last or health:  # joined in this batch, or health again
                    fresh = b"".join(e.frame for e in mine if e.id > viewer.cursor or e.kind in HEALTH_KINDS)
                    viewer.cursor = max(viewer.cursor, last)
                    if fresh:
                        self._write(viewer, fresh)

    async def _beat(self) -> None:
        # Keeps proxies from closing quiet streams and finds dead peers by writing; the
        # viewers whose sockets were full get what they hold as soon as they drain.
        framed = http_chunk(KEEP_ALIVE)
        beat_at = asyncio.get_running_loop().time() + self.heartbeat_s
        while True:
            await asyncio.sleep(min(UNBLOCK_EVERY_S, self.heartbeat_s))
            self._unblock()
            if asyncio.get_running_loop().time() < beat_at:
                continue
            beat_at += self.heartbeat_s
            for viewers in list(self.groups.values()):
                for viewer in tuple(viewers):
                    if not viewer.busy:
                        self._write(viewer, KEEP_ALIVE, framed)

    def _unblock(self) -> None:
        for viewer in tuple(self._blocked):
            transport = viewer.transport
            if transport is None or transport.is_closing():
                self._blocked.discard(viewer)
            elif transport.get_write_buffer_size() <= LOW_WATER:
                self._blocked.discard(viewer)
                viewer.busy = False
                chunk = viewer.take_held()
                if chunk:
                    self._write(viewer, chunk)

    def _write(self, viewer: Viewer, chunk: bytes, framed: bytes | None = None) -> None:
        """Write now. A socket that is full makes the viewer busy: its next frames are
        held (newest per table) until it drains."""
        transport = viewer.transport
        if transport is not None:
            if transport.is_closing():
                return
            transport.write(framed if framed is not None else http_chunk(chunk))
            if transport.get_write_buffer_size() > HIGH_WATER:
                viewer.busy = True
                self._blocked.add(viewer)
            return
        coro = cast(
            Coroutine[Any, Any, None],
            viewer.send({"type": "http.response.body", "body": chunk, "more_body": True}),
        )
        try:
            waiting = coro.send(None)
        except StopIteration:
            return
        except Exception:  # the connection is going; receive() tells the viewer's task
            return
        viewer.busy = True
        assert self._loop is not None
        self._loop.create_task(self._finish_write(viewer, coro, waiting))

    async def _finish_write(self, viewer: Viewer, coro: Coroutine[Any, Any, None], waiting: Any) -> None:
        try:
            await resume(coro, waiting)
        except Exception:
            return  # gone; its task cleans up
        finally:
            viewer.busy = False
        chunk = viewer.take_held()
        if chunk:
            self._write(viewer, chunk)


def http_chunk(body: bytes) -> bytes:
    """``body`` in HTTP/1.1 chunked framing.

    >>> http_chunk(b"data: 1\\n\\n")
    b'9\\r\\ndata: 1\\n\\n\\r\\n'
    """
    return b"%x\r\n%s\r\n" % (len(body), body)


def raw_transport(send: Send) -> Any:
    """The socket's transport behind uvicorn's ``send`` when its response is chunked
    (httptools), else None.

    uvicorn's ``send`` is a bound method of its request cycle, which holds the
    transport. Writing the pre-framed chunk there skips the per-message ASGI work for
    every viewer and every change (docs/performance.md: about half of the CPU per
    viewer); any other server, or uvicorn's h11 parser, goes through ``send``."""
    cycle = getattr(send, "__self__", None)
    transport = getattr(cycle, "transport", None)
    if getattr(cycle, "chunked_encoding", None) is not True:
        return None
    if not all(hasattr(transport, name) for name in ("write", "get_write_buffer_size", "is_closing")):
        return None
    return transport


async def resume(coro: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Drive a coroutine that already ran up to its first wait (``waiting``: the future
    it yielded) to the end, as the task running it would have."""
    while True:
        try:
            if waiting is None:
                await asyncio.sleep(0)
            else:
                await waiting
        except asyncio.CancelledError:
            coro.close()
            raise
        except Exception as err:
            try:
                waiting = coro.throw(err)
            except StopIteration:
                return
            continue
        try:
            waiting = coro.send(None)
        except StopIteration:
            return


def header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


async def refuse(send: Send, status: int, message: bytes) -> None:
    """A short plain answer; browsers retry a 503 with backoff (live.js)."""
    await send({
        "type": "http.response.start", "status": status,
        "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"retry-after", b"2"),
                    (b"content-length", str(len(message)).encode())],
    })
    await send({"type": "http.response.body", "body": message, "more_body": False})
