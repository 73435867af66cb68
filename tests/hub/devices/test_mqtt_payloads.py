"""MQTT payloads as the receiver process reads them (``hub.devices.mqtt_link.sort_payload``, orjson)
and hands them to the hub in order (``hand_over``): a bad payload is refused with its
reason and counted against the board its topic names; nothing else changes."""

from __future__ import annotations

from typing import Any

import pytest

from firmware import protocol
from hub.devices.mqtt_link import hand_over, sort_payload
from hub.devices.rejects import RejectLog
from hub.devices.transport import FakeTransport

DROP = {"type": "drop", "board": "B1", "boot": 1, "seq": 3, "t_us": 5000, "hole": "big"}
EVENT = protocol.topic("B1", "event")


def test_a_good_event_is_decoded_with_its_own_json_text() -> None:
    payload = protocol.encode_payload(DROP)
    assert sort_payload(EVENT, payload) == ("message", "B1", DROP, payload.decode())


@pytest.mark.parametrize(("payload", "reason"), [
    (b"[1,", "not JSON"),
    (b"\xff\xfe", "not JSON"),  # not UTF-8
    (b'{"type":"drop","board":"B1","boot":1,"seq":NaN,"t_us":0,"hole":"big"}', "not JSON"),
    (b'{"type":"drop","board":"B1","boot":1,"seq":' + b"9" * 40 + b',"t_us":0,"hole":"big"}', "bad seq"),
    (b'{"type":"drop","board":"B1","boot":1,"seq":' + b"9" * 5000 + b"}", "payload too long"),
    (protocol.encode_payload({**DROP, "board": "B2"}), "board does not match topic"),
    (protocol.encode_payload({**DROP, "seq": -1}), None),  # the codec's own reason
    (protocol.encode_payload({"type": "ack", "boot": 1, "seq": 3}), "not a device message"),
])
def test_a_bad_event_payload_is_refused_with_a_reason(payload: bytes, reason: str | None) -> None:
    what, board, got, raw = sort_payload(EVENT, payload)  # type: ignore[misc]
    assert (what, board, raw) == ("bad", "B1", None)
    assert got == reason if reason is not None else isinstance(got, str) and got


def test_topics_sort_statuses_health_and_strangers() -> None:
    health = {"type": "health", "board": "B1", "boot": 1, "seq": 3, "t_us": 9, "uptime_s": 1,
              "mem_free": 1000, "overflow": 0, "beams": {"big": "open"}, "counters": {}}
    assert sort_payload(protocol.topic("B1", "status"), b"online") == ("status", "B1", "online", None)
    assert sort_payload(protocol.topic("B1", "status"), b"maybe") == ("bad", "B1", "bad status payload", None)
    assert sort_payload(protocol.topic("B1", "health"), protocol.encode_payload(health))[0] == "message"
    assert sort_payload(protocol.topic("B1", "health"), protocol.encode_payload(DROP)) == (
        "bad", "B1", "drop on the health topic", None)
    assert sort_payload(protocol.topic("B1", "ack"), b"{}") is None  # the hub's own messages
    assert sort_payload("elsewhere/B1/event", b"{}") == ("bad", None, "not a protocol topic", None)


class Recorder:
    """The hub's side of the link, recorded in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def device_message(self, transport: Any, msg: dict[str, Any], link: str, raw: str | None = None) -> None:
        self.calls.append(("message", msg["seq"]))

    def device_messages(self, transport: Any, messages: list[tuple[dict[str, Any], str | None]], link: str) -> None:
        self.calls.append(("run", [m["seq"] for m, _ in messages]))

    def device_corrupt(self, transport: Any, link: str, reason: str, board: str | None) -> None:
        self.calls.append(("corrupt", board, reason))

    def device_status(self, transport: Any, board: str, status: str, link: str) -> None:
        self.calls.append(("status", board, status))


def test_hand_over_keeps_the_order_and_counts_what_it_refuses() -> None:
    payloads = [(EVENT, {**DROP, "seq": 1}), (EVENT, {**DROP, "seq": 2}), (EVENT, b"junk"),
                (protocol.topic("B1", "status"), b"lost"), (EVENT, {**DROP, "seq": 3}),
                ("not/a/topic", b"x")]
    items = [sort_payload(t, p if isinstance(p, bytes) else protocol.encode_payload(p)) for t, p in payloads]
    sink, rejects = Recorder(), RejectLog("mqtt:test")
    hand_over(FakeTransport(), sink, rejects, [i for i in items if i is not None])
    assert sink.calls == [("run", [1, 2]), ("corrupt", "B1", "not JSON"), ("status", "B1", "lost"),
                          ("run", [3])]
    assert rejects.total == 2  # the junk and the stranger topic (counted, no board to blame)
