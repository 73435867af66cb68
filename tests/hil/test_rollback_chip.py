"""Broken versions rolled back by the board itself, on the real chip (issue 33): the
MicroPython rp2 image on an emulated Pico, deployed as scripts/deploy-board deploys it (the
slot selector as /main.py), with slot b holding a signed bundle built by
``trigono boards bundle``'s code (mpy-cross for armv6m) from a broken copy of the firmware,
and the slot state as the board's own switch leaves it (``trial: b``, not tried yet):
what the board holds the moment it resets into a new version after a transfer
(tests/hil/test_update_chip.py runs that transfer and switch on the chip).

Each version must say hello and pass its self-test before it commits; these three never
do, each for its own reason, and the board goes back to slot a by itself and says why in
the hello of the boot after:
- a crash at import: the selector catches it, writes why, resets;
- a hung loop (it waits forever, the watchdog stops being fed): the watchdog resets it;
- a self-test that never passes: the app's trial deadline (``trial_ms``) resets it.

Both boots are timed on the chip's clock: from power-on to the hello that tells the
rollback. Two boots each (10-35 s of host CPU each here): the rollbacks' many variants run
on the unix port (tests/firmware/test_update.py), with the transfer before them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hub.fleet import bundle as fleet_bundle
from tests.firmware.update_rig import patched_tree
from tests.hil.chip import Chip, flash_filesystem

pytestmark = [pytest.mark.hil, pytest.mark.slow, pytest.mark.timeout(900)]

BOARD = "U3"
TRIAL_MS = 1000  # the app's deadline for a new version (chip time; the deployed default is 60 s)
WATCHDOG_MS = 1000

# The broken copies of firmware/: (file, text there, text instead), and the reason the
# board gives for the rollback.
BROKEN = {
    "crash at import": ({"app.py": ("import asyncio\n", "import asyncio\n\nraise ImportError('broken build')\n")},
                        "import: ImportError: broken build"),
    # A loop that runs 0.3 s (its hello leaves), then waits for something that never
    # comes (it sleeps: the chip idles, as a real board waiting on a socket does).
    "hung loop": ({"app.py": ("        node.poll()\n",
                              "        node.poll()\n        if node.uptime_ms > 300:\n            import time\n"
                              "            while True:\n                time.sleep_ms(100)\n")}, "watchdog reset"),
    "self-test never passes": ({"node.py": ('        """Every emitter self-test ran since boot and none failed (a trial\'s commit)."""\n',
                                            '        """Every emitter self-test ran since boot and none failed (a trial\'s commit)."""\n'
                                            "        return False\n")},
                               f"no commit within {TRIAL_MS // 1000} s"),
}


def config(public: str) -> dict[str, Any]:
    return {"board": BOARD, "port": "rp2", "holes": [{"name": "big", "beams": [2, 3], "emitter": 4}],
            "links": ["serial"], "update_keys": [public],
            "thresholds": {"resend_ms": 300, "selftest_every_s": 0, "poll_ms": 50, "watchdog_ms": WATCHDOG_MS,
                           "trial_ms": TRIAL_MS, "health_every_s": 600}}


def switched(bundle: fleet_bundle.Bundle, where: Path) -> list[tuple[Path, str]]:
    """Slot b and the slot state as firmware/update.py's switch leaves them."""
    where.mkdir(parents=True, exist_ok=True)
    state = {"active": "a", "trial": "b", "tries": 0, "version": bundle.version}
    items = [("b/manifest.sig", bundle.signature), ("b/manifest.json", bundle.manifest),
             *(("b/" + p, d) for p, d in bundle.files.items()), ("slot.json", json.dumps(state).encode())]
    out: list[tuple[Path, str]] = []
    for n, (dest, data) in enumerate(items):
        local = where / f"{n}.bin"
        local.write_bytes(data)
        out.append((local, dest))
    return out


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("key") / "organizer.key"
    return path, fleet_bundle.keygen(path)


@pytest.mark.parametrize("what", list(BROKEN))
def test_a_broken_version_is_rolled_back_by_the_chip_itself(what: str, key: tuple[Path, str],
                                                             tmp_path: Path) -> None:
    edits, why = BROKEN[what]
    version = f"1.{list(BROKEN).index(what) + 2}.0"
    broken = fleet_bundle.build(version, "rp2", key[0], source=patched_tree(tmp_path / "tree", edits))
    chip = Chip("pico", config(key[1]), tmp_path / "chip")
    chip.fs_image.write_bytes(flash_filesystem(chip.files + switched(broken, tmp_path / "staged"),
                                               chip.layout.fs_blocksize, chip.layout.fs_blockcount))
    chip.boot()
    try:
        def told() -> dict[str, Any] | None:
            return next((h for h in chip.messages("hello") if h.get("rollback")), None)

        hello = chip.wait(told, 20, "the hello that tells the rollback")
        assert (hello["fw"], hello["slot"], hello["rollback"]) == ("1.0.0", "a", f"{version}: {why}"), hello
        earlier = [h for h in chip.messages("hello") if h is not hello and h["boot"] != hello["boot"]]
        # The broken version's own boot: a trial that said hello (hang, self-test) or none (import).
        assert all((h["fw"], h["slot"], h.get("trial")) == (version, "b", True) for h in earlier), earlier
        assert bool(earlier) == (what != "crash at import"), earlier
        print(f"\n{what}: rolled back, told {chip.timed('hello')[-1].at_ns / 1e9:.2f} s of chip time after power-on")
    finally:
        chip.close()
