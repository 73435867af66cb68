"""Budgets for what a board may cost the hub: the messages of boards it does not referee
(issue 24.8) and what a board it referees may put in the store (issue 32.5).

A board bound to none of the hub's tables (nor registered with ``--board``) is only
counted: its messages are neither stored nor acknowledged. A flood under such an id
(a stuck board, a laptop on a serial port, a made-up id on the broker) must still cost
bounded work and memory, so before a message reaches the ingest thread — and the hub's
lock — it spends a token from its board's bucket (:data:`PER_BOARD_RATE` a second,
:data:`PER_BOARD_BURST` at once) and from one bucket shared by every such board
(:data:`ALL_RATE`, :data:`ALL_BURST`: thousands of made-up ids, one message each, are a
flood too): :class:`UnrefereedLimit`.

A board the hub referees has its messages stored, and its password (MQTT) or its port is
enough to send valid-looking ones as fast as the link goes: 2.8 MB a second once, the disk
of a laptop full in hours, every table stopped (issue 32.5). So each of them spends, per
message, a token of its own message bucket (:data:`BOUND_RATE`, :data:`BOUND_BURST`) and
its size of its own byte bucket (:data:`BOUND_BYTES_RATE`, :data:`BOUND_BYTES_BURST`):
:class:`RefereedLimit`. No bucket is shared between refereed boards (one board's flood
never slows another's throws). The budget is far above an honest board's fastest play
(a few drops a second, ~150 bytes each, a health every 10 s, a resent outbox of 64 every
2 s while acks do not come) and its burst covers a whole journal replayed after a
reconnect (hundreds of events at once); one message's size is already capped by the
decoders (``firmware.protocol.MAX_LINE``, 1024 bytes). A message over budget is neither
stored nor acknowledged: the board keeps it and resends it later, so an honest board
that ever met the bound loses nothing.

Either way a message over budget is dropped at once and counted for its board: the
buckets live in a table of at most :data:`MAX_TRACKED` boards (the least recently heard
go first), and a total counts every drop. One log line per :data:`LOG_EVERY_S` says so.

>>> at = [0.0]
>>> limit = UnrefereedLimit(clock=lambda: at[0], per_board=(1.0, 2), everyone=(100.0, 100))
>>> [limit.allow("X1") for _ in range(4)]
[True, True, False, False]
>>> at[0] = 1.0; limit.allow("X1"), limit.allow("X1")
(True, False)
>>> limit.dropped("X1"), limit.total_dropped
(3, 3)
>>> bound = RefereedLimit(clock=lambda: at[0], per_board=(100.0, 100), volume=(10.0, 300))
>>> [bound.allow("B1", size) for size in (200, 100, 50, 1)], bound.dropped("B1"), bound.changed()
([True, True, False, False], 2, {'B1'})
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from hub.log.ratelog import RateLog

PER_BOARD_RATE = 20.0  # messages a second an unrefereed board may cost (a real board sends a few)
PER_BOARD_BURST = 100  # at once (a board's hello, health and a short backlog)
ALL_RATE = 200.0  # every unrefereed board together
ALL_BURST = 400
BOUND_RATE = 20.0  # messages a second a refereed board may have stored (an honest one: a few)
BOUND_BURST = 1000  # at once: a journal replayed after a reconnect, a resent outbox
BOUND_BYTES_RATE = 6144.0  # bytes a second (an honest board: under 1 KB a second)
BOUND_BYTES_BURST = 262_144  # at once (1000 events of ~150 bytes, and room to spare)
MAX_TRACKED = 1024  # boards whose budget and drops are kept (the least recently heard go)
LOG_EVERY_S = 30.0

Budget = tuple[float, int]  # (rate a second, burst)

log = logging.getLogger("hub.devices")


@dataclass
class Bucket:
    tokens: float
    at: float
    dropped: int = 0

    def refill(self, now: float, rate: float, burst: int) -> None:
        if now > self.at:
            self.tokens = min(float(burst), self.tokens + (now - self.at) * rate)
        self.at = now


@dataclass
class _Board:
    messages: Bucket
    volume: Bucket | None


class BoardLimit:
    """Token buckets per board (a bounded table), optionally a byte bucket per board and a
    bucket shared by all of them. Thread-safe: each link calls :meth:`allow` from its own
    thread. Subclasses name the boards they limit in their log line (:attr:`why`)."""

    why = "over its budget"

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 per_board: Budget = (PER_BOARD_RATE, PER_BOARD_BURST),
                 everyone: Budget | None = None, volume: Budget | None = None,
                 max_tracked: int = MAX_TRACKED, logger: logging.Logger = log) -> None:
        self.clock = clock
        self.per_board = per_board
        self.everyone = everyone
        self.volume = volume
        self.max_tracked = max_tracked
        self.total_dropped = 0
        self._log = RateLog(logger, every_s=LOG_EVERY_S)
        self._lock = threading.Lock()
        self._boards: dict[str, _Board] = {}  # least recently heard first
        self._all = None if everyone is None else Bucket(float(everyone[1]), clock())
        self._changed: set[str] = set()

    def allow(self, board: str, size: int = 0) -> bool:
        """Whether a message of ``board`` (``size`` bytes) may go on to the ingest thread;
        False: dropped and counted."""
        now = self.clock()
        with self._lock:
            known = self._boards.pop(board, None)
            if known is None:
                known = _Board(Bucket(float(self.per_board[1]), now),
                               None if self.volume is None else Bucket(float(self.volume[1]), now))
                while len(self._boards) >= self.max_tracked:
                    del self._boards[next(iter(self._boards))]
            self._boards[board] = known  # most recently heard last
            buckets = [(known.messages, self.per_board, 1.0)]
            if known.volume is not None and self.volume is not None:
                buckets.append((known.volume, self.volume, float(size)))
            if self._all is not None and self.everyone is not None:
                buckets.append((self._all, self.everyone, 1.0))
            for bucket, (rate, burst), _ in buckets:
                bucket.refill(now, rate, burst)
            if all(bucket.tokens >= cost for bucket, _, cost in buckets):
                for bucket, _, cost in buckets:
                    bucket.tokens -= cost
                return True
            known.messages.dropped += 1
            self.total_dropped += 1
            self._changed.add(board)
            total, boards = self.total_dropped, len(self._boards)
        self._log.warning(self.why, "dropped messages of board %s, %s (%d dropped so far, %d boards tracked)",
                          board, self.over(), total, boards, now=now)
        return False

    def over(self) -> str:
        """What the budget is, in the log line."""
        return f"over {self.per_board[0]:.0f} messages a second"

    def dropped(self, board: str) -> int:
        """How many of ``board``'s messages were dropped (0 once it left the table)."""
        with self._lock:
            known = self._boards.get(board)
            return 0 if known is None else known.messages.dropped

    def changed(self) -> set[str]:
        """The boards with messages dropped since the last call."""
        with self._lock:
            out, self._changed = self._changed, set()
            return out

    def tracked(self) -> int:
        """How many boards the table holds now (at most ``max_tracked``)."""
        with self._lock:
            return len(self._boards)


class UnrefereedLimit(BoardLimit):
    """The budget of boards this hub does not referee: per board, and for all of them
    together. A board the hub referees is never limited by it."""

    why = "unrefereed"

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 per_board: Budget = (PER_BOARD_RATE, PER_BOARD_BURST),
                 everyone: Budget = (ALL_RATE, ALL_BURST),
                 max_tracked: int = MAX_TRACKED, logger: logging.Logger = log) -> None:
        super().__init__(clock, per_board, everyone, None, max_tracked, logger)

    def over(self) -> str:
        assert self.everyone is not None
        return (f"which this hub does not referee: over {self.per_board[0]:.0f} a second for one "
                f"board or {self.everyone[0]:.0f} for all such boards")


class RefereedLimit(BoardLimit):
    """What each board this hub referees may have stored: messages and bytes a second,
    per board (issue 32.5)."""

    why = "refereed"

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 per_board: Budget = (BOUND_RATE, BOUND_BURST),
                 volume: Budget = (BOUND_BYTES_RATE, BOUND_BYTES_BURST),
                 max_tracked: int = MAX_TRACKED, logger: logging.Logger = log) -> None:
        super().__init__(clock, per_board, None, volume, max_tracked, logger)

    def over(self) -> str:
        assert self.volume is not None
        return (f"which this hub referees: over its budget of {self.per_board[0]:.0f} messages and "
                f"{self.volume[0]:.0f} bytes a second (not stored nor acknowledged: the board resends them)")
