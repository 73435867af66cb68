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
    proc = micropython("-c", hand + program, timeout=30, env=env)
    lines = [x for x in proc.stdout.splitlines() if x.startswith("BEAMS ")]
    assert lines, proc.stdout + proc.stderr
    assert any("big.B=BROKEN/1 " in x for x in lines), lines  # seen broken while the hand is in
    assert lines[-1] == "BEAMS big.A=open/0 big.B=BROKEN/7 small.A=open/0", lines[-1]
