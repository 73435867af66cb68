"""Board health and the per-boot sequence bookkeeping behind cumulative acks.

:class:`SeqTracker` knows, for each (board, boot), the highest seq up to which every
event is stored — the cumulative ack (DESIGN.md §5) — and which seqs are missing above
it (a gap: a health alert). A gap the device does not fill within ``gap_timeout_s`` is
given up (another alert) so one lost event cannot stall the device's ring forever.

>>> t = SeqTracker(gap_timeout_s=5.0)
>>> t.accept("B1", 1, 1, now=0.0), t.ack_mark("B1", 1)
([], 1)
>>> t.accept("B1", 1, 4, now=0.0), t.ack_mark("B1", 1)
([2, 3], 1)
>>> t.accept("B1", 1, 2, now=1.0), t.accept("B1", 1, 3, now=1.0), t.ack_mark("B1", 1)
([], [], 4)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class _BootSeqs:
    contiguous: int
    above: set[int] = field(default_factory=set)
    gap_since: float | None = None


class SeqTracker:
    """Cumulative ack marks and gaps per (board, boot); only the newest boot of a board
    is kept (older boots are finished)."""

    def __init__(self, gap_timeout_s: float = 5.0) -> None:
        self.gap_timeout_s = gap_timeout_s
        self._boots: dict[tuple[str, int], _BootSeqs] = {}

    def restore(self, board: str, boot: int, contiguous: int, above: set[int]) -> None:
        """Set a boot's marks as rebuilt from the store after a restart."""
        self._boots[(board, boot)] = _BootSeqs(contiguous, set(above), None)

    def accept(self, board: str, boot: int, seq: int, now: float) -> list[int]:
        """Record a newly stored seq; return the seqs that this reveals as missing.

        A boot's first seq is 0 or 1; a first message with a higher seq means the ones
        before it are missing.
        """
        key = (board, boot)
        seqs = self._boots.get(key)
        if seqs is None:
            seqs = self._boots[key] = _BootSeqs(seq - 1 if seq <= 1 else 0)
        if seq <= seqs.contiguous or seq in seqs.above:
            return []
        missing: list[int] = []
        if seq == seqs.contiguous + 1:
            seqs.contiguous = seq
            self._advance(seqs)
        else:
            top = max(seqs.above) if seqs.above else seqs.contiguous
            missing = [s for s in range(max(top, seqs.contiguous) + 1, seq)]
            seqs.above.add(seq)
            if seqs.gap_since is None:
                seqs.gap_since = now
        return missing

    @staticmethod
    def _advance(seqs: _BootSeqs) -> None:
        while seqs.contiguous + 1 in seqs.above:
            seqs.contiguous += 1
            seqs.above.discard(seqs.contiguous)
        seqs.gap_since = None if not seqs.above else seqs.gap_since

    def ack_mark(self, board: str, boot: int) -> int | None:
        """The highest seq of this boot up to which everything is stored, or None."""
        seqs = self._boots.get((board, boot))
        if seqs is None or seqs.contiguous < 0:
            return None
        return seqs.contiguous

    def expire(self, now: float) -> list[tuple[str, int, list[int]]]:
        """Give up gaps older than the timeout: [(board, boot, seqs given up)]."""
        given_up = []
        for (board, boot), seqs in self._boots.items():
            if seqs.gap_since is None or now - seqs.gap_since < self.gap_timeout_s:
                continue
            first_stored = min(seqs.above)
            lost = list(range(seqs.contiguous + 1, first_stored))
            seqs.contiguous = first_stored
            seqs.above.discard(first_stored)
            seqs.gap_since = now if seqs.above else None
            self._advance(seqs)
            given_up.append((board, boot, lost))
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
        elif kind == "blocked":
            self.blocked.add(msg["hole"])
        elif kind == "cleared":
            self.blocked.discard(msg["hole"])
        elif kind == "fault":
            self.beam_faults.add(str(msg.get("hole", msg["reason"])))
