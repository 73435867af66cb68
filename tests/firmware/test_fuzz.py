"""Fuzzing (hypothesis): the protocol decoder never raises and rejects corrupt lines by
checksum; the node's serial input and the beam classifier survive any input."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import config, protocol
from firmware.beams import Hole
from firmware.links import SerialLink
from firmware.node import Node

NAMES = st.text(st.characters(min_codepoint=33, max_codepoint=126, exclude_characters=protocol.BAD_NAME_CHARS),
                min_size=1, max_size=12)
COUNTS = st.integers(min_value=0, max_value=protocol.MAX_COUNT)
TICKS = st.integers(min_value=0, max_value=protocol.T_US_MASK)
# Valid text: printable, and encodable (no lone surrogate: the protocol refuses those,
# issue 24.1; test_encodable_text.py checks that refusal).
TEXT = st.text(st.characters(min_codepoint=32, exclude_characters="\x7f", codec="utf-8"), max_size=16)
EVENTS = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(protocol.HOLE_EVENTS), "board": NAMES, "boot": COUNTS,
                           "seq": COUNTS, "t_us": TICKS, "hole": NAMES}),
    st.fixed_dictionaries({"type": st.just("hello"), "board": NAMES, "boot": COUNTS, "seq": COUNTS,
                           "t_us": TICKS, "fw": TEXT, "config": TEXT,
                           "holes": st.lists(NAMES, max_size=4)}),
    st.fixed_dictionaries({"type": st.just("fault"), "board": NAMES, "boot": COUNTS, "seq": COUNTS,
                           "t_us": TICKS, "reason": TEXT}),
)


def _check_result(result: tuple[Any, Any]) -> None:
    msg, reason = result
    if msg is None:
        assert isinstance(reason, str) and reason
    else:
        assert reason is None and protocol.validate(msg) is None


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_decode_line_never_raises_on_bytes(data: bytes) -> None:
    _check_result(protocol.decode_line(data))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_decode_line_and_payload_never_raise_on_text(text: str) -> None:
    _check_result(protocol.decode_line(text))
    _check_result(protocol.decode_line("$" + text))
    _check_result(protocol.decode_payload(text))
    _check_result(protocol.decode_payload(text.encode("utf-8", "surrogatepass"), board="B1"))


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=6),
                    max_leaves=20))
def test_any_json_value_gets_a_verdict(value: Any) -> None:
    body = json.dumps(value).encode()
    _check_result(protocol.decode_payload(body))
    line = b"$" + body + b"*" + f"{protocol.checksum(body):02X}".encode() + b"\r\n"
    _check_result(protocol.decode_line(line))


@settings(max_examples=300, deadline=None)
@given(EVENTS, st.data())
def test_corrupt_serial_lines_are_rejected_by_checksum(msg: dict[str, Any], data: st.DataObject) -> None:
    line = protocol.encode_line(msg)
    assert protocol.decode_line(line) == (msg, None)
    star = line.rindex(b"*")
    i = data.draw(st.integers(min_value=1, max_value=star - 1), label="byte")
    flip = data.draw(st.integers(min_value=1, max_value=255), label="xor")
    corrupt = bytearray(line)
    corrupt[i] ^= flip
    got, reason = protocol.decode_line(bytes(corrupt))
    assert got is None and reason  # one changed byte always changes the XOR
    if corrupt[i] not in b"\r\n":
        # the checksum is checked before the JSON is even parsed
        assert reason in ("checksum mismatch", "line too long", "no checksum", "bad checksum digits",
                          "no start marker") or reason.startswith("undecodable"), reason


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=80), max_size=10))
def test_node_serial_input_survives_junk(chunks: list[bytes]) -> None:
    cfg = config.load({"board": "B1", "port": "unix", "holes": [{"name": "big", "beams": [1, 2]}]})
    node = Node(cfg, lambda: 0, lambda ch: False)
    out: list[bytes] = []
    link = SerialLink(out.append)
    node.add_link(link)
    node.start()
    for chunk in chunks:
        link.feed(chunk)
    node.poll(1000)
    assert node.outbox.unacked() >= 1  # junk never acknowledges anything


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.booleans(), st.integers(0, 400_000)), max_size=40))
def test_classifier_survives_any_edges_and_never_clears_without_blocking(
        edges: list[tuple[int, bool, int]]) -> None:
    events: list[str] = []
    hole = Hole("big", 2, config.thresholds(), lambda kind, name, t: events.append(kind))
    hole.reset([False, False], 0)
    now = 0
    for beam, closed, gap in edges:
        now += gap
        hole.edge(beam, closed, now)
        hole.tick(now)
    for _ in range(50):
        now += 100_000
        hole.tick(now)
    open_blocks = 0
    for kind in events:
        if kind == "blocked":
            open_blocks += 1
        elif kind == "cleared":
            open_blocks -= 1
        assert 0 <= open_blocks <= 1, events
    assert set(events) <= {"drop", "bounce", "blocked", "cleared"}
