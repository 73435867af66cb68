"""An update over the air on the real chip (issue 33): MicroPython's rp2 image on an
emulated Pico, deployed as scripts/deploy-board deploys it (the slot selector as
/main.py), updated by the hub's ``update_board`` over its USB serial port with a bundle
built by ``trigono boards bundle``'s code (mpy-cross for armv6m, Ed25519 by PyNaCl).

One boot for the module (each boot costs 10-35 s here): power is cut (RESET, flash kept)
in the middle of the transfer and again the moment the board says it switches; the update
resumes from the flash and commits. Measured on the way, on the chip's own clock: the
signature check, the free heap during the transfer, the main loop's longest stall while
receiving (docs/performance.md, "Issue 33"). The rollbacks of broken versions (crash at
import, hung loop, no self-test pass) run on the unix port (tests/firmware/test_update.py):
the same code, at a tenth of the cost."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware import protocol
from hub.fleet import bundle as fleet_bundle
from hub.fleet.transfer import SerialUpdateLink, update_board
from tests.hil.chip import Chip

pytestmark = [pytest.mark.hil, pytest.mark.slow, pytest.mark.timeout(1500)]

BOARD = "U2"


def config(public: str) -> dict[str, Any]:
    return {"board": BOARD, "port": "rp2", "holes": [{"name": "big", "beams": [2, 3], "emitter": 4}],
            "links": ["serial"], "update_keys": [public],
            "thresholds": {"resend_ms": 300, "selftest_every_s": 0, "poll_ms": 10, "watchdog_ms": 2000,
                           "trial_ms": 8000, "health_every_s": 600}}


class CuttingLink(SerialUpdateLink):
    """The hub's serial update link, which also cuts the chip's power (RESET, flash kept)
    after ``cut_after`` data chunks and when the board first says it switches, and asks
    the board's health every 25 chunks (its free heap)."""

    def __init__(self, chip: Chip, cut_after: int) -> None:
        super().__init__(chip.tty)
        self.chip = chip
        self.cut_after = cut_after
        self.chunks = 0
        self.cuts: list[str] = []
        self.sent_at: list[float] = []  # chip time of each data chunk sent

    def send(self, msg: dict[str, Any]) -> bool:
        if msg.get("op") == "data":
            self.chunks += 1
            if self.chunks == self.cut_after:
                self.cuts.append("transfer")
                self.chip.reset()
                return False
            if self.chunks % 25 == 0:
                super().send(protocol.command(0, "health"))
        return super().send(msg)

    def receive(self, timeout_s: float) -> dict[str, Any] | None:
        got = super().receive(timeout_s)
        if got is not None and got.get("state") == "switching" and "switch" not in self.cuts:
            self.cuts.append("switch")
            self.chip.reset()  # the power goes as the board switches
        return got


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Chip, Path, str]]:
    work = tmp_path_factory.mktemp("update")
    key = work / "organizer.key"
    public = fleet_bundle.keygen(key)
    chip = Chip("pico", config(public), work / "chip")
    chip.boot()
    try:
        chip.wait(lambda: chip.messages("hello"), 10, "the first hello")
        yield chip, key, public
    finally:
        chip.close()
        print(chip.text()[-3000:])


def test_an_update_survives_a_power_cut_mid_transfer_and_one_at_the_switch_then_commits(
        rig: tuple[Chip, Path, str]) -> None:
    chip, key, _public = rig
    first = chip.messages("hello")[0]
    assert (first["fw"], first["slot"]) == ("1.0.0", "a"), first
    bundle = fleet_bundle.build("1.1.0", "rp2", key)
    link = CuttingLink(chip, cut_after=30)
    started_us = chip.now_us()
    started = time.monotonic()
    # Chip time runs ~20x slower than the host's: the waits are host seconds.
    result = update_board(link, BOARD, bundle, answer_timeout_s=60, trial_timeout_s=900)
    link.close()
    assert result.outcome == "updated", (result, chip.text()[-2000:])
    assert link.cuts == ["transfer", "switch"]
    hellos = chip.messages("hello")
    assert (hellos[-1]["fw"], hellos[-1]["slot"], hellos[-1].get("trial")) == ("1.1.0", "b", True)
    assert all(h["fw"] == "1.0.0" for h in hellos[:-1])  # every boot before ran a whole old version
    assert "crash" not in hellos[-1]

    # Figures, on the chip's clock: the answers' gaps, the loop's stalls, the heap.
    answers = chip.timed("update_state")
    gaps = [(b.at_ns - a.at_ns) / 1e6 for a, b in zip(answers, answers[1:], strict=False)
            if a.msg and b.msg and a.msg.get("state") == b.msg.get("state") == "want"]
    manifest_done = [i for i, a in enumerate(answers) if a.msg and a.msg.get("file") == 2 and a.msg.get("off") == 0]
    typical = statistics.median(gaps)
    i = manifest_done[-1]
    check_ms = (answers[i].at_ns - answers[i - 1].at_ns) / 1e6 - typical
    heap = [m["mem_free"] for m in chip.messages("health")]
    stall = chip.longest_stall_ms(started_us)
    print(f"\nupdate {bundle.size} bytes in {len(gaps) + 1} chunks; chunk round trip {typical:.1f} ms chip; "
          f"signature + manifest check {check_ms:.0f} ms chip; free heap min {min(heap)} B of "
          f"{len(heap)} readings; longest loop stall {stall:.0f} ms chip; whole update "
          f"{(chip.now_us() - started_us) / 1e6:.1f} s chip, {time.monotonic() - started:.0f} s host")
    assert min(heap) > 50_000
