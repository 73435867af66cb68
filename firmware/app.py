# The board's program: load and check the config, build the node and its links, run the
# asyncio main loop. /main.py on the board is just `from firmware.app import main; main()`.
#
# Board files (the deploy script copies them): /firmware/*.py, /board_config.py
# (CONFIG = {...}, see firmware/config.py), /pinmap.json (hardware/pinmap.json),
# /local.py (secrets, from local_example.py; only for MQTT). Files it writes: /boot.txt
# (boot counter), /outbox.txt (journal of unacknowledged events), /crash.txt (the last
# crash, reported in the next hello), /loadcell.txt (tare and calibration).

import asyncio
import gc
import json
import sys

from firmware import config as fconfig
from firmware.clock import ticks_diff
from firmware.links import MqttLink, SerialLink
from firmware.loadcell import LoadCell
from firmware.node import FW_VERSION, Node
from firmware.outbox import FileJournal, FileStorage

BOOT_FILE = "boot.txt"
PINMAP_FILE = "pinmap.json"
CRASH_FILE = "crash.txt"
LOADCELL_FILE = "loadcell.txt"  # tare and calibration of the HX711 load cell
OUTBOX_FILE = "outbox.txt"  # the outbox journal: unacknowledged events survive a reset
CTRL_C = 3
CTRL_C_GRACE_MS = 1000  # a second Ctrl-C within this stops the program (mpremote, a human)
SERIAL_READ_MAX = 256  # bytes taken from the serial input per loop pass


def console(text):
    """A human line on the serial console (the hub counts it as junk and carries on)."""
    print("# trigono: " + text)


def port_name():
    return "unix" if sys.platform in ("linux", "darwin") else sys.platform


def load_config(module="board_config"):
    """The validated board config, or None after printing why on the console."""
    try:
        cfg = __import__(module).CONFIG
    except ImportError as err:
        console("CONFIG ERROR: no " + module + ".py on the board (" + str(err) + "); deploy one with scripts/deploy-board")
        return None
    except AttributeError:
        console("CONFIG ERROR: " + module + ".py must define CONFIG = {...}")
        return None
    pinmap = None
    try:
        with open(PINMAP_FILE) as f:
            pinmap = json.load(f)
    except (OSError, ValueError) as err:
        console("warning: no usable " + PINMAP_FILE + " (" + str(err) + "): pins not checked")
    try:
        loaded = fconfig.load(cfg, pinmap, port_name())
        if "mqtt" in loaded["links"]:
            fconfig.mqtt_login(loaded, local_secrets())
        return loaded
    except fconfig.ConfigError as err:
        for line in str(err).split("\n"):
            console("CONFIG ERROR: " + line.strip())
        return None


def make_board(cfg):
    if cfg["port"] == "esp32":
        from firmware.board_esp32 import Board
    else:  # rp2, and the unix port in tests (a fake `machine` with rp2-style hard IRQs)
        from firmware.board_rp2 import Board
    return Board(cfg)


def local_secrets():
    """The board's local.py (Wi-Fi and MQTT secrets), or None."""
    try:
        import local

        return local
    except ImportError:
        return None


def mqtt_client_factory(cfg):
    """Non-blocking MQTT clients (firmware.mqtt) for the broker in the config,
    credentials from local.py."""
    from firmware.mqtt import MqttClient

    mq = cfg["mqtt"]
    user, password = fconfig.mqtt_login(cfg, local_secrets())
    keepalive = mq.get("keepalive_s", 15)

    def make():
        return MqttClient(cfg["board"], mq["broker"], mq.get("port", 1883), user, password, keepalive)

    return make


def stdout_write(data):
    out = getattr(sys.stdout, "buffer", sys.stdout)
    out.write(data)
    flush = getattr(out, "flush", None)
    if flush is not None:
        flush()


def make_updater(cfg, slot, trial_timer=None):
    """The update receiver (firmware/update.py) when the board was started by the slot
    selector (firmware/selector.py as /main.py), else None (a REPL start, the tests)."""
    if slot is None:
        return None
    import slots

    from firmware.update import Updater

    state = slots.read_state()
    return Updater(cfg, slots.slot_version(slot, FW_VERSION), slot, state, trial_timer,
                   cfg["thresholds"]["trial_ms"])


def build(cfg, board, storage=None, crash=None, updater=None):
    node = Node(cfg, board.ticks_us, board.read_beam, board.set_emitter,
                storage if storage is not None else FileStorage(BOOT_FILE),
                getattr(gc, "mem_free", None), board.reset, board.rssi, crash=crash,
                journal=FileJournal(OUTBOX_FILE), random16=board.random16,
                weigh=board.weigh if cfg.get("loadcell") else None,
                cell=LoadCell() if cfg.get("loadcell") else None, cell_storage=FileStorage(LOADCELL_FILE),
                updater=updater, fw=updater.version if updater is not None else FW_VERSION)
    serial = None
    if "serial" in cfg["links"]:
        serial = SerialLink(stdout_write, SerialInput(board.ticks_ms))
        node.add_link(serial)
    if "mqtt" in cfg["links"]:
        mq = cfg["mqtt"]
        node.add_link(MqttLink(cfg["board"], mqtt_client_factory(cfg), mq.get("keepalive_s", 15),
                               cfg["thresholds"]["mqtt_retry_ms"], board.network_up))
    return node, serial


def _set_ctrl_c(enabled):
    try:
        import micropython

        micropython.kbd_intr(CTRL_C if enabled else -1)
    except (ImportError, AttributeError):  # CPython
        pass


class SerialInput:
    """Non-blocking serial input: the bytes already waiting, never a wait for a newline
    (a partial line used to freeze the loop in readline()).

    Ctrl-C is a plain byte while the loop runs (kbd_intr(-1)), so a stray one on the
    cable cannot leave the board at the REPL; two within CTRL_C_GRACE_MS stop the
    program on purpose (mpremote and scripts/deploy-board send two).
    """

    def __init__(self, ticks_ms, stream=None):
        import select

        self.ticks_ms = ticks_ms
        self.stream = stream if stream is not None else sys.stdin.buffer
        self.poller = select.poll()
        self.poller.register(self.stream, select.POLLIN)
        self.closed = False
        self.ctrl_c_at = None
        self.one = bytearray(1)
        _set_ctrl_c(False)

    def __call__(self):
        if self.closed:
            return None
        data = bytearray()
        one = self.one
        while len(data) < SERIAL_READ_MAX and self.poller.poll(0):
            if not self.stream.readinto(one):  # the host closed our input: stop polling it
                self.closed = True
                self.poller.unregister(self.stream)
                break
            if one[0] == CTRL_C:
                self._ctrl_c()
                continue
            data.append(one[0])
        if self.ctrl_c_at is not None and ticks_diff(self.ticks_ms(), self.ctrl_c_at) > CTRL_C_GRACE_MS:
            self.ctrl_c_at = None
            _set_ctrl_c(False)
        return bytes(data) if data else None

    def _ctrl_c(self):
        now = self.ticks_ms()
        if self.ctrl_c_at is not None and ticks_diff(now, self.ctrl_c_at) <= CTRL_C_GRACE_MS:
            _set_ctrl_c(True)
            raise KeyboardInterrupt
        self.ctrl_c_at = now
        _set_ctrl_c(True)  # a real second Ctrl-C on a board's USB interrupts at once
        console("Ctrl-C ignored: send it twice within 1 s to stop the program")


def crash_summary(trace, err):
    """One line of at most 64 characters for the next `hello`: type, message and the
    innermost file:line of the traceback text."""
    where = ""
    for line in trace.split("\n"):
        line = line.strip()
        if line.startswith("File "):
            parts = line.split('"')
            name = parts[1].rsplit("/", 1)[-1] if len(parts) > 2 else "?"
            where = " @" + name + ":" + line.rsplit("line ", 1)[-1].split(",")[0]
    text = type(err).__name__ + ": " + str(err)
    return (text[: 64 - len(where)] + where)[:64]


def record_crash(err, path=CRASH_FILE):
    """Write the crash where the next boot finds it: the summary line, then the traceback."""
    trace = ""
    try:
        with open(path, "w") as f:
            sys.print_exception(err, f)  # MicroPython: a real traceback to the file
        with open(path) as f:
            trace = f.read()[-1024:]
    except OSError:
        pass
    summary = crash_summary(trace, err)
    console("CRASH: " + summary)
    try:
        with open(path, "w") as f:
            f.write(summary + "\n" + trace)
    except OSError:
        pass
    return summary


def take_crash(board, path=CRASH_FILE):
    """The summary of the previous boot's crash (file, else a watchdog reset), or None;
    the file is removed (the hello that carries it is kept until acknowledged)."""
    import os

    text = None
    try:
        with open(path) as f:
            text = f.readline().strip()[:64] or "crash"
        os.remove(path)
    except OSError:
        pass
    if text is None and board.watchdog_reset():
        text = "watchdog reset"
    return text


def radio_on(board):
    """Start the Wi-Fi radio before the main loop: on a Pico W the first WLAN.active(True)
    uploads the CYW43439's firmware and blocks ~0.85 s (measured on the emulated chip,
    docs/performance.md), which inside the loop was its longest stall. A failure here is
    left to the MQTT link, which retries and reports it."""
    try:
        board.network_up()
    except Exception:  # noqa: BLE001 - Wi-Fi trouble is a link fault, never a crash
        pass


async def run(node, board, serial, stop=None):
    if any(isinstance(link, MqttLink) for link in node.links):
        radio_on(board)
    board.start(node)
    node.start()
    period = node.th["poll_ms"]
    watchdog = board.watchdog(node.th["watchdog_ms"])
    if watchdog is not None and node.updater is not None:
        node.updater.feed = watchdog.feed  # fed through the update's signature check too
    # An MQTT-only board still watches its USB console, for the two Ctrl-C that stop it
    # (one stray Ctrl-C must not leave it at the REPL); other bytes are dropped.
    console_input = SerialInput(board.ticks_ms) if serial is None else None
    last = board.ticks_ms()
    while stop is None or not stop():
        board.poll()
        node.poll()
        if console_input is not None:
            console_input()
        if watchdog is not None:
            watchdog.feed()  # only here: a loop stuck anywhere stops feeding and resets
        now = board.ticks_ms()
        node.loop_gap(ticks_diff(now, last))  # the longest stall, in health counters
        last = now
        await asyncio.sleep_ms(period)


def main(tasks=(), slot=None, trial_timer=None):
    """Load the config (or keep printing why not), build, run. `tasks`: extra coroutines
    to run beside the loop (the unix-port tests' scripted beams). `slot`, `trial_timer`:
    from the slot selector (firmware/selector.py; every future version must take them). Any exception is
    recorded in the crash file (reported in the next hello) and resets the board; two
    Ctrl-C on the serial line leave the program for the REPL."""
    cfg = load_config()
    if cfg is None:
        import time

        while True:  # keep saying it, for whoever opens the console later
            time.sleep(5)
            load_config()
    board = make_board(cfg)
    node = None
    try:
        node, _serial = build(cfg, board, crash=take_crash(board),
                              updater=make_updater(cfg, slot, trial_timer))

        async def everything():
            for coro in tasks:
                asyncio.create_task(coro)
            await run(node, board, _serial)

        asyncio.run(everything())
    except KeyboardInterrupt:
        _set_ctrl_c(True)
        console("stopped by Ctrl-C: at the REPL (machine.reset() restarts the board)")
        raise
    except Exception as err:  # noqa: BLE001 - anything else: record it, start again
        record_crash(err)
        if node is not None:
            try:
                node.outbox.flush()  # what the hub has not acknowledged survives the reset
            except Exception:  # noqa: BLE001 - the reset matters more
                pass
        board.reset()
