"""Boards that survive an event day (issue 14): the real main loop under the MicroPython
unix port, faults injected, and what the board does about them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware import protocol
from tests.firmware.board_proc import BoardProcess
from tests.firmware.test_e2e_mqtt import DROP_BIG, DROP_SMALL_2MS, GAP

pytestmark = pytest.mark.micropython


def serial_cfg(**thresholds: int) -> dict[str, Any]:
    return {"board": "F1", "port": "unix",
            "holes": [{"name": "big", "beams": [2, 3], "emitter": 4}, {"name": "small", "beams": [5]}],
            "links": ["serial"], "thresholds": {"resend_ms": 300, **thresholds}}


@pytest.fixture
def make_board(tmp_path: Path) -> Iterator[Any]:
    made: list[BoardProcess] = []

    def make(**thresholds: int) -> BoardProcess:
        b = BoardProcess(tmp_path / f"board{len(made)}", serial_cfg(**thresholds))
        made.append(b)
        b.start()
        return b

    yield make
    for b in made:
        b.stop()
        print(b.text()[-2000:])


def hellos(board: BoardProcess) -> list[dict[str, Any]]:
    return board.events("hello")


def new_hello(board: BoardProcess, old_boot: int) -> dict[str, Any] | None:
    return next((h for h in hellos(board) if h["boot"] != old_boot), None)


def test_an_exception_in_the_loop_is_recorded_told_in_the_next_hello_and_resets(make_board: Any) -> None:
    board = make_board(selftest_every_s=1)
    board.wait(lambda: hellos(board))
    assert "crash" not in hellos(board)[0]
    board.script([[0, "raise", "boom"]])  # the next pin read (the periodic self-test) raises
    assert board.exited(10) is not None, "the board is still running"
    assert "machine.reset()" in board.text()  # it reset itself, not left at the REPL
    assert (board.workdir / "crash.txt").read_text().startswith("RuntimeError: boom")
    old = hellos(board)[0]["boot"]
    board.start()  # the reset board boots again (its unacknowledged old hello is resent first)
    board.wait(lambda: new_hello(board, old))
    assert new_hello(board, old)["crash"].startswith("RuntimeError: boom @"), new_hello(board, old)
    assert not (board.workdir / "crash.txt").exists()


def test_the_watchdog_resets_a_stuck_loop_and_the_next_hello_says_so(make_board: Any) -> None:
    board = make_board(watchdog_ms=1000)
    board.wait(lambda: hellos(board))
    board.script([[0, "hang", 30000]])  # a call that never returns (a blocking socket, say)
    assert board.exited(10) == -9, "the watchdog did not reset the board"
    old = hellos(board)[0]["boot"]
    board.start()
    board.wait(lambda: new_hello(board, old))
    assert new_hello(board, old)["crash"] == "watchdog reset"


def test_a_partial_line_and_a_stray_ctrl_c_do_not_freeze_the_board(make_board: Any) -> None:
    board = make_board()
    board.wait(lambda: hellos(board))
    board.write(b"\x03$partial line, no newline yet")  # a stray Ctrl-C, then half a line
    board.script(DROP_SMALL_2MS, GAP)
    board.wait(lambda: board.events("drop"))
    assert "Ctrl-C ignored" in board.text()
    assert board.exited(1.5) is None  # still running
    board.write(b"\x03\x03")  # twice within a second: stop on purpose (mpremote, a human)
    assert board.exited(5) is not None
    assert "stopped by Ctrl-C" in board.text()


def test_a_board_killed_mid_outbox_delivers_every_event_exactly_once_after_restart(make_board: Any) -> None:
    board = make_board()
    board.wait(lambda: hellos(board))
    first = hellos(board)[0]["boot"]
    board.script(DROP_SMALL_2MS, GAP, DROP_BIG, GAP, DROP_SMALL_2MS, GAP)
    board.wait(lambda: len({e["seq"] for e in board.events("drop")}) == 3)
    stored: dict[tuple[int, int], dict[str, Any]] = {(first, 1): hellos(board)[0]}  # the hub
    board.send(protocol.ack(first, 1))  # the hub stored the hello, then lost the link
    time.sleep(1.0)  # the board journals what is unacknowledged once its holes are quiet (0.6 s)
    board.start()  # SIGKILL with three drops unacknowledged, then power on again

    def hub_round() -> bool:
        for msg in board.events():
            stored.setdefault((msg["boot"], msg["seq"]), msg)
        for boot in {b for b, _ in stored}:
            high = 0
            while (boot, high + 1) in stored:
                high += 1
            board.send(protocol.ack(boot, high))
        board.send(protocol.command(0, "health"))
        health = [m for m in board.messages() if m["type"] == "health"]
        return bool(health) and health[-1]["counters"]["unacked"] == 0 and len(stored) >= 5

    board.wait(hub_round, timeout=60)
    drops = sorted((boot, seq) for (boot, seq), m in stored.items() if m["type"] == "drop")
    assert drops == [(first, 2), (first, 3), (first, 4)], stored  # each palet once, under its first name
    assert [k for k, m in stored.items() if m["type"] == "hello"] == [(first, 1), (new_hello(board, first)["boot"], 1)]


def test_modulated_38khz_beams_pass_the_selftest_and_count_drops(tmp_path: Path) -> None:
    cfg = {"board": "M1", "port": "unix", "ir": "38khz",
           "holes": [{"name": "big", "beams": [2, 3], "emitter": 4}, {"name": "small", "beams": [5], "emitter": 6}],
           "links": ["serial"]}
    board = BoardProcess(tmp_path / "board", cfg)
    board.start()
    try:
        board.wait(lambda: hellos(board))
        board.wait_selftests(2)  # the boot self-test (emitter PWM duty 0, then 50 %)
        board.script(DROP_BIG, GAP, DROP_SMALL_2MS, GAP)
        board.wait(lambda: len(board.events("drop")) >= 2)
        assert not board.events("fault"), board.events("fault")
        assert [e["hole"] for e in board.events("drop")][:2] == ["big", "small"]
    finally:
        board.stop()


def test_an_mqtt_only_board_ignores_a_stray_ctrl_c_and_stops_on_two(tmp_path: Path) -> None:
    cfg = {"board": "Q1", "port": "unix", "holes": [{"name": "big", "beams": [2]}],
           "links": ["mqtt"], "mqtt": {"broker": "127.0.0.1", "port": 9}}  # no broker: never mind
    board = BoardProcess(tmp_path / "board", cfg)
    board.start()
    try:
        time.sleep(0.5)
        board.write(b"\x03")
        board.wait(lambda: "Ctrl-C ignored" in board.text())
        assert board.exited(1.5) is None
        board.write(b"\x03\x03")
        assert board.exited(5) is not None
        assert "stopped by Ctrl-C" in board.text()
    finally:
        board.stop()


def test_the_esp32_board_counts_edges_in_pcnt_units_and_classifies_them(tmp_path: Path) -> None:
    # firmware/board_esp32.py on fake esp32.PCNT units (both edges counted, read each poll)
    cfg = {"board": "E1", "port": "unix",
           "holes": [{"name": "big", "beams": [2, 3], "emitter": 4}, {"name": "small", "beams": [5], "emitter": 6}],
           "buttons": [{"name": "line", "pin": 7}], "links": ["serial"]}
    board = BoardProcess(tmp_path / "board", cfg, script="mp_e2e_esp32.py")
    board.start()
    try:
        board.wait(lambda: hellos(board))
        board.wait_selftests(2)  # the boot self-test: the emitters' edges are counted too, and ignored
        board.script(DROP_BIG, GAP, DROP_SMALL_2MS, GAP, [[0, 7, 1], [80, 7, 0]], GAP)
        board.wait(lambda: len(board.events()) >= 4)
        assert [(e["type"], e.get("hole") or e.get("button")) for e in board.events()[1:4]] == [
            ("drop", "big"), ("drop", "small"), ("button", "line")], board.events()
        assert not board.events("fault")
    finally:
        board.stop()
