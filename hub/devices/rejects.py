"""Rejected device input, logged at WARNING without flooding the log.

A link (a serial port, an MQTT broker) keeps one :class:`RejectLog`. The first message a
board gets rejected is logged at once; later ones of the same board within ``every_s``
are counted, and the next line after the interval carries the count. The number of
boards it remembers is bounded, since an attacker chooses board names: beyond
``max_boards`` every other name shares one line.

>>> import logging
>>> lines = []
>>> class Keep(logging.Handler):
...     def emit(self, record): lines.append(record.getMessage())
>>> logger = logging.getLogger("doctest.rejects"); logger.addHandler(Keep()); logger.propagate = False
>>> rejects = RejectLog("serial:/dev/ttyACM0", every_s=10.0, logger=logger)
>>> for at in (0.0, 1.0, 2.0, 11.0):
...     rejects.note("B1", "checksum mismatch", now=at)
>>> lines
['serial:/dev/ttyACM0: rejected a message from board B1: checksum mismatch', 'serial:/dev/ttyACM0: rejected 3 messages from board B1 in 11 s (last: checksum mismatch)']
>>> rejects.total
4
"""

from __future__ import annotations

import logging
import time

UNNAMED = "(unknown)"
OTHERS = "(other boards)"

log = logging.getLogger("hub.links")


class RejectLog:
    """Counts and logs one link's rejected messages, one line per board per interval."""

    def __init__(self, link: str, every_s: float = 10.0, max_boards: int = 64,
                 logger: logging.Logger = log) -> None:
        self.link = link
        self.every_s = every_s
        self.max_boards = max_boards
        self.total = 0
        self._log = logger
        self._since: dict[str, tuple[float, int]] = {}  # board -> (last line at, rejected since)

    def note(self, board: str | None, reason: str, now: float | None = None) -> None:
        """One rejected message (``board`` when the link knows whose it is)."""
        now = time.monotonic() if now is None else now
        self.total += 1
        key = board if board is not None else UNNAMED
        if key not in self._since and len(self._since) >= self.max_boards:
            key = OTHERS
        last, count = self._since.get(key, (None, 0))
        count += 1
        if last is None:
            self._log.warning("%s: rejected a message from board %s: %s", self.link, key, reason)
            self._since[key] = (now, 0)
        elif now - last >= self.every_s:
            self._log.warning("%s: rejected %d messages from board %s in %.0f s (last: %s)",
                              self.link, count, key, now - last, reason)
            self._since[key] = (now, 0)
        else:
            self._since[key] = (last, count)
