# Board config for a Raspberry Pi Pico W wired as hardware/wiring.md, "Pico W".
# Copy it (e.g. boards/B1.py), set the board id, and deploy it:
#   scripts/deploy-board --port /dev/ttyACM0 --config firmware/boards/B1.py
# It is copied to the board as /board_config.py and checked at boot against
# /pinmap.json (hardware/pinmap.json); problems are printed on the serial console.
CONFIG = {
    "board": "B1",
    "port": "rp2",
    "holes": [
        {"name": "big", "beams": [2, 3], "emitter": 4},
        {"name": "small", "beams": [6, 7], "emitter": 8},
        {"name": "jackpot", "beams": [10, 11], "emitter": 12},
    ],
    "buttons": [{"name": "line", "pin": 14}],
    # "line": {"name": "L1", "near": 16, "far": 17, "emitter": 18},  # a throw gate (hardware/throw-line.md)
    "links": ["serial", "mqtt"],
    "mqtt": {"broker": "192.168.50.2", "port": 1883, "keepalive_s": 15},
    "thresholds": {"stuck_ms": 1500},
}
