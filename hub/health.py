"""Board health and the per-boot sequence bookkeeping behind cumulative acks.

:class:`SeqTracker` puts each board's events back in seq order before they are stored:
an event that arrives after a gap is held (not stored, so not acknowledged: the device
keeps it in its ring) until the missing ones arrive; then they are released in order.
Its ack mark is the highest seq up to which everything was released — the cumulative ack
(DESIGN.md §5). A gap is a health alert; one the device does not fill within
``gap_timeout_s`` is given up (another alert) so a lost event cannot stall a board.

>>> t = SeqTracker(gap_timeout_s=5.0)
>>> t.offer("B1", 1, 1, "e1", now=0.0), t.ack_mark("B1", 1)
((['e1'], [], False), 1)
>>> t.offer("B1", 1, 4, "e4", now=0.0), t.ack_mark("B1", 1)
(([], [2, 3], False), 1)
>>> t.offer("B1", 1, 2, "e2", now=1.0)[0], t.offer("B1", 1, 3, "e3", now=1.0)[0], t.ack_mark("B1", 1)
(['e2'], ['e3', 'e4'], 4)
>>> t.offer("B1", 1, 3, "again", now=1.0)
([], [], True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

ItemT = TypeVar("ItemT")


@dataclass
class _BootSeqs(Generic[ItemT]):
    contiguous: int
    held: dict[int, ItemT] = field(default_factory=dict)
    gap_since: float | None = None


class SeqTracker(Generic[ItemT]):
    """Reordering, gaps and cumulative ack marks per (board, boot)."""

    def __init__(self, gap_timeout_s: float = 5.0) -> None:
        self.gap_timeout_s = gap_timeout_s
        self._boots: dict[tuple[str, int], _BootSeqs[ItemT]] = {}

    def restore(self, board: str, boot: int, contiguous: int) -> None:
        """Set a boot's mark as rebuilt from the store after a restart."""
        self._boots[(board, boot)] = _BootSeqs(contiguous)

    def offer(self, board: str, boot: int, seq: int, item: ItemT,
              now: float) -> tuple[list[ItemT], list[int], bool]:
        """Offer an arriving event: (items to store now in order, seqs newly found
        missing, True when it is a duplicate). A boot's first seq is 0 or 1."""
        key = (board, boot)
        seqs = self._boots.get(key)
        if seqs is None:
            seqs = self._boots[key] = _BootSeqs(seq - 1 if seq <= 1 else 0)
        if seq <= seqs.contiguous or seq in seqs.held:
            return [], [], True
        if seq != seqs.contiguous + 1:
            top = max(seqs.held) if seqs.held else seqs.contiguous
            seqs.held[seq] = item
            if seqs.gap_since is None:
                seqs.gap_since = now
            return [], list(range(top + 1, seq)), False
        seqs.contiguous = seq
        return [item, *self._release(seqs)], [], False

    @staticmethod
    def _release(seqs: _BootSeqs[ItemT]) -> list[ItemT]:
        out = []
        while seqs.contiguous + 1 in seqs.held:
            seqs.contiguous += 1
            out.append(seqs.held.pop(seqs.contiguous))
        if not seqs.held:
            seqs.gap_since = None
        return out

    def ack_mark(self, board: str, boot: int) -> int | None:
        """The highest seq of this boot up to which everything is stored, or None."""
        seqs = self._boots.get((board, boot))
        if seqs is None or seqs.contiguous < 0:
            return None
        return seqs.contiguous

    def expire(self, now: float) -> list[tuple[str, int, list[int], list[ItemT]]]:
        """Give up gaps older than the timeout: [(board, boot, seqs given up, items
        released in order)]."""
        given_up = []
        for (board, boot), seqs in self._boots.items():
            if seqs.gap_since is None or now - seqs.gap_since < self.gap_timeout_s:
                continue
            first_held = min(seqs.held)
            lost = list(range(seqs.contiguous + 1, first_held))
            seqs.contiguous = first_held
            released = [seqs.held.pop(first_held), *self._release(seqs)]
            if seqs.held:
                seqs.gap_since = now
            given_up.append((board, boot, lost, released))
        return given_up


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
    overflow: int = 0
    rssi: int | None = None
    beam_faults: set[str] = field(default_factory=set)
    blocked: set[str] = field(default_factory=set)
    fw: str | None = None
    config: str | None = None
    holes: list[str] = field(default_factory=list)
    uptime_s: int | None = None
    mem_free: int | None = None
    table: str | None = None
    alerts: list[dict[str, Any]] = field(default_factory=list)

    def alert(self, at: float, text: str) -> None:
        """A health alert (seq gap, lost events, link lost), newest last; the 20 newest kept."""
        self.alerts.append({"at": at, "text": text})
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
            "overflow": self.overflow,
            "beam_faults": sorted(self.beam_faults),
            "blocked": sorted(self.blocked),
            "fw": self.fw,
            "config": self.config,
            "holes": list(self.holes),
            "uptime_s": self.uptime_s,
            "mem_free": self.mem_free,
            "table": self.table,
            "alerts": [dict(a) for a in self.alerts],
        }

    def seen(self, msg: dict[str, Any], link: str | None, now: float) -> None:
        """Update from any well-formed device message (stored or duplicate)."""
        self.last_seen = now
        kind = msg.get("type")
        if kind != "health":  # a retained health message may outlive the board
            self.status = "online"
        if link is not None:
            self.link = link
        if kind == "hello":
            self.fw, self.config, self.holes = msg["fw"], msg["config"], list(msg["holes"])
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
        elif kind == "blocked":
            self.blocked.add(msg["hole"])
        elif kind == "cleared":
            self.blocked.discard(msg["hole"])
        elif kind == "fault":
            self.beam_faults.add(str(msg.get("hole", msg["reason"])))
