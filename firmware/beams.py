# Beam classifier: turns time-stamped beam edges of one hole into drop / bounce /
# blocked / cleared events (docs/design.md §5, T11, T13). Pure logic: no `machine`, no clock
# of its own (every call carries the time), so the board, the unix-port tests and the
# hub's simulator run the very same decisions.
#
# Per beam, a "settle" debounce in the ESPHome sense: the first change is taken at once
# (with its own leading-edge timestamp), then changes within settle_ms only update a
# pending level, which is taken (at its own timestamp) when the lock-out ends. So a 2 ms
# pulse is one entry (close at t, open at t + 2 ms) and chatter is never a second palet.
#
# Per hole, a *passage* starts at the first beam entry and ends when every beam is open
# and quiet for confirm_ms (two beams) or as soon as the beam opens (one beam):
#   one beam:   entry -> drop
#   two beams:  the last change of direction decides: A then B (down) -> drop;
#               B then A (up) or A alone -> bounce; B alone (A missed it) -> drop.
# A beam held closed longer than stuck_ms ends the passage as `blocked` (a palet
# straddling the hole counts as a drop plus an alert, T13) instead of a drop, so a palet
# is never counted twice; `cleared` follows when every beam is open again. Every event
# carries the passage's leading edge (ticks_us of the first entry), `cleared` the
# opening.

from firmware.clock import ticks_diff

IDLE = 0
PASSAGE = 1
BLOCKED = 2


class Hole:
    def __init__(self, name, nbeams, thresholds, emit):
        if nbeams not in (1, 2):
            raise ValueError("a hole has 1 or 2 beams")
        self.name = name
        self.nbeams = nbeams
        self.emit = emit  # emit(kind, hole_name, t_us)
        self.settle_us = thresholds["settle_ms"] * 1000
        self.confirm_us = thresholds["confirm_ms"] * 1000 if nbeams == 2 else 0
        self.stuck_us = thresholds["stuck_ms"] * 1000
        self.closed = [False] * nbeams  # accepted (debounced) level
        self.changed_at = [0] * nbeams  # when the accepted level last changed
        self.pending = [False] * nbeams  # raw level last seen
        self.pending_at = [0] * nbeams
        self.locked = [False] * nbeams  # inside the settle lock-out
        self.state = IDLE
        self.t0 = 0  # leading edge of the current passage
        self.last_beam = -1  # beam of the last entry in the passage
        self.direction = 0  # +1 down (A->B), -1 up (B->A), 0 no change of beam yet
        self.quiet_since = 0
        self.alerted = False  # a `blocked` was emitted (so `cleared` is owed)
        self.suspended = False  # emitter self-test running: edges are not palets
        self.a_missed = 0  # passages seen by B only (beam A dirty or misaligned?)
        # Runs of one-beam passages: a dead beam B (unplugged: the pull-up reads "clear";
        # or blinded by sunlight) makes every real drop "A alone" = a bounce, silently.
        self.a_only_run = 0
        self.b_only_run = 0
        self.suspect = None  # "A" or "B" while the node reports that beam as dead
        # Beam B failed its self-test (dead, unplugged, blinded): beam A alone decides,
        # as on a one-beam hole, until a self-test passes again (issue 24 item 9).
        self.a_alone = False

    # -- inputs --------------------------------------------------------------------------
    def reset(self, levels, now):
        """Take `levels` (closed per beam) as the truth, without events (boot, self-test).
        A beam closed at boot puts the hole in BLOCKED without an alert."""
        for b in range(self.nbeams):
            self.closed[b] = self.pending[b] = bool(levels[b])
            self.changed_at[b] = self.pending_at[b] = now
            self.locked[b] = False
        self.alerted = False
        self.direction = 0
        self.last_beam = -1
        self.quiet_since = now
        self.state = BLOCKED if any(self.closed) else IDLE

    def resume(self, levels, now):
        """After an emitter self-test: take `levels` as the truth; a beam already
        interrupted is a palet that arrived during the test, so a passage starts now."""
        self.reset(levels, now)
        if self.state == BLOCKED:
            self.state = PASSAGE
            self.t0 = now
            self.last_beam = 1 if self.closed[-1] else 0
            if self.nbeams == 2 and self.closed[0] and self.closed[1]:
                self.direction = 1  # seen in both beams: on its way down

    def edge(self, beam, closed, t):
        """A raw edge of `beam` (0 = A, 1 = B) at ticks_us `t`. The timers are first
        advanced to `t`: edges drained in one batch after a stalled loop pass are decided
        as if the loop had run between them (a drop, then a beam held 80 ms later, are a
        drop and a `blocked`, not one `blocked` from the first edge)."""
        if self.suspended:
            return
        self.tick(t)
        self._expire(beam, t)
        if closed == self.pending[beam]:
            return  # a repeated level (edge seen twice, or an edge missed): nothing new
        self.pending[beam] = closed
        self.pending_at[beam] = t
        if not self.locked[beam]:
            self._accept(beam, closed, t)

    def tick(self, now):
        """Advance timers to `now` (call after feeding every edge up to `now`)."""
        if self.suspended:
            return
        for b in range(self.nbeams):
            self._expire(b, now)
        if self.state == PASSAGE:
            for b in range(self.nbeams):
                if self.closed[b] and ticks_diff(now, self.changed_at[b]) >= self.stuck_us:
                    self.state = BLOCKED
                    self.alerted = True
                    self.emit("blocked", self.name, self.t0)
                    return
            if self._all_open() and ticks_diff(now, self.quiet_since) >= self.confirm_us:
                self.state = IDLE
                if self.nbeams == 2 and not self.a_alone:
                    self._count_runs()
                self.emit(self._verdict(), self.name, self.t0)
        elif self.state == BLOCKED and self._all_open():
            self.state = IDLE
            if self.alerted:
                self.alerted = False
                self.emit("cleared", self.name, self.quiet_since)

    # -- state ---------------------------------------------------------------------------
    def beam_state(self):
        """"blocked", "closed" or "open" for health messages."""
        if self.state == BLOCKED and self.alerted:
            return "blocked"
        return "closed" if not self._all_open() else "open"

    def busy(self):
        return self.state != IDLE or not self._all_open()

    # -- internals -----------------------------------------------------------------------
    def _all_open(self):
        for c in self.closed:
            if c:
                return False
        for p in self.pending:
            if p:
                return False
        return True

    def _expire(self, beam, now):
        if self.locked[beam] and ticks_diff(now, self.changed_at[beam]) >= self.settle_us:
            self.locked[beam] = False
            if self.pending[beam] != self.closed[beam]:
                self._accept(beam, self.pending[beam], self.pending_at[beam])
                if ticks_diff(now, self.changed_at[beam]) >= self.settle_us:
                    self.locked[beam] = False

    def _accept(self, beam, closed, t):
        self.closed[beam] = closed
        self.changed_at[beam] = t
        self.locked[beam] = True
        self.quiet_since = t
        if closed:
            self._entry(beam, t)

    def _entry(self, beam, t):
        if self.state == BLOCKED:
            return
        if self.state == IDLE:
            self.state = PASSAGE
            self.t0 = t
            self.direction = 0
            self.last_beam = beam
            return
        if beam != self.last_beam:
            self.direction = 1 if self.last_beam == 0 else -1
            self.last_beam = beam

    def _count_runs(self):
        if self.direction != 0:
            self.a_only_run = self.b_only_run = 0
        elif self.last_beam == 1:
            self.a_missed += 1
            self.b_only_run += 1
            self.a_only_run = 0
        else:
            self.a_only_run += 1
            self.b_only_run = 0

    def dead_beam(self, run):
        """"B" or "A" when the last `run` passages in a row saw only the other beam."""
        if run and self.a_only_run >= run:
            return "B"
        if run and self.b_only_run >= run:
            return "A"
        return None

    def a_only(self):
        """The passage just decided saw beam A alone (a bounce-out, or a dead beam B)."""
        return self.nbeams == 2 and self.direction == 0 and self.last_beam == 0

    def _verdict(self):
        if self.nbeams == 1 or self.a_alone:
            return "drop"
        if self.direction > 0:
            return "drop"
        if self.direction < 0:
            return "bounce"
        return "drop" if self.last_beam == 1 else "bounce"  # B alone: A missed it


class Gate:
    """The throw gate of one lane (hardware/throw-line.md): two parallel light planes of
    vertical beams a few cm apart, 1 m in front of the throw line, each plane's receivers
    OR-ed onto one input: `near` (crossed first by a thrown palet), then `far`.

    A *crossing* starts at the first plane closing and ends when both planes have been
    open for lag_max_ms (the far plane may still be ahead of a palet that left the near
    one). It is a thrown palet (`emit("throw", name, t)`, t the near plane's leading
    edge) when: both planes closed, near first, the far one lag_min_ms..lag_max_ms later
    (the palet's speed across the gap), neither plane closed longer than line_max_ms
    (a palet is 4-25 ms; an arm, a leg, a body or anything carried stays far longer) and
    near opened before far (it went out, not back). Anything else is `emit("other", name,
    why)`: counted, not sent. A plane closed for stuck_ms is `emit("blocked", ...)` once
    (someone standing in the gate, a fallen beam), then `emit("cleared", ...)`.
    """

    def __init__(self, name, thresholds, emit):
        self.name = name
        self.emit = emit
        self.max_us = thresholds["line_max_ms"] * 1000
        self.lag_min_us = thresholds["line_lag_min_ms"] * 1000
        self.lag_max_us = thresholds["line_lag_max_ms"] * 1000
        self.stuck_us = thresholds["stuck_ms"] * 1000
        self.closed = [False, False]
        self.suspended = False
        self.alerted = False
        self._clear()

    def _clear(self):
        self.active = False
        self.first_close = [None, None]  # per plane: first close in this crossing
        self.last_open = [None, None]
        self.longest = [0, 0]  # longest single closure per plane
        self.closed_at = [0, 0]
        self.changed_at = 0

    def reset(self, levels, now):
        """Take `levels` (near, far) as the truth without a crossing (boot, self-test)."""
        self._clear()
        self.closed = [bool(levels[0]), bool(levels[1])]
        self.closed_at = [now, now]
        self.changed_at = now
        self.active = self.closed[0] or self.closed[1]  # ends as "other" once open again

    def resume(self, levels, now):
        self.reset(levels, now)

    def busy(self):
        return self.active or self.closed[0] or self.closed[1]

    def state(self):
        """"blocked", "closed" or "open" for health messages."""
        if self.alerted:
            return "blocked"
        return "closed" if self.closed[0] or self.closed[1] else "open"

    def edge(self, plane, closed, t):
        """A raw edge of `plane` (0 = near, 1 = far) at ticks_us `t`; the timers first
        advance to `t`, as in :meth:`Hole.edge`."""
        if self.suspended:
            return
        self.tick(t)
        if closed == self.closed[plane]:
            return
        self.closed[plane] = closed
        self.changed_at = t
        if closed:
            self.closed_at[plane] = t
            if not self.active:
                self._clear()
                self.active = True
                self.changed_at = t
                self.closed_at[plane] = t
            if self.first_close[plane] is None:
                self.first_close[plane] = t
        else:
            span = ticks_diff(t, self.closed_at[plane])
            if span > self.longest[plane]:
                self.longest[plane] = span
            self.last_open[plane] = t

    def tick(self, now):
        if self.suspended:
            return
        for p in (0, 1):
            if self.closed[p] and not self.alerted and ticks_diff(now, self.closed_at[p]) >= self.stuck_us:
                self.alerted = True
                self.longest[p] = self.stuck_us
                self.emit("blocked", self.name, self.closed_at[p])
        if self.closed[0] or self.closed[1]:
            return
        if self.alerted:
            self.alerted = False
            self.emit("cleared", self.name, self.changed_at)
        if self.active and ticks_diff(now, self.changed_at) >= self.lag_max_us:
            self.active = False
            why = self._verdict()
            if why is None:
                self.emit("throw", self.name, self.first_close[0])
            else:
                self.emit("other", self.name, why)

    def _verdict(self):
        """None for a thrown palet, else why not (a counter name)."""
        near, far = self.first_close
        if near is None or far is None:
            return "line_one_plane"
        lag = ticks_diff(far, near)
        if lag < 0 or ticks_diff(self.last_open[1], self.last_open[0]) < 0:
            return "line_inward"
        if (self.longest[0] > self.max_us or self.longest[1] > self.max_us
                or ticks_diff(self.last_open[1], near) > self.max_us + self.lag_max_us):
            return "line_long"
        if not self.lag_min_us <= lag <= self.lag_max_us:
            return "line_speed"
        return None
