"""The firmware on an emulated Raspberry Pi Pico (RP2040, MicroPython's official rp2
image), deployed as scripts/deploy-board deploys it, talking over USB to the real hub
(``python -m hub hub --serial``). One board is booted for the module (tests/conftest.py keeps a chip module on one
xdist worker) and the tests run in order on it (its resets included): simulated time costs ~20x real time here.

Thresholds shortened in the board config (stuck, journal, watchdog) only so the scenarios
fit in a few simulated seconds; the classifier is the one the unix port runs."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware import protocol
from hub.sim.model import KNOCK_DELAY_MS, hole_edges
from tests.chaos.rig import HubProcess
from tests.hil.chip import Chip, HubLog

pytestmark = [pytest.mark.hil, pytest.mark.slow, pytest.mark.timeout(1500)]

BOARD = "H1"
STUCK_MS = 400
JOURNAL_AFTER_MS = 200
WATCHDOG_MS = 800
# The main loop's period, longer than the deployed 2 ms: each pass costs the emulated chip
# ~1.4 ms of work, so at 2 ms it is busy half the time and every simulated second costs ~20 s
# of host CPU; at 10 ms it sleeps (WFE, skipped by the emulator) ~88 % of the time and costs
# ~5 s. Nothing checked here depends on the period: edges are timestamped by the GPIO
# interrupts (the pulse test), and every threshold is >= 30 ms.
POLL_MS = 10
CFG: dict[str, Any] = {
    "board": BOARD, "port": "rp2",
    "holes": [{"name": "big", "beams": [2, 3], "emitter": 4}, {"name": "small", "beams": [6], "emitter": 8}],
    "links": ["serial"],
    "thresholds": {"resend_ms": 300, "selftest_every_s": 0, "stuck_ms": STUCK_MS, "poll_ms": POLL_MS,
                   "journal_after_ms": JOURNAL_AFTER_MS, "watchdog_ms": WATCHDOG_MS},
}
EVENTS = ("drop", "bounce", "blocked", "cleared")


class Rig:
    def __init__(self, chip: Chip, hub: HubProcess, log: HubLog) -> None:
        self.chip, self.hub, self.log = chip, hub, log

    def hellos(self) -> list[dict[str, Any]]:
        return self.log.device(BOARD, "hello")

    def stored(self, *kinds: str) -> list[dict[str, Any]]:
        return [m for m in self.log.device(BOARD) if m["type"] in kinds]

    def wait_stored(self, what: str, predicate: Any, sim_s: float = 4.0) -> Any:
        return self.chip.wait(predicate, sim_s, what)



# One chip per module, not per session (tests/conftest.py keeps the module on one worker):
# the emulator runs flat out on its own thread until it is closed, so a chip kept for the
# session took a core and the GIL from every later test on its worker, to the end of the run.
@pytest.fixture(scope="module")
def pico(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    work = tmp_path_factory.mktemp("pico")
    chip = Chip("pico", CFG, work / "chip")
    chip.boot()
    hub = HubProcess(work / "hub.db", [Path(chip.tty)], None, [], log=work / "hub.log")
    hub.args += ["--board", BOARD]  # a hub acknowledges only the boards it referees
    hub.start()
    rig = Rig(chip, hub, HubLog(work / "hub.db"))
    try:
        rig.wait_stored("a hello at the hub", rig.hellos)  # the loop runs: beams are watched
        # The hello leaves at boot, before the boot self-test (its blind spot) is over: the
        # scenarios start 1 s later. (The T11-T13 failures once blamed on that window came
        # from the classifier: a loop pass that stalled between the small hole's drop and its
        # held beam drained both in one batch, decided as one "blocked"; fixed in
        # firmware/beams.py, case_a_stalled_loop_decides_… in tests/firmware/cases.py.)
        chip.run_for(1_000_000)
        yield rig
    finally:
        hub.stop()
        chip.close()
        print(chip.text()[-3000:])


def test_the_board_boots_from_flash_and_its_hello_reaches_the_hub(pico: Rig) -> None:
    hello = pico.wait_stored("a hello at the hub", pico.hellos)[0]
    assert hello["holes"] == ["big", "small"] and "crash" not in hello, hello
    assert pico.chip.messages("hello")[0]["boot"] == hello["boot"]


def test_T11_T12_T13_drops_a_bounce_a_knock_in_and_a_blocked_beam_classified_as_on_the_unix_port(pico: Rig) -> None:
    rng = random.Random(27)
    before = len(pico.stored(*EVENTS))
    knock_us = int(rng.uniform(*KNOCK_DELAY_MS) * 1000)
    big = (hole_edges(rng, 0, passes=True) + hole_edges(rng, 450_000, passes=False)
           + hole_edges(rng, 1_100_000, passes=True))
    small_beam = [e for e in hole_edges(rng, 0, passes=True) if e[0] == 0]
    blocked = [(0, True, 100_000), (0, False, 100_000 + STUCK_MS * 1000 + 300_000)]
    knocked = [e for e in hole_edges(rng, 1_100_000 + knock_us, passes=True) if e[0] == 0]
    pico.chip.play("big", big)
    pico.chip.play("small", small_beam + blocked + knocked)

    def settled() -> list[dict[str, Any]] | None:
        got = pico.stored(*EVENTS)[before:]
        return got if len(got) >= 7 else None

    try:
        got = pico.wait_stored("7 events at the hub", settled)
    except AssertionError as err:
        sent = [m for m in pico.chip.messages() if m.get("type") in EVENTS]
        raise AssertionError(f"{err}\nstored since the test began: {pico.stored(*EVENTS)[before:]}\n"
                             f"the chip sent: {sent}") from None
    by_hole = {h: [m["type"] for m in got if m.get("hole") == h] for h in ("big", "small")}
    assert by_hole == {"big": ["drop", "bounce", "drop"], "small": ["drop", "blocked", "cleared", "drop"]}, got


def test_the_shortest_pulse_caught_is_far_below_the_2_ms_the_design_needs(pico: Rig) -> None:
    widths_us = [2000, 500, 100, 60, 40, 20, 5]
    before = len(pico.stored("drop"))
    edges = []
    for i, width in enumerate(widths_us):
        start = i * 40_000  # past settle_ms (30) each time
        edges += [(0, True, start), (0, False, start + width)]
    pico.chip.play("small", edges)
    pico.chip.run_for(len(widths_us) * 40_000 + 60_000)
    caught = len(pico.stored("drop")) - before
    # Each pulse caught is one drop, in order: the first `caught` widths were seen.
    assert caught >= 1 and widths_us[caught - 1] <= 100, (caught, pico.stored("drop")[before:])
    print(f"shortest pulse caught: {widths_us[caught - 1]} us; missed: {widths_us[caught:]}")


def test_the_self_test_finds_a_dead_beam(pico: Rig) -> None:
    before = len(pico.stored("fault"))
    boot = pico.hellos()[-1]["boot"]
    pico.chip.kill_beam("big", 1)
    pico.chip.type_in(protocol.encode_line(protocol.command(boot, "selftest")))
    faults = pico.wait_stored("a fault", lambda: pico.stored("fault")[before:], 1)
    assert faults[0]["hole"] == "big" and "beam B" in faults[0]["reason"], faults
    pico.chip.revive_beam("big", 1)


def test_the_outbox_journal_on_flash_survives_a_reset_nothing_lost_nothing_doubled(pico: Rig) -> None:
    chip = pico.chip
    old_boot = pico.hellos()[-1]["boot"]
    drops_before = pico.stored("drop")
    chip.unplug()  # the hub hears nothing and acknowledges nothing from here on
    rng = random.Random(5)
    chip.play("big", hole_edges(rng, 0, passes=True))
    chip.play("small", [e for e in hole_edges(rng, 20_000, passes=True) if e[0] == 0])
    chip.wait(lambda: len([m for m in chip.messages("drop") if m["boot"] == old_boot]) >= len(
        [m for m in drops_before if m["boot"] == old_boot]) + 2, 2, "two drops on the wire")
    chip.run_for((JOURNAL_AFTER_MS + 150) * 1000)  # quiet holes: the journal is written
    chip.reset()
    chip.plug()
    new_boot = pico.wait_stored("a hello of the next boot",
                                lambda: [h for h in pico.hellos() if h["boot"] != old_boot])[0]["boot"]
    got = pico.wait_stored("the two journalled drops", lambda: (
        pico.stored("drop") if len(pico.stored("drop")) >= len(drops_before) + 2 else None))
    new = got[len(drops_before):]
    assert sorted((m["boot"], m["hole"]) for m in new) == [(old_boot, "big"), (old_boot, "small")], new
    assert new_boot != old_boot
    chip.run_for(200_000)  # a resend under the new boot would come now
    assert len(pico.stored("drop")) == len(drops_before) + 2, "a palet stored twice"


def test_the_watchdog_resets_a_hung_loop_and_the_next_hello_says_so(pico: Rig) -> None:
    boots = {h["boot"] for h in pico.hellos()}
    # The firmware again, with a task that blocks the loop (a call that never returns).
    pico.chip.restart_at_repl("import asyncio,time;from firmware import app;exec('async def hang():\\n await "
                     "asyncio.sleep_ms(100)\\n time.sleep(60)');app.main(tasks=[hang()])")
    # Two new boots: the firmware started from the REPL, then the one after the watchdog bit.
    new = pico.wait_stored("the hello after the watchdog", lambda: (lambda new: new if len(new) >= 2 else None)(
        [h for h in pico.hellos() if h["boot"] not in boots]))
    assert new[-1]["crash"] == "watchdog reset", new


def test_a_crash_is_kept_in_flash_and_told_to_the_hub_in_the_next_hello(pico: Rig) -> None:
    boots = {h["boot"] for h in pico.hellos()}
    # The firmware again, with a beam read that raises (as the unix-port fault test does).
    pico.chip.restart_at_repl("from firmware import app,board_rp2;exec('def boom(s,c):\\n raise RuntimeError(\"boom\")');"
                     "board_rp2.BoardBase.read_beam=boom;app.main()")
    # The firmware started from the REPL says "watchdog reset" again (the chip's reset
    # cause is still the watchdog's); the boot after the crash tells the crash.
    hello = pico.wait_stored("the hello after the crash", lambda: [
        h for h in pico.hellos() if h["boot"] not in boots and h.get("crash", "").startswith("RuntimeError")])
    assert hello[0]["crash"].startswith("RuntimeError: boom @"), hello


def test_boot_ids_are_unique_across_every_reset(pico: Rig) -> None:
    boots = [h["boot"] for h in pico.hellos()]
    assert len(boots) >= 4 and len(set(boots)) == len(boots), boots
