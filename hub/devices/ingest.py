"""Device ingest: board messages → log entries to store, acks to send, health alerts.

Pure bookkeeping — no threads, no clock, no I/O — so every rule here is testable with
plain values. The hub's ingest thread (:mod:`hub.facade`) drives it:

1. :func:`take` a batch of arrivals: board health is updated, each board's events are
   put back in seq order (a later one waits, unstored and unacknowledged, for a missing
   one: :class:`hub.devices.health.SeqTracker`), duplicates are dropped (the device resent
   because it missed an ack), and what is ready comes back as :class:`Entry` values;
2. the hub stores those entries in one commit;
3. :func:`stored` with the ids the store gave: what to apply to which table (and the
   health counters that depend on whether the store already had an event);
4. the hub applies them, *then* sends the intake's acks. Acks are cumulative ("every
   event of this boot up to seq N is stored"), so under load one per board and boot every
   :data:`ACK_EVERY_S` says it all; the rest wait in the state until :func:`due_acks`.

:func:`expire` gives up seq gaps the board can no longer fill (their held events become
ready), asks boards to resend what a gap misses (``cmd resend``), asks again a board
told to take a fresh boot id that has not yet (``cmd newboot``) and marks silent boards
lost; the hub's timer calls it. The rules of giving up are :class:`hub.devices.health.SeqTracker`'s:
never while the board may still hold the missing events.

Failure isolation (issue 13): :meth:`IngestState.begin` before :func:`take`, then
:meth:`IngestState.commit` once the store took the entries, or
:meth:`IngestState.rollback` when it refused them — the seq marks and board health are
then as before, so nothing is acknowledged that was not stored, and the hub retries
board by board, then message by message (:mod:`hub.devices.ingest_loop`).

>>> from firmware import protocol
>>> state: IngestState[str] = IngestState(bound={"B1": "t1"})
>>> drop = {"type": "drop", "board": "B1", "boot": 1, "seq": 1, "hole": "big", "t_us": 5}
>>> intake = take(state, [Arrival("link", drop, "fake", at=10.0)], now=0.0)
>>> [(e.table_id, e.seq) for e in intake.entries], intake.acks
([('t1', 1)], [Ack(link='link', board='B1', msg={'type': 'ack', 'boot': 1, 'seq': 1})])
>>> [(table_id, e.id) for table_id, e in stored(state, intake, [41])]
[('t1', 41)]
>>> take(state, [Arrival("link", {**drop, "seq": 3}, "fake", at=11.0)], now=1.0).alerts
[Alert(board='B1', at=11.0, text='seq gap: seq 2 of boot 1 missing')]
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from firmware import protocol
from hub.devices.health import ASK_EVERY_S, BoardHealth, GivenUp, SameIdWatch, SeqTracker, held_from
from hub.log.ratelog import RateLog
from hub.log.store import Entry, with_id
from hub.tables import wording

JSONDict = dict[str, Any]
LinkT = TypeVar("LinkT", bound=Hashable)

ALERT_LOG = RateLog(logging.getLogger("hub.devices"), every_s=30.0)
MAX_UNREGISTERED = 16  # boards bound to no table kept with full health (and their events stored)
MAX_STRANGERS = 64  # names counted beyond that (the least recent go); never stored nor acked
ACK_EVERY_S = 0.25  # at most one ack per link, board and boot this often (devices resend after 2 s)
REORDER_US = 60_000_000  # how far a board's later message may show an earlier t_us (an event is
# stamped with its leading edge and sent once decided: confirm_ms, stuck_ms; firmware/config.py)

ClockKey = tuple[str, int]  # (board, boot)
ClockPlace = tuple[int, int]  # where a message falls in its boot: (seq, 0) an event, (seq, 1) a health


@dataclass(frozen=True, slots=True)
class Arrival(Generic[LinkT]):
    """One decoded device message as it arrived: on which link object (acks go back the
    same way), under which link name (``serial:/dev/ttyACM0``), at what wall-clock time;
    ``raw`` is the device's own JSON text when the link kept it (stored as is)."""

    link: LinkT
    msg: JSONDict
    link_name: str
    at: float
    raw: str | None = None
    retained: bool = False
    """Kept by the MQTT broker and handed over on subscribing (a board's last health):
    not a sign the board is there now."""


@dataclass(frozen=True, slots=True)
class Ack(Generic[LinkT]):
    """A cumulative ack to send to ``board`` over ``link`` (only after the commit)."""

    link: LinkT
    board: str
    msg: JSONDict


@dataclass(frozen=True, slots=True)
class Alert:
    """A board-health alert (also kept in the board's :class:`BoardHealth`)."""

    board: str
    at: float
    text: str


@dataclass
class Intake(Generic[LinkT]):
    """What one step of ingest decided."""

    ready: list[Arrival[LinkT]] = field(default_factory=list)
    """Arrivals to store now, in order."""
    entries: list[Entry] = field(default_factory=list)
    """One log entry per ready arrival, same order (no ids yet)."""
    acks: list[Ack[LinkT]] = field(default_factory=list)
    """Send these after the entries are committed, never before."""
    asks: list[Ack[LinkT]] = field(default_factory=list)
    """Resend requests (``cmd resend``) for boards with a gap; send after the acks."""
    alerts: list[Alert] = field(default_factory=list)
    boards: list[str] = field(default_factory=list)
    """Boards whose health changed (for the change feed)."""


AckKey = tuple[Hashable, str, int]  # (link, board, boot)


@dataclass
class Stranger:
    """A board name heard beyond :data:`MAX_UNREGISTERED` (or ignored by the referee):
    only counted. Its messages are neither stored nor acknowledged, so a real board keeps
    them and delivers them once a table binds it."""

    board: str
    messages: int
    first_seen: float
    last_seen: float
    link: str | None
    ignored: bool = False

    def to_json(self) -> JSONDict:
        return {"board": self.board, "messages": self.messages, "first_seen": self.first_seen,
                "last_seen": self.last_seen, "link": self.link, "admitted": False,
                "ignored": self.ignored}


@dataclass
class IngestState(Generic[LinkT]):
    """Everything ingest remembers between batches."""

    bound: dict[str, str] = field(default_factory=dict)
    """Physical board → id of the table its events go to."""
    health: dict[str, BoardHealth] = field(default_factory=dict)
    seqs: SeqTracker[Arrival[LinkT]] = field(default_factory=SeqTracker)
    ack_sent: dict[AckKey, float] = field(default_factory=dict)
    acks_due: dict[AckKey, LinkT] = field(default_factory=dict)
    links: dict[str, LinkT] = field(default_factory=dict)
    """Board → the link it was last heard on (resend requests go there)."""
    ignored: set[str] = field(default_factory=set)
    """Boards the referee chose to ignore (until bound to a table)."""
    registered: set[str] = field(default_factory=set)
    """Boards this hub referees although no table binds them yet (``trigono hub --board``):
    their events are stored and acknowledged like a bound board's."""
    strangers: dict[str, Stranger] = field(default_factory=dict)
    """Boards only counted (bounded, least recently heard first)."""
    stranger_messages: int = 0
    """Every message of a board only counted, evicted names included."""
    clocks: dict[ClockKey, int] = field(default_factory=dict)
    """(board, boot) → the newest ``t_us`` the board showed with every event up to it
    stored (:meth:`board_clock`)."""
    clock_shown_by: dict[ClockKey, tuple[ClockPlace, float]] = field(default_factory=dict)
    """(board, boot) → where the message that showed :attr:`clocks` falls in the boot and
    when it arrived (:meth:`_show_clock`)."""
    clock_claims: dict[ClockKey, tuple[int, int, float]] = field(default_factory=dict)
    """(board, boot) → (seq, t_us, arrival) of its newest health message, shown once seq
    is stored."""
    hellos: dict[tuple[str, int], tuple[Any, Any]] = field(default_factory=dict)
    """(board, boot) → (t_us, config) of its hello: a different hello under the same key
    is another board life reusing the boot id (issue 14, finding 5)."""
    reused: set[tuple[str, int]] = field(default_factory=set)
    """(board, boot) found reused: nothing more of it is stored or acknowledged."""
    newboots: dict[str, tuple[int, float]] = field(default_factory=dict)
    """Board → (its reused boot, when ``cmd newboot`` was last sent) until its hello under
    a boot id not seen before arrives. Asked again every :data:`hub.devices.health.ASK_EVERY_S`:
    hub → board messages go at QoS 0, so one sent while the broker was down is lost, and
    the board, acknowledged nothing, may wait up to 16 x resend_ms before it resends."""
    same_id: SameIdWatch = field(default_factory=SameIdWatch)
    """Board ids two live boards claim (:func:`_watch_same_id`): their events are set aside."""
    _saved: dict[str, BoardHealth | None] | None = None

    def board(self, board: str) -> BoardHealth:
        """The board's health record (created on first sight)."""
        h = self.health.get(board)
        if self._saved is not None and board not in self._saved:
            self._saved[board] = None if h is None else h.copy()
        if h is None:
            h = self.health[board] = BoardHealth(board, table=self.bound.get(board))
        return h

    def board_clock(self, board: str, boot: int) -> int | None:
        """How far the board's own time is known to have gone (``t_us``) with every event
        it produced before that stored: the referee closes a settle window on it."""
        return self.clocks.get((board, boot))

    def _show_clock(self, key: ClockKey, t_us: int, place: ClockPlace, at: float) -> None:
        """A stored message shows the board's time ``t_us``; ``place`` says where it falls
        in the boot (its seq; a health after the event of its seq), ``at`` when it arrived.

        The board's time is only known modulo 2**30 µs (ticks_us wraps every 17.9 min),
        so a signed difference cannot tell "earlier" from "more than 9 minutes later":
        after a silence of 9 to 18 minutes the newer time read as older and the clock
        stuck, for up to 9 minutes, on a time that made every settle window look over
        (issue 32.2: a knock-in scored as a throw of its own). The order the board made
        its messages in decides instead: a message made later shows a later time, but
        for one stamped a little earlier than the one before it (an event carries its
        leading edge and is sent once decided) that arrived with it — within
        :data:`REORDER_US` of the known time on the board's clock and of its arrival on
        the hub's. A message made earlier never moves the clock back."""
        known = self.clocks.get(key)
        if known is not None:
            shown_place, shown_at = self.clock_shown_by[key]
            if place < shown_place:
                return
            # Health messages with no event between them share a place (seq, 1): the board made
            # them in the order its clock says, a few seconds apart — far inside the clock's
            # signed range. Refusing them froze a quiet board's clock at its first health, and
            # every window waiting on it closed only at FALLBACK_S (a floor throw scored 11 s late).
            if place == shown_place and (place[1] == 0 or protocol.t_us_diff(t_us, known) <= 0):
                return
            step = protocol.t_us_diff(t_us, known)
            if -REORDER_US <= step <= 0 and (at - shown_at) * 1e6 < REORDER_US:
                self.clock_shown_by[key] = (place, shown_at)  # seen: what was made before it is older
                return
        self.clocks[key] = t_us
        self.clock_shown_by[key] = (place, at)

    def admits(self, board: str, at: float, link: str | None) -> bool:
        """Whether ``board``'s messages are taken (stored, acknowledged): yes when it is
        bound to a table or already known, or while fewer than :data:`MAX_UNREGISTERED`
        unbound boards are; else (or when ignored) it is only counted (issue 13: 2,206
        made-up board ids once grew the board list without limit). A board registered to
        this hub (``trigono hub --board``) is taken like a bound one: a fleet of sixty
        spares kept only sixteen (issue 33)."""
        if board in self.bound or (board in self.registered and board not in self.ignored):
            return True
        if board not in self.ignored:
            if board in self.health:
                return True
            if sum(1 for b in self.health if b not in self.bound) < MAX_UNREGISTERED:
                return True
        self.stranger_messages += 1
        known = self.strangers.pop(board, None)
        if known is None:
            known = Stranger(board, 0, at, at, link, board in self.ignored)
            while len(self.strangers) >= MAX_STRANGERS:
                del self.strangers[next(iter(self.strangers))]
        known.messages, known.last_seen, known.link = known.messages + 1, at, link or known.link
        self.strangers[board] = known  # most recent last
        return False

    def referees(self, board: str) -> bool:
        """Whether this hub referees ``board`` (bound to one of its tables, or registered
        to it): only then are its messages stored and acknowledged. Another hub on the
        same broker may referee it: acknowledging its events here would make the board
        discard them (issue 24.2: hub A lost 21 of 73 events while it was down)."""
        return board in self.bound or board in self.registered

    def ignore(self, board: str) -> None:
        """The referee ignores a board bound to no table: it is only counted from now on."""
        if board in self.bound:
            return
        self.ignored.add(board)
        h = self.health.pop(board, None)
        if h is not None:
            self.strangers[board] = Stranger(board, h.received + h.resends + h.corrupt + h.refused + h.unrefereed,
                                             h.last_seen or 0.0, h.last_seen or 0.0, h.link, True)
        elif board in self.strangers:
            self.strangers[board].ignored = True

    def unregistered(self) -> list[JSONDict]:
        """Boards heard that no table binds: the admitted ones (full health, events stored)
        and the ones only counted — for the admin to bind or ignore."""
        out = [{"board": b, "messages": h.received + h.resends + h.corrupt + h.refused + h.unrefereed,
                "first_seen": None, "last_seen": h.last_seen, "link": h.link, "admitted": True,
                "ignored": False} for b, h in sorted(self.health.items()) if b not in self.bound]
        return out + [s.to_json() for s in reversed(self.strangers.values())]

    def begin(self) -> None:
        """Record seq marks and board health from here on (see :meth:`rollback`)."""
        self.seqs.begin()
        self._saved = {}

    def in_transaction(self) -> bool:
        """Between :meth:`begin` and :meth:`commit` or :meth:`rollback`."""
        return self._saved is not None

    def commit(self) -> None:
        self.seqs.commit()
        self._saved = None

    def rollback(self) -> None:
        """Back to the state of :meth:`begin`: the store did not take the entries."""
        self.seqs.rollback()
        saved, self._saved = self._saved or {}, None
        for board, h in saved.items():
            if h is None:
                self.health.pop(board, None)
            else:
                self.health[board] = h

    def bind(self, board: str, table_id: str) -> None:
        """Route the board's events to ``table_id`` from now on."""
        self.bound[board] = table_id
        self.ignored.discard(board)
        self.strangers.pop(board, None)
        self.board(board).table = table_id

    def restore(self, last_seen: dict[str, float],
                marks: dict[tuple[str, int], tuple[int, int, int]],
                hellos: Mapping[tuple[str, int], Mapping[str, Any]] | None = None) -> None:
        """Rebuild seq marks and health after a restart from what the store says: when
        each board was last seen, (low, high, count) of the stored seqs per boot, and the
        hello stored for each boot (so a boot id reused by another board life is still
        told after the restart: :func:`_reused_boot`)."""
        for key, hello in (hellos or {}).items():
            self.hellos[key] = hello_mark(hello)
        for board, seen in last_seen.items():
            h = self.board(board)
            h.last_seen, h.status = seen, "unknown"
        latest: dict[str, tuple[int, int]] = {}
        for (board, boot), (_low, high, _count) in sorted(marks.items()):
            # Events are stored in seq order, so everything up to the highest stored seq
            # is stored (or was given up as lost): that is the ack mark. Older boots too
            # (their newest BOOTS_PER_BOARD): a board that keeps its outbox across a reset
            # may still resend an older boot's events.
            self.seqs.restore(board, boot, high)
            if board not in latest or boot > latest[board][0]:
                latest[board] = (boot, high)
        for board, (boot, high) in latest.items():
            h = self.board(board)
            h.boot, h.last_seq = boot, high


def take(state: IngestState[LinkT], batch: Iterable[Arrival[LinkT]], now: float) -> Intake[LinkT]:
    """One batch of arrivals: health, reordering, dedupe; entries to store and acks.

    ``now`` is a monotonic clock in seconds (it only paces acks); arrival times come
    from each :class:`Arrival`. Duplicates (board, boot, seq) are acknowledged again but
    neither stored nor applied.
    """
    intake: Intake[LinkT] = Intake()
    to_ack: dict[AckKey, LinkT] = {}
    wall = 0.0
    for item in batch:
        msg = item.msg
        board = msg["board"]
        wall = max(wall, item.at)
        if not state.admits(board, item.at, item.link_name):
            continue
        h = state.board(board)
        state.links[board] = item.link
        if board not in intake.boards:
            intake.boards.append(board)
        if msg["type"] != "status":
            h.seen(msg, item.link_name, item.at, item.retained)
        if not state.referees(board):
            # Heard (health, for the admin to bind it), but neither stored nor acknowledged:
            # the board keeps its events for the hub that referees it, or for a table
            # this hub binds it to later; a made-up id cannot fill the store.
            h.unrefereed += 1
            continue
        if not item.retained and msg["type"] != "status":
            _watch_same_id(state, intake, item)
        if msg["type"] == "status" and board in state.same_id.found:
            continue  # the broker handing one session to the other: not a link lost each time
        if msg["type"] == "health":
            if all(isinstance(msg.get(k), int) for k in ("boot", "seq", "t_us")):
                state.clock_claims[(board, msg["boot"])] = (msg["seq"], msg["t_us"], item.at)
                state.seqs.expect(board, msg["boot"], msg["seq"], item.at)
            held = held_from(msg)
            if held is not None:
                given = state.seqs.board_holds_from(board, *held, now=item.at)
                _given_up(state, intake, given, item.at, to_ack, "not_held")
        if msg["type"] not in protocol.EVENT_TYPES:
            intake.ready.append(item)
            continue
        if _reused_boot(state, intake, item):
            continue
        offer = state.seqs.offer(board, msg["boot"], msg["seq"], item, item.at)
        if offer.refused:
            h.refused += 1
            _alert(state, intake, board, item.at, "seq_refused", seq=msg["seq"], boot=msg["boot"],
                   window=state.seqs.window)
            continue
        to_ack[(item.link, board, msg["boot"])] = item.link
        if offer.duplicate:
            h.resends += 1
        if offer.missing:
            h.gaps += len(offer.missing)
            _alert(state, intake, board, item.at, "seq_gap", seqs=[[offer.missing[0], offer.missing[-1]]],
                   boot=msg["boot"])
        intake.ready.extend(offer.released)
    intake.entries = [_entry(state, item) for item in intake.ready]
    intake.acks = _pace(state, to_ack, now)
    intake.asks += _asks(state, wall)  # after any newboot asked above
    return intake


def _watch_same_id(state: IngestState[LinkT], intake: Intake[LinkT], item: Arrival[LinkT]) -> None:
    """Two live boards under one id (issue 32.3: a copied ``local.py`` merged two boards'
    drops onto one table) are found by :class:`hub.devices.health.SameIdWatch` from the
    boot each ``hello`` and ``health`` speaks of and the serial port each line comes in on.
    From then on the id's events are *set aside*: stored and acknowledged (nothing a board
    sent is lost: both boards forget them as they would any stored event), never applied to
    a table (:func:`_entry`), counted (``set_aside``); a ``same_id`` alert names the links
    and boots, the board's health says so (``same_id``) until every claimant but one has
    been silent for ``SAME_ID_QUIET_S``, and the remaining board is scored again. A boot
    switch asks the board for a health message at once: over MQTT both boards get the
    request, and their answers tell them apart without waiting for the next period."""
    msg, board, watch = item.msg, item.msg["board"], state.same_id
    verdicts = []
    if msg["type"] in ("hello", "health") and isinstance(msg.get("boot"), int):
        verdicts.append(watch.heard(board, "boot", str(msg["boot"]), item.link_name, item.at))
    if item.link_name.startswith("serial:"):
        verdicts.append(watch.heard(board, "port", item.link_name, item.link_name, item.at))
    if "switched" in verdicts and msg["type"] in ("hello", "health"):
        intake.asks.append(Ack(item.link, board, protocol.command(0, "health")))
    watch.gone(board, item.at)
    _show_same_id(state, intake, board, item.at)


def _show_same_id(state: IngestState[Any], intake: Intake[Any], board: str, at: float) -> None:
    """The board's health says what the watch knows: two boards claim the id (an alert
    naming their links and boots), or one holds it again (an alert too). From the health,
    not the watch's verdicts, so a batch the store refused (its health rolled back) says
    it again."""
    watch, h = state.same_id, state.board(board)
    if board in watch.found:
        links, boots = watch.claims(board, at)
        if h.same_id is None:
            _alert(state, intake, board, at, "same_id", links=links, boots=boots, seconds=round(watch.quiet_s))
        elif h.same_id["links"] == links and h.same_id["boots"] == boots:
            return
        h.same_id = {"since": watch.found[board], "links": links, "boots": boots}
    elif h.same_id is not None:
        links, boots = h.same_id["links"], h.same_id["boots"]
        h.same_id = None
        _alert(state, intake, board, at, "same_id_gone", links=links, boots=boots, seconds=round(watch.quiet_s))
    else:
        return
    if board not in intake.boards:
        intake.boards.append(board)


def hello_mark(hello: Mapping[str, Any]) -> tuple[Any, Any]:
    """What tells one board life's hello from another's under the same boot id: its
    clock when sent and its config hash (a resend of the same hello is equal)."""
    return hello.get("t_us"), hello.get("config")


def _reused_boot(state: IngestState[LinkT], intake: Intake[LinkT], item: Arrival[LinkT]) -> bool:
    """True when the event's (board, boot) is used by a second board life: a hello that
    differs from the one stored under that boot (a flash erased, a spare with the same
    id). Its events would look like resends of the first life's, be dropped and
    acknowledged, and the board would throw them away: so none is acknowledged, and the
    board is told to take a fresh boot id (``cmd newboot``: it moves its unacknowledged
    events there). Hellos stored before a hub restart are known too (:meth:`IngestState.restore`)."""
    msg = item.msg
    board, boot = key = (msg["board"], msg["boot"])
    if msg["type"] == "hello" and key not in state.reused:
        if key not in state.hellos:  # a boot id not seen before: a newboot asked is done
            state.newboots.pop(board, None)
        mark = hello_mark(msg)
        first = state.hellos.setdefault(key, mark)
        if first != mark:
            state.reused.add(key)
            _alert(state, intake, board, item.at, "boot_reused", boot=boot)
    if key not in state.reused:
        return False
    if all(a.board != board or a.msg.get("cmd") != "newboot" for a in intake.asks):  # once a batch
        intake.asks.append(Ack(item.link, board, protocol.command(boot, "newboot")))
        state.newboots[board] = (boot, item.at)
    return True


def stored(state: IngestState[LinkT], intake: Intake[LinkT],
           ids: list[int | None]) -> list[tuple[str, Entry]]:
    """The intake's entries were stored with these ids (None: the store had that event
    already, from before a restart). Returns (table id, stored entry) to apply, in order.
    """
    out: list[tuple[str, Entry]] = []
    for item, entry, entry_id in zip(intake.ready, intake.entries, ids, strict=True):
        msg = item.msg
        h = state.board(msg["board"])
        if msg["type"] == "status":
            if msg["status"] == "lost" and h.status != "lost":
                _alert(state, intake, h.board, entry.at, "link_lost", link=item.link_name)
            h.status, h.link = msg["status"], item.link_name
            continue
        if entry.seq is None:
            continue
        if entry_id is None:
            h.resends += 1
            continue
        h.received += 1
        if h.boot != msg["boot"] or h.last_seq is None or msg["seq"] > h.last_seq:
            h.boot, h.last_seq = msg["boot"], msg["seq"]
        if entry.table_id is not None:
            out.append((entry.table_id, with_id(entry, entry_id)))
        elif h.same_id is not None:
            h.set_aside += 1
    for item in intake.ready:  # stored in seq order: each one shows the board's time
        msg = item.msg
        if msg["type"] in protocol.EVENT_TYPES:
            state._show_clock((msg["board"], msg["boot"]), msg["t_us"], (msg["seq"], 0), item.at)
    for key, (seq, t_us, at) in list(state.clock_claims.items()):
        mark = state.seqs.ack_mark(*key)
        if mark is not None and mark >= seq:
            state._show_clock(key, t_us, (seq, 1), at)
            del state.clock_claims[key]
    return out


def expire(state: IngestState[LinkT], now: float, mono: float,
           lost_after_s: float) -> Intake[LinkT]:
    """Give up seq gaps older than the tracker's timeout (their held events become
    ready, with acks) and mark boards silent for ``lost_after_s`` as lost. ``now`` is
    the wall clock (arrival times are), ``mono`` the monotonic one that paces acks."""
    intake: Intake[LinkT] = Intake()
    to_ack: dict[AckKey, LinkT] = {}
    heard = {board: h.last_seen for board, h in state.health.items()}
    _given_up(state, intake, state.seqs.expire(now, heard), now, to_ack,
              "not_resent")
    for board in [b for b, h in state.health.items() if h.same_id is not None]:
        state.same_id.gone(board, now)
        _show_same_id(state, intake, board, now)
    for h in state.health.values():
        if h.status == "online" and h.last_seen is not None and now - h.last_seen > lost_after_s:
            h.status = "lost"
            _alert(state, intake, h.board, now, "silent", seconds=round(lost_after_s))
            intake.boards.append(h.board)
    intake.entries = [_entry(state, item) for item in intake.ready]
    intake.acks = _pace(state, to_ack, mono)
    intake.asks = _asks(state, now)
    return intake


def _given_up(state: IngestState[LinkT], intake: Intake[LinkT], given: list[GivenUp[Arrival[LinkT]]],
              at: float, to_ack: dict[AckKey, LinkT], why: str) -> None:
    for g in given:
        h = state.board(g.board)
        h.lost_events += g.lost_count
        _alert(state, intake, g.board, at, "gave_up", why=why, seqs=[list(r) for r in g.lost], boot=g.boot)
        intake.ready.extend(g.released)
        for item in g.released:
            to_ack[(item.link, g.board, g.boot)] = item.link
        link = state.links.get(g.board)
        if link is not None:  # the mark moved: the board may drop what it held below it
            to_ack[(link, g.board, g.boot)] = link
        if g.board not in intake.boards:
            intake.boards.append(g.board)


def _asks(state: IngestState[LinkT], now: float) -> list[Ack[LinkT]]:
    """``cmd resend`` for each board with a gap to ask about now (boot 0: any boot, so a
    board that rebooted still resends an older boot's events it keeps); ``cmd newboot``
    again to a board that has not taken a fresh boot id :data:`ASK_EVERY_S` after it was
    asked (:attr:`IngestState.newboots`)."""
    out: list[Ack[LinkT]] = []
    for board, _boot in state.seqs.asks(now):
        link = state.links.get(board)
        if link is not None and all(a.board != board for a in out):
            out.append(Ack(link, board, protocol.command(0, "resend")))
    for board, (boot, asked_at) in state.newboots.items():
        link = state.links.get(board)
        if link is not None and now - asked_at >= ASK_EVERY_S:
            state.newboots[board] = (boot, now)
            out.append(Ack(link, board, protocol.command(boot, "newboot")))
    return out


def due_acks(state: IngestState[LinkT], now: float) -> list[Ack[LinkT]]:
    """The acks held back by pacing, all sent now (the timer calls this every tick)."""
    if not state.acks_due:
        return []
    due, state.acks_due = state.acks_due, {}
    return _pace(state, due, now + ACK_EVERY_S)


def _entry(state: IngestState[Any], item: Arrival[Any]) -> Entry:
    msg, board = item.msg, item.msg["board"]
    if msg["type"] in protocol.EVENT_TYPES:
        # Two boards claiming the id: stored, acknowledged, never scored (_watch_same_id).
        table_id = None if board in state.same_id.found else state.bound.get(board)
        return Entry.new("device", msg, table_id=table_id, at=item.at, board=board,
                         boot=msg["boot"], seq=msg["seq"], raw=item.raw)
    # health and status: stored, neither deduplicated nor routed
    return Entry.new("device", msg, at=item.at, board=board, raw=item.raw)


def _pace(state: IngestState[LinkT], to_ack: dict[AckKey, LinkT], now: float) -> list[Ack[LinkT]]:
    acks: list[Ack[LinkT]] = []
    for key, link in to_ack.items():
        _, board, boot = key
        if now - state.ack_sent.get(key, -1.0) >= ACK_EVERY_S:
            mark = state.seqs.ack_mark(board, boot)
            if mark is not None:
                acks.append(Ack(link, board, protocol.ack(boot, mark)))
            state.ack_sent[key] = now
            state.acks_due.pop(key, None)
        else:
            state.acks_due[key] = link
    return acks


def _alert(state: IngestState[Any], intake: Intake[Any], board: str, at: float, kind: str,
           **params: Any) -> None:
    state.board(board).alert(at, kind, **params)
    text = wording.text(kind, params)
    intake.alerts.append(Alert(board, at, text))
    # The hub's log too (issue 24.8: gaps and refusals reached board health only), one
    # line per board and kind per ALERT_LOG_EVERY_S with the count of the others.
    ALERT_LOG.warning(f"{board}:{kind}", "board %s: %s", board, text)
