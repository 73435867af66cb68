# Secrets for one board: copy to firmware/local.py (git-ignored), fill in, and deploy
# (scripts/deploy-board copies it to the board as /local.py). Only MQTT boards need it.
WIFI_SSID = "trigono-event"
WIFI_PASSWORD = "change-me"
MQTT_USER = "B1"  # the broker's per-board user (hardware/mosquitto/: passwords + ACL)
MQTT_PASSWORD = "change-me"
