"""The inbox between the device links and the ingest thread.

Transports deliver from their own threads and must never wait for storage: they
:meth:`Inbox.put` and return. The ingest thread takes batches (:meth:`Inbox.run`);
:meth:`Inbox.flush` waits until everything put so far was handled (tests, the bench,
and the hub's close).

>>> inbox: Inbox[int] = Inbox(batch=2)
>>> for n in range(3):
...     inbox.put(n)
>>> seen: list[list[int]] = []
>>> stop = threading.Event()
>>> thread = threading.Thread(target=inbox.run, args=(seen.append, stop))
>>> thread.start(); inbox.flush(5.0)
True
>>> stop.set(); thread.join(); seen
[[0, 1], [2]]
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

ItemT = TypeVar("ItemT")
log = logging.getLogger("hub")


class Inbox(Generic[ItemT]):
    """A queue that counts what is not handled yet."""

    def __init__(self, batch: int = 1000) -> None:
        self.batch = batch
        self._queue: queue.Queue[ItemT] = queue.Queue()
        self._pending = 0
        self._cond = threading.Condition()

    def put(self, item: ItemT) -> None:
        with self._cond:
            self._pending += 1
        self._queue.put(item)

    def run(self, handle: Callable[[list[ItemT]], None], stop: threading.Event) -> None:
        """Hand batches of up to ``batch`` items to ``handle`` until ``stop`` is set.
        An exception in ``handle`` is logged; the loop goes on."""
        while not stop.is_set():
            try:
                batch = [self._queue.get(timeout=0.1)]
            except queue.Empty:
                continue
            while len(batch) < self.batch:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                handle(batch)
            except Exception:  # noqa: BLE001 - the ingest thread must survive anything
                log.exception("ingest failed")
            finally:
                with self._cond:
                    self._pending -= len(batch)
                    self._cond.notify_all()

    def idle(self) -> bool:
        """Nothing waits or is being handled."""
        with self._cond:
            return self._pending == 0

    def flush(self, timeout: float) -> bool:
        """Wait until every item put so far is handled; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True
