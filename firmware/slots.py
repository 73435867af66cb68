# The two application slots and their state file (issue 33). Deployed as /slots.py beside
# the slot selector (firmware/selector.py, deployed as /main.py): both are outside the
# slots and never updated by a bundle; the running application (firmware/update.py)
# imports this one as `slots`. Pure file-system logic: no `machine`.
#
# Slot "a" is the root (what scripts/deploy-board writes: /firmware/*.mpy), slot "b" is
# /b/firmware/*.mpy. /slot.json says which one runs:
#   {"active": "a"}                                   normal
#   {"active": "a", "trial": "b", "tries": 0|1,        trying "b" once: the selector counts
#    "version": "1.1.0"}                               the boot, the app commits or not
#   {"active": "a", "rollback": "1.1.0: watchdog reset"}   told in the hello until the
#                                                      hub acknowledged it
# Every write goes to a temporary file renamed over the old one (littlefs renames are
# atomic), so a power cut leaves the old state or the new one, never half of either.

import json
import os

STATE_FILE = "slot.json"
SLOT_DIRS = {"a": "", "b": "b/"}
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
STAGE_ID = "upd_id.txt"  # the bundle id being received into a slot


def other(slot):
    return "b" if slot == "a" else "a"


def read_state():
    try:
        with open(STATE_FILE) as f:
            state = json.load(f)
        if isinstance(state, dict) and state.get("active") in SLOT_DIRS:
            return state
    except (OSError, ValueError):
        pass
    return {"active": "a"}


def write_state(state):
    tmp = STATE_FILE + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(state))
    os.rename(tmp, STATE_FILE)


def choose(state, why_failed=None):
    """(slot to run, state to write first or None). A trial slot is run once: a boot that
    finds its try already counted goes back to the active slot and says why
    (`why_failed()` -> the last crash or reset cause)."""
    trial = state.get("trial")
    if trial in SLOT_DIRS:
        if state.get("tries", 0) >= 1:
            why = why_failed() if why_failed is not None else None
            note = (str(state.get("version", "?")) + ": " + (why or "no commit"))[:64]
            return state["active"], {"active": state["active"], "rollback": note}
        new = dict(state)
        new["tries"] = 1
        return trial, new
    return state["active"], None


def slot_version(slot, default):
    """The version a slot holds (its manifest), else `default` (a USB-deployed tree)."""
    try:
        with open(SLOT_DIRS[slot] + MANIFEST) as f:
            return str(json.load(f)["version"])[:64]
    except (OSError, ValueError, KeyError, TypeError):
        return default
