"""Longest main-loop stall of a board while its MQTT link breaks (issue 14, finding 2).

The board program (firmware.app under the MicroPython unix port, fake `machine`) talks
serial and MQTT, through a TCP proxy, to a private Mosquitto; a test hub acknowledges.
For each fault — broker frozen (SIGSTOP), killed (SIGKILL, then restarted), half-open
(the proxy passes nothing and closes nothing) — the board makes drops during 7 s of
fault, then the fault ends and every event must arrive. The figure is the board's own
`loop_max_ms` (longest time between two main-loop passes, in its health counters),
over the whole run: boot, fault, recovery. The nominal pass is poll_ms = 2 ms; the
"none" row (no fault) is the control: what the machine's load alone costs.

Run: ``python bench/firmware_links.py --runs 3`` (about 2 minutes).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.broker import Broker  # noqa: E402
from tests.firmware.board_proc import BoardProcess  # noqa: E402
from tests.firmware.tcp_proxy import TcpProxy  # noqa: E402
from tests.firmware.test_e2e_links import FAULT_S, board_cfg, fault, healths  # noqa: E402
from tests.firmware.test_e2e_mqtt import DROP_BIG, DROP_SMALL_2MS, GAP, Hub  # noqa: E402


def one(kind: str, workdir: Path) -> int:
    broker = Broker(workdir / "broker")
    broker.start()
    proxy = TcpProxy((broker.host, broker.port))
    hub = Hub(broker)
    board = BoardProcess(workdir / "board", board_cfg(proxy.port))
    board.start()
    try:
        hub.wait(lambda: len(hub.events) >= 1 and "online" in hub.status)
        if kind != "none":
            fault(kind, broker, proxy, True)
        board.script(DROP_BIG, GAP, DROP_SMALL_2MS, GAP, DROP_SMALL_2MS)
        time.sleep(FAULT_S)
        if kind != "none":
            fault(kind, broker, proxy, False)
        hub.wait(lambda: {e["seq"] for e in hub.events} >= {1, 2, 3, 4}, timeout=30)
        board.wait(lambda: healths(board)[-1]["counters"]["acked"] >= 4, timeout=20)
        return max(h["counters"]["loop_max_ms"] for h in healths(board))
    finally:
        board.stop()
        hub.close()
        proxy.close()
        broker.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for kind in ("none", "frozen", "killed", "half-open"):
        stalls = []
        for i in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                stalls.append(one(kind, Path(tmp) / str(i)))
        print(f"broker {kind:<9}: longest loop stall {max(stalls)} ms "
              f"(median of runs {statistics.median(stalls):.0f} ms; runs {stalls})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
