"""Board health and the per-boot sequence bookkeeping behind cumulative acks.

:class:`SeqTracker` puts each board's events back in seq order before they are stored:
an event that arrives after a gap is held (not stored, so not acknowledged: the device
keeps it in its outbox) until the missing ones arrive; then they are released in order.
Its ack mark is the highest seq up to which everything was released — the cumulative ack
(docs/design.md §5). Rules that keep what a board sent (issue 13):

- a seq further than ``window`` past the mark is *refused*: not held, not stored, never
  acknowledged (one forged seq of 2**31 can neither black a board out nor fill memory);
- a gap is given up only when the board cannot fill it any more: its health says the
  oldest event it still holds is later (:meth:`SeqTracker.board_holds_from`), or it kept
  talking for ``give_up_s`` (longer than the firmware's longest resend period) without
  resending. A silent board's gap waits: it may come back with the events;
- the hub asks for a resend (``cmd resend``) when a gap opens, then every
  ``ASK_EVERY_S`` while it lasts (:meth:`SeqTracker.asks`); also when the board's health
  says it produced events that never arrived and no later one shows the gap
  (:meth:`SeqTracker.expect`);
- changes can be rolled back (:meth:`begin`, :meth:`rollback`, :meth:`commit`): the mark
  advances only for what the store took.

>>> t = SeqTracker()
>>> t.offer("B1", 1, 1, "e1", now=0.0).released, t.ack_mark("B1", 1)
(['e1'], 1)
>>> t.offer("B1", 1, 4, "e4", now=0.0).missing, t.ack_mark("B1", 1)
([2, 3], 1)
>>> t.offer("B1", 1, 2, "e2", now=1.0).released, t.offer("B1", 1, 3, "e3", now=1.0).released
(['e2'], ['e3', 'e4'])
>>> t.offer("B1", 1, 3, "again", now=1.0).duplicate, t.offer("B1", 1, 2**31 - 1, "far", now=1.0).refused
(True, True)
>>> t.ack_mark("B1", 1)
4
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

from firmware import protocol

ItemT = TypeVar("ItemT")

SEQ_WINDOW = 1024  # a board's outbox holds 64: far more than any honest jump
GIVE_UP_S = 60.0  # > 16 x resend_ms (32 s), the firmware's longest resend period
ASK_EVERY_S = 2.0  # resend requests while a gap lasts
TAIL_GRACE_S = 1.0  # a missing tail (known from health) may still be in flight this long
BOOTS_PER_BOARD = 4  # boot ids followed per board (older ones are forgotten)

SAME_ID_QUIET_S = 30.0  # a board claiming an id not heard this long is gone (3 health periods)
MAX_CLAIMANTS = 8  # boots or ports remembered per board id (a forged flood of boot ids stays bounded)

MAX_STARTS = 32  # boots remembered per board (the fleet page counts today's)

BootKey = tuple[str, int]
CopyT = TypeVar("CopyT")


def shallow_copy(obj: CopyT) -> CopyT:
    """``copy.copy`` of a plain instance (its attributes shared), at a fifth of the cost:
    taken for each board in every ingest batch (a rollback restores it)."""
    out = object.__new__(type(obj))
    out.__dict__.update(obj.__dict__)
    return out


@dataclass
class _BootSeqs(Generic[ItemT]):
    contiguous: int
    held: dict[int, ItemT] = field(default_factory=dict)
    gap_since: float | None = None  # wall clock when the current gap opened
    asked_at: float | None = None  # last resend request for it
    tail: int | None = None  # the board said it produced up to here (health), not all arrived
    tail_since: float | None = None
    first_seen: float = float("-inf")  # wall clock of its first event here (restored: -inf)


class Offer(NamedTuple, Generic[ItemT]):
    """What offering one event decided."""

    released: list[ItemT]
    """Events to store now, in seq order."""
    missing: list[int]
    """Seqs newly found missing (a gap opened or grew)."""
    duplicate: bool
    refused: bool
    """Too far past the mark (more than the window): dropped, not acknowledged."""


class GivenUp(NamedTuple, Generic[ItemT]):
    """Seqs of a boot given up for good, and the held events that then follow them."""

    board: str
    boot: int
    lost: list[tuple[int, int]]
    """Ranges (first, last) of lost seqs (a range may be long: never a list of seqs)."""
    released: list[ItemT]

    @property
    def lost_count(self) -> int:
        return sum(last - first + 1 for first, last in self.lost)


class SeqTracker(Generic[ItemT]):
    """Reordering, gaps and cumulative ack marks per (board, boot)."""

    def __init__(self, give_up_s: float = GIVE_UP_S, window: int = SEQ_WINDOW) -> None:
        self.give_up_s = give_up_s
        self.window = window
        self._boots: dict[BootKey, _BootSeqs[ItemT]] = {}
        self._journal: dict[BootKey, _BootSeqs[ItemT] | None] | None = None

    # -- transactions ----------------------------------------------------------------
    def begin(self) -> None:
        """Start recording changes so that :meth:`rollback` can undo them."""
        self._journal = {}

    def commit(self) -> None:
        self._journal = None

    def rollback(self) -> None:
        """Undo every change since :meth:`begin` (the store refused the batch)."""
        journal, self._journal = self._journal, None
        for key, before in (journal or {}).items():
            if before is None:
                self._boots.pop(key, None)
            else:
                self._boots[key] = before

    def _touch(self, key: BootKey) -> None:
        if self._journal is not None and key not in self._journal:
            seqs = self._boots.get(key)
            self._journal[key] = None if seqs is None else shallow_copy(seqs)
            if seqs is not None:
                seqs.held = dict(seqs.held)  # the saved copy keeps the old dict

    # -- events ----------------------------------------------------------------------
    def restore(self, board: str, boot: int, contiguous: int) -> None:
        """Set a boot's mark as rebuilt from the store after a restart (restore a board's
        boots oldest first: only its newest ``BOOTS_PER_BOARD`` are kept)."""
        if (board, boot) not in self._boots:
            self._forget_old_boots(board)
        self._boots[(board, boot)] = _BootSeqs(contiguous)

    def offer(self, board: str, boot: int, seq: int, item: ItemT, now: float) -> Offer[ItemT]:
        """Offer an arriving event. A boot's first seq is 0 or 1."""
        key = (board, boot)
        seqs = self._boots.get(key)
        if seqs is not None and (seq <= seqs.contiguous or seq in seqs.held):
            return Offer([], [], True, False)
        if seq > (seqs.contiguous if seqs is not None else 0) + self.window:
            return Offer([], [], False, True)
        self._touch(key)
        if seqs is None:
            self._forget_old_boots(board)
            seqs = self._boots[key] = _BootSeqs(seq - 1 if seq <= 1 else 0, first_seen=now)
        if seq != seqs.contiguous + 1:
            top = max(seqs.held) if seqs.held else seqs.contiguous
            seqs.held[seq] = item
            if seqs.gap_since is None:
                seqs.gap_since, seqs.asked_at = now, None
            return Offer([], list(range(top + 1, seq)), False, False)
        seqs.contiguous = seq
        return Offer([item, *self._release(seqs)], [], False, False)

    def _forget_old_boots(self, board: str) -> None:
        mine = [key for key in self._boots if key[0] == board]
        for key in mine[: max(0, len(mine) - BOOTS_PER_BOARD + 1)]:
            self._touch(key)
            del self._boots[key]  # its held events were never acknowledged: resent if still held

    @staticmethod
    def _release(seqs: _BootSeqs[ItemT]) -> list[ItemT]:
        out = []
        while seqs.contiguous + 1 in seqs.held:
            seqs.contiguous += 1
            out.append(seqs.held.pop(seqs.contiguous))
        if not seqs.held:
            seqs.gap_since = seqs.asked_at = None
        if seqs.tail is not None and seqs.contiguous >= seqs.tail:
            seqs.tail = seqs.tail_since = None
        return out

    def ack_mark(self, board: str, boot: int) -> int | None:
        """The highest seq of this boot up to which everything is stored, or None."""
        seqs = self._boots.get((board, boot))
        if seqs is None or seqs.contiguous < 0:
            return None
        return seqs.contiguous

    def expect(self, board: str, boot: int, last: int, now: float) -> None:
        """The board says (health ``seq``) it produced events up to ``last``: those that
        have not arrived are a missing tail — no later event shows that gap (an event sent
        at QoS 0 while the hub was away, a line lost with a killed hub), so :meth:`asks`
        asks for it after ``TAIL_GRACE_S`` (it may be in flight)."""
        seqs = self._boots.get((board, boot))
        if seqs is None or last <= seqs.contiguous or (seqs.held and last <= max(seqs.held)):
            return
        seqs.tail = last if seqs.tail is None else max(seqs.tail, last)
        if seqs.tail_since is None:
            seqs.tail_since = now

    def held(self, board: str) -> int:
        """Events of ``board`` waiting behind a gap."""
        return sum(len(s.held) for (b, _), s in self._boots.items() if b == board)

    def gaps(self) -> Iterator[tuple[str, int, int, float]]:
        """Open gaps: (board, boot, first missing seq, wall clock when it opened)."""
        for (board, boot), seqs in self._boots.items():
            if seqs.gap_since is not None:
                yield board, boot, seqs.contiguous + 1, seqs.gap_since

    # -- giving up -------------------------------------------------------------------
    def _give_up(self, key: BootKey, below: int) -> GivenUp[ItemT] | None:
        """Give up every missing seq < ``below``; release the held events among and
        after them, in order."""
        seqs = self._boots[key]
        if below <= seqs.contiguous + 1:
            return None
        self._touch(key)
        seqs = self._boots[key]
        lost: list[tuple[int, int]] = []
        released: list[ItemT] = []
        nxt = seqs.contiguous + 1
        for seq in sorted(k for k in seqs.held if k < below):
            if seq > nxt:
                lost.append((nxt, seq - 1))
            released.append(seqs.held.pop(seq))
            nxt = seq + 1
        if nxt < below:
            lost.append((nxt, below - 1))
        seqs.contiguous = below - 1
        released += self._release(seqs)
        return GivenUp(key[0], key[1], lost, released)

    def board_holds_from(self, board: str, oldest: tuple[int, int], only_boot: int | None = None,
                         now: float = float("-inf")) -> list[GivenUp[ItemT]]:
        """The board says (in its health) that the oldest event it still holds is
        ``oldest`` = (boot, seq): whatever is missing before it can never come and is
        given up — of that boot, and of the boots the hub saw *before* it (a board queues
        its events in time order; boot ids are not: the counter restarts after a flash
        erase). With ``only_boot``, only that boot is concluded on (the board did not say
        what it holds of others). A boot the hub never saw starts at ``oldest``: what came
        before was acknowledged elsewhere (another event store) or is gone, and its seqs
        would otherwise stay refused as too far past 0."""
        out = []
        known = self._boots.get((board, oldest[0]))
        if known is None and oldest[1] > 1:
            self._touch((board, oldest[0]))
            self._forget_old_boots(board)
            known = self._boots[(board, oldest[0])] = _BootSeqs(oldest[1] - 1, first_seen=now)
        for key in [k for k in self._boots if k[0] == board]:
            boot, seqs = key[1], self._boots[key]
            if only_boot is not None and boot != only_boot:
                continue
            if boot == oldest[0]:
                below = oldest[1]
            elif known is not None and seqs.first_seen < known.first_seen:
                below = max(seqs.held) + 1 if seqs.held else seqs.contiguous + 1
            else:
                continue
            given = self._give_up(key, below)
            if given is not None:
                out.append(given)
        return out

    def expire(self, now: float, last_heard: Mapping[str, float | None]) -> list[GivenUp[ItemT]]:
        """Give up gaps open for ``give_up_s`` whose board kept talking (heard at least
        ``give_up_s / 2`` after the gap opened: it had time to resend and did not). A
        silent board's gaps wait for it."""
        out = []
        for key, seqs in list(self._boots.items()):
            since = seqs.gap_since
            heard = last_heard.get(key[0])
            if (since is None or now - since < self.give_up_s or heard is None
                    or heard - since < self.give_up_s / 2):
                continue
            given = self._give_up(key, min(seqs.held))
            if given is not None:
                out.append(given)
                seqs = self._boots[key]
                if seqs.held:
                    seqs.gap_since = now
        return out

    def asks(self, now: float) -> list[BootKey]:
        """Gaps to ask a resend for now (when they open, then every ``ASK_EVERY_S``)."""
        out = []
        for key, seqs in self._boots.items():
            missing = seqs.gap_since is not None or (
                seqs.tail_since is not None and now - seqs.tail_since >= TAIL_GRACE_S)
            if missing and (seqs.asked_at is None or now - seqs.asked_at >= ASK_EVERY_S):
                seqs.asked_at = now
                out.append(key)
        return out


class SameIdWatch:
    """Tells two live boards claiming one id (a copied ``local.py``: issue 32.3, 42 + 42
    drops scored as 83 throws on one table) from one board that rebooted, moved to another
    port or came back.

    A board shows who it is in two ways: the boot it is in (each ``hello`` and ``health``
    speaks of the board's current boot; events may be older ones, resent) and, over USB,
    the serial port its lines come in on. One board changes them once and for all (it
    reboots, its cable moves, the hub asks it for a new boot id) and never goes back. Two
    boards under one id take turns — two ports, or two MQTT sessions the broker hands from
    one to the other, each reconnect sending a health of its own boot: a *claimant* (a
    boot, a port) heard again after another took over, within :attr:`quiet_s`, is a
    second board. Once every claimant but one has been silent for :attr:`quiet_s`
    (:meth:`gone`), the board id has one board again.

    >>> watch = SameIdWatch(quiet_s=30.0)
    >>> watch.heard("B1", "boot", "7", "mqtt:hub", 0.0), watch.heard("B1", "boot", "9", "mqtt:hub", 1.0)
    ('', 'switched')
    >>> watch.heard("B1", "boot", "9", "mqtt:hub", 2.0), watch.heard("B1", "boot", "7", "mqtt:hub", 3.0)
    ('', 'found')
    >>> watch.claims("B1", 3.0), watch.gone("B1", 20.0), watch.gone("B1", 33.5)
    ((['mqtt:hub'], [7, 9]), False, True)
    """

    def __init__(self, quiet_s: float = SAME_ID_QUIET_S) -> None:
        self.quiet_s = quiet_s
        self.found: dict[str, float] = {}
        """Board ids claimed by two live boards now → since when."""
        self._current: dict[tuple[str, str], str] = {}  # (board, "boot" | "port") -> claimant
        self._heard: dict[tuple[str, str], dict[str, tuple[float, str]]] = {}  # -> claimant -> (at, link)
        self._taking_turns: dict[str, set[tuple[str, str]]] = {}  # board -> (facet, claimant) seen alternate

    def heard(self, board: str, facet: str, claimant: str, link: str, at: float) -> str:
        """``claimant`` (a boot id, a port: ``facet``) of ``board`` spoke at ``at`` on
        ``link``: ``"found"`` when that shows a second board (newly), ``"switched"`` when
        it took over from another claimant (a reboot, a moved cable: one board so far),
        else ``""``."""
        key = (board, facet)
        heard = self._heard.setdefault(key, {})
        for gone in [c for c, (seen, _) in heard.items() if at - seen > self.quiet_s]:
            del heard[gone]
        current = self._current.get(key)
        back = current is not None and claimant != current and claimant in heard
        heard.pop(claimant, None)
        heard[claimant] = (at, link)  # most recently heard last
        while len(heard) > MAX_CLAIMANTS:
            del heard[next(iter(heard))]
        self._current[key] = claimant
        switched = current is not None and claimant != current
        new = back and board not in self.found
        if new:
            self.found[board] = at
        if switched and board in self.found:  # what alerts name: not a boot one of them left
            self._taking_turns.setdefault(board, set()).update({(facet, claimant), (facet, str(current))})
        return "found" if new else "switched" if switched else ""

    def _live(self, board: str, at: float) -> dict[str, dict[str, tuple[float, str]]]:
        return {facet: {c: v for c, v in self._heard.get((board, facet), {}).items()
                        if at - v[0] <= self.quiet_s} for facet in ("boot", "port")}

    def claims(self, board: str, at: float) -> tuple[list[str], list[int]]:
        """The links (serial ports; the broker over MQTT) and boot ids heard claiming
        ``board`` within :attr:`quiet_s`."""
        turns = self._taking_turns.get(board, set())
        live = {facet: {c: v for c, v in claims.items() if (facet, c) in turns}
                for facet, claims in self._live(board, at).items()}
        links = {link for claims in live.values() for _, link in claims.values()}
        return sorted(links), sorted(int(boot) for boot in live["boot"])

    def gone(self, board: str, at: float) -> bool:
        """True (once) when ``board`` was claimed by two boards and every claimant but one
        has been silent for :attr:`quiet_s` since: one board holds the id again."""
        if board not in self.found or any(len(c) > 1 for c in self._live(board, at).values()):
            return False
        del self.found[board]
        self._taking_turns.pop(board, None)
        return True


def held_from(health: Mapping[str, Any]) -> tuple[tuple[int, int], int | None] | None:
    """What a board's health message says about the events it still holds:
    ``(oldest, only_boot)`` for :meth:`SeqTracker.board_holds_from`, or None when it says
    nothing usable. Firmware that queues several boots states ``oldest_boot`` and
    ``oldest_seq`` in its counters; otherwise ``unacked`` bounds the oldest held seq of the
    message's own boot (``seq - unacked + 1``; ``seq + 1`` when it holds nothing).

    >>> held_from({"boot": 3, "seq": 9, "counters": {"unacked": 2}})
    ((3, 8), 3)
    >>> held_from({"boot": 3, "seq": 9, "counters": {"unacked": 1, "oldest_boot": 2, "oldest_seq": 5}})
    ((2, 5), None)
    >>> held_from({"boot": 3, "seq": 9, "counters": {}}) is None
    True
    """
    counters = health.get("counters") or {}
    if not isinstance(health.get("boot"), int) or not isinstance(health.get("seq"), int):
        return None
    boot, seq = int(health["boot"]), int(health["seq"])
    if "oldest_seq" in counters and "oldest_boot" in counters:
        return (int(counters["oldest_boot"]), int(counters["oldest_seq"])), None
    if "unacked" in counters:
        return (boot, seq - int(counters["unacked"]) + 1), boot
    return None


@dataclass
class BoardHealth:
    """What the hub knows of one board's link and sensors (the view of ``Hub.boards``)."""

    board: str
    status: str = "unknown"  # online | lost | unknown
    link: str | None = None
    last_seen: float | None = None
    boot: int | None = None
    last_seq: int | None = None
    received: int = 0
    resends: int = 0
    gaps: int = 0
    lost_events: int = 0
    corrupt: int = 0
    refused: int = 0  # events too far past the mark (never acknowledged)
    unrefereed: int = 0  # messages heard while no table of this hub binds the board (not stored)
    throttled: int = 0  # messages dropped unread over the budget of a refereed board (hub/devices/flood.py)
    same_id: dict[str, Any] | None = None  # two live boards claim this id: {"since", "links", "boots"}
    set_aside: int = 0  # events stored but not scored while two boards claimed this id
    overflow: int = 0
    rssi: int | None = None
    beam_faults: set[str] = field(default_factory=set)
    blocked: set[str] = field(default_factory=set)
    fw: str | None = None
    config: str | None = None
    crash: str | None = None  # the board's last hello: why its previous life ended
    holes: list[str] = field(default_factory=list)
    uptime_s: int | None = None
    mem_free: int | None = None
    table: str | None = None
    alerts: list[dict[str, Any]] = field(default_factory=list)
    # What the fleet page shows (issue 33): the board's own beam states and counters of its
    # last health, its journal depth, when each hole last saw a palet, its clock's drift
    # against the hub's over the boot, and each boot it started (hello) with its crash.
    beams: dict[str, str] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    crossings: dict[str, float] = field(default_factory=dict)
    clock_skew_ms: float | None = None
    clock_ref: tuple[Any, int, float] | None = None  # (boot, t_us, arrival) of the boot's first health
    starts: list[tuple[float, Any, str | None]] = field(default_factory=list)  # (at, boot, crash)

    def copy(self) -> BoardHealth:
        """An independent copy for a rollback: its lists and sets are copied (their
        items are never changed in place). Cheap, unlike ``copy.deepcopy`` (~100 µs a
        board, per batch, on the ingest path)."""
        out = shallow_copy(self)  # every other field holds an immutable value
        out.beam_faults, out.blocked = set(self.beam_faults), set(self.blocked)
        out.holes, out.alerts = list(self.holes), list(self.alerts)
        out.beams, out.counters, out.crossings = dict(self.beams), dict(self.counters), dict(self.crossings)
        out.starts = list(self.starts)
        return out

    def alert(self, at: float, kind: str, /, **params: Any) -> None:
        """A health alert (seq gap, lost events, link lost) as a ``kind`` with ``params``
        and no words (the web's catalogue, or hub/tables/wording.py at the hub's edges),
        newest last; the 20 newest kept."""
        self.alerts.append({"at": at, "kind": kind, "params": params})
        del self.alerts[:-20]

    @property
    def quality(self) -> float | None:
        """Share of the board's messages that arrived intact and in order (None before any)."""
        bad = self.corrupt + self.gaps
        total = self.received + bad
        return None if total == 0 else round(self.received / total, 3)

    def to_json(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "status": self.status,
            "link": self.link,
            "last_seen": self.last_seen,
            "boot": self.boot,
            "last_seq": self.last_seq,
            "quality": self.quality,
            "rssi": self.rssi,
            "received": self.received,
            "resends": self.resends,
            "gaps": self.gaps,
            "lost_events": self.lost_events,
            "corrupt": self.corrupt,
            "refused": self.refused,
            "unrefereed": self.unrefereed,
            "throttled": self.throttled,
            "same_id": None if self.same_id is None else dict(self.same_id),
            "set_aside": self.set_aside,
            "overflow": self.overflow,
            "beam_faults": sorted(self.beam_faults),
            "blocked": sorted(self.blocked),
            "fw": self.fw,
            "config": self.config,
            "crash": self.crash,
            "holes": list(self.holes),
            "uptime_s": self.uptime_s,
            "mem_free": self.mem_free,
            "table": self.table,
            "alerts": [dict(a) for a in self.alerts],
            "beams": dict(self.beams),
            "counters": dict(self.counters),
            "crossings": dict(self.crossings),
            "clock_skew_ms": self.clock_skew_ms,
            "starts": [{"at": at, "boot": boot, "crash": crash} for at, boot, crash in self.starts],
        }

    def seen(self, msg: dict[str, Any], link: str | None, now: float, retained: bool = False) -> None:
        """Update from any well-formed device message (stored or duplicate). Any message
        the board sent now brings it back online, its health messages too (issue 32.10:
        a board back without rebooting says only that); not one the broker kept
        (``retained``: MQTT hands a new subscriber the board's last health, which may
        outlive the board)."""
        self.last_seen = now
        kind = msg.get("type")
        if not retained:
            self.status = "online"
        if link is not None:
            self.link = link
        if kind == "hello":
            self.fw, self.config, self.holes = msg["fw"], msg["config"], list(msg["holes"])
            crash = msg.get("crash")
            if crash and crash != self.crash:  # a resent hello alerts once
                self.alert(now, "crashed", crash=crash)
            self.crash = crash
            if not self.starts or msg.get("boot") != self.starts[-1][1]:  # a resent hello is no new start
                self.starts.append((now, msg.get("boot"), crash))
                del self.starts[:-MAX_STARTS]
        elif kind == "health":
            self.uptime_s, self.mem_free = msg["uptime_s"], msg["mem_free"]
            self.overflow = msg["overflow"]
            if isinstance(msg.get("rssi"), int):
                self.rssi = msg["rssi"]
            beams = msg["beams"]
            self.blocked = {h for h, s in beams.items() if s == "blocked"}
            # The board's own view of its beams is the latest truth: a fault that a
            # later self-test cleared disappears here.
            self.beam_faults = {h for h, s in beams.items() if s == "fault"}
            self.beams = dict(beams)
            self.counters = {k: v for k, v in (msg.get("counters") or {}).items() if isinstance(v, int)}
            self._clock(msg, now)
        elif kind in ("drop", "bounce"):
            self.crossings[msg["hole"]] = now
        elif kind == "blocked":
            self.crossings[msg["hole"]] = now
            self.blocked.add(msg["hole"])
        elif kind == "cleared":
            self.blocked.discard(msg["hole"])
        elif kind == "fault":
            self.beam_faults.add(str(msg.get("hole", msg["reason"])))

    def _clock(self, health: dict[str, Any], now: float) -> None:
        """How far the board's clock drifted from the hub's since the boot's first health
        (ms, board minus hub; the link's delay shows too). ``t_us`` wraps every 17.9 min:
        the reference moves up at each health, so one step never wraps twice."""
        boot, t_us = health.get("boot"), health.get("t_us")
        if not isinstance(t_us, int):
            return
        ref = self.clock_ref
        if ref is None or ref[0] != boot:
            self.clock_ref, self.clock_skew_ms = (boot, t_us, now), 0.0
            return
        step_ms = protocol.t_us_diff(t_us, ref[1]) / 1000 - (now - ref[2]) * 1000
        self.clock_skew_ms = round((self.clock_skew_ms or 0.0) + step_ms, 1)
        self.clock_ref = (ref[0], t_us, now)
