# The board's program: load and check the config, build the node and its links, run the
# asyncio main loop. /main.py on the board is just `from firmware.app import main; main()`.
#
# Board files (the deploy script copies them): /firmware/*.py, /board_config.py
# (CONFIG = {...}, see firmware/config.py), /pinmap.json (hardware/pinmap.json),
# /local.py (secrets, from local_example.py; only for MQTT), /lib/umqtt/simple.py.

import asyncio
import gc
import json
import sys

from firmware import config as fconfig
from firmware.links import MqttLink, SerialLink
from firmware.node import Node
from firmware.outbox import FileStorage

BOOT_FILE = "boot.txt"
PINMAP_FILE = "pinmap.json"


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
        return fconfig.load(cfg, pinmap, port_name())
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


def mqtt_client_factory(cfg):
    """umqtt.simple clients for the broker in the config, credentials from local.py."""
    from umqtt.simple import MQTTClient

    mq = cfg["mqtt"]
    user = password = None
    try:
        import local

        user = getattr(local, "MQTT_USER", None)
        password = getattr(local, "MQTT_PASSWORD", None)
    except ImportError:
        pass
    keepalive = mq.get("keepalive_s", 15)

    def make():
        return MQTTClient(cfg["board"], mq["broker"], mq.get("port", 1883), user, password, keepalive)

    return make


def stdout_write(data):
    out = getattr(sys.stdout, "buffer", sys.stdout)
    out.write(data)
    flush = getattr(out, "flush", None)
    if flush is not None:
        flush()


def build(cfg, board, storage=None):
    node = Node(cfg, board.ticks_us, board.read_beam, board.set_emitter,
                storage if storage is not None else FileStorage(BOOT_FILE),
                getattr(gc, "mem_free", None), board.reset, board.rssi)
    serial = None
    if "serial" in cfg["links"]:
        serial = SerialLink(stdout_write)
        node.add_link(serial)
    if "mqtt" in cfg["links"]:
        mq = cfg["mqtt"]
        node.add_link(MqttLink(cfg["board"], mqtt_client_factory(cfg), mq.get("keepalive_s", 15),
                               cfg["thresholds"]["mqtt_retry_ms"], board.network_up))
    return node, serial


async def serial_reader(link):
    reader = asyncio.StreamReader(sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            await asyncio.sleep_ms(100)
            continue
        link.feed(line if isinstance(line, bytes) else line.encode())


async def run(node, board, serial, stop=None):
    board.start(node)
    node.start()
    if serial is not None:
        asyncio.create_task(serial_reader(serial))
    period = node.th["poll_ms"]
    while stop is None or not stop():
        board.poll()
        node.poll()
        await asyncio.sleep_ms(period)


def main(tasks=()):
    """Load the config (or keep printing why not), build, run. `tasks`: extra coroutines
    to run beside the loop (the unix-port tests' scripted beams)."""
    cfg = load_config()
    if cfg is None:
        import time

        while True:  # keep saying it, for whoever opens the console later
            time.sleep(5)
            load_config()
    board = make_board(cfg)
    node, serial = build(cfg, board)

    async def everything():
        for coro in tasks:
            asyncio.create_task(coro)
        await run(node, board, serial)

    asyncio.run(everything())
