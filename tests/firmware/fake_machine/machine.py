# A fake `machine` for the MicroPython unix port (whose own `machine` has no Pin).
#
# Pins behave like the real board's: beam receivers idle high (pull-up), pulled low while
# a palet interrupts the beam OR while the hole's emitter is switched off (the wiring is
# read from board_config.CONFIG, so the emitter self-test sees what hardware would).
# Edges call the registered IRQ handler at once, like a hard IRQ, and under
# micropython.heap_lock() so any allocation in a handler would crash the test.
#
# play(path) is an asyncio task that reads scripted beam edges from a control file the
# test appends to: each line is a JSON list of [delay_ms, gpio, interrupted] steps.

import asyncio
import json

import micropython

_pins = {}
_wiring = {}  # emitter gpio -> receiver gpios
_palet = {}  # receiver gpio -> interrupted by a palet
irq_calls = 0


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, gpio, mode=0, pull=None, value=None):
        self.gpio = gpio
        self.mode = mode
        self.level = 1 if value is None else value
        self.handler = None
        _pins[gpio] = self

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = 1 if v else 0
        if self.gpio in _wiring:
            for rx in _wiring[self.gpio]:
                _update(rx)
        return None

    def irq(self, handler=None, trigger=12, hard=False):
        self.handler = handler


def _emitter_on(rx):
    for em, rxs in _wiring.items():
        if rx in rxs and em in _pins and not _pins[em].level:
            return False
    return True


def _update(rx):
    global irq_calls
    pin = _pins.get(rx)
    if pin is None:
        return
    level = 0 if (_palet.get(rx, False) or not _emitter_on(rx)) else 1
    if level == pin.level:
        return
    pin.level = level
    if pin.handler is not None:
        irq_calls += 1
        micropython.heap_lock()
        try:
            pin.handler(pin)
        finally:
            micropython.heap_unlock()


def wire(cfg):
    for hole in cfg["holes"]:
        if hole.get("emitter") is not None:
            _wiring[hole["emitter"]] = list(hole["beams"])


def interrupt(gpio, interrupted):
    _palet[gpio] = bool(interrupted)
    _update(gpio)


async def play(path):
    done = 0
    while True:
        try:
            with open(path) as f:
                lines = f.read().split("\n")
        except OSError:
            lines = []
        while done < len(lines) - 1:  # the last piece may be a line still being written
            steps = json.loads(lines[done])
            done += 1
            for delay_ms, gpio, interrupted in steps:
                if delay_ms:
                    await asyncio.sleep_ms(delay_ms)
                interrupt(gpio, interrupted)
        await asyncio.sleep_ms(20)


def reset():
    raise SystemExit("machine.reset()")
