# Run by test_irq.py under the MicroPython unix port: the interrupt path (the handler
# built by firmware.edges.pin_handler, which board_rp2 attaches with hard=True, and
# EdgeRing.push) must allocate nothing. Inside micropython.heap_lock() any allocation
# raises MemoryError, so running the handlers there proves it.
import sys

sys.path.insert(0, "")
import time  # noqa: E402

import micropython  # noqa: E402

from firmware.edges import EdgeRing, pin_handler  # noqa: E402


class FakePin:
    def __init__(self):
        self.level = 1

    def value(self):
        return self.level


ring = EdgeRing(64)
pins = [FakePin(), FakePin()]
handlers = [pin_handler(ring, i, 0, time.ticks_us) for i in range(2)]



def lock_is_real():
    """Control: while locked, building a list must fail."""
    micropython.heap_lock()
    try:
        grown = [1, 2, 3]
        return len(grown) == 0
    except MemoryError:
        return True
    finally:
        micropython.heap_unlock()


def run_handlers(pin0, pin1, h0, h1):
    """2000 edges through the IRQ handlers, heap locked (fills the ring: the overflow
    path must not allocate either)."""
    micropython.heap_lock()
    try:
        for _ in range(500):
            pin0.level = 0
            h0(pin0)
            pin1.level = 0
            h1(pin1)
            pin0.level = 1
            h0(pin0)
            pin1.level = 1
            h1(pin1)
        return True
    except MemoryError:
        return False
    finally:
        micropython.heap_unlock()


print("LOCK_REAL", lock_is_real())
ok = run_handlers(pins[0], pins[1], handlers[0], handlers[1])
print("HANDLERS_NO_ALLOC", ok, ring.pending(), ring.overflow)
first = ring.pop()
print("FIRST", first[0], first[1])
