"""Firmware node benchmark (issue 3): the cost of the interrupt path and of the node's
main-loop work, under the MicroPython unix port (what a board runs, on a PC's CPU: a
Pico W at 125 MHz is roughly 30-100x slower) and under CPython (the hub's simulator).

1. IRQ path: one edge through firmware.edges.pin_handler + EdgeRing.push (us/edge).
2. Idle poll: Node.poll() with 3 two-beam holes and a serial link, no edges (us/poll).
3. One drop: 4 edges (A, B in and out), the passage decided, the event queued, framed
   and written, then acknowledged: median of 200 polls with a drop minus median of 200
   idle polls (us/drop).

Run: ``python bench/firmware_node.py`` (the machine is shared: figures are noisy).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r'''
import sys, time
sys.path.insert(0, ROOT)
from firmware import config, protocol
from firmware.edges import EdgeRing, pin_handler
from firmware.links import SerialLink
from firmware.node import Node

def now_us():
    return time.ticks_us() if hasattr(time, "ticks_us") else int(time.perf_counter() * 1e6)

def diff(a, b):
    return time.ticks_diff(a, b) if hasattr(time, "ticks_diff") else a - b

class Pin:
    level = 0
    def value(self):
        return self.level

out = {}
ring = EdgeRing(256)
pin = Pin()
handler = pin_handler(ring, 0, 0, lambda: 12345)
spent = 0
N = 0
for rounds in range(100):
    t0 = now_us()
    for i in range(255):
        pin.level = i & 1
        handler(pin)
    spent += diff(now_us(), t0)
    N += 255
    while ring.pop() is not None:
        pass
out["irq_edge_us"] = spent / N

cfg = config.load({"board": "B1", "port": "unix", "holes": [
    {"name": "big", "beams": [2, 3]}, {"name": "small", "beams": [4, 5]}, {"name": "jackpot", "beams": [6, 7]}]})
clock = [0]
sent = []
node = Node(cfg, lambda: clock[0], lambda ch: False)
node.add_link(SerialLink(sent.append))
node.start()
def cycle(with_drop):
    """200 polls (400 ms of board time), with or without one drop; returns us spent."""
    t = clock[0]
    t0 = now_us()
    if with_drop:
        node.edge(0, True, t + 100)
        node.edge(1, True, t + 15000)
        node.edge(0, False, t + 20000)
        node.edge(1, False, t + 30000)
    for j in range(200):
        clock[0] += 2000
        node.poll()
    if with_drop:
        node.receive(protocol.ack(node.boot, node.outbox.seq))
    return diff(now_us(), t0)

idle, busy = [], []
for k in range(150):
    idle.append(cycle(False))
    busy.append(cycle(True))
idle.sort()
busy.sort()
out["idle_poll_us"] = idle[len(idle) // 2] / 200
out["drop_us"] = busy[len(busy) // 2] - idle[len(idle) // 2]
out["drops_seen"] = node.counters["drops"]
print("RESULT " + __import__("json").dumps(out))
'''


def run(argv: list[str]) -> dict[str, float]:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".py") as f:
        f.write(SCRIPT.replace("ROOT", repr(str(ROOT))))
        f.flush()
        proc = subprocess.run([*argv, f.name], capture_output=True, text=True, timeout=300)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result: dict[str, float] = json.loads(line[7:])
            return result
    raise RuntimeError(proc.stdout + proc.stderr)


def main() -> None:
    micropython = str(Path(sys.executable).parent / "micropython")
    results = {"micropython_unix": run([micropython]), "cpython": run([sys.executable])}
    for name, r in results.items():
        print(f"{name:17s} IRQ edge {r['irq_edge_us']:.2f} us | idle poll {r['idle_poll_us']:.1f} us"
              f" | one drop {r['drop_us']:.0f} us (drops seen {r['drops_seen']})")


if __name__ == "__main__":
    main()
