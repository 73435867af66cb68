# Device protocol v1 (DESIGN.md §5) — the one codec shared by the sensor board and the hub.
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
#   hello    fw (str), config (str, hash of the board config), holes (list of str)
#   drop     hole          palet went A then B (or A only on single-beam holes)
#   bounce   hole          entered and came back out: not a drop (T11)
#   blocked  hole          beam held longer than the stuck time: a drop plus an alert (T13)
#   cleared  hole          a blocked beam opened again
#   fault    reason (str), hole optional      emitter self-test failed, bad config...
#   button   button (str)  a throw-line or referee button
#   weight   board_palets (int >= 0)          optional load cell under the board
#   health   uptime_s, mem_free, beams {hole: "open"|"closed"|"blocked"}, counters {str: int},
#            overflow (int), rssi optional     not queued, not acknowledged
# Hub to board: ack {boot, seq} (cumulative: everything up to seq of that boot was
# stored) and cmd {cmd: "selftest"|"health"|"reboot"}.

import json

VERSION = 1
TOPIC_ROOT = "trigono/v1/"
MAX_LINE = 1024

HOLE_EVENTS = ("drop", "bounce", "blocked", "cleared")
EVENT_TYPES = ("hello", "drop", "bounce", "blocked", "cleared", "fault", "button", "weight")
DEVICE_TYPES = EVENT_TYPES + ("health",)
HUB_TYPES = ("ack", "cmd")
COMMANDS = ("selftest", "health", "reboot")
TOPIC_KINDS = ("event", "status", "health", "cmd", "ack")
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


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_count(v):
    """An int >= 0 (not a bool)."""
    return _is_int(v) and v >= 0


def _is_name(v):
    return isinstance(v, str) and 0 < len(v) <= 32


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
        elif msg.get("cmd") not in COMMANDS:
            return "cmd: unknown command"
        return None
    if kind not in DEVICE_TYPES:
        return "unknown type " + repr(kind)
    if not _is_name(msg.get("board")):
        return "bad board id"
    for key in ("boot", "seq", "t_us"):
        if not _is_count(msg.get(key)):
            return "bad " + key
    if kind in HOLE_EVENTS:
        if not _is_name(msg.get("hole")):
            return kind + ": bad hole"
    elif kind == "hello":
        holes = msg.get("holes")
        if not isinstance(msg.get("fw"), str) or not isinstance(msg.get("config"), str):
            return "hello: bad fw or config"
        if not isinstance(holes, list) or not all(_is_name(h) for h in holes):
            return "hello: bad holes"
    elif kind == "fault":
        if not isinstance(msg.get("reason"), str):
            return "fault: bad reason"
        if "hole" in msg and not _is_name(msg["hole"]):
            return "fault: bad hole"
    elif kind == "button":
        if not _is_name(msg.get("button")):
            return "button: bad button"
    elif kind == "weight":
        if not _is_count(msg.get("board_palets")):
            return "weight: bad board_palets"
    elif kind == "health":
        for key in ("uptime_s", "mem_free", "overflow"):
            if not _is_count(msg.get(key)):
                return "health: bad " + key
        if not isinstance(msg.get("beams"), dict) or not isinstance(msg.get("counters"), dict):
            return "health: bad beams or counters"
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


def decode_payload(payload, board=None):
    """Decode a JSON payload (an MQTT message body, or a serial line's body).

    When `board` (from the MQTT topic) is given, the message's board must match it.
    Returns (message, None) or (None, reason); never raises.
    """
    try:
        if isinstance(payload, (bytes, bytearray)):
            payload = bytes(payload).decode()
        if len(payload) > MAX_LINE:
            return None, "payload too long"
        msg = json.loads(payload)
    except Exception:  # noqa: BLE001 - ValueError, UnicodeError, MemoryError on junk
        return None, "not JSON"
    reason = validate(msg)
    if reason is not None:
        return None, reason
    if board is not None and msg.get("type") not in HUB_TYPES and msg.get("board") != board:
        return None, "board does not match topic"
    return msg, None


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
    if len(parts) != 2 or not _is_name(parts[0]) or parts[1] not in TOPIC_KINDS:
        return None
    return parts[0], parts[1]


def ack(boot, seq):
    """The hub's cumulative acknowledgement: every event of `boot` up to `seq` is stored."""
    return {"type": "ack", "boot": boot, "seq": seq}


def command(boot, name):
    return {"type": "cmd", "boot": boot, "cmd": name}
