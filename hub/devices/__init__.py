"""Device links: transports, serial, MQTT, the inbox, ingest and board health."""
