"""A unix-port board process for the fault tests: the real firmware.app main loop on the
fake `machine`, its filesystem a directory that survives restarts (like flash), the
serial link on stdin/stdout, scripted beam edges and faults through a control file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from firmware import protocol
from tests.firmware.mp import ROOT, tool


class BoardProcess:
    def __init__(self, workdir: Path, cfg: dict[str, Any], script: str = "mp_e2e.py") -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.workdir = workdir
        self.entry = script  # the program (mp_e2e_esp32.py: the ESP32 board code)
        (workdir / "board_config.py").write_text("CONFIG = " + repr(cfg) + "\n")
        shutil.copyfile(ROOT / "hardware" / "pinmap.json", workdir / "pinmap.json")
        self.control = workdir / "edges.jsonl"
        self.proc: subprocess.Popen[bytes] | None = None
        self.reader: threading.Thread | None = None
        self.lines: list[bytes] = []
        self._decoded: tuple[list[bytes], int, list[dict[str, Any]]] = (self.lines, 0, [])
        self.lock = threading.Lock()

    def start(self) -> None:
        """Power on (again): a fresh process on the same filesystem."""
        self.stop()
        self.control.write_text("")
        path = [str(self.workdir), str(ROOT), str(ROOT / "tests" / "firmware" / "fake_machine"),
                ".frozen"]
        self.proc = subprocess.Popen([tool("micropython"), str(ROOT / "tests" / "firmware" / self.entry),
                                      str(self.control)], cwd=self.workdir,
                                     env=dict(os.environ, MICROPYPATH=":".join(path)),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        with self.lock:
            self.lines = []
        self.reader = threading.Thread(target=self._read, args=(self.proc,), daemon=True)
        self.reader.start()

    def _read(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with self.lock:
                if proc is self.proc:
                    self.lines.append(line)

    def messages(self) -> list[dict[str, Any]]:
        """Every message the board printed since it was powered on, decoded once each (a
        caller polling this with thousands of lines printed stays linear)."""
        with self.lock:
            lines, decoded = self.lines, self._decoded
            if decoded[0] is not lines:
                decoded = self._decoded = (lines, 0, [])
            _, done, out = decoded
            for line in lines[done:]:
                msg, _ = protocol.decode_line(line)
                if msg is not None:
                    out.append(msg)
            self._decoded = (lines, len(lines), out)
            return list(out)

    def text(self) -> str:
        with self.lock:
            return b"".join(self.lines).decode(errors="replace")

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [m for m in self.messages() if m["type"] != "health" and (kind is None or m["type"] == kind)]

    def wait(self, predicate: Any, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.02)
        raise AssertionError(f"timed out; board said:\n{self.text()[-3000:]}")

    def script(self, *parts: list[list[Any]]) -> None:
        with self.control.open("a") as f:
            f.write(json.dumps([s for p in parts for s in p]) + "\n")

    def write(self, data: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg: dict[str, Any]) -> None:
        self.write(protocol.encode_line(msg))

    def wait_selftests(self, count: int, timeout: float = 60.0) -> None:
        """Until the board has finished ``count`` self-tests (its boot one: one per hole
        with an emitter), asking for a health message until one says so: scripted edges
        that came during a self-test would be taken for its own, however slow the machine."""
        boot = self.events("hello")[0]["boot"]
        deadline = time.monotonic() + timeout
        while not any(m["type"] == "health" and m["counters"]["selftests"] >= count
                      for m in self.messages()):
            assert time.monotonic() < deadline, f"self-tests not done: {self.messages()[-3:]}"
            self.send(protocol.command(boot, "health"))
            time.sleep(0.05)

    def exited(self, timeout: float) -> int | None:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        self._drain()
        return code

    def _drain(self) -> None:
        # The process has ended, but its last lines may still sit in the pipe: the reader
        # thread ends at end-of-file, so joining it is what makes text() complete (CI once
        # saw the exit before the "stopped by Ctrl-C" line was read).
        if self.reader is not None:
            self.reader.join(timeout=10)

    def stop(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        self._drain()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except BrokenPipeError:
                    pass
