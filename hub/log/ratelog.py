"""Log lines that repeat many times a second (a full disk fails every timer tick and every
device batch) as one line per kind and interval, with a count: the first at once, the
next after ``every_s`` saying how many were held back. A traceback only the first time.

>>> import logging
>>> lines = []
>>> class Keep(logging.Handler):
...     def emit(self, record): lines.append(record.getMessage())
>>> logger = logging.getLogger("doctest.ratelog"); logger.addHandler(Keep()); logger.propagate = False
>>> rate = RateLog(logger, every_s=10.0)
>>> for at in (0.0, 1.0, 2.0, 12.0):
...     rate.error("tick", "timer tick failed: %s", "disk is full", now=at)
>>> lines
['timer tick failed: disk is full', 'timer tick failed: disk is full (2 more like it in 12 s)']
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

MAX_KEYS = 256  # keys are chosen by the code, but bound them anyway


class RateLog:
    """At most one line per key per ``every_s`` seconds (a monotonic clock)."""

    def __init__(self, logger: logging.Logger, every_s: float = 30.0) -> None:
        self.logger = logger
        self.every_s = every_s
        self._lock = threading.Lock()
        self._since: dict[str, tuple[float, int]] = {}  # key -> (last line at, held back since)

    def log(self, level: int, key: str, message: str, *args: Any, exc_info: bool = False,
            now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            last = self._since.get(key)
            if last is None:
                if len(self._since) >= MAX_KEYS:
                    self._since.clear()
                self._since[key] = (now, 0)
                held, first = 0, True
            elif now - last[0] >= self.every_s:
                self._since[key] = (now, 0)
                held, first = last[1], False
            else:
                self._since[key] = (last[0], last[1] + 1)
                return
        if held and last is not None:
            message += f" ({held} more like it in {now - last[0]:.0f} s)"
        self.logger.log(level, message, *args, exc_info=exc_info and first)

    def error(self, key: str, message: str, *args: Any, exc_info: bool = False,
              now: float | None = None) -> None:
        self.log(logging.ERROR, key, message, *args, exc_info=exc_info, now=now)

    def warning(self, key: str, message: str, *args: Any, now: float | None = None) -> None:
        self.log(logging.WARNING, key, message, *args, now=now)
