"""The change feed: what changed in the hub, as a stream of small items with increasing ids.

Readers (the web's live stream) ask :meth:`ChangeFeed.since` for the items after the
last id they saw and fetch the views themselves; an item says *what* changed, never
*how*::

    {"id": N, "kind": "table", "table": "t1"} | {"id": N, "kind": "board", "board": "B1"}
    | {"id": N, "kind": "tables"} | {"id": N, "kind": "reset"}

Ids increase strictly, also across hub restarts (they start from the wall clock in
microseconds, so nothing needs to be stored). A ``reset`` item means "you missed too
much (or your id is from another run): fetch everything again".

>>> feed = ChangeFeed(keep=3, base=100)
>>> feed.changed([{"kind": "table", "table": "t1"}, {"kind": "table", "table": "t1"}])
>>> feed.since(100, timeout=0)
[{'id': 101, 'kind': 'table', 'table': 't1'}]
>>> feed.changed([{"kind": "board", "board": f"B{n}"} for n in range(4)])
>>> feed.since(100, timeout=0)
[{'id': 105, 'kind': 'reset'}]
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

JSONDict = dict[str, Any]
FEED_KEEP = 10_000  # changes kept for clients that reconnect


class ChangeFeed:
    """Thread-safe: writers call :meth:`changed`, readers wait in :meth:`since`."""

    def __init__(self, keep: int = FEED_KEEP, base: int | None = None) -> None:
        self._items: deque[JSONDict] = deque(maxlen=keep)
        self._cond = threading.Condition()
        self._base = time.time_ns() // 1000 if base is None else base
        self._last = self._base
        self._closed = False

    def changed(self, items: list[JSONDict]) -> None:
        """Announce changes; repeats of the same thing within one call count once."""
        if not items:
            return
        seen: set[tuple[str, str]] = set()
        with self._cond:
            for item in items:
                key = (item["kind"], str(item.get("table", item.get("board", ""))))
                if key in seen:
                    continue
                seen.add(key)
                self._last += 1
                self._items.append({"id": self._last, **item})
            self._cond.notify_all()

    def table(self, table_id: str) -> None:
        """Announce that one table changed."""
        self.changed([{"kind": "table", "table": table_id}])

    def boards(self, boards: list[str]) -> None:
        """Announce that the health of these boards changed."""
        self.changed([{"kind": "board", "board": b} for b in boards])

    def last_id(self) -> int:
        """The id of the newest change (start a stream from here)."""
        with self._cond:
            return self._last

    def since(self, last_id: int, timeout: float) -> list[JSONDict]:
        """Changes with id > ``last_id``, oldest first; waits up to ``timeout`` seconds
        for one when there are none (then returns ``[]``). A single ``reset`` item when
        ``last_id`` is from before this feed started or too old to answer exactly."""
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cond:
            while True:
                oldest = self._items[0]["id"] if self._items else self._last + 1
                if last_id < self._base or last_id > self._last or last_id < oldest - 1:
                    return [{"id": self._last, "kind": "reset"}]
                if self._last > last_id:
                    return [dict(i) for i in self._items if i["id"] > last_id]
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    return []
                self._cond.wait(left)

    @property
    def closed(self) -> bool:
        """The hub has stopped: :meth:`since` no longer waits, readers should leave."""
        return self._closed

    def close(self) -> None:
        """Wake every waiting reader (the hub is stopping); they get ``[]``."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
