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

from firmware.board_rp2 import BoardBase
from firmware.clock import wrap
from firmware.edges import EdgeCounter

PCNT_MAX = 32000


class Board(BoardBase):
    port = "esp32"

    def __init__(self, cfg):
        super().__init__(cfg)
        self.filter_ticks = min(1023, cfg["thresholds"]["filter_ns"] * 80 // 1000)
        self.units = []
        self.counters = []

    def start(self, node):
        pins = self.beam_pins + self.button_pins + self.line_pins
        for chan, pin in enumerate(pins):
            unit = esp32.PCNT(chan, min=0, max=PCNT_MAX)
            unit.init(channel=0, pin=pin, rising=esp32.PCNT.INCREMENT, falling=esp32.PCNT.INCREMENT,
                      filter=self.filter_ticks)
            unit.start()
            self.units.append(unit)
            beam = chan < len(self.beam_pins)  # buttons pull to GND, the gate's comparators too
            closed = self.closed_level if beam else 0
            self.counters.append(EdgeCounter(node.ring, chan, pin.value() == closed, unit.value(), PCNT_MAX))

    def poll(self):
        """Turn the hardware counts into time-stamped edges in the node's ring."""
        now = wrap(time.ticks_us())
        for i in range(len(self.units)):
            self.counters[i].update(self.units[i].value(), now)
