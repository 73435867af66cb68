"""A unix-port board started through the slot selector, and an update link to it, for
the update tests (issue 33): the real firmware (selector, app, update receiver) on the
fake `machine`, its file system a directory kept across "power cycles" (a reset ends the
process; the link starts it again on the same directory, as power coming back)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import nacl.signing

from firmware import protocol
from hub.fleet import bundle as fleet_bundle
from tests.firmware.board_proc import BoardProcess
from tests.firmware.mp import ROOT

FIRMWARE = ROOT / "firmware"


class SlotBoard(BoardProcess):
    """The board: ``cfg`` with the organizer's public key in ``update_keys``."""

    def __init__(self, workdir: Path, cfg: dict[str, Any]) -> None:
        super().__init__(workdir, cfg, script="mp_slots.py")
        for name in ("selector.py", "slots.py"):  # deployed once beside the slots
            shutil.copyfile(FIRMWARE / name, workdir / name)
        self.boots = 0
        self.cursor = 0

    def start(self) -> None:
        super().start()
        self.boots += 1
        self.cursor = 0

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def state(self) -> dict[str, Any]:
        path = self.workdir / "slot.json"
        return json.loads(path.read_text()) if path.exists() else {"active": "a"}

    def slot_files(self, slot: str) -> dict[str, bytes]:
        where = self.workdir / ("b" if slot == "b" else "")
        return {str(p.relative_to(self.workdir)): p.read_bytes()
                for p in sorted((where / "firmware").glob("*")) if p.is_file()} if (where / "firmware").exists() else {}


class ProcessLink:
    """The update link to a :class:`SlotBoard` over its serial stdin/stdout; powers it on
    again when it reset (its process ended). ``cut_after``: end the process (a power cut)
    after that many ``update data`` messages were sent."""

    def __init__(self, board: SlotBoard, cut_after: int | None = None) -> None:
        self.board = board
        self.cut_after = cut_after
        self.data_sent = 0
        self.cut = False  # the test cut the power: it powers the board on itself

    def send(self, msg: dict[str, Any]) -> bool:
        if msg.get("op") == "data":
            self.data_sent += 1
            if self.cut_after is not None and self.data_sent == self.cut_after:
                self.board.stop()  # the power goes: nothing more is written
                self.cut = True
                return False
        if not self.board.alive():
            return False
        try:
            self.board.send(msg)
        except (BrokenPipeError, OSError):
            return False
        return True

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        until = time.monotonic() + timeout_s
        while True:
            msgs = self.board.messages()
            if self.board.cursor < len(msgs):
                self.board.cursor += 1
                return msgs[self.board.cursor - 1]
            if not self.cut and self.board.proc is not None and self.board.proc.poll() is not None:
                self.board.stop()  # it reset (or the watchdog bit): power comes back
                self.board.start()
                continue
            if time.monotonic() >= until:
                return None
            time.sleep(0.01)


# A board trusts two keys (rotation): an older one first, then the organizer's, so every
# good bundle in these tests is taken on the second key.
OLDER_KEY = bytes(nacl.signing.SigningKey(b"\x07" * 32).verify_key).hex()


def board_config(public_key: str, **thresholds: int) -> dict[str, Any]:
    # Generous on a loaded host: the fake watchdog and the trial's deadline run on real time.
    th = {"poll_ms": 10, "resend_ms": 300, "trial_ms": 10000, "watchdog_ms": 3000}
    th.update(thresholds)
    return {"board": "U1", "port": "unix", "holes": [{"name": "big", "beams": [2, 3]}],
            "links": ["serial"], "update_keys": [OLDER_KEY, public_key], "thresholds": th}


def patched_tree(tmp: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """A copy of firmware/ with ``{file: (old, new)}`` text replacements (a broken version)."""
    tree = tmp / "firmware"
    shutil.copytree(FIRMWARE, tree, ignore=shutil.ignore_patterns("local.py", "__pycache__"))
    for name, (old, new) in edits.items():
        text = (tree / name).read_text()
        assert old in text, (name, old)
        (tree / name).write_text(text.replace(old, new, 1))
    return tree


def build(version: str, key: Path, board_type: str = "unix", source: Path = FIRMWARE) -> fleet_bundle.Bundle:
    return fleet_bundle.build(version, board_type, key, source=source)


def hellos(board: SlotBoard) -> list[dict[str, Any]]:
    return [m for m in board.messages() if m["type"] == "hello"]


def wait_hello(board: SlotBoard, timeout: float = 30.0) -> dict[str, Any]:
    board.wait(lambda: hellos(board), timeout)
    return hellos(board)[-1]


__all__ = ["ProcessLink", "SlotBoard", "board_config", "build", "hellos", "patched_tree", "protocol",
           "wait_hello"]
