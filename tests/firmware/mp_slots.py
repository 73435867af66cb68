# A board booted through the slot selector (firmware/selector.py, /main.py on a board)
# under the MicroPython unix port, for test_update.py: cwd = the fake board's file system
# (board_config.py, pinmap.json, selector.py and slots.py as deployed, slot b's files),
# MICROPYPATH = that directory, then the repository (slot a: the source tree) and the
# fake `machine`. argv[1] = the control file of scripted beam edges: the selector calls
# the slot's app.main without test tasks, so the player is started beside the app's own
# loop by wrapping asyncio.run (whichever slot's app runs, it starts its loop there).
import asyncio
import sys

import board_config
import machine

machine.wire(board_config.CONFIG)

_run = asyncio.run


def _run_with_player(coro):
    async def both():
        asyncio.create_task(machine.play(sys.argv[1]))
        await coro

    return _run(both())


asyncio.run = _run_with_player

import selector  # noqa: E402

selector.run()
