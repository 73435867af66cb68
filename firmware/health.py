# Health message and the emitter self-test. Pure logic: no `machine`.


def health_fields(uptime_s, mem_free, beams, counters, overflow, rssi=None):
    """The type-specific fields of a `health` message (protocol.py)."""
    fields = {
        "uptime_s": uptime_s,
        "mem_free": mem_free,
        "beams": beams,
        "counters": counters,
        "overflow": overflow,
    }
    if rssi is not None:
        fields["rssi"] = rssi
    return fields


class SelfTest:
    """Emitter self-test of one hole, as a non-blocking state machine.

    Switch the hole's IR emitter off through `set_emitter(hole, on)`; after selftest_ms
    every receiver must report its beam interrupted (no light: the same as a palet in the
    beam), else the result names the failure and the node sends a `fault` event. Then
    the emitter goes on again for selftest_ms. A beam still dark then is taken as a palet
    that arrived during the test (the node starts a passage; a dead receiver shows up as
    `blocked` after stuck_ms). The hole's classifier is suspended meanwhile, so the
    test's own edges are never taken for palets; a palet that passes entirely within the
    2 x selftest_ms window is not seen, so the hub asks for self-tests between rounds.
    """

    IDLE = 0
    DARK = 1  # emitter off, waiting for the receivers to go dark
    LIGHT = 2  # emitter on again, waiting for the receivers to see it

    def __init__(self, hole, channels, set_emitter, read_beam, wait_us, names="AB"):
        self.hole = hole
        self.names = names  # one letter per channel: "AB" for a hole, "NF" for a throw gate
        self.channels = channels  # channel numbers of the hole's beams, A first
        self.set_emitter = set_emitter
        self.read_beam = read_beam  # read_beam(channel) -> True when interrupted
        self.wait_us = wait_us
        self.phase = self.IDLE
        self.since = 0
        self.failure = None
        self.runs = 0
        self.failures = 0

    def start(self, now):
        self.phase = self.DARK
        self.since = now
        self.failure = None
        self.set_emitter(self.hole, False)

    def step(self, now, ticks_diff):
        """Advance; returns None while running or idle, else "ok" or the failure text."""
        if self.phase == self.IDLE or ticks_diff(now, self.since) < self.wait_us:
            return None
        if self.phase == self.DARK:
            lit = [ch for ch in self.channels if not self.read_beam(ch)]
            if lit:
                self.failure = "emitter off but beam " + self._names(lit) + " still sees light"
            self.set_emitter(self.hole, True)
            self.phase = self.LIGHT
            self.since = now
            return None
        self.phase = self.IDLE
        self.runs += 1
        if self.failure is not None:
            self.failures += 1
            return self.failure
        return "ok"

    def _names(self, chans):
        return "".join(self.names[self.channels.index(ch)] for ch in chans)
