"""The inbox between the device links and the ingest thread (hub/devices/inbox.py):
batches in order, never bigger than asked, a failing batch does not stop the next, and
``flush`` / ``idle`` count a batch as pending until it is handled."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from hub.devices.inbox import Inbox


@contextmanager
def running(inbox: Inbox[int], handle: Callable[[list[int]], None]) -> Iterator[None]:
    stop = threading.Event()
    thread = threading.Thread(target=inbox.run, args=(handle, stop), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)


def test_items_come_out_in_order_in_batches_no_bigger_than_asked() -> None:
    inbox: Inbox[int] = Inbox(batch=7)
    seen: list[list[int]] = []
    inbox.put_many(range(50))
    with running(inbox, seen.append):
        assert inbox.flush(5.0)
    assert [n for batch in seen for n in batch] == list(range(50))
    assert max(len(b) for b in seen) <= 7


def test_a_batch_that_fails_is_logged_and_the_next_one_is_handled(caplog) -> None:
    inbox: Inbox[int] = Inbox(batch=1)
    handled: list[int] = []

    def handle(batch: list[int]) -> None:
        if batch == [1]:
            raise RuntimeError("a bad batch")
        handled.extend(batch)

    inbox.put_many([0, 1, 2])
    with running(inbox, handle):
        assert inbox.flush(5.0)
    assert handled == [0, 2] and "ingest failed" in caplog.text


def test_a_batch_is_pending_until_it_is_handled() -> None:
    inbox: Inbox[int] = Inbox()
    entered, release = threading.Event(), threading.Event()

    def handle(batch: list[int]) -> None:
        entered.set()
        release.wait(5)

    inbox.put(1)
    with running(inbox, handle):
        assert entered.wait(5)
        assert not inbox.idle() and inbox.flush(0.05) is False  # taken, not handled yet
        release.set()
        assert inbox.flush(5.0) and inbox.idle()
