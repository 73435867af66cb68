"""Issue 24.8: one clear line instead of a traceback per timer tick when the store refuses
the timer's writes (a full disk gave ~45 "timer tick failed" tracebacks a second), and
the ingest path's gaps reach the hub's log (rate-limited), not only board health.
A real SQLite file refusing writes (a trigger), a real pty board."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from hub.devices.serial_link import SerialTransport
from hub.facade import Hub
from hub.log.sqlite import is_disk_failure
from tests.hub.boards import TICKS_MASK, PtyBoard, wait_for
from tests.hub.devices.test_clock_step import count_ticks


def test_a_store_refusing_every_timer_write_logs_one_line_not_a_traceback_per_tick_24_8(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    hub = Hub(str(tmp_path / "run.db"), settle_s=0.05)
    hub.start()
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["G24"], seed=7, table_id="t1")
    # From here the store takes the board's events but refuses the hub's own entries.
    hub.store._db.execute(  # type: ignore[attr-defined]
        "CREATE TEMP TRIGGER refuse_hub BEFORE INSERT ON log WHEN NEW.source = 'hub'"
        " BEGIN SELECT RAISE(ABORT, 'no space left for the hub'); END")
    # A board name of its own: the alert log is rate-limited per board and kind, process-wide.
    device = PtyBoard("G24", tmp_path / "ttyG24")
    link = SerialTransport([str(device.path)])
    hub.add_transport(link)
    try:
        assert wait_for(lambda: link.describe()["ports"][0]["open"], timeout=10)
        device.event("hello", fw="test", config="c", holes=["big", "small"])
        with caplog.at_level(logging.WARNING):
            drop = device.event("drop", hole="big")
            assert wait_for(lambda: device.out.acked == 2, timeout=10)
            # The board shows its clock past the settle window: the timer must write the
            # settle entry, which the store refuses on every tick.
            health = device.out.health()
            health["t_us"] = (drop["t_us"] + 2_000_000) & TICKS_MASK
            device.send(health)
            ticks = count_ticks(hub, monkeypatch)
            assert wait_for(lambda: ticks[0] >= 50, timeout=20)
            # A gap (seq 3 lost) is logged too, once.
            device.out.make("bounce", hole="big")
            device.event("bounce", hole="small")
            device.event("bounce", hole="small")
            assert wait_for(lambda: any("seq gap" in r.getMessage() for r in caplog.records), timeout=10)
    finally:
        device.unplug()
        hub.close()
    timer = [r for r in caplog.records if r.name == "hub" and "timer tick" in r.getMessage()]
    assert len(timer) == 1 and "no space left for the hub" in timer[0].getMessage()
    gaps = [r for r in caplog.records if r.name == "hub.devices" and "seq gap" in r.getMessage()]
    assert len(gaps) == 1 and "board G24" in gaps[0].getMessage()


def test_a_full_disk_is_a_store_wide_failure() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (x TEXT)")
    db.execute("PRAGMA max_page_count = 2")  # SQLite's own SQLITE_FULL, as on a full disk
    with pytest.raises(sqlite3.OperationalError) as full:
        for _ in range(100):
            db.execute("INSERT INTO t VALUES (?)", ("x" * 4000,))
    assert is_disk_failure(full.value)
    assert not is_disk_failure(sqlite3.OperationalError("no such table: log"))
