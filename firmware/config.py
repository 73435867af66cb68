# Board configuration: one dict of thresholds with defaults, and validation of a board's
# config file against the machine-readable pin map (hardware/pinmap.json, copied to the
# board as /pinmap.json by the deploy script). Pure logic: no `machine` here.
#
# A board config (board_config.py on the device, CONFIG = {...}):
#   board       "B1"                       protocol board id (1..32 chars, no '/', '+', '#')
#   port        "rp2" | "esp32"             must match the running board
#   holes       [{"name": "big", "beams": [2, 3], "emitter": 4}, ...]
#               beams: 1 or 2 GPIOs (A under the lip first, then B lower); emitter: the GPIO
#               that switches the hole's IR emitters (optional, enables the self-test)
#   buttons     [{"name": "line", "pin": 10}]                      optional
#   links       ["serial"] and/or "mqtt"
#   mqtt        {"broker": "192.168.1.10", "port": 1883, "keepalive_s": 15}
#               the MQTT user is the board id (the broker's ACL lets a user write only
#               trigono/v1/<user>/...); its password is MQTT_PASSWORD in local.py
#               (scripts/mqtt-users writes one local.py per board): mqtt_login()
#   loadcell    {"sck": 20, "dout": 21}    optional HX711 under the board (weight events)
#   line        {"name": "L1", "near": 16, "far": 17, "emitter": 18}   optional throw gate
#               (hardware/throw-line.md): the near and far planes' OR-ed receivers, the
#               GPIO switching its emitters (optional, enables the self-test); `throw` events
#   ir          "plain" (default) | "38khz": emitters on a 38 kHz PWM carrier, light-barrier
#               receivers (TSSP4038, HIGH while broken) - for sunlight outdoors
#   thresholds  {"stuck_ms": 2000, ...}   overrides of DEFAULTS below
#   update_keys ["<64 hex>", ...]: Ed25519 public keys whose signed bundles the board takes
#               over the air (`trigono boards keygen`; several for key rotation; none: no
#               update is taken)
# Secrets (Wi-Fi, MQTT password) live in local.py (template: local_example.py).

# Every threshold, in one place. Times in ms unless the name says otherwise.
DEFAULTS = {
    "settle_ms": 30,  # per beam: after a change, ignore chatter; the level is re-read after
    "confirm_ms": 300,  # two beams: quiet time (both open) before a passage is decided
    "stuck_ms": 1500,  # a beam held longer than this is "blocked" (T13)
    "selftest_ms": 20,  # emitter off this long before the receiver is read (sensor < 2 ms)
    "selftest_every_s": 300,  # periodic emitter self-test of idle holes; 0 = boot and cmd only
    "dead_beam_run": 5,  # two beams: this many passages in a row seeing one beam -> fault
    "health_every_s": 10,  # health message period
    "resend_ms": 2000,  # no ack progress for this long: resend unacknowledged events
    "outbox_size": 64,  # events kept until acknowledged; the oldest go first (overflow)
    "journal_after_ms": 600,  # outbox journal written after this much quiet (0: at once)
    "edge_ring": 128,  # edges buffered between the IRQ and the main loop
    "poll_ms": 2,  # main loop period
    "filter_ns": 12000,  # esp32 PCNT glitch filter (max 1023 APB ticks = 12.8 us)
    "mqtt_retry_ms": 2000,  # wait between MQTT connection attempts
    "button_settle_ms": 50,
    "loadcell_ms": 100,  # HX711 read period (it makes 10 readings/s at RATE low)
    # Throw gate (hardware/throw-line.md): planes 50 mm apart; a palet crosses at 2.5-7 m/s
    # (7-20 ms from plane to plane) and closes a plane for 4-25 ms.
    "line_max_ms": 35,  # a plane closed longer than this: an arm, a leg, a body - not a palet
    "line_lag_min_ms": 3,  # near -> far faster than 17 m/s: two objects, not one palet
    "line_lag_max_ms": 30,  # near -> far slower than 1.7 m/s: a hand at full reach, a walker
    "watchdog_ms": 8000,  # machine.WDT, fed by the main loop only (rp2 caps it at 8388); 0 = off
    # A new version's first boot must commit (hello acknowledged, self-test passed) within
    # this, or the board goes back to the previous one (firmware/update.py; the slot
    # selector's own timer, firmware/selector.py TRIAL_MS, is the backstop).
    "trial_ms": 60000,
}

PORTS = ("rp2", "esp32", "unix")
IR_KINDS = ("plain", "38khz")
LINKS = ("serial", "mqtt")
_BAD_NAME_CHARS = "/+#$* \"\\"


class ConfigError(ValueError):
    """The board config is unusable; the message lists every problem found."""


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _name_ok(v):
    if not isinstance(v, str) or not 0 < len(v) <= 32:
        return False
    for ch in _BAD_NAME_CHARS:
        if ch in v:
            return False
    return True


def thresholds(overrides=None):
    """DEFAULTS with `overrides` applied (unknown keys are an error)."""
    out = dict(DEFAULTS)
    if overrides:
        for key in overrides:
            if key not in DEFAULTS:
                raise ConfigError("unknown threshold " + repr(key))
            v = overrides[key]
            if not _is_int(v) or v < 0:
                raise ConfigError("threshold " + key + " must be an int >= 0")
            out[key] = v
    return out


def validate(cfg, pinmap=None, port=None):
    """Every problem with board config `cfg` as a list of readable lines ([] = fine).

    `pinmap` is the parsed hardware/pinmap.json; `port` the running board (sys.platform).
    """
    errors = []
    if not isinstance(cfg, dict):
        return ["config is not a dict (board_config.py must define CONFIG = {...})"]
    for key in cfg:
        if key not in ("board", "port", "holes", "buttons", "links", "mqtt", "thresholds", "loadcell", "ir",
                       "line", "update_keys"):
            errors.append("unknown key " + repr(key))
    if not _name_ok(cfg.get("board")):
        errors.append("board: need a name of 1-32 characters without / + # $ * or spaces")
    cfg_port = cfg.get("port")
    if cfg_port not in PORTS:
        errors.append("port: must be one of " + ", ".join(PORTS))
    elif port is not None and port != cfg_port:
        errors.append("port: config is for " + str(cfg_port) + " but this board is " + str(port))
    pins = None
    if pinmap is not None and cfg_port in pinmap:
        pins = pinmap[cfg_port]
    used = {}

    def use(pin, what, output):
        if not _is_int(pin):
            errors.append(what + ": pin must be a GPIO number")
            return
        if pin in used:
            errors.append(what + ": GPIO " + str(pin) + " already used by " + used[pin])
            return
        used[pin] = what
        if pins is None:
            return
        reserved = pins.get("reserved", {})
        if str(pin) in reserved:
            errors.append(what + ": GPIO " + str(pin) + " is reserved on " + cfg_port + " (" + reserved[str(pin)] + ")")
        elif output and pin not in pins.get("output", []):
            errors.append(what + ": GPIO " + str(pin) + " cannot drive an output on " + cfg_port)
        elif not output and pin not in pins.get("input", []):
            errors.append(what + ": GPIO " + str(pin) + " is not an input on " + cfg_port)

    holes = cfg.get("holes")
    beams = 0
    if not isinstance(holes, list) or not holes:
        errors.append("holes: need a non-empty list of {name, beams, emitter}")
        holes = []
    names = []
    for i, hole in enumerate(holes):
        where = "holes[" + str(i) + "]"
        if not isinstance(hole, dict):
            errors.append(where + ": not a dict")
            continue
        name = hole.get("name")
        if not _name_ok(name):
            errors.append(where + ": bad name")
        elif name in names:
            errors.append(where + ": duplicate hole name " + repr(name))
        else:
            names.append(name)
            where = "hole " + repr(name)
        for key in hole:
            if key not in ("name", "beams", "emitter"):
                errors.append(where + ": unknown key " + repr(key))
        hb = hole.get("beams")
        if not isinstance(hb, list) or len(hb) not in (1, 2):
            errors.append(where + ": beams must list 1 or 2 GPIOs (A under the lip, then B)")
        else:
            for j, pin in enumerate(hb):
                use(pin, where + " beam " + "AB"[j], False)
                beams += 1
        if hole.get("emitter") is not None:
            use(hole["emitter"], where + " emitter", True)
    buttons = cfg.get("buttons", [])
    if not isinstance(buttons, list):
        errors.append("buttons: need a list of {name, pin}")
        buttons = []
    for i, button in enumerate(buttons):
        if not isinstance(button, dict) or not _name_ok(button.get("name")):
            errors.append("buttons[" + str(i) + "]: need {name, pin}")
            continue
        use(button.get("pin"), "button " + repr(button["name"]), False)
    if cfg.get("ir", "plain") not in IR_KINDS:
        errors.append("ir: one of " + " / ".join(IR_KINDS) + " (38khz: modulated beams for outdoors)")
    cell = cfg.get("loadcell")
    if cell is not None:
        if not isinstance(cell, dict) or set(cell) != {"sck", "dout"}:
            errors.append("loadcell: need {\"sck\": GPIO, \"dout\": GPIO} (HX711)")
        else:
            use(cell["sck"], "loadcell sck", True)
            use(cell["dout"], "loadcell dout", False)
    line = cfg.get("line")
    if line is not None:
        if not isinstance(line, dict) or not _name_ok(line.get("name")) or any(
                key not in ("name", "near", "far", "emitter") for key in line):
            errors.append("line: need {\"name\": lane, \"near\": GPIO, \"far\": GPIO, \"emitter\": GPIO}")
        else:
            if line["name"] in names:
                errors.append("line: lane name " + repr(line["name"]) + " is also a hole name")
            use(line.get("near"), "line near plane", False)
            use(line.get("far"), "line far plane", False)
            if line.get("emitter") is not None:
                use(line["emitter"], "line emitter", True)
            beams += 2
    inputs = beams + len(buttons)
    if pins is not None and pins.get("max_inputs") is not None and inputs > pins["max_inputs"]:
        errors.append(str(inputs) + " beams and buttons but " + str(cfg_port) + " can take at most "
                      + str(pins["max_inputs"]) + " (" + pins.get("max_inputs_why", "hardware limit") + ")")
    links = cfg.get("links", ["serial"])
    if not isinstance(links, list) or not links or any(x not in LINKS for x in links):
        errors.append("links: a non-empty list of " + " / ".join(LINKS))
        links = []
    if "mqtt" in links:
        mq = cfg.get("mqtt")
        if not isinstance(mq, dict) or not isinstance(mq.get("broker"), str) or not mq["broker"]:
            errors.append("mqtt: need {\"broker\": host, \"port\": 1883}")
        elif not _is_int(mq.get("port", 1883)) or not 0 < mq.get("port", 1883) < 65536:
            errors.append("mqtt: bad port")
    try:
        thresholds(cfg.get("thresholds"))
    except ConfigError as err:
        errors.append("thresholds: " + str(err))
    keys = cfg.get("update_keys", [])
    if not isinstance(keys, list) or len(keys) > 4 or not all(_is_key(k) for k in keys):
        errors.append("update_keys: at most 4 Ed25519 public keys, 64 hex digits each "
                      "(trigono boards keygen prints one)")
    return errors


def _is_key(k):
    return isinstance(k, str) and len(k) == 64 and all(c in "0123456789abcdef" for c in k)


def load(cfg, pinmap=None, port=None):
    """A validated copy of `cfg` with "thresholds" completed from DEFAULTS and
    "channels" = [(hole, beam index, pin), ...] in hole order; raises ConfigError."""
    errors = validate(cfg, pinmap, port)
    if errors:
        raise ConfigError("bad board config:\n  " + "\n  ".join(errors))
    out = dict(cfg)
    out["thresholds"] = thresholds(cfg.get("thresholds"))
    out.setdefault("links", ["serial"])
    out.setdefault("buttons", [])
    channels = []
    for hole in cfg["holes"]:
        for j, pin in enumerate(hole["beams"]):
            channels.append((hole["name"], j, pin))
    out["channels"] = channels
    return out


def mqtt_login(cfg, local=None):
    """(user, password) of the board's MQTT link: local.py's MQTT_USER (default: the board
    id) and MQTT_PASSWORD. Raises ConfigError when the user is not the board id: the
    broker would refuse every publish (hardware/mosquitto/acl, docs/security.md)."""
    user = getattr(local, "MQTT_USER", None)
    password = getattr(local, "MQTT_PASSWORD", None)
    if user is None:
        user = cfg["board"]
    if user != cfg["board"]:
        raise ConfigError("local.py MQTT_USER " + repr(user) + " is not the board id " + repr(cfg["board"])
                          + ": the broker lets a board write only its own topics")
    return user, password


def canonical(value):
    """Deterministic JSON-like text (sorted keys), identical on CPython and MicroPython."""
    if isinstance(value, dict):
        keys = sorted(value)
        return "{" + ",".join(canonical(str(k)) + ":" + canonical(value[k]) for k in keys) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def config_hash(cfg):
    """8 hex digits (FNV-1a 32) of the board config as given (secrets are not in it)."""
    h = 0x811C9DC5
    for b in canonical(cfg).encode():
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return f"{h:08x}"
