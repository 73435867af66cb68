"""The device protocol codec (DESIGN.md §5), as the hub sees it under CPython."""

from __future__ import annotations

from firmware import protocol

DROP = {"type": "drop", "board": "B1", "boot": 3, "seq": 7, "t_us": 123456, "hole": "big"}


def test_serial_line_round_trip() -> None:
    line = protocol.encode_line(DROP)
    assert line.startswith(b"$") and line.endswith(b"\r\n")
    assert protocol.decode_line(line) == (DROP, None)


def test_corrupt_line_rejected_by_checksum() -> None:
    line = bytearray(protocol.encode_line(DROP))
    line[10] ^= 0x01
    msg, reason = protocol.decode_line(bytes(line))
    assert msg is None and reason


def test_mqtt_topic_and_payload() -> None:
    assert protocol.topic("B1", "event") == "trigono/v1/B1/event"
    assert protocol.parse_topic("trigono/v1/B1/event") == ("B1", "event")
    assert protocol.parse_topic("trigono/v2/B1/event") is None
    assert protocol.decode_payload(protocol.encode_payload(DROP), board="B1") == (DROP, None)
    assert protocol.decode_payload(protocol.encode_payload(DROP), board="B2")[0] is None


def test_malformed_messages_give_reasons() -> None:
    for bad in (b"", b"{", b"[]", b'{"type":"drop"}', b'{"type":"zap","board":"B1","boot":0,"seq":0,"t_us":0}'):
        msg, reason = protocol.decode_payload(bad)
        assert msg is None and isinstance(reason, str)
