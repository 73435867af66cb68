# Edge ring: what interrupt handlers write and the main loop reads.
#
# Single producer (the IRQ) and single consumer (the main loop): the producer only moves
# `head`, the consumer only moves `tail`, so no lock is needed even under hard IRQs.
# Every buffer is allocated up front: `push` allocates nothing (tests prove it under
# micropython.heap_lock()), as the MicroPython ISR rules require.

from array import array

from firmware.clock import TICKS_MASK


class EdgeRing:
    def __init__(self, size=128):
        self.size = size
        self.chan = bytearray(size)
        self.level = bytearray(size)
        self.t_us = array("i", [0] * size)  # ticks_us() < 2**30 fits an int32
        self.head = 0  # next slot the producer writes
        self.tail = 0  # next slot the consumer reads
        self.overflow = 0  # edges dropped because the ring was full

    def push(self, chan, closed, t_us):
        """Record one edge. IRQ-safe: no allocation, no exception when full."""
        head = self.head
        nxt = head + 1
        if nxt == self.size:
            nxt = 0
        if nxt == self.tail:
            self.overflow += 1
            return
        self.chan[head] = chan
        self.level[head] = closed
        self.t_us[head] = t_us
        self.head = nxt

    def pending(self):
        head = self.head
        tail = self.tail
        return head - tail if head >= tail else head + self.size - tail

    def pop(self):
        """(chan, closed, t_us) of the oldest edge, or None. Main loop only."""
        tail = self.tail
        if tail == self.head:
            return None
        edge = (self.chan[tail], self.level[tail] != 0, self.t_us[tail])
        tail += 1
        self.tail = 0 if tail == self.size else tail
        return edge


def pin_handler(ring, chan, pin_closed_level, ticks_us):
    """A pin IRQ handler for one beam: time-stamps the edge with ticks_us and pushes it.

    `pin_closed_level` is the pin value that means "beam interrupted" (0 for the usual
    open-collector receiver with a pull-up). Built once at set-up, so binding `ring.push`
    never happens inside the interrupt. Times are masked to the 2**30 ticks period (a
    no-op on boards; the unix port's ticks_us wraps at 2**62).
    """
    push = ring.push
    flip = 1 - pin_closed_level  # closed = value ^ flip

    def handler(pin):
        push(chan, pin.value() ^ flip, ticks_us() & TICKS_MASK)

    return handler


class EdgeCounter:
    """Turns a hardware edge count into edges (esp32: a PCNT unit per beam counting both
    edges of the receiver pin, so the count never loses an edge however late it is read).

    Edges on one pin alternate, so the count since the last poll and the level before it
    give every edge in order; each is stamped with the poll time (the poll period bounds
    the timestamp error, not the count). `modulo` is the PCNT wrap (its `max`).
    """

    def __init__(self, ring, chan, closed, count, modulo=32000):
        self.ring = ring
        self.chan = chan
        self.closed = 1 if closed else 0  # level after the last edge pushed
        self.count = count
        self.modulo = modulo
        self.edges = 0

    def update(self, count, now):
        """Push the edges counted since the last call; returns how many."""
        n = (count - self.count) % self.modulo
        self.count = count
        closed = self.closed
        for _ in range(n):
            closed ^= 1
            self.ring.push(self.chan, closed, now)
        self.closed = closed
        self.edges += n
        return n
