"""A budget for the messages of boards this hub does not referee (issue 24.8).

A board bound to none of the hub's tables (nor registered with ``--board``) is only
counted: its messages are neither stored nor acknowledged. A flood under such an id
(a stuck board, a laptop on a serial port, a made-up id on the broker) must still cost
bounded work and memory, so before a message reaches the ingest thread — and the hub's
lock — it spends a token from its board's bucket (:data:`PER_BOARD_RATE` a second,
:data:`PER_BOARD_BURST` at once) and from one bucket shared by every such board
(:data:`ALL_RATE`, :data:`ALL_BURST`: thousands of made-up ids, one message each, are a
flood too). A message over budget is dropped at once and counted for its board: the
buckets live in a table of at most :data:`MAX_TRACKED` boards (the least recently heard
go first), and a total counts every drop. One log line per :data:`LOG_EVERY_S` says so.
A board the hub referees is never limited.

>>> at = [0.0]
>>> limit = UnrefereedLimit(clock=lambda: at[0], per_board=(1.0, 2), everyone=(100.0, 100))
>>> [limit.allow("X1") for _ in range(4)]
[True, True, False, False]
>>> at[0] = 1.0; limit.allow("X1"), limit.allow("X1")
(True, False)
>>> limit.dropped("X1"), limit.total_dropped
(3, 3)
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
MAX_TRACKED = 1024  # boards whose budget and drops are kept (the least recently heard go)
LOG_EVERY_S = 30.0

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


class UnrefereedLimit:
    """Token buckets per unrefereed board (bounded) and for all of them together.
    Thread-safe: each link calls :meth:`allow` from its own thread."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 per_board: tuple[float, int] = (PER_BOARD_RATE, PER_BOARD_BURST),
                 everyone: tuple[float, int] = (ALL_RATE, ALL_BURST),
                 max_tracked: int = MAX_TRACKED, logger: logging.Logger = log) -> None:
        self.clock = clock
        self.per_board = per_board
        self.everyone = everyone
        self.max_tracked = max_tracked
        self.total_dropped = 0
        self._log = RateLog(logger, every_s=LOG_EVERY_S)
        self._lock = threading.Lock()
        self._boards: dict[str, Bucket] = {}  # least recently heard first
        self._all = Bucket(float(everyone[1]), clock())

    def allow(self, board: str) -> bool:
        """Whether a message of ``board`` (which this hub does not referee) may go on to
        the ingest thread; False: dropped and counted."""
        now = self.clock()
        with self._lock:
            bucket = self._boards.pop(board, None)
            if bucket is None:
                bucket = Bucket(float(self.per_board[1]), now)
                while len(self._boards) >= self.max_tracked:
                    del self._boards[next(iter(self._boards))]
            self._boards[board] = bucket  # most recently heard last
            bucket.refill(now, *self.per_board)
            self._all.refill(now, *self.everyone)
            if bucket.tokens >= 1.0 and self._all.tokens >= 1.0:
                bucket.tokens -= 1.0
                self._all.tokens -= 1.0
                return True
            bucket.dropped += 1
            self.total_dropped += 1
            total, boards = self.total_dropped, len(self._boards)
        self._log.warning("unrefereed", "dropped messages of board %s, which this hub does not referee: "
                          "over %.0f a second for one board or %.0f for all such boards "
                          "(%d dropped so far, %d such boards tracked)", board, self.per_board[0],
                          self.everyone[0], total, boards, now=now)
        return False

    def dropped(self, board: str) -> int:
        """How many of ``board``'s messages were dropped (0 once it left the table)."""
        with self._lock:
            bucket = self._boards.get(board)
            return 0 if bucket is None else bucket.dropped

    def tracked(self) -> int:
        """How many boards the table holds now (at most ``max_tracked``)."""
        with self._lock:
            return len(self._boards)
