# Raspberry Pi Pico W (rp2): hard pin IRQs on both edges of every beam receiver.
#
# rp2 supports Pin.irq(hard=True) (about 25 us latency), so each edge is time-stamped
# with ticks_us inside the interrupt and pushed into the node's preallocated EdgeRing
# (firmware/edges.py: no allocation, proven under micropython.heap_lock() in the tests).
# The same module drives the MicroPython unix port in tests, with a fake `machine`.
#
# IR kinds (config "ir"): "plain" (default) - steady emitters, open-collector receivers
# that pull LOW while the beam is broken (Adafruit 2167/2168); "38khz" - for outdoor
# events: emitters driven by a 38 kHz PWM carrier and light-barrier receivers (Vishay
# TSSP4038) whose output is LOW while they *see* the carrier, so HIGH = broken; sunlight
# has no 38 kHz carrier and no longer blinds them.

import time

import machine

from firmware.clock import wrap
from firmware.edges import pin_handler


class BoardBase:
    """What every port's board does the same way: beam and button pins, emitters (steady
    or the 38 kHz carrier), the load cell's pins, time, watchdog, boot-id bits, Wi-Fi."""

    port = "?"

    def __init__(self, cfg):
        self.cfg = cfg
        self.closed_level = beam_closed_level(cfg)  # pin value while a beam is broken
        self.beam_pins = []  # per channel
        self.button_pins = []
        for _hole, _beam, gpio in cfg["channels"]:
            self.beam_pins.append(machine.Pin(gpio, machine.Pin.IN, machine.Pin.PULL_UP))
        for button in cfg.get("buttons", []):
            self.button_pins.append(machine.Pin(button["pin"], machine.Pin.IN, machine.Pin.PULL_UP))
        self.line_pins = []  # the throw gate's near and far planes: channels after the buttons
        line = cfg.get("line")
        if line:
            for key in ("near", "far"):
                self.line_pins.append(machine.Pin(line[key], machine.Pin.IN, machine.Pin.PULL_UP))
        self.emitters = make_emitters(cfg)  # hole -> Pin or PWM
        self.hx711 = make_hx711(cfg)
        self.wlan = None
        self._wifi_at = None
        self._led = None  # the on-board LED, made on first use
        self._no_led = False  # this board has none

    # -- the callables the node needs ----------------------------------------------------
    def ticks_us(self):
        return wrap(time.ticks_us())  # no-op on boards; the unix port wraps at 2**62

    def ticks_ms(self):
        return time.ticks_ms()

    def read_beam(self, chan):
        if chan >= len(self.beam_pins):  # the throw gate: its comparators pull LOW while dark
            return self.line_pins[chan - len(self.beam_pins) - len(self.button_pins)].value() == 0
        return self.beam_pins[chan].value() == self.closed_level

    def set_emitter(self, hole, on):
        set_emitter(self.emitters[hole], on)

    def reset(self):
        machine.reset()

    def indicate(self, on):
        """The on-board LED (`cmd identify`); a board without one stays dark."""
        if self._led is None and not self._no_led:
            try:
                self._led = machine.Pin("LED", machine.Pin.OUT)
            except (TypeError, ValueError, AttributeError):
                self._no_led = True
        led = self._led
        if led is not None:
            led.value(1 if on else 0)

    def weigh(self):
        return weigh(self.hx711)

    def watchdog(self, timeout_ms):
        """A started machine.WDT (the main loop feeds it), or None when timeout_ms is 0."""
        return start_watchdog(timeout_ms)

    def watchdog_reset(self):
        return watchdog_caused_reset()

    def random16(self):
        return random16()

    # -- Wi-Fi (Pico W, ESP32) -------------------------------------------------------------
    def network_up(self):
        return wifi_up(self)

    def rssi(self):
        return wifi_rssi(self)


class Board(BoardBase):
    port = "rp2"

    def start(self, node):
        """Attach the interrupt handlers (built here, once: nothing allocated in IRQs)."""
        trigger = machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING
        for chan, pin in enumerate(self.beam_pins):
            pin.irq(handler=pin_handler(node.ring, chan, self.closed_level, time.ticks_us), trigger=trigger,
                    hard=True)
        base = len(self.beam_pins)
        for i, pin in enumerate(self.button_pins):
            pin.irq(handler=pin_handler(node.ring, base + i, 0, time.ticks_us), trigger=trigger, hard=True)
        base += len(self.button_pins)
        for i, pin in enumerate(self.line_pins):
            pin.irq(handler=pin_handler(node.ring, base + i, 0, time.ticks_us), trigger=trigger, hard=True)

    def poll(self):
        """Nothing to do: the interrupts fill the ring."""


CARRIER_HZ = 38000
CARRIER_DUTY = 32768  # 50 %


def beam_closed_level(cfg):
    return 1 if cfg.get("ir") == "38khz" else 0


def make_emitters(cfg):
    """hole -> its emitter switch: a Pin (steady IR) or a PWM (38 kHz carrier), on."""
    out = {}
    line = cfg.get("line")
    for hole in cfg["holes"] + ([line] if line else []):
        if hole.get("emitter") is None:
            continue
        if cfg.get("ir") == "38khz":
            pwm = machine.PWM(machine.Pin(hole["emitter"], machine.Pin.OUT))
            pwm.freq(CARRIER_HZ)
            pwm.duty_u16(CARRIER_DUTY)
            out[hole["name"]] = pwm
        else:
            out[hole["name"]] = machine.Pin(hole["emitter"], machine.Pin.OUT, value=1)
    return out


def set_emitter(switch, on):
    if isinstance(switch, machine.Pin):
        switch.value(1 if on else 0)
    else:
        switch.duty_u16(CARRIER_DUTY if on else 0)


def make_hx711(cfg):
    cell = cfg.get("loadcell")
    if cell is None:
        return None
    from firmware.loadcell import Hx711

    sck = machine.Pin(cell["sck"], machine.Pin.OUT, value=0)
    dout = machine.Pin(cell["dout"], machine.Pin.IN, machine.Pin.PULL_UP)
    return Hx711(sck.value, dout.value)


def weigh(hx711):
    """One HX711 reading or None; IRQs off meanwhile (SCK high > 60 us powers it down)."""
    if hx711 is None or not hx711.ready():
        return None
    state = machine.disable_irq()
    try:
        return hx711.read()
    finally:
        machine.enable_irq(state)


WDT_MAX_MS = 8388  # rp2's hardware limit (8.3 s); the ESP32 takes longer ones


def start_watchdog(timeout_ms):
    if not timeout_ms:
        return None
    return machine.WDT(timeout=min(timeout_ms, WDT_MAX_MS))


def random16():
    """16 bits for the boot id: the hardware RNG, mixed with this chip's unique id so two
    boards differ even if their RNG were weak right after power-up."""
    import os

    r = os.urandom(2)
    h = 0
    for b in machine.unique_id():
        h = (h * 31 + b) & 0xFFFF
    return ((r[0] << 8) | r[1]) ^ h


def watchdog_caused_reset():
    try:
        return machine.reset_cause() == machine.WDT_RESET
    except AttributeError:
        return False


def wifi_up(board):
    """Start or keep a Wi-Fi station connection (secrets from local.py); non-blocking."""
    try:
        import network
    except ImportError:  # unix port: the host's network is always there
        return True
    if board.wlan is None:
        board.wlan = network.WLAN(network.STA_IF)
        board.wlan.active(True)
    if board.wlan.isconnected():
        return True
    now = time.ticks_ms()
    if board._wifi_at is None or time.ticks_diff(now, board._wifi_at) > 10000:
        board._wifi_at = now
        import local

        board.wlan.connect(local.WIFI_SSID, local.WIFI_PASSWORD)
    return False


def wifi_rssi(board):
    if board.wlan is None:
        return None
    try:
        return board.wlan.status("rssi")
    except Exception:  # noqa: BLE001 - not connected, or not supported
        return None
