# The sensor node: classifier + outbox + self-test + health + links, driven by a clock
# callable, edges and polls. Runs unchanged on a board (board_rp2 / board_esp32 wire the
# hardware), under the MicroPython unix port (tests) and under CPython (the hub's
# simulator): hardware sits behind tiny callables, links behind a small interface (see
# firmware/README.md, "Node interface"). No `machine` here.

from firmware.beams import Gate, Hole
from firmware.clock import ticks_add, ticks_diff
from firmware.config import config_hash
from firmware.edges import EdgeRing
from firmware.health import SelfTest, health_fields
from firmware.outbox import MemoryStorage, Outbox, next_boot

FW_VERSION = "1.0.0"
SEND_BURST = 16  # events sent per link and poll, so edges keep being drained
RESEND_BACKOFF_MAX = 16  # resend period grows up to 16 x resend_ms while nobody acks

_KIND_COUNTER = {"drop": "drops", "bounce": "bounces", "blocked": "blocked", "cleared": "cleared",
                 "fault": "faults", "button": "buttons", "throw": "throws"}
DEAD_B = "emitter off but beam B still sees light"  # health.SelfTest's words for a dead beam B


IDENTIFY_MS = 10_000  # `cmd identify`: the LED / buzzer blinks this long
BLINK_MS = 250


class Node:
    """One sensor board.

    cfg          a config from firmware.config.load() (board, holes, channels, thresholds)
    clock()      -> ticks_us (wrapped to 2**30 like time.ticks_us)
    read_beam(channel) -> True when the beam is interrupted (used at start and self-test)
    set_emitter(hole, on)  switch a hole's IR emitter (None: no emitter self-test)
    storage      boot-counter storage callable (firmware.outbox.FileStorage on a board)
    mem_free()   -> free heap bytes; reboot() restarts the board; rssi() -> dBm or None
    crash        one line on the previous boot's crash (or watchdog reset), or None
    journal      outbox journal (firmware.outbox.FileJournal on a board): unacknowledged
                 events survive a reset; None keeps them in RAM only
    random16()   -> 16 random bits for the boot id (None: the boot id is the counter)
    weigh()      -> a raw load-cell reading or None (firmware.loadcell.Hx711.read), with
    cell         a firmware.loadcell.LoadCell (palet count -> `weight` events) and
    cell_storage its tare and calibration in flash (storage callable)
    indicate(on) switches the board's LED / buzzer (`cmd identify` blinks it IDENTIFY_MS)
    """

    def __init__(self, cfg, clock, read_beam, set_emitter=None, storage=None, mem_free=None,
                 reboot=None, rssi=None, fw=FW_VERSION, crash=None, journal=None, random16=None,
                 weigh=None, cell=None, cell_storage=None, updater=None, indicate=None):
        self.cfg = cfg
        self.board = cfg["board"]
        self.th = cfg["thresholds"]
        self.clock = clock
        self.read_beam = read_beam
        self.set_emitter = set_emitter
        self.storage = storage if storage is not None else MemoryStorage()
        self.mem_free = mem_free
        self.reboot = reboot
        self.rssi = rssi
        self.fw = fw
        self.crash = crash  # summary of the previous boot's crash, told in the hello
        self.ring = EdgeRing(self.th["edge_ring"])
        self.holes = []
        self.chan_map = []  # channel -> (Hole, beam index)
        hole_chans = {}
        for name, beam, _pin in cfg["channels"]:
            hole_chans.setdefault(name, []).append(len(self.chan_map))
            self.chan_map.append((name, beam))
        by_name = {}
        for hc in cfg["holes"]:
            hole = Hole(hc["name"], len(hc["beams"]), self.th, self._hole_event)
            self.holes.append(hole)
            by_name[hc["name"]] = hole
        self.chan_map = [(by_name[name], beam) for name, beam in self.chan_map]
        self.hole_by_name = by_name
        # buttons take the channels after the beams
        self.buttons = []  # [name, last accepted press time or None]
        for button in cfg.get("buttons", []):
            self.buttons.append([button["name"], None])
        # the throw gate's two planes take the channels after the buttons
        self.line_base = len(self.chan_map) + len(self.buttons)
        line = cfg.get("line")
        self.gate = Gate(line["name"], self.th, self._gate_event) if line else None
        self.selftests = []
        self._selftest_failed = {}  # hole -> its last self-test failed (a pass then clears it)
        self._now = 0  # the time of the poll under way (events decided in it)
        if set_emitter is not None:
            for hc in cfg["holes"]:
                if hc.get("emitter") is not None:
                    self.selftests.append(SelfTest(hc["name"], hole_chans[hc["name"]], set_emitter,
                                                   read_beam, self.th["selftest_ms"] * 1000))
            if line and line.get("emitter") is not None:
                self.selftests.append(SelfTest(line["name"], [self.line_base, self.line_base + 1], set_emitter,
                                               read_beam, self.th["selftest_ms"] * 1000, names="NF"))
        self.links = []
        self.cursors = []  # per link: next outbox ordinal to send
        self.sent_high = []  # per link: highest ordinal it ever sent (to count resends)
        self.counters = {"drops": 0, "bounces": 0, "blocked": 0, "cleared": 0, "faults": 0,
                         "buttons": 0, "edges": 0, "edge_overflow": 0, "resends": 0,
                         "a_missed": 0, "selftests": 0, "bad_input": 0, "link_ups": 0,
                         "loop_max_ms": 0}
        if self.gate is not None:  # what crossed the gate and was not a palet, by why
            for key in ("throws", "line_one_plane", "line_inward", "line_long", "line_speed"):
                self.counters[key] = 0
        self.random16 = random16
        self.weigh = weigh
        self.cell = cell
        self.cell_storage = cell_storage
        self.updater = updater  # firmware.update.Updater: bundles, slots, trial (issue 33)
        self._last_weigh = 0
        self.outbox = Outbox(self.board, 0, self.th["outbox_size"], journal)  # boot set by start()
        self.boot = None  # None until start()
        self.started_at = 0
        # Wrapped ticks only compare within +-2**29 us (537 s), so every period that may
        # be longer runs on uptime_ms, a plain counter advanced by each poll.
        self.uptime_ms = 0
        self._last_now = 0
        self._last_health = 0  # uptime_ms of the last health message
        self._last_selftest = 0  # uptime_ms of the last self-test start
        self._quiet_from = 0  # uptime_ms of the last edge or busy hole (journal writes wait)
        self._progress_at = 0  # last ack progress (or first send after an empty outbox)
        self._backoff = 1
        self.indicate = indicate
        self._identify_until = None  # uptime_ms when the identify blinking stops
        self.events = []  # every event of this boot when keep_events is set (tests, simulator)
        self.keep_events = False

    # -- wiring --------------------------------------------------------------------------
    def add_link(self, link):
        """Attach a link (see README: is_up(), send(msg), service(now), attach(node))."""
        self.links.append(link)
        self.cursors.append(1)
        self.sent_high.append(0)
        link.attach(self)

    def edge(self, channel, closed, t_us):
        """Feed one edge, exactly as an interrupt handler does (simulator entry point)."""
        self.ring.push(channel, 1 if closed else 0, t_us)

    # -- life cycle ----------------------------------------------------------------------
    def start(self):
        """Boot: count the boot in flash, queue `hello`, sync beams, start self-tests."""
        now = self.clock()
        self.started_at = self._last_now = now
        self._last_health = self._last_selftest = self.uptime_ms
        if self.cell is not None and self.cell_storage is not None:
            saved = self.cell_storage()
            if saved:
                self.cell.load_settings(saved)
        self.outbox.restore()  # earlier boots' unacknowledged events first, as they were
        self.boot, error = next_boot(self.storage, self.random16)
        self.outbox.boot = self.boot
        hello = {"fw": self.fw, "config": config_hash(_public(self.cfg)),
                 "holes": [h.name for h in self.holes]}
        if self.crash:
            hello["crash"] = self.crash[:64]
        if self.gate is not None:
            hello["lanes"] = [self.gate.name]
        if self.cell is not None:
            hello["loadcell"] = True
        if self.updater is not None:
            for key, value in self.updater.hello_fields().items():
                hello[key] = value
        self._emit("hello", now, hello)
        if error is not None:
            self._emit("fault", now, {"reason": error})
        for hole in self.holes:
            levels = [self.read_beam(ch) for ch in self._hole_channels(hole)]
            hole.reset(levels, now)
            if any(levels):
                self._emit("fault", now, {"reason": "beam interrupted at boot", "hole": hole.name})
        if self.gate is not None:
            self.gate.reset([self.read_beam(self.line_base), self.read_beam(self.line_base + 1)], now)
        self.start_selftest(now)
        self._progress_at = now
        return self.boot

    def start_selftest(self, now=None, only=None):
        """Self-test every idle hole (and the throw gate), or only the one named `only`."""
        now = self.clock() if now is None else now
        for test in self.selftests:
            if only is not None and test.hole != only:
                continue
            hole = self._sensor(test.hole)
            if test.phase == SelfTest.IDLE and not hole.busy():
                hole.suspended = True
                test.start(now)
        if only is None:
            self._last_selftest = self.uptime_ms

    def poll(self, now=None):
        """One main-loop step: drain edges, advance timers, self-tests, health, sending."""
        now = self.clock() if now is None else now
        self._now = now
        self._drain()
        for hole in self.holes:
            hole.tick(now)
        if self.gate is not None:
            self.gate.tick(now)
        self._step_selftests(now)
        elapsed = ticks_diff(now, self._last_now)
        if elapsed > 0:
            self.uptime_ms += elapsed // 1000
            self._last_now = ticks_add(now, -(elapsed % 1000))
        self._expire_buttons(now)
        if self._identify_until is not None:
            self._blink()
        self._keep_journal()
        weigh, cell = self.weigh, self.cell
        if weigh is not None and cell is not None and self.uptime_ms - self._last_weigh >= self.th["loadcell_ms"]:
            self._last_weigh = self.uptime_ms
            self._weigh(now, weigh, cell)
        if self.uptime_ms - self._last_health >= self.th["health_every_s"] * 1000:
            self._last_health = self.uptime_ms
            self.send_health(now)
        every = self.th["selftest_every_s"]
        if every and self.uptime_ms - self._last_selftest >= every * 1000:
            self.start_selftest(now)
        for link in self.links:
            link.service(now)
        self.flush(now)
        if self.updater is not None and self.updater.poll(self) and self.reboot is not None:
            if not self.updater.switching:  # a trial that did not commit in time
                self._note_crash("no commit within " + str(self.updater.trial_ms // 1000) + " s")
            self.outbox.flush()
            self.reboot()

    def _note_crash(self, text):
        note = getattr(self.updater, "note_crash", None)
        if note is not None:
            note(text)

    def selftests_passed(self):
        """Every emitter self-test ran since boot and none failed (a trial's commit)."""
        return (self.counters["selftests"] >= len(self.selftests) and not self._selftest_failed
                and all(test.phase == SelfTest.IDLE for test in self.selftests))

    def flush(self, now=None):
        """Send what each up link has not sent yet; resend when acks stop coming."""
        now = self.clock() if now is None else now
        outbox = self.outbox
        if self.boot is None:
            return
        if outbox.unacked():
            if ticks_diff(now, self._progress_at) >= self.th["resend_ms"] * 1000 * self._backoff:
                self._progress_at = now
                if self._backoff < RESEND_BACKOFF_MAX:
                    self._backoff *= 2
                self._rewind_all()
        else:
            self._progress_at = now
        for i, link in enumerate(self.links):
            for _ in range(SEND_BURST):
                if not link.is_up():
                    break
                got = outbox.get(self.cursors[i])
                if got is None:
                    break
                ordinal, msg = got
                if not link.send(msg):
                    break
                self.cursors[i] = ordinal + 1
                if ordinal <= self.sent_high[i]:
                    self.counters["resends"] += 1
                else:
                    self.sent_high[i] = ordinal

    # -- inputs from links ---------------------------------------------------------------
    def link_up(self, link):
        """A link (re)connected: it starts again from the oldest unacknowledged event."""
        self.counters["link_ups"] += 1
        for i, known in enumerate(self.links):
            if known is link:
                self.cursors[i] = 1
        if self.boot is not None:
            link.send(self.health_message(self.clock()))

    def receive(self, msg):
        """A decoded hub message (ack or cmd) from any link."""
        kind = msg.get("type") if isinstance(msg, dict) else None
        if kind == "ack" and self.boot is not None:
            if self.outbox.ack(msg.get("boot"), msg.get("seq")):
                self._progress_at = self.clock()
                self._backoff = 1
        elif kind == "cmd" and msg.get("boot") in (self.boot, 0):
            cmd = msg.get("cmd")
            if cmd == "selftest":
                self.start_selftest()
            elif cmd == "health":
                self.send_health(self.clock())
            elif cmd == "reboot" and self.reboot is not None:
                self.outbox.flush()
                self.reboot()
            elif cmd == "newboot":
                self.new_boot()
            elif cmd == "resend":  # the hub sees a gap: everything unacknowledged, now
                self._rewind_all()
                self._progress_at = self.clock()
                self._backoff = 1
            elif cmd in ("tare", "calibrate") and self.cell is not None:
                self._cell_command(cmd, self.cell)
            elif cmd == "identify":  # the organizer looks for this board among sixty
                self._identify_until = self.uptime_ms + IDENTIFY_MS
            elif cmd == "rearm":
                self.rearm()
        elif kind == "update" and self.updater is not None and msg.get("boot") in (self.boot, 0):
            self.send_direct("update_state", self.updater.handle(msg))
        else:
            self.counters["bad_input"] += 1

    def rearm(self):
        """The hub's `cmd rearm`: forget what each hole concluded about its beams (a beam B
        taken as dead, a suspect beam, a failed self-test), take the beams' levels as they
        are now and self-test them again: a repaired hole works at once."""
        now = self.clock()
        for hole in self.holes:
            hole.a_alone = False
            hole.suspect = None
            hole.reset([self.read_beam(ch) for ch in self._hole_channels(hole)], now)
        self.start_selftest(now)

    def _blink(self):
        until = self._identify_until
        if until is None:
            return
        on = self.uptime_ms < until and (self.uptime_ms // BLINK_MS) % 2 == 0
        if self.indicate is not None:
            self.indicate(on)
        if self.uptime_ms >= until:
            self._identify_until = None

    def loop_gap(self, ms):
        """The board's loop took `ms` between two polls: keep the longest (health)."""
        if ms > self.counters["loop_max_ms"]:
            self.counters["loop_max_ms"] = ms

    def new_boot(self):
        """The hub saw this boot id before (flash erased, a spare board with the same
        id): take a fresh one and move the unacknowledged events of this boot to it."""
        boot, error = next_boot(self.storage, self.random16)
        self.outbox.rebase(boot)
        self.boot = boot
        self._rewind_all()
        if error is not None:
            self._emit("fault", self.clock(), {"reason": error})

    def bad_input(self, reason=None):
        """A link got a line or payload it could not decode."""
        self.counters["bad_input"] += 1

    # -- health --------------------------------------------------------------------------
    def health_message(self, now):
        beams = {}
        for hole in self.holes:
            beams[hole.name] = "fault" if self._faulty(hole.name) or hole.suspect else hole.beam_state()
        if self.gate is not None:
            beams[self.gate.name] = "fault" if self._faulty(self.gate.name) else self.gate.state()
        self.counters["edge_overflow"] = self.ring.overflow
        self.counters["a_missed"] = sum(h.a_missed for h in self.holes)
        self.counters["acked"] = self.outbox.acked  # highest seq the hub acknowledged
        self.counters["unacked"] = self.outbox.unacked()
        counters = dict(self.counters)
        if self.updater is not None and self.updater.check_ms:
            counters["update_check_ms"] = self.updater.check_ms  # the last signature check (issue 33)
        if self.outbox.items:  # what the board still holds, so the hub knows what may come
            counters["oldest_boot"] = self.outbox.items[0]["boot"]
            counters["oldest_seq"] = self.outbox.items[0]["seq"]
        fields = health_fields(self.uptime_ms // 1000, self.mem_free() if self.mem_free else 0,
                               beams, counters, self.outbox.overflow,
                               self.rssi() if self.rssi else None)
        msg = {"type": "health", "board": self.board, "boot": self.boot, "seq": self.outbox.seq,
               "t_us": now}
        for key in fields:
            msg[key] = fields[key]
        return msg

    def send_direct(self, kind, fields):
        """A message that is not queued nor acknowledged (an update answer), on every up link."""
        if self.boot is None:
            return
        msg = {"type": kind, "board": self.board, "boot": self.boot, "seq": self.outbox.seq,
               "t_us": self.clock()}
        for key in fields:
            msg[key] = fields[key]
        for link in self.links:
            if link.is_up():
                link.send(msg)

    def send_health(self, now):
        if self.boot is None:
            return
        msg = self.health_message(now)
        for link in self.links:
            if link.is_up():
                link.send(msg)

    # -- internals -----------------------------------------------------------------------
    def _sensor(self, name):
        """The hole, or the throw gate, a self-test is named after."""
        hole = self.hole_by_name.get(name)
        if hole is not None:
            return hole
        gate = self.gate
        assert gate is not None  # self-tests are made only for holes and a configured gate
        return gate

    def _hole_channels(self, hole):
        return [ch for ch, (h, _b) in enumerate(self.chan_map) if h is hole]

    def _faulty(self, name):
        for test in self.selftests:
            if test.hole == name and test.failure is not None and test.phase == SelfTest.IDLE:
                return True
        return False

    def _drain(self):
        nbeams = len(self.chan_map)
        while True:
            edge = self.ring.pop()
            if edge is None:
                return
            ch, closed, t = edge
            self.counters["edges"] += 1
            self._quiet_from = self.uptime_ms
            if ch < nbeams:
                hole, beam = self.chan_map[ch]
                hole.edge(beam, closed, t)
            elif ch - nbeams < len(self.buttons):
                self._button(self.buttons[ch - nbeams], closed, t)
            elif self.gate is not None and ch - self.line_base < 2:
                self.gate.edge(ch - self.line_base, closed, t)

    def _weigh(self, now, weigh, cell):
        raw = weigh()
        if raw is None:
            return
        count = cell.sample(raw)
        if count is not None:
            self._emit("weight", now, {"board_palets": count})
        if cell.problem is not None:
            self._emit("fault", now, {"reason": cell.problem[:64]})
            cell.problem = None

    def _cell_command(self, cmd, cell):
        if cmd == "tare":
            cell.tare()
            if cell.problem is not None:
                self._emit("fault", self.clock(), {"reason": cell.problem[:64]})
                cell.problem = None
                return
        elif not cell.calibrate(1):
            self._emit("fault", self.clock(), {"reason": "load cell: calibration needs one palet on a tared board"})
            return
        if self.cell_storage is not None:
            try:
                self.cell_storage(cell.settings())
            except Exception as err:  # noqa: BLE001 - reported, the count still works
                self._emit("fault", self.clock(), {"reason": ("load cell settings not saved: " + str(err))[:64]})

    def _keep_journal(self):
        """Write the outbox journal once every hole has been quiet for journal_after_ms
        (a flash erase stalls an rp2 with IRQs off; events the hub acknowledged meanwhile
        are never written)."""
        outbox = self.outbox
        if not outbox.dirty():
            return
        for hole in self.holes:
            if hole.busy():
                self._quiet_from = self.uptime_ms
                return
        if self.uptime_ms - self._quiet_from >= self.th["journal_after_ms"]:
            outbox.flush()

    def _expire_buttons(self, now):
        """Forget a press once its settle time is over, so it is never compared with a
        press more than 2**29 us later (the wrapped difference would look negative)."""
        settle = self.th["button_settle_ms"] * 1000
        for button in self.buttons:
            if button[1] is not None and ticks_diff(now, button[1]) >= settle:
                button[1] = None

    def _button(self, button, pressed, t):
        if not pressed:
            return
        last = button[1]
        if last is not None and ticks_diff(t, last) < self.th["button_settle_ms"] * 1000:
            return
        button[1] = t
        self._emit("button", t, {"button": button[0]})

    def _step_selftests(self, now):
        for test in self.selftests:
            result = test.step(now, ticks_diff)
            if result is None:
                continue
            self.counters["selftests"] += 1
            hole = self._sensor(test.hole)
            # The test's own edges are not palets: drop what the hole saw, resync levels.
            hole.suspended = False
            hole.resume([self.read_beam(ch) for ch in test.channels], now)
            if result != "ok":
                if result == DEAD_B and isinstance(hole, Hole) and hole.nbeams == 2:
                    if hole.a_alone:
                        continue  # told already; beam A alone keeps deciding
                    hole.a_alone = True  # beam A alone decides from now on (issue 24 item 9)
                    result = "beam B failed its self-test: beam A alone decides"
                self._emit("fault", now, {"reason": result, "hole": test.hole})
                self._selftest_failed[test.hole] = True
            else:
                if isinstance(hole, Hole):
                    hole.a_alone = False
                if self._selftest_failed.pop(test.hole, False):  # repaired: the hub clears its alert
                    self._emit("cleared", now, {"hole": test.hole})

    def _hole_event(self, kind, hole, t_us):
        self._emit(kind, t_us, {"hole": hole})
        h = self.hole_by_name[hole]
        if kind == "bounce" and h.a_only():
            # Beam A alone: a bounce-out, or a real drop past a dead beam B. Test the
            # beams now, so a dead B costs this one passage (its fault follows within
            # 2 x selftest_ms; the hub offers the passage as a drop), not dead_beam_run.
            self.start_selftest(self._now, only=hole)
        run = self.th["dead_beam_run"]
        dead = h.dead_beam(run)
        if dead is None:
            if h.suspect is not None:  # a passage saw both beams again: the hub clears its alert
                h.suspect = None
                self._emit("cleared", t_us, {"hole": hole})
        elif h.suspect != dead:  # once per run: the hub shows it until a passage sees both
            h.suspect = dead
            other = "A" if dead == "B" else "B"
            self._emit("fault", t_us, {"hole": hole, "reason": "beam " + dead + " dead: " + str(run)
                                       + " passages in a row saw only beam " + other})

    def _gate_event(self, kind, lane, arg):
        if kind == "throw":  # loadcell: the hub may take "nothing landed here" as seen
            self._emit("throw", arg, {"lane": lane, "loadcell": True} if self.cell is not None else {"lane": lane})
        elif kind == "other":  # not a palet: counted by why (health), never sent
            self.counters[arg] += 1
        elif kind == "blocked":
            self._emit("fault", arg, {"reason": "throw line blocked (someone in the gate?)", "hole": lane})
        else:
            self._emit("cleared", arg, {"hole": lane})

    def _emit(self, kind, t_us, fields):
        msg = self.outbox.add(kind, t_us, fields)
        counter = _KIND_COUNTER.get(kind)
        if counter is not None:
            self.counters[counter] += 1
        if self.keep_events:
            self.events.append(msg)
        return msg

    def _rewind_all(self):
        for i in range(len(self.cursors)):
            self.cursors[i] = 1


def _public(cfg):
    """The config as written by its author (no derived keys) for the hello hash."""
    out = {}
    for key in cfg:
        if key not in ("channels", "thresholds"):
            out[key] = cfg[key]
    out["thresholds"] = cfg.get("thresholds")
    return out
