"""The simulated sensor mode end to end: simulated palets → firmware Node → pty → hub."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from engines.records import replay
from hub.errors import HubError
from hub.facade import Hub
from hub.sim.runner import REFEREE, SimEvent, SimTable, make_specs

ROOT = Path(__file__).resolve().parents[2]


def run_event(tmp: Path, specs: list[SimTable], seed: int, during: Any = None) -> tuple[Hub, SimEvent]:
    hub = Hub(str(tmp / "hub.db"))
    hub.start()
    event = SimEvent(hub, tmp / "pty", specs, speed=0.0, seed=seed, settle_s=0.5)
    event.start()
    if during is not None:
        during(event)
    assert event.wait(60), event.progress()
    return hub, event


def finish(hub: Hub, event: SimEvent) -> None:
    event.close()
    hub.close()


@pytest.mark.slow
def test_R1_simulated_match_equals_replay_of_its_stored_log(tmp_path: Path) -> None:
    spec = SimTable("t1", {"Ana": 0.6, "Ben": 0.4}, boards=2)
    hub, event = run_event(tmp_path, [spec], seed=5)
    try:
        assert event.progress()[0]["error"] is None
        assert hub.game_over("t1")
        record = hub.export("t1")
        assert replay(record).to_json() == hub.table_view("t1")["state"]
        # seed 5 includes a floor bounce into a hole, marked by the simulated referee (T10)
        assert any(a.get("throw", {}).get("invalid") for a in record["actions"])
    finally:
        finish(hub, event)


@pytest.mark.slow
def test_seeded_runs_are_reproducible_event_for_event(tmp_path: Path) -> None:
    records = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        hub, event = run_event(tmp_path / run, make_specs(1, 3, boards=1, seed=11), seed=11)
        try:
            records.append(hub.export("sim1"))
        finally:
            finish(hub, event)
    assert records[0]["actions"] == records[1]["actions"]
    # seed 11 includes a knock-in (T12): two drops on one board within the settle window
    assert any("knocked" in a.get("throw", {}) for a in records[0]["actions"])


@pytest.mark.slow
def test_T17_T20_hexagon_of_six_boards_reaches_the_jackpot_and_a_final(tmp_path: Path) -> None:
    spec = SimTable("hx", {"Ana": 0.9, "Ben": 0.8, "Chloé": 0.7}, layout="hexagon")
    hub, event = run_event(tmp_path, [spec], seed=1)  # seed chosen so both happen
    try:
        record = hub.export("hx")
        actions = record["actions"]
        assert hub.game_over("hx")
        assert any(a.get("throw", {}).get("to") == "jackpot" for a in actions)
        # T17: in a hexagon the target is the jackpot, so a final shows in the state's phase.
        phases = {replay({**record, "actions": actions[:k]}).to_json()["phase"]
                  for k in range(len(actions) + 1)}
        assert "final" in phases
    finally:
        finish(hub, event)


@pytest.mark.slow
def test_a_board_link_drop_loses_nothing(tmp_path: Path) -> None:
    spec = SimTable("t1", {"Ana": 0.7, "Ben": 0.7}, boards=1)

    def drop_link(event: SimEvent) -> None:
        run = event.runs[0]
        deadline = time.monotonic() + 30
        while run.actions < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        board = event.boards["t1B1"]
        board.unplug()
        threading.Timer(1.5, board.plug).start()

    hub, event = run_event(tmp_path, [spec], seed=7, during=drop_link)
    try:
        board = event.boards["t1B1"]
        sent = board.events()
        deadline = time.monotonic() + 10
        health: dict[str, Any] = {}
        while time.monotonic() < deadline:
            health = next(b for b in hub.boards() if b["board"] == "t1B1")
            if health["last_seq"] == sent[-1]["seq"]:
                break
            time.sleep(0.05)
        assert health["last_seq"] == sent[-1]["seq"]
        assert health["lost_events"] == 0
        record = hub.export("t1")
        assert replay(record).to_json() == hub.table_view("t1")["state"]
        drops = sum(1 for e in sent if e["type"] == "drop")
        assert drops >= 1
    finally:
        finish(hub, event)


@pytest.mark.slow
def test_demo_starts_prints_every_address_and_they_answer(tmp_path: Path) -> None:
    with subprocess.Popen([sys.executable, "-m", "web.demo", "--port", "0", "--speed", "0",
                           "--db", str(tmp_path / "demo.db")],
                          cwd=ROOT, stdout=subprocess.PIPE, text=True) as proc:
        try:
            assert proc.stdout is not None
            shown = json.loads(proc.stdout.readline())
            assert shown["password"]
            assert shown["public_url"] is None and shown["phones"] == []  # 127.0.0.1: links at the browser's address
            pages = [shown[k] for k in ("dashboard", "big_screen", "big_screen_grid", "console", "admin", "play")]
            pages += [*shown["overlay"].values(), *shown["play_against_the_computer"].values()]
            assert len(shown["play_against_the_computer"]) == 3 and len(shown["games"]) == 6
            for page in pages:  # every address printed answers (logins and seat links redirect)
                with urllib.request.urlopen(page, timeout=10) as response:
                    assert response.status == 200, page
            readable = ""
            for _ in range(40):  # the same addresses for people, then how to stop
                readable += proc.stdout.readline()
                if "Ctrl-C to stop" in readable:
                    break
            assert "Ctrl-C to stop" in readable and shown["big_screen"] in readable
            deadline = time.monotonic() + 30
            throws = 0
            while time.monotonic() < deadline and throws == 0:  # the event is live
                for table in shown["tables"]:
                    url = f"{shown['dashboard']}api/tables/{table}"
                    with urllib.request.urlopen(url, timeout=10) as response:
                        throws += len(json.loads(response.read())["state"]["log"])
                time.sleep(0.2)
            assert throws > 0
        finally:
            proc.terminate()
            assert proc.wait(timeout=20) == 0


@pytest.mark.mqtt
@pytest.mark.slow
def test_an_mqtt_board_survives_a_broker_restart_and_loses_nothing(tmp_path: Path, own_mosquitto: Any) -> None:
    spec = SimTable("m1", {"Ana": 0.7, "Ben": 0.7}, boards=1, link="mqtt")

    def restart_broker(event: SimEvent) -> None:
        run = event.runs[0]
        deadline = time.monotonic() + 30
        while run.actions < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        threading.Thread(target=own_mosquitto.restart, args=(1.0,), daemon=True).start()

    hub = Hub(str(tmp_path / "hub.db"))
    hub.start()
    event = SimEvent(hub, tmp_path / "pty", [spec], speed=0.0, seed=7, settle_s=0.5,
                     mqtt=("127.0.0.1", own_mosquitto.port))
    event.start()
    restart_broker(event)
    try:
        assert event.wait(60), event.progress()
        sent = event.boards["m1B1"].events()
        deadline = time.monotonic() + 15
        health: dict[str, Any] = {}
        while time.monotonic() < deadline:
            health = next(b for b in hub.boards() if b["board"] == "m1B1")
            if health["last_seq"] == sent[-1]["seq"]:
                break
            time.sleep(0.05)
        assert health["last_seq"] == sent[-1]["seq"] and health["lost_events"] == 0
        assert replay(hub.export("m1")).to_json() == hub.table_view("m1")["state"]
        assert hub.game_over("m1")
        link = event.boards["m1B1"].link
        assert getattr(link, "connects", 0) >= 2  # it really lost the broker and came back
    finally:
        finish(hub, event)


class RacedHub(Hub):
    """A hub where a real referee always answers just before the simulated one: the
    simulator's answer then names a prompt that is no longer open."""

    raced = 0

    def submit(self, table_id: str, inp: Any) -> dict[str, Any]:
        if inp.get("by") == REFEREE and "answer" in inp and self.raced < 5:
            try:
                super().submit(table_id, {"landed": "floor", "by": "referee"})
                self.raced += 1
            except HubError:
                pass  # not a throw the referee can answer now (a drop is settling)
        return super().submit(table_id, inp)


@pytest.mark.slow
def test_the_simulator_survives_a_referee_answering_first_issue17_broken4(tmp_path: Path) -> None:
    hub = RacedHub(str(tmp_path / "hub.db"))
    hub.start()
    event = SimEvent(hub, tmp_path / "pty", [SimTable("t1", {"Ana": 0.3, "Ben": 0.3}, boards=1)],
                     speed=0.0, seed=3, settle_s=0.3)
    event.start()
    try:
        assert event.wait(120), event.progress()
        assert event.progress()[0]["error"] is None, event.progress()
        assert hub.game_over("t1") and hub.raced == 5
    finally:
        finish(hub, event)


@pytest.mark.slow  # ~7 s: a whole simulated match
def test_a_simulated_table_waits_out_a_busy_hub_and_finishes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 24.8 made every door answer 503 (HubBusyError) after LOCK_WAIT_S while a commit
    holds the hub: the simulator's referee calls the same doors, and a table must look again
    afterwards instead of ending in error. The hold is real (the hub's own lock, as a frozen
    commit holds it); the wait is shortened so that it runs out many times."""
    import hub.facade

    monkeypatch.setattr(hub.facade, "LOCK_WAIT_S", 0.05)
    spec = SimTable("t1", {"Ana": 0.6, "Ben": 0.4}, boards=1)

    def hold_the_hub(event: SimEvent) -> None:
        assert wait_for_actions(event, 2)
        with event.hub._lock:  # noqa: SLF001 - a commit that does not return, for a while
            time.sleep(1.0)

    hub, event = run_event(tmp_path, [spec], seed=5, during=hold_the_hub)
    try:
        assert event.progress()[0]["error"] is None, event.progress()
        assert hub.game_over("t1")
    finally:
        finish(hub, event)


def wait_for_actions(event: SimEvent, n: int, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if event.progress()[0]["actions"] >= n:
            return True
        time.sleep(0.01)
    return False
