# A board booted through the slot selector (firmware/selector.py, /main.py on a board)
# under the MicroPython unix port, for test_update.py: cwd = the fake board's file system
# (board_config.py, pinmap.json, selector.py and slots.py as deployed, slot b's files),
# MICROPYPATH = that directory, then the repository (slot a: the source tree) and the
# fake `machine`.
import board_config
import machine

machine.wire(board_config.CONFIG)

import selector  # noqa: E402

selector.run()
