"""Stateless dashboards (issue 18): a read-only hub follows the log the active hub writes
(PostgreSQL LISTEN/NOTIFY, or a polled SQLite file) and shows the same tables, while
refusing every write."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from hub import replica as readonly
from hub.devices.transport import FakeTransport
from hub.errors import RefusedError
from hub.facade import Hub
from hub.log.open import open_store
from hub.replica import ReadOnlyHub
from tests.hub.boards import Outbox, wait_for

MOVES = ("b1", "c1", "c2", "b2", "a1")  # a whole 3x3 Trike game (tests/hub/tables/test_table.py)


@pytest.fixture
def pair(store_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Hub, ReadOnlyHub]]:
    # On PostgreSQL only the store's notifications can wake the reader within a test's
    # waits: its fallback poll is pushed out of reach.
    monkeypatch.setattr(readonly, "POLL_S", 60.0)
    writer = Hub(open_store(store_url), settle_s=0.05)
    writer.start()
    reader = ReadOnlyHub(store_url)
    reader.start()
    yield writer, reader
    reader.close()
    writer.close()


def same_state(writer: Hub, reader: ReadOnlyHub, table_id: str) -> bool:
    try:
        return bool(reader.table_view(table_id)["state"] == writer.table_view(table_id)["state"])
    except Exception:  # noqa: BLE001 - not there yet
        return False


def test_the_reader_shows_what_the_writer_stores_and_wakes_its_stream_R1(
        pair: tuple[Hub, ReadOnlyHub]) -> None:
    writer, reader = pair
    start = reader.last_change_id()
    writer.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], table_id="g1", seed=4)
    changes = reader.changes_since(start, timeout=5.0)  # woken by the store, not polled by us
    assert {"kind": "tables"} in [{k: v for k, v in c.items() if k != "id"} for c in changes]
    for move in MOVES[:3]:
        writer.submit("g1", {"move": move})
    assert wait_for(lambda: same_state(writer, reader, "g1"), timeout=30)
    assert reader.public_view("g1")["state"] == writer.public_view("g1")["state"]
    assert reader.legal_actions("g1", "Ben") == writer.legal_actions("g1", "Ben")
    for move in MOVES[3:]:
        writer.submit("g1", {"move": move})
    assert wait_for(lambda: same_state(writer, reader, "g1"), timeout=30)
    assert reader.export("g1") == writer.export("g1")
    assert reader.list_tables() == writer.list_tables()
    assert reader.game_over("g1")


def test_the_reader_refuses_every_write_and_changes_nothing(pair: tuple[Hub, ReadOnlyHub]) -> None:
    writer, reader = pair
    writer.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], table_id="g1", seed=4)
    assert wait_for(lambda: same_state(writer, reader, "g1"), timeout=30)
    before = reader.table_view("g1")["state"]
    with pytest.raises(RefusedError, match="read-only") as refused:
        reader.submit("g1", {"move": "b1"})
    assert refused.value.kind == "read_only"  # the web words it in the viewer's language
    with pytest.raises(RefusedError, match="read-only"):
        reader.create_table("trike", options={"size": 3}, table_id="g2")
    with pytest.raises(RefusedError, match="read-only"):
        reader.ignore_board("B9")
    assert reader.table_view("g1")["state"] == before
    assert [t["id"] for t in reader.list_tables()] == ["g1"]
    assert writer.table_view("g1")["state"]["log"] == []  # nothing reached the store


def test_the_reader_follows_a_refereed_trigono_table_and_board_health(
        pair: tuple[Hub, ReadOnlyHub]) -> None:
    writer, reader = pair
    link = FakeTransport()
    writer.add_transport(link)
    writer.create_table("trigono", table_id="t1", seats=["Ana", "Ben"], boards=["B1"], seed=2,
                        options={"first": "Ana", "palets_per_player": 4})
    board = Outbox("B1")
    link.inject(board.hello())
    for kind, fields in (("drop", {"hole": "big"}), ("button", {"button": "board"}),
                         ("drop", {"hole": "small"})):
        time.sleep(0.1)  # beyond the settle window on the board's clock: three throws
        link.inject(board.make(kind, **fields))
    assert writer.flush()

    def refereed() -> bool:  # the first two throws at least (the third may wait for a prompt)
        return len(writer.table_view("t1")["state"]["log"]) >= 2

    assert wait_for(refereed, timeout=30)

    def mirrored() -> bool:  # a settle window still open closes with an entry of its own:
        # the reader follows it too (a fixed sleep here raced the timer on a loaded machine)
        view, mirror = writer.table_view("t1"), reader.table_view("t1")
        return same_state(writer, reader, "t1") and (
            (mirror["throw"], mirror["prompts"]) == (view["throw"], view["prompts"]))

    assert wait_for(mirrored, timeout=30)
    health = {b["board"]: b for b in reader.boards()}["B1"]
    assert health["status"] == "online" and health["last_seq"] == board.seq == 4
    assert health["received"] == 4 and health["fw"] == "test-1" and health["table"] == "t1"
    assert reader.table_view("t1")["layout"][0]["online"] is True


def test_a_reader_started_late_rebuilds_then_follows(store_url: str) -> None:
    writer = Hub(open_store(store_url))
    try:
        writer.create_table("trike", options={"size": 3}, seats=["Ana", "Ben"], table_id="g1", seed=4)
        writer.submit("g1", {"move": "b1"})
        reader = ReadOnlyHub(store_url)
        reader.start()
        try:
            assert same_state(writer, reader, "g1")
            writer.submit("g1", {"move": "c1"})
            assert wait_for(lambda: same_state(writer, reader, "g1"), timeout=30)
            actions = [e["action"] for e in reader.table_view("g1")["state"]["log"]]
            assert actions == ["b1", "c1"]  # each applied once
        finally:
            reader.close()
    finally:
        writer.close()
