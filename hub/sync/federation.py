"""The federation hub (issue 35): the same program, given ``--sync`` with ``"mode":
"federation"``.

Its nats-server (deploy/nats/federation.conf) has one stream per club, ``CLUB_<club>``,
that *sources* the club's own stream ``TRIGONO`` across JetStream domains (the club's
leaf node answers for the domain named after the club): JetStream resumes the source
where it stopped when a club's link comes back. A durable pull consumer per club stream
hands the entries to :class:`hub.sync.copies.ClubCopies` — each (hub, seq) once, in
order per hub — and acknowledges them after their commit.

What the federation reads from the copies:

- :meth:`FederationSync.tournaments`: the union of the clubs' tournaments, each folded
  from its club's entries (read-only: the federation never writes to them);
  :func:`season_points` folds them into a season table by licence;
- :meth:`FederationSync.persons`: persons across clubs matched by licence number; two
  clubs that say different things of one licence leave both versions, and a conflict,
  until an organizer settles it with an entry in the federation's own log
  (:meth:`FederationSync.settle`) — never last-writer-wins in silence;
- :meth:`FederationSync.status`: a row per club (last entry, lag, waiting, last contact).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from hub.errors import BadInputError, HubError
from hub.log.store import Entry, EventStore
from hub.log.writer import LogWriter
from hub.sync.copies import ClubCopies
from hub.sync.natsconf import CLUB_STREAM, deliver_prefix, federation_stream
from hub.sync.publisher import close, connect, parse_msg_id
from hub.tournament.placings import final_ranking
from hub.tournament.service import SOURCE as TOURNAMENT_SOURCE
from hub.tournament.state import Tournament

log = logging.getLogger("hub.sync")


JSONDict = dict[str, Any]
CONSUMER = "federation"
SETTLE_SOURCE = "federation"
FETCH = 500
ACK_WAIT_S = 3.0
DUPLICATE_WINDOW_S = 10.0


def tournament_bodies(entries: Iterable[Entry]) -> dict[str, list[tuple[JSONDict, float]]]:
    """A log's tournament entries by tournament, in log order."""
    out: dict[str, list[tuple[JSONDict, float]]] = {}
    for entry in entries:
        body = entry.body
        if entry.source == TOURNAMENT_SOURCE and entry.table_id is None and "tournament" in body:
            out.setdefault(str(body["tournament"]), []).append((body["entry"], entry.at))
    return out


def fold_tournaments(entries: Iterable[Entry]) -> dict[str, Tournament]:
    """Every tournament of a log, folded from its entries (one that does not fold is
    left out and logged: its club's hub accepted it, so this is a bug to see)."""
    out: dict[str, Tournament] = {}
    for tid, items in tournament_bodies(entries).items():
        try:
            t = Tournament.create(tid, items[0][0], items[0][1])
            for body, at in items[1:]:
                t.apply(body, at)
        except HubError as err:
            log.error("tournament %s does not fold: %s", tid, err)
            continue
        out[tid] = t
    return out


def season_points(tournaments: Iterable[Tournament]) -> dict[str, float]:
    """A season table: each finished tournament's placing points summed by player key
    (the licence number when given). Players sharing a place share its points."""
    points: dict[str, float] = defaultdict(float)
    for t in tournaments:
        if t.status != "finished":
            continue
        ranking = final_ranking(t)
        shared: dict[int, int] = defaultdict(int)
        for place, _ in ranking:
            shared[place] += 1
        for place, pid in ranking:
            points[t.players[pid].key] += t.spec.placing_points(place, shared[place])
    return dict(points)


def _seen(by_club: dict[str, JSONDict]) -> list[list[Any]]:
    """The versions a settlement was made on: [club, seq] of each, sorted."""
    return sorted([club, int(v["seq"])] for club, v in by_club.items())


class FederationSync:
    """The federation's consumer thread, its copies and what is read from them.
    ``writer``/``store``: the federation hub's own log (the settlements)."""

    def __init__(self, copies: ClubCopies, url: str, clubs: Iterable[str], *,
                 writer: LogWriter | None = None, store: EventStore | None = None,
                 clock: Callable[[], float] = time.time,
                 duplicate_window_s: float = DUPLICATE_WINDOW_S) -> None:
        self.copies, self.url, self.clubs = copies, url, list(clubs)
        self.duplicate_window_s = duplicate_window_s
        self.writer, self.store, self.clock = writer, store, clock
        self.refused: dict[str, int] = defaultdict(int)
        self.stream_info: dict[str, JSONDict] = {}
        self.consumer_pending: dict[str, int] = {}
        self.last_contact: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.connected = False
        self._persons_lock = threading.Lock()
        self._versions: dict[str, dict[str, JSONDict]] = defaultdict(dict)
        self._settled: dict[str, JSONDict] = {}
        self._index_all()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=lambda: asyncio.run(self._main()),
                                            name="sync-federation", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.copies.close()

    # -- the thread --------------------------------------------------------------------
    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        while not self._stop.is_set():
            nc = None
            try:
                nc = await connect(self.url)
                # JetStream answers slowly while it takes in a long catch-up: a short
                # timeout would only start the whole set-up again, and again
                js = nc.jetstream(timeout=10)
                for club in self.clubs:
                    await self._ensure_stream(js, club)
                self.connected = True
                await asyncio.gather(*(self._consume(js, club) for club in self.clubs),
                                     self._watch(js))
            except Exception as err:  # noqa: BLE001 - any failure: connect again, resume
                self.connected = False
                if not self._stop.is_set():
                    log.warning("federation consumer: %r (retrying)", err, exc_info=log.isEnabledFor(logging.DEBUG))
                    await asyncio.sleep(0.2)
            finally:
                await close(nc)

    async def _ensure_stream(self, js: Any, club: str) -> None:
        from nats.js import api
        from nats.js.errors import NotFoundError

        name = federation_stream(club)
        try:
            await js.stream_info(name)
        except NotFoundError:
            # Delivered on the club's own subjects (trigono.<club>.deliver.…), which only
            # the club's user may publish: no club can feed another club's stream here.
            source = api.StreamSource(name=CLUB_STREAM, external=api.ExternalStream(
                api=f"$JS.{club}.API", deliver=deliver_prefix(club)))
            # The copies deduplicate on (hub, seq) for good; the stream's own window only
            # has to cover a source resuming, and every id in it is held in memory.
            await js.add_stream(name=name, sources=[source], storage="file",
                                duplicate_window=self.duplicate_window_s)
        try:
            await js.consumer_info(name, CONSUMER)
        except NotFoundError:
            # At most one fetch unacknowledged: when this hub dies mid-batch, nothing past
            # the lost batch is delivered (its entries would only come back "early", again
            # and again) until the batch is delivered again, ACK_WAIT_S later.
            await js.add_consumer(name, durable_name=CONSUMER, ack_policy="explicit",
                                  deliver_policy="all", max_ack_pending=FETCH, ack_wait=ACK_WAIT_S)

    async def _consume(self, js: Any, club: str) -> None:
        sub = await js.pull_subscribe_bind(CONSUMER, federation_stream(club))
        while not self._stop.is_set():
            try:
                msgs = await sub.fetch(FETCH, timeout=0.5)
            except TimeoutError:  # nats' own TimeoutError is one too: nothing new
                continue
            items, kept = [], []
            for msg in msgs:
                found = parse_msg_id((msg.headers or {}).get("Nats-Msg-Id"))
                try:
                    item = json.loads(msg.data)
                    ok = (found is not None and found[0] == club and isinstance(item, dict)
                          and item.get("hub") == club and item.get("seq") == found[1])
                except ValueError:
                    ok = False
                if not ok:  # another hub's id in this club's stream: never stored as theirs
                    self.refused[club] += 1
                    log.warning("club %s: refused a message claiming %r", club, found)
                    await msg.term()
                    continue
                items.append(item)
                kept.append(msg)
            if not items:
                continue
            verdicts = await asyncio.to_thread(self.copies.add, club, items, self.clock())
            self._index(club, (item for item, verdict in zip(items, verdicts, strict=True)
                               if verdict == "stored"))
            for msg, verdict in zip(kept, verdicts, strict=True):
                if verdict == "early":
                    await msg.nak(delay=0.5)
                else:
                    await msg.ack()

    async def _watch(self, js: Any) -> None:
        """Every second: each club stream's source (lag, last contact) and what its
        consumer has not delivered yet."""
        while not self._stop.is_set():
            for club in self.clubs:
                try:
                    info = await js.stream_info(federation_stream(club))
                    cinfo = await js.consumer_info(federation_stream(club), CONSUMER)
                except Exception:  # noqa: BLE001 - asked again in a second
                    continue
                source = (info.sources or [None])[0]
                lag = int(getattr(source, "lag", 0) or 0)
                active_ns = getattr(source, "active", None)
                if active_ns is not None and active_ns >= 0:
                    self.last_contact[club] = self.clock() - active_ns / 1e9
                self.stream_info[club] = {"lag": lag}
                self.consumer_pending[club] = int(cinfo.num_pending or 0) + int(cinfo.num_ack_pending or 0)
            await asyncio.sleep(1.0)

    # -- reading -----------------------------------------------------------------------
    def status(self) -> JSONDict:
        """A row per club: last entry (seq, time), lag (seconds from its commit to its
        copy here), waiting (at the club's source or not yet copied), last contact."""
        rows = []
        now = self.clock()
        for club in self.clubs:
            newest = self.copies.newest(club)
            waiting = self.stream_info.get(club, {}).get("lag", 0) + self.consumer_pending.get(club, 0)
            contact = self.last_contact.get(club)
            rows.append({"club": club, "last_seq": newest[0] if newest else 0,
                         "last_at": newest[1] if newest else None,
                         "lag_s": round(newest[2] - newest[1], 3) if newest else None,
                         "waiting": waiting, "last_contact": contact,
                         "online": contact is not None and now - contact < 10,
                         "refused": self.refused.get(club, 0)})
        conflicts = [{"licence": licence,
                      "versions": [{"from": c, "name": v["name"], "person_club": v["club"], "at": v["at"]}
                                   for c, v in sorted(p["versions"].items())]}
                     for licence, p in self.conflicts().items()]
        return {"mode": "federation", "connected": self.connected, "clubs": rows,
                "conflicts": conflicts}

    def tournaments(self) -> dict[tuple[str, str], Tournament]:
        """The union of the clubs' tournaments: (club, tournament id) → its fold."""
        out: dict[tuple[str, str], Tournament] = {}
        for club in self.clubs:
            for tid, t in fold_tournaments(self.copies.entries(club)).items():
                out[(club, tid)] = t
        return out

    def _index(self, club: str, items: Iterable[JSONDict]) -> None:
        """Note what stored entries say of persons: a registration with a licence (its
        ``key``) is that club's newest version of the person."""
        with self._persons_lock:
            for item in items:
                body = item.get("body")
                inner = body.get("entry") if isinstance(body, dict) else None
                if item.get("source") != TOURNAMENT_SOURCE or not isinstance(inner, dict):
                    continue
                player = inner.get("player") if inner.get("type") == "register" else None
                if not isinstance(player, dict) or not player.get("key"):
                    continue
                self._versions[str(player["key"])][club] = {
                    "name": player.get("name"), "club": player.get("club") or "",
                    "at": float(item["at"]), "seq": int(item["seq"])}

    def _index_all(self) -> None:
        """The persons of every copy already stored (at start) and the settlements."""
        for club in self.clubs:
            self._index(club, ({"source": e.source, "body": e.body, "at": e.at, "seq": e.id}
                               for e in self.copies.entries(club)))
        if self.store is not None:
            for entry in self.store.entries():
                self._settlement(entry)

    def _settlement(self, entry: Entry) -> None:
        if entry.source == SETTLE_SOURCE and isinstance(entry.body.get("settle"), dict):
            settle = entry.body["settle"]
            with self._persons_lock:
                self._settled[str(settle["licence"])] = {**settle, "at": entry.at}

    def persons(self) -> dict[str, JSONDict]:
        """Licence → {versions: {club: {name, club, at, seq}}, settled: {...} | None,
        conflict: bool}. A version is what a club's newest registration of that licence
        says. Two clubs that differ are a conflict until a settlement made on exactly
        the versions there are now (a club's later edit reopens it: clocks of laptops
        that were offline for days are not compared)."""
        out: dict[str, JSONDict] = {}
        with self._persons_lock:
            for licence, by_club in sorted(self._versions.items()):
                distinct = {(v["name"], v["club"]) for v in by_club.values()}
                settlement = self._settled.get(licence)
                is_settled = settlement is not None and settlement.get("seen") == _seen(by_club)
                out[licence] = {"versions": {c: dict(v) for c, v in by_club.items()},
                                "settled": settlement, "conflict": len(distinct) > 1 and not is_settled}
        return out

    def conflicts(self) -> dict[str, JSONDict]:
        return {k: v for k, v in self.persons().items() if v["conflict"]}

    def settle_version(self, licence: str, source: str, by: str = "organizer") -> None:
        """Settle a licence's person on the version club ``source`` holds."""
        person = self.persons().get(licence)
        version = None if person is None else person["versions"].get(source)
        if version is None:
            raise BadInputError(f"no version of licence {licence!r} from club {source!r}")
        self.settle(licence, str(version["name"]), str(version["club"]), by=by, source=source)

    def settle(self, licence: str, name: str, club: str, by: str = "organizer",
               source: str | None = None) -> None:
        """Settle a licence's person: an entry in the federation's own log."""
        if self.writer is None:
            raise BadInputError("this federation hub has no log to settle in")
        if licence not in self.persons():
            raise BadInputError(f"no person with licence {licence!r} in the clubs' entries")
        with self._persons_lock:
            seen = _seen(self._versions.get(licence, {}))
        stored = self.writer.write([Entry.new(SETTLE_SOURCE, {"settle": {
            "licence": licence, "name": name, "club": club, "by": by, "from": source, "seen": seen}},
            at=self.clock())])
        for entry in stored:
            if entry is not None:
                self._settlement(entry)
