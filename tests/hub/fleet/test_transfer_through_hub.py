"""A rollout through the running hub with the real transfer (issue 33.3 + 33.4): h2's
``update_board`` sends a signed bundle over the hub's own link (the fleet's tap hands it
each board's ``update_state`` and ``hello``), boards on a live table wait, a board that
rolls back halts the rollout and says why — and the events of the live match are
stored and acknowledged meanwhile."""

from __future__ import annotations

from pathlib import Path

from hub.facade import Hub
from hub.fleet import bundle as bundles
from hub.sim.fleet import SimFleet
from tests.hub.boards import wait_for


def signed_bundle(tmp_path: Path, version: str) -> Path:
    key = tmp_path / "organizer.key"
    if not key.exists():
        bundles.keygen(key)
    made = bundles.build(version, "rp2", key, files={"app.mpy": bytes(range(256)) * 9, "node.mpy": b"n" * 700})
    path = tmp_path / f"fw-{version}.bundle"
    path.write_bytes(bundles.dump(made))
    return path


def test_a_signed_bundle_reaches_every_idle_board_through_the_hubs_own_link(tmp_path: Path) -> None:
    fleet = SimFleet(5)
    hub = Hub(tmp_path / "fleet.db", settle_s=0.05)
    hub.start()
    hub.add_transport(fleet)
    for board in fleet.boards:
        hub.register_board(board)
    try:
        fleet.start_all()
        hub.create_table("trigono", seats=["Ana", "Ben"], boards=["S05"], seed=3, table_id="t1")
        assert hub.flush()
        path = signed_bundle(tmp_path, "1.1.0")
        hub.start_rollout("1.1.0", {"path": str(path), "version": "1.1.0"}, canary="S02", wave=2)
        drops = [fleet.drop("S05") for _ in range(3)]  # the live match goes on meanwhile
        assert wait_for(lambda: hub.fleet_view()["rollout"]["done"] == 4, 30)
        assert wait_for(lambda: fleet.acked("S05"), 10), [d["seq"] for d in drops]
        view = hub.fleet_view()
        assert view["rollout"]["state"] == "running" and view["rollout"]["waiting"] == ["S05"]
        assert fleet.updated[0] == "S02" and sorted(fleet.updated) == ["S01", "S02", "S03", "S04"]
        rows = {r["board"]: r for r in view["rows"]}
        assert rows["S01"]["fw"] == "1.1.0" and rows["S05"]["fw"] == "1.0.0"

        fleet.fail["S01"] = "self-test failed"
        newer = signed_bundle(tmp_path, "1.2.0")
        hub.cancel_rollout()
        hub.start_rollout("1.2.0", {"path": str(newer), "version": "1.2.0"}, boards=["S01", "S02"], wave=1)
        assert wait_for(lambda: hub.fleet_view()["rollout"]["state"] == "halted", 30)
        halted = hub.fleet_view()["rollout"]["halted"]
        assert halted["board"] == "S01" and halted["outcome"] == "rolled_back" and halted["reason"].startswith("1.2.0: self-test failed")
        assert fleet.boards["S01"].fw == "1.1.0" and fleet.boards["S02"].fw == "1.1.0"
        kinds = {e.body.get("type") for e in hub.store.entries() if e.source == "device"}
        assert "update_state" not in kinds and "hello" in kinds  # the transfer's answers are not stored
    finally:
        hub.close()
