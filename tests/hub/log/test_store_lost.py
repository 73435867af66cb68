"""Issue 24.5: the store notices that its file was deleted or replaced while the hub runs
— before the acknowledgement goes out — stops acknowledging, says so on the admin page
and in the log, and saves what it acknowledged (a copy read through its open
connection). Before, a hub kept acknowledging into the unlinked file: 141 acknowledged
events were gone after a restart. A real SQLite file, a real pty board, the real app."""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.devices.serial_link import SerialTransport
from hub.facade import Hub
from hub.log.sqlite import SqliteStore
from tests.hub.boards import PtyBoard, wait_for
from tests.web.conftest import PASSWORD_HASH, login
from web import create_app


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[Hub, PtyBoard, Path]]:
    db = tmp_path / "run.db"
    hub = Hub(str(db), settle_s=0.05)
    hub.start()
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["B1"], seed=7, table_id="t1")
    device = PtyBoard("B1", tmp_path / "ttyB1")
    link = SerialTransport([str(device.path)])
    hub.add_transport(link)
    assert wait_for(lambda: link.describe()["ports"][0]["open"], timeout=10)
    device.event("hello", fw="test", config="c", holes=["big", "small"])
    for _ in range(5):
        device.event("bounce", hole="big")
    assert wait_for(lambda: device.out.acked == 6, timeout=10)
    yield hub, device, db
    device.unplug()
    hub.close()


def acknowledged_are_saved(rescued: Path, acked: int) -> None:
    store = SqliteStore(rescued)
    try:
        seqs = {e.seq for e in store.entries() if e.board == "B1"}
    finally:
        store.close()
    assert set(range(1, acked + 1)) <= seqs


@pytest.mark.slow  # a pty board and a rescued store, ~4 s: the fast loop stays under a minute; the whole suite runs it
def test_a_deleted_store_file_stops_the_acks_alerts_and_keeps_what_was_acknowledged_24_5(
        rig: tuple[Hub, PtyBoard, Path], caplog: pytest.LogCaptureFixture) -> None:
    hub, device, db = rig
    for path in db.parent.glob("run.db*"):
        if not path.name.endswith(".lock"):
            path.unlink()
    with caplog.at_level(logging.CRITICAL, logger="hub.log"):
        for _ in range(3):
            device.event("bounce", hole="small")
        assert wait_for(lambda: hub.store_alert() is not None, timeout=10)
        device.resend()
        device.event("bounce", hole="big")
        assert wait_for(lambda: hub.ingest_loop.inbox.idle(), timeout=10)
    assert device.out.acked == 6  # nothing acknowledged after the file went
    alert = hub.store_alert()
    assert alert is not None and "was deleted" in alert
    assert [r.getMessage() for r in caplog.records if r.name == "hub.log"] == [alert]
    rescued = db.parent / "run.db.rescued-1"
    assert f"saved to {rescued}" in alert
    acknowledged_are_saved(rescued, 6)
    # The admin page says it.
    app = create_app({"TESTING": True, "PASSWORD_HASH": PASSWORD_HASH, "SECRET_KEY": "k"}, hub=hub)
    referee = app.test_client()
    assert login(referee).status_code == 302
    page = referee.get("/admin/").get_data(as_text=True)
    assert 'id="store-alert"' in page and str(rescued) in page
    # A console input is refused in one line (503), not a traceback.
    answer = referee.post("/api/tables/t1/input", json={"landed": "floor"},
                          headers={"X-CSRFToken": csrf(referee)})
    assert answer.status_code == 503 and "acknowledges nothing more" in answer.get_json()["error"]["message"]


def csrf(client: object) -> str:
    from tests.web.conftest import csrf_token

    return csrf_token(client, "/admin/")  # type: ignore[arg-type]


def test_a_store_file_replaced_by_a_copy_is_noticed_too_24_5(rig: tuple[Hub, PtyBoard, Path]) -> None:
    hub, device, db = rig
    copy = db.parent / "copy.db"
    shutil.copy(db, copy)  # an older copy put back over the live file
    os.replace(copy, db)
    device.event("bounce", hole="small")
    assert wait_for(lambda: hub.store_alert() is not None, timeout=10)
    alert = hub.store_alert()
    assert alert is not None and "replaced by another file" in alert
    assert device.out.acked == 6
    acknowledged_are_saved(db.parent / "run.db.rescued-1", 6)
