"""The fleet (issue 33): the page's rows sorted by trouble and filtered, the actions on a
board refused during a live match unless forced, and staged rollouts — canary, waves,
only idle boards, halt at the first failure, resumed after a restart.

A real hub on a real SQLite file; the boards are a simulated fleet (hub/sim/fleet.py)
whose every message passes the firmware's codec."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.errors import RefusedError, UnknownBoardError
from hub.facade import Hub
from hub.fleet.service import BoardLiveError
from hub.sim.fleet import SimFleet
from tests.hub.boards import wait_for


def fleet_hub(db: Path, fleet: SimFleet) -> Hub:
    hub = Hub(db)
    hub.updater = fleet.update_board
    hub.start()
    hub.add_transport(fleet)
    for board in fleet.boards:
        hub.register_board(board)
    return hub


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[Hub, SimFleet]]:
    fleet = SimFleet(6)
    hub = fleet_hub(tmp_path / "fleet.db", fleet)
    fleet.start_all()
    assert hub.flush()
    yield hub, fleet
    hub.close()


def live_table(hub: Hub, boards: list[str]) -> None:
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=boards, seed=1, table_id="t1")


def rows(hub: Hub, which: str = "all") -> dict[str, dict[str, Any]]:
    return {r["board"]: r for r in hub.fleet_view(which)["rows"]}


def test_rows_are_sorted_by_trouble_and_filtered(rig: tuple[Hub, SimFleet]) -> None:
    hub, fleet = rig
    hub.fleet_target("1.1.0")
    fleet.boards["S03"].fw = "1.1.0"
    fleet.boot("S03")
    fleet.boards["S02"].faulty.add("small")
    fleet.health("S02")
    fleet.boot("S05", crash="watchdog reset")
    fleet.boards["S06"].rssi = -88
    fleet.health("S06")
    live_table(hub, ["S04"])
    hub.create_table("trigono", seats=["Ana", "Ben"], boards=["S09"], seed=1, table_id="t2")  # never heard
    assert hub.flush()
    view = hub.fleet_view()
    order = [r["board"] for r in view["rows"]]
    assert order[0] == "S09" and view["rows"][0]["troubles"] == ["never_seen"]
    assert order[1:4] == ["S02", "S05", "S06"], order  # beam fault, crash, weak Wi-Fi (all outdated)
    by = rows(hub)
    assert [b["selftest"] for b in by["S02"]["beams"]] == [None, None]
    assert by["S02"]["beams"][1]["state"] == "fault" and by["S05"]["crashes"] == ["watchdog reset"]
    assert by["S05"]["reboots_today"] == 1 and by["S01"]["reboots_today"] == 0
    assert by["S03"]["troubles"] == ["rebooted"] and by["S03"]["fw_ok"] and by["S01"]["outdated"]
    assert by["S04"]["live"] and by["S04"]["table"] == "t1" and by["S04"]["position"] == "S04"
    assert by["S01"]["journal"] == 1 and by["S01"]["rssi"] == fleet.boards["S01"].rssi  # its hello, when it told
    assert set(rows(hub, "outdated")) == {"S01", "S02", "S04", "S05", "S06"}
    assert set(rows(hub, "offline")) == {"S09"} and set(rows(hub, "live")) == {"S04", "S09"}
    assert view["summary"] == {"boards": 7, "online": 6, "outdated": 5, "offline": 1, "live": 2, "trouble": 7}


def test_actions_are_refused_on_a_live_board_unless_forced_and_logged_when_they_change_it(
        rig: tuple[Hub, SimFleet], tmp_path: Path) -> None:
    hub, fleet = rig
    live_table(hub, ["S01"])
    for action in ("identify", "selftest", "rearm", "reboot"):
        with pytest.raises(BoardLiveError) as err:
            hub.board_action("S01", action)
        assert err.value.kind == "board_live" and err.value.params["table"] == "t1"
    assert fleet.boards["S01"].commands == [c for c in fleet.boards["S01"].commands if c == "resend"]
    boot = fleet.boards["S01"].boot
    assert hub.board_action("S01", "reboot", force=True)["forced"]
    assert fleet.boards["S01"].boot == boot + 1
    hub.board_action("S02", "identify")
    assert fleet.boards["S02"].identified == 1
    fleet.boards["S02"].faulty.add("big")
    hub.board_action("S02", "selftest")  # the board tests its beams and tells in its health
    assert hub.flush()
    assert [b["selftest"] for b in rows(hub)["S02"]["beams"]] == ["fault", "ok"]
    hub.board_action("S02", "rearm")
    assert hub.flush()
    assert [b["selftest"] for b in rows(hub)["S02"]["beams"]] == ["ok", "ok"]
    with pytest.raises(UnknownBoardError):
        hub.board_action("nope", "identify")
    with pytest.raises(RefusedError):
        hub.board_action("S02", "explode")
    logged = hub.fleet_view()["actions"]
    assert [(a["action"], a["board"], a["forced"]) for a in logged] == [("reboot", "S01", True), ("rearm", "S02", False)]
    hub.close()
    again = Hub(tmp_path / "fleet.db")  # the log keeps them
    try:
        assert [a["action"] for a in again.fleet_view()["actions"]] == ["reboot", "rearm"]
    finally:
        again.close()


def test_a_rollout_goes_canary_first_then_waves_of_idle_boards_and_busy_ones_wait(
        rig: tuple[Hub, SimFleet]) -> None:
    hub, fleet = rig
    live_table(hub, ["S06"])
    started: list[list[str]] = []
    active: set[str] = set()
    lock = threading.Lock()

    def gate(board: str) -> None:
        with lock:
            if board not in active:
                active.add(board)
                started.append(sorted(active))

    fleet.gate = gate
    real = fleet.update_board

    def update(link: Any, board: str, bundle: Any, progress: Any) -> Any:
        try:
            return real(link, board, bundle, progress)
        finally:
            with lock:
                active.discard(board)

    hub.updater = update
    hub.fleet.updater = update
    view = hub.start_rollout("1.1.0", {"version": "1.1.0"}, canary="S03", wave=2)
    assert view["state"] == "running" and view["total"] == 6
    assert wait_for(lambda: hub.fleet_view()["rollout"]["done"] == 5, 20)
    rollout = hub.fleet_view()["rollout"]
    assert rollout["state"] == "running" and rollout["waiting"] == ["S06"]  # a live match: it waits
    assert fleet.updated[0] == "S03" and started[0] == ["S03"]
    assert max(len(s) for s in started) <= 2  # waves of two at most
    assert set(fleet.updated) == {"S01", "S02", "S03", "S04", "S05"}
    assert rows(hub)["S03"]["fw"] == "1.1.0" and not rows(hub)["S03"]["outdated"]
    hub.submit("t1", {"abandon": True, "by": "referee"})  # the match is over: S06 is idle now
    assert wait_for(lambda: hub.fleet_view()["rollout"]["state"] == "finished", 20)
    assert fleet.updated[-1] == "S06"


def test_a_rollout_halts_at_the_first_failure_and_resumes_after_a_restart(tmp_path: Path) -> None:
    fleet = SimFleet(5)
    hub = fleet_hub(tmp_path / "fleet.db", fleet)
    fleet.start_all()
    assert hub.flush()
    fleet.fail["S02"] = "signature refused"
    hub.start_rollout("1.1.0", {"version": "1.1.0"}, wave=1)
    assert wait_for(lambda: hub.fleet_view()["rollout"]["state"] == "halted", 20)
    rollout = hub.fleet_view()["rollout"]
    assert rollout["halted"] == {"board": "S02", "outcome": "refused", "reason": "signature refused"}
    assert fleet.updated == ["S01"] and rollout["boards"]["S03"]["state"] == "pending"
    assert rows(hub)["S02"]["troubles"][0] == "update_failed"
    hub.close()

    # A rollout cut by a hub restart: the boards begun are updated again, the rest follow.
    fleet2 = SimFleet(4)
    hold = threading.Event()
    fleet2.gate = lambda board: None if board != "S02" else hold.wait(10)
    hub2 = fleet_hub(tmp_path / "second.db", fleet2)
    fleet2.start_all()
    assert hub2.flush()
    hub2.start_rollout("2.0.0", {"version": "2.0.0"}, wave=1)
    assert wait_for(lambda: hub2.fleet_view()["rollout"]["boards"]["S02"]["state"] == "updating", 20)
    hub2.fleet.stop()  # the hub goes away mid-transfer (its worker never reports)
    hub2.close()
    hold.set()
    fleet3 = SimFleet(4)
    fleet3.boards["S01"].fw = "2.0.0"
    hub3 = fleet_hub(tmp_path / "second.db", fleet3)
    fleet3.start_all()
    try:
        assert wait_for(lambda: hub3.fleet_view()["rollout"]["state"] == "finished", 20)
        assert fleet3.updated == ["S02", "S03", "S04"]  # S01 was done before the restart
    finally:
        hub3.close()


def test_a_spare_is_assigned_to_a_tables_position_refused_while_live_unless_forced(
        rig: tuple[Hub, SimFleet], tmp_path: Path) -> None:
    hub, fleet = rig
    live_table(hub, ["S01"])
    with pytest.raises(BoardLiveError) as err:
        hub.assign_board("S06", "t1", "S01")
    assert err.value.kind == "table_live"
    view = hub.assign_board("S06", "t1", "S01", force=True)  # S01 died: S06 takes its place
    assert [b["board"] for b in view["layout"]] == ["S06"] and view["events"][-1]["params"]["key"] == "rebind"
    by = rows(hub)
    assert (by["S06"]["table"], by["S06"]["position"], by["S06"]["live"]) == ("t1", "S01", True)
    assert by["S01"]["table"] is None and not by["S01"]["live"]
    fleet.drop("S06")  # the spare's palets score on the table now
    assert hub.flush()
    assert wait_for(lambda: fleet.acked("S06"), 10)
    with pytest.raises(RefusedError) as refused:
        hub.assign_board("S05", "t1", "B7", force=True)
    assert refused.value.kind == "unknown_position"
    hub.close()
    again = Hub(tmp_path / "fleet.db")  # the log says who serves where
    try:
        assert rows(again)["S06"]["position"] == "S01" and [b["board"] for b in again.table_view("t1")["layout"]] == ["S06"]
    finally:
        again.close()
