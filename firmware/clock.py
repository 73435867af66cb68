# Tick arithmetic shared by the board and the simulator.
#
# MicroPython's time.ticks_us() wraps at 2**30 on every port. The node works only with
# such wrapped values (a CPython simulator masks its clock the same way), so a board and
# a simulated board age their timers identically, wrap included.

TICKS_PERIOD = 1 << 30
TICKS_MASK = TICKS_PERIOD - 1
_HALF = TICKS_PERIOD >> 1


def ticks_diff(a, b):
    """Signed a - b for wrapped ticks (valid while |a - b| < 2**29 us, about 9 minutes)."""
    return ((a - b + _HALF) & TICKS_MASK) - _HALF


def ticks_add(t, delta):
    return (t + delta) & TICKS_MASK


def wrap(t):
    """Wrap any integer time (us) into the ticks range, e.g. a CPython monotonic clock."""
    return t & TICKS_MASK
