"""Tournaments on a running hub: durable, thread-safe, fed by the tables they start.

:class:`TournamentService` keeps every tournament as entries of the hub's event store
(the same append-only log as the tables, SQLite or PostgreSQL), written through the
hub's one :class:`~hub.log.writer.LogWriter` under the hub's lock, like a table's entries:
an entry is tried on a copy of the tournament (a refusal stores nothing, changes
nothing), stored, then applied, then announced on the hub's change feed by the writer
(R1). At start the tournaments are the replay of their entries, so a SIGKILL — even
between storing an entry and applying it — and a restart give the same tournaments.
Entries are stored with ``source = "tournament"``, no table id, and the body
``{"tournament": ID, "entry": {...}}``.

A hub owns its service (:attr:`hub.facade.Hub.tournaments`); one without a hub (a CLI
load, a test) writes through a writer of its own and announces nothing.

After each entry the director's follow-ups (:meth:`Tournament.follow_up`: redraws after
a correction, the next Swiss round, calls to free stations) are stored the same way.
Calling a match to a station creates its table on the hub (the station's boards bound
to it); when that table's game ends — seen on the hub's change feed, or at start for a
table that ended while the service was down — its ranking (``State.ranking()``) comes
back as the match's ``result``. A match decided while its table is still open (a result
entered by hand, a forfeit, a withdrawal) has its table closed with that result (hub
input ``{"decided": {"ranking": ...}}``); one sent back to the queue has its table
abandoned (``{"abandon": true}``); either way the station's boards are free for the next
match called there.

>>> from hub.log.sqlite import SqliteStore
>>> service = TournamentService(SqliteStore(":memory:"))
>>> t = service.create({"name": "Club night", "game": "trike", "format": "elimination",
...                     "check_in": False}, tournament_id="T1")
>>> for name in ("Ana", "Ben"):
...     _ = service.submit("T1", {"type": "register", "player": {"name": name}})
>>> view = service.submit("T1", {"type": "start"})
>>> view = service.submit("T1", {"type": "result", "match": "m1", "ranking": ["p2", "p1"]})
>>> view["status"], view["podium"][0]["name"]
('finished', 'Ben')
"""

from __future__ import annotations

import copy
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from hub.errors import BadInputError, ConflictError, HubError
from hub.log.store import Entry, EventStore
from hub.log.writer import LogWriter
from hub.tables.names import player_name
from hub.tournament import corrections, league, people, scheduling, stats
from hub.tournament import seasons as seasons_mod
from hub.tournament.model import JSONDict, UnknownTournamentError
from hub.tournament.people import Circuit
from hub.tournament.ratings import Rating, rate
from hub.tournament.state import Tournament
from hub.tournament.tables import MatchTables, TableHub, result_entry, tables_in_play

log = logging.getLogger("hub.tournament")

SOURCE = "tournament"
EXPORT_FORMAT = "trigono-tournament"
EXPORT_VERSION = 1
ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,30}$")
MAX_FOLLOW_UPS = 10_000
SNAPSHOT_KEY = "tournament/logs"  # never a table id: hub.tables.spec.check_table_id refuses "/"
SNAPSHOT_EVERY = 200


class TournamentService:
    """All tournaments of one hub (see the module doc). Every method is thread-safe.

    ``hub`` is optional: without one (tests, a CLI export) matches are never sent to
    tables and results are entered by hand. With one, the service writes through the
    hub's writer and takes its lock: there is one door into a hub's log.
    """

    def __init__(self, store: EventStore, hub: TableHub | None = None, *,
                 create_tables: bool = True, follows_log: bool = False) -> None:
        self.store = store
        # A hub's writer (its feed, its lock), else one of our own: a process without a
        # hub (a CLI load, a test) has nobody to announce to.
        self.writer = hub.writer if hub is not None else LogWriter(store, None)
        self.hub = hub
        self.follows_log = follows_log
        self.tables = MatchTables(hub, create_tables=create_tables, writes=not follows_log)
        """A read-only replica: another hub writes the log; :meth:`tail` reads it on."""
        self._through = 0  # the newest store entry read
        self._lock = self.writer.lock  # the hub's: a tournament changes under the lock its tables do
        self._tournaments: dict[str, Tournament] = {}
        self._entries: dict[str, list[tuple[JSONDict, float]]] = {}  # as stored, for a rebuild
        self._since_snapshot = 0
        self._version = 0  # bumped by every stored entry: the caches below are of a version
        self._views: dict[str, tuple[int, JSONDict]] = {}
        self._ratings: tuple[int, dict[str, Rating]] = (-1, {})
        self._counts: dict[str, dict[str, dict[str, int]]] = {}  # finished table -> its stats by name
        self.clock: Callable[[], float] = time.time
        """Stamps the entries (tests drive it: an inactive player's months pass in a line)."""
        self.circuit = Circuit()
        """Persons and seasons (:mod:`hub.tournament.people`), the fold of the ``people`` entries."""
        self._people: list[tuple[JSONDict, float]] = []  # as stored, for the snapshot
        self._book: tuple[int, league.Book | None] = (-1, None)
        self._finals: dict[str, tuple[int, list[tuple[int, str]]]] = {}
        self._season_ranks: dict[str, tuple[int, dict[str, int], dict[str, int] | None, JSONDict]] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._restore()

    # -- durable log ----------------------------------------------------------------------
    def _restore(self) -> None:
        """Replay every tournament: from the newest snapshot of all their logs (a cache
        in the store's snapshot table, under :data:`SNAPSHOT_KEY`) plus the entries
        stored after it, else from a scan of the whole log."""
        bodies: dict[str, list[tuple[JSONDict, float]]] = {}
        after = 0
        snap = self.store.snapshot(SNAPSHOT_KEY)
        if snap is not None:
            after = snap[0]
            for tid, items in snap[1]["logs"].items():
                bodies[tid] = [(body, at) for body, at in items]
            for body, at in snap[1].get("people", []):  # a snapshot older than issue 34 has none
                self._fold_people(body, at)
        for tid, body, at in self._scan(after):
            bodies.setdefault(tid, []).append((body, at))
        for tid, items in bodies.items():
            try:
                t = Tournament.create(tid, items[0][0], items[0][1])
                for body, at in items[1:]:
                    t.apply(body, at)
            except HubError as err:  # stored entries were valid when stored
                log.error("replay of tournament %s: %s", tid, err)
                continue
            self._tournaments[tid] = t
            self._entries[tid] = items
            self.tables.index(t)

    def _scan(self, after: int) -> Iterator[tuple[str, JSONDict, float]]:
        """(tournament id, body, time) of the tournament entries after ``after``; notes
        the newest entry read."""
        self._through = max(self._through, after)
        for entry in self.store.entries(after=after):
            assert entry.id is not None
            self._through = entry.id
            if entry.source == SOURCE and entry.table_id is None and "tournament" in entry.body:
                yield entry.body["tournament"], entry.body["entry"], entry.at
            elif entry.source == people.SOURCE and entry.table_id is None and "people" in entry.body:
                self._fold_people(entry.body["people"], entry.at)
                self._version += 1

    def _fold_people(self, body: JSONDict, at: float) -> None:
        """A stored ``people`` entry folded at restart or read from another hub's log."""
        try:
            self.circuit.apply(body)
        except HubError as err:  # stored entries were valid when stored
            log.error("people entry %s: %s", body.get("type"), err)
            return
        self._people.append((body, at))

    def tail(self) -> int:
        """Read on the log another hub writes (a read-only replica): apply the tournament
        entries stored since the last read; returns how many."""
        changed: dict[str, None] = {}
        with self._lock:
            for tid, body, at in list(self._scan(self._through)):
                try:
                    if tid not in self._tournaments:
                        self._tournaments[tid] = Tournament.create(tid, body, at)
                        self._entries[tid] = [(body, at)]
                    else:
                        self._tournaments[tid].apply(body, at)
                        self._entries[tid].append((body, at))
                except HubError as err:  # the writer checked it; keep going regardless
                    log.error("tournament %s: entry %s: %s", tid, body.get("type"), err)
                    continue
                self.tables.index(self._tournaments[tid])
                changed[tid] = None
            if changed:
                self._version += 1
                if self.writer.feed is not None:  # read, not written: announced here
                    self.writer.feed.changed([self._change(tid) for tid in changed])
        return len(changed)

    def snapshot(self) -> None:
        """Keep every tournament's log in the store's snapshot table, so a restart reads
        only the log entries after it (called every :data:`SNAPSHOT_EVERY` entries and
        by :meth:`close`)."""
        with self._lock:
            through = self.store.last_id()  # every tournament entry is at or below it
            data = {"logs": {tid: [[body, at] for body, at in items] for tid, items in self._entries.items()},
                    "people": [[body, at] for body, at in self._people]}
            self.store.save_snapshot(SNAPSHOT_KEY, through, data, summary={}, final=False)
            self._since_snapshot = 0

    @staticmethod
    def _payload(tid: str, body: JSONDict, by: str | None) -> JSONDict:
        payload: JSONDict = {"tournament": tid, "entry": body}
        if by:
            payload["by"] = by
        return payload

    def _change(self, tid: str) -> JSONDict:
        """The change a tournament announces on the hub's feed (the web's live stream)."""
        return {"kind": "tournament", "tournament": tid, "entries": self._tournaments[tid].applied}

    def _commit(self, tid: str, trial: Tournament, bodies: list[JSONDict], at: float,
                by: str | None) -> None:
        """Store ``bodies`` — which ``trial``, a copy of the tournament, took already —
        then apply them, then announce, through the writer (under the hub's lock); then
        end the hub tables of the matches no longer played there.

        Applying the stored entries is adopting ``trial``: :meth:`Tournament.apply` does
        not depend on an entry's id, so the copy that took the bodies before they were
        stored is their fold (a second fold would only double the cost; a table, whose
        fold records ids, does fold the stored entry again). A refusal raised on the
        copy stored nothing and changed nothing; a store error leaves the tournament as
        it was; a SIGKILL after the commit leaves the entries to the replay at restart."""
        before = self._tournaments.get(tid)
        in_play = tables_in_play(before) if before is not None else set()
        entries = [Entry.new(SOURCE, self._payload(tid, body, by), at=at) for body in bodies]

        def apply(stored: list[Entry | None]) -> list[JSONDict]:
            assert all(entry is not None for entry in stored)  # no dedup key: always new
            self._tournaments[tid] = trial
            self._stored(tid, [(body, at) for body in bodies])
            self.tables.index(trial)
            return [self._change(tid)]

        self.writer.write(entries, apply)
        self.tables.release(self._tournaments, in_play - tables_in_play(trial), by or "director")

    # -- reading --------------------------------------------------------------------------
    def ids(self) -> list[str]:
        with self._lock:
            return list(self._tournaments)

    def get(self, tid: str) -> Tournament:
        """A copy of the tournament (callers may read it freely)."""
        with self._lock:
            return copy.deepcopy(self._get(tid))

    def _get(self, tid: str) -> Tournament:
        t = self._tournaments.get(tid)
        if t is None:
            raise UnknownTournamentError(f"no tournament {tid!r}")
        return t

    def summaries(self) -> list[JSONDict]:
        """A summary of every tournament, oldest first."""
        with self._lock:
            return [{"id": t.id, "name": t.spec.name, "game": t.spec.game, "format": t.spec.format,
                     "status": t.status, "players": len(t.players), "round": t.round,
                     "created_at": t.created_at} for t in self._tournaments.values()]

    def version(self, tid: str) -> int:
        """How many entries the tournament has (a cheap "has it changed?" for pages)."""
        with self._lock:
            return self._get(tid).applied

    def view(self, tid: str) -> JSONDict:
        """The tournament's public view (:meth:`Tournament.to_json`). Cached until the
        next entry: treat it as read-only. Ratings are apart (:meth:`ratings`): they
        cost a pass over every result of every tournament."""
        with self._lock:
            t = self._get(tid)
            cached = self._views.get(tid)
            if cached is not None and cached[0] == self._version:
                return cached[1]
            out = t.to_json()
            self._views[tid] = (self._version, out)
            return out

    def ratings(self) -> dict[str, Rating]:
        """Ratings of every player key over every tournament's results, in log order
        (recomputed after a new entry only)."""
        with self._lock:
            if self._ratings[0] == self._version:
                return self._ratings[1]
            version = self._version
            results = []
            for t in self._tournaments.values():
                key = {p.id: p.key for p in t.players.values()}
                order = [m for m in t.matches.values() if m.status == "done" and not m.bye
                         and len(m.players) >= 2]
                for m in order:
                    results.append((t.created_at, m.number,
                                    tuple(tuple(key[p] for p in g) for g in m.ranking)))
            results.sort(key=lambda r: (r[0], r[1]))
            ratings = rate(r[2] for r in results)
            self._ratings = (version, ratings)
            return ratings

    def player_history(self, key: str) -> list[JSONDict]:
        """Every match of the player with this key, in every tournament."""
        out: list[JSONDict] = []
        with self._lock:
            for t in self._tournaments.values():
                ids = [p.id for p in t.players.values() if p.key == key]
                for m in t.matches.values():
                    if ids and ids[0] in m.players and m.status != "cancelled":
                        out.append({"tournament": t.id, "tournament_name": t.spec.name,
                                    **t.match_json(m),
                                    "placing": m.placing(ids[0]) if m.status == "done" and m.ranking else None})
        return out

    def stats(self, entries: list[tuple[str, str]]) -> JSONDict:
        """The statistics of a LIST of entries ``(tournament id, player id)`` (a person's
        entries across events, or one), from their tables' logs (:mod:`hub.tournament.stats`).
        The matches are read under the lock, the tables' logs after it (a cold count
        replays every table: the hub must not wait on it); a finished table's counts are
        kept, its log no longer changes."""
        rows: list[stats.StatRow] = []
        named: list[JSONDict] = []
        with self._lock:
            for tid, pid in entries:
                t = self._get(tid)
                p = t.player(pid)
                named.append({"tournament": tid, "player": pid, "name": p.name, "key": p.key,
                              "tournament_name": t.spec.name, "game": t.spec.game})
                rows += stats.entry_rows(t, pid)
        found, unread = stats.counted(rows, self._table_counts)
        return stats.to_json(named, found, unread)

    def _table_counts(self, table_id: str) -> dict[str, dict[str, int]] | None:
        cached = self._counts.get(table_id)
        if cached is not None or self.hub is None:
            return cached
        try:
            record = self.hub.export(table_id)
            counts = stats.count_record(record)
        except (HubError, ValueError) as err:
            log.warning("table %s: no statistics: %s", table_id, err)
            return None
        if self.hub.game_over(table_id):
            self._counts[table_id] = counts
        return counts

    # -- writing --------------------------------------------------------------------------
    def create(self, spec: Mapping[str, Any], *, tournament_id: str | None = None,
               by: str | None = None) -> JSONDict:
        """Create a tournament from its spec (:class:`hub.tournament.model.Spec`)."""
        with self._lock:
            if tournament_id is None:
                n = len(self._tournaments) + 1
                while f"T{n}" in self._tournaments:
                    n += 1
                tournament_id = f"T{n}"
            elif not isinstance(tournament_id, str) or not ID_PATTERN.match(tournament_id):
                raise BadInputError("tournament id: 1 to 30 letters, digits, - or _", "tour_bad_id")
            elif tournament_id in self._tournaments:
                raise ConflictError(f"tournament id {tournament_id!r} is taken", "tour_id_taken", tournament=tournament_id)
            now = self.clock()
            t = Tournament.create(tournament_id, {"type": "create", "spec": dict(spec)}, now)
            self._commit(tournament_id, t, [t.log[0]], now, by)
        return self.view(tournament_id)

    def submit(self, tid: str, body: Mapping[str, Any], *, by: str | None = None) -> JSONDict:
        """Apply one entry (module doc of :mod:`hub.tournament.state`) and its follow-ups;
        return the new view. ``{"type": "start"}`` without an order is seeded here
        (ratings across events). A refused entry raises and stores nothing."""
        with self._lock:
            self._submit(tid, body, by)
        return self.view(tid)

    def submit_many(self, tid: str, bodies: list[Any], *, by: str | None = None) -> tuple[int, list[tuple[int, HubError]]]:
        """Apply many entries at once (a players' list, everyone's check-in): each is
        checked alone, the accepted ones are stored in one write, then the director's
        follow-ups. Returns (how many were taken, [(index, refusal)] of those refused)."""
        refused: list[tuple[int, HubError]] = []
        accepted: list[JSONDict] = []
        with self._lock:
            trial = self._get(tid).trial()
            now = self.clock()
            for i, body in enumerate(bodies):
                try:
                    body = checked_names(body) if isinstance(body, Mapping) else body
                    trial.admit(body)
                    trial.apply(body, now)  # a refusal changes nothing, even on the copy
                except HubError as err:
                    refused.append((i, err))
                    continue
                accepted.append(trial.log[-1])
            if accepted:
                self._commit(tid, trial, accepted, now, by)
                self._follow_ups(tid, accepted[-1])
        return len(accepted), refused

    def _submit(self, tid: str, body: Mapping[str, Any], by: str | None) -> None:
        t = self._get(tid)
        if not isinstance(body, Mapping):
            raise BadInputError("an entry is an object")
        entry = checked_names(body)
        if entry.get("type") == "start" and "order" not in entry:
            ratings = {k: r.ordinal for k, r in self.ratings().items()}
            entry = t.start_entry(ratings)
        self._apply(tid, entry, by)
        self._follow_ups(tid, entry)

    def _follow_ups(self, tid: str, last: Mapping[str, Any]) -> None:
        """Apply and store the director's follow-ups of entry ``last``."""
        for _ in range(MAX_FOLLOW_UPS):
            follow = scheduling.follow_up(self._tournaments[tid], last)
            if follow is None:
                break
            if follow["type"] == "call":
                follow = self.tables.open_table(self._tournaments[tid], follow)
            self._apply(tid, follow, "director")
            last = follow

    def _apply(self, tid: str, body: JSONDict, by: str | None) -> None:
        """Try ``body`` on a copy (raises, changing nothing, when refused), then store,
        apply and announce it (:meth:`_commit`)."""
        now = self.clock()
        trial = self._tournaments[tid].trial()
        trial.admit(body)
        trial.apply(body, now)
        self._commit(tid, trial, [body], now, by)

    def _stored(self, tid: str, items: list[tuple[JSONDict, float]]) -> None:
        """Bookkeeping once entries are stored: the copy kept for a rebuild and the
        snapshot, the version the caches are of."""
        self._entries.setdefault(tid, []).extend(items)
        self._version += 1
        self._since_snapshot += len(items)
        if self._since_snapshot >= SNAPSHOT_EVERY:
            self.snapshot()

    def export(self, tid: str) -> JSONDict:
        """The tournament as a file a new hub loads (:meth:`load`): its entries in order."""
        with self._lock:
            t = self._get(tid)
            return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "id": t.id,
                    "created_at": t.created_at, "entries": copy.deepcopy(t.log)}

    def load(self, doc: Mapping[str, Any], *, tournament_id: str | None = None) -> JSONDict:
        """Load an exported tournament (replayed entry by entry, stored as new entries)."""
        if not isinstance(doc, Mapping) or doc.get("format") != EXPORT_FORMAT:
            raise BadInputError(f"not a {EXPORT_FORMAT} file")
        entries = doc.get("entries")
        if not isinstance(entries, list) or not entries:
            raise BadInputError("entries: expected a non-empty list")
        tid = tournament_id or str(doc.get("id", ""))
        with self._lock:
            if not ID_PATTERN.match(tid) or tid in self._tournaments:
                raise ConflictError(f"tournament id {tid!r} is taken or malformed")
            at = self.clock()
            t = Tournament.create(tid, entries[0], at)
            for body in entries[1:]:
                t.apply(body, at)  # raises before anything is stored
            self._commit(tid, t, list(t.log), at, None)
        return self.view(tid)

    def launch_preview(self, tid: str) -> JSONDict:
        """What starting the tournament now would build
        (:func:`hub.tournament.scheduling.launch_preview`), changing nothing."""
        ratings = {k: r.ordinal for k, r in self.ratings().items()}
        with self._lock:
            t = self._get(tid)
            return scheduling.launch_preview(t, t.start_entry(ratings))

    def preview(self, tid: str, body: Mapping[str, Any]) -> JSONDict:
        """What a ``correct`` entry would change, changing nothing
        (:func:`hub.tournament.corrections.preview`)."""
        with self._lock:
            return corrections.preview(self._get(tid), body)

    # -- persons and seasons (:mod:`hub.tournament.people`, :mod:`hub.tournament.league`) ---
    def book(self) -> league.Book:
        """Who every entry is, every game's ratings and every identity's form, for this
        version of the log (rebuilt after a new entry only: a whole re-rank)."""
        with self._lock:
            if self._book[0] == self._version and self._book[1] is not None:
                return self._book[1]
            version = self._version
            book = league.build(self._tournaments, self.circuit, self._final_places())
            self._book = (version, book)
            return book

    def _final_places(self) -> dict[str, list[tuple[int, str]]]:
        out = {}
        for tid, t in self._tournaments.items():
            cached = self._finals.get(tid)
            if cached is None or cached[0] != t.applied:
                cached = (t.applied, league.final_places(t))
                self._finals[tid] = cached
            if cached[1]:
                out[tid] = cached[1]
        return out

    def entries_of(self, person: str) -> list[tuple[str, str]]:
        """The tournament entries (tournament id, player id) of a person — theirs and
        those of everyone merged into them, linked or found by licence — oldest
        tournament first. Per-person statistics are keyed by these. An id that is no
        person (``~<key>``: an entry nobody linked yet) gives that key's entries."""
        with self._lock:
            return list(self.book().entries.get(person, []))

    def identity(self, tid: str, pid: str) -> str:
        """Who a tournament entry is: a person's id, else ``~<key>``."""
        with self._lock:
            t = self._get(tid)
            return league.identity_of(self.circuit, tid, pid, t.player(pid).key)

    def spans(self) -> dict[str, tuple[float, float]]:
        """Each tournament's first and last entry times (when it was played)."""
        with self._lock:
            return {tid: (items[0][1], items[-1][1]) for tid, items in self._entries.items() if items}

    def persons(self) -> list[JSONDict]:
        """Every person (merged ones say into whom), with how many entries they have."""
        with self._lock:
            book = self.book()
            return [{**p.to_json(), "merged_into": self.circuit.merged.get(p.id),
                     "entries": len(book.entries.get(p.id, []))} for p in self.circuit.persons.values()]

    def people_submit(self, body: Mapping[str, Any], *, by: str | None = None) -> JSONDict:
        """Store one ``people`` entry (:mod:`hub.tournament.people`): tried on a copy first
        (a refusal raises and stores nothing), then written through the hub's writer.
        Returns ``{"person": id}`` for a new person, else ``{}``."""
        if not isinstance(body, Mapping):
            raise BadInputError("an entry is an object")
        with self._lock:
            entry = copy.deepcopy(dict(body))
            self._admit_people(entry)
            trial = self.circuit.copy()
            trial.apply(entry)
            at = self.clock()
            payload: JSONDict = {"people": entry}
            if by:
                payload["by"] = by

            def apply(stored: list[Entry | None]) -> list[JSONDict]:
                self.circuit = trial
                self._people.append((entry, at))
                self._version += 1
                self._since_snapshot += 1
                return [{"kind": "tournament", "tournament": "people", "entries": len(self._people)}]

            self.writer.write([Entry.new(people.SOURCE, payload, at=at)], apply)
            return {"person": f"P{len(self.circuit.persons)}"} if entry.get("type") == "person" else {}

    def _admit_people(self, entry: Mapping[str, Any]) -> None:
        kind = entry.get("type")
        if kind == "link":
            self._get(str(entry.get("tournament"))).player(entry.get("player"))
        elif kind == "merge":
            self.circuit.admit_merge(str(entry.get("keep")), str(entry.get("gone")),
                                     self.entries_of, self.spans())
        elif kind == "season_add":
            self._get(str(entry.get("tournament")))

    def register_person(self, tid: str, pid: str, person: str | None = None, *, by: str | None = None) -> str:
        """Link a tournament entry to ``person`` (the organizer confirmed the match), or to
        a new person made from the entry (its name, club and licence) when None."""
        with self._lock:
            p = self._get(tid).player(pid)
            if person is None:
                licence = p.key if p.key != p.name.casefold() else ""
                body: JSONDict = {"name": p.name, "club": p.club}
                if licence and licence not in self.circuit.licences:
                    body["licence"] = licence
                person = str(self.people_submit({"type": "person", "person": body}, by=by)["person"])
            self.people_submit({"type": "link", "tournament": tid, "player": pid, "person": person}, by=by)
            return person

    def link_candidates(self, tid: str, pid: str) -> list[JSONDict]:
        """The persons a tournament entry may be, for the organizer to confirm: the one
        holding its licence, and those with a similar name (never linked silently)."""
        with self._lock:
            p = self._get(tid).player(pid)
            out: list[JSONDict] = []
            for person in self.circuit.live():
                if person.licence and person.licence == p.key:
                    out.insert(0, {**person.to_json(), "why": "licence"})
                elif people.similar(person.name, p.name):
                    out.append({**person.to_json(), "why": "name"})
            return out

    def unlinked(self, limit: int = 50) -> list[JSONDict]:
        """The entries no person holds yet, newest tournament first (at most ``limit``:
        each is compared with every person), with the persons they may be."""
        with self._lock:
            book = self.book()
            found = [(self._tournaments[tid].created_at, tid, pid) for (tid, pid), who in book.identity.items()
                     if who.startswith(league.UNLINKED)]
            found.sort(key=lambda e: -e[0])
            out: list[JSONDict] = []
            for created, tid, pid in found[:limit]:
                p = self._tournaments[tid].players[pid]
                out.append({"tournament": tid, "tournament_name": self._tournaments[tid].spec.name, "player": pid,
                            "name": p.name, "club": p.club, "candidates": self.link_candidates(tid, pid),
                            "created_at": created})
            return out

    def duplicates(self) -> list[JSONDict]:
        """Pairs of persons proposed as one (similar names, never at the same time in two places)."""
        with self._lock:
            pairs = self.circuit.duplicates(self.entries_of, self.spans())
            return [{"keep": self.circuit.persons[a].to_json(), "gone": self.circuit.persons[b].to_json()}
                    for a, b in pairs]

    def merge_preview(self, keep: str, gone: str) -> JSONDict:
        """What merging ``gone`` into ``keep`` would change, changing nothing: each game's
        rating of the merged person (before: both; after: one), and each season's ranks
        that move. ``refused``: the reason when the merge cannot be made."""
        with self._lock:
            body = {"type": "merge", "keep": keep, "gone": gone}
            refused = None
            try:
                self._admit_people(body)
                trial = self.circuit.copy()
                trial.apply(body)
            except HubError as err:
                refused = {"kind": err.kind, **err.params, "message": str(err)}
                return {"keep": keep, "gone": gone, "refused": refused, "ratings": [], "seasons": []}
            before = self.book()
            after = league.build(self._tournaments, trial, self._final_places())
            now = self.clock()
            ratings: list[JSONDict] = []
            for game in sorted(set(before.ratings) | set(after.ratings)):
                row: JSONDict = {"game": game}
                for name, book, who in (("keep", before, keep), ("gone", before, gone), ("after", after, keep)):
                    r = book.ratings.get(game, {}).get(who)
                    row[name] = r.at(now).to_json() if r is not None else None
                if row["keep"] or row["gone"]:
                    ratings.append(row)
            seasons_out: list[JSONDict] = []
            for sid in self.circuit.seasons:
                old = {ln.identity: (ln.rank, ln.points) for _, lines in
                       league.season_tables(before, self.circuit, self._tournaments, sid) for ln in lines}
                new = {ln.identity: (ln.rank, ln.points) for _, lines in
                       league.season_tables(after, trial, self._tournaments, sid) for ln in lines}
                moved: list[JSONDict] = [
                    {"identity": w, "name": after.names.get(w, w), "before": old[w][0] if w in old else None,
                     "after": r, "points_before": old[w][1] if w in old else None, "points_after": pts}
                    for w, (r, pts) in new.items() if old.get(w) != (r, pts)]
                if gone in old:
                    moved.append({"identity": gone, "name": before.names.get(gone, gone), "before": old[gone][0],
                                  "after": None, "points_before": old[gone][1], "points_after": None})
                if moved:
                    moved.sort(key=lambda m: int(m["after"] or 10**9))
                    seasons_out.append({"id": sid, "name": self.circuit.seasons[sid].name, "moves": moved})
            return {"keep": keep, "gone": gone, "refused": None, "ratings": ratings, "seasons": seasons_out}

    def seasons(self) -> list[JSONDict]:
        with self._lock:
            return [s.to_json() for s in self.circuit.seasons.values()]

    def season_view(self, sid: str) -> JSONDict:
        """A season's standings (re-ranked from the whole log), each line's move since
        the season's ranks last changed (in this process)."""
        with self._lock:
            self.circuit.season(sid)
            book = self.book()
            cached = self._season_ranks.get(sid)
            if cached is not None and cached[0] == self._version:
                return cached[3]
            view = league.season_view(book, self.circuit, self._tournaments, sid)
            now: dict[str, int] = view["ranks"]
            before: dict[str, int] | None = None
            if cached is not None:  # moved since the ranks last changed (else, the moves shown last)
                before = cached[2] if cached[1] == now else cached[1]
            moved = seasons_mod.moves(list(before.items()), list(now.items())) if before else {}
            for division in view["divisions"]:
                for line in division["lines"]:
                    line["move"] = moved.get(line["identity"], 0)
            view["moves"] = [{"identity": w, "name": book.names.get(w, w), "move": n} for w, n in
                             sorted(moved.items(), key=lambda kv: now[kv[0]])]
            self._season_ranks[sid] = (self._version, now, before, view)
            return view

    def person_view(self, who: str) -> JSONDict:
        """A person's public page data (:func:`hub.tournament.league.person_view`)."""
        with self._lock:
            if not who.startswith(league.UNLINKED):
                self.circuit.person(who)
            book = self.book()
            if who.startswith(league.UNLINKED) and who not in book.entries:
                raise people.UnknownPersonError(f"no person {who!r}", "people_no_person", person=who)
            ranks = {sid: self.season_view(sid)["ranks"] for sid in self.circuit.seasons}
            return league.person_view(book, self.circuit, self._tournaments, self.circuit.root(who),
                                      self.clock(), ranks)

    def game_ratings(self, game: str) -> dict[str, JSONDict]:
        """Every identity's rating in ``game`` seen now (inactivity widens sigma)."""
        with self._lock:
            now = self.clock()
            return {w: r.at(now).to_json() for w, r in self.book().ratings.get(game, {}).items()}

    def win_chances(self, tid: str, mid: str) -> dict[str, float]:
        """Each player's chance to win a match, by player id (shown when it is called)."""
        with self._lock:
            return league.match_chances(self.book(), self._get(tid), mid, self.clock())

    # -- tables on the hub (:mod:`hub.tournament.tables`) ---------------------------------
    def table_changed(self, table_id: str) -> None:
        """A hub table changed: if it plays a called match and its game is over, store
        the match's result (its ranking by player id, its scores)."""
        link = self.tables.by_table.get(table_id)
        if link is None:
            return
        tid, mid = link
        with self._lock:
            t = self._tournaments[tid]
            m = t.matches.get(mid)
            if m is None or m.status != "called" or m.table != table_id:
                return
            detailed = t.spec.ranking == "trigono_detailed"
        found = self.tables.finished_result(table_id, detailed)
        if found is None:
            return
        with self._lock:
            t = self._tournaments[tid]
            m = t.matches.get(mid)
            if m is None or m.status != "called" or m.table != table_id:
                return  # decided meanwhile
            try:
                self._submit(tid, result_entry(t, mid, table_id, *found), "table")
            except HubError as err:
                log.warning("table %s: result refused: %s", table_id, err)

    def catch_up(self) -> None:
        """Report the results of tables that ended while nobody was listening, and
        end the open tables of matches decided meanwhile (a stop between storing a
        result by hand and abandoning its table)."""
        for table_id in list(self.tables.by_table):
            self.table_changed(table_id)
        with self._lock:
            in_play = {table for t in self._tournaments.values() for table in tables_in_play(t)}
            self.tables.release(self._tournaments, set(self.tables.by_table) - in_play, "director")

    def start(self) -> None:
        """Follow the hub's change feed in a thread (idempotent)."""
        if self._thread is not None or self.hub is None:
            return
        self.catch_up()
        self._thread = threading.Thread(target=self._follow, name="hub-tournaments", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop following the hub and snapshot the tournaments (the store stays open)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        if self._since_snapshot:
            self.snapshot()

    def _follow(self) -> None:
        assert self.hub is not None
        last = self.hub.last_change_id()
        while not self._stop.is_set():
            try:
                if self.follows_log:
                    self.tail()
                changes = self.hub.changes_since(last, timeout=0.5)
                if not changes and self.hub.closed:
                    return
                for change in changes:
                    last = max(last, change["id"])
                    if change["kind"] == "table":
                        self.table_changed(change["table"])
                    elif change["kind"] == "reset":
                        self.catch_up()
            except Exception:  # noqa: BLE001 - the follower must survive anything
                log.exception("tournament follower")
                time.sleep(0.5)


def checked_names(body: Mapping[str, Any]) -> JSONDict:
    """The entry with its player's name as the hub stores names (hub/tables/names.py: NFC, nothing
    invisible), refused otherwise. At the door only: an entry already stored replays as
    it was written."""
    entry = dict(body)
    player = entry.get("player")
    if entry.get("type") == "register" and isinstance(player, Mapping) and "name" in player:
        entry["player"] = {**player, "name": player_name(player["name"], "name")}
    return entry
