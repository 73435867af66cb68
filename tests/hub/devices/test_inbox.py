"""The inbox between the device links and the ingest thread (hub/devices/inbox.py):
batches in order, never bigger than asked, a failing batch does not stop the next, and
``flush`` / ``idle`` count a batch as pending until it is handled."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from hub.devices import inbox as inbox_module
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


def test_wake_ends_an_idle_run_without_waiting_out_its_poll(monkeypatch: pytest.MonkeyPatch) -> None:
    """A closing hub sets stop and wakes the ingest thread: it must not wait out the idle
    poll (that cost every test that closes a hub 0.1 s). The poll is made an hour long
    here, so only wake() can end the run within the join's (generous) guard."""
    monkeypatch.setattr(inbox_module, "IDLE_POLL_S", 3600.0)
    inbox: Inbox[int] = Inbox()
    stop = threading.Event()
    thread = threading.Thread(target=inbox.run, args=(lambda batch: None, stop), daemon=True)
    thread.start()
    inbox.put(1)
    assert inbox.flush(30.0)  # the run is past its first batch, idle in (or entering) its wait
    stop.set()
    inbox.wake()
    thread.join(60)
    assert not thread.is_alive()
