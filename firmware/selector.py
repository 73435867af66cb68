# The slot selector: deployed as /main.py (with firmware/slots.py as /slots.py) and NEVER
# updated by a bundle, so keep it small: a fault here is the one a board cannot undo
# by itself (issue 33, firmware/README.md "Updates").
#
# It picks the application slot (firmware/slots.py) and runs it. On a trial boot (a new
# version's first) it first starts the watchdog (a hang anywhere, imports included, resets
# the board) and a one-shot timer: the new version must commit (firmware/update.py: hello
# acknowledged and self-test passed) within TRIAL_MS, or the board resets; the boot after
# a trial that did not commit goes back to the old slot and says why in its hello.
import os
import sys

import slots

TRIAL_MS = 60000  # the new version's deadline to commit
WDT_MS = 8000  # rp2's watchdog tops out at 8.3 s
CRASH_FILE = "crash.txt"


def why_failed(machine):
    try:
        with open(CRASH_FILE) as f:
            line = f.readline().strip()
        if line:
            return line
    except OSError:
        pass
    try:
        if machine.reset_cause() == machine.WDT_RESET:
            return "watchdog reset"
    except AttributeError:
        pass
    return None


def note_crash(text):
    try:
        with open(CRASH_FILE, "w") as f:
            f.write(text[:64] + "\n")
    except OSError:
        pass


def guard_trial(machine):
    """The watchdog first, then the deadline (None: no timer on this port)."""
    machine.WDT(timeout=WDT_MS)

    def deadline(_timer):
        if slots.read_state().get("trial"):
            note_crash("no commit within " + str(TRIAL_MS // 1000) + " s")
            machine.reset()

    timer = getattr(machine, "Timer", None)
    if timer is None:
        return None
    try:  # rp2: a virtual timer; a port that wants a timer id (esp32) gets none here
        return timer(mode=timer.ONE_SHOT, period=TRIAL_MS, callback=deadline)
    except (TypeError, ValueError, OSError):
        return None  # the app's own deadline (trial_ms, firmware/update.py) still holds


def run():
    import machine

    state = slots.read_state()
    slot, new = slots.choose(state, lambda: why_failed(machine))
    if new is not None:
        slots.write_state(new)
    trial = new is not None and new.get("trial") == slot
    timer = guard_trial(machine) if trial else None
    where = slots.SLOT_DIRS[slot]
    if where:
        sys.path.insert(0, (os.getcwd().rstrip("/") + "/" + where).rstrip("/"))
    try:
        from firmware.app import main
    except Exception as err:  # noqa: BLE001 - a version that cannot even import: try the other
        if not trial:
            raise  # not on trial: nothing to go back to (the REPL shows why)
        note_crash("import: " + type(err).__name__ + ": " + str(err))
        machine.reset()
        return
    main(slot=slot, trial_timer=timer)


if __name__ == "__main__":
    run()
