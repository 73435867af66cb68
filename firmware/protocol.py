# Device protocol v1 (docs/design.md §5) — the one codec shared by the sensor board and the hub.
#
# MicroPython-compatible on purpose: no typing, no dataclasses, no f-string '=' tricks,
# nothing from `machine`. Decoding never raises on junk: it returns (message, None) or
# (None, reason), so a reader can count and drop bad input and carry on.
#
# Serial: one message per line, b"$" + json + b"*" + two hex digits (XOR of the json
# bytes) + b"\r\n". MQTT: topics trigono/v1/<board>/<kind>, payload = the json alone.
#
# Every message carries board (str), boot (int, a counter kept in flash), seq (int, per
# boot) and t_us (int, device microseconds). Event types and their own fields:
#   hello    fw (str), config (str, hash of the board config), holes (list of str),
#            crash optional (str: the previous boot's crash or "watchdog reset"),
#            lanes optional (list of str: its throw lines), loadcell optional (true: it
#            weighs its board, so a palet landing there is seen), slot optional ("a"|"b":
#            the application slot it runs), trial optional (true: a new version's first
#            boot, not committed yet), rollback optional (str: a version that failed its
#            trial and why; the board went back to the previous one)
#   drop     hole          palet went A then B (or A only on single-beam holes)
#   bounce   hole          entered and came back out: not a drop (T11)
#   blocked  hole          beam held longer than the stuck time: a drop plus an alert (T13)
#   cleared  hole          the hole works again: a blocked beam opened, or a faulty one (self-test,
#                          dead beam) passed
#   fault    reason (str), hole optional      emitter self-test failed, bad config...
#   button   button (str)  a throw-line or referee button
#   weight   board_palets (int >= 0)          optional load cell under the board
#   throw    lane (str)    a palet crossed the throw gate of that lane outward (t_us: the
#                          near plane's leading edge; hardware/throw-line.md); loadcell
#                          optional (true: this board also weighs its game board)
#   health   uptime_s, mem_free, beams {hole: "open"|"closed"|"blocked"}, counters {str: int},
#            overflow (int), rssi optional     not queued, not acknowledged
#   update_state  state ("want"|"refused"|"switching"|"running"|"trial"), id, file, off,
#            reason, version, slot (all optional)   the answer to each `update`; not
#            queued, not acknowledged (docs/protocol.md "Updates")
# Hub to board: ack {boot, seq} (cumulative: everything up to seq of that boot was
# stored) and cmd {cmd: "selftest"|"health"|"reboot"|"resend"|"newboot"|"tare"|"calibrate"|"identify"|"rearm"} (newboot: the
# hub saw this boot id before; the board takes a fresh one for its unacknowledged events).
# tare: the board is empty (start of a round); calibrate: one palet lies on the tared board.
# identify: blink the board's LED / buzzer for 10 s (the fleet page, issue 33); rearm: forget
# what the holes concluded about their beams, resync their levels and self-test them again.
# update {boot, op: "begin"|"data"|"status"|"abort", id (the manifest's SHA-256, hex),
# version, msize (manifest bytes), file (index), off, data (base64, at most 480 bytes)}.
#
# Bounds (validated at the edge, so nothing downstream meets a number or a string the
# firmware cannot produce): boot and seq < 2**31, t_us within the ticks mask (2**30 - 1,
# firmware/clock.py), names 1-32 printable characters without / + # $ * space " \,
# free text (fw, config, reason) at most 64 printable characters, only the fields listed
# above (plus board, boot, seq, t_us, type), small lists and maps.

import json

from firmware.clock import ticks_diff

VERSION = 1
TOPIC_ROOT = "trigono/v1/"
MAX_LINE = 1024

HOLE_EVENTS = ("drop", "bounce", "blocked", "cleared")
EVENT_TYPES = ("hello", "drop", "bounce", "blocked", "cleared", "fault", "button", "weight", "throw")
DEVICE_TYPES = EVENT_TYPES + ("health", "update_state")
HUB_TYPES = ("ack", "cmd", "update")
COMMANDS = ("selftest", "health", "reboot", "resend", "newboot", "tare", "calibrate", "identify", "rearm")
TOPIC_KINDS = ("event", "status", "health", "cmd", "ack", "update", "update_state")
UPDATE_OPS = ("begin", "data", "status", "abort")
UPDATE_STATES = ("want", "refused", "switching", "running", "trial")
SLOTS = ("a", "b")
HEX = "0123456789abcdef"
MAX_DATA = 640  # base64 characters of one update chunk (480 bytes)
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
STATUS_VALUES = ("online", "lost")


def checksum(data):
    """XOR of all bytes of `data`, as an int 0..255."""
    c = 0
    for b in data:
        c ^= b
    return c


def _dumps(obj):
    try:
        return json.dumps(obj, separators=(",", ":"))
    except TypeError:  # older MicroPython json.dumps has no `separators`
        return json.dumps(obj)


MAX_COUNT = (1 << 31) - 1  # boot, seq and every counter: what a board can produce
T_US_MASK = (1 << 30) - 1  # ticks_us() wraps at 2**30 (firmware/clock.py TICKS_MASK)
MAX_TEXT = 64  # fw, config, reason
MAX_ITEMS = 32  # holes, beams, counters
BAD_NAME_CHARS = "/+#$* \"\\"
BEAM_STATES = ("open", "closed", "blocked", "fault")
COMMON_FIELDS = ("type", "board", "boot", "seq", "t_us")
FIELDS = {
    "hello": ("fw", "config", "holes", "crash", "lanes", "loadcell", "slot", "trial", "rollback"),
    "drop": ("hole",),
    "bounce": ("hole",),
    "blocked": ("hole",),
    "cleared": ("hole",),
    "fault": ("reason", "hole"),
    "button": ("button",),
    "weight": ("board_palets",),
    "throw": ("lane", "loadcell"),
    "health": ("uptime_s", "mem_free", "beams", "counters", "overflow", "rssi"),
    "update_state": ("state", "id", "file", "off", "reason", "version", "slot"),
}
UPDATE_FIELDS = ("type", "boot", "op", "id", "version", "msize", "file", "off", "data")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_count(v, top=MAX_COUNT):
    """An int 0..top (not a bool)."""
    return _is_int(v) and 0 <= v <= top


def _printable(v, bad=""):
    # A lone surrogate (U+D800-DFFF, which a JSON escape can carry) cannot be encoded as
    # UTF-8: one stored would break every later encoding of the text (the live feed).
    for ch in v:
        code = ord(ch)
        if code < 32 or code == 127 or 0xD800 <= code <= 0xDFFF or ch in bad:
            return False
    return True


def is_name(v):
    """A board, hole, button or counter name: 1-32 printable characters, none of them
    special in MQTT topics or in the serial framing.

    >>> is_name("B1"), is_name("B/1"), is_name(""), is_name("x" * 33)
    (True, False, False, False)
    """
    return isinstance(v, str) and 0 < len(v) <= 32 and _printable(v, BAD_NAME_CHARS)


def _is_text(v):
    return isinstance(v, str) and len(v) <= MAX_TEXT and _printable(v)


def _fields_ok(msg, kind):
    allowed = FIELDS[kind]
    for key in msg:
        if key not in COMMON_FIELDS and key not in allowed:
            return False
    return True


def validate(msg):
    """Return None when `msg` is a well-formed protocol message, else the reason (str)."""
    if not isinstance(msg, dict):
        return "message is not an object"
    kind = msg.get("type")
    if kind in HUB_TYPES:
        if not _is_count(msg.get("boot")):
            return "ack/cmd: bad boot"
        if kind == "ack":
            if not _is_count(msg.get("seq")):
                return "ack: bad seq"
        elif kind == "update":
            return _update_reason(msg)
        elif msg.get("cmd") not in COMMANDS:
            return "cmd: unknown command"
        return None
    if kind not in DEVICE_TYPES:
        return "unknown type " + (repr(kind)[:40])
    if not is_name(msg.get("board")):
        return "bad board id"
    if not _is_count(msg.get("boot")):
        return "bad boot"
    if not _is_count(msg.get("seq")):
        return "bad seq"
    if not _is_count(msg.get("t_us"), T_US_MASK):
        return "bad t_us"
    if not _fields_ok(msg, kind):
        return kind + ": unknown field"
    if kind in HOLE_EVENTS:
        if not is_name(msg.get("hole")):
            return kind + ": bad hole"
    elif kind == "hello":
        holes = msg.get("holes")
        if not _is_text(msg.get("fw")) or not _is_text(msg.get("config")):
            return "hello: bad fw or config"
        if not isinstance(holes, list) or len(holes) > MAX_ITEMS or not all(is_name(h) for h in holes):
            return "hello: bad holes"
        if "crash" in msg and not _is_text(msg["crash"]):
            return "hello: bad crash"
        lanes = msg.get("lanes", [])
        if not isinstance(lanes, list) or len(lanes) > MAX_ITEMS or not all(is_name(n) for n in lanes):
            return "hello: bad lanes"
        if "loadcell" in msg and msg["loadcell"] is not True and msg["loadcell"] is not False:
            return "hello: bad loadcell"
        if "slot" in msg and msg["slot"] not in SLOTS:
            return "hello: bad slot"
        if "trial" in msg and msg["trial"] is not True and msg["trial"] is not False:
            return "hello: bad trial"
        if "rollback" in msg and not _is_text(msg["rollback"]):
            return "hello: bad rollback"
    elif kind == "fault":
        if not _is_text(msg.get("reason")):
            return "fault: bad reason"
        if "hole" in msg and not is_name(msg["hole"]):
            return "fault: bad hole"
    elif kind == "button":
        if not is_name(msg.get("button")):
            return "button: bad button"
    elif kind == "weight":
        if not _is_count(msg.get("board_palets")):
            return "weight: bad board_palets"
    elif kind == "throw":
        if not is_name(msg.get("lane")):
            return "throw: bad lane"
        if "loadcell" in msg and msg["loadcell"] is not True and msg["loadcell"] is not False:
            return "throw: bad loadcell"
    elif kind == "health":
        return _health_reason(msg)
    elif kind == "update_state":
        return _update_state_reason(msg)
    return None


def _is_id(v):
    return isinstance(v, str) and len(v) == 64 and all(c in HEX for c in v)


def _update_reason(msg):
    for key in msg:
        if key not in UPDATE_FIELDS:
            return "update: unknown field"
    op = msg.get("op")
    if op not in UPDATE_OPS:
        return "update: bad op"
    if op in ("begin", "data") and not _is_id(msg.get("id")):
        return "update: bad id"
    if op == "begin":
        if not _is_text(msg.get("version")) or not _is_count(msg.get("msize"), 1 << 16):
            return "update: bad version or msize"
    elif op == "data":
        data = msg.get("data")
        if not _is_count(msg.get("file"), MAX_ITEMS * 2) or not _is_count(msg.get("off"), 1 << 20):
            return "update: bad file or off"
        if not isinstance(data, str) or not 0 < len(data) <= MAX_DATA or not all(c in B64 for c in data):
            return "update: bad data"
    return None


def _update_state_reason(msg):
    if msg.get("state") not in UPDATE_STATES:
        return "update_state: bad state"
    if "id" in msg and not _is_id(msg["id"]):
        return "update_state: bad id"
    for key in ("file", "off"):
        if key in msg and not _is_count(msg[key], 1 << 20):
            return "update_state: bad " + key
    for key in ("reason", "version"):
        if key in msg and not _is_text(msg[key]):
            return "update_state: bad " + key
    if "slot" in msg and msg["slot"] not in SLOTS:
        return "update_state: bad slot"
    return None


def _health_reason(msg):
    for key in ("uptime_s", "mem_free", "overflow"):
        if not _is_count(msg.get(key)):
            return "health: bad " + key
    beams, counters = msg.get("beams"), msg.get("counters")
    if not isinstance(beams, dict) or len(beams) > MAX_ITEMS:
        return "health: bad beams"
    for hole in beams:
        if not is_name(hole) or beams[hole] not in BEAM_STATES:
            return "health: bad beams"
    if not isinstance(counters, dict) or len(counters) > MAX_ITEMS:
        return "health: bad counters"
    for name in counters:
        if not is_name(name) or not _is_count(counters[name]):
            return "health: bad counters"
    rssi = msg.get("rssi")
    if rssi is not None and not (_is_int(rssi) and -128 <= rssi <= 127):
        return "health: bad rssi"
    return None


def encode_line(msg):
    """One serial line (bytes, with the checksum and CRLF) for a message dict."""
    body = _dumps(msg).encode()
    return b"$" + body + b"*" + f"{checksum(body):02X}".encode() + b"\r\n"


def decode_line(line):
    """Decode one serial line (bytes or str, with or without CRLF).

    Returns (message, None) or (None, reason); never raises.
    """
    try:
        if isinstance(line, str):
            line = line.encode()
        if not isinstance(line, (bytes, bytearray)):
            return None, "not bytes"
        if len(line) > MAX_LINE:
            return None, "line too long"
        line = bytes(line).strip()
        if not line.startswith(b"$"):
            return None, "no start marker"
        star = line.rfind(b"*")
        if star < 0 or len(line) - star != 3:
            return None, "no checksum"
        body = line[1:star]
        try:
            expected = int(line[star + 1 :].decode(), 16)
        except (ValueError, UnicodeError):
            return None, "bad checksum digits"
        if checksum(body) != expected:
            return None, "checksum mismatch"
        return decode_payload(body)
    except Exception as err:  # noqa: BLE001 - the decoder must never raise on junk
        return None, "undecodable: " + str(err)


def decode_payload(payload, board=None, loads=None):
    """Decode a JSON payload (an MQTT message body, or a serial line's body).

    When `board` (from the MQTT topic) is given, the message's board must match it.
    `loads` replaces json.loads (the hub passes a faster decoder).
    Returns (message, None) or (None, reason); never raises.
    """
    try:
        if isinstance(payload, (bytes, bytearray)):
            payload = bytes(payload).decode()
        if len(payload) > MAX_LINE:
            return None, "payload too long"
        msg = (loads or json.loads)(payload)
    except Exception:  # noqa: BLE001 - ValueError, UnicodeError, MemoryError on junk
        return None, "not JSON"
    reason = validate(msg)
    if reason is not None:
        return None, reason
    if board is not None and msg.get("type") not in HUB_TYPES and msg.get("board") != board:
        return None, "board does not match topic"
    return msg, None


def t_us_diff(a, b):
    """a - b in µs for two t_us of one board boot. t_us is ticks_us, which wraps at 2**30
    (18 min), so the difference is taken modulo 2**30 (valid while |a - b| < 2**29 µs).

    >>> t_us_diff(5, T_US_MASK - 4), t_us_diff(100, 123)
    (10, -23)
    """
    return ticks_diff(a, b)


def encode_payload(msg):
    """The MQTT payload (bytes) for a message dict."""
    return _dumps(msg).encode()


def topic(board, kind):
    """trigono/v1/<board>/<kind>"""
    return TOPIC_ROOT + board + "/" + kind


def parse_topic(name):
    """(board, kind) for a protocol topic, or None."""
    if isinstance(name, (bytes, bytearray)):
        try:
            name = bytes(name).decode()
        except UnicodeError:
            return None
    if not name.startswith(TOPIC_ROOT):
        return None
    parts = name[len(TOPIC_ROOT) :].split("/")
    if len(parts) != 2 or not is_name(parts[0]) or parts[1] not in TOPIC_KINDS:
        return None
    return parts[0], parts[1]


def ack(boot, seq):
    """The hub's cumulative acknowledgement: every event of `boot` up to `seq` is stored."""
    return {"type": "ack", "boot": boot, "seq": seq}


def command(boot, name):
    return {"type": "cmd", "boot": boot, "cmd": name}
