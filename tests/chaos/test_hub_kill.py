"""Finding 3 of issue 13: SIGKILL the hub for a while while boards running the real
firmware node send in real time, two over serial (ptys) and two over MQTT (the shipped
auth broker). Afterwards every event each board produced is stored exactly once, the live
tables equal a replay of the log, and every board's outbox is empty (acknowledged).

The outages, measured in the boards' resend period (resend_ms, 2 s as shipped, doubling
while nobody acks up to 16 x): 1 s is shorter than the first resend; 7 s spans two
resends; the long one spans four, the last raising the period to the cap — 30 s of the
shipped 2 s, run as 8 s with the boards' resend_ms at 500 ms (the same resends, a quarter of the
waiting)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.broker import AuthBroker
from tests.chaos.rig import Boards, HubProcess, audit, live_equals_replay, table_spec, wait_for

pytestmark = [pytest.mark.chaos, pytest.mark.mqtt, pytest.mark.slow]

SERIAL, MQTT = ["S1", "S2"], ["B1", "B2"]
PER_PHASE = 3  # events every board sends before the kill, while the hub is down, and after


@pytest.mark.parametrize(("down_s", "resend_ms", "store"), [
    (1, 2000, "sqlite"), (7, 2000, "sqlite"),
    pytest.param(8, 500, "sqlite", id="past-the-resend-cap-sqlite"),  # resends at 0.5, 1.5, 3.5, 7.5 s
    pytest.param(7, 2000, "postgres", marks=pytest.mark.postgres),  # issue 18: the same on PostgreSQL
])
def test_hub_sigkilled_for_a_while_loses_nothing_doubles_nothing(
        auth_broker: AuthBroker, tmp_path: Path, request: pytest.FixtureRequest,
        down_s: int, resend_ms: int, store: str) -> None:
    db = str(tmp_path / "hub.db") if store == "sqlite" else request.getfixturevalue("pg_url")
    boards = Boards(tmp_path, SERIAL, MQTT, auth_broker, seed=down_s, resend_ms=resend_ms)
    tables = [table_spec(n, b) for n, b in enumerate(SERIAL + MQTT, 1)]
    hub = HubProcess(db, [boards.paths[s] for s in SERIAL], auth_broker, tables,
                     log=tmp_path / "hub.log")
    try:
        hub.start()
        boards.play()
        # each phase lasts until every board has sent 3 events in it (the outage also its
        # time), so a loaded machine (the chip emulator on the other worker) lengthens it,
        # never empties it
        mark = boards.sent()
        assert boards.wait_each_sent(mark, PER_PHASE), boards.sent()
        hub.kill()  # whatever it had read and not stored is gone with it
        mark = boards.sent()
        time.sleep(down_s)  # the boards keep playing, in real time
        assert boards.wait_each_sent(mark, PER_PHASE), boards.sent()
        hub.start()
        mark = boards.sent()
        assert boards.wait_each_sent(mark, PER_PHASE), boards.sent()
        boards.pause()
        assert wait_for(boards.all_acked, timeout=60, every=0.2), {
            b: s.node.outbox.unacked() for b, s in boards.boards.items()}
        hub.stop()
        figures = audit(db, {b: s.events() for b, s in boards.boards.items()})
        print(f"\nhub down {down_s} s ({store}):", "; ".join(f.line() for f in figures))
        for f in figures:
            assert f.sent >= 3 * PER_PHASE and f.missing == [] and f.doubled == 0, f
        applied = live_equals_replay(db, tmp_path)
        assert all(n > 0 for n in applied.values()), applied
    finally:
        hub.stop()
        boards.close()
