"""Issue 32.11: board ids that cannot travel in a page address (``.``, ``..``; the codec
already refuses ``/``, empty and control characters) are refused at the door — the
serial and MQTT links count them as rejected input under no board's name, the hub never
lists them — and in the admin's forms (a table binding one), with a clear message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware import protocol
from hub.devices.mqtt_link import sort_payload
from hub.devices.serial_link import SerialTransport
from hub.errors import BadInputError
from hub.facade import Hub
from hub.tables.spec import TableSpec
from tests.hub.boards import PtyBoard, wait_for


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    h = Hub(str(tmp_path / "run.db"))
    h.start()
    yield h
    h.close()


def test_dot_board_ids_on_a_serial_port_are_counted_as_rejected_and_never_listed(
        hub: Hub, tmp_path: Path) -> None:
    dots = PtyBoard("..", tmp_path / "ttyDots")
    link = SerialTransport([str(dots.path)])
    hub.add_transport(link)
    try:
        assert wait_for(lambda: link.describe()["ports"][0]["open"], timeout=10)
        dots.event("hello", fw="t", config="c", holes=["big"])
        dots.event("drop", hole="big")
        assert wait_for(lambda: link.describe()["ports"][0]["corrupt"] == 2, timeout=10)
        # The same port carries a good board right after: the port is not blamed.
        dots.out.board = "B1"
        dots.event("hello", fw="t", config="c", holes=["big"])
        assert wait_for(lambda: any(b["board"] == "B1" for b in hub.unregistered()), timeout=10)
        assert hub.flush()
        heard = [b["board"] for b in hub.boards()] + [b["board"] for b in hub.unregistered()]
        assert ".." not in heard and "B1" in heard
        assert link.describe()["ports"][0]["boards"] == ["B1"]
        assert not [e for e in hub.store.entries() if e.board == ".."]
    finally:
        dots.unplug()


@pytest.mark.parametrize("board", [".", ".."])
def test_dot_board_ids_on_mqtt_are_rejected_under_no_board(board: str) -> None:
    msg = {"type": "hello", "board": board, "boot": 1, "seq": 1, "t_us": 5, "fw": "t", "config": "c",
           "holes": ["big"]}
    for kind, payload in (("event", protocol.encode_payload(msg)), ("status", b"online")):
        what, named, reason, _ = sort_payload(protocol.topic(board, kind), payload)  # type: ignore[misc]
        assert (what, named) == ("bad", None)
        assert "cannot be part of a page address" in reason


@pytest.mark.parametrize("board", [".", "..", "a/b", "", "x\x07"])
def test_a_table_binding_a_board_id_that_cannot_travel_is_refused_with_a_reason(hub: Hub, board: str) -> None:
    with pytest.raises(BadInputError) as refused:
        hub.create_table("trigono", seats=["Ana", "Ben"], boards=[board], table_id="t1")
    assert refused.value.kind == "bad_board_id" and refused.value.params == {"board": board}
    with pytest.raises(BadInputError):  # the admin's grid editor: a device id typed in
        hub.create(TableSpec.build("trigono", seats=["Ana", "Ben"], table_id="t1",
                                   layout=[{"id": "B1", "cell": [0, 0, "up"], "device": board or "."}]))
    assert hub.list_tables() == []
