# The board program under the MicroPython unix port, for test_e2e_mqtt.py: the real
# firmware.app main loop on the fake `machine` (board_rp2 with "hard" IRQs), a real
# non-blocking MQTT client (firmware/mqtt.py) and a real Mosquitto. Run with cwd = the fake board's filesystem
# (board_config.py, pinmap.json) and MICROPYPATH covering the repo, the fake machine and
# the MicroPython libraries. argv[1] = the control file of scripted beam edges.
import sys

import board_config
import machine

from firmware import app

machine.wire(board_config.CONFIG)
app.main(tasks=[machine.play(sys.argv[1])])
