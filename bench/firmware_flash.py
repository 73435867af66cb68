"""Flash writes per drop of the persistent outbox (issue 14), and the heap the board's
program needs, both measured on the MicroPython unix port.

1. Flash: the real LittleFS v2 (os.VfsLfs2, as rp2 and esp32 mount their flash) on a
   RAM block device that counts block erases and page programs, with the Pico W's
   geometry (4 KiB blocks, 848 KiB filesystem = 212 blocks). The outbox journal
   (firmware.outbox.FileJournal) takes N drops acknowledged by the hub before the
   journal's quiet time (a healthy link: nothing is written), then N drops each written
   before its ack came (the worst case: a hub slower than journal_after_ms, or away);
   and one boot (boot counter + journal compaction).
2. Heap: the smallest `-X heapsize` with which the whole board program (firmware.app
   main loop, serial link, journal on the unix filesystem) boots and reports 50 drops.

Run: ``python bench/firmware_flash.py`` (about 30 s).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.firmware.mp import load_script, tool  # noqa: E402

FLASH = r'''
import os, sys
sys.path.insert(0, ROOT)
BLOCK = 4096
BLOCKS = 212

class CountingFlash:
    """A block device (MicroPython's extended interface) that counts erases/programs."""
    def __init__(self):
        self.data = bytearray(BLOCK * BLOCKS)
        self.erases = [0] * BLOCKS
        self.programs = 0
        self.programmed = 0
    def readblocks(self, n, buf, off=0):
        a = n * BLOCK + off
        buf[:] = self.data[a:a + len(buf)]
    def writeblocks(self, n, buf, off=None):
        if off is None:  # whole-block write: erase + program
            self.erases[n] += 1
            off = 0
        a = n * BLOCK + off
        self.data[a:a + len(buf)] = buf
        self.programs += 1
        self.programmed += len(buf)
    def ioctl(self, op, arg):
        if op == 4:
            return BLOCKS
        if op == 5:
            return BLOCK
        if op == 6:
            self.erases[arg] += 1
            return 0
        return 0

dev = CountingFlash()
os.VfsLfs2.mkfs(dev)
os.mount(os.VfsLfs2(dev), "/flash")
from firmware.outbox import FileJournal, FileStorage, Outbox, next_boot

def snapshot():
    return sum(dev.erases), dev.programs, dev.programmed

e0, p0, b0 = snapshot()
store = FileStorage("/flash/boot.txt")
boot, _ = next_boot(store, lambda: 0x1234)
box = Outbox("B1", boot, 64, FileJournal("/flash/outbox.txt"))
box.restore()
e1, p1, b1 = snapshot()
N = DROPS
for i in range(N):  # healthy link: the hub acknowledges within the quiet time
    box.add("drop", (i * 7919) & 0x3FFFFFFF, {"hole": "big"})
    box.ack(boot, box.seq)
    box.flush()
e2, p2, b2 = snapshot()
for i in range(N):  # worst case: each drop journalled before its ack, then the ack
    box.add("drop", (i * 7919) & 0x3FFFFFFF, {"hole": "big"})
    box.flush()
    box.ack(boot, box.seq)
    box.flush()
e3, p3, b3 = snapshot()
print("RESULT", {"boot_erases": e1 - e0, "boot_programs": p1 - p0, "drops": N,
                 "healthy_erases": e2 - e1, "healthy_programs": p2 - p1,
                 "erases": e3 - e2, "programs": p3 - p2, "bytes": b3 - b2,
                 "max_block_erases": max(dev.erases), "blocks_used": sum(1 for x in dev.erases if x)})
'''

HEAP = r'''
import sys, gc
sys.path[:0] = [WORK, MPY, ROOT, FAKE]
import board_config, machine
from firmware import app
machine.wire(board_config.CONFIG)
drop = [[0, 5, 1], [2, 5, 0], [400, 5, 0]]
import json
with open(WORK + "/edges.jsonl", "w") as f:
    for _ in range(50):
        f.write(json.dumps(drop) + "\n")
import asyncio
async def stopper():
    await asyncio.sleep_ms(25000)
    raise SystemExit("timeout")
app.main(tasks=[machine.play(WORK + "/edges.jsonl"), stopper()])
'''


def flash(drops: int) -> dict[str, int]:
    script = FLASH.replace("ROOT", repr(str(ROOT)), 1).replace("DROPS", str(drops))
    proc = subprocess.run([tool("micropython"), "-X", "heapsize=8M", "-c", script], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        raise SystemExit(proc.stdout + proc.stderr)
    result: dict[str, int] = eval(line[7:])  # noqa: S307 - our own script's dict literal
    return result


def runs_with_heap(kib: int, mpy: Path | None) -> bool:
    """Does the board program boot and report 50 drops in a heap of `kib` KiB? With
    `mpy`, the firmware is imported from that folder's .mpy files (as deployed)."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = {"board": "H1", "port": "unix", "holes": [{"name": "big", "beams": [2, 3], "emitter": 4},
                                                          {"name": "small", "beams": [5], "emitter": 6},
                                                          {"name": "jackpot", "beams": [8, 9], "emitter": 10}],
               "links": ["serial"], "thresholds": {"watchdog_ms": 0}}
        Path(tmp, "board_config.py").write_text("CONFIG = " + repr(cfg) + "\n")
        shutil.copyfile(ROOT / "hardware" / "pinmap.json", Path(tmp) / "pinmap.json")
        script = (HEAP.replace("WORK", repr(tmp)).replace("MPY", repr(str(mpy or tmp)), 1)
                  .replace("ROOT", repr(str(ROOT)), 1)
                  .replace("FAKE", repr(str(ROOT / "tests" / "firmware" / "fake_machine"))))
        proc = subprocess.Popen([tool("micropython"), "-X", f"heapsize={kib}K", "-c", script], cwd=tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        drops = 0
        deadline = time.monotonic() + 30
        assert proc.stdout is not None
        for line in proc.stdout:
            if '"type":"drop"' in line:
                drops += 1
            if drops >= 50 or "MemoryError" in line or time.monotonic() > deadline:
                break
        proc.kill()
        proc.wait()
        proc.stdout.close()
        return drops >= 50


def main() -> int:
    drops = 2000
    r = flash(drops)
    per_erase = r["erases"] / drops
    print(f"LittleFS v2, 4 KiB blocks x 212 (Pico W), {drops} drops")
    print(f"  hub acks within the quiet time (healthy link): {r['healthy_programs']} programs, "
          f"{r['healthy_erases']} erases in all")
    print(f"  worst case, each drop journalled then its ack: {r['programs'] / drops:.2f} page programs, "
          f"{r['bytes'] / drops:.0f} bytes programmed, {per_erase:.3f} block erases per drop")
    print(f"  per boot: {r['boot_programs']} programs, {r['boot_erases']} erases")
    print(f"  wear: the busiest block was erased {r['max_block_erases']} times; {r['blocks_used']} blocks used")
    season = 30 * 2000  # 30 event days x 2,000 events a day on one board (a busy table)
    print(f"  a season of {season} events, all worst case: {season * per_erase:.0f} erases in all, "
          f"{season * per_erase / 212:.0f} per block if levelled over 212 blocks "
          f"(flash endurance 100,000 per block)")
    heaps = {}
    with tempfile.TemporaryDirectory() as tmp:
        deploy = load_script("deploy-board")
        deploy.compile_firmware("unix", Path(tmp) / "firmware")
        for label, mpy in (("from .py source", None), ("from .mpy (as deployed)", Path(tmp))):
            low, high = 16, 512
            while high - low > 4:
                mid = (low + high) // 2
                if runs_with_heap(mid, mpy):
                    high = mid
                else:
                    low = mid
            heaps[label] = high
            print(f"heap, {label}: the board program runs 50 drops in {high} KiB (fails at {low} KiB), "
                  "unix port x64")
    print(json.dumps({"flash": r, "heap_kib": heaps}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
