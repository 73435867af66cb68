"""The firmware on its real chip (issue 27): MicroPython's official rp2 image on an
emulated RP2040 (rp2040py, tests/hil/chip.py), deployed as scripts/deploy-board deploys
it, the real hub acknowledging (Pico: USB serial; Pico W: Wi-Fi and MQTT to a private
Mosquitto). Every figure is in simulated time, on the chip's own 125 MHz clock:

- boot → hello on the wire (power on to the hello's last byte on USB; Pico W: and at the
  hub over MQTT, Wi-Fi join included);
- free heap (``gc.mem_free()`` after ``gc.collect()``, 32-bit) after boot and after N drops:
  the deployed firmware is stopped (two Ctrl-C) and started again from the REPL with one
  probe task beside its loop that collects and prints the free heap every 500 ms;
- interrupt latency: a beam edge set at an exact instant → the ``t_us`` the firmware
  stamped in its hard IRQ (the chip's TIMER read at the edge is the reference);
- drop → event on the wire: from the passage's due decision (last edge + confirm_ms) to
  the event's last byte on USB (Pico) / at the broker… (Pico W: on USB is not used, the
  figure is the hub's arrival, not measured here);
- longest main-loop stall (gaps between watchdog feeds: the loop feeds it once a pass);
- a journal write's stall: no acks (USB unplugged / broker stopped), one drop, the loop
  pass that writes /outbox.txt after journal_after_ms of quiet.

Run: ``python bench/firmware_chip.py --board pico`` and ``--board pico_w`` (images from
$TRIGONO_FIRMWARE_IMAGES, see firmware/README.md; ~4 and ~6 minutes here).
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware.config import DEFAULTS  # noqa: E402
from hub.sim.model import hole_edges  # noqa: E402
from tests.broker import Broker  # noqa: E402
from tests.chaos.rig import HubProcess  # noqa: E402
from tests.hil.chip import BROKER_IP, Chip, HubLog, missing_reason  # noqa: E402

BOARD = "B1"
HOLES = [{"name": "big", "beams": [2, 3], "emitter": 4}, {"name": "small", "beams": [6, 7], "emitter": 8},
         {"name": "jackpot", "beams": [10, 11], "emitter": 12}]
LOCAL = 'WIFI_SSID = "RP2040PY-GUEST"\nWIFI_PASSWORD = "emulated-ap"\nMQTT_PASSWORD = "unused"\n'
HEAP_PROBE = ("import gc;from firmware import app;exec('async def heap():\\n import asyncio\\n while True:\\n"
              "  await asyncio.sleep_ms(500)\\n  gc.collect()\\n  print(\"# heap\",gc.mem_free())');"
              "app.main(tasks=[heap()])")
TICKS_PERIOD = 1 << 30
CONFIRM_MS = DEFAULTS["confirm_ms"]


def heaps(chip: Chip) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"# heap (\d+)", chip.text())]


def run(board: str, drops: int, work: Path) -> dict[str, Any]:
    broker = None
    cfg: dict[str, Any] = {"board": BOARD, "port": "rp2", "holes": HOLES, "links": ["serial"]}
    if board == "pico_w":
        broker = Broker(work / "mosquitto")
        broker.start()
        # keepalive past the run: the broker counts it in real seconds, the board in simulated ones
        cfg.update(links=["mqtt"], mqtt={"broker": BROKER_IP, "port": broker.port, "keepalive_s": 600})
    chip = Chip(board, cfg, work / "chip", local=LOCAL if broker else None)
    out: dict[str, Any] = {}
    started = time.monotonic()
    chip.boot()
    hub = HubProcess(work / "hub.db", [] if broker else [Path(chip.tty)], None, [], log=work / "hub.log")
    hub.args += ["--board", BOARD]  # a hub acknowledges only the boards it referees
    if broker is not None:
        hub.args += ["--mqtt", f"{broker.host}:{broker.port}"]
    hub.start()
    log = HubLog(work / "hub.db")
    try:
        if broker is None:
            hello = chip.wait(lambda: chip.timed("hello"), 5, "hello")[0]
            out["boot → hello on USB (ms)"] = hello.at_ns / 1e6
        chip.wait(lambda: log.device(BOARD, "hello"), 15, "hello at the hub")
        out["boot → hello at the hub (ms)"] = chip.now_us() / 1e3  # within Chip.wait's 5 ms look
        out["longest loop stall, boot to hello at the hub (ms)"] = chip.longest_stall_ms()
        # The deployed firmware again, from the REPL, with the heap probe beside its loop.
        hellos = len(log.device(BOARD, "hello"))
        chip.restart_at_repl(HEAP_PROBE)
        chip.wait(lambda: len(log.device(BOARD, "hello")) > hellos and heaps(chip), 15, "the probed firmware")
        out["free heap after boot (bytes)"] = heaps(chip)[-1]
        # N drops, the three holes in turn, 450 ms apart in each (past confirm_ms).
        rng = random.Random(27)
        boot = log.device(BOARD, "hello")[-1]["boot"]
        start_us = chip.now_us()
        passages: list[tuple[str, float]] = []
        for i in range(drops):
            name = HOLES[i % 3]["name"]
            t = (i // 3) * 450_000 + (i % 3) * 150_000
            edges = hole_edges(rng, t, passes=True)
            base = chip.play(name, edges, lead_us=2000)
            passages.append((name, base + max(e[2] for e in edges)))
        chip.wait(lambda: len([m for m in log.device(BOARD, "drop") if m["boot"] == boot]) >= drops, drops * 0.2 + 5,
                  f"{drops} drops at the hub")
        end_us = chip.now_us()
        seen = len(heaps(chip))
        chip.wait(lambda: len(heaps(chip)) > seen, 3, "a heap figure")
        out[f"free heap after {drops} drops (bytes)"] = heaps(chip)[-1]
        out["free heap, lowest seen (bytes)"] = min(heaps(chip))
        out[f"longest loop stall during the {drops} drops (ms)"] = chip.longest_stall_ms(start_us, end_us)
        # Interrupt latency and decision → wire, per passage.
        latencies, to_wire = [], []
        leads = {h["name"]: [e for e in chip.edges if e.hole == h["name"] and e.closed and e.at_ns >= start_us * 1e3]
                 for h in HOLES}
        # The drops as the hub stored them (t_us: the board's IRQ stamp), with their USB line
        # where the board talks serial (the simulated time it left the chip).
        wire = {x.msg["seq"]: x for x in chip.timed("drop") if x.msg and x.msg["boot"] == boot}
        by_hole: dict[str, list[dict[str, Any]]] = {}
        for msg in log.device(BOARD, "drop"):
            if msg["boot"] == boot:
                by_hole.setdefault(msg["hole"], []).append(msg)
        for name, lines in by_hole.items():
            firsts = []  # the leading edge of each passage: beam A closing first
            for e in leads[name]:
                if e.beam == 0 and (not firsts or e.at_ns - firsts[-1].at_ns > 300_000_000):
                    firsts.append(e)
            ends = [p for p in passages if p[0] == name]
            for msg, lead, (_n, last_us) in zip(lines, firsts, ends, strict=False):
                latencies.append((msg["t_us"] - lead.ticks_us) % TICKS_PERIOD)
                if msg["seq"] in wire:
                    to_wire.append((wire[msg["seq"]].at_ns / 1e3 - (last_us + CONFIRM_MS * 1000)) / 1e3)
        out["interrupt latency edge → t_us (µs): min / median / max"] = (
            min(latencies), statistics.median(latencies), max(latencies))
        if to_wire:
            out["due decision → event on USB (ms): median / max"] = (statistics.median(to_wire), max(to_wire))
        # A journal write: nothing acknowledged, one drop, the write after journal_after_ms.
        if broker is None:
            chip.unplug()
        else:
            broker.stop()
        chip.run_for(300_000)
        base = chip.play("big", hole_edges(rng, 0, passes=True))
        quiet_us = base + 200_000 + CONFIRM_MS * 1000
        chip.run_for(DEFAULTS["journal_after_ms"] * 1000 + CONFIRM_MS * 1000 + 800_000)
        out["journal write: longest loop stall around it (ms)"] = chip.longest_stall_ms(
            quiet_us, quiet_us + DEFAULTS["journal_after_ms"] * 1000 + 600_000)
        out["wall time (s)"] = time.monotonic() - started
        out["simulated time (s)"] = chip.now_us() / 1e6
    finally:
        hub.stop()
        chip.close()
        if broker is not None:
            broker.stop()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--board", choices=["pico", "pico_w"], default="pico")
    parser.add_argument("--drops", type=int, default=50)
    args = parser.parse_args()
    reason = missing_reason()
    if reason is not None:
        raise SystemExit(reason)
    with tempfile.TemporaryDirectory() as tmp:
        figures = run(args.board, args.drops, Path(tmp))
    print(f"firmware on an emulated {args.board} (MicroPython 1.28.0 rp2 image), simulated time:")
    for key, value in figures.items():
        shown = " / ".join(f"{v:.1f}" for v in value) if isinstance(value, tuple) else (
            f"{value:.1f}" if isinstance(value, float) else str(value))
        print(f"  {key}: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
