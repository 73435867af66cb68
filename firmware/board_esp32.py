# ESP32: edges counted in hardware, because pin IRQs are soft on this port.
#
# On esp32 Pin.irq() only schedules the Python handler (mp_sched_schedule, queue of 8):
# a burst of edges while the loop is busy (an MQTT publish, a Wi-Fi reconnect) can be
# dropped, and `hard=True` is a TypeError. So each beam receiver drives one PCNT unit
# that counts both edges (rising and falling INCREMENT) behind the 12.8 us glitch filter.
# The main loop reads the counts every poll (2 ms) and firmware.edges.EdgeCounter turns
# each count into the exact sequence of edges (edges on one pin alternate). Counts can
# never be lost; timestamps are the poll time, so they are as good as the poll period
# (2 ms nominal, longer while a blocking MQTT call runs) - order across the two beams of
# a hole within one poll falls back to the downward order A then B.
# Limit: 8 PCNT units on the ESP32 (4 on S2/S3) = 8 beams; pinmap.json says so and the
# config validation enforces it.

import time

import esp32
import machine

from firmware.board_rp2 import (
    beam_closed_level,
    make_emitters,
    make_hx711,
    random16,
    set_emitter,
    start_watchdog,
    watchdog_caused_reset,
    weigh,
    wifi_rssi,
    wifi_up,
)
from firmware.clock import wrap
from firmware.edges import EdgeCounter

PCNT_MAX = 32000


class Board:
    port = "esp32"

    def __init__(self, cfg):
        self.cfg = cfg
        self.filter_ticks = min(1023, cfg["thresholds"]["filter_ns"] * 80 // 1000)
        self.beam_pins = []
        for _hole, _beam, gpio in cfg["channels"]:
            self.beam_pins.append(machine.Pin(gpio, machine.Pin.IN, machine.Pin.PULL_UP))
        self.button_pins = []
        for button in cfg.get("buttons", []):
            self.button_pins.append(machine.Pin(button["pin"], machine.Pin.IN, machine.Pin.PULL_UP))
        self.closed_level = beam_closed_level(cfg)  # "ir": "38khz" receivers read HIGH when broken
        self.emitters = make_emitters(cfg)
        self.units = []
        self.counters = []
        self.hx711 = make_hx711(cfg)
        self.wlan = None
        self._wifi_at = None

    def ticks_us(self):
        return wrap(time.ticks_us())  # no-op on boards; the unix port wraps at 2**62

    def read_beam(self, chan):
        return self.beam_pins[chan].value() == self.closed_level

    def set_emitter(self, hole, on):
        set_emitter(self.emitters[hole], on)

    def ticks_ms(self):
        return time.ticks_ms()

    def reset(self):
        machine.reset()

    def weigh(self):
        return weigh(self.hx711)

    def watchdog(self, timeout_ms):
        return start_watchdog(timeout_ms)

    def watchdog_reset(self):
        return watchdog_caused_reset()

    def random16(self):
        return random16()

    def start(self, node):
        pins = self.beam_pins + self.button_pins
        for chan, pin in enumerate(pins):
            unit = esp32.PCNT(chan, min=0, max=PCNT_MAX)
            unit.init(channel=0, pin=pin, rising=esp32.PCNT.INCREMENT, falling=esp32.PCNT.INCREMENT,
                      filter=self.filter_ticks)
            unit.start()
            self.units.append(unit)
            closed = self.closed_level if chan < len(self.beam_pins) else 0  # buttons pull to GND
            self.counters.append(EdgeCounter(node.ring, chan, pin.value() == closed, unit.value(), PCNT_MAX))

    def poll(self):
        """Turn the hardware counts into time-stamped edges in the node's ring."""
        now = wrap(time.ticks_us())
        for i in range(len(self.units)):
            self.counters[i].update(self.units[i].value(), now)

    def network_up(self):
        return wifi_up(self)

    def rssi(self):
        return wifi_rssi(self)
