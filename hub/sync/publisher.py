"""A club's publisher (issue 35): each committed entry goes to the club's own JetStream
stream, after its commit, never before.

The hub's :class:`hub.log.writer.LogWriter` only *tells* the publisher that something was
committed (:meth:`Publisher.notify`, a flag and a wake-up: nothing of the publish sits on
the commit's path); the publisher's thread reads the entries back from the store and
publishes them in id order with the message id ``<club>:<id>`` (``Nats-Msg-Id``: the
stream drops a repeat), each once the previous one is acknowledged: a lost publish never
leaves a hole that a later one jumps, so the stream is the log's prefix, in order.

(Not ``Nats-Expected-Last-Msg-Id``, which would let several be in flight: the
federation's stream that sources the club's checks that header again on every sourced
message, against its own last id — which it forgets after its duplicate window — and
refused every message for good after a cut longer than that window. nats-server 2.9.)

At start, and after any failure, it asks the stream for the newest message it holds and
resumes after it: a hub killed between a commit and its publish publishes the rest at
its next start.

The sync status (:meth:`Publisher.status`): every ``probe_s`` the publisher asks the
federation's JetStream domain, across the leaf link, for the newest entry of this club it
holds; "waiting" is what the club committed past that. When the link is down the
question goes unanswered: offline since the last answer.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import threading
import time
from collections.abc import Callable
from itertools import islice
from typing import Any

from hub.log.store import Entry, EventStore, encode_body
from hub.sync.natsconf import CLUB_STREAM, FEDERATION_DOMAIN, federation_stream, subject

log = logging.getLogger("hub.sync")


JSONDict = dict[str, Any]


async def _quiet(err: Exception) -> None:
    """nats-py's default error callback prints a traceback for every refused connection
    (a club offline for days retries all along): the sync loop logs one line instead."""
    log.debug("nats: %s", err)


async def connect(url: str) -> Any:
    """A NATS connection for one round of a sync loop (the publisher's, the federation's):
    no reconnects of its own (the loop starts a round again), and bounded — nats-py's
    connect to a server that is down can wait for it for ever, holding up a stop."""
    import nats

    return await asyncio.wait_for(nats.connect(url, connect_timeout=1, allow_reconnect=False,
                                               max_reconnect_attempts=0, error_cb=_quiet), 3.0)


async def close(nc: Any) -> None:
    """Close a round's connection (None: it never opened), bounded: the link may be broken."""
    if nc is None:
        return
    try:
        await asyncio.wait_for(nc.close(), 1.0)
    except Exception:  # noqa: BLE001 - closing a broken link
        pass
BATCH = 500
"""Entries published before their acknowledgements are awaited."""


def entry_message(club: str, entry: Entry) -> bytes:
    """The published form of a stored entry: its columns, the body as stored.

    >>> entry_message("a", Entry(7, 1.5, "console", "t1", {"undo": True}))
    b'{"hub":"a","seq":7,"at":1.5,"source":"console","table_id":"t1","board":null,"boot":null,"dseq":null,"body":{"undo":true}}'
    """
    head = json.dumps({"hub": club, "seq": entry.id, "at": entry.at, "source": entry.source,
                       "table_id": entry.table_id, "board": entry.board, "boot": entry.boot,
                       "dseq": entry.seq}, separators=(",", ":"))
    return (head[:-1] + ',"body":' + encode_body(entry) + "}").encode()


def msg_id(club: str, seq: int) -> str:
    return f"{club}:{seq}"


def parse_msg_id(text: str | None) -> tuple[str, int] | None:
    """``"a:12"`` → ("a", 12); None when it is not one.

    >>> parse_msg_id("club-a:12"), parse_msg_id("12"), parse_msg_id(None)
    (('club-a', 12), None, None)
    """
    if not text or ":" not in text:
        return None
    hub, _, seq = text.rpartition(":")
    return (hub, int(seq)) if seq.isdigit() else None


def header_of(raw_headers: str | None, name: str) -> str | None:
    """A header's value in a JetStream ``MSG.GET`` answer (``hdrs``, base64 of the NATS/1.0
    header block).

    >>> header_of(base64.b64encode(b"NATS/1.0\\r\\nNats-Msg-Id: a:3\\r\\n\\r\\n").decode(), "Nats-Msg-Id")
    'a:3'
    """
    if not raw_headers:
        return None
    for line in base64.b64decode(raw_headers).decode("utf-8", "replace").split("\r\n")[1:]:
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() == name.lower():
            return value.strip()
    return None


class Publisher:
    """One club's publisher thread on the store its hub writes. ``url``: the club's own
    nats-server (a leaf node of the federation's)."""

    def __init__(self, store: EventStore, club: str, url: str, *, probe_s: float = 2.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.store, self.club, self.url = store, club, url
        self.probe_s, self.clock = probe_s, clock
        self.acked = 0
        """The newest entry id the club's stream acknowledged."""
        self.at_federation: int | None = None
        """The newest entry id the federation holds, as last answered (None: never)."""
        self.last_contact: float | None = None
        self.started_at = clock()
        self.local_link = False
        self.published_at: dict[int, float] = {}
        """Entry id → when its publish was acknowledged (the lag benchmark reads it)."""
        self.keep_times = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._pending = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- life cycle -------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=lambda: asyncio.run(self._main()),
                                            name=f"sync-publisher-{self.club}", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.notify()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def notify(self, *_: Any) -> None:
        """Something was committed (the writer calls this after each commit): wake the
        thread, once however many commits come before it runs."""
        if self._pending or self._loop is None or self._wake is None:
            return
        self._pending = True
        try:
            self._loop.call_soon_threadsafe(self._wake.set)
        except RuntimeError:  # the loop has ended (stopping)
            pass

    # -- status ----------------------------------------------------------------------
    def status(self) -> JSONDict:
        """Where sync stands: ``online`` (the federation answered within two probes),
        ``last_contact`` (its last answer, epoch seconds), ``offline_since``, ``waiting``
        (entries committed that the federation does not hold yet), ``published``."""
        now = self.clock()
        last = self.store.last_id()
        online = self.last_contact is not None and now - self.last_contact <= 2 * self.probe_s + 1
        held = self.at_federation or 0
        return {"mode": "club", "club": self.club, "online": online,
                "last_contact": self.last_contact,
                "offline_since": None if online else (self.last_contact or self.started_at),
                "waiting": max(0, last - held), "published": self.acked, "committed": last,
                "local_link": self.local_link}

    # -- the thread ----------------------------------------------------------------------
    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        while not self._stop.is_set():
            nc = None
            try:
                nc = await connect(self.url)
                self.local_link = True
                js = nc.jetstream(timeout=2)
                await self._ensure_stream(js)
                self.acked = await self._last_acked(js)
                next_probe = 0.0
                while not self._stop.is_set():
                    self._pending = False
                    await self._publish_pending(js)
                    if time.monotonic() >= next_probe:
                        await self._probe(nc)
                        next_probe = time.monotonic() + self.probe_s
                    if self._pending or self.store.last_id() > self.acked:
                        continue
                    try:
                        await asyncio.wait_for(self._wake.wait(), max(0.01, next_probe - time.monotonic()))
                    except TimeoutError:
                        pass
                    self._wake.clear()
            except Exception as err:  # noqa: BLE001 - any failure: resume from the stream
                self.local_link = False
                if not self._stop.is_set():
                    log.warning("sync publisher of club %s: %s (retrying)", self.club, err)
                    await asyncio.sleep(0.2)
            finally:
                await close(nc)

    async def _ensure_stream(self, js: Any) -> None:
        from nats.js.errors import NotFoundError

        try:
            await js.stream_info(CLUB_STREAM)
        except NotFoundError:
            await js.add_stream(name=CLUB_STREAM, subjects=[subject(self.club)],
                                storage="file", duplicate_window=120.0)

    async def _last_acked(self, js: Any) -> int:
        """The newest entry id the club's stream holds. A message that is not this
        hub's (written into the club's server by something else) is stepped over."""
        from nats.js.errors import NotFoundError

        info = await js.stream_info(CLUB_STREAM)
        seq = int(info.state.last_seq or 0)
        while seq >= max(1, int(info.state.first_seq or 1)):
            try:
                msg = await js.get_msg(CLUB_STREAM, seq)
            except NotFoundError:  # a deleted message
                seq -= 1
                continue
            found = parse_msg_id((msg.headers or {}).get("Nats-Msg-Id"))
            if found is not None and found[0] == self.club:
                return found[1]
            seq -= 1
        return 0

    async def _publish_pending(self, js: Any) -> None:
        """Publish the entries after :attr:`acked`, one at a time: the next is sent only
        once the stream acknowledged this one, so a failure never leaves a hole that a
        later entry jumps (the caller's next round resumes from what the stream holds).
        One at a time is fast enough: a club publishes live as it commits, and only a
        restart of its own server leaves a backlog (the federation's catch-up after a cut
        is JetStream's sourcing, not this)."""
        subj = subject(self.club)
        # One read of the store per round, taken BATCH at a time: a backlog of days is
        # read once, not once per batch.
        backlog = self.store.entries(after=self.acked)
        while not self._stop.is_set():
            batch = list(islice(backlog, BATCH))
            if not batch:
                return
            for entry in batch:
                assert entry.id is not None
                if self._stop.is_set():
                    return
                await js.publish(subj, entry_message(self.club, entry), timeout=5,
                                 headers={"Nats-Msg-Id": msg_id(self.club, entry.id)})
                self.acked = entry.id
                if self.keep_times:
                    self.published_at[entry.id] = self.clock()

    async def _probe(self, nc: Any) -> None:
        """Ask the federation's domain for the newest entry of this club it holds."""
        request = json.dumps({"last_by_subj": subject(self.club)}).encode()
        api = f"$JS.{FEDERATION_DOMAIN}.API.STREAM.MSG.GET.{federation_stream(self.club)}"
        try:
            answer = await nc.request(api, request, timeout=min(1.0, self.probe_s))
        except Exception:  # noqa: BLE001 - no answer: the link is down
            return
        data = json.loads(answer.data)
        if "error" in data:
            if data["error"].get("code") != 404:  # 404: the federation holds nothing yet
                return
            self.at_federation = 0
        else:
            found = parse_msg_id(header_of(data.get("message", {}).get("hdrs"), "Nats-Msg-Id"))
            self.at_federation = found[1] if found is not None else 0
        self.last_contact = self.clock()
