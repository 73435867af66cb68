"""scripts/beam-monitor: its board program runs on the real interpreter (fake `machine`
pins) and shows each beam's state and edges; the host side formats what it prints."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.firmware.mp import ROOT, load_script, micropython

CFG = {"board": "B1", "port": "unix", "holes": [{"name": "big", "beams": [2, 3], "emitter": 4},
                                               {"name": "small", "beams": [5]}]}


def monitor() -> Any:
    return load_script("beam-monitor")


def test_show_formats_a_line_and_ignores_others() -> None:
    m = monitor()
    assert m.show("BEAMS big.A=open/0 big.B=BROKEN/3") == "big.A      open      0 | big.B      BROKEN    3"
    assert m.show("MicroPython v1.24") is None


@pytest.mark.micropython
def test_board_program_shows_live_states_and_counts_edges() -> None:
    m = monitor()
    program = m.monitor_program(CFG, seconds=2)
    # a hand through beam B of the big hole, three times, while the program runs
    hand = ("import _thread, time, machine\n"
            f"machine.wire({CFG!r})\n"
            "def hand():\n"
            "    time.sleep_ms(300)\n"
            "    for _ in range(3):\n"
            "        machine.interrupt(3, 1); time.sleep_ms(250); machine.interrupt(3, 0); time.sleep_ms(150)\n"
            "    machine.interrupt(3, 1)\n"
            "_thread.start_new_thread(hand, ())\n")
    env = dict(os.environ, MICROPYPATH=str(ROOT / "tests" / "firmware" / "fake_machine") + ":.frozen")
    proc = micropython("-c", hand + program, timeout=600, env=env)
    lines = [x for x in proc.stdout.splitlines() if x.startswith("BEAMS ")]
    assert lines, proc.stdout + proc.stderr
    assert any("big.B=BROKEN/1 " in x for x in lines), lines  # seen broken while the hand is in
    assert lines[-1] == "BEAMS big.A=open/0 big.B=BROKEN/7 small.A=open/0", lines[-1]


@pytest.mark.micropython
def test_board_program_self_tests_the_gate_and_classifies_its_crossings() -> None:
    cfg = dict(CFG, line={"name": "L1", "near": 8, "far": 9, "emitter": 10})
    program = monitor().monitor_program(cfg, seconds=2)
    # a palet (near, then far 12 ms later, each dark ~9 ms), then an arm (in for 200 ms)
    steps = ("import _thread, time, machine\n"
             f"machine.wire({cfg!r})\n"
             "def cross():\n"
             "    time.sleep_ms(400)\n"
             "    machine.interrupt(8, 1); time.sleep_ms(9); machine.interrupt(8, 0); time.sleep_ms(3)\n"
             "    machine.interrupt(9, 1); time.sleep_ms(9); machine.interrupt(9, 0); time.sleep_ms(300)\n"
             "    machine.interrupt(8, 1); time.sleep_ms(30); machine.interrupt(9, 1); time.sleep_ms(200)\n"
             "    machine.interrupt(9, 0); time.sleep_ms(20); machine.interrupt(8, 0)\n"
             "_thread.start_new_thread(cross, ())\n")
    env = dict(os.environ, MICROPYPATH=str(ROOT / "tests" / "firmware" / "fake_machine") + ":.frozen")
    proc = micropython("-c", steps + program, timeout=600, env=env)
    out = proc.stdout.splitlines()
    assert [x for x in out if x.startswith("SELFTEST")] == ["SELFTEST big ok", "SELFTEST L1 ok"], proc.stdout + proc.stderr
    crossings = [x for x in out if x.startswith("CROSSING")]
    assert len(crossings) == 2 and crossings[0].endswith(": palet"), crossings
    assert "not a palet" in crossings[1], crossings
    assert "L1.near=open/4 L1.far=open/4" in [x for x in out if x.startswith("BEAMS ")][-1]
