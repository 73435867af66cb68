# A fake `esp32` for the MicroPython unix port: PCNT units that count both edges of a
# fake machine.Pin, as the ESP32's pulse counters do in hardware (firmware/board_esp32.py).


class PCNT:
    INCREMENT = 1

    def __init__(self, unit, min=0, max=32767):
        self.unit = unit
        self.max = max
        self.count = 0
        self.running = False

    def init(self, channel=0, pin=None, rising=None, falling=None, filter=None):
        self.filter = filter
        pin.counters.append(self)

    def start(self):
        self.running = True

    def edge(self):
        if self.running:
            self.count = (self.count + 1) % self.max

    def value(self):
        return self.count
