"""The change feed (hub/log/changes.py): strictly increasing ids, one item per thing changed
per call, a ``reset`` for readers that fell behind, readers woken by writers."""

from __future__ import annotations

import threading

from hub.log.changes import ChangeFeed


def test_ids_increase_and_repeats_in_one_call_count_once() -> None:
    feed = ChangeFeed(base=1000)
    feed.changed([{"kind": "table", "table": "t1"}, {"kind": "board", "board": "B1"},
                  {"kind": "table", "table": "t1"}])
    feed.table("t1")
    items = feed.since(1000, timeout=0)
    assert [(i["id"], i["kind"]) for i in items] == [(1001, "table"), (1002, "board"), (1003, "table")]
    assert feed.since(1002, timeout=0) == [{"id": 1003, "kind": "table", "table": "t1"}]
    assert feed.since(1003, timeout=0) == [] and feed.last_id() == 1003


def test_a_reader_from_another_run_or_too_far_behind_gets_one_reset() -> None:
    feed = ChangeFeed(keep=2, base=1000)
    feed.boards(["B1", "B2", "B3"])
    assert feed.since(999, timeout=0) == [{"id": 1003, "kind": "reset"}]   # before this run
    assert feed.since(5000, timeout=0) == [{"id": 1003, "kind": "reset"}]  # from the future
    assert feed.since(1000, timeout=0) == [{"id": 1003, "kind": "reset"}]  # 1001 was dropped
    assert [i["board"] for i in feed.since(1001, timeout=0)] == ["B2", "B3"]


def test_a_waiting_reader_is_woken_by_a_change_and_by_close() -> None:
    feed = ChangeFeed(base=0)
    got: list[list[dict[str, object]]] = []
    reader = threading.Thread(target=lambda: got.append(feed.since(0, timeout=30)))
    reader.start()
    feed.table("t1")
    reader.join(10)
    assert got == [[{"id": 1, "kind": "table", "table": "t1"}]]
    reader = threading.Thread(target=lambda: got.append(feed.since(1, timeout=30)))
    reader.start()
    feed.close()
    reader.join(10)
    assert not reader.is_alive() and got[-1] == []
