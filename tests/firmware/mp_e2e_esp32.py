# mp_e2e.py with the ESP32 board (firmware/board_esp32.py: PCNT edge counters polled by
# the loop) on the fake `machine` and `esp32` modules.
import sys

import board_config
import machine

from firmware import app, board_esp32

machine.wire(board_config.CONFIG)
app.make_board = board_esp32.Board
app.main(tasks=[machine.play(sys.argv[1])])
