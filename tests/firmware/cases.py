# Pure-logic firmware cases, written once and run twice: under CPython by pytest
# (test_logic.py) and under the MicroPython unix port (mp_runner.py, driven by pytest).
# So: plain asserts, no pytest, no typing, nothing CPython-only. Names cite the rule
# clauses they check (T11 bounce-out, T13 straddling = blocked).

import json

from firmware import config, protocol
from firmware.clock import TICKS_PERIOD, ticks_add, ticks_diff, wrap
from firmware.edges import EdgeCounter, EdgeRing, pin_handler
from firmware.links import MqttLink, SerialLink
from firmware.loadcell import Hx711, LoadCell
from firmware.node import Node
from firmware.outbox import JOURNAL_MAX, MemoryJournal, MemoryStorage, Outbox, boot_id, next_boot

PINMAP_PATH = "hardware/pinmap.json"

TWO_HOLES = {
    "board": "B1",
    "port": "unix",
    "holes": [
        {"name": "big", "beams": [2, 3], "emitter": 4},
        {"name": "small", "beams": [5], "emitter": 6},
    ],
    "buttons": [{"name": "line", "pin": 7}],
}
A, B, S, BUTTON = 0, 1, 2, 3  # channels: big A, big B, small, the button


class FakeLink:
    """A link that records what it sends; `up` can be switched."""

    name = "fake"

    def __init__(self, up=True):
        self.up = up
        self.sent = []
        self.healths = 0
        self.last_health = None
        self.node = None

    def attach(self, node):
        self.node = node
        if self.up:
            node.link_up(self)

    def is_up(self):
        return self.up

    def send(self, msg):
        if not self.up:
            return False
        if msg["type"] == "health":  # counted, not kept: hours of fake time make thousands
            self.healths += 1
            self.last_health = msg
        else:
            self.sent.append(msg)
        return True

    def service(self, now):
        pass

    def set_up(self, up):
        self.up = up
        if up:
            self.node.link_up(self)

    def events(self):
        return self.sent


class Rig:
    """A node on simulated pins and a simulated clock (1 ms steps).

    `wired` models the emitter wiring: with a hole's emitter off its receivers see dark.
    """

    def __init__(self, cfg=None, start_us=0, wired=True, storage=None, thresholds=None, journal=None,
                 random16=None, weigh=None, cell=None, cell_storage=None):
        cfg = dict(TWO_HOLES if cfg is None else cfg)
        if thresholds:
            cfg["thresholds"] = thresholds
        self.cfg = config.load(cfg)
        self.now = start_us
        self.blocked = {}  # channel -> beam interrupted by a palet
        self.emitter_on = {}
        self.wired = wired
        self.node = Node(self.cfg, self.clock, self.read_beam, self.set_emitter,
                         storage if storage is not None else MemoryStorage(),
                         lambda: 12345, journal=journal, random16=random16, weigh=weigh, cell=cell,
                         cell_storage=cell_storage)
        self.node.keep_events = True
        self.link = FakeLink()
        self.node.add_link(self.link)
        self.node.start()
        self.run(100)  # let the boot self-test finish

    def clock(self):
        return self.now

    def read_beam(self, ch):
        if self.wired and ch < 3:
            hole = "big" if ch < 2 else "small"
            if not self.emitter_on.get(hole, True):
                return True
        return self.blocked.get(ch, False)

    def set_emitter(self, hole, on):
        self.emitter_on[hole] = on

    def run(self, ms, step_us=1000):
        left = ms * 1000  # counted down, not an end time: runs may exceed the ticks horizon
        while left > 0:
            step = step_us if step_us < left else left
            left -= step
            self.now = ticks_add(self.now, step)
            self.node.poll()

    def edge(self, ch, closed, after_us=0):
        """An edge `after_us` from now (the IRQ stamps it; the loop sees it next poll)."""
        t = ticks_add(self.now, after_us)
        self.blocked[ch] = closed
        self.node.edge(ch, closed, t)
        return t

    def pulse(self, ch, width_us):
        t = self.edge(ch, True)
        self.edge(ch, False, width_us)
        return t

    def kinds(self, skip=("hello",)):
        return [(e["type"], e.get("hole")) for e in self.node.events if e["type"] not in skip]


# -- classifier ---------------------------------------------------------------------------
def case_two_beams_a_then_b_is_a_drop_stamped_at_the_leading_edge():
    rig = Rig()
    t0 = rig.edge(A, True)
    rig.run(12)
    rig.edge(B, True)
    rig.run(8)
    rig.edge(A, False)
    rig.run(10)
    rig.edge(B, False)
    rig.run(500)
    assert rig.kinds() == [("drop", "big")], rig.kinds()
    assert rig.node.events[-1]["t_us"] == t0


def case_2ms_pulses_are_caught_between_polls():
    rig = Rig()
    # a lob: each beam interrupted for 2 ms, both inside one 5 ms poll gap
    t0 = rig.edge(A, True, 100)
    rig.edge(A, False, 2100)
    rig.edge(B, True, 2600)
    rig.edge(B, False, 4600)
    rig.run(500, step_us=5000)
    assert rig.kinds() == [("drop", "big")], rig.kinds()
    assert rig.node.events[-1]["t_us"] == t0
    rig.pulse(S, 2000)
    rig.run(100)
    assert rig.kinds()[-1] == ("drop", "small")


def case_T11_a_without_b_is_a_bounce():
    rig = Rig()
    rig.pulse(A, 20000)
    rig.run(600)
    assert rig.kinds() == [("bounce", "big")], rig.kinds()


def case_T11_b_then_a_is_a_bounce():
    rig = Rig()
    # palet went down past both beams, then jumped back out: A B ... B A
    rig.pulse(A, 10000)
    rig.run(15)
    rig.pulse(B, 10000)
    rig.run(60)
    rig.pulse(B, 10000)
    rig.run(15)
    rig.pulse(A, 10000)
    rig.run(600)
    assert rig.kinds() == [("bounce", "big")], rig.kinds()


def case_b_alone_counts_as_a_drop_and_is_counted_as_a_missed():
    rig = Rig()
    rig.pulse(B, 15000)
    rig.run(600)
    assert rig.kinds() == [("drop", "big")]
    assert rig.node.health_message(rig.now)["counters"]["a_missed"] == 1


def case_settle_lockout_merges_chatter_into_one_passage():
    rig = Rig()
    t0 = rig.edge(A, True)
    for k in range(5):  # the palet rattles on the lip: 5 short re-openings within 30 ms
        rig.edge(A, False, 2000 + k * 5000)
        rig.edge(A, True, 4000 + k * 5000)
    rig.run(40)
    rig.edge(A, False)
    rig.run(5)
    rig.pulse(B, 8000)
    rig.run(600)
    assert rig.kinds() == [("drop", "big")], rig.kinds()
    assert rig.node.events[-1]["t_us"] == t0


def case_two_palets_in_one_hole_are_two_drops():
    rig = Rig()
    for _ in range(2):
        rig.pulse(A, 10000)
        rig.run(15)
        rig.pulse(B, 10000)
        rig.run(500)
    assert rig.kinds() == [("drop", "big"), ("drop", "big")]


def case_a_stalled_loop_decides_the_edges_as_if_it_had_run_between_them():
    # Every edge is stamped by the interrupt, then the loop stalls (a flash write, an
    # update's signature check: ~2 s) and drains them all in one pass.
    rig = Rig()
    t0 = rig.edge(A, True)  # two palets in the big hole, 500 ms apart
    rig.edge(B, True, 12000)
    rig.edge(A, False, 20000)
    rig.edge(B, False, 30000)
    t1 = rig.edge(A, True, 500000)
    rig.edge(B, True, 512000)
    rig.edge(A, False, 520000)
    rig.edge(B, False, 530000)
    t2 = rig.edge(S, True, 600000)  # a palet in the small hole, then one held there 80 ms later
    rig.edge(S, False, 610000)
    t3 = rig.edge(S, True, 690000)
    rig.edge(S, False, 2400000)
    rig.run(2800, step_us=2800000)  # one loop pass after it all
    got = [(e["type"], e.get("hole"), e["t_us"]) for e in rig.node.events if e["type"] != "hello"]
    # (in time order per hole: the big hole's second drop is decided once it is quiet 300 ms)
    assert [x for x in got if x[1] == "big"] == [("drop", "big", t0), ("drop", "big", t1)], got
    assert [x for x in got if x[1] == "small"] == [("drop", "small", t2), ("blocked", "small", t3),
                                                   ("cleared", "small", ticks_add(t3, 1710000))], got


def case_T13_held_beam_is_blocked_once_then_cleared():
    rig = Rig()
    t0 = rig.edge(A, True)
    rig.run(10)
    rig.edge(B, True)  # palet straddles: both beams held
    rig.run(2000)
    assert rig.kinds() == [("blocked", "big")], rig.kinds()
    assert rig.node.events[-1]["t_us"] == t0
    assert rig.node.health_message(rig.now)["beams"]["big"] == "blocked"
    rig.edge(A, False)
    rig.edge(B, False, 3000)
    rig.run(600)
    assert rig.kinds() == [("blocked", "big"), ("cleared", "big")], rig.kinds()
    assert rig.node.health_message(rig.now)["beams"]["big"] == "open"


def case_T13_single_beam_held_is_blocked_not_a_drop():
    rig = Rig()
    rig.edge(S, True)
    rig.run(1600)
    rig.edge(S, False)
    rig.run(100)
    assert rig.kinds() == [("blocked", "small"), ("cleared", "small")], rig.kinds()


def case_thresholds_come_from_one_dict_with_defaults():
    th = config.thresholds({"stuck_ms": 200})
    assert th["stuck_ms"] == 200 and th["settle_ms"] == config.DEFAULTS["settle_ms"]
    rig = Rig(thresholds={"stuck_ms": 200})
    rig.edge(S, True)
    rig.run(250)
    assert rig.kinds() == [("blocked", "small")]
    try:
        config.thresholds({"stuk_ms": 1})
        raise AssertionError("unknown threshold accepted")
    except config.ConfigError:
        pass


def case_passage_across_the_ticks_wrap():
    rig = Rig(start_us=TICKS_PERIOD - 300000)  # wraps 200 ms after the boot self-test
    t0 = rig.edge(A, True)
    rig.run(150)
    rig.edge(B, True)
    rig.run(100)  # crosses the wrap with both beams closed
    rig.edge(A, False)
    rig.edge(B, False, 5000)
    rig.run(600)
    assert rig.kinds() == [("drop", "big")], rig.kinds()
    assert rig.node.events[-1]["t_us"] == t0
    assert ticks_diff(5, TICKS_PERIOD - 5) == 10 and wrap(TICKS_PERIOD + 7) == 7


def case_button_press_after_ten_minutes_idle_still_counts():
    # ticks_diff only spans +-2**29 us (537 s): a press compared with one 540 s old
    # looked like it came before it, and every later press was ignored.
    rig = Rig()
    rig.node.receive(protocol.ack(rig.node.boot, 1))
    for idle_s in (0, 540, 600, 3 * 3600):
        # a fast fake clock: 1 s polls while idle (what is checked is the press compared
        # with one > 537 s old, not the poll rate; a finer step only costs MicroPython time)
        rig.run(idle_s * 1000, step_us=1000000)
        rig.pulse(BUTTON, 80000)
        rig.run(100)
    assert rig.kinds() == [("button", None)] * 4, rig.kinds()


def case_long_health_and_selftest_periods_fire_after_hours():
    # health_every_s and selftest_every_s >= 537 s never fired with wrapped ticks.
    rig = Rig(thresholds={"health_every_s": 600, "selftest_every_s": 900})
    rig.node.receive(protocol.ack(rig.node.boot, 1))
    sent = rig.link.healths
    tests = rig.node.counters["selftests"]
    # 3 h of idle board, polled every second (what is checked is the periods across the
    # ticks' wraps, not the poll rate), the last 2 s every 200 ms: the self-test started
    # at 3 h takes two polls to count, and a board polls every 2 ms
    rig.run(3 * 3600 * 1000 - 1000, step_us=1000000)
    rig.run(2000, step_us=200000)
    healths = rig.link.healths - sent
    assert healths == 18, healths
    assert rig.node.counters["selftests"] - tests == 2 * 12, rig.node.counters["selftests"]
    assert rig.node.uptime_ms // 1000 == 3 * 3600 + 1, rig.node.uptime_ms  # + boot and the last second


def case_drop_after_hours_idle_across_many_wraps():
    # no periodic self-test: with 1 s fake polls it would blind the hole for 2 s
    rig = Rig(start_us=TICKS_PERIOD - 1000000, thresholds={"selftest_every_s": 0})
    rig.node.receive(protocol.ack(rig.node.boot, 1))
    rig.run(5 * 3600 * 1000, step_us=1000000)  # 5 h: the ticks wrapped 16 times
    t0 = rig.edge(A, True)
    rig.run(12)
    rig.edge(B, True)
    rig.run(8)
    rig.edge(A, False)
    rig.edge(B, False, 6000)
    rig.run(500)
    assert rig.kinds() == [("drop", "big")], rig.kinds()
    assert rig.node.events[-1]["t_us"] == t0


def case_button_press_is_an_event():
    rig = Rig()
    rig.pulse(BUTTON, 80000)
    rig.run(100)
    assert rig.kinds() == [("button", None)]
    assert rig.node.events[-1]["button"] == "line"


# -- edges -------------------------------------------------------------------------------
def case_edge_ring_keeps_order_and_counts_overflow():
    ring = EdgeRing(4)  # holds 3
    for i in range(5):
        ring.push(i, i & 1, 1000 + i)
    assert ring.overflow == 2 and ring.pending() == 3
    assert ring.pop() == (0, False, 1000)
    ring.push(9, 1, 2000)
    assert [ring.pop() for _ in range(4)] == [(1, True, 1001), (2, False, 1002), (9, True, 2000), None]


def case_pin_handler_reads_level_and_time():
    class Pin:
        level = 1

        def value(self):
            return self.level

    ring = EdgeRing(8)
    handler = pin_handler(ring, 3, 0, lambda: 777)
    pin = Pin()
    pin.level = 0
    handler(pin)
    pin.level = 1
    handler(pin)
    assert ring.pop() == (3, True, 777) and ring.pop() == (3, False, 777)


def case_edge_counter_rebuilds_every_edge_from_a_count():
    ring = EdgeRing(16)
    counter = EdgeCounter(ring, 1, False, 31990, 32000)
    assert counter.update(31990, 5) == 0
    assert counter.update(2, 10) == 12  # wrapped past the PCNT max
    edges = []
    while True:
        e = ring.pop()
        if e is None:
            break
        edges.append(e[1])
    assert edges == [True, False] * 6 and counter.closed == 0


# -- outbox ------------------------------------------------------------------------------
def case_boot_counter_persists_through_storage():
    store = MemoryStorage("41")
    assert next_boot(store) == (42, None) and store.text == "42"
    assert next_boot(MemoryStorage()) == (1, None)
    boot, error = next_boot(MemoryStorage("garbage"))
    assert boot == 1 and "unreadable" in error

    def broken(text=None):
        raise OSError("flash full")

    boot, error = next_boot(broken)
    assert error is not None


def case_boot_id_is_counter_and_random_bits_so_an_erased_flash_does_not_repeat_it():
    store = MemoryStorage("41")
    assert next_boot(store, lambda: 0xBEEF) == ((42 << 16) | 0xBEEF, None) and store.text == "42"
    first, _ = next_boot(MemoryStorage(), lambda: 0x1234)  # erased flash: counter 1 again
    second, _ = next_boot(MemoryStorage(), lambda: 0x9876)  # and again, or a spare board
    assert first != second and first >> 16 == second >> 16 == 1
    assert boot_id(0x7FFF, 0xFFFF) <= protocol.MAX_COUNT
    assert next_boot(MemoryStorage(str(0x7FFF)), lambda: 1)[0] == boot_id(1, 1)  # wraps, stays in range


def case_unacked_events_survive_a_reset_through_the_journal():
    journal = MemoryJournal()
    store = MemoryStorage()
    first = Rig(storage=store, journal=journal)
    for _ in range(3):
        first.pulse(S, 5000)
        first.run(60)
    first.node.receive(protocol.ack(first.node.boot, 2))  # the hub stored hello and one drop
    first.run(700)  # quiet: the journal is written now, with what is still unacknowledged
    assert [protocol.decode_payload(x)[0]["seq"] for x in journal.lines] == [3, 4]  # acked: never written
    old = first.node.boot
    second = Rig(storage=store, journal=journal)  # reset: a new boot on the same flash
    sent = [(m["boot"], m["seq"], m["type"]) for m in second.link.events()]
    assert sent[:2] == [(old, 3, "drop"), (old, 4, "drop")], sent  # the old ones first, as they were
    assert sent[2] == (second.node.boot, 1, "hello") and second.node.outbox.restored == 2
    second.node.receive(protocol.ack(old, 4))
    second.node.receive(protocol.ack(second.node.boot, 1))
    second.run(700)
    assert second.node.outbox.unacked() == 0 and journal.lines[-1] == "A " + str(old) + " 4"
    third = Rig(storage=store, journal=journal)
    assert [m["boot"] for m in third.link.events()] == [third.node.boot]  # nothing old is left


def case_journal_waits_for_quiet_holes_and_skips_what_the_hub_took():
    journal = MemoryJournal()
    rig = Rig(journal=journal)
    rig.node.receive(protocol.ack(rig.node.boot, 1))
    writes = journal.writes
    for _ in range(5):  # a healthy link: each drop acknowledged at once
        rig.pulse(S, 5000)
        rig.run(60)
        rig.node.receive(protocol.ack(rig.node.boot, rig.node.outbox.seq))
    rig.run(2000)
    assert journal.writes == writes  # no flash write at all
    rig.pulse(S, 5000)  # the hub does not answer this one
    rig.run(300)
    assert journal.writes == writes  # not while the hole may still see a knock-in
    rig.run(400)
    assert journal.writes == writes + 1 and len(journal.lines) == 1


def case_journal_skips_a_line_cut_by_the_reset_and_compacts():
    box = Outbox("B1", 5, 64, MemoryJournal())
    for i in range(3):
        box.add("drop", i, {"hole": "big"})
    box.flush()
    box.journal.lines[-1] = box.journal.lines[-1][:20]  # power lost mid-write
    again = Outbox("B1", 6, 64, box.journal)
    assert again.restore() == 2 and [m["seq"] for m in again.items] == [1, 2]
    box.ack(5, 3)
    n = 0
    while box.journal.size <= JOURNAL_MAX:  # events the hub is slow to take, then their acks
        box.add("drop", n, {"hole": "big"})
        box.flush()
        box.ack(5, box.seq)
        box.flush()
        n += 1
    last = box.add("drop", 0, {"hole": "big"})
    box.flush()  # past one erase block: rewritten with what is unacknowledged
    assert box.journal.lines == [protocol.encode_payload(last).decode()]


def case_newboot_moves_unacked_events_to_a_fresh_boot_id():
    bits = [0x1111, 0x2222]
    rig = Rig(random16=lambda: bits.pop(0))
    rig.pulse(S, 5000)
    rig.run(60)
    old = rig.node.boot
    rig.node.receive(protocol.command(old, "newboot"))  # the hub saw `old` before
    rig.run(5)
    new = rig.node.boot
    assert new != old and new & 0xFFFF == 0x2222
    resent = [(m["type"], m["seq"]) for m in rig.link.events() if m["boot"] == new]
    assert resent == [("hello", 1), ("drop", 2)], resent
    assert rig.node.outbox.ack(new, 2) and rig.node.outbox.unacked() == 0


def case_seq_restarts_each_boot_and_hello_comes_first():
    store = MemoryStorage("6")
    first = Rig(storage=store)
    second = Rig(storage=store)
    assert first.node.boot == 7 and second.node.boot == 8
    hello = second.node.events[0]
    assert hello["type"] == "hello" and hello["seq"] == 1 and hello["boot"] == 8
    assert hello["holes"] == ["big", "small"] and len(hello["config"]) == 8
    assert protocol.validate(hello) is None


def case_cumulative_acks_free_the_ring():
    box = Outbox("B1", 3, 10)
    for i in range(5):
        box.add("drop", i, {"hole": "big"})
    assert not box.ack(2, 4)  # another boot: ignored
    assert box.ack(3, 3) and box.oldest() == 4
    assert not box.ack(3, 2)  # older than what we have: nothing new
    assert box.ack(3, 99) and box.unacked() == 0 and box.acked == 5


def case_ring_overflow_drops_oldest_and_is_reported_in_health():
    rig = Rig(thresholds={"outbox_size": 4})
    rig.link.set_up(False)
    for _ in range(6):
        rig.pulse(S, 5000)
        rig.run(60)
    health = rig.node.health_message(rig.now)
    assert health["overflow"] >= 2 and protocol.validate(health) is None
    assert [m["seq"] for m in rig.node.outbox.items] == [4, 5, 6, 7]


def case_unacked_events_are_resent_after_reconnect_in_order():
    rig = Rig()
    rig.node.receive(protocol.ack(rig.node.boot, 1))  # hub stored the hello
    rig.pulse(S, 5000)
    rig.run(50)
    rig.link.set_up(False)
    rig.pulse(S, 5000)
    rig.run(50)
    rig.pulse(S, 5000)
    rig.run(50)
    assert [m["seq"] for m in rig.link.events()] == [1, 2]
    rig.link.set_up(True)
    rig.run(5)
    assert [m["seq"] for m in rig.link.events()] == [1, 2, 2, 3, 4]
    rig.node.receive(protocol.ack(rig.node.boot, 4))
    rig.run(5000)
    assert [m["seq"] for m in rig.link.events()] == [1, 2, 2, 3, 4]  # acked: no more resends


def case_resend_command_resends_everything_unacked_at_once_and_health_says_what_is_held():
    rig = Rig(thresholds={"resend_ms": 100})
    rig.pulse(S, 5000)
    rig.run(60)
    rig.node.receive(protocol.ack(rig.node.boot, 1))
    health = rig.node.health_message(rig.now)
    assert (health["counters"]["oldest_boot"], health["counters"]["oldest_seq"]) == (rig.node.boot, 2)
    rig.run(3000)  # backed off: resends are seconds apart now
    before = len(rig.link.events())
    rig.node.receive(protocol.command(rig.node.boot, "resend"))
    rig.run(2)
    assert len(rig.link.events()) == before + 1 and rig.link.events()[-1]["seq"] == 2
    rig.node.receive(protocol.ack(rig.node.boot, 2))
    assert "oldest_seq" not in rig.node.health_message(rig.now)["counters"]


def case_no_ack_means_resend_with_backoff():
    rig = Rig(thresholds={"resend_ms": 100})
    rig.run(1000)
    hellos = [m for m in rig.link.events() if m["seq"] == 1]
    assert 3 <= len(hellos) <= 6, len(hellos)  # 100, 200, 400 ms... not every poll
    assert rig.node.counters["resends"] == len(hellos) - 1


# -- self-test and health ----------------------------------------------------------------
def case_emitter_selftest_passes_without_events():
    rig = Rig()
    assert rig.kinds() == [], rig.kinds()
    assert rig.node.counters["selftests"] == 2


def case_a_selftest_that_passes_after_a_failure_clears_the_fault():
    rig = Rig(wired=False)  # the emitters do not reach the receivers: both holes fail
    rig.wired = True  # realigned
    rig.node.receive(protocol.command(rig.node.boot, "selftest"))
    rig.run(100)
    assert sorted(e["hole"] for e in rig.node.events if e["type"] == "cleared") == ["big", "small"]
    rig.node.receive(protocol.command(rig.node.boot, "selftest"))
    rig.run(100)
    assert len([e for e in rig.node.events if e["type"] == "cleared"]) == 2  # once


def case_emitter_selftest_failure_is_a_fault_event():
    rig = Rig(wired=False)  # receivers never go dark: emitter dead or beam misaligned
    faults = [e for e in rig.node.events if e["type"] == "fault"]
    assert sorted(e["hole"] for e in faults) == ["big", "small"]
    assert "still sees light" in faults[0]["reason"]
    assert rig.node.health_message(rig.now)["beams"]["big"] == "fault"


def case_selftest_command_runs_again_and_ignores_its_own_edges():
    rig = Rig()
    rig.node.receive(protocol.command(rig.node.boot, "selftest"))
    rig.run(100)
    assert rig.node.counters["selftests"] == 4 and rig.kinds() == []


def case_palet_arriving_during_the_selftest_is_still_counted():
    rig = Rig()
    rig.node.start_selftest()
    rig.run(5)
    rig.edge(A, True)  # dark anyway: the emitter is off
    rig.run(10)
    rig.edge(B, True)
    rig.run(30)  # the emitter is on again: B is still interrupted by the palet
    rig.edge(A, False)
    rig.edge(B, False, 10000)
    rig.run(600)
    assert rig.kinds() == [("drop", "big")], rig.kinds()


def case_dead_beam_b_raises_a_fault_after_a_run_of_a_only_passages():
    # Beam B unplugged reads "clear" for ever: every real drop looks like a bounce (T11).
    rig = Rig()
    for _ in range(5):
        rig.pulse(A, 20000)
        rig.run(400)
    faults = [e for e in rig.node.events if e["type"] == "fault"]
    assert len(faults) == 1 and faults[0]["hole"] == "big", rig.kinds()
    assert faults[0]["reason"] == "beam B dead: 5 passages in a row saw only beam A"
    assert protocol.validate(faults[0]) is None
    assert rig.node.health_message(rig.now)["beams"]["big"] == "fault"
    rig.pulse(A, 20000)
    rig.run(400)
    assert len([e for e in rig.node.events if e["type"] == "fault"]) == 1  # not every passage
    t = rig.edge(A, True)  # fixed: a passage sees both beams again
    rig.run(12)
    rig.edge(B, True, 0)
    rig.run(20)
    rig.edge(A, False)
    rig.edge(B, False, 5000)
    rig.run(400)
    assert [(e["type"], e["hole"]) for e in rig.node.events[-2:]] == [("drop", "big"), ("cleared", "big")]
    assert rig.node.events[-2]["t_us"] == t
    assert rig.node.health_message(rig.now)["beams"]["big"] == "open"


def case_a_few_bounces_are_not_a_dead_beam():
    rig = Rig()
    for _ in range(4):
        rig.pulse(A, 20000)
        rig.run(400)
    assert "fault" not in [k for k, _ in rig.kinds()], rig.kinds()


# -- throw gate (issue 28) -------------------------------------------------------------------
WITH_LINE = dict(TWO_HOLES, line={"name": "L1", "near": 8, "far": 9, "emitter": 10})
NEAR, FAR = 4, 5  # channels after the beams (0-2) and the button (3)


class LineRig(Rig):
    """A Rig whose board also carries a throw gate; `dead` receivers read clear for ever."""

    def __init__(self, **kw):
        self.dead = set()
        Rig.__init__(self, cfg=WITH_LINE, **kw)

    def read_beam(self, ch):
        if ch in self.dead:
            return False  # unplugged: the pull-up reads "clear"
        if self.wired and ch in (NEAR, FAR) and not self.emitter_on.get("L1", True):
            return True
        return Rig.read_beam(self, ch)

    def cross(self, steps):
        """[(us after the previous step, channel, closed)], then time to decide."""
        t0 = None
        for after, ch, closed in steps:
            t = self.edge(ch, closed, after)
            self.now = t
            t0 = t if t0 is None else t0
        self.run(100)
        return t0

    def throws(self):
        return [e for e in self.node.events if e["type"] == "throw"]


def palet_crossing(lag_us=12000, near_us=9000, far_us=9000):
    """A palet at ~4 m/s: 50 mm from plane to plane in 12 ms, each closed ~9 ms."""
    return [(0, NEAR, True), (near_us, NEAR, False), (lag_us - near_us, FAR, True), (far_us, FAR, False)]


def case_throw_gate_palet_near_then_far_is_a_throw_at_the_near_leading_edge():
    rig = LineRig()
    assert rig.node.events[0]["lanes"] == ["L1"], rig.node.events[0]
    t0 = rig.cross(palet_crossing())
    (throw,) = rig.throws()
    assert throw["lane"] == "L1" and throw["t_us"] == t0, throw
    assert protocol.validate(throw) is None
    assert rig.node.counters["throws"] == 1
    assert rig.node.health_message(rig.now)["beams"]["L1"] == "open"


def case_throw_gate_long_palet_overlapping_both_planes_is_a_throw():
    rig = LineRig()  # 60 mm edge-on at 3 m/s: still in the near plane when it reaches the far
    rig.cross([(0, NEAR, True), (16000, FAR, True), (5000, NEAR, False), (16000, FAR, False)])
    assert len(rig.throws()) == 1, rig.kinds()


def case_throw_gate_arm_through_the_gate_is_not_a_throw():
    rig = LineRig()  # a hand at full reach: in the planes for 200 ms
    rig.cross([(0, NEAR, True), (25000, FAR, True), (200000, FAR, False), (10000, NEAR, False)])
    assert rig.throws() == [] and rig.node.counters["line_long"] + rig.node.counters["line_inward"] == 1


def case_throw_gate_slow_crossing_is_not_a_throw():
    rig = LineRig()  # 50 mm in 45 ms: 1.1 m/s, a hand or a walker, not a thrown palet
    rig.cross(palet_crossing(lag_us=45000, near_us=20000, far_us=20000))
    assert rig.throws() == [] and rig.node.counters["line_speed"] == 1, rig.node.counters


def case_throw_gate_inward_crossing_is_not_a_throw():
    rig = LineRig()  # a rebound coming back from the board: far plane first
    rig.cross([(0, FAR, True), (9000, FAR, False), (3000, NEAR, True), (9000, NEAR, False)])
    assert rig.throws() == [] and rig.node.counters["line_inward"] == 1


def case_throw_gate_one_plane_only_is_not_a_throw():
    rig = LineRig()
    rig.cross([(0, NEAR, True), (9000, NEAR, False)])
    assert rig.throws() == [] and rig.node.counters["line_one_plane"] == 1


def case_throw_gate_two_palets_far_apart_are_two_throws():
    rig = LineRig()
    rig.cross(palet_crossing())
    rig.run(500)
    rig.cross(palet_crossing())
    assert len(rig.throws()) == 2


def case_throw_gate_two_palets_drained_in_one_stalled_pass_are_two_throws():
    rig = LineRig()
    for after, ch, closed in palet_crossing() + [(200000, NEAR, True)] + palet_crossing()[1:]:
        rig.now = rig.edge(ch, closed, after)  # stamped by the interrupt; the loop does not run
    rig.run(100, step_us=100000)
    assert len(rig.throws()) == 2, rig.kinds()


def case_throw_gate_someone_standing_in_it_is_one_fault_then_cleared():
    rig = LineRig()
    rig.edge(NEAR, True)
    rig.run(2000)
    rig.edge(NEAR, False)
    rig.run(200)
    kinds = rig.kinds()
    assert kinds == [("fault", "L1"), ("cleared", "L1")], kinds
    assert rig.throws() == []


def case_throw_gate_selftest_names_the_dead_plane():
    rig = LineRig()
    rig.dead.add(FAR)
    rig.node.receive(protocol.command(rig.node.boot, "selftest"))
    rig.run(100)
    faults = [e for e in rig.node.events if e["type"] == "fault" and e.get("hole") == "L1"]
    assert [f["reason"] for f in faults] == ["emitter off but beam F still sees light"], rig.kinds()
    assert rig.node.health_message(rig.now)["beams"]["L1"] == "fault"


def case_protocol_throw_event_is_strict():
    good = {"type": "throw", "board": "B1", "boot": 1, "seq": 2, "t_us": 5, "lane": "L1"}
    assert protocol.validate(good) is None
    assert protocol.validate(dict(good, lane="L/1")) == "throw: bad lane"
    assert protocol.validate(dict(good, hole="big")) == "throw: unknown field"
    assert protocol.validate({k: v for k, v in good.items() if k != "lane"}) == "throw: bad lane"
    hello = {"type": "hello", "board": "B1", "boot": 1, "seq": 1, "t_us": 0, "fw": "1", "config": "c",
             "holes": ["big"]}
    assert protocol.validate(dict(hello, lanes=["L1"], loadcell=True)) is None
    assert protocol.validate(dict(hello, lanes="L1")) == "hello: bad lanes"
    assert protocol.validate(dict(hello, loadcell=1)) == "hello: bad loadcell"


def case_config_line_is_checked():
    errors = config.validate(dict(TWO_HOLES, line={"name": "big", "near": 2, "far": 9}))
    assert any("also a hole name" in e for e in errors) and any("GPIO 2 already used" in e for e in errors), errors
    assert config.validate(dict(TWO_HOLES, line={"name": "L1", "near": 8})) != []
    assert config.validate(WITH_LINE) == []


# -- a dead beam B (issue 24 item 9) ------------------------------------------------------------
def case_dead_beam_b_costs_one_passage_then_beam_a_alone_decides():
    rig = LineRig()
    rig.dead.add(B)  # unplugged: every real drop now passes beam A alone
    rig.pulse(A, 20000)
    rig.run(400)  # the passage is decided (a bounce), the hole's self-test runs at once
    kinds = rig.kinds()
    assert kinds == [("bounce", "big"), ("fault", "big")], kinds
    fault = rig.node.events[-1]
    assert fault["reason"] == "beam B failed its self-test: beam A alone decides", fault
    assert rig.node.health_message(rig.now)["beams"]["big"] == "fault"
    t = rig.pulse(A, 20000)  # the next palet: beam A alone decides, a drop
    rig.run(400)
    assert rig.kinds()[-1] == ("drop", "big") and rig.node.events[-1]["t_us"] == t, rig.kinds()
    rig.node.receive(protocol.command(rig.node.boot, "selftest"))  # the hub's, after a throw
    rig.run(100)
    assert len([k for k in rig.kinds() if k[0] == "fault"]) == 1, rig.kinds()  # told once
    rig.dead.discard(B)  # plugged back in
    rig.node.receive(protocol.command(rig.node.boot, "selftest"))
    rig.run(100)
    assert rig.kinds()[-1] == ("cleared", "big"), rig.kinds()
    rig.pulse(A, 20000)  # two beams again: A alone is a bounce-out (T11)
    rig.run(400)
    assert rig.kinds()[-2:] == [("bounce", "big")] or rig.kinds()[-1] == ("bounce", "big"), rig.kinds()


class FakeHx711Chip:
    """The HX711's side of its two wires: DOUT goes low when a conversion is ready; each
    SCK rising edge shifts the next bit out (MSB first); after 24 bits DOUT goes high
    again, and the extra pulses pick the gain of the next conversion."""

    def __init__(self):
        self.value = 0
        self.level = 1  # DOUT
        self.clock = 0  # SCK
        self.pulses = 0
        self.gain_pulses = None

    def convert(self, raw):
        if self.pulses:  # the previous read ended: remember how many gain pulses it gave
            self.gain_pulses = self.pulses - 24
        self.value = raw & 0xFFFFFF
        self.pulses = 0
        self.level = 0

    def sck(self, level):
        if level and not self.clock:
            self.pulses += 1
            self.level = (self.value >> (24 - self.pulses)) & 1 if self.pulses <= 24 else 1
        self.clock = level

    def dout(self):
        return self.level


def case_hx711_driver_reads_signed_24_bit_values_over_its_two_wires():
    chip = FakeHx711Chip()
    hx = Hx711(chip.sck, chip.dout)
    assert hx.read() is None  # no conversion ready: DOUT high, no clock pulse sent
    assert chip.pulses == 0
    for raw in (0x123456, -5, -0x800000, 0x7FFFFF):
        chip.convert(raw)
        assert hx.read() == raw
        assert hx.read() is None  # read once
    chip.convert(0)
    assert chip.gain_pulses == 1  # 25 pulses: channel A, gain 128


def case_load_cell_tare_waits_for_a_steady_board():
    cell = LoadCell(per_palet=1000, tare=0, samples=3)
    assert [cell.sample(r) for r in (2000, 2010, 1995)] == [None, None, 2]
    for r in (900, -700, 400):  # palets collected: the board still rocks
        cell.sample(r)
    cell.tare()  # the hub's cmd tare at the round start
    assert cell.tare_pending
    assert [cell.sample(r) for r in (10, 12, 11)] == [None, None, 0]
    assert cell.tare_raw == 11 and not cell.tare_pending
    assert [cell.sample(r) for r in (1011, 1013, 1010)] == [None, None, 1]
    cell.tare()  # steady, but one palet lies there (thrown before the round's start reached the board)
    assert cell.tare_raw == 11 and cell.problem == "load cell: tare refused, the board holds 1.0 palets"
    cell.problem = None
    assert [cell.sample(r) for r in (45, 47, 46)] == [None, None, 0]  # drifted by 35: fine
    cell.tare()
    assert cell.tare_raw == 46 and cell.problem is None


def case_load_cell_tare_calibrate_and_debounced_weight_events_R2():
    chip = FakeHx711Chip()
    hx = Hx711(chip.sck, chip.dout)
    saved = MemoryStorage()
    state = {"palets": 0, "wobble": 0, "n": 0}

    def weigh():  # the chip converts at 10 Hz; the node reads every loadcell_ms
        state["n"] += 1
        chip.convert(81234 + state["palets"] * 21500 + state["wobble"] + state["n"] * 37 % 90)  # + noise
        return hx.read()

    rig = Rig(weigh=weigh, cell=LoadCell(), cell_storage=saved)
    rig.run(1000)
    rig.node.receive(protocol.command(rig.node.boot, "tare"))  # start of a round, board empty
    rig.run(700)  # taken on the next steady readings
    state["palets"] = 1
    rig.run(1000)
    rig.node.receive(protocol.command(rig.node.boot, "calibrate"))  # one known palet on it
    assert saved.text is not None and rig.node.cell.per_palet > 20000
    rig.run(1000)
    state["palets"] = 2
    for wobble in (9000, -7000, 12000, -3000, 8000):  # landing: it slides and rocks
        state["wobble"] = wobble
        rig.run(100)
    state["wobble"] = 0
    rig.run(1000)
    weights = [e["board_palets"] for e in rig.node.events if e["type"] == "weight"]
    assert weights == [1, 2], weights  # once per change, never while it moves
    assert all(protocol.validate(e) is None for e in rig.node.events)
    again = LoadCell()
    assert again.load_settings(saved.text) and again.per_palet == rig.node.cell.per_palet


def case_health_message_is_valid_protocol():
    rig = Rig()
    rig.run(200)
    msg = rig.node.health_message(rig.now)
    assert protocol.validate(msg) is None, protocol.validate(msg)
    assert msg["mem_free"] == 12345 and msg["beams"] == {"big": "open", "small": "open"}
    rig.node.receive(protocol.command(rig.node.boot, "health"))
    assert rig.link.last_health["type"] == "health"


# -- serial link -------------------------------------------------------------------------
def case_serial_link_frames_lines_and_reads_acks():
    out = []
    cfg = config.load(TWO_HOLES)
    node = Node(cfg, lambda: 0, lambda ch: False)
    link = SerialLink(out.append)
    node.add_link(link)
    node.start()
    node.poll(1000)
    msg, reason = protocol.decode_line(out[0])
    assert reason is None and msg["type"] == "hello"
    line = protocol.encode_line(protocol.ack(node.boot, 1))
    link.feed(b"garbage\r\n" + line[:5])
    link.feed(line[5:])
    assert node.outbox.unacked() == 0 and link.bad == 1
    bad = bytearray(protocol.encode_line(protocol.ack(node.boot, 1)))
    bad[3] ^= 1
    link.feed(bytes(bad))
    assert link.bad == 2


def case_wifi_error_while_connecting_is_a_link_fault_not_a_crash():
    # ESP32: wlan.connect() while still connecting raises OSError("Wifi Internal Error").
    calls = []

    def network_up():
        calls.append(1)
        raise OSError("Wifi Internal Error")

    def make_client():
        raise AssertionError("no broker connection without Wi-Fi")

    rig = Rig()
    link = MqttLink("B1", make_client, 15, 100, network_up)
    rig.node.add_link(link)
    rig.run(1000)
    assert len(calls) >= 5 and link.errors == len(calls) and not link.is_up()
    assert "Wifi Internal Error" in link.last_error


def case_protocol_round_trip_and_checksum():
    msg = {"type": "drop", "board": "B1", "boot": 3, "seq": 7, "t_us": 123456, "hole": "big"}
    line = protocol.encode_line(msg)
    assert protocol.decode_line(line) == (msg, None)
    broken = bytearray(line)
    broken[12] ^= 0x04
    got, reason = protocol.decode_line(bytes(broken))
    assert got is None and reason
    for junk in (b"", b"$*00", b"$}{*00\r\n", b"\xff\xfe", b"$" + b"a" * 2000):
        assert protocol.decode_line(junk)[0] is None


# -- config ------------------------------------------------------------------------------
def _pinmap():
    with open(PINMAP_PATH) as f:
        return json.load(f)


def case_config_validation_names_every_problem():
    pinmap = _pinmap()
    good = {"board": "B1", "port": "rp2", "holes": [{"name": "big", "beams": [2, 3], "emitter": 4}],
            "links": ["serial"]}
    assert config.validate(good, pinmap, "rp2") == []
    bad = {"board": "B 1", "port": "rp2", "holes": [{"name": "big", "beams": [2, 23], "emitter": 2},
                                                    {"name": "big", "beams": []}],
           "links": ["mqtt"], "thresholds": {"nope": 1}}
    errors = config.validate(bad, pinmap, "rp2")
    text = "\n".join(errors)
    for needle in ("board:", "reserved", "already used", "duplicate", "beams must", "mqtt", "nope"):
        assert needle in text, (needle, text)
    assert "config is for rp2" in "\n".join(config.validate(good, pinmap, "esp32"))
    esp = {"board": "E1", "port": "esp32", "holes": [{"name": "h" + str(i), "beams": [p, q]}
                                                     for i, (p, q) in enumerate([(4, 5), (13, 14), (16, 17), (18, 19), (21, 22)])]}
    assert "at most 8" in "\n".join(config.validate(esp, pinmap, "esp32"))
    try:
        config.load(bad, pinmap, "rp2")
        raise AssertionError("bad config loaded")
    except config.ConfigError as err:
        assert "bad board config" in str(err)


def case_config_hash_is_stable():
    h1 = config.config_hash({"b": [1, 2], "a": {"y": True, "x": None}})
    h2 = config.config_hash({"a": {"x": None, "y": True}, "b": [1, 2]})
    assert h1 == h2 and len(h1) == 8


def case_identify_blinks_the_indicator_for_10_s_then_stops_dark():
    rig = Rig()
    seen = []
    rig.node.indicate = seen.append
    rig.node.receive({"type": "cmd", "boot": 0, "cmd": "identify"})
    rig.run(10_000)
    changes = [on for i, on in enumerate(seen) if i == 0 or seen[i - 1] != on]
    assert changes[0] is True and 30 <= len(changes) <= 42, len(changes)  # 250 ms on, 250 ms off
    rig.run(500)
    calls = len(seen)
    rig.run(2_000)
    assert seen[-1] is False and len(seen) == calls  # dark, and left alone


def case_rearm_forgets_a_dead_beam_and_tests_the_beams_again():
    rig = Rig()
    hole = rig.node.hole_by_name["big"]
    hole.a_alone, hole.suspect = True, "B"
    before = rig.node.counters["selftests"]
    rig.node.receive({"type": "cmd", "boot": 0, "cmd": "rearm"})
    assert not hole.a_alone and hole.suspect is None
    rig.run(200)
    assert rig.node.counters["selftests"] >= before + 2  # both holes tested again


def all_cases():
    names = sorted(n for n in globals() if n.startswith("case_"))
    return [(n, globals()[n]) for n in names]
