"""A power cut at every flash command of an update (issue 33), on littlefs as the rp2 port
mounts it (littlefs-python: 4 KiB blocks, 256-byte programs, the Pico W's 212 blocks).

The firmware's own update code (firmware/update.py, firmware/slots.py: the receiver, the
selector's choice and the commit) runs here under CPython on a littlefs image whose block
device records every program and erase. Two updates are recorded: one from the
USB-deployed slot a into slot b, committed after its trial boot; then one from b into a
whose trial fails (the selector rolls it back). Then the recording is replayed into the
starting image command by command, and after each command — done, and torn (half of it
done: a program's first half, a block half erased) — the image is mounted as a board
booting then would, and must hold a complete version to run: the slot the selector picks
(and, on a trial boot, the slot it falls back to) has every file its manifest lists, each
with its SHA-256, or is the deployed tree untouched. 0 bricked images is the claim; the
number of cut points is printed (docs/performance.md, "Issue 33")."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("littlefs")
from littlefs import FileHandle, LittleFS, LittleFSError, UserContext, lfs  # noqa: E402

from firmware import slots  # noqa: E402
from hub.fleet import bundle as fleet_bundle  # noqa: E402

BLOCK, BLOCKS, PROG = 4096, 212, 256
Op = tuple[str, int, int, bytes]  # ("prog"|"erase", block, offset, data)


class Recorder(UserContext):
    def __init__(self, buffer: bytearray) -> None:
        super().__init__(buffer=buffer)
        self.ops: list[Op] = []
        self.recording = False

    def prog(self, cfg: Any, block: int, off: int, data: bytes) -> int:
        if self.recording:
            self.ops.append(("prog", block, off, bytes(data)))
        return super().prog(cfg, block, off, data)

    def erase(self, cfg: Any, block: int) -> int:
        if self.recording:
            self.ops.append(("erase", block, 0, b""))
        return super().erase(cfg, block)


def new_fs(buffer: bytearray, context: UserContext | None = None, mount: bool = True) -> LittleFS:
    return LittleFS(context=context or UserContext(buffer=buffer), block_size=BLOCK, block_count=BLOCKS,
                    prog_size=PROG, mount=mount, disk_version=0x00020000)


class FsOs:
    """The `os` and `open` the firmware's update code calls, on a littlefs volume."""

    def __init__(self, fs: LittleFS) -> None:
        self.fs = fs

    def stat(self, path: str) -> tuple[int, ...]:
        try:
            st = self.fs.stat(path)
        except LittleFSError as err:
            raise OSError(2, str(err)) from None
        return (0, 0, 0, 0, 0, 0, st.size)

    def _wrap(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except LittleFSError as err:
            raise OSError(2, str(err)) from None

    def remove(self, path: str) -> None:
        self._wrap(self.fs.remove, path)

    def rename(self, a: str, b: str) -> None:
        self._wrap(self.fs.rename, a, b)

    def listdir(self, path: str) -> list[str]:
        return list(self._wrap(self.fs.listdir, path))

    def mkdir(self, path: str) -> None:
        self._wrap(self.fs.mkdir, path)

    def open(self, path: str, mode: str = "r") -> Any:
        if mode.startswith("a"):  # littlefs-python's "a" lacks O_CREAT (MicroPython's has it)
            flags = lfs.LFSFileFlag
            fh = self._wrap(lfs.file_open, self.fs.fs, path, flags.creat | flags.append | flags.wronly)
            return io.BufferedWriter(FileHandle(self.fs.fs, fh), self.fs.cfg.cache_size)
        return self._wrap(self.fs.open, path, mode)


@pytest.fixture()
def firmware_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[LittleFS], Any]]:
    """firmware.update (which imports `slots` as the board does) with its file system calls
    on a littlefs volume."""
    monkeypatch.setitem(sys.modules, "slots", slots)
    from firmware import update

    def use(fs: LittleFS) -> Any:
        fake = FsOs(fs)
        for module in (update, slots):
            monkeypatch.setattr(module, "os", fake)
            monkeypatch.setattr(module, "open", fake.open, raising=False)
        return update

    yield use


def complete(fs: LittleFS, slot: str, deployed: dict[str, bytes]) -> bool:
    """The slot holds a whole version: its manifest's files with their hashes, or (no
    manifest: slot a as scripts/deploy-board left it) the deployed files untouched."""
    where = slots.SLOT_DIRS[slot]
    try:
        with fs.open(where + slots.MANIFEST, "r") as f:
            manifest = json.loads(f.read())
    except (LittleFSError, OSError):
        manifest = None
    try:
        if manifest is None:
            return slot == "a" and all(_read(fs, p) == d for p, d in deployed.items())
        return all(hashlib.sha256(_read(fs, where + p)).hexdigest() == h for p, _size, h in manifest["files"])
    except (LittleFSError, OSError):
        return False


def _read(fs: LittleFS, path: str) -> bytes:
    with fs.open(path, "rb") as f:
        data: bytes = f.read()
    return data


def boots_whole(image: bytearray, deployed: dict[str, bytes]) -> str | None:
    """None when a board booting from ``image`` runs a complete version, else why not."""
    try:
        fs = new_fs(image)
    except LittleFSError as err:
        return f"does not mount ({err}): MicroPython would format the flash"
    try:
        try:
            state = json.loads(_read(fs, slots.STATE_FILE))
        except (LittleFSError, OSError):
            state = {"active": "a"}
        slot, new = slots.choose(state, lambda: "cut")
        if not complete(fs, slot, deployed):
            return f"slot {slot} incomplete (state {state})"
        if new is not None and new.get("trial") == slot and not complete(fs, new["active"], deployed):
            return f"trial of {slot}: its fallback {new['active']} is incomplete"
        return None
    finally:
        fs.unmount()


def transfer(update: Any, updater: Any, bundle: fleet_bundle.Bundle) -> None:
    answer = updater.handle({"op": "begin", "id": bundle.id, "version": bundle.version,
                             "msize": len(bundle.manifest)})
    parts = bundle.parts()
    while answer["state"] == "want":
        chunk = parts[answer["file"]][answer["off"]:answer["off"] + update.CHUNK_MAX]
        answer = updater.handle({"op": "data", "id": bundle.id, "file": answer["file"], "off": answer["off"],
                                 "data": base64.b64encode(chunk).decode()})
    assert answer["state"] == "switching", answer


def test_a_power_cut_at_any_flash_command_of_two_updates_leaves_a_whole_version(
        firmware_on: Callable[[LittleFS], Any], tmp_path: Path) -> None:
    key = tmp_path / "key"
    public = fleet_bundle.keygen(key)
    deployed = fleet_bundle.compile_app("rp2")
    cfg = {"port": "rp2", "update_keys": [public], "thresholds": {}}
    image = bytearray(b"\xff" * BLOCK * BLOCKS)
    fs = new_fs(image, mount=False)
    fs.format()
    fs.mount()
    fs.mkdir("firmware")
    for path, data in deployed.items():  # what scripts/deploy-board writes (no manifest)
        with fs.open(path, "wb") as f:
            f.write(data)
    fs.unmount()
    start = bytearray(image)

    recorder = Recorder(image)
    fs = new_fs(image, recorder)
    update = firmware_on(fs)
    recorder.recording = True
    # 1: a -> b, the trial boot commits
    transfer(update, update.Updater(cfg, "1.0.0", "a", {"active": "a"}), fleet_bundle.build("1.1.0", "rp2", key))
    slot, new = slots.choose(slots.read_state())  # the selector, at the reset
    slots.write_state(new)
    update.Updater(cfg, "1.1.0", slot, slots.read_state()).commit()
    assert slots.read_state() == {"active": "b"}
    # 2: b -> a (over the deployed tree), the trial boot dies: the next boot goes back
    transfer(update, update.Updater(cfg, "1.1.0", "b", {"active": "b"}), fleet_bundle.build("1.2.0", "rp2", key))
    slots.write_state(slots.choose(slots.read_state())[1])
    slot, new = slots.choose(slots.read_state(), lambda: "watchdog reset")
    slots.write_state(new)
    assert (slot, slots.read_state()) == ("b", {"active": "b", "rollback": "1.2.0: watchdog reset"})
    recorder.recording = False
    fs.unmount()

    ops = recorder.ops
    replay = bytearray(start)
    bricked: list[str] = []
    for n, (kind, block, off, data) in enumerate(ops):
        at = block * BLOCK + off
        torn = bytearray(replay)
        if kind == "prog":
            half = len(data) // 2
            torn[at:at + half] = data[:half]
            replay[at:at + len(data)] = data
        else:
            torn[at:at + BLOCK // 2] = b"\xff" * (BLOCK // 2)
            replay[at:at + BLOCK] = b"\xff" * BLOCK
        for label, img in (("torn", torn), ("done", replay)):
            why = boots_whole(img, deployed)
            if why is not None:
                bricked.append(f"{kind} #{n} {label}: {why}")
    assert replay == image  # the replay is the recording
    print(f"\n{len(ops)} flash commands ({sum(1 for o in ops if o[0] == 'erase')} erases): "
          f"{2 * len(ops)} cut points, {len(bricked)} bricked")
    assert bricked == [], bricked[:10]
    assert len(ops) > 200
