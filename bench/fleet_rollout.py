"""Sixty boards updated through the running hub while matches go on (issue 33).

The real hub (SQLite log on disk, its ingest and timer threads), the staged rollout
(hub/fleet/service.py) and the real transfer (hub/fleet/transfer.py, ``update_board``)
over the hub's own link, sending a real signed bundle (PyNaCl Ed25519, ~60 KiB of
application files, 480-byte chunks). The boards are the simulated fleet
(hub/sim/fleet.py): they answer each chunk after ``--round-trip-ms`` (a link's round
trip: 60 ms is one 640-character line each way on USB serial at 115200 baud; the
board's flash write is not modelled). Beside the 60 boards updated, ``--live`` more
boards are bound to live tables and drop palets every ``--drop-ms`` the whole time: their
events must keep being stored and acknowledged; the figure is each event's time from
made to acknowledged.

``--real N`` (default 3) of the 60 are real-firmware boards instead: the MicroPython unix
port booted through its slot selector (tests/firmware/update_rig.py, as the update
tests), each its own process on its own flash directory, on the hub's own link over its
stdin/stdout (:class:`ProcessBoards`), powered on again when it resets into its new slot.
The rollout's bundle is then the real firmware (``firmware/`` as .mpy, signed, the boards
trusting the key): the simulated boards take it as any bundle, the real ones check every
hash and the signature, switch, trial-boot and commit. One real board is the canary; the
others sit among the waves. Each real board's own time (first ``begin`` sent → its
``switching`` answer → its ``running`` answer on the new version) is reported.

Run: ``python bench/fleet_rollout.py`` (defaults: 60 boards of which 3 real, waves of 10,
60 ms round trip, 6 live boards dropping every 250 ms). Prints one JSON line.
"""

from __future__ import annotations

import argparse
import atexit
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hub.devices.transport import DeviceSink, Transport  # noqa: E402
from hub.facade import Hub  # noqa: E402
from hub.fleet import bundle as bundles  # noqa: E402
from hub.sim.fleet import SimFleet  # noqa: E402

HEALTH_EVERY_S = 10.0  # firmware/config.py health_every_s


def signed_bundle(workdir: Path, version: str, size: int) -> Path:
    key = workdir / "organizer.key"
    bundles.keygen(key)
    files = {f"app{i}.mpy": bytes((i * 7 + j) % 251 for j in range(size // 6)) for i in range(6)}
    path = workdir / f"fw-{version}.bundle"
    path.write_bytes(bundles.dump(bundles.build(version, "rp2", key, files=files)))
    return path


class ProcessBoards(Transport):
    """Real-firmware boards (unix-port processes, :class:`tests.firmware.update_rig.SlotBoard`)
    on one link: what each prints goes to the hub; a board whose process ended (its reset
    into the new slot, a watchdog) is powered on again on the same flash directory."""

    name = "unixport"

    def __init__(self, boards: dict[str, Any]) -> None:
        self.boards = boards
        self.sink: DeviceSink | None = None
        self.cursor = dict.fromkeys(boards, 0)
        self.begun: dict[str, float] = {}  # board -> first `update begin` sent
        self.target: dict[str, str] = {}  # board -> the version it was offered
        self.switched: dict[str, float] = {}  # board -> its `switching` answer
        self.running: dict[str, tuple[float, str]] = {}  # board -> its first `running` answer on that version
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._pump: threading.Thread | None = None

    def start(self, sink: DeviceSink) -> None:
        self.sink = sink
        for board in self.boards.values():
            board.start()
        self._pump = threading.Thread(target=self._run, daemon=True)
        self._pump.start()

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            for name, board in self.boards.items():
                with self._lock:
                    ended = board.proc is not None and board.proc.poll() is not None
                    if ended:
                        board.stop()  # its last lines read
                    self._forward(name, board)
                    if ended and not self._stop.is_set():
                        board.start()  # power comes back
                        self.cursor[name] = 0

    def _forward(self, name: str, board: Any) -> None:
        msgs = board.messages()
        for msg in msgs[self.cursor[name]:]:
            if msg["type"] == "update_state":
                now = time.monotonic()
                if msg.get("state") == "switching":
                    self.switched.setdefault(name, now)
                elif msg.get("state") == "running" and msg.get("version") == self.target.get(name):
                    self.running.setdefault(name, (now, str(msg.get("version"))))
            if self.sink is not None:
                self.sink.device_message(self, msg, f"unix:{name}")
        self.cursor[name] = len(msgs)

    def stop(self) -> None:
        self._stop.set()
        if self._pump is not None:
            self._pump.join(timeout=10)
        for board in self.boards.values():
            board.stop()
        self.sink = None

    def send(self, board: str, msg: dict[str, Any]) -> bool:
        b = self.boards.get(board)
        if b is None or b.proc is None or b.proc.poll() is not None:
            return False
        if msg.get("type") == "update" and msg.get("op") == "begin":
            self.begun.setdefault(board, time.monotonic())
            self.target[board] = str(msg.get("version"))
        try:
            b.send(msg)
        except (BrokenPipeError, OSError, AssertionError):
            return False
        return True

    def describe(self) -> dict[str, Any]:
        return {"transport": self.name, "boards": len(self.boards)}

    def times(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name in self.boards:
            begun = self.begun.get(name)
            if begun is None:
                continue
            switched = self.switched.get(name)
            running = self.running.get(name)
            out[name] = {"transfer_s": round(switched - begun, 1) if switched else None,
                         "committed_s": round(running[0] - begun, 1) if running else None,
                         "fw": running[1] if running else None,
                         "slot": self.boards[name].state()}  # slot.json on its flash: committed
        return out


def real_boards(work: Path, names: list[str], public_key: str) -> ProcessBoards:
    from tests.firmware.update_rig import SlotBoard, board_config

    boards = {}
    for name in names:
        cfg = board_config(public_key)
        cfg["board"] = name
        boards[name] = SlotBoard(work / name, cfg)
    return ProcessBoards(boards)


def firmware_bundle(work: Path, version: str) -> tuple[Path, str]:
    """The real firmware as a signed bundle for the unix port, and the key's public half."""
    key = work / "organizer.key"
    public = bundles.keygen(key)
    path = work / f"fw-{version}.bundle"
    path.write_bytes(bundles.dump(bundles.build(version, "unix", key, source=ROOT / "firmware")))
    return path, public


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--boards", type=int, default=60)
    p.add_argument("--wave", type=int, default=10)
    p.add_argument("--round-trip-ms", type=float, default=60.0)
    p.add_argument("--live", type=int, default=6)
    p.add_argument("--drop-ms", type=float, default=250.0)
    p.add_argument("--bundle-kib", type=int, default=60, help="the synthetic bundle's size (with --real 0)")
    p.add_argument("--real", type=int, default=3, help="real-firmware boards among --boards (unix port)")
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        sims = [f"S{i:02d}" for i in range(1, args.boards - args.real + 1)]
        reals = [f"R{i:02d}" for i in range(1, args.real + 1)]
        updated = list(sims)
        for i, name in enumerate(reals):  # the first the canary, the others among the waves
            updated.insert(i * (len(updated) // max(1, args.real)) + i, name)
        live = [f"L{i:02d}" for i in range(1, args.live + 1)]
        fleet = SimFleet(boards=sims + live, round_trip_s=args.round_trip_ms / 1000)
        if reals:
            path, public = firmware_bundle(work, "1.1.0")
            boards = real_boards(work, reals, public)
            atexit.register(boards.stop)  # no board process left behind if the bench fails
            unix: ProcessBoards | None = boards
        else:
            path, unix = signed_bundle(work, "1.1.0", args.bundle_kib * 1024), None
        hub = Hub(work / "event.db", settle_s=0.2)
        hub.start()
        hub.add_transport(fleet)
        if unix is not None:
            hub.add_transport(unix)
        for board in updated:
            hub.register_board(board)
        for i, board in enumerate(live):
            hub.create_table("trigono", seats=["Ana", "Ben"], boards=[board], seed=i, table_id=f"t{i + 1}")
        fleet.start_all()
        assert hub.flush(30)
        deadline = time.monotonic() + 60
        while unix is not None and time.monotonic() < deadline and not all(
                any(m["type"] == "hello" for m in b.messages()) for b in unix.boards.values()):
            time.sleep(0.1)  # the real boards said hello
        assert hub.flush(30)  # and the hub heard them
        fleet.ack_latency_s.clear()

        stop = threading.Event()
        drops = [0]

        def play() -> None:
            last_health = time.monotonic()
            while not stop.wait(args.drop_ms / 1000):
                for board in live:
                    fleet.drop(board, "big")
                    drops[0] += 1
                if time.monotonic() - last_health >= HEALTH_EVERY_S:  # as the firmware does: not "lost"
                    last_health = time.monotonic()
                    for board in fleet.boards:
                        fleet.health(board)

        player = threading.Thread(target=play, daemon=True)
        started = time.monotonic()
        cpu0 = time.process_time()
        hub.start_rollout("1.1.0", {"path": str(path), "version": "1.1.0"}, boards=updated, wave=args.wave)
        player.start()
        while True:
            rollout = hub.fleet_view()["rollout"]
            if rollout["state"] != "running" or rollout["done"] == len(updated):
                break
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        cpu = time.process_time() - cpu0
        stop.set()
        player.join()
        hub.flush(30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(fleet.acked(b) for b in live):
            time.sleep(0.05)
        lat = [seconds for board, seconds in fleet.ack_latency_s if board in live]
        out = {
            "boards_updated": rollout["done"], "state": rollout["state"], "wave": args.wave,
            "bundle_bytes": path.stat().st_size, "round_trip_ms": args.round_trip_ms,
            "rollout_s": round(elapsed, 1), "hub_cpu_s": round(cpu, 1),
            "live_boards": len(live), "events_made": drops[0], "events_acked": len(lat),
            "all_acked": all(fleet.acked(b) for b in live),
            "real_boards": unix.times() if unix is not None else {},
            "ack_ms_p50": round(statistics.median(lat) * 1000, 1) if lat else None,
            "ack_ms_p99": round(percentile(lat, 0.99) * 1000, 1) if lat else None,
            "ack_ms_max": round(max(lat) * 1000, 1) if lat else None,
        }
        hub.close()
        if unix is not None:
            unix.stop()
    print(json.dumps(out))
    real_ok = (len(out["real_boards"]) == args.real
               and all(t["fw"] == "1.1.0" and t["slot"] == {"active": "b"} for t in out["real_boards"].values()))
    return 0 if out["boards_updated"] == args.boards and out["all_acked"] and real_ok else 1


if __name__ == "__main__":
    sys.exit(main())
