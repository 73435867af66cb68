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
import os
import time

import micropython

_pins = {}
_wiring = {}  # emitter gpio -> receiver gpios
_inverted = [False]  # "ir": "38khz" receivers: HIGH while broken (no carrier seen)
_palet = {}  # receiver gpio -> interrupted by a palet
_dead = set()  # receiver gpios unplugged (a scripted fault: ["dead", gpio])


class _Hx711:
    """The HX711's side of its two wires (config "loadcell"): DOUT low = a conversion is
    ready; each SCK rising edge shifts the next bit out, MSB first; after the read the
    next conversion is ready at once. Scripted ["palets", n]: n palets lie on the board
    (raw = TARE + n * PER, the calibration a test writes in the board's loadcell.txt)."""

    TARE = 81234
    PER = 21500

    def __init__(self):
        self.raw = self.TARE
        self.value = 0
        self.pulses = 0
        self.clock = 0

    def sck(self, level):
        if level and not self.clock:
            self.pulses += 1
        self.clock = level

    def dout(self):
        if self.pulses == 0 or self.pulses > 24:  # idle, or the last read is over
            self.pulses = 0
            self.value = self.raw & 0xFFFFFF
            return 0
        return (self.value >> (24 - self.pulses)) & 1


_hx = [None, None, None]  # the chip, its SCK gpio, its DOUT gpio
irq_calls = 0
_raise_on_read = None  # text of a RuntimeError the next pin read raises (a scripted bug)
CAUSE_FILE = "fake_reset_cause"  # in the board's cwd: the cause the next boot reads
PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3


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
        self.counters = []  # esp32.PCNT units counting this pin's edges (fake esp32 module)
        _pins[gpio] = self
        if mode == Pin.IN and _inverted[0] and gpio in _receivers():
            _update(gpio)  # a 38 kHz receiver starts LOW: it sees the carrier

    def value(self, v=None):
        global _raise_on_read
        chip = _hx[0]
        if chip is not None and self.gpio == _hx[1] and v is not None:
            chip.sck(v)
        if chip is not None and self.gpio == _hx[2] and v is None:
            return chip.dout()
        if v is None:
            if _raise_on_read is not None:
                text, _raise_on_read = _raise_on_read, None
                raise RuntimeError(text)
            return self.level
        self.level = 1 if v else 0
        if self.gpio in _wiring:
            for rx in _wiring[self.gpio]:
                _update(rx)
        return None

    def irq(self, handler=None, trigger=12, hard=False):
        self.handler = handler


def _receivers():
    return [rx for rxs in _wiring.values() for rx in rxs]


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
    if rx in _dead:  # unplugged: the pull-up reads "clear", whatever the beam sees
        broken = False
    else:
        broken = _palet.get(rx, False) or not _emitter_on(rx)
    level = (1 if broken else 0) if _inverted[0] else (0 if broken else 1)
    if level == pin.level:
        return
    pin.level = level
    for counter in pin.counters:
        counter.edge()
    if pin.handler is not None:
        irq_calls += 1
        micropython.heap_lock()
        try:
            pin.handler(pin)
        finally:
            micropython.heap_unlock()


def wire(cfg):
    _inverted[0] = cfg.get("ir") == "38khz"
    for hole in cfg["holes"]:
        if hole.get("emitter") is not None:
            _wiring[hole["emitter"]] = list(hole["beams"])
    if cfg.get("loadcell"):
        _hx[0], _hx[1], _hx[2] = _Hx711(), cfg["loadcell"]["sck"], cfg["loadcell"]["dout"]
    line = cfg.get("line")
    if line and line.get("emitter") is not None:
        _wiring[line["emitter"]] = [line["near"], line["far"]]


def interrupt(gpio, interrupted):
    _palet[gpio] = bool(interrupted)
    _update(gpio)


def _step(gpio, arg):
    """A scripted step: a beam edge, or a fault injected into the board."""
    global _raise_on_read
    if gpio == "raise":
        _raise_on_read = arg
    elif gpio == "palets":  # arg palets now lie on the board (its load cell reads them)
        _hx[0].raw = _Hx711.TARE + arg * _Hx711.PER
    elif gpio == "dead":  # receiver `arg` unplugged: its pull-up reads clear for ever
        _dead.add(arg)
        _update(arg)
    elif gpio == "hang":  # the loop stops for arg ms (a blocking call): the watchdog must bite
        time.sleep_ms(arg)
    else:
        interrupt(gpio, arg)


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
                _step(gpio, interrupted)
        await asyncio.sleep_ms(20)


def reset():
    raise SystemExit("machine.reset()")


class PWM:
    """A PWM output: the emitter's carrier is on while the duty is not 0 (the receivers
    of a 38 kHz light barrier see it)."""

    def __init__(self, pin, freq=0, duty_u16=0):
        self.pin = pin
        self.frequency = freq
        self.duty = duty_u16
        pin.value(1 if duty_u16 else 0)

    def freq(self, f=None):
        if f is None:
            return self.frequency
        self.frequency = f
        return None

    def duty_u16(self, d=None):
        if d is None:
            return self.duty
        self.duty = d
        self.pin.value(1 if d else 0)
        return None


def disable_irq():
    return 1


def enable_irq(state):
    pass


def unique_id():
    return b"\xe6\x61\x41\x04\x03\x2a\x5c\x2b"  # a Pico's flash id


def reset_cause():
    try:
        with open(CAUSE_FILE) as f:
            cause = int(f.read())
        os.remove(CAUSE_FILE)
        return cause
    except (OSError, ValueError):
        return PWRON_RESET


class WDT:
    """machine.WDT: a thread checks the feeds; when one is late it resets the "board" the
    hard way (SIGKILL of this process: no Python code runs, like the real reset) and
    leaves WDT_RESET as the next boot's reset cause. One watchdog per chip, as on the
    rp2: a second WDT() (the app's, after the slot selector's on a trial boot) sets the
    same one's timeout and feeds it."""

    _running = None  # [timeout, last feed] of the one watchdog

    def __init__(self, id=0, timeout=5000):
        import _thread

        if WDT._running is None:
            WDT._running = [timeout, time.ticks_ms()]
            _thread.start_new_thread(self._watch, ())
        WDT._running[0] = timeout
        self.feed()

    @property
    def timeout(self):
        return WDT._running[0]

    def feed(self):
        WDT._running[1] = time.ticks_ms()

    def _watch(self):
        while True:
            time.sleep_ms(50)
            timeout, fed = WDT._running
            if time.ticks_diff(time.ticks_ms(), fed) > timeout:
                with open(CAUSE_FILE, "w") as f:
                    f.write(str(WDT_RESET))
                os.system("kill -9 $PPID")
