"""Boards that survive an event day (issue 14): the real main loop under the MicroPython
unix port, faults injected, and what the board does about them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.firmware.board_proc import BoardProcess
from tests.firmware.test_e2e_mqtt import DROP_SMALL_2MS, GAP

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


def test_an_exception_in_the_loop_is_recorded_told_in_the_next_hello_and_resets(make_board: Any) -> None:
    board = make_board(selftest_every_s=1)
    board.wait(lambda: hellos(board))
    assert "crash" not in hellos(board)[0]
    board.script([[0, "raise", "boom"]])  # the next pin read (the periodic self-test) raises
    assert board.exited(10) is not None, "the board is still running"
    assert "machine.reset()" in board.text()  # it reset itself, not left at the REPL
    assert (board.workdir / "crash.txt").read_text().startswith("RuntimeError: boom")
    board.start()  # the reset board boots again
    board.wait(lambda: hellos(board))
    assert hellos(board)[0]["crash"].startswith("RuntimeError: boom @"), hellos(board)[0]
    assert not (board.workdir / "crash.txt").exists()


def test_the_watchdog_resets_a_stuck_loop_and_the_next_hello_says_so(make_board: Any) -> None:
    board = make_board(watchdog_ms=1000)
    board.wait(lambda: hellos(board))
    board.script([[0, "hang", 30000]])  # a call that never returns (a blocking socket, say)
    assert board.exited(10) == -9, "the watchdog did not reset the board"
    board.start()
    board.wait(lambda: hellos(board))
    assert hellos(board)[0]["crash"] == "watchdog reset"


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
