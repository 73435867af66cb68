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
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

ItemT = TypeVar("ItemT")
log = logging.getLogger("hub")

DRAINING_BATCH = 8  # a batch this big means a backlog: the next one may wait to fill
LINGER_S = 0.005  # how long, at most
IDLE_POLL_S = 0.1  # an idle run() looks at its stop event this often (wake() ends it at once)


class Inbox(Generic[ItemT]):
    """A queue that counts what is not handled yet. One lock for both ends, and a batch
    taken under it at once: a ``queue.Queue`` paid two lock rounds per item on each side
    (a quarter of the link thread's time in bench/hub_ingest.py)."""

    def __init__(self, batch: int = 1000) -> None:
        self.batch = batch
        self._items: deque[ItemT] = deque()
        self._pending = 0  # put and not yet handled (waiting, or in the batch being handled)
        lock = threading.Lock()
        self._ready = threading.Condition(lock)  # items wait
        self._done = threading.Condition(lock)  # a batch was handled

    def put(self, item: ItemT) -> None:
        self.put_many((item,))

    def put_many(self, items: Iterable[ItemT]) -> None:
        with self._ready:
            before = len(self._items)
            self._items.extend(items)
            self._pending += len(self._items) - before
            self._ready.notify()

    def run(self, handle: Callable[[list[ItemT]], None], stop: threading.Event) -> None:
        """Hand batches of up to ``batch`` items to ``handle`` until ``stop`` is set.
        An exception in ``handle`` is logged; the loop goes on."""
        draining = False
        while not stop.is_set():
            with self._ready:
                if not self._items and not stop.is_set():  # stop is read under the lock: see wake
                    self._ready.wait(IDLE_POLL_S)
                if draining:
                    self._gather(time.monotonic() + LINGER_S)
                items = self._items
                batch = [items.popleft() for _ in range(min(len(items), self.batch))]
            draining = len(batch) >= DRAINING_BATCH
            if not batch:
                continue
            try:
                handle(batch)
            except Exception:  # noqa: BLE001 - the ingest thread must survive anything
                log.exception("ingest failed")
            finally:
                with self._done:
                    self._pending -= len(batch)
                    self._done.notify_all()

    def wake(self) -> None:
        """Wake :meth:`run` now (its ``stop`` was just set): a closing hub does not wait out
        the idle poll (it cost every test that closes a hub 0.1 s). Race-free: run reads
        ``stop`` under the lock taken here, so it either sees it set or is already waiting."""
        with self._ready:
            self._ready.notify_all()

    def _gather(self, deadline: float) -> None:
        """While a backlog drains, let the next batch fill (up to ``deadline``): each batch
        costs a commit and a round of acks whatever its size, and small ones spent the
        CPU the link needs to bring the backlog in (bench/hub_ingest.py: a median of 16
        events a batch). A lone event (a batch of one) is never held."""
        while len(self._items) < self.batch:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._ready.wait(left)

    def idle(self) -> bool:
        """Nothing waits or is being handled."""
        with self._done:
            return self._pending == 0

    def flush(self, timeout: float) -> bool:
        """Wait until every item put so far is handled; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._done:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._done.wait(left)
        return True
