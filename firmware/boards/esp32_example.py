# Board config for an ESP32-DevKitC wired as hardware/wiring.md, "ESP32".
# 8 PCNT units: at most 8 beams and buttons together (3 two-beam holes + 1 button = 7).
CONFIG = {
    "board": "B2",
    "port": "esp32",
    "holes": [
        {"name": "big", "beams": [32, 33], "emitter": 25},
        {"name": "small", "beams": [26, 27], "emitter": 14},
        {"name": "jackpot", "beams": [18, 19], "emitter": 21},
    ],
    "buttons": [{"name": "line", "pin": 22}],
    "links": ["serial", "mqtt"],
    "mqtt": {"broker": "192.168.50.2", "port": 1883, "keepalive_s": 15},
}
