"""Finding 1 of issue 13: one message the store cannot take (a ``boot``/``seq`` of 2**63:
SQLite refuses it for real) used to roll back a whole ingest batch after the seq tracker
had advanced, so honest boards' events in that batch were never stored and their resends
were acknowledged as duplicates. The decoder now bounds every integer at the edge; here
the poison comes in past the decoder (a transport bug would do that) in the same batch as
three honest boards: only it fails."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from hub.devices.ingest import Arrival
from hub.devices.transport import FakeTransport
from hub.tables.wording import line
from tests.chaos.rig import LiveHub, assert_exactly_once, table_spec, wait_for

pytestmark = [pytest.mark.chaos]


def events(board: str, seqs: range) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for seq in seqs:
        if seq == 1:
            out.append({"type": "hello", "board": board, "boot": 1, "seq": 1, "t_us": 0, "fw": "t",
                        "config": "c", "holes": ["big", "small"]})
        else:
            out.append({"type": "drop", "board": board, "boot": 1, "seq": seq, "t_us": seq * 3_000_000,
                        "hole": "big" if seq % 2 else "small"})
    return out


def test_one_poison_message_fails_only_itself_finding_1(store_url: str,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    boards = ["B1", "B2", "B3"]
    live = LiveHub(store_url, [table_spec(n, b) for n, b in enumerate(boards, 1)])
    link = FakeTransport()
    live.hub.add_transport(link)
    sent = {b: events(b, range(1, 8)) for b in boards}
    poison = {"type": "drop", "board": "B2", "boot": 2**63, "seq": 1, "t_us": 1, "hole": "big"}
    batch = [msg for group in zip(*sent.values(), strict=True) for msg in group]
    batch.insert(len(batch) // 2, poison)
    try:
        with caplog.at_level(logging.ERROR):
            live.hub.ingest_loop.ingest([Arrival(link, m, "fake", time.time()) for m in batch])
        assert any("could not be stored" in r.getMessage() for r in caplog.records)

        def acked() -> dict[str, int]:
            return {b: max([a["seq"] for a in link.acks(b) if a["boot"] == 1], default=0) for b in boards}

        assert wait_for(lambda: acked() == {"B1": 7, "B2": 7, "B3": 7}), acked()  # every honest one
        assert all(a["boot"] == 1 for a in link.acks("B2"))  # the poison is never acknowledged
        # the boards go on: later events and resends are taken as usual
        later = {b: events(b, range(8, 10)) for b in boards}
        resent = [sent["B1"][3], later["B1"][0], later["B2"][0], later["B2"][1], later["B1"][1],
                  later["B3"][0], later["B3"][1]]
        live.hub.ingest_loop.ingest([Arrival(link, m, "fake", time.time()) for m in resent])
        figures = live.audit({b: sent[b] + later[b] for b in boards})
        assert_exactly_once(figures, f"{len(batch)} messages in one batch, one poison")
        assert all(f.applied == 9 for f in figures)
        h = next(b for b in live.hub.boards() if b["board"] == "B2")
        assert any("could not be stored" in line(a) for a in h["alerts"])
    finally:
        live.close()
