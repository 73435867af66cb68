"""The device protocol codec (docs/design.md §5), as the hub sees it under CPython."""

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


def test_integers_are_bounded_to_what_a_board_produces() -> None:
    """Finding 1 of issue 13: a seq or boot of 2**63 broke the store; the codec stops it."""
    for key, value in (("seq", 2**31), ("boot", 2**63), ("seq", -1), ("t_us", 2**30), ("seq", True)):
        msg, reason = protocol.decode_payload(protocol.encode_payload({**DROP, key: value}))
        assert msg is None and key in str(reason)
    top = {**DROP, "boot": protocol.MAX_COUNT, "seq": protocol.MAX_COUNT, "t_us": protocol.T_US_MASK}
    assert protocol.decode_line(protocol.encode_line(top)) == (top, None)


def test_names_texts_and_fields_are_bounded() -> None:
    bad = [
        {**DROP, "board": "B/1"},
        {**DROP, "board": "x" * 33},
        {**DROP, "hole": "big\n"},
        {**DROP, "extra": 1},
        {"type": "fault", "board": "B1", "boot": 1, "seq": 1, "t_us": 0, "reason": "a\nb"},
        {"type": "fault", "board": "B1", "boot": 1, "seq": 1, "t_us": 0, "reason": "r" * 65},
        {"type": "hello", "board": "B1", "boot": 1, "seq": 1, "t_us": 0, "fw": "1", "config": "c",
         "holes": [f"h{i}" for i in range(33)]},
        {"type": "health", "board": "B1", "boot": 1, "seq": 1, "t_us": 0, "uptime_s": 1, "mem_free": 1,
         "overflow": 0, "beams": {"big": "melted"}, "counters": {}},
        {"type": "health", "board": "B1", "boot": 1, "seq": 1, "t_us": 0, "uptime_s": 1, "mem_free": 1,
         "overflow": 0, "beams": {}, "counters": {"drops": 2**40}},
    ]
    for msg in bad:
        assert protocol.validate(msg) is not None, msg
    health = {"type": "health", "board": "B1", "boot": 1, "seq": 9, "t_us": 0, "uptime_s": 1,
              "mem_free": 1, "overflow": 0, "beams": {"big": "open"}, "counters": {"acked": 3}, "rssi": -60}
    assert protocol.validate(health) is None


def test_text_with_a_lone_surrogate_is_refused_with_a_reason() -> None:
    """Issue 24.1: a JSON escape can carry a lone surrogate (U+D800-DFFF), text with no
    UTF-8 form; one stored broke every later encoding of the live feed."""
    lone = chr(0xD800)
    hello = {"type": "hello", "board": "B1", "boot": 1, "seq": 1, "t_us": 0, "fw": "1.0" + lone,
             "config": "c", "holes": ["big"]}
    fault = {"type": "fault", "board": "B1", "boot": 1, "seq": 2, "t_us": 0, "reason": "beam" + chr(0xDFFF)}
    for msg, reason in ((hello, "hello: bad fw or config"), (fault, "fault: bad reason"),
                        ({**DROP, "hole": "b" + lone}, "drop: bad hole")):
        line = protocol.encode_line(msg)  # json.dumps writes the escape "\ud800": valid JSON
        assert b"\\ud" in line
        assert protocol.decode_line(line) == (None, reason)
    paired = {**hello, "fw": "1.0\U0001F600"}  # a pair is one character: fine
    assert protocol.decode_line(protocol.encode_line(paired)) == (paired, None)
