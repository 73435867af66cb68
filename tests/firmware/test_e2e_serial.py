"""End to end over the serial link: the firmware main loop under the MicroPython unix port
writes protocol lines on stdout and reads the host's acks and commands on stdin (a USB
CDC port on a board)."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from firmware import protocol
from tests.firmware.mp import ROOT, tool
from tests.firmware.test_e2e_mqtt import DROP_BIG, DROP_SMALL_2MS, GAP


class SerialBoard:
    def __init__(self, workdir: Path) -> None:
        workdir.mkdir(parents=True)
        cfg = {"board": "S1", "port": "unix",
               "holes": [{"name": "big", "beams": [2, 3], "emitter": 4}, {"name": "small", "beams": [5]}],
               "links": ["serial"], "thresholds": {"resend_ms": 300}}
        (workdir / "board_config.py").write_text("CONFIG = " + repr(cfg) + "\n")
        shutil.copyfile(ROOT / "hardware" / "pinmap.json", workdir / "pinmap.json")
        self.control = workdir / "edges.jsonl"
        self.control.write_text("")
        path = [str(workdir), str(ROOT), str(ROOT / "tests" / "firmware" / "fake_machine"), ".frozen"]
        self.proc = subprocess.Popen([tool("micropython"), str(ROOT / "tests" / "firmware" / "mp_e2e.py"),
                                      str(self.control)], cwd=workdir, env=dict(os.environ, MICROPYPATH=":".join(path)),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.messages: list[dict[str, Any]] = []
        self.junk: list[bytes] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            msg, _ = protocol.decode_line(line)
            with self.lock:
                if msg is None:
                    self.junk.append(line)
                else:
                    self.messages.append(msg)

    def send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(protocol.encode_line(msg))
        self.proc.stdin.flush()

    def events(self) -> list[tuple[str, int]]:
        with self.lock:
            return [(m["type"], m["seq"]) for m in self.messages if m["type"] != "health"]

    def wait(self, n: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(set(self.events())) < n and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(set(self.events())) >= n, (self.events(), self.junk)

    def script(self, *parts: list[list[int]]) -> None:
        import json

        with self.control.open("a") as f:
            f.write(json.dumps([s for p in parts for s in p]) + "\n")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


@pytest.mark.micropython
def test_serial_link_lines_out_acks_in(tmp_path: Path) -> None:
    board = SerialBoard(tmp_path / "board")
    try:
        board.wait(1)
        boot = board.messages[0]["boot"]
        deadline = time.monotonic() + 60
        while not any(m["type"] == "health" and m["counters"]["selftests"] >= 1 for m in board.messages):
            assert time.monotonic() < deadline, board.messages[-3:]  # the boot self-test (2 x 20 ms)
            board.send(protocol.command(boot, "health"))
            time.sleep(0.05)
        board.script(DROP_BIG, GAP, DROP_SMALL_2MS)
        board.wait(3)
        assert sorted(set(board.events())) == [("drop", 2), ("drop", 3), ("hello", 1)], (board.messages, board.junk)
        deadline = time.monotonic() + 30  # no ack yet: the board resends (resend_ms 300, backing off)
        while len(board.events()) <= 3:
            assert time.monotonic() < deadline, board.events()
            time.sleep(0.05)
        board.send(protocol.ack(boot, 3))
        deadline = time.monotonic() + 5
        while not any(m["type"] == "health" and m["counters"]["acked"] == 3 for m in board.messages):
            assert time.monotonic() < deadline, board.messages[-3:]
            board.send(protocol.command(boot, "health"))  # health on request shows the ack
            time.sleep(0.1)
        time.sleep(0.3)
        settled = len(board.events())
        time.sleep(1.5)
        assert len(board.events()) == settled  # acked over serial: resends stop
    finally:
        board.stop()


@pytest.mark.micropython
def test_bad_board_config_is_explained_on_the_console(tmp_path: Path) -> None:
    board_fs = tmp_path / "board"
    board_fs.mkdir()
    (board_fs / "board_config.py").write_text(
        'CONFIG = {"board": "S1", "port": "unix", "holes": [{"name": "big", "beams": [2, 2]}],'
        ' "links": ["mqtt"], "thresholds": {"stuck": 5}}\n')
    shutil.copyfile(ROOT / "hardware" / "pinmap.json", board_fs / "pinmap.json")
    path = [str(board_fs), str(ROOT), str(ROOT / "tests" / "firmware" / "fake_machine"), ".frozen"]
    proc = subprocess.Popen([tool("micropython"), "-c", "from firmware import app; app.main()"], cwd=board_fs,
                            env=dict(os.environ, MICROPYPATH=":".join(path)), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().decode() for _ in range(5)]
    finally:
        proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
    text = "".join(lines)
    assert "# trigono: CONFIG ERROR: bad board config:" in text, text
    assert "GPIO 2 already used" in text and "mqtt: need" in text and "unknown threshold 'stuck'" in text, text
