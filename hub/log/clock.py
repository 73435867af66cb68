"""The hub's clock: epoch seconds that advance with the monotonic clock.

Every timer and timeout of the hub — settle windows, seq gaps given up, silent boards,
acks paced, the unregistered boards' limits — compares times from here, and every entry
is stamped from here. A wall-clock step (NTP correcting a laptop that woke up, someone
setting the date) then changes nothing while the hub runs (issue 24.6: a +120 s step gave
an open gap up within a second and dropped the board's resend as a duplicate). The value
reads like ``time.time()`` (it is that at the hub's start plus the time elapsed since),
so stamps stay readable; a step shows only in the next process's stamps.

>>> a = now(); b = now()
>>> 0 <= b - a < 1.0
True
"""

from __future__ import annotations

import time

_MONOTONIC_AT_START = time.monotonic()
_WALL_AT_START = time.time()


def now() -> float:
    """Seconds since the epoch, as the wall clock said when the hub started, plus the
    monotonic time elapsed since: never steps."""
    return _WALL_AT_START + (time.monotonic() - _MONOTONIC_AT_START)
