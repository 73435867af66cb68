"""The hub's throw-line rule (issue 28) and a dead beam B (issue 24 item 9), refereed by a
real hub from the real firmware: `firmware.app`'s main loop under the MicroPython unix
port (the fake `machine`: beams, the throw gate's two planes, an HX711 load cell),
talking to the hub's serial link over a pseudo-terminal, as a board on USB does.

A palet's passage through the gate is scripted as plane edges (near, then far 12 ms
later, each closed ~9 ms: a palet at 4 m/s, hub/sim/model.py); the hub then waits
`landing_s` on the board's clock for a drop or a weight change, else scores `floor`."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hub.devices.serial_link import SerialTransport, wait_open
from hub.facade import Hub
from tests.firmware.mp import ROOT, tool
from tests.hub.boards import private_pty, wait_for

pytestmark = pytest.mark.micropython

BIG_A, BIG_B, SMALL, NEAR, FAR, SCK, DOUT = 2, 3, 5, 8, 9, 20, 21  # GPIOs
CROSSING = [[0, NEAR, 1], [9, NEAR, 0], [3, FAR, 1], [9, FAR, 0]]  # a palet through the gate
DROP_BIG = [[0, BIG_A, 1], [12, BIG_B, 1], [6, BIG_A, 0], [10, BIG_B, 0]]
DROP_SMALL = [[0, SMALL, 1], [4, SMALL, 0]]
FLIGHT = [[400, "hang", 0]]  # the palet flies to the board (a plain wait of the script)


def board_config(board: str, line: bool = True, loadcell: bool = True) -> dict[str, Any]:
    cfg: dict[str, Any] = {"board": board, "port": "unix", "links": ["serial"],
                           "holes": [{"name": "big", "beams": [BIG_A, BIG_B], "emitter": 4},
                                     {"name": "small", "beams": [SMALL], "emitter": 6}],
                           # The gate's timing windows widened from 35/30 ms: the script's
                           # edges are played in real time, and on a loaded host a 9 ms wait
                           # ran tens of ms late, so the palet looked like an arm ("line_long",
                           # no throw: failed once in a clean-clone run). What the gate refuses
                           # is decided on exact times in tests/firmware/cases.py; here the
                           # hub's rules after a throw are the subject.
                           "thresholds": {"resend_ms": 300, "health_every_s": 1, "line_max_ms": 100,
                                          "line_lag_max_ms": 100}}
    if line:
        cfg["line"] = {"name": "L1", "near": NEAR, "far": FAR, "emitter": 10}
    if loadcell:
        cfg["loadcell"] = {"sck": SCK, "dout": DOUT}
    return cfg


class PtyBoard:
    """A unix-port board whose USB serial is a pseudo-terminal the hub opens at `path`."""

    def __init__(self, workdir: Path, cfg: dict[str, Any], path: Path) -> None:
        workdir.mkdir(parents=True)
        (workdir / "board_config.py").write_text("CONFIG = " + repr(cfg) + "\n")
        (workdir / "pinmap.json").write_bytes((ROOT / "hardware" / "pinmap.json").read_bytes())
        (workdir / "loadcell.txt").write_text("81234 21500\n")  # tared and calibrated (fake HX711)
        self.control = workdir / "edges.jsonl"
        self.control.write_text("")
        self.master, slave = private_pty()
        path.symlink_to(os.ttyname(slave))
        self.slave = slave
        micropath = [str(workdir), str(ROOT), str(ROOT / "tests" / "firmware" / "fake_machine"), ".frozen"]
        self.log = (workdir / "stderr.txt").open("wb")
        self.proc = subprocess.Popen([tool("micropython"), str(ROOT / "tests" / "firmware" / "mp_e2e.py"),
                                      str(self.control)], cwd=workdir,
                                     env=dict(os.environ, MICROPYPATH=":".join(micropath)),
                                     stdin=self.master, stdout=self.master, stderr=self.log)

    def script(self, *parts: list[list[Any]]) -> None:
        with self.control.open("a") as f:
            f.write(json.dumps([s for p in parts for s in p]) + "\n")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        self.log.close()
        os.close(self.master)
        os.close(self.slave)


class Bench:
    """A real hub on SQLite with a serial link, and unix-port boards plugged into it."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.hub = Hub(tmp / "hub.db", settle_s=0.3)
        self.hub.start()
        self.boards: list[PtyBoard] = []
        self.links: list[SerialTransport] = []

    def plug(self, board: str, **kit: bool) -> PtyBoard:
        path = self.tmp / f"tty{board}"
        pty_board = PtyBoard(self.tmp / board, board_config(board, **kit), path)
        self.boards.append(pty_board)
        link = SerialTransport([str(path)])
        self.hub.add_transport(link)
        self.links.append(link)
        assert wait_open(link)
        # its first health (each second): the boot self-test (the classifiers suspended for
        # 2 x 20 ms) is long over
        assert wait_for(lambda: any(b["board"] == board and (b.get("uptime_s") or 0) >= 1
                                    for b in self.hub.boards()), 15), self.hub.boards()
        return pty_board

    def table(self, boards: list[str], landing_s: float = 1.0) -> None:
        self.hub.create_table("trigono", seats=["Ana", "Ben"], boards=boards, seed=1,
                              options={"first": "Ana", "palets_per_player": 3},
                              referee={"settle_s": 0.3, "landing_s": landing_s})

    def view(self) -> dict[str, Any]:
        return self.hub.table_view("t1")

    def throws(self) -> list[dict[str, Any]]:
        return [a["throw"] for a in self.hub.export("t1")["actions"] if "throw" in a]

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.view()["events"] if e["kind"] == kind]

    def alerts(self, kind: str) -> list[dict[str, Any]]:
        return [a for a in self.view()["alerts"] if a["kind"] == kind]

    def close(self) -> None:
        for link in self.links:
            link.stop()
        for board in self.boards:
            board.close()
        self.hub.close()


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Bench]:
    b = Bench(tmp_path)
    yield b
    b.close()


def test_R2_T5_a_throw_seen_at_the_line_with_nothing_after_it_is_on_the_floor(bench: Bench) -> None:
    board = bench.plug("B1")
    bench.table(["B1"])
    board.script(CROSSING)
    assert wait_for(lambda: len(bench.throws()) == 1, 15), bench.view()["events"]
    assert bench.throws() == [{"player": "Ana", "to": "floor"}]
    assert [e["params"]["by"] for e in bench.events("input")] == ["sensors"]  # no human answered
    assert [e["params"]["lane"] for e in bench.events("throw_seen")] == ["B1.L1"]
    assert bench.view()["prompts"][0]["player"] == "Ben"  # the next throw is asked as before


def test_R2_a_throw_then_one_more_palet_on_the_board_is_on_the_board(bench: Bench) -> None:
    board = bench.plug("B1")
    bench.table(["B1"], landing_s=3.0)
    board.script(CROSSING, FLIGHT, [[0, "palets", 1]])
    assert wait_for(lambda: len(bench.throws()) == 1, 15), bench.view()["events"]
    assert bench.throws() == [{"player": "Ana", "to": "board:B1"}]
    assert [(e["params"]["by"], e["params"]["device"]) for e in bench.events("input")] == [
        ("device", {"kind": "weight", "board": "B1"})]  # the board's scale, structured (issue 31.5)


def test_T6_a_throw_then_a_drop_is_the_drop(bench: Bench) -> None:
    board = bench.plug("B1")
    bench.table(["B1"])
    board.script(CROSSING, FLIGHT, DROP_BIG)
    assert wait_for(lambda: len(bench.throws()) == 1, 15), bench.view()["events"]
    assert bench.throws() == [{"player": "Ana", "to": "B1.big"}]
    assert bench.events("input") == [] and bench.events("throw_undecided") == []
    assert [e["params"]["hole"] for e in bench.events("throw")] == ["B1.big"]


def test_one_throw_seen_twice_is_merged_into_one_landing(bench: Bench) -> None:
    board = bench.plug("B1")
    bench.table(["B1"])
    board.script(CROSSING, [[150, "hang", 0]], CROSSING)  # the palet, then a second trigger
    assert wait_for(lambda: len(bench.throws()) == 1 and bench.events("throw_merged"), 15), bench.view()["events"]
    assert bench.throws() == [{"player": "Ana", "to": "floor"}]
    assert bench.alerts("throw_out_of_turn") == []
    assert wait_for(lambda: bench.view()["landing"] is None, 30)


def test_T4_a_second_throw_before_the_first_is_decided_is_flagged_and_nothing_is_guessed(bench: Bench) -> None:
    board = bench.plug("B1")
    bench.table(["B1"], landing_s=3.0)
    board.script(CROSSING, [[1000, "hang", 0]], CROSSING)  # two palets 1 s apart, nothing sensed
    assert wait_for(lambda: bench.alerts("throw_out_of_turn") and bench.events("throw_undecided"), 15), \
        bench.view()["events"]
    assert bench.throws() == []  # not two floors, not one: the referee says
    (prompt,) = bench.view()["prompts"]
    assert prompt["kind"] == "landed" and prompt["player"] == "Ana"


def test_T4_a_throw_while_a_drop_is_settling_is_flagged_not_scored(bench: Bench) -> None:
    board = bench.plug("B1")
    bench.table(["B1"])
    board.script(DROP_SMALL, [[60, "hang", 0]], CROSSING)  # a drop (no throw seen), then a crossing
    assert wait_for(lambda: len(bench.throws()) == 1 and bench.alerts("throw_out_of_turn"), 15), \
        bench.view()["events"]
    assert bench.throws() == [{"player": "Ana", "to": "B1.small"}]  # a missed throw scores as before
    assert bench.view()["landing"] is None
    assert bench.view()["prompts"][0]["kind"] == "landed"  # Ben's throw is asked, not scored


def test_T3_a_throw_at_another_boards_line_is_flagged_not_scored(bench: Bench) -> None:
    bench.plug("B1")
    other = bench.plug("B2")
    bench.table(["B1", "B2"])  # T3: Ana's home is B1, Ben's B2
    other.script(CROSSING)
    assert wait_for(lambda: bench.alerts("throw_wrong_lane"), 15), bench.view()["events"]
    (alert,) = bench.alerts("throw_wrong_lane")
    assert alert["params"]["player"] == "Ana" and alert["params"]["home"] == "B1"
    other.script([[1500, "hang", 0]], DROP_SMALL)  # nothing was scored meanwhile
    assert wait_for(lambda: len(bench.throws()) == 1, 15)
    assert bench.throws() == [{"player": "Ana", "to": "B2.small"}]


def test_R2_a_missed_throw_with_no_gate_reading_still_scores_as_before(bench: Bench) -> None:
    board = bench.plug("B1")
    bench.table(["B1"])
    board.script([[0, "palets", 1]])  # the gate missed the palet: the load cell still says
    assert wait_for(lambda: len(bench.throws()) == 1, 15), bench.view()["events"]
    assert bench.throws() == [{"player": "Ana", "to": "board:B1"}]


def test_R2_a_board_without_a_load_cell_leaves_the_throw_to_the_referee(bench: Bench) -> None:
    board = bench.plug("B1", loadcell=False)
    bench.table(["B1"])
    board.script(CROSSING)
    assert wait_for(lambda: bench.events("throw_undecided"), 15), bench.view()["events"]
    assert bench.throws() == []  # a palet on the board would not have been seen: ask
    (prompt,) = bench.view()["prompts"]
    assert prompt["kind"] == "landed" and prompt["player"] == "Ana"


def test_T11_a_dead_beam_b_costs_one_passage_offered_as_a_one_tap_drop(bench: Bench) -> None:
    board = bench.plug("B1", line=False, loadcell=False)  # a table without a throw gate
    bench.table(["B1"])
    board.script([[0, "dead", BIG_B]], [[100, "hang", 0]], DROP_BIG)  # B unplugged; a real drop
    assert wait_for(lambda: bench.alerts("misread_drop"), 15), bench.view()["events"]
    assert bench.events("bounce_out")  # the drop read as a bounce-out (T11)...
    (prompt,) = bench.view()["prompts"]
    assert prompt["kind"] == "landed" and prompt["default"] == "B1.big"  # ...offered as one tap
    bench.hub.submit("t1", {"answer": {"prompt": prompt["id"], "choice": "B1.big"}, "by": "referee"})
    assert bench.throws() == [{"player": "Ana", "to": "B1.big"}]
    assert bench.alerts("misread_drop") == []
    board.script([[500, "hang", 0]], DROP_BIG)  # Ben: beam A alone decides now, no human
    assert wait_for(lambda: len(bench.throws()) == 2, 15), bench.view()["events"]
    assert bench.throws()[1] == {"player": "Ben", "to": "B1.big"}
    assert [a for a in bench.alerts("fault") if "beam A alone" in str(a["params"])]
